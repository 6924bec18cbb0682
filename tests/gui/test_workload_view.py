"""The Workload tab, the workload figures of every run, and the compare view's workload columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox

from kanon_gui.views.compare_view import _SHARE_COLUMNS, COLUMNS, RunsModel, run_row


def _run(window, qtbot, wait_idle, n: int) -> None:
    window.run()
    qtbot.waitUntil(lambda: len(window.state.runs) == n, timeout=60_000)
    wait_idle(window)
    window.tabs.setCurrentWidget(window.workload_panel)  # run views are brought up to date when shown


def test_workload_tab_checks_uses_and_measures(window, qtbot, wait_idle, sample_dir: Path, tmp_path: Path):
    window.open_sample()
    wait_idle(window)
    panel = window.workload_panel
    assert window.tabs.tabText(window.tabs.indexOf(panel)).endswith("Workload")
    # every run is measured, with a generated workload when the project has none
    _run(window, qtbot, wait_idle, 1)
    first = window.state.current_run.result
    assert first.workload is not None and first.workload.source.startswith("generated")
    assert panel.model.rowCount() == len(first.workload.queries) == 100
    assert "mean relative error" in panel.summary.text()
    # a mistake is shown with its line; Use is refused
    panel.editor.setPlainText("COUNT(*) WHERE age >= 65\nCOUNT(*) WHERE age BETWEN 1 AND 2\n")
    assert not panel.check_text()
    assert "line 2, column 20" in panel.status.text() and "BETWEN" in panel.status.text()
    assert not panel.use_button.isEnabled() and len(panel.editor.extraSelections()) == 1
    # a file, used for the runs (undoable), and measured on the next run
    panel.load_file(sample_dir / "sample_workload.txt")
    assert panel.check_text() and panel.use_button.isEnabled()
    panel.use()
    assert window.state.project.workload_file.endswith("sample_workload.txt")
    assert "COUNT(*) WHERE age >= 65" in window.state.project.workload_text
    assert not panel.use_button.isEnabled()
    _run(window, qtbot, wait_idle, 2)
    second = window.state.current_run.result
    assert second.workload.source == "sample_workload.txt" and len(second.workload.queries) == 8
    assert panel.model.rowCount() == 8
    true_col = 2
    shown = panel.model.data(panel.model.index(0, true_col), Qt.ItemDataRole.DisplayRole)
    assert shown == f"{second.workload.queries[0].true:,.0f}"
    # the project keeps the workload's figures of each run, not every query
    summary = window.state.project.runs[-1]["workload"]
    assert "queries" not in summary and summary["queries_total"] == 8
    window.state.undo_stack.undo()
    assert window.state.project.workload_text is None
    assert panel.editor.toPlainText() == ""
    # saved through the guarded writer
    assert panel.save_to(tmp_path / "w.txt") and (tmp_path / "w.txt").read_text() == ""


def test_generate_writes_queries_over_the_quasi_identifiers(window, wait_idle):
    window.open_sample()
    wait_idle(window)
    panel = window.workload_panel
    panel.gen_queries.setValue(12)
    panel.generate()
    lines = [ln for ln in panel.editor.toPlainText().splitlines() if ln and not ln.startswith("#")]
    assert len(lines) == 12 and all(ln.startswith("COUNT(*) WHERE ") for ln in lines)
    assert panel.check_text()


def test_compare_view_shows_each_runs_workload_error(window, qtbot, wait_idle):
    window.open_sample()
    wait_idle(window)
    _run(window, qtbot, wait_idle, 1)
    result = window.state.current_run.result
    row = run_row(1, "#1", result)
    headers = [h for h, _ in COLUMNS]
    assert row[headers.index("Workload error")] == result.workload.mean_error
    assert row[headers.index("Queries matched")] == result.workload.match_share
    assert {"Workload error", "Queries matched"} <= {headers[i] for i in _SHARE_COLUMNS}
    model = RunsModel()
    model.set_runs([("#1", result)])
    text = model.data(model.index(0, headers.index("Workload error")), Qt.ItemDataRole.DisplayRole)
    assert text == f"{100 * result.workload.mean_error:.1f} %"
    runtime = model.data(model.index(0, headers.index("Run time (s)")), Qt.ItemDataRole.DisplayRole)
    assert "%" not in runtime
    assert np.isfinite(row[headers.index("Workload error")])


def test_mondrian_offers_the_workload_tick_box(window, wait_idle):
    window.open_sample()
    wait_idle(window)
    window.algorithm_panel.select_algorithm("mondrian")
    form = window.algorithm_panel.params_form
    assert isinstance(form.fields["workload_aware"], QCheckBox)
    form.fields["workload_aware"].setChecked(True)
    blocker = window.state.run_blocker()
    assert blocker is not None and "needs a workload" in blocker


def test_release_box_turns_the_suppressed_group_rule_off(window, wait_idle):
    window.open_sample()
    wait_idle(window)
    box = window.algorithm_panel.protect
    assert box.isChecked() and window.state.project.protect_suppressed_group
    box.setChecked(False)
    assert window.state.project.protect_suppressed_group is False
    assert window.state.config().suppressed_group_k == 0
