"""A sensitive attribute's values are numbers only when every value reads as one in some way of writing
numbers; the shortcut that skips the readers when a value holds a letter or a sign no number has
(``_some_not_a_number``) must never change that verdict or the order (hypothesis, on strings mixing
digits, separators, signs and letters)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kanon_engine.core.encoding import sensitive_order
from kanon_engine.data.types import parse_numbers

ALPHABET = "0123456789+-.,' \u00a0eEinfK<=>a"


def _full_order(uniques: np.ndarray) -> tuple[tuple[str, ...], np.ndarray, bool]:
    """The order without the shortcut: every value read in every way of writing numbers."""
    numbers = pd.Series(parse_numbers(uniques))
    if not (bool(numbers.notna().all()) and len(uniques) > 0):
        return tuple(uniques), np.arange(len(uniques), dtype=np.int64), False
    order = np.argsort(numbers.to_numpy(dtype=float), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return tuple(uniques[order]), rank.astype(np.int64), True


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(ALPHABET, min_size=0, max_size=7), min_size=1, max_size=6, unique=True))
@example(["<=50K", ">50K"])
@example(["1\u00a0000,5", "2 000", "-3"])
@example(["1e3", "inf", "7"])
def test_the_shortcut_keeps_the_verdict_and_the_order(values):
    uniques = np.asarray(sorted(values), dtype=object)
    ordered, rank, numeric = sensitive_order(uniques)
    expected = _full_order(uniques)
    assert numeric == expected[2]
    assert ordered == expected[0]
    assert np.array_equal(rank, expected[1])
