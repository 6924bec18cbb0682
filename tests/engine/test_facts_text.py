"""Text (issue 27): every number the report and the command line state about a release is one of the
release's facts, formatted (:mod:`kanon_engine.report.facts`), so no figure can appear that was not
counted from the release.

The HTML report's words about the release are checked in English, German and French: the plain-words
summary, the Result figures, the values per quasi-identifier, where the * come from, the row order, the
risk table (both columns: the original data's facts are the same computation on the input) and the
sensitive attribute's figures that are facts (homogeneous groups, fewest values, largest share). Numbers
inside a quoted example label (“1960-1969”) and in column names are data, not figures, and are left out.
Entropy l and t come from the risk assessment on the same groups and are not facts; they are not read.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from kanon_engine.cli import main
from kanon_engine.data.table import Table
from kanon_engine.i18n import _, formats, using
from kanon_engine.project.project_file import Project
from kanon_engine.report.build import build_report
from kanon_engine.report.html import report_view
from kanon_engine.report.sentences import MINIMALITY_WARNING, STAR_MEANING, one_in, pct

QI = ["birth", "sex", "postcode"]


def hospital(n: int = 600, seed: int = 3) -> pd.DataFrame:
    """A small stay extract: birth years, sexes (a few blanks), 5-digit postcodes and "inconnu", a
    diagnosis; a record number to identify."""
    rng = np.random.default_rng(seed)
    codes = np.array(["69001", "69002", "69003", "06400", "01000", "inconnu"], dtype=object)
    sex = np.array(["F", "M"], dtype=object)[rng.integers(0, 2, n)]
    sex[rng.random(n) < 0.02] = ""
    return pd.DataFrame(
        {
            "stay": [f"S{i:05d}" for i in range(n)],
            "birth": rng.integers(1930, 2010, n).astype(str),
            "sex": sex,
            "postcode": codes[np.minimum(rng.geometric(0.4, n) - 1, len(codes) - 1)],
            "diagnosis": np.array(["I10", "E11", "J45", "K35", "N39"], dtype=object)[rng.integers(0, 5, n)],
        }
    )


RUNS = {
    "local recoding": ["--algorithm", "local-recoding", "--k", "5"],
    "optimal, l and shuffle": ["--algorithm", "optimal", "--k", "5", "--l", "2", "--shuffle", "11"],
    "optimal, dropped": [
        "--algorithm",
        "optimal",
        "--k",
        "8",
        "--suppression-limit",
        "0.2",
        "--drop-suppressed",
    ],
    "mondrian": ["--algorithm", "mondrian", "--k", "4"],
}


def run(tmp: Path, flags: list[str]) -> tuple[dict, dict, Path]:
    """The CLI run: the JSON report, the line it printed, and the release it wrote."""
    data = tmp / "stays.csv"
    hospital().to_csv(data, index=False)
    out, report = tmp / "r.csv", tmp / "r.json"
    argv = ["anonymize", str(data), "--identifier", "stay", "--qi", ",".join(QI), "--sensitive", "diagnosis"]
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
        code = main(
            [
                *argv,
                *flags,
                "--output",
                str(out),
                "--report",
                str(report),
                "--save-project",
                str(tmp / "p.json"),
            ]
        )
    assert code == 0
    return json.loads(report.read_text(encoding="utf-8")), json.loads(stdout.getvalue()), out


def leaves(node: Any) -> Iterator[float]:
    """Every number in a facts tree (but the histogram of group sizes, which the chart draws and no
    sentence states: it would let small numbers pass as facts)."""
    if isinstance(node, dict):
        for key, v in node.items():
            if key != "class_sizes":
                yield from leaves(v)
    elif isinstance(node, list):
        for v in node:
            yield from leaves(v)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield node


#: A number as the report's languages write it (thousands separators, a decimal point or comma).
NUMBER = re.compile(r"\d(?:[\d\u00a0\u202f.,]*\d)?")


def tokens(text: str) -> list[str]:
    return NUMBER.findall(text)


def allowed(facts: dict) -> set[str]:
    """Every fact formatted every way the words format a number: a count, a percentage (one or two
    decimals), and a chance as "1 in n"."""
    out: set[str] = set()
    for v in leaves(facts):
        texts = [formats.count(v)] if float(v).is_integer() else []
        if 0 <= v <= 1:
            texts += [pct(v), formats.percent(v, 0), formats.percent(v, 1), one_in(v)]
        for text in texts:
            out.update(tokens(text))
    return out


def cells(
    table: dict | None, columns: tuple[int, ...] | None = None, skip: tuple[int, ...] = ()
) -> list[str]:
    """The text of a report table's cells (some columns, some rows left out)."""
    if not table:
        return []
    out = []
    for i, row in enumerate(table["rows"]):
        if i in skip:
            continue
        out += [str(c) for j, c in enumerate(row) if columns is None or j in columns]
    return out


def stated(view: dict) -> list[str]:
    """The texts of the report that state something about the release (see the module docstring)."""
    result, risk = view["result"], view["risk"]
    fixed = {_(STAR_MEANING), _(MINIMALITY_WARNING)}  # the same words for every release (a citation's year)
    texts = [t for t in view["summary"] if t not in fixed]
    texts += cells(result["figures"], skip=(len(result["figures"]["rows"]) - 1,))  # the run time is no fact
    texts += cells(result["per_attribute"], (1, 2, 3, 4)) + cells(result["star_causes"], (1,))
    texts += [row[1] for row in view["configuration"]["parameters"]["rows"] if "row" in str(row[0]).lower()]
    texts += cells(risk["figures"], (1, 2))
    for attribute in view["homogeneity"]:
        texts += cells(attribute["figures"], (1, 2), skip=tuple(range(4, 10)))
    return texts


def without_data(text: str, columns: list[str]) -> str:
    """The text without quoted example labels and column names (data, not figures)."""
    text = re.sub(r"“[^”]*”|\"[^\"]*\"|«[^»]*»|„[^“]*“", "", text)
    for c in sorted(columns, key=len, reverse=True):
        text = text.replace(c, "")
    return text


@pytest.mark.parametrize("name", sorted(RUNS))
@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_every_number_the_report_states_is_a_fact(tmp_path: Path, name: str, language: str) -> None:
    summary, printed, out = run(tmp_path, RUNS[name])
    project = Project.load(tmp_path / "p.json")
    table, _warnings = project.load_table()
    from kanon_engine.cli.anonymize import run_project
    from kanon_engine.release.export import ExportOptions, export_release

    result = run_project(project, table)
    written = export_release(table, result, tmp_path / "again.csv", ExportOptions())
    with using(language):
        report = build_report(table, result, project, release=written.to_dict())
        view = report_view(report)
        ok = allowed(report["facts"])
        for text in stated(view):
            for token in tokens(without_data(text, list(table.columns))):
                assert token in ok, f"{token!r} in {text!r} is no fact of the release"
    # and the line the command printed: its figures about the release are the facts
    rel = summary["facts"]["release"]
    assert printed["suppressed"] == rel["records_suppressed"] and printed["classes"] == rel["classes"]
    assert printed["min_class_size"] == rel["min_class_size"]
    assert printed["suppressed_cells"] == rel["kept_star_cells"]
    assert printed["records_touched"] == rel["kept_records_with_star"]


def test_the_star_count_is_in_the_html_report(tmp_path: Path) -> None:
    """The outside check looks for the release's '*' count in the HTML report (finding 1)."""
    summary, _printed, _out = run(
        tmp_path, [*RUNS["local recoding"], "--report-html", str(tmp_path / "r.html")]
    )
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    stars = summary["facts"]["release"]["star_cells"]
    assert stars > 0 and f">{formats.count(stars)}</td>" in html


def test_a_frame_of_strings_gives_the_same_facts_as_its_file(tmp_path: Path) -> None:
    """Facts counted on the frame written equal the facts of the file read back (one definition)."""
    from kanon_engine.report.facts import release_facts

    summary, _printed, out = run(tmp_path, RUNS["optimal, l and shuffle"])
    frame = pd.read_csv(out, dtype=str, keep_default_na=False).replace("", None)
    again = release_facts(Table.from_frame(frame).frame, QI, ["diagnosis"])
    for key in ("records", "star_cells", "classes", "min_class_size", "records_with_star"):
        assert again["release"][key] == summary["facts"]["release"][key], key
    assert again["sensitive"] == summary["facts"]["sensitive"]
