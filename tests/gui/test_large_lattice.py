"""A lattice too large for the optimal search: the workbench offers the heuristic search, and while it
runs the progress bar shows the best release found so far."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from kanon_engine.data.roles import Role
from kanon_engine.hierarchy import write_arx_csv
from kanon_engine.hierarchy.model import Hierarchy

pytestmark = pytest.mark.gui

QI = [f"q{i}" for i in range(9)]


def write_wide_table(folder) -> tuple:
    """400 records, 9 quasi-identifiers with 5 levels each (1,953,125 transformations), as files."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({q: [f"{v:02d}" for v in rng.integers(0, 16, 400)] for q in QI})
    data = folder / "wide.csv"
    frame.to_csv(data, index=False)
    for q in QI:
        rows = [[f"{v:02d}", f"{v // 2}", f"{v // 4}", f"{v // 8}", "*"] for v in range(16)]
        write_arx_csv(Hierarchy.from_rows(q, rows), folder / f"hierarchy_{q}.csv")
    return data, folder


def test_too_large_for_optimal_offers_the_heuristic(window, qtbot, tmp_path, wait_idle):
    data, folder = write_wide_table(tmp_path)
    window.load_data(data)
    wait_idle(window)
    for q in QI:
        window.attributes_panel.set_role(q, Role.QUASI_IDENTIFIER)
    window.hier_actions.load_folder(folder)
    window.tabs.setCurrentIndex(window.TAB_RUN)
    panel = window.algorithm_panel
    panel.select_algorithm("optimal")
    panel.model_form.set_value("k", 3)
    assert "1,953,125" in panel.estimate.text()
    assert not panel.run_button.isEnabled()
    assert "heuristic search" in panel.reason.text()
    assert panel.use_heuristic.isVisible()

    qtbot.mouseClick(panel.use_heuristic, Qt.MouseButton.LeftButton)
    assert window.state.project.algorithm == "heuristic"
    assert not panel.use_heuristic.isVisible()
    panel.params_form.set_value("suppression_limit", "0.02")
    panel.params_form.set_value("time_limit", "2")
    panel.params_form.set_value("metric", "dm")
    assert panel.run_button.isEnabled(), panel.reason.text()

    shown: list[str] = []
    window.runner.progress.connect(lambda *_: shown.append(window.progress.format()))
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.state.current_run is not None, timeout=120_000)
    wait_idle(window)
    result = window.state.current_run.result
    assert result.algorithm == "heuristic"
    assert any(text.startswith("Best: DM ") for text in shown), shown
    assert result.notes and ("not proven optimal" in result.notes[0] or "is optimal" in result.notes[0])
