"""An output named with another kind's ending is refused in one sentence that names both kinds with
their articles, in the language in force (release/outputs.py's table of kind phrases)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kanon_engine.errors import ConfigError
from kanon_engine.i18n import using
from kanon_engine.release.outputs import Output, check_outputs


def _refusal(tmp_path: Path, name: str, kind: str, label: str) -> str:
    with pytest.raises(ConfigError) as caught:
        check_outputs([Output(tmp_path / name, kind, label)])
    return str(caught.value)


def test_a_report_under_a_release_ending_names_both_kinds(tmp_path: Path) -> None:
    text = _refusal(tmp_path, "r.csv", "HTML report", "--report-html")
    assert text.startswith(
        "--report-html r.csv: an HTML report would be written under a name ending in .csv, which is the "
        "ending of a release."
    )
    assert "End the name in .html" in text


def test_a_release_under_a_report_ending_is_not_a_format(tmp_path: Path) -> None:
    # the release's format comes from its name: .pdf names none it writes
    assert "names none it writes" in _refusal(tmp_path, "out.pdf", "release", "--output")


def test_the_kinds_are_said_in_the_language_in_force(tmp_path: Path) -> None:
    with using("de"):
        text = _refusal(tmp_path, "r.csv", "PDF report", "--report-pdf")
    assert "eine Freigabe" in text
    assert "würde unter einem Namen auf .csv geschrieben" in text
