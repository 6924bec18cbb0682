"""The first window fits a laptop's screen (it opened at 1360x860 on a 1366x768 screen, its Run button
below the screen's edge): sized from the available geometry, and no tab needs more than that."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSize

from kanon_gui import screen_fit
from kanon_gui.screen_fit import FRAME_ALLOWANCE, fitted_size

pytestmark = pytest.mark.gui

#: Available areas of the two screens of the walk: 1366x768 less a 40-pixel task bar, and 1280x800.
LAPTOPS = [QRect(0, 0, 1366, 728), QRect(0, 0, 1280, 800)]


@pytest.mark.parametrize("area", LAPTOPS, ids=["1366x768", "1280x800"])
def test_first_size_leaves_room_for_the_frame(area):
    size = fitted_size(QSize(1360, 860), area)
    assert size.width() + FRAME_ALLOWANCE.width() <= area.width()
    assert size.height() + FRAME_ALLOWANCE.height() <= area.height()
    assert fitted_size(QSize(900, 600), area) == QSize(900, 600)  # a window that fits keeps its size


@pytest.mark.parametrize("area", LAPTOPS, ids=["1366x768", "1280x800"])
def test_window_and_every_tab_fit(area, qtbot, monkeypatch, sample_dir, wait_idle):
    from kanon_gui.main_window import MainWindow

    monkeypatch.setattr(screen_fit, "available_area", lambda _widget: area)
    window = MainWindow()  # fresh settings: no saved geometry, so the first size
    window.ask_before_close = False
    qtbot.addWidget(window)
    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    window.show()
    room = QSize(area.width() - FRAME_ALLOWANCE.width(), area.height() - FRAME_ALLOWANCE.height())
    assert window.width() <= room.width() and window.height() <= room.height()
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        hint = window.minimumSizeHint()
        assert hint.width() <= room.width() and hint.height() <= room.height(), window.tabs.tabText(i)
    window.runner.shutdown()


def test_a_window_saved_on_a_larger_monitor_comes_back_inside_the_screen(qtbot, monkeypatch):
    from PySide6.QtWidgets import QWidget

    monkeypatch.setattr(screen_fit, "available_area", lambda _widget: QRect(0, 0, 1280, 800))
    widget = QWidget()
    qtbot.addWidget(widget)
    widget.setGeometry(1500, 900, 1900, 1100)  # where it was on a 2560x1440 monitor
    screen_fit.keep_on_screen(widget)
    assert widget.width() <= 1280 - FRAME_ALLOWANCE.width()
    assert widget.height() <= 800 - FRAME_ALLOWANCE.height()
    assert widget.x() >= 0 and widget.x() + widget.width() + FRAME_ALLOWANCE.width() <= 1280
    assert widget.y() >= 0 and widget.y() + widget.height() + FRAME_ALLOWANCE.height() <= 800
