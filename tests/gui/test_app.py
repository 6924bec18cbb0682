"""Start-up pieces: the bundled font and icons load, unexpected exceptions open the crash dialog with the
traceback, the sample opens and runs, the screenshot tour writes one PNG per view, autosave and recent
files go to the app data folder."""

from __future__ import annotations

import json
import sys

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from kanon_gui import appdata
from kanon_gui.errors import ExceptionHook
from kanon_gui.resources import icon, load_fonts, sample_project

pytestmark = pytest.mark.gui


def test_bundled_font_and_icons_load(qtbot):
    assert load_fonts() == "DejaVu Sans"
    assert not icon("run").isNull()
    assert icon("no-such-icon").isNull()


def test_unexpected_exception_opens_the_crash_dialog(qtbot):
    from kanon_gui.dialogs.crash_dialog import CrashDialog

    hook = ExceptionHook()
    hook.install()
    try:
        try:
            raise ZeroDivisionError("division by zero in a slot")
        except ZeroDivisionError:
            sys.excepthook(*sys.exc_info())
        qtbot.waitUntil(lambda: hook._dialog is not None and hook._dialog.isVisible(), timeout=3000)
        dialog = hook._dialog
        assert isinstance(dialog, CrashDialog)
        assert "ZeroDivisionError" in dialog.details.toPlainText()
        assert "test_unexpected_exception_opens_the_crash_dialog" in dialog.details.toPlainText()
        dialog.copy_details()
        assert "ZeroDivisionError" in QApplication.clipboard().text()
        dialog.close()
    finally:
        hook.uninstall()


def test_sample_opens_runs_and_autosaves(window, qtbot, wait_idle, isolated_app_data):
    assert sample_project().exists()
    window.open_sample()
    wait_idle(window)
    state = window.state
    assert state.table is not None and state.run_blocker() is None, state.run_blocker()
    window.run()
    qtbot.waitUntil(lambda: state.current_run is not None, timeout=60_000)
    wait_idle(window)
    auto = appdata.autosave_path()
    assert auto.parent == isolated_app_data and auto.exists()
    saved = json.loads(auto.read_text(encoding="utf-8"))
    assert saved["runs"] and saved["data"]["path"].endswith("sample_patients.csv")
    assert str(sample_project().resolve()) in appdata.recent_files()
    # saving never overwrites the bundled sample: it asks for a new file instead (no dialog here)
    assert window.state.project_path == sample_project()


def test_screenshot_tour_writes_one_png_per_view(qtbot, tmp_path):
    from kanon_gui.screenshots import take_screenshots

    saved = take_screenshots(tmp_path / "shots")
    names = [p.name for p in saved]
    for expected in (
        "welcome",
        "import_dialog",
        "data_grid",
        "attributes",
        "hierarchy_wizard",
        "anonymize",
        "results",
        "analysis_charts_dates",
        "risk_linkage_attack",
    ):
        assert any(expected in n for n in names), names
    for path in saved:
        image = QImage(str(path))
        assert image.width() > 300 and image.height() > 200
        # not blank: a real picture has many distinct colours
        colours = {
            image.pixel(x, y) for x in range(0, image.width(), 17) for y in range(0, image.height(), 17)
        }
        assert len(colours) > 5, path.name
