"""``anonymize`` counts the release's facts once, from the file it writes (rough41, item 3): the warnings it
prints about a release of little use and the figures of its JSON report are those pandas recounts from
the written CSV, and the rows are counted once (before, once from the run's rows for the warnings and once
more from the written file for the report: about 1 s on Adult x30)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import kanon_engine.report.facts as facts_module
from kanon_engine.cli import main

QI = ["age", "sex", "zip", "admission_date"]


@pytest.fixture
def counted(monkeypatch) -> list[str]:
    """The ``source`` of every count of a release's (or the input's) facts made while the test runs."""
    sources: list[str] = []
    count = facts_module.FactsTally.facts

    def counting(self, source: str = "written"):  # type: ignore[no-untyped-def]
        sources.append(source)
        return count(self, source)

    monkeypatch.setattr(facts_module.FactsTally, "facts", counting)
    return sources


def _recounted(path) -> dict[str, object]:
    """The release's groups and suppressed records as pandas reads them from the written CSV: a record
    whose every quasi-identifier reads * is suppressed, the other rows form groups by their text."""
    rows = pd.read_csv(path, dtype=str, keep_default_na=False)
    star = (rows[QI] == "*").all(axis=1)
    sizes = rows[~star].groupby(QI).size()
    lost = [q for q in QI if (rows[q] == "*").all()]
    return {"rows": len(rows), "suppressed_rows": int(star.sum()), "sizes": sizes, "lost": lost}


@pytest.mark.parametrize(
    "flags",
    [[], ["--drop-suppressed"], ["--engine", "duckdb"]],
    ids=["kept", "dropped", "streamed"],  # streamed: the rows written by DuckDB, counted as they go
)
def test_the_warnings_and_the_report_are_the_written_files_counted_once(
    flags: list[str], sample_dir, tmp_path, capsys, counted
) -> None:
    out, report = tmp_path / "release.csv", tmp_path / "report.json"
    args = ["anonymize", "--project", str(sample_dir / "sample_project.json"), "--k", "300"]
    args += ["--suppression-limit", "0.9", "--metric", "dm", "--output", str(out), "--report", str(report)]
    assert main([*args, *flags]) == 0
    err = capsys.readouterr().err
    records = len(pd.read_csv(sample_dir / "sample_patients.csv", dtype=str))
    file = _recounted(out)
    suppressed = records - int(file["rows"]) + int(file["suppressed_rows"])  # dropped or all *
    sizes = file["sizes"]
    assert isinstance(sizes, pd.Series)

    summary = json.loads(report.read_text(encoding="utf-8"))
    assert summary["classes"] == len(sizes) and summary["min_class_size"] == int(sizes.min())
    assert summary["suppressed"] == suppressed
    shown = summary["facts"]["release"]["class_sizes"]  # [size, how many groups of that size]
    assert shown == [[int(size), int(n)] for size, n in sorted(sizes.value_counts().items())]

    # the warnings, in their order: each lost column, too few groups, most records suppressed
    expected = [f"warning: '{q}' was generalized to its top level" for q in file["lost"]]  # type: ignore[union-attr]
    if len(sizes) < 5:
        expected.append(f"warning: The release has only {len(sizes)} groups of records")
    if suppressed >= 0.5 * records:
        expected.append(f"warning: {suppressed:,} of {records:,} records")
    said = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(said) == len(expected) and all(s.startswith(e) for s, e in zip(said, expected)), said
    assert len(expected) >= 2  # the case says something: a lost column and too few groups

    # the rows counted once: the written file's facts (and the input's, once, for the report's comparison)
    assert counted.count("written") == 1 and "memory" not in counted, counted
    assert counted.count("original") <= 1
