"""Fixtures of the GUI tests: Qt offscreen (set before any Qt import), an isolated app data folder, a
workbench window, and a check that no test leaves a background task running. The Adult and sample
folders come from the repository's tests/conftest.py (``adult_dir``, ``sample_dir``)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any Qt import

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QStandardPaths  # noqa: E402

QStandardPaths.setTestModeEnabled(True)

from kanon_gui import appdata  # noqa: E402
from kanon_gui.tasks import TaskRunner  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_app_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Settings, log and autosave go to a fresh folder per test."""
    folder = tmp_path / "appdata"
    folder.mkdir()
    monkeypatch.setattr(appdata, "app_data_dir", lambda: folder)
    return folder


@pytest.fixture(autouse=True)
def no_task_left_running():
    """Fail any test that leaves a worker running (and stop it, so the next test starts clean)."""
    yield
    leftover = []
    for runner in TaskRunner.live_runners():
        active = runner.active()
        if active:
            leftover.extend(active)
            runner.shutdown(10_000)
    if leftover:
        pytest.fail(f"the test left background tasks running: {leftover}")


@pytest.fixture
def window(qtbot):
    """A workbench window that does not ask before closing; its runner is shut down afterwards."""
    from kanon_gui.main_window import MainWindow

    w = MainWindow()
    w.ask_before_close = False
    qtbot.addWidget(w)
    w.show()
    yield w
    w.runner.shutdown()


@pytest.fixture
def wait_idle(qtbot):
    """``wait_idle(window)``: wait until the window's runner has no task left."""

    def wait(window, timeout: int = 60_000) -> None:
        qtbot.waitUntil(lambda: not window.runner.is_busy(), timeout=timeout)

    return wait


@pytest.fixture
def reopen(qtbot, wait_idle):
    """``reopen(path)``: the project at ``path`` opened in a second workbench window, its data read and
    its saved runs restored (the window's runner is shut down afterwards)."""
    from kanon_gui.main_window import MainWindow

    opened = []

    def open_again(path: Path):
        again = MainWindow()
        again.ask_before_close = False
        qtbot.addWidget(again)
        again.open_project(path)
        wait_idle(again)
        opened.append(again)
        return again

    yield open_again
    for again in opened:
        again.runner.shutdown()
