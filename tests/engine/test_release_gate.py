"""The optimal search skips the models that judge the release as a whole (a population estimate per
bisection step) on nodes whose metric bound already exceeds the best value found
(``NodeEvaluator.evaluate_under``): the optimum, ties included, is the node the search without that skip
finds, and the node a brute force over the whole lattice finds best (also for delta-disclosure, whose
floor rules out a node's specializations)."""

from __future__ import annotations

import pytest

from kanon_engine.algorithms.optimal import Optimal
from kanon_engine.algorithms.search import LatticeSearch
from kanon_engine.core.evaluation import NodeEvaluator
from kanon_engine.data.table import Table
from kanon_engine.metrics.loss import get_metric
from kanon_engine.privacy import AverageRisk, DeltaDisclosure, KAnonymity, PopulationUniqueness
from kanon_engine.privacy.sample_uniqueness import SampleUniqueness
from tests.engine import test_population_estimates as population_tests
from tests.engine.test_population_estimates import QI, _brute_force, _config, _frame

CASES = [
    pytest.param((PopulationUniqueness(0.01, 3000, "pitman"),), 0.05, id="pitman"),
    pytest.param((PopulationUniqueness(0.02, 5000, "dankar"),), 0.1, id="dankar"),
    pytest.param((PopulationUniqueness(0.05, 2000, "zayatz"),), 0.05, id="zayatz"),
    pytest.param((KAnonymity(2), PopulationUniqueness(0.01, 3000, "pitman")), 0.05, id="k2-pitman"),
    pytest.param((AverageRisk(0.1),), 0.05, id="average-risk"),
    pytest.param((SampleUniqueness(0.02),), 0.05, id="sample-uniqueness"),
    # no model judging the release: nothing skipped, but delta-disclosure's floor prunes specializations
    pytest.param((KAnonymity(2), DeltaDisclosure(1.2, "diagnosis")), 0.05, id="delta-1.2"),
    pytest.param((KAnonymity(2), DeltaDisclosure(0.6, "diagnosis")), 0.1, id="delta-0.6"),
]


def _run(table: Table, models: tuple, limit: float, metric: str, gate: bool, monkeypatch) -> tuple:
    """The optimum's levels and how many checks skipped the whole-release models."""
    skipped = []
    evaluate_under = NodeEvaluator.evaluate_under

    def counting(self, levels, cutoff, bound):
        ev = evaluate_under(self, levels, cutoff, bound)
        skipped.append(ev.beaten)
        return ev

    with monkeypatch.context() as m:
        m.setattr(NodeEvaluator, "evaluate_under", counting)
        if not gate:
            m.setattr(LatticeSearch, "_gates", property(lambda self: False))
        result = Optimal(suppression_limit=limit, metric=metric).run(table, _config(table, models))
    return tuple(result.transformation[q] for q in QI), sum(skipped)


@pytest.mark.parametrize("metric", ["dm", "loss"])
@pytest.mark.parametrize(("models", "limit"), CASES)
@pytest.mark.parametrize("seed", [11, 23])
def test_skipping_the_release_models_keeps_the_optimum(models, limit, metric, seed, monkeypatch) -> None:
    table = Table.from_frame(_frame(300, seed))
    gated, _skipped = _run(table, models, limit, metric, True, monkeypatch)
    plain, none = _run(table, models, limit, metric, False, monkeypatch)
    assert none == 0
    assert gated == plain
    with monkeypatch.context() as m:  # the brute force of the other tests, with this metric
        m.setattr(population_tests, "get_metric", lambda _name: get_metric(metric))
        values = _brute_force(table, _config(table, models), limit)
    assert values[gated] == pytest.approx(min(values.values()))


def test_the_skip_happens(monkeypatch) -> None:
    """On these tables the search does skip the population estimate on nodes that cannot win (else the
    test above would prove nothing)."""
    skipped = 0
    for seed in (11, 23):
        table = Table.from_frame(_frame(300, seed))
        for models, limit in ((p.values[0], p.values[1]) for p in CASES):
            skipped += _run(table, models, limit, "dm", True, monkeypatch)[1]
    assert skipped > 0
