"""delta-disclosure's floor (``delta_disclosure.forced_out``): the share of a class's records that every
split of it suppresses never exceeds what the best split of the class suppresses, found by brute force
over every split of small classes (a split keeps the parts that pass delta-disclosure and suppresses the
rest, as a specialization of the node does)."""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.privacy.delta_disclosure import forced_out


def _least_suppressed(counts: tuple[int, ...], q: tuple[float, ...], delta: float) -> int:
    """The fewest records any split of a class with these value counts suppresses."""

    def passes(part: tuple[int, ...]) -> bool:
        size = sum(part)
        return all(abs(math.log(c / size / s) / math.log(2.0)) < delta for c, s in zip(part, q) if c)

    @cache
    def least(rest: tuple[int, ...]) -> int:
        if not any(rest):
            return 0
        best = sum(rest)
        for part in itertools.product(*(range(c + 1) for c in rest)):
            if any(part):
                cost = 0 if passes(part) else sum(part)
                best = min(best, cost + least(tuple(r - c for r, c in zip(rest, part))))
        return best

    return least(counts)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(any),
    st.lists(st.integers(1, 20), min_size=3, max_size=3),
    st.floats(0.2, 2.5),
)
def test_the_floor_is_at_most_the_best_split(counts, weights, delta) -> None:
    q = tuple(w / sum(weights) for w in weights)
    present = [v for v, c in enumerate(counts) if c]
    size = sum(counts)
    cls = np.zeros(len(present), dtype=np.int64)
    p = np.array([counts[v] / size for v in present])
    top = np.array([q[v] for v in present]) * 2.0**delta
    floor = forced_out(cls, p, top, 1)[0] * size
    assert floor <= _least_suppressed(tuple(counts), q, delta) + 1e-9


def test_the_joint_floor_exceeds_each_value_alone() -> None:
    """Two values each a little over their caps: together they force out more than either alone."""
    cls = np.zeros(3, dtype=np.int64)
    p = np.array([0.45, 0.45, 0.10])
    top = np.array([0.4, 0.4, 0.9])
    alone = (0.45 - 0.4) / (1 - 0.4)
    joint = (0.9 - 0.8) / (1 - 0.8)
    assert forced_out(cls, p, top, 1)[0] > alone
    assert abs(forced_out(cls, p, top, 1)[0] - joint) < 1e-8
