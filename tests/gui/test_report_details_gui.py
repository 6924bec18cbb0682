"""The report's sign-off filled from the workbench (issue 12, item 17): purpose, recipient and approver typed
in the export dialog reach the report, stay in the project file and come back when it is reopened; the
report of a project with a public list holds the linkage demonstration."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from kanon_engine.project.project_file import ReportDetails
from kanon_engine.project.public_list import PublicList


def _open_and_run(window, folder: Path, wait_idle) -> None:
    window.open_project(folder / "sample_project.json")
    wait_idle(window)
    window.run()
    wait_idle(window)


def test_sign_off_fields_reach_the_report_and_the_project(
    window, qtbot, sample_dir, tmp_path, wait_idle, reopen
):
    work = tmp_path / "sample"
    shutil.copytree(sample_dir, work)
    _open_and_run(window, work, wait_idle)
    window.state.set_public_list(PublicList(work / "sample_public_register.csv"))
    window.export()
    dialog = window.export_dialog
    labels = [
        dialog.details_box.layout().itemAt(i, dialog.details_box.layout().ItemRole.LabelRole).widget().text()
        for i in range(3)
    ]
    assert labels == ["Purpose of the release", "Recipient (person, institution)", "Approved by (name, role)"]
    assert dialog.purpose_edit.text() == "" and dialog.purpose_edit.placeholderText().startswith(
        "for example"
    )
    dialog.purpose_edit.setText("  Length of stay by ward, 2022-2024 ")
    dialog.recipient_edit.setText("Dr. Ana Ruiz, Institut für Versorgungsforschung")
    dialog.approved_edit.setText("M. Keller, data protection officer")
    dialog.path_edit.setText(str(tmp_path / "out" / "release.csv"))
    (tmp_path / "out").mkdir()
    dialog.pdf_check.setChecked(False)
    dialog.html_check.setChecked(True)
    with qtbot.waitSignal(dialog.accepted, timeout=60_000):
        dialog.export_button.click()
    dialog.done_box.close()
    html = (tmp_path / "out" / "release_report.html").read_text(encoding="utf-8")
    for label, value in (
        ("Purpose of the release", "Length of stay by ward, 2022-2024"),
        ("Recipient (person, institution)", "Dr. Ana Ruiz, Institut für Versorgungsforschung"),
        ("Approved by (name, role)", "M. Keller, data protection officer"),
    ):
        assert re.search(rf"<td[^>]*>{re.escape(label)}</td><td[^>]*>{re.escape(value)}</td>", html), label
    assert "Linkage attack demonstration" in html and "Public list: sample_public_register.csv" in html
    expected = ReportDetails(
        "Length of stay by ward, 2022-2024",
        "Dr. Ana Ruiz, Institut für Versorgungsforschung",
        "M. Keller, data protection officer",
    )
    assert window.state.project.report == expected and window.state.is_dirty()

    # saved with the project, and offered again when it is reopened
    path = work / "sample_project.json"
    assert window.save_to(path, None)
    again = reopen(path)
    assert again.state.project.report == expected
    again.export()
    assert again.export_dialog.approved_edit.text() == "M. Keller, data protection officer"
    again.export_dialog.html_check.setChecked(False)
    again.export_dialog.pdf_check.setChecked(False)
    assert not again.export_dialog.details_box.isEnabled()  # no report: nothing to sign
    again.export_dialog.close()


def test_an_unreadable_public_list_stops_the_export_before_anything_is_written(sample_dir, tmp_path):
    from kanon_engine.errors import DataError
    from kanon_engine.project.project_file import Project
    from kanon_engine.release.export import ExportOptions
    from kanon_engine.session import ExportPlan, export, run_project

    project = Project.load(sample_dir / "sample_project.json")
    table, _ = project.load_table()
    result = run_project(project, table)
    project = project.with_changes(public_list=PublicList(tmp_path / "gone.csv"))
    plan = ExportPlan(tmp_path / "release.csv", ExportOptions(), report_html=tmp_path / "release_report.html")
    try:
        export(table, project, result, plan)
    except DataError as exc:
        assert "gone.csv" in str(exc)
    else:
        raise AssertionError("the export went on without its public list")
    assert not list(tmp_path.glob("release*"))  # no release without its report
