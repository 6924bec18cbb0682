"""A node settled from a sample of its source's classes (too many classes to keep within the suppression
limit) truly fails, with at least the suppression it claims, and the searches choose what they choose
without the shortcut."""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import encode_table
from kanon_engine.core.evaluation import NodeEvaluator
from kanon_engine.core.lattice import Lattice
from kanon_engine.data.table import Table
from kanon_engine.errors import InfeasibleError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy.models import KAnonymity
from tests.engine import reference as ref
from tests.engine.test_algorithms import _config, _models, problems

#: the shortcut on the smallest tables: a sample as large as the classes that prove a node fails
EVERYWHERE = {"_SAMPLE_FACTOR": 1, "_SAMPLE_MIN_SHARE": 1, "_SAMPLE_MIN_CLASSES": 0}


def _patched(**values):
    return mock.patch.multiple("kanon_engine.core.evaluation", **values)


def _random_table(n: int, seed: int) -> tuple[Table, dict[str, Hierarchy]]:
    """Four quasi-identifiers with tree hierarchies of 3 levels (leaves, tens or pairs, ``*``)."""
    rng = np.random.default_rng(seed)
    sizes = {"a": 60, "b": 40, "c": 12, "d": 6}
    frame = pd.DataFrame({q: [f"{q}{v}" for v in rng.integers(0, s, n)] for q, s in sizes.items()})
    hierarchies = {
        q: Hierarchy.from_rows(q, [[f"{q}{v}", f"{q}g{v // (10 if s > 12 else 2)}", "*"] for v in range(s)])
        for q, s in sizes.items()
    }
    return Table.from_frame(frame), hierarchies


def test_every_node_settled_by_a_sample_fails_with_at_least_the_claimed_suppression():
    table, hierarchies = _random_table(20_000, seed=3)
    enc = encode_table(table, tuple(hierarchies), hierarchies)
    models = (KAnonymity(20),)
    max_suppressed = 200
    lattice = Lattice(enc.heights, enc.qi)
    reference = NodeEvaluator(enc, models, max_suppressed)
    settled = 0
    with _patched(_SAMPLE_MIN_CLASSES=1000):
        sampled = NodeEvaluator(enc, models, max_suppressed)
        for index in range(lattice.size):
            levels = lattice.node(index)
            ev = sampled.evaluate(levels)
            truth = reference.evaluate(levels, complete=True)
            if ev.bounded:
                assert ev.satisfies == truth.satisfies
                continue
            settled += 1
            # the classes of k-anonymity counted on every record, independently of the evaluator
            codes = [enc.level_maps[q][lv][enc.codes[q]] for q, lv in enumerate(levels)]
            _keys, counts = np.unique(np.stack(codes), axis=1, return_counts=True)
            suppressed = int(counts[counts < 20].sum())
            assert not ev.satisfies and not truth.satisfies
            assert suppressed >= ev.suppressed_floor > max_suppressed
            assert len(counts) - len(enc.codes[0]) // 20 >= ev.suppressed_floor
    assert settled >= 5  # the bottom of this lattice: nearly every record its own class


@pytest.mark.parametrize("name", ["optimal", "samarati", "datafly", "heuristic"])
def test_searches_choose_the_same_node_with_and_without_samples(name):
    table, hierarchies = _random_table(20_000, seed=5)
    config = AnonymizationConfig(tuple(hierarchies), hierarchies, (KAnonymity(20),))
    params = {"suppression_limit": 0.01}
    with _patched(_SAMPLE_MIN_CLASSES=10**12):
        plain = get_algorithm(name, **params).run(table, config)
    settled = []
    original = NodeEvaluator._fails_by_class_count

    def counting(self, levels, source):
        ev = original(self, levels, source)
        settled.append(ev is not None)
        return ev

    with (
        _patched(_SAMPLE_MIN_CLASSES=1000),
        mock.patch.object(NodeEvaluator, "_fails_by_class_count", counting),
    ):
        sampled = get_algorithm(name, **params).run(table, config)
    assert any(settled)  # the shortcut was taken
    assert sampled.transformation == plain.transformation
    assert sampled.suppressed == plain.suppressed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["dm", "precision"]))
def test_optimal_with_the_shortcut_everywhere_finds_the_brute_force_optimum(problem, metric):
    frame, rows_by_qi, k, kind, limit = problem
    models = _models(kind, k)
    config = _config(rows_by_qi, models)
    max_supp = int(math.floor(limit * len(frame) + 1e-9))
    nodes = ref.brute_force(frame, rows_by_qi, [m.to_dict() for m in models], max_supp)
    satisfying = [nd for nd in nodes if nd["satisfies"]]
    algo = get_algorithm("optimal", suppression_limit=limit, metric=metric)
    with _patched(**EVERYWHERE):
        if not satisfying:
            with pytest.raises(InfeasibleError):
                algo.run(Table.from_frame(frame), config)
            return
        result = algo.run(Table.from_frame(frame), config)
    chosen = next(nd for nd in nodes if nd["levels"] == tuple(result.transformation.values()))
    assert chosen["satisfies"]
    assert chosen[metric] == pytest.approx(min(nd[metric] for nd in satisfying), rel=1e-9, abs=1e-9)
