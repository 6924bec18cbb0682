"""What a data steward's first real use tripped over (issue 12), each checked in the workbench.

The data is the synthetic hospital export of ``tests/fixtures/hospital_export.py`` (cp1252, semicolons,
German headers, dd.mm.yyyy dates, postcodes with leading zeros, missing cells).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QMessageBox

from kanon_engine.data.roles import Role
from tests.fixtures.hospital_export import write_export

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def export_file(tmp_path_factory):
    return write_export(tmp_path_factory.mktemp("export") / "krankenhaus.csv", rows=3000)


def load_export(window, path, wait_idle) -> None:
    window.load_data(path)
    wait_idle(window)
    assert window.state.table is not None and window.state.table.source == path


# --- item 2: replacing the project asks first; every view resets ----------------------------------------
def test_opening_a_file_asks_before_discarding_unsaved_work(
    window, export_file, sample_dir, wait_idle, monkeypatch
):
    window.ask_before_close = True
    load_export(window, export_file, wait_idle)
    window.state.set_role("Verweildauer", Role.QUASI_IDENTIFIER)
    assert window.state.is_dirty()
    asked = []

    def answer(button):
        def question(parent, title, text, *args, **kwargs):
            asked.append(text)
            return button

        return question

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Cancel))
    window.open_path(sample_dir / "sample_project.json")
    wait_idle(window)
    assert len(asked) == 1 and "unsaved changes" in asked[0] and "sample_project.json" in asked[0]
    assert window.state.table.source == export_file  # Cancel kept the work
    assert window.state.role("Verweildauer") == Role.QUASI_IDENTIFIER

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Discard))
    window.open_path(sample_dir / "sample_project.json")
    wait_idle(window)
    assert window.state.table.source.name == "sample_patients.csv"
    window.ask_before_close = False


def test_hierarchy_panel_resets_when_another_file_is_opened(window, export_file, sample_dir, wait_idle):
    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    window.attributes_panel.select_column("age")
    assert window.hierarchy_editor.column == "age"
    assert window.hierarchy_editor.model.rowCount() > 0
    load_export(window, export_file, wait_idle)
    editor = window.hierarchy_editor
    assert editor.column in window.state.columns
    shown = editor.hierarchy()
    assert shown is None or shown.attribute == editor.column  # never the previous file's tree
    if shown is None:
        assert editor.model.rowCount() == 0


# --- item 3: shared parameters keep their values across algorithms --------------------------------------
def test_switching_algorithms_keeps_the_suppression_limit(window, sample_dir, wait_idle):
    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    panel = window.algorithm_panel
    panel.select_algorithm("optimal")
    panel.params_form.set_value("suppression_limit", "3 %")
    panel.params_form.set_value("metric", "precision")
    panel.params_form._emit()
    assert window.state.project.algorithm_params["suppression_limit"] == pytest.approx(0.03)
    panel.select_algorithm("mondrian")
    panel.select_algorithm("optimal")
    assert window.state.project.algorithm_params["suppression_limit"] == pytest.approx(0.03)
    assert window.state.project.algorithm_params["metric"] == "precision"
    assert panel.params_form.fields["suppression_limit"].text() == "3 %"
    metric_box = panel.params_form.fields["metric"]
    assert metric_box.currentText() == "Most precision kept (Sweeney's precision)"  # words, not a code


# --- item 4: the import dialog names the encoding as people know it ------------------------------------
def test_import_dialog_says_windows_cp1252(qtbot, export_file):
    from kanon_gui.dialogs.import_dialog import ImportDialog

    dialog = ImportDialog(export_file)
    qtbot.addWidget(dialog)
    assert "Windows (cp1252)" in dialog.detected.text()
    assert "semicolon" in dialog.detected.text()
    assert dialog.preview.frame["PLZ"].str.startswith("0").any()  # leading zeros kept


def _sample_run(window, sample_dir, wait_idle, algorithm: str = "optimal") -> None:
    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    window.algorithm_panel.select_algorithm(algorithm)
    window.run()
    wait_idle(window)
    assert window.state.current_run is not None


# --- item 1: the workbench names precision for what it is ----------------------------------------------
def test_results_show_precision_kept_as_a_percentage(window, sample_dir, wait_idle):
    _sample_run(window, sample_dir, wait_idle)
    text = window.results_panel.metrics.text()
    prec = window.state.current_run.result.metrics["precision"]
    assert "Precision kept (Sweeney&#x27;s Prec)" in text or "Precision kept (Sweeney's Prec)" in text
    assert f"{100 * prec:.1f} %" in text
    assert "Precision (Prec)" not in text


# --- item 5: missing values are labelled in views, empty in the release ---------------------------------
def test_missing_values_labelled_in_the_class_table(window, export_file, wait_idle):
    load_export(window, export_file, wait_idle)
    state = window.state
    state.set_roles({c: Role.INSENSITIVE for c in ("Geburtsdatum", "Aufnahmedatum", "Wohnort")})
    window.algorithm_panel.select_algorithm("optimal")
    window.algorithm_panel.params_form.set_value("suppression_limit", "10 %")
    window.algorithm_panel.params_form._emit()
    window.run()
    wait_idle(window)
    result = state.current_run.result
    released = result.release["PLZ"]
    assert not released.isin(["(missing)"]).any() and released.isna().any()
    model = window.results_panel.class_model
    plz = 2 + list(result.config.quasi_identifiers).index("PLZ")
    shown = {model.data(model.index(r, plz)) for r in range(model.rowCount())}
    assert "(missing)" in shown and "nan" not in shown and "" not in shown


# --- item 10: a result whose settings changed is out of date everywhere ----------------------------------
def test_changing_settings_marks_the_result_out_of_date(window, sample_dir, wait_idle):
    _sample_run(window, sample_dir, wait_idle)
    assert not window.state.is_stale()
    assert window.results_panel.stale.isHidden()
    window.state.set_model_values(k=10)
    assert window.state.is_stale()
    assert not window.results_panel.stale.isHidden()
    assert "out of date" in window.history.list.item(0).text()
    window.export()
    dialog = window.export_dialog
    assert not dialog.stale_label.isHidden() and dialog.plan().stale
    dialog.reject()
    window.state.set_model_values(k=5)  # back to the settings of the run: current again
    assert not window.state.is_stale() and window.results_panel.stale.isHidden()


def test_settings_changed_during_a_run_mark_its_result(window, sample_dir, wait_idle):
    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    window.run()
    window.state.set_role("sex", Role.INSENSITIVE)  # while the run is going
    wait_idle(window)
    assert window.state.is_stale()
    assert "out of date" in window.message_bar.text()


# --- item 12: the message strip shows text as written and keeps its place -------------------------------
def test_message_strip_shows_plain_text_and_never_moves_the_tabs(window, qtbot):
    bar = window.message_bar
    top = window.tabs.geometry().top()
    bar.show_message("Open a file with File > Open; 'Geburtsdatum' & co.", "warning")
    qtbot.wait(20)
    assert bar.label.textFormat() == Qt.TextFormat.RichText
    doc = QTextDocument()
    doc.setHtml(bar.label.text())
    assert doc.toPlainText() == "Open a file with File > Open; 'Geburtsdatum' & co."
    assert window.tabs.geometry().top() == top
    bar.clear()
    qtbot.wait(20)
    assert window.tabs.geometry().top() == top and bar.text() == ""


def test_stale_messages_do_not_survive_a_new_file(window, export_file, wait_idle):
    window.message_bar.show_message("Something about the previous file.", "error")
    load_export(window, export_file, wait_idle)
    assert "previous file" not in window.message_bar.text()


# --- item 13: compare and history tell runs with other l / t settings apart ------------------------------
def test_compare_and_history_show_l_and_t(window, sample_dir, wait_idle):
    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    window.run()
    wait_idle(window)
    window.state.set_model_values(l="2", sensitive="diagnosis")
    window.run()
    wait_idle(window)
    lines = [window.history.list.item(i).text() for i in range(window.history.list.count())]
    assert "distinct l = 2 on diagnosis" in lines[1] and "distinct l" not in lines[0]
    compare = window.analysis_panel.compare_view
    compare.show_run(window.state.current_run)
    compare.set_pair(0, 1)
    t = compare.metrics_table
    rows = {t.item(i, 0).text(): i for i in range(t.rowCount())}
    models = rows["Privacy models"]
    assert t.item(models, 1).text() == "k = 5" and "l = 2" in t.item(models, 2).text()
    assert t.item(models, 3).text() == "differs"
    assert "Precision kept (Sweeney's Prec)" in rows and "precision" not in rows
    assert not any(name.startswith("intensity:") or name == "discernibility_star" for name in rows)
    diff = t.horizontalHeader().sectionSize(3)
    assert diff >= t.fontMetrics().horizontalAdvance(
        t.item(rows["Precision kept (Sweeney's Prec)"], 3).text()
    )


# --- item 15: reopening restores the results and continues the numbering ---------------------------------
def test_reopening_restores_results_and_numbering(window, qtbot, sample_dir, tmp_path, wait_idle):
    import shutil

    from kanon_gui.main_window import MainWindow

    work = tmp_path / "sample"
    shutil.copytree(sample_dir, work)
    _sample_run(window, work, wait_idle)
    window.run()
    wait_idle(window)
    path = work / "sample_project.json"
    assert window.save_to(path, None)
    again = MainWindow()
    again.ask_before_close = False
    qtbot.addWidget(again)
    again.open_project(path)
    wait_idle(again)
    assert [r.label for r in again.state.runs][-1] == window.state.runs[-1].label
    assert again.results_panel.title.text() != "" and "No run yet" not in again.results_panel.title.text()
    again.run()
    wait_idle(again)
    assert again.state.current_run.label.startswith("#3 ")
    again.runner.shutdown()


# --- item 8: export names the run, asks before replacing, remembers, confirms ---------------------------
def test_export_asks_names_the_run_remembers_and_confirms(
    window, qtbot, sample_dir, tmp_path, wait_idle, monkeypatch
):
    from kanon_gui.dialogs.export_dialog import csv_defaults

    _sample_run(window, sample_dir, wait_idle)
    label = window.state.current_run.label
    window.export()
    dialog = window.export_dialog
    assert label in dialog.heading.text()
    # Excel would drop the leading zeros of the sample's postcodes from a CSV: the workbook comes first
    assert Path(dialog.path_edit.text()).name == "sample_patients_run1.xlsx"
    assert dialog.shuffle_check.isChecked() and "give people away" in dialog.shuffle_check.toolTip()
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("csv"))
    dialog.path_edit.setText(str(tmp_path / "sample_patients_run1.csv"))
    dialog.pdf_check.setChecked(False)
    dialog.delimiter_box.setCurrentIndex(dialog.delimiter_box.findData("|"))
    with qtbot.waitSignal(dialog.accepted, timeout=60_000):
        dialog.export_button.click()
    box = dialog.done_box
    assert "sample_patients_run1.csv" in box.text() and "sample_patients_run1_report.html" in box.text()
    assert any(b.text() == "Show in folder" for b in box.buttons())
    box.close()
    assert csv_defaults(",") == (";", True) and csv_defaults(".") == (",", False)

    # an earlier report of the same name that this export does not write would lie beside it
    stale_pdf = tmp_path / "sample_patients_run1_report.pdf"
    stale_pdf.write_bytes(b"%PDF-1.4 an older report")
    asked = []
    monkeypatch.setattr(
        QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Cancel
    )
    window.export()
    second = window.export_dialog
    assert second.path_edit.text() == str(tmp_path / "sample_patients_run1.csv")  # folder remembered
    assert second.delimiter_box.currentData() == "|" and not second.pdf_check.isChecked()  # choices too
    second.export_button.click()
    assert asked and "sample_patients_run1.csv" in asked[0] and "sample_patients_run1_report.pdf" in asked[0]
    assert stale_pdf.read_bytes() == b"%PDF-1.4 an older report"  # Cancel changed nothing
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(second.accepted, timeout=60_000):
        second.export_button.click()
    assert not stale_pdf.exists()  # replaced as a set: no report of another release is left
    second.done_box.close()
