"""Property (issue 17): random sequences of writes -- release, JSON and HTML reports, project, hierarchy
export, value mapping -- to random paths among the run's inputs, links to them, earlier outputs, existing
files and a folder, some of them failing mid-write as on a full disk, never change an input's bytes and
never leave a target partially written (each target holds its previous bytes or the writer's whole
output) nor a temporary file behind.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.io import read_table
from kanon_engine.data.roles import Role
from kanon_engine.errors import KanonError
from kanon_engine.hierarchy import default_hierarchy, read_arx_csv, write_arx_csv
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.project.project_file import PROJECT_FILE, Project
from kanon_engine.release.export import export_release, export_value_mapping
from kanon_engine.release.fileio import InputGuard, atomic_write_text
from kanon_engine.report.build import write_reports

DATA = "age,sex,diag\n" + "".join(
    f"{30 + i % 6},{'MF'[i % 2]},{['flu', 'cold'][i % 3 == 0]}\n" for i in range(60)
)
HIER = "".join(f"{a};{a // 2 * 2}-{a // 2 * 2 + 1};*\n" for a in range(30, 36))
INPUTS = ("data.csv", "h.csv")
TARGETS = (
    "data.csv",
    "h.csv",
    "p.json",
    "link_data.csv",  # symbolic link to data.csv
    "hard_h.csv",  # hard link to h.csv
    "sub/../data.csv",
    "sub",  # a folder
    "existing.csv",
    "existing.json",
    "out.csv",
    "out.html",
    "out.json",
    "out.parquet",
    "out.txt",
)
WRITERS = ("release", "json", "html", "project", "hierarchy", "mapping")


@contextlib.contextmanager
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        d = Path(name)
        (d / "data.csv").write_text(DATA)
        (d / "h.csv").write_text(HIER)
        (d / "sub").mkdir()
        (d / "existing.csv").write_text("someone's,file\n")
        (d / "existing.json").write_text('{"mine": true}\n')
        os.symlink(d / "data.csv", d / "link_data.csv")
        os.link(d / "h.csv", d / "hard_h.csv")
        yield d


def run_in(d: Path):
    """The table, result and project of a small run reading ``d``'s data and hierarchy."""
    table = read_table(d / "data.csv")
    hierarchies = {
        "age": read_arx_csv(d / "h.csv", "age"),
        "sex": default_hierarchy("sex", table.frame["sex"]),
    }
    config = AnonymizationConfig(("age", "sex"), hierarchies, (KAnonymity(3),), sensitive=("diag",))
    result = get_algorithm("optimal").run(table, config)
    project = Project(
        data_path=d / "data.csv",
        roles={"age": Role.QUASI_IDENTIFIER, "sex": Role.QUASI_IDENTIFIER, "diag": Role.SENSITIVE},
        hierarchies={"age": hierarchies["age"]},
        hierarchy_files={"age": "h.csv"},
        base_dir=d,
    )
    project.save(d / "p.json")
    return table, result, project


def writer(kind: str, d: Path) -> Callable[[Path], object]:
    table, result, project = run_in(d)
    return {
        "release": lambda p: export_release(table, result, p),
        "json": lambda p: atomic_write_text(p, '{"report": 1}\n'),
        "html": lambda p: write_reports(table, result, project, p, None),
        "project": lambda p: project.save(p),
        "hierarchy": lambda p: write_arx_csv(result.config.hierarchies["age"], p),
        "mapping": lambda p: export_value_mapping(table, result, p),
    }[kind]


def expected_bytes(kind: str, target: str, d: Path) -> bytes | None:
    """What the writer writes to ``target`` in a fresh copy of the folder (None: it refuses it)."""
    with folder() as fresh:
        out = fresh / target
        try:
            writer(kind, fresh)(out)
        except KanonError:
            return None
        data = out.read_bytes()
    return _normalize(kind, data, fresh, d)


def _normalize(kind: str, data: bytes, fresh: Path, d: Path) -> bytes:
    """Paths and times in the output differ between folders and runs; compare the rest."""
    if kind in ("html", "project"):
        data = data.replace(str(fresh).encode(), str(d).encode())
    return data


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def temp_files(d: Path) -> list[str]:
    return [p.name for p in d.rglob("*.tmp")]


steps = st.lists(
    st.tuples(st.sampled_from(WRITERS), st.sampled_from(TARGETS), st.booleans()), min_size=1, max_size=6
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps)
def test_random_writes_never_touch_inputs_nor_leave_half_files(monkeypatch: pytest.MonkeyPatch, plan) -> None:
    with folder() as d:
        run_in(d)  # writes p.json
        guard = InputGuard([(d / "data.csv", "the data file"), (d / "h.csv", "the hierarchy file of 'age'"),
                            (d / "p.json", PROJECT_FILE)])  # fmt: skip
        inputs = {name: digest(d / name) for name in INPUTS}
        with guard:
            for kind, target, disk_full in plan:
                path = d / target
                before = digest(path) if path.is_file() else None
                write = writer(kind, d)
                with monkeypatch.context() as m:
                    if disk_full:
                        m.setattr("kanon_engine.release.fileio.os.fsync", _full_disk)
                    try:
                        write(path)
                        wrote = True
                    except KanonError:
                        wrote = False
                after = digest(path) if path.is_file() else None
                event(f"{kind}: {'written' if wrote else 'refused'}")
                assert {name: digest(d / name) for name in INPUTS} == inputs, (kind, target)
                assert temp_files(d) == [], (kind, target)
                if not wrote:
                    assert after == before, (kind, target)
                    continue
                assert not disk_full, "a write on a full disk must fail"
                assert target not in INPUTS and not target.startswith(("link_", "hard_", "sub/"))
                assert target != "p.json" or kind == "project"  # only saving the project replaces it
                want = expected_bytes(kind, target, d)
                got = _normalize(kind, path.read_bytes(), d, d)
                if kind in ("release", "json", "hierarchy", "mapping", "project"):
                    assert got == want, (kind, target)
                else:  # the HTML report carries its time of making: whole means it ends as HTML does
                    assert got.rstrip().endswith(b"</html>"), (kind, target)


def _full_disk(fd: int) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")
