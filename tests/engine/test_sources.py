"""Table sources: every engine gives the same release bytes and the same report figures.

The algorithms work on points counted by a source (:mod:`kanon_engine.sources.plan.points`); only counting and
writing touch rows, so a run in memory and a run on DuckDB (or Dask, tests/engine/test_dask_source.py)
must agree exactly: the summary of the run (every figure but the engine and the time) and the bytes of
the release for the same row-order option, on Adult, the bundled sample and random tables, for every
algorithm.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import algorithms, get_algorithm
from kanon_engine.algorithms.mondrian.algorithm import _CutChecker, make_axes, partition
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import encode_table
from kanon_engine.data.io import read_table
from kanon_engine.errors import InfeasibleError
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.privacy.models import DistinctLDiversity, KAnonymity, TCloseness
from kanon_engine.progress import no_progress
from kanon_engine.project.project_file import Project
from kanon_engine.release.export import ExportOptions, export_release
from kanon_engine.sources import InMemorySource
from kanon_engine.sources.backends.choose import choose_engine, open_source
from kanon_engine.sources.backends.duckdb_source import DuckDBSource
from kanon_engine.sources.backends.settings import EngineSettings
from kanon_engine.sources.plan.counting import count_points
from tests.conftest import ADULT_QI
from tests.engine.reference import class_groups, suppressed_rows

#: Parameters that make every algorithm find a release on the test tables.
PARAMS = {"optimal": {"suppression_limit": 0.05}, "samarati": {"suppression_limit": 0.05},
          "incognito": {"suppression_limit": 0.05}, "datafly": {"suppression_limit": 0.05}}  # fmt: skip
#: What may differ between engines: which engine ran, and how long it took.
ENGINE_KEYS = ("engine", "runtime_seconds", "release_file")


def check_release_independently(path: Path, config) -> None:
    """Read a streamed release back with pandas and check k (and distinct l) with the plain-pandas
    reference, not the engine's code: every class at least k records; suppressed records (all '*')
    either none or, with the suppressed group protected, at least k."""
    release = pd.read_csv(path, dtype=str, keep_default_na=False)
    qi = list(config.quasi_identifiers)
    # with the suppressed group protected, the all-'*' rows are a class like any other
    groups = release.groupby(qi, sort=False) if config.suppressed_group_k else class_groups(release, qi)
    sizes = groups.size()
    assert len(sizes) == 0 or sizes.min() >= config.k, path
    assert len(sizes) or suppressed_rows(release, qi).all()
    for model in config.models:
        if isinstance(model, DistinctLDiversity):
            distinct = class_groups(release, qi)[model.sensitive].nunique(dropna=False)
            assert len(distinct) == 0 or distinct.min() >= model.l


def point_algorithms() -> list[str]:
    """The algorithms that run on counted points (every engine); the cell-level ones (local recoding,
    local suppression) change single records and need the table in memory."""
    return [  # SafePub is random by design and applies differential privacy only (test_safepub.py)
        name
        for name, cls in algorithms().items()
        if not getattr(cls, "cell_level", False) and name != "safepub"
    ]


def figures(result) -> dict:
    """The run's summary without what legitimately differs between engines."""
    out = {k: v for k, v in result.summary().items() if k not in ENGINE_KEYS}
    return json.loads(json.dumps(out, default=float))


def release_bytes(source, result, path: Path, **options) -> bytes:
    export_release(source, result, path, ExportOptions(**options))
    return path.read_bytes()


def assert_same_everywhere(table, path: Path, config, names, tmp_path: Path, batch_rows: int = 997):
    """Run every algorithm in memory and on DuckDB (small batches: the stream crosses many batch
    boundaries); the figures and the release bytes (CSV and Parquet, masked and dropped, input order and
    shuffled) must be equal."""
    with DuckDBSource(path, table.options, batch_rows=batch_rows, temp_dir=tmp_path) as duck:
        for name in names:
            algo = get_algorithm(name, **PARAMS.get(name, {}))
            try:
                mem = algo.run(table, config)
            except InfeasibleError:
                with pytest.raises(InfeasibleError):
                    algo.run(duck, config)
                continue
            big = algo.run(duck, config)
            assert not big.in_memory and mem.in_memory
            assert figures(big) == figures(mem), name
            for options in ({}, {"suppressed": "drop"}, {"shuffle": True, "shuffle_seed": 11}):
                for ext in ("csv", "parquet"):
                    a = release_bytes(table, mem, tmp_path / f"mem.{ext}", **options)
                    b = release_bytes(duck, big, tmp_path / f"duck.{ext}", **options)
                    assert a == b, (name, ext, options)
            check_release_independently(tmp_path / "duck.csv", config)


def test_adult_every_algorithm_same_results(adult_dir, adult_hierarchies, tmp_path):
    path = adult_dir / "adult.csv"
    table = read_table(path)
    hs = {q: adult_hierarchies[q] for q in ADULT_QI}
    config = AnonymizationConfig(
        tuple(ADULT_QI), hs, (KAnonymity(5), DistinctLDiversity(2, "occupation")), ("occupation",)
    )
    assert_same_everywhere(table, path, config, point_algorithms(), tmp_path)


def test_adult_t_closeness_same_results(adult_dir, adult_hierarchies, tmp_path):
    path = adult_dir / "adult.csv"
    table = read_table(path)
    hs = {q: adult_hierarchies[q] for q in ADULT_QI[:5]}
    config = AnonymizationConfig(
        tuple(ADULT_QI[:5]), hs, (KAnonymity(5), TCloseness(0.3, "occupation")), ("occupation",)
    )
    assert_same_everywhere(table, path, config, ["optimal", "mondrian"], tmp_path)


def test_sample_project_same_results(sample_dir, tmp_path):
    project = Project.load(sample_dir / "sample_project.json")
    table, _ = project.load_table()
    config = project.config(table)
    assert_same_everywhere(table, project.data_path, config, point_algorithms(), tmp_path, batch_rows=50)


def test_cell_level_models_refused_by_streamed_engines(sample_dir, tmp_path):
    """Local recoding, local suppression and ``suppress="cells"`` recode single records: on DuckDB
    they are refused in one sentence that says what to choose instead, before any work."""
    from kanon_engine.algorithms.full_domain import apply_transformation
    from kanon_engine.errors import ConfigError

    project = Project.load(sample_dir / "sample_project.json")
    table, _ = project.load_table()
    config = project.config(table)
    cell_level = [n for n, cls in algorithms().items() if getattr(cls, "cell_level", False)]
    assert cell_level
    with DuckDBSource(project.data_path, table.options, temp_dir=tmp_path) as duck:
        for name in cell_level:
            with pytest.raises(ConfigError, match=r"needs the table in memory; choose the in-memory"):
                get_algorithm(name).run(duck, config)
        with pytest.raises(ConfigError, match=r"^Cell suppression changes single values"):
            get_algorithm("optimal", suppress="cells", suppression_limit=0.1).run(duck, config)
        with pytest.raises(ConfigError, match=r"^Cell suppression changes single values"):
            apply_transformation(duck, config, (1,) * len(config.quasi_identifiers), suppress="cells")
    # in memory the same runs go through, and name the engine
    result = get_algorithm("optimal", suppress="cells", suppression_limit=0.1).run(table, config)
    assert result.engine == "memory" and result.recoding is not None


@st.composite
def random_tables(draw):
    n = draw(st.integers(4, 60))
    ages = draw(st.lists(st.integers(18, 30), min_size=n, max_size=n))
    sex = draw(st.lists(st.sampled_from(["F", "M", None]), min_size=n, max_size=n))
    zips = draw(
        st.lists(st.sampled_from(["02138", "02139", "1001", "=1+1", "-5", 'a"b,c']), min_size=n, max_size=n)
    )
    dx = draw(st.lists(st.sampled_from(["flu", "hiv", "cold", "x;y"]), min_size=n, max_size=n))
    frame = pd.DataFrame({"id": [f"P{i}" for i in range(n)], "age": [str(a) for a in ages],
                          "sex": sex, "zip": zips, "dx": dx})  # fmt: skip
    k = draw(st.integers(2, 4))
    return frame, k


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(random_tables())
def test_random_tables_same_results(tmp_path, problem):
    frame, k = problem
    path = tmp_path / "random.csv"
    frame.to_csv(path, index=False)
    table = read_table(path)
    qi = ("age", "sex", "zip")
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in qi}
    if table.n_rows < k:
        return
    config = AnonymizationConfig(qi, hs, (KAnonymity(k),), ("dx",), identifiers=("id",))
    assert_same_everywhere(table, path, config, point_algorithms(), tmp_path, batch_rows=7)


# --- points -------------------------------------------------------------------------------------------
def test_points_are_the_distinct_combinations_with_counts(adult_dir, adult_hierarchies):
    table = read_table(adult_dir / "adult.csv")
    hs = {q: adult_hierarchies[q] for q in ADULT_QI}
    config = AnonymizationConfig(
        tuple(ADULT_QI), hs, (KAnonymity(5), DistinctLDiversity(2, "occupation")), ("occupation",)
    )
    counted = count_points(InMemorySource(table), config)
    enc = counted.enc
    expected = table.frame.groupby([*ADULT_QI, "occupation"], dropna=False).size()
    assert enc.n_points == len(expected) and enc.n_rows == table.n_rows == int(enc.weights.sum())
    assert sorted(enc.weights.tolist()) == sorted(expected.tolist())
    keys = counted.keys
    assert (np.diff(keys) > 0).all()  # sorted, distinct: every engine returns the same arrays
    rows = encode_table(table, ADULT_QI, hs, ("occupation",))
    row_codes = np.vstack([rows.codes, rows.sensitive[0].codes[None, :]])
    point = counted.point_of(row_codes)
    assert np.array_equal(np.bincount(point, minlength=enc.n_points), enc.weights)


def _rows_and_points(table, config):
    """Mondrian's inputs over the records (each a point of weight 1) and over the distinct points."""
    counted = count_points(InMemorySource(table), config)
    points = counted.enc
    rows = encode_table(table, config.quasi_identifiers, config.hierarchies)
    source = InMemorySource(table)
    out = []
    for enc in (rows, points):
        axes = make_axes(source, enc)
        keys = np.stack([ax.key_of_leaf[enc.codes[q]] for q, ax in enumerate(axes)])
        weights = np.ones(enc.n_points, dtype=np.int64) if enc.weights is None else enc.weights
        out.append((enc, axes, keys, weights))
    return out


def _boxes(parts) -> list[tuple]:
    return sorted(
        (int(s), *lo.tolist(), *hi.tolist()) for s, lo, hi in zip(parts.sizes, parts.lower, parts.upper)
    )


@pytest.mark.parametrize("k", [2, 5, 20])
def test_weighted_median_cuts_give_the_strict_partitions_of_the_records(adult_dir, adult_hierarchies, k):
    """Strict Mondrian over distinct points with counts (weighted medians) makes exactly the partitions
    it makes over the records: same boxes, same sizes, every record in the same partition."""
    table = read_table(adult_dir / "adult.csv")
    hs = {q: adult_hierarchies[q] for q in ADULT_QI}
    config = AnonymizationConfig(tuple(ADULT_QI), hs, (KAnonymity(k),))
    results = []
    for enc, axes, keys, weights in _rows_and_points(table, config):
        checker = _CutChecker(enc, config.models)
        results.append(partition(keys, weights, axes, True, checker, no_progress))
    by_rows, by_points = results
    assert by_points.sizes.sum() == by_rows.sizes.sum() == table.n_rows
    assert _boxes(by_points) == _boxes(by_rows)
    assert len(np.unique(by_points.point)) == len(by_points.point)  # strict never divides a point


def test_relaxed_divides_a_duplicate_block_by_count():
    """30 identical records and k = 4: relaxed Mondrian divides the one point's records by count into
    classes of 4 to 7 records; strict cannot cut it."""
    frame = pd.DataFrame({"age": ["30"] * 30 + ["31"] * 2, "sex": ["F"] * 32})
    table = read_table_from(frame)
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in ("age", "sex")}
    config = AnonymizationConfig(("age", "sex"), hs, (KAnonymity(4),))
    relaxed = get_algorithm("mondrian-relaxed").run(table, config)
    sizes = relaxed.partitions.sizes
    assert sizes.sum() == 32 and sizes.min() >= 4 and sizes.max() <= 7
    assert len(sizes) == 32 // 4 or len(sizes) >= 5
    plan = relaxed.plan
    assert plan.fragments is not None  # the point of the 30 records was divided
    strict = get_algorithm("mondrian").run(table, config)
    assert strict.partitions.sizes.tolist() == [32]


def read_table_from(frame: pd.DataFrame):
    from kanon_engine.data.table import Table

    return Table.from_frame(frame)


# --- choosing and configuring the engine --------------------------------------------------------------
def test_auto_keeps_a_small_file_in_memory_and_says_why(sample_dir):
    path = sample_dir / "sample_patients.csv"
    engine, reason = choose_engine(path, EngineSettings())
    assert engine == "memory" and "fits in memory" in reason
    source = open_source(path, None, EngineSettings())
    assert isinstance(source, InMemorySource) and source.reason == reason


def test_auto_picks_duckdb_when_the_file_would_not_fit(sample_dir, monkeypatch, tmp_path):
    import kanon_engine.sources.backends.choose as choose

    monkeypatch.setattr(choose, "physical_memory", lambda: 1 << 20)  # a 1 MB computer
    path = sample_dir / "sample_patients.csv"
    engine, reason = choose_engine(path, EngineSettings())
    assert engine == "duckdb"
    assert "sample_patients.csv" in reason and "more than half of this computer's 1.0 MB" in reason
    with open_source(path, None, EngineSettings(temp_dir=str(tmp_path))) as source:
        assert isinstance(source, DuckDBSource) and source.reason == reason
    # the workbench opens such a file on DuckDB too (tests/gui/test_large_file_gui.py); one that fits
    monkeypatch.setattr(choose, "physical_memory", lambda: 64 << 30)
    assert choose_engine(path, EngineSettings())[0] == "memory"


def test_duckdb_settings_memory_limit_temp_folder_and_no_extension_loading(sample_dir, tmp_path):
    with DuckDBSource(sample_dir / "sample_patients.csv", memory_limit="512MB", temp_dir=tmp_path) as s:
        assert s.work.parent == tmp_path and s.work.is_dir()
        con = s.con
        assert con.execute("SELECT current_setting('memory_limit')").fetchone()[0] in (
            "512.0 MiB",
            "512.0 MB",
        )
        for name in ("autoinstall_known_extensions", "autoload_known_extensions", "enable_external_access"):
            assert con.execute(f"SELECT current_setting('{name}')").fetchone()[0] is False, name
        work = s.work
    assert not work.exists()  # its temporary files are removed when the source is closed


def test_duckdb_problems_in_one_sentence(sample_dir, tmp_path, monkeypatch):
    """A memory limit too small for the work, a temporary folder that is a file, or one that cannot be
    written to: one sentence each, naming the setting to change, never DuckDB's own message."""
    from kanon_engine.errors import ConfigError, DataError

    project = Project.load(sample_dir / "sample_project.json")
    table, _ = project.load_table()
    config = project.config(table)
    with pytest.raises(ConfigError, match=r"The memory limit 1MB is too small for DuckDB"):  # at once
        DuckDBSource(project.data_path, table.options, memory_limit="1MB", temp_dir=tmp_path)
    from kanon_engine.sources.backends import duckdb_source

    monkeypatch.setattr(duckdb_source, "MIN_MEMORY", 0)  # DuckDB's own failure, put in one sentence
    with DuckDBSource(project.data_path, table.options, memory_limit="1MB", temp_dir=tmp_path) as duck:
        with pytest.raises(ConfigError, match=r"^DuckDB needed more memory than the memory limit") as err:
            get_algorithm("optimal", suppression_limit=0.05).run(duck, config)
    assert "--memory-limit" in err.value.hint and "\n" not in str(err.value)
    a_file = tmp_path / "not_a_folder"
    a_file.write_text("x")
    with pytest.raises(DataError, match=r"is a file, not a folder"):
        DuckDBSource(project.data_path, temp_dir=a_file)

    def refused(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "mkdir", refused)
    with pytest.raises(DataError, match=r"cannot be written to") as err:
        DuckDBSource(project.data_path, temp_dir=tmp_path)
    assert "--temp-dir" in err.value.hint


def test_project_file_keeps_the_engine(tmp_path):
    project = Project(engine=EngineSettings("duckdb", memory_limit="2GB", temp_dir="/scratch"))
    project.save(tmp_path / "p.json")
    again = Project.load(tmp_path / "p.json")
    assert again.engine == project.engine
    assert json.loads((tmp_path / "p.json").read_text())["engine"]["engine"] == "duckdb"
    assert Project.from_dict({"schema_version": 1}, tmp_path).engine == EngineSettings()


def test_cli_engine_flags_run_duckdb_and_report_it(sample_dir, tmp_path, capsys):
    from kanon_engine.cli import main

    out_mem, out_duck = tmp_path / "mem.csv", tmp_path / "duck.csv"
    base = ["anonymize", "--project", str(sample_dir / "sample_project.json")]
    assert main([*base, "--output", str(out_mem), "--report", str(tmp_path / "m.json")]) == 0
    rc = main(
        [
            *base,
            "--engine",
            "duckdb",
            "--memory-limit",
            "1GB",
            "--temp-dir",
            str(tmp_path),
            "--output",
            str(out_duck),
            "--report",
            str(tmp_path / "d.json"),
            "--save-project",
            str(tmp_path / "saved.json"),
        ]  # fmt: skip
    )
    assert rc == 0
    err = capsys.readouterr().err
    assert "note: engine: DuckDB (larger than memory)" in err
    assert out_mem.read_bytes() == out_duck.read_bytes()
    report = json.loads((tmp_path / "d.json").read_text())
    assert report["engine"]["name"] == "duckdb"
    mem = json.loads((tmp_path / "m.json").read_text())
    # the workload's figures are answered on rows in memory (not yet on points): the in-memory run only
    mem.pop("workload", None)
    # the original data's facts need its rows (a streamed run counts the release's as it writes them)
    assert mem["facts"].pop("original")["records"] == 2000 and "original" not in report["facts"]
    assert {k: v for k, v in mem.items() if k not in ENGINE_KEYS} == {
        k: v for k, v in report.items() if k not in ENGINE_KEYS
    }
    saved = json.loads((tmp_path / "saved.json").read_text())["engine"]
    assert saved["engine"] == "duckdb" and saved["memory_limit"] == "1GB"
    assert not any(p.name.startswith("kanon-duckdb-") for p in tmp_path.iterdir())


def test_bad_memory_limit_is_one_plain_sentence(sample_dir, tmp_path):
    from kanon_engine.errors import ConfigError

    with pytest.raises(ConfigError, match="memory limit must be an amount such as 4GB"):
        DuckDBSource(sample_dir / "sample_patients.csv", memory_limit="lots", temp_dir=tmp_path)


def test_a_crashed_runs_work_folder_is_removed_a_live_ones_kept(sample_dir, tmp_path):
    """The engine's folder holds encoded patient rows: one left by a killed run (its lock free) is
    removed when the next source starts; a running source's folder (lock held) is left alone."""
    stale = tmp_path / "kanon-duckdb-deadbeef0000"
    stale.mkdir()
    (stale / "lock").write_text("")
    (stale / "codes.duckdb").write_bytes(b"rows")
    with DuckDBSource(sample_dir / "sample_patients.csv", temp_dir=tmp_path) as live:
        assert not stale.exists()
        with DuckDBSource(sample_dir / "sample_patients.csv", temp_dir=tmp_path) as other:
            assert live.work.exists() and other.work.exists()


@pytest.mark.parametrize("name", ["optimal", "datafly"])
def test_ncp_from_points_equals_ncp_over_the_records(adult_dir, adult_hierarchies, name):
    """The NCP of a full-domain release, computed from its points (weights, Datafly's trimmed records
    as suppressed ones of their class), equals the row-by-row NCP of the records it releases."""
    from kanon_engine.release.cell_recoding import node_ncp

    table = read_table(adult_dir / "adult.csv")
    hs = {q: adult_hierarchies[q] for q in ADULT_QI}
    config = AnonymizationConfig(tuple(ADULT_QI), hs, (KAnonymity(5),))
    result = get_algorithm(name, suppression_limit=0.05).run(table, config)
    rows = encode_table(table, ADULT_QI, hs)
    levels = tuple(result.transformation[q] for q in ADULT_QI)
    expected = node_ncp(rows, levels, result.row_class < 0)
    assert result.suppressed > 0
    for key, value in expected.items():
        assert result.metrics[key] == pytest.approx(value, rel=1e-12), key


def test_memory_source_counts_from_the_column_codes_as_a_pass_over_the_strings_does():
    """In memory the value counts and codes come from each column's kept codes, and the point of every
    row from the count itself (no second pass, no lookup); they agree with the pass over the strings the
    streamed engines make and with the lookup of each row's point by its codes."""
    from kanon_engine.sources.backends.base import encode_batch, value_counts_of

    frame = pd.DataFrame(
        {
            "age": ["30", "31", None, "30", "7", "31", "30", None],
            "sex": ["F", "M", "F", "F", "M", "M", "F", "F"],
            "ward": pd.Categorical(["b", "a", "b", "b", "a", "a", "b", "b"], categories=["c", "b", "a"]),
        }
    )
    source = InMemorySource(read_table_from(frame))
    columns = ["age", "sex", "ward"]
    mine = source._value_counts(columns)
    theirs = value_counts_of(iter([source._arrow(columns)]), columns)
    for c in columns:
        assert mine[c][0].tolist() == theirs[c][0].tolist()
        assert mine[c][1].tolist() == theirs[c][1].tolist() and mine[c][2] == theirs[c][2]
    hs = {q: default_hierarchy(q, source.frame[q], source.column_types.get(q)) for q in columns}
    config = AnonymizationConfig(tuple(columns), hs, (KAnonymity(2),))
    counted = count_points(source, config)
    codes = source.codes(counted.codings)
    assert np.array_equal(codes, encode_batch(source._arrow(columns), counted.codings))
    assert counted.rows is not None and np.array_equal(counted.rows, counted.point_of(codes))
    assert counted.enc.weights.tolist() == np.bincount(counted.rows).tolist()
