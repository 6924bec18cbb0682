"""``--suppress cells`` on the full-domain algorithms (the survey's AG_CS model): releases checked by the
independent checker, the optimum equal to brute force over every node, the limit counting cells."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.cell_suppression import CellMetric, CellSuppressionEvaluator, cell_budget
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import encode_table
from kanon_engine.core.lattice import Lattice
from kanon_engine.core.table_check import check_table
from kanon_engine.data.table import Table
from kanon_engine.errors import InfeasibleError
from kanon_engine.metrics.loss import MetricContext, get_metric
from kanon_engine.privacy.models import KAnonymity
from tests.conftest import ADULT_QI
from tests.engine import reference as ref
from tests.engine.test_algorithms import _config, _models, problems


def _brute_force(table, config, limit, metric_name):
    """Every node checked under the cell model; the best satisfying one (ties: lowest, then first)."""
    enc = encode_table(
        table, config.quasi_identifiers, config.hierarchies, config.sensitive, config.sensitive_hierarchies
    )
    budget = cell_budget(enc.n_rows, enc.n_qi, limit)
    evaluator = CellSuppressionEvaluator(enc, config.models, budget)
    metric = CellMetric(get_metric(metric_name))
    ctx = MetricContext(enc, config.k, budget)
    lat = Lattice(enc.heights)
    best, best_value = None, math.inf
    for index in lat.bottom_up_order():
        ev = evaluator.evaluate(lat.levels[index])
        if ev.satisfies:
            value = metric.value(ev, ctx)
            if best is None or value < best_value - 1e-9 * max(1.0, abs(best_value)):
                best, best_value = tuple(int(x) for x in lat.levels[index]), value
    return best, best_value


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["loss", "dm", "precision", "entropy", "cavg", "dm-star", "height"]))
def test_optimal_with_cells_equals_brute_force(problem, metric):
    frame, rows_by_qi, k, kind, limit = problem
    models = _models(kind, k)
    config = _config(rows_by_qi, models)
    table = Table.from_frame(frame)
    if k > len(frame):
        return
    best, best_value = _brute_force(table, config, limit, metric)
    algo = get_algorithm("optimal", suppression_limit=limit, metric=metric, suppress="cells")
    if best is None:
        with pytest.raises(InfeasibleError):
            algo.run(table, config)
        return
    result = algo.run(table, config)
    chosen = tuple(result.transformation.values())
    enc = encode_table(
        table, config.quasi_identifiers, config.hierarchies, config.sensitive, config.sensitive_hierarchies
    )
    budget = cell_budget(enc.n_rows, enc.n_qi, limit)
    ev = CellSuppressionEvaluator(enc, config.models, budget).evaluate(chosen)
    value = CellMetric(get_metric(metric)).value(ev, MetricContext(enc, config.k, budget))
    assert value == pytest.approx(best_value, rel=1e-9, abs=1e-9)
    assert result.model == "AG_CS" and result.suppressed == 0
    assert result.recoding.suppressed_cells <= budget
    dicts = [m.to_dict() for m in models]
    ok, why = ref.cell_release_check(result.release, frame, list(rows_by_qi), rows_by_qi, dicts)
    assert ok, why


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["datafly", "samarati", "incognito", "heuristic"]))
def test_other_full_domain_algorithms_with_cells(problem, name):
    frame, rows_by_qi, k, kind, limit = problem
    models = _models(kind, k)
    config = _config(rows_by_qi, models)
    if k > len(frame):
        return
    try:
        result = get_algorithm(name, suppression_limit=limit, suppress="cells").run(
            Table.from_frame(frame), config
        )
    except InfeasibleError:
        return
    dicts = [m.to_dict() for m in models]
    ok, why = ref.cell_release_check(result.release, frame, list(rows_by_qi), rows_by_qi, dicts)
    assert ok, f"{name}: {why}"
    assert result.recoding.suppressed_cells <= cell_budget(len(frame), len(rows_by_qi), limit)


def test_adult_cells_keep_more_detail_than_records(adult_frame, adult_hierarchies):
    """Adult, k=5, 5%, precision: cell suppression keeps every record and its NCP is far below whole-
    record suppression's (the issue asks for at least 10% below)."""
    config = AnonymizationConfig(
        tuple(ADULT_QI), {q: adult_hierarchies[q] for q in ADULT_QI}, (KAnonymity(5),)
    )
    table = Table.from_frame(adult_frame)
    records = get_algorithm("optimal", suppression_limit=0.05, metric="precision").run(table, config)
    cells = get_algorithm("optimal", suppression_limit=0.05, metric="precision", suppress="cells").run(
        table, config
    )
    assert records.model == "AG_TS" and cells.model == "AG_CS"
    assert cells.metrics["gcp"] <= 0.9 * records.metrics["gcp"]
    assert cells.suppressed == 0 and len(cells.release) == len(adult_frame)
    assert cells.recoding.suppressed_cells <= int(0.05 * len(adult_frame) * len(ADULT_QI))
    per_attr = cells.recoding.suppressed_per_attribute()
    assert sum(per_attr.values()) == cells.recoding.suppressed_cells
    assert int(cells.metrics["suppressed_cells"]) == cells.recoding.suppressed_cells
    sizes = np.asarray(cells.class_sizes)
    assert sizes.min() >= 5


@pytest.mark.parametrize("name", ["datafly", "samarati", "incognito", "optimal"])
def test_step4_is_moot_under_cell_suppression(name):
    """Datafly's step 4 (kept suppressed records form a group of 0 or >= k) acts on suppressed records;
    AG_CS suppresses none, so the rule's setting changes nothing. The lone outlier C still cannot stand
    alone as '*': the strict reading makes its '*' a value of its own, so two more cells go with it."""
    from tests.engine.test_suppressed_group import _config as group_config
    from tests.engine.test_suppressed_group import _problem

    table, h = _problem()
    runs = [
        get_algorithm(name, suppression_limit=0.3, suppress="cells").run(table, group_config(h, **kw))
        for kw in ({}, {"protect_suppressed_group": False}, {"drop_suppressed": True})
    ]
    for result in runs:
        assert result.model == "AG_CS" and result.suppressed == 0 and len(result.release) == 10
        assert check_table(result.release, ["x"], 3).k_anonymous
    first = runs[0].release
    for result in runs[1:]:
        pd.testing.assert_frame_equal(result.release, first)
        assert result.transformation == runs[0].transformation
    assert runs[0].transformation == {"x": 0}
    assert int((first["x"] == "*").sum()) == 3  # C and two records of the largest group, A


@pytest.mark.parametrize(("importance", "starred"), [("x", "y"), ("y", "x"), (None, "y")])
def test_importance_decides_which_value_goes_under_cell_suppression(importance, starred):
    """Four outliers that can pair up either by x (star y) or by y (star x) at the same cost: the
    attribute listed first in importance keeps its values. Default (none listed): fewer distinct values
    first, so x (3 values) is kept over y (4 values)."""
    from kanon_engine.algorithms.full_domain import apply_transformation
    from kanon_engine.hierarchy.model import Hierarchy

    frame = pd.DataFrame(
        {
            "x": ["A", "A", "B", "B"] + ["C"] * 3,
            "y": ["Q", "R", "Q", "R"] + ["S"] * 3,
        },
        dtype=object,
    )
    hs = {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in ("x", "y")}
    config = AnonymizationConfig(("x", "y"), hs, (KAnonymity(2),))
    table = Table.from_frame(frame)
    result = apply_transformation(table, config, {"x": 0, "y": 0}, suppress="cells", importance=importance)
    release = result.release
    assert int((release[starred] == "*").sum()) == 4
    kept = "x" if starred == "y" else "y"
    assert int((release[kept] == "*").sum()) == 0
    assert result.parameters["importance"] == importance
    runs = []
    for name in ("optimal", "heuristic"):  # the heuristic finishes on this lattice: the same optimum
        algo = get_algorithm(name, suppression_limit=1.0, suppress="cells", importance=importance)
        runs.append(algo.run(table, config))
        assert runs[-1].parameters["importance"] == importance
        assert int((runs[-1].release[starred] == "*").sum()) in (0, 4)
    assert runs[0].transformation == runs[1].transformation
    assert runs[0].release.equals(runs[1].release)


def test_cells_when_no_release_satisfies_l_diversity():
    """Hypothesis found it: three records whose sensitive values (0, 0, 1) fail recursive (2,2)-diversity
    as a whole, so no group hiding an outlier can pass. Each node then simply does not satisfy: the search
    says no release exists and apply says why, in plain words (peeling used to stop with an internal
    error)."""
    from kanon_engine.algorithms.full_domain import apply_transformation

    frame = pd.DataFrame(
        {"q0": ["v00"] * 3, "q1": ["v10", "v11", "v10"], "q2": ["v20"] * 3, "s": ["0", "0", "1"]},
        dtype=object,
    )
    rows = {"q0": [["v00", "*"]], "q1": [["v10", "*"], ["v11", "*"]], "q2": [["v20", "*"]]}
    config = _config(rows, _models("recursive", 2))
    table = Table.from_frame(frame)
    assert _brute_force(table, config, 0.3, "loss") == (None, math.inf)
    for name in ("optimal", "heuristic"):
        with pytest.raises(InfeasibleError):
            get_algorithm(name, suppression_limit=0.3, suppress="cells").run(table, config)
    with pytest.raises(InfeasibleError, match="no choice of values to replace by"):
        apply_transformation(
            table, config, {"q0": 0, "q1": 0, "q2": 0}, suppression_limit=0.3, suppress="cells"
        )
