"""DuckDB reading a Parquet file itself gives exactly the values kanon's reader gives (leading zeros, empty
text missing, integers as digits), counts the same points, writes the same releases, and reads no other
file."""

from __future__ import annotations

from unittest import mock

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.data.io import read_table
from kanon_engine.data.stream import text_batches
from kanon_engine.project.project_file import Project
from kanon_engine.sources.backends.base import (
    ColumnCoding,
    CountRequest,
    encode_batch,
    group_codes,
    value_counts_of,
)
from kanon_engine.sources.backends.duckdb_source import DuckDBSource
from tests.engine.test_sources import assert_same_everywhere, point_algorithms


def _awkward_parquet(path) -> None:
    """Values a text reader could change: leading zeros, empty and missing cells, quotes, commas, line
    breaks, spaces, non-ASCII text, negative and missing integers."""
    rng = np.random.default_rng(1)
    texts = np.array(["01063", "1063", "", " 01063", "Zürich", 'say "hi"', "a,b", "line\nbreak", "0", "*"])
    n = 5000
    text = [None if i % 97 == 0 else str(texts[j]) for i, j in enumerate(rng.integers(0, len(texts), n))]
    ints = [None if i % 89 == 0 else int(v) for i, v in enumerate(rng.integers(-50, 50, n))]
    table = pa.table(
        {
            "zip": pa.array(text, pa.string()),
            "big": pa.array(text, pa.large_string()),
            "dict": pa.array(text, pa.string()).dictionary_encode(),
            "n64": pa.array(ints, pa.int64()),
            "n8": pa.array([None if v is None else v % 100 for v in ints], pa.int8()),
            "ratio": pa.array(rng.random(n).round(2), pa.float64()),
        }
    )
    pq.write_table(table, path, row_group_size=1000)


def test_duckdb_reads_parquet_values_exactly_as_kanons_reader(tmp_path):
    path = tmp_path / "awkward.parquet"
    _awkward_parquet(path)
    with DuckDBSource(path, temp_dir=tmp_path) as duck:
        direct = ["zip", "big", "dict", "n64", "n8"]
        assert duck._read_directly(direct) is not None
        assert duck._read_directly(["ratio"]) is None  # a float: read in batches, as kanon's reader does
        expected = value_counts_of(text_batches(duck.file, direct + ["ratio"]), direct + ["ratio"])
        for name in direct + ["ratio"]:
            values, counts, missing = duck.value_counts(name)
            want_values, want_counts, want_missing = expected[name]
            assert list(values) == list(want_values), name
            assert counts.tolist() == want_counts.tolist() and missing == want_missing, name
        assert "01063" in set(duck.value_counts("zip")[0]) and "1063" in set(duck.value_counts("zip")[0])
        assert "" not in set(duck.value_counts("zip")[0])  # empty text is a missing cell


def test_duckdb_encodes_and_counts_the_parquet_rows_as_the_batches_do(tmp_path):
    path = tmp_path / "awkward.parquet"
    _awkward_parquet(path)
    with DuckDBSource(path, temp_dir=tmp_path) as duck:
        names = ["zip", "dict", "n8"]
        codings = []
        for name in names:
            values, _counts, missing = duck.value_counts(name)
            codes = np.random.default_rng(len(name)).permutation(len(values)).astype(np.int32)
            codings.append(
                ColumnCoding(name, tuple(values), codes, len(values) if missing else -1, len(values) + 1)
            )
        request = CountRequest(tuple(codings))
        counted = duck.count(request)
        assert duck._codes_key is not None and duck.n_rows == 5000
        rows = np.concatenate(
            [encode_batch(b, tuple(codings)) for b in text_batches(duck.file, names)], axis=1
        )
        expected = group_codes(rows, request.sizes)
        assert np.array_equal(counted.codes, expected.codes)
        assert np.array_equal(counted.counts, expected.counts)
        assert duck.distinct_count(request) == expected.n_points


def test_sample_project_from_parquet_same_results(sample_dir, tmp_path):
    project = Project.load(sample_dir / "sample_project.json")
    csv_table, _ = project.load_table()
    path = tmp_path / "sample.parquet"
    pq.write_table(pa.Table.from_pandas(csv_table.frame.astype(object), preserve_index=False), path)
    table = read_table(path)
    config = project.config(table)
    with DuckDBSource(path, temp_dir=tmp_path) as duck:
        assert duck._read_directly(list(config.quasi_identifiers)) is not None
    assert_same_everywhere(table, path, config, point_algorithms(), tmp_path, batch_rows=50)


def test_duckdb_may_read_the_users_parquet_file_and_no_other(tmp_path):
    path = tmp_path / "awkward.parquet"
    _awkward_parquet(path)
    other = tmp_path / "other.parquet"
    _awkward_parquet(other)
    with DuckDBSource(path, temp_dir=tmp_path) as duck:
        assert duck.value_counts("zip")[2] > 0
        for sql in (
            f"SELECT count(*) FROM read_parquet('{other}')",
            f"COPY (SELECT 1) TO '{tmp_path / 'leak.csv'}'",
            "SELECT * FROM read_csv('/etc/hostname')",
            "SET enable_external_access = true",
        ):
            with pytest.raises(duckdb.Error):
                duck.con.execute(sql)
    assert not (tmp_path / "leak.csv").exists()


@pytest.mark.parametrize("name", ["optimal", "datafly"])
def test_points_at_a_floor_give_the_in_memory_release(adult_dir, adult_hierarchies, tmp_path, name):
    """More leaf combinations than the budget: the points are counted at a floor (chosen from the value
    counts' prediction), nodes below it are settled through the floor or by the engine, and the release is
    the in-memory one, byte for byte."""
    from kanon_engine.config import AnonymizationConfig
    from kanon_engine.privacy.models import KAnonymity
    from kanon_engine.sources.plan import points
    from tests.conftest import ADULT_QI
    from tests.engine.test_sources import figures, release_bytes

    path = adult_dir / "adult.csv"
    table = read_table(path)
    config = AnonymizationConfig(
        tuple(ADULT_QI), {q: adult_hierarchies[q] for q in ADULT_QI}, (KAnonymity(20),)
    )
    algo = get_algorithm(name, suppression_limit=0.01)
    mem = algo.run(table, config)
    checks = []
    original = DuckDBSource.small_classes

    def spy(self, request, k, progress=None):
        checks.append(request)
        return original(self, request, k)

    with (
        mock.patch.object(points, "POINT_BUDGET", 500),
        mock.patch.object(DuckDBSource, "small_classes", spy),
        DuckDBSource(path, table.options, temp_dir=tmp_path) as duck,
    ):
        big = algo.run(duck, config)
        a, b = figures(big), figures(mem)
        # the NCP of points at a floor adds the same terms in another order: equal up to rounding
        assert a.pop("metrics") == pytest.approx(b.pop("metrics"), rel=1e-12)
        assert a == b
        assert release_bytes(duck, big, tmp_path / "duck.csv") == release_bytes(
            table, mem, tmp_path / "mem.csv"
        )
    assert checks or name != "optimal"  # optimal checked nodes below the floor by the engine


def test_read_ahead_keeps_the_order_raises_the_readers_error_and_stops_with_the_writer():
    import threading

    from kanon_engine.sources.plan.sink import read_ahead

    assert list(read_ahead(iter(range(50)))) == list(range(50))

    def failing():
        yield 1
        raise ValueError("the file ended early")

    got = []
    with pytest.raises(ValueError, match="ended early"):
        for item in read_ahead(failing()):
            got.append(item)
    assert got == [1]

    closed = threading.Event()

    def endless():
        try:
            i = 0
            while True:
                yield i
                i += 1
        finally:
            closed.set()

    stream = read_ahead(endless())
    assert [next(stream) for _ in range(3)] == [0, 1, 2]
    stream.close()  # the writer stopped: the reading thread ends and closes its source
    assert closed.wait(5)
    assert not any(t.name == "kanon-release-read-ahead" for t in threading.enumerate())


def test_a_parquet_file_named_relative_to_the_working_folder_is_read_by_duckdb(tmp_path, monkeypatch):
    _awkward_parquet(tmp_path / "awkward.parquet")
    monkeypatch.chdir(tmp_path)
    with DuckDBSource("awkward.parquet", temp_dir=tmp_path) as duck:
        expected = value_counts_of(text_batches(duck.file, ["zip"]), ["zip"])["zip"]
        values, counts, missing = duck.value_counts("zip")
        assert list(values) == list(expected[0]) and counts.tolist() == expected[1].tolist()
        assert missing == expected[2]
