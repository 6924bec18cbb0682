"""Export for spreadsheet users (issue 27, item 5): where Excel would change values of a CSV (postcodes'
leading zeros, month codes, decimal commas), the export dialog says so and offers XLSX, whose cells are
text; CSV lines end in CR LF, from the dialog as from the command line."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.cli import main as cli_main
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.io import read_table
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.release.spreadsheet import spreadsheet_changes
from kanon_gui.dialogs.export_dialog import ExportDialog

pytestmark = pytest.mark.gui


@pytest.fixture()
def visits(tmp_path: Path):
    """Outpatient visits with postcodes, months and amounts as a German export writes them."""
    rows = ["plz;monat;kosten;geschlecht"]
    for i in range(120):
        rows.append(f"0{6400 + i % 4};2023-0{1 + i % 3};{10 + i % 7},50;{'mw'[i % 2]}")
    src = tmp_path / "visits.csv"
    src.write_bytes(("\r\n".join(rows) + "\r\n").encode("cp1252"))
    table = read_table(src)
    qi = ("plz", "geschlecht")
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in qi}
    result = get_algorithm("optimal").run(table, AnonymizationConfig(qi, hs, build_models(5)))
    return table, result


def test_the_columns_excel_would_change_are_found(visits) -> None:
    _table, result = visits
    found = {c.column: c for c in spreadsheet_changes(result.release)}
    assert found["plz"].kind == "leading_zero" and found["plz"].example.startswith("0")
    assert found["monat"].kind == "date" and found["monat"].sentence().startswith("monat: '2023-0")
    assert found["kosten"].kind == "decimal_comma"
    assert "geschlecht" not in found


def test_the_dialog_says_so_and_offers_xlsx_with_text_cells(qtbot, visits, tmp_path: Path) -> None:
    table, result = visits
    dialog = ExportDialog(None, table, None, result, None)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.format_box.currentData() == "xlsx"  # offered first: no format chosen before
    assert not dialog.excel_box.isVisible()
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("csv"))
    assert dialog.excel_box.isVisible()
    text = dialog.excel_label.text()
    assert "plz: '0640" in text and "becomes 640" in text and "monat: '2023-0" in text
    dialog.excel_button.click()
    assert dialog.format_box.currentData() == "xlsx" and not dialog.excel_box.isVisible()
    dialog.path_edit.setText(str(tmp_path / "visits_release.xlsx"))
    dialog.html_check.setChecked(False)
    dialog.pdf_check.setChecked(False)
    with qtbot.waitSignal(dialog.accepted, timeout=60_000):
        dialog.export_button.click()
    sheet = openpyxl.load_workbook(tmp_path / "visits_release.xlsx").active
    header = [c.value for c in sheet[1]]
    first = dict(zip(header, sheet[2], strict=True))
    for column, name in enumerate(header, start=1):
        if name in ("plz", "monat", "kosten"):
            assert first[name].data_type == "s", name  # text cells: Excel shows them as written
        letter = openpyxl.utils.get_column_letter(column)
        assert sheet.column_dimensions[letter].number_format == "@", name  # typed later: text too
    released = pd.read_excel(tmp_path / "visits_release.xlsx", dtype=str)
    assert released["plz"].str.startswith("0").any()
    assert (released["monat"].str.fullmatch(r"2023-0\d") | (released["monat"] == "*")).all()


def test_csv_lines_end_in_crlf_from_the_dialog_and_the_cli(qtbot, visits, tmp_path: Path) -> None:
    table, result = visits
    dialog = ExportDialog(None, table, None, result, None)
    qtbot.addWidget(dialog)
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("csv"))
    dialog.path_edit.setText(str(tmp_path / "from_dialog.csv"))
    for box in (dialog.html_check, dialog.pdf_check):
        box.setChecked(False)
    with qtbot.waitSignal(dialog.accepted, timeout=60_000):
        dialog.export_button.click()
    code = cli_main(
        ["anonymize", str(table.source), "--qi", "plz,geschlecht", "--k", "5", "--output",
         str(tmp_path / "from_cli.csv")]
    )  # fmt: skip
    assert code == 0
    for name in ("from_dialog.csv", "from_cli.csv"):
        data = (tmp_path / name).read_bytes()
        lines = data.count(b"\n")
        assert lines == 121 and data.count(b"\r\n") == lines, name
