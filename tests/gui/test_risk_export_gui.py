"""The risk panel, the export dialog and the in-process PDF renderer (pytest-qt, offscreen)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import hashlib
import shutil
from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.io import read_table
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.report.build import build_report
from kanon_engine.report.html import render_html
from kanon_gui.dialogs.export_dialog import ExportDialog
from kanon_gui.report_pdf import main as pdf_main
from kanon_gui.report_pdf import render_pdf
from kanon_gui.tasks import TaskRunner
from kanon_gui.views.risk_view import RiskPanel

pytestmark = pytest.mark.gui
QI = ("age", "sex", "zipcode")


@pytest.fixture()
def seeds(seed_dir: Path, tmp_path: Path):
    """The seeds' patients, copied to a temporary folder (exports go next to the data by default)."""
    src = tmp_path / "patients.csv"
    shutil.copy(seed_dir / "mondrian_patients.csv", src)
    table = read_table(src)
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in QI}
    config = AnonymizationConfig(QI, hs, build_models(2), sensitive=("disease",))
    return table, get_algorithm("optimal").run(table, config)


def _cell(panel: RiskPanel, label: str, column: int) -> str:
    for row in range(panel.figures.rowCount()):
        if panel.figures.verticalHeaderItem(row).text() == label:
            return panel.figures.item(row, column).text()
    raise KeyError(label)


def test_risk_panel_shows_before_and_after(qtbot, seeds) -> None:
    table, result = seeds
    panel = RiskPanel()
    qtbot.addWidget(panel)
    with qtbot.assertNotEmitted(panel.row_requested):  # explaining on its own asks the window nothing
        panel.set_result(table, result)
    assert _cell(panel, "Prosecutor risk, highest", 0) == "100.0 % (1 in 1)"
    assert _cell(panel, "Prosecutor risk, highest", 1) == "50.0 % (1 in 2)"
    assert _cell(panel, "Sample uniques", 0) == "6" and _cell(panel, "Sample uniques", 1) == "0"
    assert "prosecutor" in panel.figures.verticalHeaderItem(4).toolTip().lower()
    # the first unsafe record is explained at once; "next" moves on
    assert "Record 1 " in panel.explanation.toPlainText() and "unsafe" in panel.explanation.toPlainText()
    with qtbot.waitSignal(panel.row_requested) as sig:
        panel.next_unsafe.click()
    assert sig.args == [1] and "Record 2 " in panel.explanation.toPlainText()
    assert "In this release it is in a group of" in panel.explanation.toPlainText()
    bars = [i for i in panel.plot.getPlotItem().items if i.__class__.__name__ == "BarGraphItem"]
    assert len(bars) == 2  # one item per series
    assert panel.threshold.suffix() == " %" and panel.threshold.value() == 20.0  # percent, not 0.2
    panel.threshold.setValue(60.0)  # a risk of 1/2 is below 60 %: nobody at risk after
    assert _cell(panel, "Records at risk", 1).startswith("0 ")
    panel.set_result(None, None)
    assert panel.figures.item(0, 0) is None and not panel.explain_button.isEnabled()


def test_risk_panel_lists_homogeneous_groups(qtbot) -> None:
    frame = pd.DataFrame(
        {
            "age": ["30", "30", "31", "31", "40", "40"],
            "disease": ["flu", "flu", "flu", "hiv", "cancer", "cancer"],
        }
    )
    table = Table.from_frame(frame)
    config = AnonymizationConfig(
        ("age",), {"age": default_hierarchy("age", frame["age"])}, build_models(2), sensitive=("disease",)
    )
    result = get_algorithm("optimal").run(table, config)
    panel = RiskPanel()
    qtbot.addWidget(panel)
    panel.set_result(table, result)
    rows = {panel.homogeneity.item(r, 1).text() for r in range(panel.homogeneity.rowCount())}
    assert rows == {"flu", "cancer"} or rows == {"cancer"}
    assert panel.homogeneity_summary.text().startswith("Homogeneous groups of disease: ")
    assert "group(s)" not in panel.homogeneity_summary.text()


def test_risk_panel_in_background(qtbot, seeds) -> None:
    table, result = seeds
    runner = TaskRunner()
    panel = RiskPanel(runner=runner)
    qtbot.addWidget(panel)
    panel.set_result(table, result)
    qtbot.waitUntil(lambda: panel.comparison is not None, timeout=10_000)
    assert _cell(panel, "Groups", 1) == "2"
    assert runner.shutdown()


def test_export_dialog_writes_everything(qtbot, seeds, tmp_path: Path) -> None:
    table, result = seeds
    dialog = ExportDialog(None, table, None, result, None)
    qtbot.addWidget(dialog)
    # the default is the remembered export folder or the documents folder, never beside the raw data
    assert Path(dialog.path_edit.text()).parent != table.source.parent
    dialog.path_edit.setText(str(tmp_path / "patients_release.csv"))
    dialog.format_box.setCurrentIndex(1)  # XLSX changes the extension
    assert dialog.path_edit.text().endswith(".xlsx") and not dialog.delimiter_box.isEnabled()
    dialog.format_box.setCurrentIndex(0)
    dialog.delimiter_box.setCurrentIndex(1)  # ;
    for box in (dialog.mapping_check, dialog.hierarchies_check, dialog.html_check, dialog.pdf_check):
        box.setChecked(True)
    dialog.shuffle_check.setChecked(True)
    with qtbot.waitSignal(dialog.accepted, timeout=120_000):
        dialog.export_button.click()
    assert dialog.error is None and dialog.outcome is not None
    release = tmp_path / "patients_release.csv"
    assert dialog.outcome.release.sha256 == hashlib.sha256(release.read_bytes()).hexdigest()
    for name in (
        "patients_release_value_mapping.csv",
        "patients_release_report.html",
        "patients_release_report.pdf",
        "patients_release_hierarchy_age.csv",
    ):
        assert (tmp_path / name).is_file(), name
    assert release.read_text().splitlines()[0] == "age;sex;zipcode;disease"
    html = (tmp_path / "patients_release_report.html").read_text(encoding="utf-8")
    assert dialog.outcome.release.sha256 in html


def test_export_dialog_shows_plain_errors(qtbot, seeds) -> None:
    table, result = seeds
    dialog = ExportDialog(None, table, None, result, None)
    qtbot.addWidget(dialog)
    before = table.source.read_bytes()
    dialog.path_edit.setText(str(table.source))
    dialog.html_check.setChecked(False)
    dialog.export_button.click()
    qtbot.waitUntil(lambda: dialog.error is not None, timeout=10_000)
    assert isinstance(dialog.error, DataError)
    assert "never writes over its input" in dialog.status.text()
    assert table.source.read_bytes() == before and dialog.result() == 0 and dialog.export_button.isEnabled()
    dialog.error = None
    dialog.pseudo_check.setEnabled(True)
    dialog.pseudo_check.setChecked(True)
    dialog.export_button.click()
    assert isinstance(dialog.error, ConfigError) and "key file" in dialog.status.text()


def test_render_pdf_in_process(qtbot, seeds, tmp_path: Path) -> None:
    table, result = seeds
    out = tmp_path / "r.pdf"
    render_pdf(render_html(build_report(table, result)), out)
    data = out.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 5000
    assert oct(out.stat().st_mode & 0o777) != oct(0o600)  # not left with mkstemp's private mode
    assert pdf_main(["only-one-arg"]) == 2
    assert pdf_main([str(tmp_path / "missing.html"), str(out)]) == 2
