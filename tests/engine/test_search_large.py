"""The large-lattice code path of the exact search (tagging by walking the lattice, bounds passed up height
by height) finds the brute-force optimum too: small random problems forced onto that path."""

from __future__ import annotations

import math
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.data.table import Table
from kanon_engine.errors import InfeasibleError
from tests.engine import reference as ref
from tests.engine.test_algorithms import _config, _models, problems


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["dm", "precision", "dm-star"]))
def test_walking_path_finds_the_brute_force_optimum(problem, metric):
    frame, rows_by_qi, k, kind, limit = problem
    models = _models(kind, k)
    config = _config(rows_by_qi, models)
    max_supp = int(math.floor(limit * len(frame) + 1e-9))
    nodes = ref.brute_force(frame, rows_by_qi, [m.to_dict() for m in models], max_supp)
    satisfying = [nd for nd in nodes if nd["satisfies"]]
    with (
        mock.patch("kanon_engine.algorithms.search.DENSE_TAGGING_NODES", 0),
        mock.patch("kanon_engine.core.lattice.DENSE_TAGGING_NODES", 0),
    ):
        algo = get_algorithm("optimal", suppression_limit=limit, metric=metric)
        if not satisfying:
            with pytest.raises(InfeasibleError):
                algo.run(Table.from_frame(frame), config)
            return
        result = algo.run(Table.from_frame(frame), config)
    chosen = next(nd for nd in nodes if nd["levels"] == tuple(result.transformation.values()))
    assert chosen["satisfies"]
    assert chosen[metric] == pytest.approx(min(nd[metric] for nd in satisfying), rel=1e-9, abs=1e-9)
