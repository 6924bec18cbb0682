"""The classification metric's suppression curve (issue 34), by brute force on random small tables
(hypothesis): for every node N and every generalization G of it, N's bound plus N's curve at the records
in G's classes smaller than k never exceeds G's value under any suppression G may make (its classes
smaller than k, and any set of its other classes), the value counted here from the records with pandas;
and the optimal search prunes with the curve only where it holds (classification metric, k-anonymity
alone, one two-valued target)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms.search import LatticeSearch
from kanon_engine.core.encoding import encode_table
from kanon_engine.core.evaluation import NodeEvaluator, evaluator_context
from kanon_engine.data.table import Table
from kanon_engine.metrics.classification import SuppressionCurve
from kanon_engine.metrics.loss import get_metric
from kanon_engine.privacy import KAnonymity
from tests.engine.test_classification_bound import HIERARCHIES, LEVELS, QI

#: each attribute's value at each level, as the hierarchies above write them (read independently here)
GENERALIZE = {
    "a": lambda v, lv: [f"a{v}", f"a{v // 2}x", f"a{v // 4}y", "*"][lv],
    "b": lambda v, lv: [f"b{v}", f"b{v // 2}x", "*"][lv],
    "c": lambda v, lv: [f"c{v}", "*"][lv],
}


@st.composite
def tables(draw: st.DrawFn) -> tuple[pd.DataFrame, int, int]:
    """A table of 6 to 60 records with a two-valued target, k, and step 4's k (0: off, else whole
    classes)."""
    rows = draw(
        st.lists(
            st.tuples(st.integers(0, 7), st.integers(0, 3), st.integers(0, 2), st.integers(0, 1)),
            min_size=6,
            max_size=60,
        )
    )
    frame = pd.DataFrame(
        {
            "a": [f"a{r[0]}" for r in rows],
            "b": [f"b{r[1]}" for r in rows],
            "c": [f"c{r[2]}" for r in rows],
            "y": [f"y{r[3]}" for r in rows],
        }
    )
    k = draw(st.integers(2, 6))
    return frame, k, draw(st.sampled_from([0, k]))


def _classes(frame: pd.DataFrame, levels: tuple[int, ...]) -> pd.DataFrame:
    """Per class of the node at ``levels``: its records and its records holding y1 (pandas, from the
    records)."""
    keys = {q: [GENERALIZE[q](int(v[1:]), lv) for v in frame[q]] for q, lv in zip(QI, levels)}
    grouped = pd.DataFrame(keys).assign(one=(frame["y"] == "y1").to_numpy(dtype=int))
    return grouped.groupby(list(QI), sort=False)["one"].agg(["size", "sum"]).reset_index(drop=True)


def _values(classes: pd.DataFrame, k: int, n_rows: int, limit: int = 64) -> list[float]:
    """The metric's value of the node under every suppression it may make (its classes smaller than k,
    and each set of its other classes; the first ``limit`` sets when there are more): a released class
    costs its records off the majority (all of them on a tie), a suppressed record 1/2."""
    size, ones = classes["size"].to_numpy(), classes["sum"].to_numpy()
    off = np.minimum(ones, size - ones)
    own = np.where(2 * off == size, size, off)
    small = size < k
    large = np.flatnonzero(~small)
    out = []
    for r in range(len(large) + 1):
        for extra in itertools.islice(itertools.combinations(large.tolist(), r), limit):
            gone = small.copy()
            gone[list(extra)] = True
            out.append((float(own[~gone].sum()) + 0.5 * float(size[gone].sum())) / n_rows)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_every_generalization_is_at_least_the_bound_plus_the_curve(problem):
    frame, k, group_k = problem
    if frame["y"].nunique() < 2:
        return  # a target of one value is refused (nothing to predict)
    enc = encode_table(Table.from_frame(frame), QI, HIERARCHIES, ("y",))
    evaluator = NodeEvaluator(enc, (KAnonymity(k),), len(frame), suppressed_group_k=group_k, tracked=("y",))
    assert evaluator.suppresses_small_classes
    ctx = evaluator_context(evaluator)
    metric = get_metric("classification", ("y",))
    classes = {levels: _classes(frame, levels) for levels in LEVELS}
    for levels in LEVELS:
        ev = evaluator.evaluate(levels, complete=True)
        curve = metric.suppression_curve(ev, ctx)
        assert isinstance(curve, SuppressionCurve)
        bound = metric.lower_bound(ev, ctx)
        mine = classes[levels]
        assert ev.suppressed_monotone == int(mine["size"][mine["size"] < k].sum())
        steps = [curve.extra(s) for s in range(ev.suppressed_monotone + 1)]
        assert steps[0] == 0.0 and all(a <= b + 1e-15 for a, b in zip(steps, steps[1:]))  # non-decreasing
        assert all(b - a <= curve.slope + 1e-15 for a, b in zip(steps, steps[1:]))  # at most slope a record
        for other in LEVELS:
            if not all(x >= y for x, y in zip(other, levels)):
                continue
            sizes = classes[other]["size"]
            s = int(sizes[sizes < k].sum())
            assert s <= ev.suppressed_monotone  # (the curve's end)
            least = min(_values(classes[other], k, len(frame)))
            assert bound + curve.extra(s) <= least + 1e-12, (levels, other, s)


def test_only_the_classification_search_keeps_suppression_curves():
    """The bound is gated: the classification metric with one two-valued target under k-anonymity alone
    keeps curves; Loss, or another model beside k, or a QI target, do not."""
    frame = pd.DataFrame({"a": ["a0", "a1", "a2", "a3"] * 3, "b": ["b0", "b1"] * 6, "c": ["c0"] * 12}).assign(
        y=["y0", "y1", "y1"] * 4
    )
    enc = encode_table(Table.from_frame(frame), QI, HIERARCHIES, ("y",))
    models = (KAnonymity(3),)

    def search(metric: str, targets: tuple[str, ...] = ("y",)) -> LatticeSearch:
        evaluator = NodeEvaluator(enc, models, 2, tracked=targets if targets != ("a",) else ())
        found = LatticeSearch(enc, models, 2, get_metric(metric, targets), evaluator=evaluator)
        found.check(0)
        return found

    kept = search("classification")
    assert kept._sup is not None and kept._curves
    assert search("loss", ())._sup is None
    assert not search("classification", ("a",))._curves  # a target among the QIs: no curve
