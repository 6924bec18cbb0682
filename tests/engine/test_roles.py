"""Role suggestions made at import (kanon_engine.data.roles.suggest_roles)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.data import Role, read_table, suggest_roles

SHARED = Path(os.environ.get("KANON_SHARED", Path(__file__).resolve().parents[2] / ".." / "shared"))
SEEDS = SHARED / "datasets" / "seed_examples"
needs_shared = pytest.mark.skipif(not SEEDS.is_dir(), reason="shared/ datasets not available")


def by_column(frame: pd.DataFrame) -> dict:
    return {s.column: s for s in suggest_roles(frame)}


@needs_shared
def test_salary_employees_identifiers() -> None:
    s = by_column(read_table(SEEDS / "salary_employees.csv").frame)
    for name in ("id", "name", "address"):
        assert s[name].role is Role.IDENTIFIER, name
        assert s[name].flagged is False
        assert f"'{name}' looks like a direct identifier" in s[name].reason
    for name in ("gender", "age", "zip", "basic"):
        assert s[name].role is None, name


@needs_shared
def test_test_scores_first_and_last_name() -> None:
    s = by_column(read_table(SEEDS / "test_scores.csv").frame)
    assert s["first_name"].role is Role.IDENTIFIER
    assert s["last_name"].role is Role.IDENTIFIER
    assert s["age"].role is None


def test_unique_column_is_flagged_not_decided_silently() -> None:
    frame = pd.DataFrame({"code": [f"K{i}" for i in range(20)], "sex": ["M", "F"] * 10})
    s = by_column(frame)
    assert s["code"].role is Role.IDENTIFIER and s["code"].flagged
    assert "Almost every value of 'code' is unique" in s["code"].reason
    assert s["sex"].role is None


def test_small_tables_are_not_flagged_by_uniqueness() -> None:
    frame = pd.DataFrame({"code": ["a", "b", "c"]})
    assert by_column(frame)["code"].role is None


@pytest.mark.parametrize("name", ["Patient ID", "patient_id", "e-mail", "SSN", "phone", "surname"])
def test_identifier_names(name: str) -> None:
    frame = pd.DataFrame({name: ["x", "x", "y"]})
    assert suggest_roles(frame)[0].role is Role.IDENTIFIER


@pytest.mark.parametrize("name", ["age", "zipcode", "diagnosis", "idea", "rename"])
def test_non_identifier_names(name: str) -> None:
    frame = pd.DataFrame({name: ["x", "x", "y"]})
    assert suggest_roles(frame)[0].role is None


# --- conflicting roles (issue 17, item 7) ----------------------------------------------------------------
@pytest.mark.parametrize(
    "flags,words",
    [
        (
            ["--identifier", "patient_id,name", "--qi", "age,name"],
            "an identifier (--identifier) and as a quasi",
        ),
        (["--identifier", "name", "--qi", "age", "--sensitive", "name"], "(--identifier) and as a sensitive"),
        (
            ["--qi", "age,diagnosis", "--sensitive", "diagnosis"],
            "a quasi-identifier (--qi) and as a sensitive",
        ),
    ],
)
def test_a_column_given_two_roles_is_refused(capsys, tmp_path, flags, words) -> None:
    from kanon_engine.cli import main

    data = Path(__file__).resolve().parents[2] / "resources" / "sample" / "sample_patients.csv"
    out = tmp_path / "rel.csv"
    code = main(["anonymize", str(data), *flags, "--k", "5", "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "a column has one role" in err and "Traceback" not in err
    assert not out.exists()


def test_a_flag_against_the_projects_role_is_refused(capsys, tmp_path) -> None:
    from kanon_engine.cli import main

    sample = Path(__file__).resolve().parents[2] / "resources" / "sample"
    project = str(sample / "sample_project.json")
    code = main(["anonymize", "--project", project, "--qi", "age,sex,name", "--k", "5"])
    err = capsys.readouterr().err
    assert code == 2
    assert "'name' is given both as an identifier (in the project sample_project.json)" in err
    assert "as a quasi-identifier (--qi)" in err
    # giving --identifier too replaces the project's identifiers: then the choice is explicit
    code = main(
        ["anonymize", "--project", project, "--identifier", "patient_id", "--qi", "age,name", "--k", "2"]
    )
    assert code == 0, capsys.readouterr().err


def test_project_file_with_a_column_twice_in_roles(capsys, tmp_path) -> None:
    from kanon_engine.cli import main
    from kanon_engine.errors import ConfigError
    from kanon_engine.project import Project

    (tmp_path / "d.csv").write_text("name,age\nA,1\nB,2\n")
    path = tmp_path / "p.json"
    path.write_text(
        '{"schema_version": 1, "data": {"path": "d.csv"}, '
        '"roles": {"name": "identifier", "age": "quasi-identifier", "name": "quasi-identifier"}}'
    )
    with pytest.raises(ConfigError, match="'name' is given two roles, 'identifier' and 'quasi-identifier'"):
        Project.load(path)
    assert main(["anonymize", "--project", str(path), "--k", "2"]) == 2
    assert "a column has one role" in capsys.readouterr().err
