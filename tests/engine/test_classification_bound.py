"""The classification metric's lower bound, the optimal search's only pruning rule for it, on random small
tables (hypothesis): the bound of a node never exceeds the true value of the node nor of any of its
generalizations that satisfies the model within the suppression limit (with Datafly's step 4 on and off,
two-valued targets and targets of several values), and the search's optimum is the brute-force minimum
over the whole lattice."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import encode_table
from kanon_engine.core.evaluation import NodeEvaluator, evaluator_context
from kanon_engine.core.frequency import BinaryHistograms, Histograms
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.metrics.classification import (
    majority,
    penalty_bound,
    records_off_majority,
    released_penalty,
    two_counts_penalty,
)
from kanon_engine.metrics.loss import get_metric
from kanon_engine.privacy import KAnonymity

QI = ("a", "b", "c")
HIERARCHIES = {
    "a": Hierarchy.from_rows("a", [[f"a{v}", f"a{v // 2}x", f"a{v // 4}y", "*"] for v in range(8)]),
    "b": Hierarchy.from_rows("b", [[f"b{v}", f"b{v // 2}x", "*"] for v in range(4)]),
    "c": Hierarchy.from_rows("c", [[f"c{v}", "*"] for v in range(3)]),
}
LEVELS = list(itertools.product(*(range(HIERARCHIES[q].height + 1) for q in QI)))


@st.composite
def problems(draw: st.DrawFn) -> tuple[pd.DataFrame, int, int, int]:
    """A table of 12 to 90 records whose target leans on ``a`` more or less, k, the records that may be
    suppressed, and step 4's k (0: off)."""
    n_values = draw(st.sampled_from([2, 2, 3, 5]))
    rows = draw(
        st.lists(
            st.tuples(st.integers(0, 7), st.integers(0, 3), st.integers(0, 2), st.integers(0, n_values - 1)),
            min_size=12,
            max_size=90,
        )
    )
    lean = draw(st.booleans())
    frame = pd.DataFrame(
        {
            "a": [f"a{r[0]}" for r in rows],
            "b": [f"b{r[1]}" for r in rows],
            "c": [f"c{r[2]}" for r in rows],
            # a target that follows a's coarse group for half the records, or pure noise
            "y": [f"y{(r[0] // 4) % n_values if lean and i % 2 else r[3]}" for i, r in enumerate(rows)],
        }
    )
    k = draw(st.integers(2, 8))
    max_suppressed = draw(st.integers(0, len(rows) // 4))
    group_k = draw(st.sampled_from([0, k]))
    return frame, k, max_suppressed, group_k


#: a group whose majority holds under half its records (y0 twice among five) is cheaper suppressed (5 x 1/2)
#: than released (3 off its majority): the bound must allow for it (its knapsack over such groups)
MINORITY_MAJORITY = (
    pd.DataFrame(
        {
            "a": ["a0"] * 5 + ["a7"] * 12,
            "b": ["b0"] * 5 + ["b3"] * 12,
            "c": ["c0"] * 5 + ["c2"] * 12,
            "y": ["y0", "y0", "y1", "y2", "y3"] + ["y0"] * 12,
        }
    ),
    6,
    5,
    0,
)


def _node_figures(frame: pd.DataFrame, k: int, max_suppressed: int, group_k: int):
    """Every node's evaluation under the classification metric: (bound, value or None when the node does
    not satisfy the model within the limit)."""
    enc = encode_table(Table.from_frame(frame), QI, HIERARCHIES, ("y",))
    evaluator = NodeEvaluator(
        enc, (KAnonymity(k),), max_suppressed, suppressed_group_k=group_k, tracked=("y",)
    )
    ctx = evaluator_context(evaluator)
    metric = get_metric("classification", ("y",))
    out = {}
    for levels in LEVELS:
        ev = evaluator.evaluate(levels, complete=True)
        out[levels] = (metric.lower_bound(ev, ctx), metric.value(ev, ctx) if ev.satisfies else None)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
@example(MINORITY_MAJORITY)
def test_bound_holds_for_every_satisfying_generalization(problem):
    frame, k, max_suppressed, group_k = problem
    figures = _node_figures(frame, k, max_suppressed, group_k)
    for levels, (bound, _value) in figures.items():
        above = [
            value
            for other, (_b, value) in figures.items()
            if value is not None and all(x >= y for x, y in zip(other, levels))
        ]
        assert all(bound <= value + 1e-12 for value in above), (levels, bound, min(above))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_optimal_search_finds_the_brute_force_minimum(problem):
    frame, k, max_suppressed, group_k = problem
    if frame["y"].nunique() < 2:
        return  # a target of one value is refused (nothing to predict)
    values = [v for _b, v in _node_figures(frame, k, max_suppressed, group_k).values() if v is not None]
    limit = max_suppressed / len(frame)
    config = AnonymizationConfig(QI, HIERARCHIES, (KAnonymity(k),), protect_suppressed_group=group_k > 0)
    algo = get_algorithm("optimal", suppression_limit=limit, metric="classification", target="y")
    if not values:
        with pytest.raises(Exception, match="No transformation satisfies"):
            algo.run(Table.from_frame(frame), config)
        return
    result = algo.run(Table.from_frame(frame), config)
    assert result.metrics["classification"] == pytest.approx(min(values), abs=1e-12)
    assert np.isfinite(result.metrics["classification"])


def _both_histograms(
    rows: list[tuple[int, int, int]],
) -> tuple[np.ndarray, np.ndarray, Histograms, BinaryHistograms]:
    """Rows (class, value 0/1, weight) of 10 classes: the classes, the weights, and the target's general
    and two-counts histograms."""
    row_class = np.array([r[0] for r in rows])
    values = np.array([r[1] for r in rows])
    weights = np.array([r[2] for r in rows], dtype=np.int64)
    general = Histograms.from_rows(row_class, values, 10, 2, weights)
    binary = Histograms.from_rows(row_class, values, 10, 2, weights, binary=True)
    assert isinstance(binary, BinaryHistograms)
    return row_class, weights, general, binary


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 9), st.integers(0, 1), st.integers(1, 4)), min_size=1, max_size=60),
    st.lists(st.integers(0, 4), min_size=10, max_size=10),
)
def test_two_counts_per_class_hold_the_same_histograms(rows, merge):
    """A two-valued target carried as two counts per class (BinaryHistograms, what the classification
    metric's search rolls up) holds the same (class, value, count) pairs as the general histograms, at
    the bottom and after a roll-up, and the metric reads the same majorities from both."""
    row_class, weights, general, binary = _both_histograms(rows)
    class_map = np.array(merge)
    for g, b, n in ((general, binary, 10), (general.roll_up(class_map, 5), binary.roll_up(class_map, 5), 5)):
        for field in ("cls", "val", "cnt"):
            assert np.array_equal(getattr(g, field), getattr(b, field)), field
        assert np.array_equal(g.distinct(n), b.distinct(n))
        for mine, theirs in zip(majority(b, n), majority(g, n)):
            assert np.array_equal(mine, theirs)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 9), st.integers(0, 1), st.integers(1, 4)), min_size=1, max_size=60),
    st.lists(st.integers(0, 4), min_size=10, max_size=10),
    st.lists(st.booleans(), min_size=10, max_size=10),
)
def test_two_counts_give_the_general_penalty(rows, merge, kept):
    """The two-counts path of the classification metric (the target's roll-up given the classes' sizes,
    the records off the majority kept between the bound and the value, the penalty as two dot products)
    gives the general path's histograms and penalty, ties included, at the bottom and after a roll-up."""
    row_class, weights, general, binary = _both_histograms(rows)
    class_map = np.array(merge)
    sizes = np.bincount(class_map, weights=np.bincount(row_class, weights=weights, minlength=10), minlength=5)
    sized = binary.roll_up_sized(class_map, sizes.astype(np.int64))
    rolled = binary.roll_up(class_map, 5)
    assert isinstance(rolled, BinaryHistograms)
    assert np.array_equal(sized.ones, rolled.ones) and np.array_equal(sized.total, rolled.total)
    for g, b, n in ((general, binary, 10), (general.roll_up(class_map, 5), sized, 5)):
        released = np.array(kept[:n])
        off = records_off_majority(b)
        total, top1, tie = majority(g, n)
        assert float(off.sum()) == penalty_bound(total, top1, 0, False)
        assert two_counts_penalty(b, off, released) == released_penalty(total, top1, tie, released, None)
