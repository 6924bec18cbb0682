"""Mondrian past the memory budget: the first cuts by the engine, the rest in memory per box
(:mod:`kanon_engine.algorithms.mondrian.engine`).

With the budget forced low, tables small enough to run both ways show that strict Mondrian makes the
same partitions (hence the same release bytes) as the plain in-memory run, that every engine (memory,
DuckDB, Dask) gives the same bytes, and a plain-pandas check of the written release finds no class
below k.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.mondrian import engine as mondrian_engine
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.io import read_table
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.privacy.models import DistinctLDiversity, KAnonymity
from kanon_engine.release.export import ExportOptions, export_release
from kanon_engine.sources import InMemorySource
from kanon_engine.sources.backends.duckdb_source import DuckDBSource
from kanon_engine.sources.plan import points
from kanon_engine.sources.plan.guard import TableChanged
from tests.conftest import ADULT_QI
from tests.engine.test_sources import check_release_independently

#: Figures that may differ between a run cut by the engine and a plain run: the engine, the time, and
#: the last bits of the averaged losses (summed over the partitions in another order).
LOOSE = ("engine", "runtime_seconds", "release_file", "metrics")


def _budget(monkeypatch, n: int, share: int = 1) -> None:
    """Points held in memory, and the share of it a box holds when Mondrian finishes it in memory (1:
    boxes as large as the budget, so the levels below are those of the budget alone)."""
    monkeypatch.setattr(points, "POINT_BUDGET", n)
    monkeypatch.setattr(mondrian_engine, "BOX_SHARE", share)


def _levels(source, monkeypatch) -> list[int]:
    """Record the boxes of every pass the engine makes to cut (one entry per level)."""
    seen: list[int] = []
    original = source.box_histograms

    def spy(boxes, progress=None):
        seen.append(boxes.n_boxes)
        return original(boxes) if progress is None else original(boxes, progress)

    monkeypatch.setattr(source, "box_histograms", spy)
    return seen


def _figures(result, strict_keys: bool = True) -> dict:
    drop = LOOSE if not strict_keys else LOOSE[:3]
    out = {k: v for k, v in result.summary().items() if k not in drop}
    return json.loads(json.dumps(out, default=float))


def _release(source, result, path: Path, **options) -> bytes:
    export_release(source, result, path, ExportOptions(**options))
    return path.read_bytes()


def _adult_config(adult_hierarchies, k: int = 5) -> AnonymizationConfig:
    hs = {q: adult_hierarchies[q] for q in ADULT_QI}
    return AnonymizationConfig(tuple(ADULT_QI), hs, (KAnonymity(k),))


def check_classes_independently(path: Path, qi, k: int) -> None:
    """Plain pandas on the written file: every combination of released quasi-identifier values holds at
    least k records (Mondrian suppresses nothing)."""
    release = pd.read_csv(path, dtype=str, keep_default_na=False)
    sizes = release.groupby(list(qi), sort=False).size()
    assert len(release) and sizes.min() >= k, sizes.min()


@pytest.mark.parametrize(
    "budget,levels,share", [(12_000, 2, 1), (6_000, 4, 1), (4_000, 7, 1), (12_000, 8, 4)]
)
def test_strict_cut_by_the_engine_equals_the_plain_run(
    adult_dir, adult_hierarchies, monkeypatch, tmp_path, budget, levels, share
):
    """2 to 8 levels of cuts by the engine (30,162 records, 12,458 points; strict cuts of Adult are
    uneven): the same partitions as the plain in-memory run (same classes, sizes, cuts and release
    bytes; the losses equal up to rounding)."""
    table = read_table(adult_dir / "adult.csv")
    config = _adult_config(adult_hierarchies)
    plain = get_algorithm("mondrian").run(table, config)
    _budget(monkeypatch, budget, share)
    source = InMemorySource(table)
    seen = _levels(source, monkeypatch)
    cut = get_algorithm("mondrian").run(source, config)
    assert len(seen) == levels
    assert _figures(cut, False) == _figures(plain, False)
    for key, value in plain.metrics.items():
        assert cut.metrics[key] == pytest.approx(value, rel=1e-12), key
    assert np.array_equal(cut.class_sizes, plain.class_sizes)
    assert _release(table, cut, tmp_path / "cut.csv") == _release(table, plain, tmp_path / "plain.csv")
    check_classes_independently(tmp_path / "cut.csv", ADULT_QI, config.k)


def test_strict_boxes_find_rows_by_the_cut_tree(adult_dir, adult_hierarchies, monkeypatch):
    """Strict boxes keep no points (only each box's cut tree), and a row matching no partition, as when
    the file changed after counting, is refused in one sentence, not released in a wrong class."""
    from kanon_engine.sources.plan.release_plan import BatchState, TreePartitionPlan

    table = read_table(adult_dir / "adult.csv")
    config = _adult_config(adult_hierarchies)
    _budget(monkeypatch, 6_000, 4)
    result = get_algorithm("mondrian").run(InMemorySource(table), config)
    plan = result.plan
    assert plan.parts and all(isinstance(p, TreePartitionPlan) for p in plan.parts)
    assert sum(len(p.counted.keys) for p in plan.parts) == 0
    codes = plan.codes_of(table.frame)
    assert np.bincount(plan.row_classes(codes, BatchState()), minlength=result.n_classes).tolist() == (
        result.class_sizes.tolist()
    )
    young = table.frame.copy()
    young.loc[0, "age"] = "17"  # the row moved: its keys now fall in no partition's bounds
    with pytest.raises(TableChanged, match="changed while it was being anonymized"):
        plan.row_classes(plan.codes_of(young), BatchState())


@pytest.mark.parametrize("name", ["mondrian", "mondrian-relaxed"])
def test_mean_summary_cut_by_the_engine(adult_dir, adult_hierarchies, monkeypatch, tmp_path, name):
    """The mean columns come from every box's sums: strict equals the plain run byte for byte; relaxed
    has the means of its own classes (checked with pandas on the written file)."""
    table = read_table(adult_dir / "adult.csv")
    config = _adult_config(adult_hierarchies)
    plain = get_algorithm(name, summary="mean").run(table, config)
    _budget(monkeypatch, 6_000)
    cut = get_algorithm(name, summary="mean").run(InMemorySource(table), config)
    a = _release(table, cut, tmp_path / "cut.csv")
    if name == "mondrian":
        assert a == _release(table, plain, tmp_path / "plain.csv")
    release = pd.read_csv(tmp_path / "cut.csv", dtype=str, keep_default_na=False)
    ages = pd.to_numeric(table.frame["age"])
    means = ages.groupby([release[q] for q in ADULT_QI]).transform("mean").round(4)
    assert np.allclose(pd.to_numeric(release["age_mean"]), means, atol=1e-4)


def test_one_level_on_distinct_rows(monkeypatch, tmp_path):
    """600 distinct records and a budget of 400: one cut by the engine, then memory; the same release
    as the plain run."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {"age": [str(a) for a in rng.permutation(600)], "sex": rng.choice(["F", "M"], 600).tolist()}
    )
    path = tmp_path / "distinct.csv"
    frame.to_csv(path, index=False)
    table = read_table(path)
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in ("age", "sex")}
    config = AnonymizationConfig(("age", "sex"), hs, (KAnonymity(3),))
    plain = get_algorithm("mondrian").run(table, config)
    _budget(monkeypatch, 400)
    source = InMemorySource(table)
    seen = _levels(source, monkeypatch)
    cut = get_algorithm("mondrian").run(source, config)
    assert seen == [1]
    assert _release(table, cut, tmp_path / "cut.csv") == _release(table, plain, tmp_path / "plain.csv")
    check_classes_independently(tmp_path / "cut.csv", ("age", "sex"), 3)


@pytest.mark.parametrize("name", ["mondrian", "mondrian-relaxed"])
def test_memory_and_duckdb_cut_alike(adult_dir, adult_hierarchies, monkeypatch, tmp_path, name):
    """The engine's cuts are the same in memory and in DuckDB: same figures, same bytes (CSV and
    Parquet, input order and shuffled), and no class below k in the written file."""
    path = adult_dir / "adult.csv"
    table = read_table(path)
    config = _adult_config(adult_hierarchies, k=10)
    _budget(monkeypatch, 5_000)
    algo = get_algorithm(name)
    mem = algo.run(InMemorySource(table), config)
    with DuckDBSource(path, table.options, batch_rows=4099, temp_dir=tmp_path) as duck:
        seen = _levels(duck, monkeypatch)
        big = algo.run(duck, config)
        assert len(seen) >= 3
        assert _figures(big) == _figures(mem)
        for options in ({}, {"shuffle": True, "shuffle_seed": 3}):
            for ext in ("csv", "parquet"):
                a = _release(table, mem, tmp_path / f"mem.{ext}", **options)
                b = _release(duck, big, tmp_path / f"duck.{ext}", **options)
                assert a == b, (ext, options)
    check_classes_independently(tmp_path / "duck.csv", ADULT_QI, config.k)
    check_release_independently(tmp_path / "duck.csv", config)


def test_relaxed_cut_by_the_engine_stays_close(adult_dir, adult_hierarchies, monkeypatch):
    """Relaxed Mondrian's cuts in the engine keep the median block whole: classes stay at least k, and
    DM and the average loss stay within a few percent of the plain run's (the docstring's figures)."""
    table = read_table(adult_dir / "adult.csv")
    config = _adult_config(adult_hierarchies)
    plain = get_algorithm("mondrian-relaxed").run(table, config)
    _budget(monkeypatch, 4_000)
    cut = get_algorithm("mondrian-relaxed").run(InMemorySource(table), config)
    assert cut.class_sizes.min() >= config.k and cut.class_sizes.sum() == table.n_rows
    for metric in ("discernibility", "gcp"):
        assert cut.metrics[metric] == pytest.approx(plain.metrics[metric], rel=0.05)


def test_models_the_engine_cannot_check_are_refused_in_one_sentence(
    adult_dir, adult_hierarchies, monkeypatch
):
    table = read_table(adult_dir / "adult.csv")
    hs = {q: adult_hierarchies[q] for q in ADULT_QI}
    config = AnonymizationConfig(
        tuple(ADULT_QI), hs, (KAnonymity(5), DistinctLDiversity(2, "occupation")), ("occupation",)
    )
    _budget(monkeypatch, 4_000)
    with pytest.raises(ConfigError) as err:
        get_algorithm("mondrian").run(InMemorySource(table), config)
    text = str(err.value)
    assert "k-anonymity only" in text and "\n" not in text


@st.composite
def random_tables(draw):
    n = draw(st.integers(8, 80))
    ages = draw(st.lists(st.integers(18, 40), min_size=n, max_size=n))
    sex = draw(st.lists(st.sampled_from(["F", "M", None]), min_size=n, max_size=n))
    zips = draw(st.lists(st.sampled_from(["02138", "02139", "1001", "=1+1", "-5"]), min_size=n, max_size=n))
    frame = pd.DataFrame({"id": [f"P{i}" for i in range(n)], "age": [str(a) for a in ages],
                          "sex": sex, "zip": zips})  # fmt: skip
    return frame, draw(st.integers(2, 4)), draw(st.integers(3, 30))


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(random_tables())
def test_random_tables_cut_by_the_engine(tmp_path, monkeypatch, problem):
    """Random small tables with a budget of a few records: strict equals the plain run byte for byte,
    and memory and DuckDB give the same bytes for both Mondrians."""
    frame, k, budget = problem
    path = tmp_path / "random.csv"
    frame.to_csv(path, index=False)
    table = read_table(path)
    qi = ("age", "sex", "zip")
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in qi}
    if table.n_rows < k:
        return
    config = AnonymizationConfig(qi, hs, (KAnonymity(k),), identifiers=("id",))
    plain = {name: get_algorithm(name).run(table, config) for name in ("mondrian", "mondrian-relaxed")}
    with monkeypatch.context() as m:
        m.setattr(points, "POINT_BUDGET", budget)
        with DuckDBSource(path, table.options, batch_rows=7, temp_dir=tmp_path) as duck:
            seen = _levels(duck, m)
            for name, first in plain.items():
                mem = get_algorithm(name).run(InMemorySource(table), config)
                big = get_algorithm(name).run(duck, config)
                a = _release(table, mem, tmp_path / "mem.csv")
                assert a == _release(duck, big, tmp_path / "duck.csv"), name
                assert _figures(big) == _figures(mem), name
                if name == "mondrian":
                    assert a == _release(table, first, tmp_path / "plain.csv")
                check_classes_independently(tmp_path / "duck.csv", qi, k)
            distinct = len(table.frame.drop_duplicates(list(qi)))
            assert bool(seen) == (distinct > budget and table.n_rows > budget)  # cut by the engine


@pytest.mark.slow
def test_dask_cuts_alike(adult_dir, adult_hierarchies, monkeypatch, tmp_path):
    """Dask (a LocalCluster of 2 workers) makes the same cuts and the same release."""
    pytest.importorskip("distributed")
    from kanon_engine.sources.backends.dask_source import DaskSource

    path = adult_dir / "adult.csv"
    table = read_table(path)
    config = _adult_config(adult_hierarchies, k=10)
    _budget(monkeypatch, 5_000)
    algo = get_algorithm("mondrian")
    mem = algo.run(InMemorySource(table), config)
    source = DaskSource(path, workers=2)
    try:
        dask = algo.run(source, config)
        assert _figures(dask) == _figures(mem)
        assert _release(source, dask, tmp_path / "dask.csv") == _release(table, mem, tmp_path / "mem.csv")
    finally:
        source.close()
    check_classes_independently(tmp_path / "dask.csv", ADULT_QI, config.k)


def test_box_histograms_and_counts_agree_with_pandas(adult_dir, adult_hierarchies, tmp_path):
    """The engine's two operations on random disjoint boxes (a cut of every key range in two): the
    records per (box, key) and the points of some boxes, in memory and DuckDB, against pandas."""
    from kanon_engine.algorithms.mondrian.algorithm import make_axes
    from kanon_engine.core.encoding import EncodedTable
    from kanon_engine.sources.backends.base import Boxes

    path = adult_dir / "adult.csv"
    table = read_table(path)
    config = _adult_config(adult_hierarchies)
    rng = np.random.default_rng(7)
    mem = InMemorySource(table)
    with DuckDBSource(path, table.options, temp_dir=tmp_path) as duck:
        results = []
        for source in (mem, duck):
            spec = points.point_spec(source, config, lambda f, m: None)
            n = len(spec.qi)
            light = EncodedTable(
                spec.qi, spec.hierarchies, np.zeros((n, 0), np.int32), leaf_counts=spec.leaf_counts
            )
            axes = make_axes(source, light)
            keys = tuple(ax.key_of_leaf.astype(np.int64) for ax in axes)
            cut = [
                int(rng.integers(0, ax.n_keys)) if results == [] else results[0][3][q]
                for q, ax in enumerate(axes)
            ]
            q1, q2 = 0, 3  # two attributes cut: four boxes
            lower = np.zeros((4, n), np.int64)
            upper = np.array([[ax.n_keys - 1 for ax in axes]] * 4, np.int64)
            upper[[0, 1], q1] = cut[q1]
            lower[[2, 3], q1] = cut[q1] + 1
            upper[[0, 2], q2] = cut[q2]
            lower[[1, 3], q2] = cut[q2] + 1
            boxes = Boxes(spec.codings[:n], keys, lower, upper)
            hist = source.box_histograms(boxes)
            counts = list(source.count_in_boxes(spec.request((0,) * n), boxes, [3, 1]))
            results.append((hist, counts, axes, cut))
        (h_mem, c_mem, axes, cut), (h_duck, c_duck, _a, _c) = results
    for a, b in zip(h_mem, h_duck):
        assert np.array_equal(a, b)
    for a, b in zip(c_mem, c_duck):
        assert np.array_equal(a.codes, b.codes) and np.array_equal(a.counts, b.counts)
    # pandas: the key of every record, its box, the records per (box, key)
    frame = table.frame
    key = {q: pd.Series(ax.key_of_leaf[config.hierarchies[q].encode(frame[q].to_numpy(dtype=object))])
           for q, ax in zip(ADULT_QI, axes)}  # fmt: skip
    box = (key[ADULT_QI[0]] > cut[0]).astype(int) * 2 + (key[ADULT_QI[3]] > cut[3]).astype(int)
    for j, q in enumerate(ADULT_QI):
        expected = pd.crosstab(box, key[q]).reindex(columns=range(axes[j].n_keys), fill_value=0)
        assert np.array_equal(h_mem[j], expected.reindex(index=range(4), fill_value=0).to_numpy())
    assert [int(c.counts.sum()) for c in c_mem] == [int((box == 3).sum()), int((box == 1).sum())]
    distinct = frame[box == 3].drop_duplicates(ADULT_QI)
    assert c_mem[0].n_points == len(distinct)


@pytest.mark.parametrize("batch", [1, 2, 3, 5, 100])
def test_boxes_streamed_from_sorted_batches(batch):
    """DuckDB's points of a pass arrive in sorted batches and are handed over box by box: the same
    points per box as from the whole table, whatever the batches, boxes without rows included."""
    import pyarrow as pa

    from kanon_engine.sources.backends.duckdb_source import _per_box

    box = np.array([0, 0, 0, 2, 2, 3, 3, 3, 3, 5])
    g0 = np.array([1, 2, 4, 0, 1, 1, 2, 3, 4, 9], dtype=np.int32)
    n = np.arange(1, 11, dtype=np.int64)
    table = pa.table({"b": box, "g0": g0, "n": n})
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=batch))
    got = list(_per_box(reader, 7, 1))
    assert len(got) == 7
    for b, counts in enumerate(got):
        assert counts.codes[0].tolist() == g0[box == b].tolist()
        assert counts.counts.tolist() == n[box == b].tolist()


def test_passes_hold_the_budget():
    from kanon_engine.algorithms.mondrian.engine import _passes

    assert _passes(np.array([3, 4, 5, 9, 1, 1]), 8) == [[0, 1], [2], [3], [4, 5]]
    assert _passes(np.array([8, 8]), 8) == [[0], [1]]


def test_streamed_run_past_the_budget_builds_no_viewer_boxes(
    adult_dir, adult_hierarchies, monkeypatch, tmp_path
):
    """A streamed run (DuckDB) past the budget keeps the partitions' sizes (the report's figures) but
    builds no boxes for the viewer (it needs the rows, which a streamed run does not hold); the same run
    on rows in memory builds one box per partition, with the released values the file shows; the bytes
    are the same."""
    path = adult_dir / "adult.csv"
    table = read_table(path)
    config = _adult_config(adult_hierarchies, k=10)
    _budget(monkeypatch, 5_000)
    mem = get_algorithm("mondrian").run(InMemorySource(table), config)
    with DuckDBSource(path, table.options, temp_dir=tmp_path) as duck:
        seen = _levels(duck, monkeypatch)
        big = get_algorithm("mondrian").run(duck, config)
        assert seen and not big.in_memory
        assert _release(duck, big, tmp_path / "duck.csv") == _release(table, mem, tmp_path / "mem.csv")
    part, boxes = big.partitions, mem.partitions
    assert len(part.lower) == len(part.upper) == 0 and part.labels == [] and part.classes is None
    assert np.array_equal(np.sort(part.sizes), np.sort(boxes.sizes)) and part.sizes.sum() == table.n_rows
    assert big.model == mem.model == "multidimensional"
    assert len(boxes.lower) == len(boxes.labels) == len(boxes.sizes) > 1
    release = pd.read_csv(tmp_path / "mem.csv", dtype=str, keep_default_na=False)
    shown = set(map(tuple, release[list(ADULT_QI)].to_numpy()))
    assert set(boxes.labels) == shown  # every partition's values are a combination the file shows


def test_coded_labels_are_the_factorized_strings(adult_dir, adult_hierarchies):
    """The released values as codes into distinct texts equal pandas' factorization of the strings (the
    same numbering, so the plan and the release are unchanged), on every kind of axis and on ranges
    that repeat and cover missing values."""
    from kanon_engine.algorithms.mondrian.algorithm import make_axes
    from kanon_engine.core.encoding import encode_table

    table = read_table(adult_dir / "adult.csv")
    config = _adult_config(adult_hierarchies)
    axes = make_axes(table, encode_table(table, config.quasi_identifiers, config.hierarchies))
    rng = np.random.default_rng(3)
    for ax in axes:
        a, b = rng.integers(0, ax.n_keys, 500), rng.integers(0, ax.n_keys, 500)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        codes, text = ax.coded_labels(lo, hi)
        ids, table_text = ax.label_ids(lo, hi)
        expected_codes, expected_text = pd.factorize(pd.Series(table_text[ids], dtype=object), sort=False)
        assert np.array_equal(codes, expected_codes) and list(text) == list(expected_text)
        assert len(set(text)) == len(text)
