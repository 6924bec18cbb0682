"""The export dialog's suppression mark (issue 29, item 3): the field shows the run's mark, a chosen one
is written in every suppressed cell, and one that is a value of a quasi-identifier is refused in one
sentence, nothing written."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.table import Table
from kanon_engine.errors import DataError
from kanon_engine.hierarchy import default_hierarchy
from kanon_gui.dialogs.export_dialog import ExportDialog

pytestmark = pytest.mark.gui


@pytest.fixture()
def suppressed_run(tmp_path: Path):
    rows = [f"{i},{30 + i % 3},{'F' if i % 7 == 0 else 'M'}" for i in range(40)]
    src = tmp_path / "patients.csv"
    src.write_text("id,age,sex\n" + "\n".join(rows) + "\n")
    frame = pd.read_csv(src, dtype=str)
    table = Table.from_frame(frame, source=src)
    hs = {q: default_hierarchy(q, frame[q]) for q in ("age", "sex")}
    config = AnonymizationConfig(("age", "sex"), hs, build_models(6), identifiers=("id",))
    result = get_algorithm("datafly", suppression_limit=0.3).run(table, config)
    assert result.suppressed
    return table, result


def test_the_chosen_mark_is_written(qtbot, suppressed_run, tmp_path: Path) -> None:
    table, result = suppressed_run
    dialog = ExportDialog(None, table, None, result, None)
    qtbot.addWidget(dialog)
    assert dialog.mark_edit.text() == "*"
    dialog.path_edit.setText(str(tmp_path / "release.csv"))
    dialog.html_check.setChecked(False)
    dialog.suppressed_box.setCurrentIndex(0)
    dialog.mark_edit.setText("[suppressed]")
    with qtbot.waitSignal(dialog.accepted, timeout=60_000):
        dialog.export_button.click()
    release = pd.read_csv(tmp_path / "release.csv", dtype=str, keep_default_na=False)
    marked = (release[["age", "sex"]] == "[suppressed]").all(axis=1)
    assert int(marked.sum()) == result.suppressed and not (release[["age", "sex"]] == "*").any().any()


def test_a_mark_that_is_a_value_is_refused(qtbot, suppressed_run, tmp_path: Path) -> None:
    table, result = suppressed_run
    dialog = ExportDialog(None, table, None, result, None)
    qtbot.addWidget(dialog)
    dialog.path_edit.setText(str(tmp_path / "release.csv"))
    dialog.html_check.setChecked(False)
    dialog.mark_edit.setText("M")
    dialog.export_button.click()
    qtbot.waitUntil(lambda: dialog.error is not None, timeout=10_000)
    assert isinstance(dialog.error, DataError)
    assert "holds 'M', the mark of a suppressed value" in dialog.status.text()
    assert not (tmp_path / "release.csv").exists()
