"""Project files hold patient values (issue 12, item 9): written for their owner only, and optionally
sealed with a password (authenticated encryption); a wrong password is a plain message."""

from __future__ import annotations

import json
import os
import stat

import pytest

from kanon_engine.errors import DataError
from kanon_engine.project.project_file import Project
from kanon_engine.project.sealed import PasswordError, is_sealed


@pytest.fixture
def project(sample_dir) -> Project:
    # the hierarchies embedded (the sample refers to files beside it), as a project saved elsewhere has them
    return Project.load(sample_dir / "sample_project.json").with_changes(hierarchy_files={})


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_project_files_are_written_for_their_owner_only(project, tmp_path) -> None:
    path = tmp_path / "p.kanon.json"
    path.write_text("{}", encoding="utf-8")
    os.chmod(path, 0o644)  # an existing, readable file does not lend its permissions
    project.save(path)
    assert _mode(path) == 0o600
    assert Project.load(path).roles == project.roles


def test_a_sealed_project_round_trips_and_hides_the_values(project, tmp_path) -> None:
    path = tmp_path / "p.kanon.json"
    project.save(path, password="Geheim-2024")
    raw = path.read_text(encoding="utf-8")
    assert is_sealed(json.loads(raw)) and Project.is_protected(path)
    assert _mode(path) == 0o600
    for clear in ("admission_date", "quasi-identifier", "02108", "sample_patients.csv"):
        assert clear not in raw  # neither the hierarchies' values nor the roles are readable
    back = Project.load(path, password="Geheim-2024")
    assert back.to_dict(tmp_path) == project.to_dict(tmp_path)


def test_a_wrong_or_missing_password_is_a_plain_message(project, tmp_path) -> None:
    path = tmp_path / "p.kanon.json"
    project.save(path, password="Geheim-2024")
    with pytest.raises(PasswordError) as wrong:
        Project.load(path, password="geheim-2024")
    assert not wrong.value.missing
    assert str(wrong.value).startswith("The password does not open p.kanon.json")
    assert "Traceback" not in str(wrong.value)
    with pytest.raises(PasswordError) as missing:
        Project.load(path)
    assert missing.value.missing and "is protected by a password" in str(missing.value)


def test_a_changed_byte_is_refused_not_read(project, tmp_path) -> None:
    path = tmp_path / "p.kanon.json"
    project.save(path, password="pw")
    doc = json.loads(path.read_text(encoding="utf-8"))
    data = bytearray(doc["data"].encode())
    data[10] = ord("A") if data[10] != ord("A") else ord("B")
    doc["data"] = data.decode()
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DataError):
        Project.load(path, password="pw")


def test_an_empty_password_is_refused(project, tmp_path) -> None:
    from kanon_engine.project.sealed import seal

    with pytest.raises(DataError, match="An empty password protects nothing"):
        seal("{}", "")
