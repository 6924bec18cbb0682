"""A streamed release re-checks its guarantee where it is written (issue 29, item 1).

The DuckDB and Dask engines read the file twice: to count, then to write the release. A file edited in
between (a row moved to another group, a row added or removed, a value the run never saw) must never give
a release: the writer compares the input's fingerprint (size, time, SHA-256) before reading it again,
tallies the released classes as it writes and compares them with the counts, and removes its partial
file. The edits are made by the sink's test hook, exactly between counting and writing (no race).

Each check is shown to suffice alone: with the fingerprint switched off, the tally still refuses every
edit that changes what is released.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.mondrian import engine as mondrian_engine
from kanon_engine.config import AnonymizationConfig
from kanon_engine.errors import DataError
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.release.export import ExportOptions, export_release
from kanon_engine.sources.backends.duckdb_source import DuckDBSource
from kanon_engine.sources.plan import guard, points, sink
from kanon_engine.sources.plan.guard import InputFingerprint, ReleaseTally
from kanon_engine.sources.plan.release_plan import BoxedPartitionPlan

K = 5
ROWS = 3000


def _lines() -> list[str]:
    """A table whose group (99, Y) has exactly k rows, the last ones: every other group is larger."""
    rng = np.random.default_rng(7)
    age = rng.integers(0, 99, ROWS - K)
    flag = rng.choice(["Y", "N"], ROWS - K)
    rows = [f"{a},{f},d{i % 7}" for i, (a, f) in enumerate(zip(age, flag))]
    return ["age,flag,diag", *rows, *(f"99,Y,d{i}" for i in range(K))]


#: Edits of the file between counting and writing: the lines after the edit.
EDITS = {
    "move": lambda lines: [*lines[:-1], "0,N,d4"],  # one row of (99, Y) to another group
    "append": lambda lines: [*lines, "0,N,d0"],
    "delete": lambda lines: lines[:-1],
    "new-value": lambda lines: [*lines[:-1], "150,Y,d4"],  # an age the run never saw
}

#: The algorithms that stream their release from the engine (Mondrian also with its first cuts made
#: by the engine, strict and relaxed: the plans whose rows find their class through boxes).
ALGORITHMS = ["datafly", "optimal", "samarati", "mondrian", "mondrian-relaxed", "mondrian-cut", "relaxed-cut"]


def _config() -> AnonymizationConfig:
    h = {
        "age": default_hierarchy("age", pd.Series([str(a) for a in range(100)])),
        "flag": default_hierarchy("flag", pd.Series(["Y", "N"])),
    }
    return AnonymizationConfig(("age", "flag"), h, (KAnonymity(K),), sensitive=("diag",))


def _work(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir(exist_ok=True)
    return tmp_path / "work"


def _write(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n")


def _run(name: str, source, monkeypatch):
    cut = name.endswith("-cut")
    if cut:  # the points (about 200) exceed a tiny budget: the engine makes the first cuts
        monkeypatch.setattr(points, "POINT_BUDGET", 60)
        monkeypatch.setattr(mondrian_engine, "BOX_SHARE", 1)
        name = "mondrian" if name == "mondrian-cut" else "mondrian-relaxed"
    params = {"suppression_limit": 0.05} if name in ("optimal", "samarati", "datafly") else {}
    result = get_algorithm(name, **params).run(source, _config())
    assert isinstance(result.plan, BoxedPartitionPlan) == cut
    return result


def _no_fingerprint(monkeypatch) -> None:
    """Switch the fingerprint off: only the tally (and the encoding of unknown values) is left."""
    monkeypatch.setattr(InputFingerprint, "check", lambda self: None)
    monkeypatch.setattr(InputFingerprint, "check_stat", lambda self: None)


def _edit_between(monkeypatch, path: Path, lines: list[str]) -> None:
    """Edit ``path`` in the sink's hook: after counting and the last look at the file, before it is
    read again."""
    monkeypatch.setattr(sink, "before_reading_again", lambda source: _write(path, lines))


def _assert_refused(source, result, data: Path, out: Path) -> None:
    """The export says the file changed, in one sentence; the existing output and the folder are left
    as they were (no partial file)."""
    out.write_text("the previous release\n")
    before = sorted(p.name for p in out.parent.iterdir())
    with pytest.raises(DataError) as err:
        export_release(source, result, out, ExportOptions())
    message = str(err.value)
    assert f"{data.name} changed during the run" in message and "\n" not in message
    assert "Traceback" not in message
    assert out.read_text() == "the previous release\n"
    assert sorted(p.name for p in out.parent.iterdir()) == before


def _min_class(path: Path) -> int:
    release = pd.read_csv(path, dtype=str, keep_default_na=False)
    kept = release[release["age"] != "*"]
    return int(kept.groupby(["age", "flag"]).size().min())


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("fingerprint", [True, False], ids=["fingerprint", "tally-alone"])
def test_duckdb_refuses_a_file_edited_between_counting_and_writing(
    tmp_path, monkeypatch, name, edit, fingerprint
):
    data = tmp_path / "data.csv"
    lines = _lines()
    _write(data, lines)
    if not fingerprint:
        _no_fingerprint(monkeypatch)
    with DuckDBSource(data, temp_dir=_work(tmp_path)) as source:
        result = _run(name, source, monkeypatch)
        assert result.min_class_size >= K and not result.in_memory
        _edit_between(monkeypatch, data, EDITS[edit](lines))
        _assert_refused(source, result, data, tmp_path / "release.csv")


@pytest.mark.parametrize("name", ["datafly", "mondrian"])
def test_duckdb_unchanged_file_is_written(tmp_path, monkeypatch, name):
    """The checks pass on a file nobody touched (the hook runs, changing nothing)."""
    data = tmp_path / "data.csv"
    _write(data, _lines())
    monkeypatch.setattr(sink, "before_reading_again", lambda source: None)
    with DuckDBSource(data, temp_dir=_work(tmp_path)) as source:
        result = _run(name, source, monkeypatch)
        summary = export_release(source, result, tmp_path / "release.csv", ExportOptions())
    assert summary.rows == ROWS and _min_class(tmp_path / "release.csv") >= K


def test_the_issue_case_is_refused_before_it_is_read_again(tmp_path):
    """The issue's case without any hook: the file is edited after the run and before the export; the
    fingerprint refuses it before a row is read again (a class of 4 < k was written with exit 0)."""
    data = tmp_path / "data.csv"
    lines = _lines()
    _write(data, lines)
    with DuckDBSource(data, temp_dir=_work(tmp_path)) as source:
        result = get_algorithm("datafly").run(source, _config())
        assert result.transformation == {"age": 0, "flag": 0}
        _write(data, EDITS["move"](lines))
        _assert_refused(source, result, data, tmp_path / "release.csv")


def test_a_same_size_edit_with_its_time_put_back_is_caught_by_the_hash(tmp_path, monkeypatch):
    """A sensitive value changed in place (same size, modification time restored): the classes are the
    same, so only the content hash sees it, and refuses it (the release's l-diversity would be another)."""
    data = tmp_path / "data.csv"
    lines = _lines()
    _write(data, lines)
    with DuckDBSource(data, temp_dir=_work(tmp_path)) as source:
        result = get_algorithm("datafly").run(source, _config())
        st = data.stat()
        _write(data, [*lines[:-1], lines[-1][:-1] + ("0" if lines[-1][-1] != "0" else "1")])
        os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert data.stat().st_size == st.st_size
        _assert_refused(source, result, data, tmp_path / "release.csv")


def test_the_tally_compares_classes_suppressed_and_records():
    tally = ReleaseTally(np.array([2, 3]), suppressed=1, records=6)
    tally.add(np.array([0, 1, -1]))
    tally.add(np.array([1, 0, 1]))
    assert tally.matches
    moved = ReleaseTally(np.array([2, 3]), suppressed=1, records=6)
    moved.add(np.array([0, 1, -1, 1, 1, 1]))  # same records, one moved from class 0 to class 1
    assert not moved.matches
    unknown = ReleaseTally(np.array([2, 3]), suppressed=1, records=6)
    unknown.add(np.array([0, 0, 1, 1, 2, -1]))  # a class the run does not have
    assert not unknown.matches
    with pytest.raises(DataError, match="x.csv changed during the run"):
        moved.check(Path("x.csv"))


def test_the_fingerprint_hashes_what_was_opened(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n")
    fp = InputFingerprint(data)
    assert fp.sha256 == guard.sha256_of(data)
    fp.check()
    data.write_text("a\n2\n")
    with pytest.raises(DataError, match="data.csv changed during the run"):
        fp.check()


# --- Dask ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    c = LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    yield c.scheduler_address
    c.close()


@pytest.mark.slow
@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("name", ["datafly", "optimal", "mondrian", "mondrian-relaxed"])
@pytest.mark.parametrize("fingerprint", [True, False], ids=["fingerprint", "tally-alone"])
def test_dask_refuses_a_file_edited_between_counting_and_writing(
    tmp_path, monkeypatch, cluster, name, edit, fingerprint
):
    from kanon_engine.sources.backends.dask_source import DaskSource

    data = tmp_path / "data.csv"
    lines = _lines()
    _write(data, lines)
    if not fingerprint:
        _no_fingerprint(monkeypatch)
    with DaskSource(data, scheduler=cluster) as source:
        result = _run(name, source, monkeypatch)
        _edit_between(monkeypatch, data, EDITS[edit](lines))
        if edit == "append" and not fingerprint:
            # Dask's pieces are the byte ranges counted: a row appended after them is never read, so
            # the release is the one counted, and the tally agrees (the fingerprint refuses it)
            export_release(source, result, tmp_path / "release.csv", ExportOptions())
            assert _min_class(tmp_path / "release.csv") >= K
            return
        _assert_refused(source, result, data, tmp_path / "release.csv")
