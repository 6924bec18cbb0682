"""The command line: exit codes, outputs, and one plain sentence for each kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.cli import main

ROOT = Path(__file__).resolve().parents[2]


def crlf(data: bytes) -> bytes:
    """The seed's expected release (written with \\n) with the line ends kanon writes: CR LF (RFC 4180)."""
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def sweeney_flags(seed_dir: Path) -> list[str]:
    flags = ["--qi", "race,birth_date,gender,zip"]
    for q in ("race", "birth_date", "gender", "zip"):
        flags += ["--hierarchy", f"{q}={seed_dir / f'datafly_sweeney_hierarchy_{q}.csv'}"]
    return flags


def test_check_exit_codes(capsys, seed_dir, adult_dir):
    code, out, _ = run(capsys, "check", seed_dir / "test_scores.csv", "--qi", "age", "--k", "2")
    assert code == 1
    report = json.loads(out)
    assert report["k"] == 1 and report["records_below_k"] == 5 and report["classes"] == 5
    code, out, _ = run(capsys, "check", seed_dir / "test_scores.csv", "--qi", "age", "--k", "1")
    assert code == 2  # k=1 is not a privacy model
    code, out, _ = run(capsys, "check", adult_dir / "adult.csv", "--qi", "sex,race", "--k", "5")
    assert code == 0 and json.loads(out)["smallest_class"] >= 5


def test_apply_then_drop_gives_sweeneys_release(capsys, seed_dir, tmp_path):
    out = tmp_path / "release.csv"
    report = tmp_path / "r.json"
    code, _, err = run(
        capsys,
        "apply",
        seed_dir / "datafly_sweeney.csv",
        *sweeney_flags(seed_dir),
        "--levels",
        "race=0,birth_date=1,gender=0,zip=0",
        "--k",
        "2",
        "--drop-suppressed",
        "--output",
        out,
        "--report",
        report,
    )
    assert code == 0, err
    assert out.read_bytes() == crlf((seed_dir / "datafly_sweeney_expected.csv").read_bytes())
    data = json.loads(report.read_text())
    for key in (
        "algorithm",
        "parameters",
        "records",
        "suppressed",
        "classes",
        "min_class_size",
        "discernibility",
        "cavg",
        "transformation",
        "runtime_seconds",
    ):
        assert key in data
    assert data["suppressed"] == 2 and data["transformation"]["birth_date"] == 1


def test_apply_without_k_suppresses_nothing(capsys, seed_dir, tmp_path):
    out = tmp_path / "release.csv"
    code, stdout, err = run(
        capsys,
        "apply",
        seed_dir / "datafly_sweeney.csv",
        *sweeney_flags(seed_dir),
        "--levels",
        "zip=1",
        "--output",
        out,
    )
    assert code == 0, err
    release = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(release) == 12 and (release["zip"].str.endswith("*")).all()
    assert json.loads(stdout)["suppressed"] == 0


def test_anonymize_datafly_sweeney(capsys, seed_dir, tmp_path):
    out = tmp_path / "release.csv"
    code, stdout, err = run(
        capsys,
        "anonymize",
        seed_dir / "datafly_sweeney.csv",
        *sweeney_flags(seed_dir),
        "--algorithm",
        "datafly",
        "--k",
        "2",
        "--drop-suppressed",
        "--output",
        out,
    )
    assert code == 0, err
    assert out.read_bytes() == crlf((seed_dir / "datafly_sweeney_expected.csv").read_bytes())


def test_anonymize_with_project_file(capsys, adult_dir, tmp_path):
    from kanon_engine.data.roles import Role
    from kanon_engine.hierarchy import read_arx_csv
    from kanon_engine.privacy.models import KAnonymity
    from kanon_engine.project.project_file import Project

    qi = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"]
    project = Project(
        data_path=adult_dir / "adult.csv",
        roles={**{q: Role.QUASI_IDENTIFIER for q in qi}, "occupation": Role.SENSITIVE},
        hierarchies={q: read_arx_csv(adult_dir / f"adult_hierarchy_{q}.csv", q) for q in qi},
        models=(KAnonymity(5),),
        algorithm="optimal",
        algorithm_params={"suppression_limit": 0.05, "metric": "dm"},
    )
    path = tmp_path / "adult.kanon.json"
    project.save(path)
    assert Project.load(path).to_dict(tmp_path) == project.to_dict(tmp_path)
    out = tmp_path / "release.csv"
    report = tmp_path / "report.json"
    code, stdout, err = run(capsys, "anonymize", "--project", path, "--output", out, "--report", report)
    assert code == 0, err
    data = json.loads(report.read_text())
    assert data["discernibility"] == 9_268_952 and data["suppressed"] == 60 and data["classes"] == 230
    release = pd.read_csv(out, sep=",", dtype=str, keep_default_na=False)
    assert len(release) == 30162
    code, stdout, _ = run(capsys, "check", out, "--qi", ",".join(qi), "--k", "5")
    assert code == 0 and json.loads(stdout)["suppressed"] == 60


def test_output_never_overwrites_input(capsys, seed_dir, tmp_path):
    data = tmp_path / "data.csv"
    data.write_bytes((seed_dir / "datafly_sweeney.csv").read_bytes())
    before = data.read_bytes()
    code, _, err = run(capsys, "apply", data, *sweeney_flags(seed_dir), "--levels", "zip=1", "--output", data)
    assert code == 2 and "input" in err.lower()
    assert data.read_bytes() == before


def test_module_entry_point_runs(seed_dir):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kanon_engine",
            "check",
            str(seed_dir / "test_scores.csv"),
            "--qi",
            "age",
            "--k",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 1 and '"k": 1' in proc.stdout


def test_project_keeps_the_users_column_types(tmp_path):
    """A type chosen in the import dialog survives saving and reopening the project."""
    from kanon_engine.data.table import ColumnKind
    from kanon_engine.project.project_file import Project

    data = tmp_path / "d.csv"
    data.write_text("code,when\n01,2024\n02,2023\n03,2022\n")
    project = Project(data_path=data, column_types={"code": ("integer", None), "when": ("date", "%Y")})
    path = tmp_path / "p.json"
    project.save(path)
    reopened = Project.load(path)
    assert reopened.column_types == project.column_types
    table, _ = reopened.load_table()
    assert table.column_types["code"].kind == ColumnKind.INTEGER  # detection alone says categorical
    assert table.column_types["when"].kind == ColumnKind.DATE
    assert table.column_types["when"].date_format == "%Y"
    bad = json.loads(path.read_text())
    bad["data"]["column_types"]["code"]["kind"] = "colour"
    path.write_text(json.dumps(bad))
    with pytest.raises(Exception, match="the type 'colour' of column 'code' is unknown"):
        Project.load(path)


def test_hierarchy_build_and_check(capsys, seed_dir, adult_dir, tmp_path):
    out = tmp_path / "age.csv"
    code, stdout, err = run(
        capsys,
        "hierarchy",
        adult_dir / "adult.csv",
        "--column",
        "age",
        "--intervals",
        "5,10,20",
        "--output",
        out,
    )
    assert code == 0, err
    info = json.loads(stdout)
    assert info["levels"] == 4 and info["distinct_per_level"][-1] == 1
    code, stdout, _ = run(capsys, "hierarchy", adult_dir / "adult.csv", "--column", "age", "--check", out)
    assert code == 0 and json.loads(stdout) == []
    zip_h = tmp_path / "zip.csv"
    code, stdout, _ = run(
        capsys,
        "hierarchy",
        seed_dir / "datafly_sweeney.csv",
        "--column",
        "zip",
        "--masking",
        "--output",
        zip_h,
    )
    assert code == 0 and "0213*" in zip_h.read_text()
    partial = tmp_path / "partial.csv"
    partial.write_text("02138;*\n")
    code, stdout, _ = run(
        capsys, "hierarchy", seed_dir / "datafly_sweeney.csv", "--column", "zip", "--check", partial
    )
    assert code == 1 and "02141" in stdout
