"""The command line after issue 12: shares as percentages, warnings for useless results, and protected
projects opened with the password from the environment (never a flag)."""

from __future__ import annotations

import shutil

import pytest

from kanon_engine.cli import main
from kanon_engine.project.project_file import Project


def test_percent_share_and_result_warnings(sample_dir, tmp_path, capsys) -> None:
    project = sample_dir / "sample_project.json"
    code = main(["anonymize", "--project", str(project), "--suppression-limit", "5 %", "--k", "2000"])
    err = capsys.readouterr().err
    assert code == 0
    assert "can have only one group" in err  # before the run
    # after it: every record shows * everywhere, so every record counts as suppressed (in no group)
    assert "2,000 of 2,000 records (100 %) were suppressed" in err and "generalized to its top level" in err


def test_protected_project_needs_the_password_from_the_environment(sample_dir, tmp_path, capsys, monkeypatch):
    work = tmp_path / "sample"
    shutil.copytree(sample_dir, work)
    Project.load(work / "sample_project.json").save(work / "p.kanon.json", password="Geheim-2024")
    code = main(["anonymize", "--project", str(work / "p.kanon.json")])
    err = capsys.readouterr().err
    assert code == 2 and "is protected by a password" in err and "Traceback" not in err
    monkeypatch.setenv("KANON_PROJECT_PASSWORD", "wrong")
    assert main(["anonymize", "--project", str(work / "p.kanon.json")]) == 2
    assert "The password does not open p.kanon.json" in capsys.readouterr().err
    monkeypatch.setenv("KANON_PROJECT_PASSWORD", "Geheim-2024")
    assert main(["anonymize", "--project", str(work / "p.kanon.json")]) == 0


@pytest.mark.parametrize("share", ["5%", "0,05", "0.05"])
def test_every_spelling_of_a_share(sample_dir, share: str, capsys) -> None:
    project = sample_dir / "sample_project.json"
    assert main(["anonymize", "--project", str(project), "--suppression-limit", share]) == 0
    assert '"suppressed": 92' in capsys.readouterr().out
