"""Windows sized from the screen they open on, so nothing (the Run button, the status bar) is cut off.

A laptop's 1366x768 or 1280x800 screen less its task bar leaves about 1366x728; a window asking for
1360x860 opened with its bottom below the screen. Here the first size is the preferred size shrunk to
the screen's *available* geometry (without task bars and docks), less room for the window frame the
window manager adds; a size restored from the settings (perhaps saved on a larger monitor) is shrunk and
moved the same way.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

#: Room left for the title bar and borders the window manager draws around the window.
FRAME_ALLOWANCE = QSize(16, 40)


def _screen_of(widget: QWidget) -> QScreen | None:
    return widget.screen() or QGuiApplication.primaryScreen()


def available_area(widget: QWidget) -> QRect | None:
    """The part of the widget's screen a window may use (None without a screen)."""
    screen = _screen_of(widget)
    return screen.availableGeometry() if screen is not None else None


def fitted_size(preferred: QSize, area: QRect | None) -> QSize:
    """``preferred`` shrunk to fit ``area`` with its frame (never below 640x480)."""
    if area is None:
        return preferred
    width = min(preferred.width(), area.width() - FRAME_ALLOWANCE.width())
    height = min(preferred.height(), area.height() - FRAME_ALLOWANCE.height())
    return QSize(max(640, width), max(480, height))


def fit_window(widget: QWidget, preferred: QSize) -> None:
    """Give a new top-level window the preferred size, shrunk to its screen, centred on it."""
    area = available_area(widget)
    size = fitted_size(preferred, area)
    widget.resize(size)
    if area is not None:
        widget.move(
            area.x() + max(0, (area.width() - size.width() - FRAME_ALLOWANCE.width()) // 2),
            area.y() + max(0, (area.height() - size.height() - FRAME_ALLOWANCE.height()) // 2),
        )


def keep_on_screen(widget: QWidget) -> None:
    """A restored geometry shrunk and moved back inside the screen it is on (a smaller monitor now)."""
    area = available_area(widget)
    if area is None:
        return
    size = fitted_size(widget.size(), area)
    if size != widget.size():
        widget.resize(size)
    x = min(max(widget.x(), area.x()), area.right() - size.width() - FRAME_ALLOWANCE.width() + 1)
    y = min(max(widget.y(), area.y()), area.bottom() - size.height() - FRAME_ALLOWANCE.height() + 1)
    widget.move(max(area.x(), x), max(area.y(), y))
