"""What a data steward's first real use tripped over (issue 12), each checked in the workbench.

The data is the synthetic hospital export of ``tests/fixtures/hospital_export.py`` (cp1252, semicolons,
German headers, dd.mm.yyyy dates, postcodes with leading zeros, missing cells).
"""

from __future__ import annotations

import pytest
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
