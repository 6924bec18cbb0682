"""The engines' caches of encoded rows are keyed by what a coding says, never by ``id()``.

A DuckDB source kept the codes of a run and the groups of its last request under the ``id()`` of the
coding objects. Once a coding was freed, a new one with other codes landed on the same address and was
served the old one's counts: 2 groups instead of 4 (issue 28). Every engine is asked here, with codings
allocated so that CPython reuses the freed address, and must count each coding as it is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kanon_engine.data.table import Table
from kanon_engine.sources import InMemorySource
from kanon_engine.sources.backends.base import ColumnCoding, CountRequest, map_key
from kanon_engine.sources.backends.duckdb_source import DuckDBSource

VALUES = ("a", "b", "c", "d")
TWO_GROUPS = np.array([0, 0, 1, 1], np.int32)
FOUR_GROUPS = np.array([0, 1, 2, 3], np.int32)


@pytest.fixture
def csv_path(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("x\n" + "".join(f"{VALUES[i % 4]}\n" for i in range(40)), encoding="utf-8")
    return path


def _source(which: str, path):
    if which == "duckdb":
        return DuckDBSource(path)
    if which == "dask":
        pytest.importorskip("distributed")
        from kanon_engine.sources.backends.dask_source import DaskSource

        return DaskSource(path, workers=1)
    frame = pd.DataFrame({"x": [VALUES[i % 4] for i in range(40)]}, dtype="string[pyarrow]")
    return InMemorySource(Table(frame, source=path))


def _counts_after_reuse(source) -> tuple[list[int], int]:
    """Count a 2-group coding, free it, count a 4-group one (20 times); the groups of every second
    count, and how often the new coding landed on the freed one's address."""
    seen, reused = [], 0
    for _ in range(20):
        first = ColumnCoding("x", VALUES, TWO_GROUPS, -1, 2)
        assert source.count(CountRequest((first,))).n_points == 2
        old = id(first)
        del first
        second = ColumnCoding("x", VALUES, FOUR_GROUPS, -1, 4)
        seen.append(source.count(CountRequest((second,))).n_points)
        source.distinct_count(CountRequest((second,)))  # the kept groups are asked again
        reused += id(second) == old
        del second
    return seen, reused


@pytest.mark.parametrize("which", ["duckdb", "memory", pytest.param("dask", marks=pytest.mark.slow)])
def test_a_new_coding_on_a_freed_address_is_counted_afresh(csv_path, which):
    source = _source(which, csv_path)
    try:
        seen, reused = _counts_after_reuse(source)
    finally:
        source.close()
    assert reused > 0, "CPython did not reuse an address: the test did not reach the case it guards"
    assert seen == [4] * 20


def test_the_key_is_the_content():
    a = ColumnCoding("x", VALUES, TWO_GROUPS, -1, 2)
    assert a.key == ColumnCoding("x", VALUES, TWO_GROUPS.copy(), -1, 2).key
    assert a.key != ColumnCoding("x", VALUES, FOUR_GROUPS, -1, 4).key
    assert a.key != ColumnCoding("y", VALUES, TWO_GROUPS, -1, 2).key
    # values that only differ by where one ends and the next begins
    assert (
        ColumnCoding("x", ("ab", "c"), TWO_GROUPS[:2], -1, 1).key
        != ColumnCoding("x", ("a", "bc"), TWO_GROUPS[:2], -1, 1).key
    )
    assert map_key(None) is None and map_key(np.array([0, 1])) != map_key(np.array([1, 0]))
