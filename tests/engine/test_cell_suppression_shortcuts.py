"""The shortcuts that make ``--suppress cells`` fast change nothing of what it releases (issue 30 item 4).

Three kinds of shortcut: the local suppression's visits skip work that cannot change them
(:meth:`Peeler._idle`, :meth:`Peeler._may_take_donors`, :meth:`Peeler._donor_candidates`,
:meth:`Peeler._may_accept`, the grouping of :meth:`PeelingInput.keys`, the sorted visit order of
:class:`CostOrder`); a search's check stops local suppression once the node is known to fail or to be
worse than a solution found (:class:`CellFloor`); the descent starts at the lowest satisfying node of
the path down (:meth:`LatticeSearch._dive`) and checks the most promising predecessors first. Each is
compared here with the plain computation (every shortcut switched off in the same process): the same
peeling at every node of random tables, the same node and release on random tables and byte for byte
on Adult, every class of the release at least k by an independent pandas check.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm, peeling
from kanon_engine.algorithms.cell_suppression import (
    CellFloor,
    CellMetric,
    CellSuppressionEvaluator,
    cell_budget,
)
from kanon_engine.algorithms.peeling import CostOrder, Peeler, PeelingInput
from kanon_engine.algorithms.search import LatticeSearch
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import encode_table
from kanon_engine.core.frequency import group_columns
from kanon_engine.core.lattice import Lattice
from kanon_engine.data.table import Table
from kanon_engine.errors import InfeasibleError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.metrics.loss import MetricContext, get_metric
from kanon_engine.privacy.models import DistinctLDiversity, KAnonymity
from kanon_engine.release.writer import csv_bytes
from tests.conftest import ADULT_QI
from tests.engine import reference as ref


def _plain_keys(self: PeelingInput, rows: np.ndarray, node: np.ndarray) -> tuple[np.ndarray, int]:
    """The grouping before the shortcut: every attribute through its level map."""
    cols = [self.level_maps[q][node[q]][self.codes[q, rows]] for q in range(self.n_qi)]
    return group_columns(cols, [self.level_sizes[q][node[q]] for q in range(self.n_qi)])


def _plain_donor_entries(self: Peeler) -> np.ndarray:
    """The donor entries computed at every visit."""
    _e_row, e_cls, e_cnt = self._entries()
    return np.flatnonzero((e_cnt > 0) & (self.class_size[e_cls] > self.k))


def _plain_least(self: Peeler, node: np.ndarray) -> float:
    """The least cost at a node added up at every call."""
    least = 0.0
    for q in range(self.inp.n_qi):
        least += float(self._least_cost[q][node[q]])
    return least


def _plain_reopen(self: Peeler, rows: np.ndarray) -> None:
    """The open rows as the sorted union of the open ones and ``rows``."""
    self.open = np.union1d(self.open, rows)


@contextmanager
def plain() -> Iterator[None]:
    """Every shortcut switched off (inside the ``with``)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(PeelingInput, "keys", _plain_keys)
        mp.setattr(Peeler, "_idle", lambda self, node, rows: False)
        mp.setattr(Peeler, "_may_take_donors", lambda self, node, have: True)
        mp.setattr(Peeler, "_donor_candidates", lambda self, node, rows, group, sizes, cand: cand)
        mp.setattr(CellFloor, "__call__", lambda self, peeler, node: False)
        mp.setattr(peeling, "SORTED_NODES", 0)
        mp.setattr(Peeler, "_may_accept", lambda self, need, have, key, delta, most: True)
        mp.setattr(Peeler, "_donor_entries", _plain_donor_entries)
        mp.setattr(Peeler, "_reopen", _plain_reopen)
        mp.setattr(LatticeSearch, "_dive", lambda self, top: top)
        mp.setattr(PeelingInput, "_same_cost", lambda self, node: None)
        mp.setattr(Peeler, "_least_at", _plain_least)
        yield


@st.composite
def tables(draw):
    """A random table of 30..300 rows with 2..5 quasi-identifiers (tree hierarchies of height 1..3) and
    a sensitive attribute: large enough for donors, merges and many visits per node."""
    n_qi = draw(st.integers(2, 5))
    rows_by_qi: dict[str, list[list[str]]] = {}
    for q in range(n_qi):
        n_leaves = draw(st.integers(2, 7))
        height = draw(st.integers(1, 3))
        rows = [[f"v{q}{i}"] for i in range(n_leaves)]
        for j in range(1, height):
            for i, r in enumerate(rows):
                r.append(f"q{q}L{j}g{i // (2**j)}")
        for r in rows:
            r.append("*")
        rows_by_qi[f"q{q}"] = rows
    n = draw(st.integers(30, 300))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    data = {}
    for q, rows in rows_by_qi.items():  # skewed, so some values are rare
        weights = rng.dirichlet(np.full(len(rows), 0.6))
        data[q] = [rows[i][0] for i in rng.choice(len(rows), size=n, p=weights)]
    data["s"] = [str(x) for x in rng.integers(0, 4, size=n)]
    k = draw(st.integers(2, 6))
    diverse = draw(st.booleans())
    models = (KAnonymity(k), DistinctLDiversity(2, "s")) if diverse else (KAnonymity(k),)
    hs = {q: Hierarchy.from_rows(q, rows) for q, rows in rows_by_qi.items()}
    config = AnonymizationConfig(tuple(rows_by_qi), hs, models, sensitive=("s",) if diverse else ())
    return pd.DataFrame(data, dtype=object), rows_by_qi, config, draw(st.sampled_from([0.02, 0.05, 0.2]))


def _every_node(frame, config, limit, cutoff=np.inf, stop_early=False, metric=None):
    enc = encode_table(
        Table.from_frame(frame),
        config.quasi_identifiers,
        config.hierarchies,
        config.sensitive,
        config.sensitive_hierarchies,
    )
    budget = cell_budget(enc.n_rows, enc.n_qi, limit)
    evaluator = CellSuppressionEvaluator(enc, config.models, budget, stop_early=stop_early, metric=metric)
    return enc, budget, [evaluator.evaluate(levels, cutoff=cutoff) for levels in Lattice(enc.heights).levels]


def _same_peeling(a, b) -> None:
    assert a.satisfies == b.satisfies and a.cells == b.cells
    assert (a.peeling is None) == (b.peeling is None)
    if a.peeling is not None:
        for name in ("entry_row", "entry_class", "entry_count", "class_levels"):
            np.testing.assert_array_equal(getattr(a.peeling, name), getattr(b.peeling, name))
        np.testing.assert_array_equal(a.per_attribute, b.per_attribute)
        assert (a.peeling.steps, a.peeling.donated, a.peeling.joined_top) == (
            b.peeling.steps,
            b.peeling.donated,
            b.peeling.joined_top,
        )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_peeling_shortcuts_change_no_node(problem):
    """At every node of random tables: the same classes, entries, cells and steps with the visits'
    shortcuts as without them."""
    frame, _rows, config, limit = problem
    _enc, _budget, fast = _every_node(frame, config, limit)
    with plain():
        _enc, _budget, slow = _every_node(frame, config, limit)
    for a, b in zip(fast, slow):
        _same_peeling(a, b)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.floats(0.0, 0.6))
def test_a_stopped_check_is_right_about_the_node(problem, cutoff):
    """A check stopped early says the truth: a node said to fail fails, with at least the cells said;
    a node said to be beaten has a precision loss above the cutoff, at least the floor said."""
    frame, _rows, config, limit = problem
    enc, budget, quick = _every_node(frame, config, limit, cutoff, stop_early=True, metric="precision")
    _enc, _budget, full = _every_node(frame, config, limit)
    metric, ctx = CellMetric(get_metric("precision")), MetricContext(enc, config.k, budget)
    for q, f in zip(quick, full):
        if q.peeling is not None or f.peeling is None:
            _same_peeling(q, f)
            continue
        value = metric.value(f, ctx)
        if q.beaten:
            assert value >= q.value_floor - 1e-12 and value > cutoff
        else:
            assert not q.satisfies and not f.satisfies and budget < q.cells <= f.cells


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from(["precision", "loss", "dm", "entropy", "height"]))
def test_optimal_search_picks_the_same_node(problem, metric):
    """The whole optimal search on random tables: the same node (ties included) and the same release,
    byte for byte, with every shortcut (the step-down's start on the path too) as without."""
    frame, _rows, config, limit = problem
    algorithm = get_algorithm("optimal", suppression_limit=limit, metric=metric, suppress="cells")
    table = Table.from_frame(frame)
    try:
        fast = algorithm.run(table, config)
    except InfeasibleError:
        with plain(), pytest.raises(InfeasibleError):
            algorithm.run(table, config)
        return
    with plain():
        slow = algorithm.run(table, config)
    assert fast.transformation == slow.transformation
    assert csv_bytes(fast.release) == csv_bytes(slow.release)


def _adult_release(frame, hierarchies, k, limit, metric, models=None):
    config = AnonymizationConfig(
        tuple(ADULT_QI),
        {q: hierarchies[q] for q in [*ADULT_QI, "occupation"]},
        models or (KAnonymity(k),),
        sensitive=("occupation",) if models else (),
    )
    algorithm = get_algorithm("optimal", suppression_limit=limit, metric=metric, suppress="cells")
    return algorithm.run(Table.from_frame(frame), config)


@pytest.mark.parametrize(
    ("rows", "k", "limit", "metric", "diverse"),
    [
        (4000, 5, 0.05, "precision", False),
        (4000, 2, 0.02, "precision", False),
        (4000, 10, 0.05, "loss", False),
        (3000, 5, 0.05, "precision", True),
    ],
)
def test_adult_release_byte_for_byte(adult_frame, adult_hierarchies, rows, k, limit, metric, diverse):
    """Adult's first records under the optimal search: the same node and the same release, byte for
    byte, with the shortcuts as without; every class of the release (``*`` a value of its own) at
    least k records and l-diverse by the pandas checker, every record kept."""
    frame = adult_frame.head(rows).reset_index(drop=True)
    models = (KAnonymity(k), DistinctLDiversity(3, "occupation")) if diverse else None
    fast = _adult_release(frame, adult_hierarchies, k, limit, metric, models)
    with plain():
        slow = _adult_release(frame, adult_hierarchies, k, limit, metric, models)
    assert fast.transformation == slow.transformation
    assert csv_bytes(fast.release) == csv_bytes(slow.release)
    assert fast.recoding.suppressed_cells == slow.recoding.suppressed_cells
    dicts = [m.to_dict() for m in (models or (KAnonymity(k),))]
    rows_by_qi = {q: adult_hierarchies[q].rows() for q in ADULT_QI}
    ok, why = ref.cell_release_check(fast.release, frame, list(ADULT_QI), rows_by_qi, dicts)
    assert ok, why
    sizes = fast.release.groupby(list(ADULT_QI), dropna=False).size()
    assert len(fast.release) == len(frame) and int(sizes.min()) >= k
    assert fast.recoding.suppressed_cells <= cell_budget(len(frame), len(ADULT_QI), limit)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=5),
    st.integers(0, 2**31 - 1),
    st.integers(1, 5),
    st.sampled_from([1.0, 0.1, 1 / 3]),
)
def test_sorted_cost_order_is_the_heap_walk(heights, seed, every, scale):
    """A small lattice sorted once per reseed visits the nodes in the heap walk's order, ties and
    float sums included, also when the costs change part-way (reseeds that skip visited nodes)."""

    def walk(sorted_nodes: int) -> list[tuple[int, ...]]:
        rng = np.random.default_rng(seed)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(peeling, "SORTED_NODES", sorted_nodes)
            order = CostOrder(np.array(heights))

        def costs() -> list[np.ndarray]:  # small integers times a scale: many ties and rounded sums
            return [np.sort(rng.integers(0, 3, h + 1)) * scale for h in heights]

        order.reseed(costs())
        out = []
        for i, node in enumerate(order):
            out.append(node)
            if i % every == every - 1:
                order.reseed(costs())
        return out

    heap, by_sort = walk(0), walk(10**9)
    assert by_sort == heap
    assert len(heap) == int(np.prod(np.array(heights) + 1))
