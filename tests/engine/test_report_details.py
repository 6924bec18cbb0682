"""What the project file keeps for the report and the linkage demo (schema 2): the sign-off's purpose,
recipient and approver, and the public list with its join; how older files migrate; the command line's
flags for them reaching the report; and the public list protected from every writer (issue 12)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.cli import main
from kanon_engine.data.table import ReadOptions
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.project.project_file import SCHEMA_VERSION, Project, ReportDetails, migrate
from kanon_engine.project.public_list import PUBLIC_LIST_FILE, PublicList
from kanon_engine.release.fileio import InputGuard, atomic_write_text


def _voters(folder: Path) -> Path:
    """A public list in a German hospital's spelling: cp1252, semicolons, other column names."""
    path = folder / "Wählerverzeichnis.csv"
    text = "Name;Alter;Geschlecht;PLZ\nLee;35;Male;533449\nZan;38;Female;533448\nMüller;41;Female;533447\n"
    path.write_bytes(text.encode("cp1252"))
    return path


def test_schema_1_projects_migrate_to_empty_report_details_and_no_list(sample_dir: Path) -> None:
    old = json.loads((sample_dir / "sample_project.json").read_text(encoding="utf-8"))
    assert old["schema_version"] == 1
    new = migrate(old)
    assert new["schema_version"] == SCHEMA_VERSION == 2
    assert new["report"] == {"purpose": "", "recipient": "", "approved_by": ""} and new["linkage"] is None
    project = Project.load(sample_dir / "sample_project.json")
    assert project.report == ReportDetails() and project.public_list is None
    with pytest.raises(ConfigError, match="newer kanon"):
        migrate({**old, "schema_version": SCHEMA_VERSION + 1})
    with pytest.raises(ConfigError, match="not a kanon project"):
        migrate({**old, "schema_version": "two"})


def test_report_details_and_public_list_round_trip(tmp_path: Path) -> None:
    voters = _voters(tmp_path)
    details = ReportDetails("Study of stays, 2024", "Dr. Ana Ruiz, Institut für Statistik", "M. Keller, DPO")
    public = PublicList(
        voters, ReadOptions(delimiter=";", encoding="cp1252"), {"age": "Alter", "zipcode": "PLZ"}
    )
    project = Project(report=details, public_list=public)
    project.save(tmp_path / "p.kanon.json")
    saved = json.loads((tmp_path / "p.kanon.json").read_text(encoding="utf-8"))
    assert saved["linkage"]["path"] == "Wählerverzeichnis.csv"  # relative to the project file
    assert saved["linkage"]["join"] == {"age": "Alter", "zipcode": "PLZ"}
    assert saved["report"]["approved_by"] == "M. Keller, DPO"
    loaded = Project.load(tmp_path / "p.kanon.json")
    assert loaded.report == details
    assert loaded.public_list == public  # the path comes back absolute, from the project's folder


def test_no_writer_may_replace_the_public_list(tmp_path: Path) -> None:
    voters = _voters(tmp_path)
    before = voters.read_bytes()
    project = Project(public_list=PublicList(voters))
    assert (voters, PUBLIC_LIST_FILE) in project.input_files()
    with InputGuard(project.input_files()):
        with pytest.raises(DataError, match="public list"):
            atomic_write_text(voters, "overwritten")
    assert voters.read_bytes() == before


def test_cli_flags_fill_the_sign_off_and_the_linkage_section(capsys, seed_dir: Path, tmp_path: Path) -> None:
    voters = _voters(tmp_path)
    html = tmp_path / "report.html"
    saved = tmp_path / "saved.kanon.json"
    argv = [
        str(seed_dir / "mondrian_patients.csv"),
        "--qi",
        "age,sex,zipcode",
        "--sensitive",
        "disease",
        "--k",
        "2",
        "--external",
        str(voters),
        "--join",
        "age=Alter,sex=Geschlecht",
        "--join",
        "zipcode=PLZ",
        "--purpose",
        "Study of flu seasons",
        "--recipient",
        "Dr. Ana Ruiz",
        "--approved-by",
        "M. Keller, data protection officer",
        "--report-html",
        str(html),
        "--save-project",
        str(saved),
    ]
    assert main(["anonymize", *argv]) == 0
    text = html.read_text(encoding="utf-8")
    for label, value in (
        ("Purpose of the release", "Study of flu seasons"),
        ("Recipient (person, institution)", "Dr. Ana Ruiz"),
        ("Approved by (name, role)", "M. Keller, data protection officer"),
    ):
        assert re.search(rf"<td[^>]*>{re.escape(label)}</td><td[^>]*>{re.escape(value)}</td>", text), label
    # the cp1252 list was read with its encoding and delimiter detected; Lee is singled out before, not after
    assert "Public list: Wählerverzeichnis.csv" in text
    assert (
        "Joining a public list of 3 people with the original data on age, sex, zipcode singles out 1" in text
    )
    assert re.search(r"Singled out \(exactly one matching record\)</td><td[^>]*>1 \(33\.3 %\)</td>", text)
    project = Project.load(saved)
    assert project.report.purpose == "Study of flu seasons"
    assert project.public_list is not None and project.public_list.join == {
        "age": "Alter",
        "sex": "Geschlecht",
        "zipcode": "PLZ",
    }
    # the risk command takes the list from the saved project
    capsys.readouterr()
    assert main(["risk", "--project", str(saved), "--anonymize"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["linkage"]["list_columns"] == ["Alter", "Geschlecht", "PLZ"]
    assert (
        out["linkage"]["before"]["people_singled_out"] == 1
        and out["linkage"]["after"]["people_singled_out"] == 0
    )


def test_join_needs_a_list_and_a_release_may_not_replace_it(capsys, seed_dir: Path, tmp_path: Path) -> None:
    voters = _voters(tmp_path)
    data = [str(seed_dir / "mondrian_patients.csv"), "--qi", "age,sex,zipcode", "--k", "2"]
    assert main(["anonymize", *data, "--join", "age=Alter"]) == 2
    assert "--join needs a public list" in capsys.readouterr().err
    before = voters.read_bytes()
    assert main(["anonymize", *data, "--external", str(voters), "--output", str(voters)]) == 2
    assert "the public list" in capsys.readouterr().err
    assert voters.read_bytes() == before


def test_a_list_sharing_nothing_is_one_plain_sentence(capsys, seed_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "towns.csv"
    pd.DataFrame({"name": ["x"], "town": ["y"]}).to_csv(other, index=False)
    argv = [str(seed_dir / "mondrian_patients.csv"), "--qi", "age,sex,zipcode", "--k", "2"]
    assert main(["risk", *argv, "--anonymize", "--external", str(other)]) == 2
    err = capsys.readouterr().err
    assert "shares no quasi-identifier" in err and "Traceback" not in err


def test_save_as_into_another_folder_keeps_the_hierarchy_files(sample_dir: Path, tmp_path: Path) -> None:
    """The sample names its hierarchy files relative to its folder; saved elsewhere, they are named
    relative to the new project file, so it opens with the same hierarchies."""
    project = Project.load(sample_dir / "sample_project.json")
    project.save(tmp_path / "copy.kanon.json")
    saved = json.loads((tmp_path / "copy.kanon.json").read_text(encoding="utf-8"))
    age = Path(saved["hierarchies"]["age"]["file"])
    assert (tmp_path / age).resolve() == (sample_dir / "hierarchy_age.csv").resolve()
    again = Project.load(tmp_path / "copy.kanon.json")
    assert again.hierarchies["age"].rows() == project.hierarchies["age"].rows()
    assert {p.resolve() for p, _ in again.input_files()} == {p.resolve() for p, _ in project.input_files()}
