"""Nothing the user owns is overwritten or left half-written (issue 17, items 1-3, 5 and 6).

Every case compares the SHA-256 of the files involved before and after. The full disk is simulated three
ways: an injected ``OSError(ENOSPC)`` in the writer, a renderer process limited in file size (its writes
fail as on a full disk, since Python ignores SIGXFSZ), and, where the machine allows mounting, a real
256 KB tmpfs.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kanon_engine.cli import main
from kanon_engine.errors import DataError, KanonError
from kanon_engine.project.project_file import Project
from kanon_engine.release.fileio import (
    InputGuard,
    atomic_path,
    atomic_write_bytes,
    clean_stale_temp_files,
    write_table,
)

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "resources" / "sample"
BASE = ["--qi", "age,sex", "--identifier", "patient_id,name", "--k", "5"]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def hashes(folder: Path) -> dict[str, str]:
    """Name -> SHA-256 of every file in ``folder`` (temporary files included, so leftovers show)."""
    return {p.name: sha(p) for p in sorted(folder.iterdir()) if p.is_file()}


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    """A folder with a copy of the sample data and its age hierarchy."""
    shutil.copy(SAMPLE / "sample_patients.csv", tmp_path / "data.csv")
    shutil.copy(SAMPLE / "hierarchy_age.csv", tmp_path / "h.csv")
    return tmp_path


# --- 1. saving a project over an input ---------------------------------------------------------------------
def test_project_save_refuses_the_data_and_hierarchy_files(work: Path) -> None:
    from kanon_engine.data.roles import Role
    from kanon_engine.hierarchy import read_arx_csv

    os.symlink(work / "data.csv", work / "link.csv")
    os.link(work / "h.csv", work / "hard.csv")
    project = Project(
        data_path=work / "data.csv",
        roles={"age": Role.QUASI_IDENTIFIER},
        hierarchies={"age": read_arx_csv(work / "h.csv", "age")},
        hierarchy_files={"age": "h.csv"},
        base_dir=work,
    )
    before = hashes(work)
    for target, what in (
        ("data.csv", "the data file"),
        ("link.csv", "the data file"),
        ("h.csv", "the hierarchy file of 'age'"),
        ("hard.csv", "the hierarchy file of 'age'"),
        ("sub/../data.csv", "the data file"),
    ):
        with pytest.raises(DataError, match=what):
            project.save(work / target)
    assert hashes(work) == before
    project.save(work / "p.kanon.json")  # a new name is fine
    reopened = Project.load(work / "p.kanon.json")
    with pytest.raises(DataError, match="hierarchy file of 'age'"):
        reopened.save(work / "h.csv")  # the relative hierarchy file of a loaded project is protected too


def test_registered_guard_refuses_every_writer(work: Path, small_result) -> None:
    """With the run's inputs registered, every writer of the product refuses them (one guard)."""
    from kanon_engine.hierarchy import write_arx_csv
    from kanon_engine.release.export import export_release, export_value_mapping
    from kanon_engine.report.build import write_reports

    table, result = small_result
    before = hashes(work)
    target = work / "h.csv"
    writers = [
        lambda: export_release(table, result, target),
        lambda: export_value_mapping(table, result, target),
        lambda: write_arx_csv(result.config.hierarchies["age"], target),
        lambda: write_reports(table, result, None, target, None),
        lambda: Project().save(target),
        lambda: write_table(table.frame, target),
        lambda: atomic_write_bytes(target, b"x"),
    ]
    with InputGuard([(target, "the hierarchy file of 'age'")]):
        for write in writers:
            with pytest.raises(KanonError, match="hierarchy file of 'age'"):
                write()
    assert hashes(work) == before
    atomic_write_bytes(target, b"x")  # the guard is gone with its run
    assert target.read_bytes() == b"x"


@pytest.fixture()
def small_result(work: Path):
    from kanon_engine.algorithms import get_algorithm
    from kanon_engine.config import AnonymizationConfig
    from kanon_engine.data.io import read_table
    from kanon_engine.hierarchy import default_hierarchy, read_arx_csv
    from kanon_engine.privacy.models import KAnonymity

    table = read_table(work / "data.csv")
    config = AnonymizationConfig(
        quasi_identifiers=("age", "sex"),
        hierarchies={
            "age": read_arx_csv(work / "h.csv", "age"),
            "sex": default_hierarchy("sex", table.frame["sex"]),
        },
        models=(KAnonymity(5),),
        identifiers=("patient_id", "name"),
    )
    return table, get_algorithm("optimal").run(table, config)


# --- 2. --output / --report on a hierarchy file ------------------------------------------------------------
@pytest.mark.parametrize("command", ["anonymize", "apply"])
@pytest.mark.parametrize("flag", ["--output", "--report", "--report-html", "--report-pdf"])
def test_cli_outputs_never_replace_a_hierarchy_file(capsys, work: Path, command: str, flag: str) -> None:
    before = hashes(work)
    extra = ["--levels", "age=1"] if command == "apply" else []
    code, _, err = run(capsys, command, work / "data.csv", *BASE, "--hierarchy", f"age={work / 'h.csv'}",
                       *extra, flag, work / "h.csv")  # fmt: skip
    assert code == 2, err
    assert "h.csv is the hierarchy file of 'age'" in err and flag in err and "Traceback" not in err
    assert hashes(work) == before


def test_cli_refuses_links_to_inputs_and_the_project_file(capsys, work: Path) -> None:
    os.symlink(work / "h.csv", work / "soft.csv")
    os.link(work / "data.csv", work / "hard.csv")
    Project(data_path=work / "data.csv").save(work / "p.kanon.json")
    before = hashes(work)
    for target, what in (
        ("soft.csv", "the hierarchy file of 'age'"),
        ("hard.csv", "the data file"),
        ("p.kanon.json", "the project file"),
    ):
        code, _, err = run(
            capsys, "anonymize", "--project", work / "p.kanon.json", *BASE,
            "--hierarchy", f"age={work / 'h.csv'}", "--output", work / target,
        )  # fmt: skip
        assert code == 2 and what in err, err
    assert hashes(work) == before


# --- 3. full disk ------------------------------------------------------------------------------------------
def test_injected_enospc_leaves_the_previous_release(capsys, work: Path, monkeypatch) -> None:
    out = work / "rel.csv"
    assert run(capsys, "anonymize", work / "data.csv", *BASE, "--output", out)[0] == 0
    before = hashes(work)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("kanon_engine.release.fileio.os.fsync", full)
    code, _, err = run(capsys, "anonymize", work / "data.csv", *BASE[:-1], "6", "--output", out)
    assert code == 2 and "disk holding" in err and "is full" in err and "Traceback" not in err
    assert hashes(work) == before  # same release, no temporary file left


def _limited_renderer(limit: int):
    """A pdf_command that runs the renderer with its file size limited to ``limit`` bytes."""
    code = (
        f"import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
        "from kanon_gui.report_pdf import main; sys.exit(main(sys.argv[1:]))"
    )

    def command(html: Path, pdf: Path, name: str | None = None) -> list[str]:
        return [sys.executable, "-c", code, str(html), str(pdf), *([name] if name else [])]

    return command


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_pdf_cut_short_by_a_full_disk_never_replaces_the_report(capsys, work: Path, monkeypatch) -> None:
    pytest.importorskip("PySide6")
    pdf = work / "r.pdf"
    assert run(capsys, "anonymize", work / "data.csv", *BASE, "--report-pdf", pdf)[0] == 0
    from kanon_engine.release.pdf_check import pdf_problem

    assert pdf_problem(pdf.read_bytes()) is None
    before = hashes(work)
    monkeypatch.setattr("kanon_engine.report.pdf.pdf_command", _limited_renderer(30_000))
    code, _, err = run(capsys, "anonymize", work / "data.csv", *BASE[:-1], "6", "--report-pdf", pdf)
    assert code == 2, err
    assert "r.pdf came out incomplete" in err and "Nothing was replaced" in err
    assert hashes(work) == before


def test_pdf_check_catches_every_cut(work: Path) -> None:
    from kanon_engine.release.pdf_check import page_count, pdf_problem

    pytest.importorskip("PySide6")
    pdf = work / "r.pdf"
    assert main(["anonymize", str(work / "data.csv"), *BASE, "--report-pdf", str(pdf)]) == 0
    data = pdf.read_bytes()
    assert pdf_problem(data) is None and page_count(data) >= 2
    for cut in (0, 10, 1000, len(data) // 3, len(data) // 2, len(data) - 12):
        assert pdf_problem(data[:cut]) is not None, cut
    if shutil.which("pdftoppm"):  # an independent reader renders every page
        subprocess.run(["pdftoppm", "-r", "20", "-png", str(pdf), str(work / "page")], check=True)
        assert len(list(work.glob("page*.png"))) == page_count(data)


def _mount_tmpfs(folder: Path, size: str) -> bool:
    if sys.platform != "linux" or os.geteuid() != 0 or not shutil.which("mount"):
        return False
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True)  # fmt: skip
    return proc.returncode == 0


def test_real_full_disk_tmpfs(tmp_path: Path) -> None:
    """On a real 320 KB file system, a second report that does not fit leaves the first one whole (the
    first, with its workload appendix, takes about 280 KB while it is written)."""
    pytest.importorskip("PySide6")
    disk = tmp_path / "disk"
    disk.mkdir()
    if not _mount_tmpfs(disk, "320k"):
        pytest.skip("cannot mount a tmpfs here (needs Linux and root)")
    try:
        cmd = [sys.executable, "-m", "kanon_engine", "anonymize", str(SAMPLE / "sample_patients.csv"), *BASE]
        first = subprocess.run([*cmd, "--report-pdf", str(disk / "r.pdf")], capture_output=True, cwd=REPO)
        assert first.returncode == 0, first.stderr
        before = hashes(disk)
        cmd[-1] = "6"
        second = subprocess.run(
            [*cmd, "--report-pdf", str(disk / "r.pdf")], capture_output=True, text=True, cwd=REPO
        )
        assert second.returncode == 2 and "Traceback" not in second.stderr
        assert "r.pdf" in second.stderr
        assert hashes(disk) == before
    finally:
        subprocess.run(["umount", str(disk)], check=False)


# --- 5. every output checked before any work ---------------------------------------------------------------
@pytest.mark.parametrize(
    "flags,words",
    [
        (["--report", "r.json", "--report-html", "r.json"], "--report and --report-html both name r.json"),
        (["--report-html", "x.html", "--report-pdf", "x.html"], "both name x.html"),
        (["--report", "rel.csv"], "--output and --report both name rel.csv"),
        (["--report-pdf", "nowhere/r.pdf"], "the folder"),
        (["--report-html", "r.pdf"], "ending of a PDF report"),
        (["--report-pdf", "data.csv"], "the data file"),
    ],
)
def test_outputs_are_checked_before_the_release_is_written(capsys, work: Path, flags, words) -> None:
    before = hashes(work)
    flags = [str(work / f) if not f.startswith("--") else f for f in flags]
    code, _, err = run(capsys, "anonymize", work / "data.csv", *BASE, "--output", work / "rel.csv", *flags)
    assert code == 2 and words in err, err
    assert hashes(work) == before  # no rel.csv, nothing else


def test_read_only_folder_before_any_work(capsys, work: Path, monkeypatch) -> None:
    """``--report-pdf`` alone into a read-only folder: one sentence, exit 2, no release (root ignores
    permissions, so the folder's refusal is injected where mkstemp asks the system)."""
    ro = work / "ro"
    ro.mkdir()
    real = __import__("tempfile").mkstemp

    def mkstemp(*a, dir=None, **kw):  # noqa: A002
        if dir is not None and Path(dir) == ro:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(*a, dir=dir, **kw)

    monkeypatch.setattr("kanon_engine.release.fileio.tempfile.mkstemp", mkstemp)
    before = hashes(work)
    code, _, err = run(capsys, "anonymize", work / "data.csv", *BASE, "--output", work / "rel.csv",
                       "--report-pdf", ro / "r.pdf")  # fmt: skip
    assert code == 2 and "--report-pdf" in err and "read-only" in err and "Traceback" not in err
    assert hashes(work) == before


# --- 6. stale temporary files ------------------------------------------------------------------------------
def _age(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_stale_temp_files_are_removed_on_the_next_write(work: Path, caplog) -> None:
    stale = work / ".rel.csv.ab12cd_9.tmp"
    stale.write_text("age,sex\n34,F\n")  # what a crash leaves: patient data
    _age(stale, 3 * 3600)
    fresh = work / ".rel.csv.zz12cd_9.tmp"
    fresh.write_text("a write that may still be starting")
    not_ours = [work / ".rel.csv.tmp", work / "rel.csv.ab12cd_9.tmp", work / ".notes.TOOLONGNAME.tmp"]
    for p in not_ours:
        p.write_text("keep")
        _age(p, 3 * 3600)
    with caplog.at_level(logging.INFO, logger="kanon_engine.release.fileio"):
        atomic_write_bytes(work / "other.txt", b"x")
    assert not stale.exists() and fresh.exists() and all(p.exists() for p in not_ours)
    assert ".rel.csv.ab12cd_9.tmp" in caplog.text and "34,F" not in caplog.text
    assert not [p for p in work.iterdir() if p.name.startswith(".other.txt.")]


def test_a_running_write_is_never_cleaned(work: Path) -> None:
    """A temporary file a writer holds stays, however old; once the writer is done, it is gone."""
    target = work / "r.pdf"
    with atomic_path(target) as tmp:
        tmp.write_bytes(b"partial")
        _age(tmp, 3 * 3600)
        if os.name != "nt":
            assert clean_stale_temp_files(work) == []
            assert tmp.exists()
        tmp.write_bytes(b"whole")
    assert target.read_bytes() == b"whole"
    assert [p.name for p in work.iterdir() if p.name.endswith(".tmp")] == []


def test_cli_notes_the_cleaning(capsys, work: Path) -> None:
    stale = work / ".rel.csv.0a1b2c3d.tmp"
    stale.write_text("age\n34\n")
    _age(stale, 7200)
    code, _, err = run(capsys, "anonymize", work / "data.csv", *BASE, "--output", work / "rel.csv")
    assert code == 0 and not stale.exists()
    assert "note: Removed 1 temporary file" in err and ".rel.csv.0a1b2c3d.tmp" in err
