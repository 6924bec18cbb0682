"""The mouse wheel scrolls panels; it never changes a setting the user did not pick.

Qt's combo boxes and spin boxes take the wheel when the pointer passes over them, so scrolling a long
panel (the Anonymize tab) could turn "what to suppress" from records to cells, or k from 5 to 7, with
nothing on screen saying so. One event filter on the application handles every such widget, present
and future, instead of a subclass or a setting per widget:

- a wheel event aimed at a combo box or spin box that does not have the keyboard focus is marked
  ignored and not delivered to it, so Qt passes it on to the parent (the scroll area scrolls);
- those widgets take the focus on a click or Tab, not on the wheel (``StrongFocus`` instead of Qt's
  ``WheelFocus``), otherwise the first turn of the wheel would focus them and the next would change them.

A widget the user clicked into (it has the focus) still answers the wheel, as the user expects. A combo
box's open list is a separate widget and scrolls as usual.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QWidget

#: Widgets whose value the wheel would change.
GUARDED = (QComboBox, QAbstractSpinBox)


class WheelGuard(QObject):
    """The application's event filter (see the module docstring)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        kind = event.type()
        if kind == QEvent.Type.Wheel:
            if isinstance(watched, GUARDED) and not watched.hasFocus():
                event.ignore()  # ignored and filtered: Qt hands it to the parent widget instead
                return True
        elif kind == QEvent.Type.Polish and isinstance(watched, GUARDED):
            widget: QWidget = watched  # type: ignore[assignment]
            if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        return False


_guard: WheelGuard | None = None


def install_wheel_guard(app: QApplication | None = None) -> WheelGuard:
    """Install the guard on the application once (a second call returns the same one)."""
    global _guard
    app = app or QApplication.instance()
    if _guard is None:
        _guard = WheelGuard()
        app.installEventFilter(_guard)
    return _guard
