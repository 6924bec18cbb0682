"""The Utility tab: the classifiers, summaries and heat maps of a run, the same figures as the engine's
``fitness``; a run naming its target is compared at once, in the background, and Cancel stops it."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.i18n import formats
from kanon_engine.privacy import KAnonymity
from kanon_engine.utility.study import fitness
from kanon_gui.state import AppState, Run
from kanon_gui.views import utility_view
from kanon_gui.views.utility_view import UtilityPanel


def _run(target: str | None = None) -> Run:
    rng = np.random.default_rng(4)
    n = 400
    age = rng.integers(20, 70, n)
    frame = pd.DataFrame(
        {
            "age": age.astype(str),
            "sex": rng.choice(["F", "M"], n),
            "y": np.where((age > 45) ^ (rng.random(n) < 0.2), "high", "low"),
        }
    )
    ages = Hierarchy.from_rows(
        "age", [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 70)]
    )
    sexes = Hierarchy.from_rows("sex", [["F", "*"], ["M", "*"]])
    config = AnonymizationConfig(("age", "sex"), {"age": ages, "sex": sexes}, (KAnonymity(4),))
    params = {"suppression_limit": 0.02, "metric": "classification" if target else "loss", "target": target}
    table = Table.from_frame(frame)
    return Run("#1 optimal, k = 4", get_algorithm("optimal", **params).run(table, config), table)


def test_a_run_with_its_target_is_compared_at_once(qtbot) -> None:
    panel = UtilityPanel(AppState())
    qtbot.addWidget(panel)
    run = _run("y")
    panel.show_run(run)
    assert panel.target.currentText() == "y"
    assert panel.chosen_features() == ["age", "sex"]
    expected = fitness(run.table.frame, run.result.release, "y", ["age", "sex"])
    assert panel.figures == expected
    cls = expected["classification"]
    assert panel.classifiers.rowCount() == 4
    assert panel.classifiers.item(0, 1).text() == formats.percent(cls["majority"], 1)
    assert panel.classifiers.item(3, 2).text() == formats.percent(
        cls["release"]["random_forest"]["accuracy"], 1
    )
    assert panel.summary.rowCount() == 3
    assert formats.percent(cls["majority"], 1) in panel.words.text()
    # the heat maps count every record of each table (the release's suppressed records in words)
    for heat, left_out in ((panel.heat_original, 0), (panel.heat_release, panel.left_out)):
        total = sum(
            int(heat.item(r, c).text().replace(",", ""))
            for r in range(heat.rowCount())
            for c in range(heat.columnCount())
        )
        assert total + left_out == 400
        # every column as wide as the others: a wider cell would look like a larger count
        assert len({heat.columnWidth(c) for c in range(heat.columnCount())}) == 1


def test_a_run_without_target_waits_for_the_user(qtbot) -> None:
    panel = UtilityPanel(AppState())
    qtbot.addWidget(panel)
    panel.show_run(_run())
    assert panel.figures is None and panel.classifiers.rowCount() == 0
    panel.target.setCurrentText("y")
    item = panel.features.findItems("sex", Qt.MatchFlag.MatchExactly)[0]
    item.setCheckState(Qt.CheckState.Unchecked)
    panel.compute()
    assert panel.figures["features"] == ["age"]


def test_no_run_and_one_sentence_errors(qtbot) -> None:
    panel = UtilityPanel(AppState())
    qtbot.addWidget(panel)
    assert not panel.compare.isEnabled()
    run = _run()
    panel.show_run(run)
    panel.target.setCurrentText("sex")
    for i in range(panel.features.count()):
        panel.features.item(i).setCheckState(Qt.CheckState.Unchecked)
    panel.compute()
    assert panel.figures is None and "no attribute left" in panel.words.text()


def test_cancel_stops_the_classifiers(qtbot, window, wait_idle, monkeypatch) -> None:
    started = threading.Event()

    def slow(*args, progress, **kw):
        started.set()
        for _ in range(2000):
            progress(0.1, "training")
            threading.Event().wait(0.01)
        raise AssertionError("the classifiers were not cancelled")

    monkeypatch.setattr(utility_view, "fitness", slow)
    panel = window.utility_panel
    panel.show_run(_run())
    panel.compute()
    qtbot.waitUntil(started.is_set, timeout=10_000)
    window.runner.cancel()
    wait_idle(window)
    qtbot.waitUntil(lambda: "Cancelled" in panel.words.text(), timeout=10_000)
    assert panel.figures is None


def test_a_target_the_release_masked_is_one_sentence(qtbot) -> None:
    panel = UtilityPanel(AppState())
    qtbot.addWidget(panel)
    run = _run("y")
    panel.show_run(run)
    release = run.result.release
    assert (release["sex"] == "*").all()  # the optimum generalizes sex away
    panel.target.setCurrentText("sex")
    panel.compute()
    assert panel.figures is None and "single value" in panel.words.text()
    assert panel.classifiers.rowCount() == 0


def test_the_study_target_is_asked_with_its_metric_and_offers_the_columns(qtbot) -> None:
    """The algorithm panel shows the target field only under the classification metric, and offers the
    table's columns as the user types (the target is the classification metric's own parameter)."""
    from kanon_gui.views.algorithm_panel import AlgorithmPanel

    run = _run()
    state = AppState()
    state.set_table(run.table)
    panel = AlgorithmPanel(state)
    qtbot.addWidget(panel)
    panel.show()
    panel.select_algorithm("optimal")
    form = panel.params_form
    assert form is not None
    form.set_value("metric", "loss")
    form._emit()
    assert not form.rows["target"].isVisible()
    form.set_value("metric", "classification")
    form._emit()
    assert form.rows["target"].isVisible()
    completer = form.fields["target"].completer()
    assert completer is not None
    assert completer.model().stringList() == ["age", "sex", "y"]


def test_the_heat_maps_are_computed_in_the_background(qtbot, window, wait_idle, monkeypatch) -> None:
    """The cross-tables (a second or two on a large table) run in the task runner, not on the GUI thread,
    and a choice of attributes draws its own table."""
    threads = []
    real = utility_view.contingency

    def recorded(*args, **kw):
        threads.append(threading.current_thread())
        return real(*args, **kw)

    monkeypatch.setattr(utility_view, "contingency", recorded)
    panel = window.utility_panel
    panel.show_run(_run())
    wait_idle(window)
    qtbot.waitUntil(lambda: panel.heat_release.rowCount() > 0, timeout=10_000)
    assert threads and all(t is not threading.main_thread() for t in threads)
    panel.second.setCurrentText("y")
    wait_idle(window)
    qtbot.waitUntil(lambda: panel.heat_original.columnCount() == 2, timeout=10_000)
    assert {panel.heat_original.horizontalHeaderItem(c).text() for c in range(2)} == {"high", "low"}


def test_records_suppressed_whole_are_said_not_drawn_as_a_row_and_column_of_zeros(qtbot) -> None:
    """A release's suppressed records (both values missing) are left out of its heat map and counted
    below it; a missing value beside a present one (a suppressed cell) keeps its row and column."""
    panel = UtilityPanel(AppState())
    qtbot.addWidget(panel)
    frame = pd.DataFrame({"age": ["31", "32", "33", "34"] * 25 + ["97"], "sex": ["F", "M"] * 50 + ["F"]})
    ages = Hierarchy.from_rows("age", [[a, f"{a[0]}0-{a[0]}9", "*"] for a in ("31", "32", "33", "34", "97")])
    sexes = Hierarchy.from_rows("sex", [["F", "*"], ["M", "*"]])
    config = AnonymizationConfig(("age", "sex"), {"age": ages, "sex": sexes}, (KAnonymity(4),))
    table = Table.from_frame(frame)
    result = get_algorithm("optimal", suppression_limit=0.05).run(table, config)
    run = Run("#1 optimal, k = 4", result, table)
    suppressed = int((result.release["age"] == "*").sum())
    assert suppressed > 0
    panel.show_run(run)
    panel.first.setCurrentText("age")
    panel.second.setCurrentText("sex")
    heat = panel.heat_release
    headers = [heat.horizontalHeaderItem(c).text() for c in range(heat.columnCount())]
    rows = [heat.verticalHeaderItem(r).text() for r in range(heat.rowCount())]
    assert "missing" not in headers and "missing" not in rows
    assert panel.left_out == suppressed
    assert panel.left_out_note.isVisibleTo(panel)
    assert str(suppressed) in panel.left_out_note.text()
    side = {"rows": ["a", "missing"], "columns": ["x", "missing"], "counts": [[5, 2], [0, 3]]}
    assert utility_view._whole(side) == (side, 0)
