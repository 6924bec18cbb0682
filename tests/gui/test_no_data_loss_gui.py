"""The workbench never writes over a file its project reads (issue 17, items 1 and 6): Save / Save As,
hierarchy export, chart export and the export dialog all refuse the data, hierarchy and project files
through the engine's one guard; stale temporary files are cleaned when a project is opened."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from kanon_engine.data.roles import Role
from kanon_engine.errors import KanonError

pytestmark = pytest.mark.gui
SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"


def hashes(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()
    }


@pytest.fixture()
def loaded(window, tmp_path: Path, wait_idle):
    """The window with a copy of the sample data loaded and its age hierarchy imported from a file."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(SAMPLE / "sample_patients.csv", work / "data.csv")
    shutil.copy(SAMPLE / "hierarchy_age.csv", work / "h.csv")
    window.load_data(work / "data.csv")
    wait_idle(window)
    window.state.set_roles({"age": Role.QUASI_IDENTIFIER, "sex": Role.QUASI_IDENTIFIER}, "roles")
    assert window.hier_actions.import_arx_file("age", work / "h.csv")
    return window, work


def test_save_as_over_the_data_or_a_hierarchy_is_refused(loaded) -> None:
    window, work = loaded
    os.symlink(work / "data.csv", work / "link.csv")
    before = hashes(work)
    for target, what in (("data.csv", "the data file"), ("link.csv", "the data file"), ("h.csv", "imported")):
        assert window.save_to(work / target) is False
        assert what in window.message_bar.text(), window.message_bar.text()
    assert hashes(work) == before
    assert window.save_to(work / "p.kanon.json") and window.save_to(
        work / "p.kanon.json"
    )  # its own file: fine


def test_hierarchy_and_chart_export_refuse_inputs(loaded, qtbot) -> None:
    from kanon_gui.views.chart_export import save_png

    window, work = loaded
    assert window.save_to(work / "p.kanon.json")
    before = hashes(work)
    assert window.hier_actions.export_arx_file("age", work / "data.csv") is False
    assert window.hier_actions.export_arx_file("age", work / "h.csv") is False
    label = QLabel("chart")
    qtbot.addWidget(label)
    for target in ("data.csv", "h.csv", "p.kanon.json"):
        with pytest.raises(KanonError, match="never writes over its input"):
            save_png(label, work / target)
    assert hashes(work) == before
    assert window.hier_actions.export_arx_file("age", work / "age_copy.csv")


def test_export_plan_is_checked_before_anything_is_written(loaded, wait_idle) -> None:
    from kanon_engine.release.export import ExportOptions
    from kanon_engine.session import ExportPlan, export

    window, work = loaded
    window.run()
    wait_idle(window)
    run = window.state.current_run
    before = hashes(work)
    same = ExportPlan(work / "rel.csv", ExportOptions(), report_html=work / "rel.csv")
    with pytest.raises(KanonError, match="both name rel.csv"):
        export(run.table, window.state.project, run.result, same)
    onto_input = ExportPlan(work / "rel.csv", ExportOptions(), report_pdf=work / "h.csv")
    with pytest.raises(KanonError, match="imported for 'age'"):
        export(run.table, window.state.project, run.result, onto_input)
    assert hashes(work) == before  # not even the release


def test_opening_a_project_cleans_stale_temp_files(loaded, wait_idle, caplog) -> None:
    window, work = loaded
    assert window.save_to(work / "p.kanon.json")
    stale = work / ".rel.csv.k3n0n1x2.tmp"
    stale.write_text("age,sex\n34,F\n")
    t = time.time() - 7200
    os.utime(stale, (t, t))
    with caplog.at_level(logging.INFO, logger="kanon_engine.release.fileio"):
        window.open_project(work / "p.kanon.json")
        wait_idle(window)
    assert not stale.exists()
    assert ".rel.csv.k3n0n1x2.tmp" in caplog.text and "34,F" not in caplog.text
