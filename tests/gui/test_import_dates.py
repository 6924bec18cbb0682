"""The import dialog shows dates that do not fit one format and offers the three choices (issue 17,
item 4): fix the file, pick the format, or treat the column as text. Load waits for a choice."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialogButtonBox

from kanon_engine.data.table import ColumnKind
from kanon_gui.dialogs.import_dialog import ImportDialog

pytestmark = pytest.mark.gui


def _write(path, dates):
    path.write_text("id,dob,sex\n" + "".join(f"{i},{d},{'MF'[i % 2]}\n" for i, d in enumerate(dates)))


def _load_enabled(dialog) -> bool:
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()


def test_mixed_formats_are_shown_with_the_three_choices(qtbot, tmp_path) -> None:
    dates = ["2022-05-01", "2022-06-11", "27.02.2022", "2022-07-04", "01.12.2022", "2022-08-09"]
    _write(tmp_path / "d.csv", dates)
    dialog = ImportDialog(tmp_path / "d.csv")
    qtbot.addWidget(dialog)
    assert dialog.preview is not None
    assert dialog.date_problem is not None and dialog.date_problem.column == "dob"
    assert not dialog.date_box.isHidden() and not _load_enabled(dialog)
    text = dialog.date_text.text()
    for words in ("mixes date formats", "2 of its 6 values", "line 4: '27.02.2022'", "line 6: '01.12.2022'",
                  "fix the file", "pick the format", "treat the column as text"):  # fmt: skip
        assert words in text, text
    # pick dd.mm.yyyy: now the ISO dates do not fit, still shown
    dialog.set_date_format("%d.%m.%Y")
    assert dialog.date_problem is not None and "4 of its 6 values" in dialog.date_text.text()
    assert not _load_enabled(dialog)
    # treat as text: the user's choice, kept in the project's column types
    dialog.date_as_text.click()
    assert dialog.date_problem is None and dialog.date_box.isHidden() and _load_enabled(dialog)
    assert dialog.type_overrides()["dob"] == (ColumnKind.CATEGORICAL, None)


def test_a_format_that_fits_every_date_lets_load(qtbot, tmp_path) -> None:
    _write(tmp_path / "d.csv", ["01.05.2022", "11.06.2022", "04.07.2022"] * 13 + ["unknown"])
    dialog = ImportDialog(tmp_path / "d.csv")
    qtbot.addWidget(dialog)
    assert dialog.date_problem is not None and "'unknown'" in dialog.date_text.text()
    dialog.date_as_text.click()
    assert _load_enabled(dialog)
    _write(tmp_path / "ok.csv", ["01.05.2022", "11.06.2022", "04.07.2022"] * 10)
    ok = ImportDialog(tmp_path / "ok.csv")
    qtbot.addWidget(ok)
    assert ok.date_problem is None and _load_enabled(ok)
