"""The anytime heuristic search: optimal when it finishes (brute force, ARX's optimum on Adult), honest
when it stops at its time limit, and usable on lattices far past the exact search's limit."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.heuristic import AnytimeSearch, best_so_far, format_quality
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.errors import InfeasibleError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.metrics.loss import get_metric
from kanon_engine.privacy.models import KAnonymity
from tests.conftest import ADULT_QI
from tests.engine import reference as ref
from tests.engine.test_algorithms import _config, _models, problems


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["dm", "dm-star", "cavg", "precision", "height", "entropy"]))
def test_finished_search_is_the_brute_force_optimum(problem, metric):
    frame, rows_by_qi, k, kind, limit = problem
    models = _models(kind, k)
    config = _config(rows_by_qi, models)
    max_supp = int(math.floor(limit * len(frame) + 1e-9))
    nodes = ref.brute_force(frame, rows_by_qi, [m.to_dict() for m in models], max_supp)
    satisfying = [nd for nd in nodes if nd["satisfies"]]
    algo = get_algorithm("heuristic", suppression_limit=limit, metric=metric, time_limit=600)
    if not satisfying:
        with pytest.raises(InfeasibleError):
            algo.run(Table.from_frame(frame), config)
        return
    result = algo.run(Table.from_frame(frame), config)
    assert "is optimal" in result.notes[0]
    chosen = next(nd for nd in nodes if nd["levels"] == tuple(result.transformation.values()))
    assert chosen["satisfies"]
    assert chosen[metric] == pytest.approx(min(nd[metric] for nd in satisfying), rel=1e-9, abs=1e-9)
    ok, why = ref.release_satisfies(
        result.release, frame, list(rows_by_qi), [m.to_dict() for m in models], max_supp
    )
    assert ok, why


@pytest.fixture(scope="module")
def adult(adult_frame, adult_hierarchies):
    table = Table.from_frame(adult_frame)
    config = AnonymizationConfig(
        tuple(ADULT_QI), {q: adult_hierarchies[q] for q in ADULT_QI}, (KAnonymity(5),)
    )
    return table, config


def test_with_enough_time_it_reaches_arxs_optimum_on_adult(adult):
    """ARX 3.9.2 (and the optimal search): k=5, 5% suppression, DM -> 9,268,952."""
    table, config = adult
    result = get_algorithm("heuristic", suppression_limit=0.05, metric="dm", time_limit=600).run(
        table, config
    )
    exact = get_algorithm("optimal", suppression_limit=0.05, metric="dm").run(table, config)
    assert result.metrics["discernibility"] == exact.metrics["discernibility"] == 9_268_952
    assert result.transformation == exact.transformation
    assert result.notes[0].startswith("The heuristic search finished")


def test_at_the_time_limit_it_returns_the_best_so_far_labelled_not_optimal(adult, monkeypatch):
    """A deterministic stand-in for the clock: the time is up after 40 checks."""
    table, config = adult
    monkeypatch.setattr(AnytimeSearch, "out_of_time", lambda self: self.checks >= 40)
    messages: list[str] = []
    result = get_algorithm("heuristic", suppression_limit=0.05, metric="dm", time_limit=3).run(
        table, config, progress=lambda f, m: messages.append(m)
    )
    assert result.nodes_checked == 40
    note = result.notes[0]
    assert "stopped at its time limit of 3 seconds after 40 checks" in note and "not proven optimal" in note
    assert f"{result.metrics['discernibility']:,.0f})" in note
    qualities = [best_so_far(m) for m in messages if best_so_far(m)]
    assert qualities and qualities[-1] == f"DM {result.metrics['discernibility']:,.0f}"
    assert best_so_far("checking node 3") is None
    frame = table.frame
    ok, why = ref.release_satisfies(result.release, frame, ADULT_QI, [{"name": "k-anonymity", "k": 5}], 1508)
    assert ok, why
    assert result.metrics["discernibility"] >= 9_268_952


def _wide_problem() -> tuple[Table, AnonymizationConfig]:
    """400 records, 9 quasi-identifiers with 5 levels each: 1,953,125 transformations."""
    rng = np.random.default_rng(7)
    cols, hs = {}, {}
    for q in range(9):
        values = rng.integers(0, 16, 400)
        cols[f"q{q}"] = [f"{v:02d}" for v in values]
        rows = [[f"{v:02d}", f"{v // 2}", f"{v // 4}", f"{v // 8}", "*"] for v in range(16)]
        hs[f"q{q}"] = Hierarchy.from_rows(f"q{q}", rows)
    table = Table.from_frame(pd.DataFrame(cols, dtype=object))
    return table, AnonymizationConfig(tuple(hs), hs, (KAnonymity(3),))


def test_past_the_exact_limit_optimal_points_to_the_heuristic():
    table, config = _wide_problem()
    with pytest.raises(InfeasibleError, match="1,953,125 transformations, too many for optimal.*heuristic"):
        get_algorithm("optimal", suppression_limit=0.02).run(table, config)
    result = get_algorithm("heuristic", suppression_limit=0.02, time_limit=2).run(table, config)
    ok, why = ref.release_satisfies(
        result.release, table.frame, list(config.quasi_identifiers), [{"name": "k-anonymity", "k": 3}], 8
    )
    assert ok, why
    assert result.lattice is not None and len(result.lattice.status) == 1_953_125


def test_cli_runs_the_heuristic_with_its_time_limit(sample_dir, tmp_path, capsys):
    """``--algorithm heuristic --param time_limit=...`` (and ``--time-limit``) from the command line."""
    import json

    from kanon_engine.cli import main

    project = str(sample_dir / "sample_project.json")
    report = tmp_path / "r.json"
    args = ["anonymize", "--project", project, "--algorithm", "heuristic", "--param", "time_limit=30"]
    assert main([*args, "--output", str(tmp_path / "out.csv"), "--report", str(report)]) == 0
    summary = json.loads(report.read_text(encoding="utf-8"))
    assert summary["algorithm"] == "heuristic" and summary["parameters"]["time_limit"] == 30.0
    assert summary["notes"][0].startswith("The heuristic search")
    capsys.readouterr()
    bad = ["anonymize", "--project", project, "--algorithm", "heuristic", "--time-limit", "0"]
    assert main(bad) == 2
    assert "Time limit (seconds) must be a number from 0.1 to 86,400; got 0." in capsys.readouterr().err


def test_quality_is_shown_as_the_report_shows_it() -> None:
    """The progress bar and the note name the metric's value as the report does: a percentage for the
    Loss share (hand value 0.6294 -> 62.9 %), thousands separators for DM."""
    assert format_quality(get_metric("loss"), 0.6294) == "62.9 %"
    assert format_quality(get_metric("dm"), 352610.0) == "352,610"
