"""Quasi-identifiers whose domains multiply past 2**63 (issue 30): combinations are numbered by those that
occur (:mod:`kanon_engine.sources.plan.combination_keys`), never by the product of the domain sizes, so
every algorithm answers on such a table, on every engine, with the same release.

The table: 12 quasi-identifiers whose hierarchies have 4,000 leaves each (4000**12 = 1.7e43 possible
combinations), 1,500 records drawn from 120 patterns with a few records off their pattern."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import algorithms, get_algorithm
from kanon_engine.algorithms.heuristic import AnytimeSearch
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.io import read_table
from kanon_engine.hierarchy import interval_hierarchy
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.sources.plan.combination_keys import MAX_KEY_SPACE, CombinationKeys
from tests.engine.test_sources import assert_same_everywhere, check_release_independently, point_algorithms

N_QI, LEAVES, ROWS = 12, 4000, 1500
QI = tuple(f"q{i}" for i in range(N_QI))
#: The lattice searches get hierarchies of one level (value, then *: 4,096 transformations, within the
#: exhaustive searches' limit); the others nested intervals (4**12 = 16.8 million transformations).
SHALLOW = ("optimal", "samarati", "incognito")


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    rng = np.random.default_rng(30)
    patterns = rng.integers(0, LEAVES, size=(120, N_QI))
    rows = patterns[rng.integers(0, len(patterns), ROWS)]
    off = rng.random(ROWS) < 0.04
    rows[off, 0] = rng.integers(0, LEAVES, int(off.sum()))
    frame = pd.DataFrame({q: rows[:, i].astype(str) for i, q in enumerate(QI)})
    path = tmp_path_factory.mktemp("wide") / "wide.csv"
    frame.to_csv(path, index=False)
    leaves = [str(v) for v in range(LEAVES)]
    deep = {q: interval_hierarchy(q, leaves, (100, 1000)) for q in QI}
    flat = {q: Hierarchy.from_rows(q, [[v, "*"] for v in leaves]) for q in QI}
    return read_table(path), path, deep, flat


def _config(hierarchies: dict) -> AnonymizationConfig:
    return AnonymizationConfig(QI, hierarchies, (KAnonymity(4),))


def test_the_domains_multiply_past_64_bits(wide):
    _table, _path, deep, flat = wide
    for hs in (deep, flat):
        assert math.prod(len(h.values) for h in hs.values()) > 2**63


@pytest.mark.parametrize("name", point_algorithms())  # SafePub (random, DP only) has its own tests
def test_every_algorithm_answers_in_memory_and_on_duckdb(wide, name, tmp_path, monkeypatch):
    table, path, deep, flat = wide
    # the heuristic stops after a fixed number of checks, not at a time (the same release on both engines)
    monkeypatch.setattr(AnytimeSearch, "out_of_time", lambda self: self.checks >= 60)
    config = _config(flat if name in SHALLOW else deep)
    assert_same_everywhere(table, path, config, [name], tmp_path)


@pytest.mark.parametrize("name", [n for n, c in algorithms().items() if getattr(c, "cell_level", False)])
def test_cell_level_algorithms_answer(wide, name, tmp_path):
    from kanon_engine.release.export import export_release

    table, _path, deep, flat = wide
    # local recoding walks every level of its lattice: the two-level hierarchies keep its test short (the
    # domains still multiply past 2^63); local suppression needs none
    config = _config(flat if name == "local-recoding" else deep)
    result = get_algorithm(name).run(table, config)
    export_release(table, result, tmp_path / "release.csv")
    check_release_independently(tmp_path / "release.csv", config)


@pytest.mark.slow
def test_dask_gives_the_same_releases(wide, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from kanon_engine.release.export import export_release
    from kanon_engine.sources.backends.dask_source import DaskSource
    from tests.engine.test_sources import figures

    table, path, deep, flat = wide
    monkeypatch.setattr(AnytimeSearch, "out_of_time", lambda self: self.checks >= 60)
    source = DaskSource(path, workers=2)
    try:
        for name, params in (
            ("optimal", {"suppression_limit": 0.05}),
            ("heuristic", {"suppression_limit": 0.05}),
            ("datafly", {"suppression_limit": 0.05}),
            ("mondrian", {}),
        ):
            config = _config(flat if name in SHALLOW else deep)
            algo = get_algorithm(name, **params)
            mem, dask = algo.run(table, config), algo.run(source, config)
            assert figures(dask) == figures(mem), name
            a = export_release(table, mem, tmp_path / "mem.csv")
            b = export_release(source, dask, tmp_path / "dask.csv")
            assert a.sha256 == b.sha256, name
    finally:
        source.close()


# --- the keys themselves -------------------------------------------------------------------------------
def _mixed_radix(codes: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    key = np.zeros(codes.shape[1], dtype=object)
    for col, size in zip(codes, sizes):
        key = key * size + col.astype(object)
    return key


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 1 << 20), min_size=1, max_size=9),
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(0, 300),
)
def test_keys_sort_as_the_combinations_and_find_only_them(sizes, seed, m):
    rng = np.random.default_rng(seed)
    sizes = tuple(sizes)
    # few distinct values per column, so that combinations repeat
    pools = [rng.integers(0, s, 3) for s in sizes]
    codes = np.stack([pool[rng.integers(0, 3, m)] for pool in pools]).astype(np.int32).reshape(len(sizes), m)
    coder, keys = CombinationKeys.of(codes, sizes)
    exact = _mixed_radix(codes, sizes)  # Python integers: the order of the combinations
    # equal keys for equal combinations, and keys in the order of the combinations
    order = np.argsort(exact, kind="stable")
    assert (np.diff(keys[order]) >= 0).all()
    assert ((np.diff(keys[order]) == 0) == (np.diff(exact[order]) == 0)).all()
    assert (keys >= 0).all()
    if math.prod(sizes) < MAX_KEY_SPACE:  # no cut: the mixed-radix numbers themselves
        assert not coder.cuts and keys.tolist() == exact.tolist()
    # the same combinations get the same keys; others none
    assert (coder.keys(codes) == keys).all()
    other = codes.copy()
    if m and coder.cuts:
        j = coder.cuts[0][0] - 1  # a column before the first cut, set to a value none of them has
        if sizes[j] > 3:
            other[j, 0] = next(v for v in range(sizes[j]) if v not in set(codes[j].tolist()))
            assert coder.keys(other)[0] == -1
