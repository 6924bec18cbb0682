"""What a run used to do without a word, and the messages that misled (issue 29, items 5 to 7), where the
answer is not a refusal (those are in the bad-input catalogue): files read as they are, settings that
have no effect said, a sealed project saved sealed, the language the user chose, figures from one
constant."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kanon_engine.algorithms import algorithms, hardness_note
from kanon_engine.cli import build_parser, main, message_language
from kanon_engine.project.project_file import Project
from kanon_engine.workload.parser import read_workload_text

DATA = "id,age,sex\n" + "".join(f"{i},{30 + i % 3},{'MF'[i % 2]}\n" for i in range(40))
ANON = ["anonymize", "--qi", "age,sex", "--identifier", "id", "--k", "2"]


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_an_old_mac_csv_is_read(tmp_path, capsys, engine):
    """Lines ending with a carriage return only (an old Mac export) were "empty" for a 20 KB file."""
    (tmp_path / "mac.csv").write_bytes(DATA.replace("\n", "\r").encode())
    (tmp_path / "unix.csv").write_bytes(DATA.encode())
    for name in ("mac", "unix"):
        code = main([*ANON, str(tmp_path / f"{name}.csv"), "--engine", engine, "--output",
                     str(tmp_path / f"{name}.out.csv")])  # fmt: skip
        assert code == 0, capsys.readouterr().err
    assert (tmp_path / "mac.out.csv").read_bytes() == (tmp_path / "unix.out.csv").read_bytes()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-8-sig", "cp1252"])
def test_a_workload_file_is_read_in_its_encoding(tmp_path, encoding):
    text = "COUNT(*) WHERE age BETWEEN 30 AND 31 AND sex = 'é'\n"
    (tmp_path / "w.txt").write_bytes(text.encode(encoding))
    assert read_workload_text(tmp_path / "w.txt") == text


def test_a_project_saved_from_a_sealed_one_is_sealed_and_said(tmp_path, capsys, monkeypatch):
    (tmp_path / "data.csv").write_text(DATA)
    Project(data_path=tmp_path / "data.csv").save(tmp_path / "s.json", password="pw")
    monkeypatch.setenv("KANON_PROJECT_PASSWORD", "pw")
    code = main(["anonymize", "--project", str(tmp_path / "s.json"), "--qi", "age,sex", "--identifier", "id",
                 "--k", "2", "--save-project", str(tmp_path / "copy.json")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0, err
    assert Project.is_protected(tmp_path / "copy.json")
    assert "copy.json is sealed with the password of s.json" in err
    assert Project.load(tmp_path / "copy.json", "pw").roles


@pytest.mark.parametrize(
    "flags, said",
    [
        (["--algorithm", "local-suppression", "--drop-suppressed"], "--drop-suppressed has no effect"),
        (["--algorithm", "datafly", "--suppress", "cells", "--drop-suppressed"], "--drop-suppressed has no"),
        (["--memory-limit", "2GB"], "--memory-limit has no effect: it is a setting of the duckdb engine"),
        (["--temp-dir", "/tmp"], "--temp-dir has no effect"),
        (["--workers", "2"], "--workers has no effect: it is a setting of the dask engine"),
    ],
)
def test_settings_a_run_cannot_use_are_said(tmp_path, capsys, flags, said):
    (tmp_path / "data.csv").write_text(DATA)
    assert main([*ANON, str(tmp_path / "data.csv"), "--engine", "memory", *flags]) == 0
    assert f"warning: {said}" in capsys.readouterr().err


def test_the_exact_searches_limits_come_from_one_constant(repo_root):
    found = algorithms()
    note = hardness_note()
    readme = (repo_root / "README.md").read_text()
    for name in ("optimal", "incognito", "samarati"):
        limit = f"{found[name].max_nodes:,}"
        assert limit in note
    assert (
        f"up to {found['optimal'].max_nodes:,} transformations (`incognito` {found['incognito'].max_nodes:,}"
        in readme
    )


def test_engine_flags_help_names_their_values():
    text = build_parser()._subparsers._group_actions[0].choices["anonymize"].format_help()  # noqa: SLF001
    flat = re.sub(r"\s+", " ", text)
    for flag, words in (
        ("--scheduler", "an address such as tcp://HOST:8786, or a scheduler file"),
        ("--memory-limit", "an amount such as 1GB or 512MB, at least 64MB"),
        ("--temp-dir", "a folder"),
    ):
        part = flat.rsplit(f"{flag} {flag[2:].upper()}", 1)[1][:400]  # the option, not the usage line
        assert words in part and "(a number" not in part.split("--", 1)[0], flag


@pytest.mark.parametrize(
    "argv, env, expected",
    [
        (["check", "--language", "de"], {}, "de"),
        (["check", "--language=fr"], {}, "fr"),
        (["check"], {"KANON_LANG": "es"}, "es"),
        (
            ["check"],
            {"KANON_LANG": "", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "de_DE.UTF-8"},
            "de",
        ),
        (["check"], {"KANON_LANG": "", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C"}, "en"),
        (["check", "--language", "de"], {"KANON_LANG": "fr"}, "de"),
    ],
)
def test_the_command_line_speaks_the_users_language(monkeypatch, argv, env, expected):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert message_language(argv) == expected


def test_a_missing_file_is_said_in_german_with_lang(tmp_path, capsys, monkeypatch):
    """The issue's case: LANG=de_DE.UTF-8, no --language, no KANON_LANG."""
    from kanon_engine import i18n

    for name in ("KANON_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.setenv(name, "")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    try:
        assert main(["check", str(tmp_path / "nosuch.csv"), "--qi", "a", "--k", "2"]) == 2
    finally:
        i18n.install("en")
    err = capsys.readouterr().err
    assert err.startswith("Fehler: nosuch.csv wurde in") and "nicht gefunden" in err


def test_the_json_report_names_the_suppression_mark(tmp_path, capsys):
    (tmp_path / "data.csv").write_text(DATA)
    report = tmp_path / "r.json"
    assert main([*ANON, str(tmp_path / "data.csv"), "--report", str(report)]) == 0
    assert json.loads(Path(report).read_text())["suppression_mark"] == "*"
