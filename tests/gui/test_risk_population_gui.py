"""The Risk tab's population estimates (issue 31): the run's population taken when its models name one,
a size the user gives, the figures equal to the estimator functions' on the release's groups, computed in
the task runner; a population smaller than the table said in one sentence."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms.optimal import Optimal
from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table
from kanon_engine.privacy import KAnonymity, PopulationUniqueness
from kanon_engine.privacy import population_estimates as P
from kanon_engine.project.project_file import Project
from kanon_engine.report.sentences import pct
from kanon_gui.tasks import TaskRunner
from kanon_gui.views.risk_view import RiskPanel

pytestmark = pytest.mark.gui
QI = ["age", "sex", "zip"]


def _run(models: tuple):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, 400).astype(str),
            "sex": rng.choice(["female", "male"], 400),
            "zip": rng.choice([f"{z:05d}" for z in range(13000, 13060, 3)], 400),
        }
    ).astype(object)
    table = Table.from_frame(frame)
    config = Project(roles={q: Role.QUASI_IDENTIFIER for q in QI}, models=models).config(table)
    return table, Optimal(suppression_limit=0.05).run(table, config)


def _cells(panel: RiskPanel) -> dict[str, list[str]]:
    f = panel.population_box.figures
    return {
        f.verticalHeaderItem(r).text(): [f.item(r, c).text() for c in range(2)] for r in range(f.rowCount())
    }


def test_risk_tab_takes_the_runs_population_and_computes_in_the_runner(qtbot) -> None:
    table, result = _run((PopulationUniqueness(0.05, 5000, "dankar"),))
    runner = TaskRunner()
    panel = RiskPanel(runner=runner)
    qtbot.addWidget(panel)
    panel.set_result(table, result)
    qtbot.waitUntil(lambda: panel.comparison is not None, timeout=20_000)
    assert panel.population_box.population() == 5000 and not panel.population_box.figures.isHidden()
    after = panel.comparison.after
    expected = P.population_uniques(after.class_sizes, 5000)
    cells = _cells(panel)

    def shown(v: float | None) -> str:
        return "no solution" if v is None else pct(v)

    assert cells["Zayatz (1991)"][1] == shown(expected.zayatz) and cells["Pitman (1996)"][1] == shown(
        expected.pitman
    )
    assert "5,000 people" in panel.population_box.note.text()
    assert runner.shutdown()


def test_risk_tab_population_given_by_hand(qtbot) -> None:
    table, result = _run((KAnonymity(2),))
    panel = RiskPanel()
    qtbot.addWidget(panel)
    panel.set_result(table, result)
    assert panel.population_box.population() is None and panel.population_box.figures.rowCount() == 0
    panel.population_box.size.setValue(100)  # smaller than the table: one sentence, no figures
    panel.population_box.size.editingFinished.emit()
    assert "smaller than the table" in panel.population_box.note.text()
    panel.population_box.size.setValue(100_000)
    panel.population_box.size.editingFinished.emit()
    expected = P.population_uniques(panel.comparison.before.class_sizes, 100_000)
    cells = _cells(panel)
    assert cells["Zayatz (1991)"][0] == pct(expected.zayatz)
    assert cells["Dankar et al.'s rule"][1] == pct(0.0)  # k = 2: nobody alone, no estimator needed
    assert "and no estimator (no record is alone) for the release" in panel.population_box.note.text()


def test_all_safe_sentence_names_the_runs_k_and_a_run_without_k(qtbot) -> None:
    """'Every record is in a group of at least k' must not be said bare: a run with a population model alone
    has no k (its originals hold groups of 1), so the sentence says the run asks for no group size."""
    panel = RiskPanel(runner=TaskRunner())
    qtbot.addWidget(panel)
    table, without_k = _run((PopulationUniqueness(0.05, 5000, "dankar"),))
    panel.result = without_k
    said = panel._all_safe()
    assert without_k.config.k <= 1 and "no smallest group size" in said and "at least" not in said
    _, with_k = _run((KAnonymity(3),))
    panel.result = with_k
    assert panel._all_safe().endswith("in a group of at least 3 records.")
