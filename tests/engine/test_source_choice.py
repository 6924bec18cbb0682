"""The evaluator rolls a node up from the smallest cached frequency set of a node at or below it: the
packed comparison it uses (levels as fields of one integer, a guard bit each) picks what comparing the
levels one by one picks, on random sequences of checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.core.encoding import encode_table
from kanon_engine.core.evaluation import NodeEvaluator
from kanon_engine.data.table import Table
from kanon_engine.privacy import KAnonymity
from tests.engine.test_classification_bound import HIERARCHIES, LEVELS, QI


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 3), st.integers(0, 2)), min_size=5, max_size=60),
    st.lists(st.sampled_from(LEVELS), min_size=1, max_size=20),
)
def test_the_source_is_the_smallest_cached_set_below(rows, checked):
    frame = pd.DataFrame(
        {"a": [f"a{r[0]}" for r in rows], "b": [f"b{r[1]}" for r in rows], "c": [f"c{r[2]}" for r in rows]}
    )
    enc = encode_table(Table.from_frame(frame), QI, HIERARCHIES, ())
    evaluator = NodeEvaluator(enc, (KAnonymity(2),), 0)
    assert evaluator._width  # three shallow hierarchies fit in one integer
    for levels in checked:
        evaluator.evaluate(levels, complete=True)
    for levels in LEVELS:
        below = [e for e in evaluator._entries if all(x <= y for x, y in zip(e.levels, levels))]
        smallest = min((e.size for e in below), default=None)
        source = evaluator._source(levels)
        if smallest is None:
            assert source is evaluator.base
        else:
            assert all(x <= y for x, y in zip(source.levels, levels)) and source.size == smallest
        evaluator._width = 0  # the comparison one level at a time agrees
        assert evaluator._source(levels) is source
        evaluator._width = int(np.max(enc.heights)).bit_length() + 1
