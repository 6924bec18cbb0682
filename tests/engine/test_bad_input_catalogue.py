"""The bad-input catalogue: what a hospital user or a script may hand the command line, and the one plain
sentence each gets back (issue 17). Every case asserts the exit code, that no traceback escapes, that the
error is one line, and the key words of the message (the file, line, column or value, and what to do).

Each case writes its files into a fresh folder: ``data.csv`` (twelve patients), ``h.csv`` (an ARX
hierarchy of ``age``) and ``p.json`` (a project of both) exist unless the case replaces them; ``{d}`` in an
argument is that folder. Files a case must leave alone are compared by SHA-256 before and after.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kanon_engine.cli import main

DATA = "id,name,age,sex,zip,diag,visit\n" + "".join(
    f"P{i:02d},Name {i},{30 + i % 4},{'MF'[i % 2]},0213{i % 3},{['flu', 'cold', 'hiv'][i % 3]},"
    f"2022-0{1 + i % 9}-1{i % 10}\n"
    for i in range(12)
)
HIER = "30;30-31;*\n31;30-31;*\n32;32-33;*\n33;32-33;*\n"
PROJECT = {
    "schema_version": 1,
    "data": {"path": "data.csv"},
    "roles": {"id": "identifier", "name": "identifier", "age": "quasi-identifier", "sex": "quasi-identifier"},
    "hierarchies": {"age": {"file": "h.csv"}},
    "models": [{"name": "k-anonymity", "k": 2}],
}
ANON = ["anonymize", "{d}/data.csv", "--qi", "age,sex", "--identifier", "id,name", "--k", "2"]
APPLY = ["apply", "{d}/data.csv", "--qi", "age,sex", "--identifier", "id,name"]
RISK = ["risk", "{d}/data.csv", "--qi", "age,sex", "--identifier", "id,name"]


@dataclass
class Case:
    """One bad input: the files it writes, the command, the exit code and the words of the answer."""

    id: str
    argv: list[str]
    words: tuple[str, ...]
    code: int = 2
    files: dict[str, str | bytes | Callable[[Path], None]] = field(default_factory=dict)
    unchanged: tuple[str, ...] = ("data.csv", "h.csv", "p.json")
    absent: tuple[str, ...] = ()  # files that must not exist afterwards (outputs never started)
    env: dict[str, str] = field(default_factory=dict)  # environment of the run ({d}: the folder)
    #: what the run meets that a file cannot say (a file the process may not read: the tests run as root)
    patch: Callable[[pytest.MonkeyPatch, Path], None] | None = None


def project(**changes) -> str:
    d = json.loads(json.dumps(PROJECT))
    for key, value in changes.items():
        d[key] = value
    return json.dumps(d)


def symlink(target: str, name: str) -> Callable[[Path], None]:
    return lambda d: os.symlink(d / target, d / name)


def mixed_dates(d: Path) -> None:
    rows = [
        f"{i},{'2022-05-0' if i % 3 else '0'}{i % 9 + 1}{'' if i % 3 else '.05.2022'},F" for i in range(30)
    ]
    (d / "dates.csv").write_text("id,dob,sex\n" + "\n".join(rows) + "\n")


EMPTY_AGE = "".join(
    line.split(",")[0] + "," + line.split(",")[1] + ",," + ",".join(line.split(",")[3:]) + "\n"
    for line in DATA.splitlines()
).replace("id,name,,", "id,name,age,", 1)


def empty_parquet(d: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    ages = pa.array([None] * 12, pa.string())
    pq.write_table(pa.table({"age": ages, "sex": ["M", "F"] * 6}), d / "t.parquet")


def deny_reading(mp: pytest.MonkeyPatch, path: Path) -> None:
    """The file exists but the process may not read it (the tests run as root, where chmod 000 does
    not stop a read): every open of it for reading fails as the system would say."""
    import builtins

    real = builtins.open

    def guarded(file, mode="r", *args, **kwargs):
        if "r" in str(mode) and Path(str(file)).resolve() == path.resolve():
            raise PermissionError(13, "Permission denied", str(file))
        return real(file, mode, *args, **kwargs)

    mp.setattr(builtins, "open", guarded)
    mp.setattr(Path, "open", lambda self, mode="r", *a, **k: guarded(self, mode, *a, **k))


def sealed_with(**changes) -> Callable[[Path], None]:
    def write(d: Path) -> None:
        from kanon_engine.project.sealed import seal

        doc = json.loads(seal(project(), "pw"))
        (d / "s.json").write_text(json.dumps({**doc, **changes}))

    return write


def read_only(text: str) -> Callable[[Path], None]:
    def write(d: Path) -> None:
        (d / "rel.csv").write_text(text)
        (d / "rel.csv").chmod(0o444)

    return write


def edit_before_writing(mp: pytest.MonkeyPatch, path: Path) -> None:
    """Move one patient to another group after counting, before the release is written (the sink's
    test hook: deterministic, no race)."""
    from kanon_engine.sources.plan import sink

    def edit(source) -> None:
        path.write_text(path.read_text().replace("P00,Name 0,30,M", "P00,Name 0,31,F"))

    mp.setattr(sink, "before_reading_again", edit)


CASES = [
    # --- the data file ----------------------------------------------------------------------------------
    Case(
        "wrong-delimiter",
        ["check", "{d}/data.csv", "--qi", "a", "--k", "2", "--delimiter", ","],
        ("delimiter",),
        files={"data.csv": "a;b;c\nx;1;2\ny;2;3\n"},
    ),
    Case("empty", ANON, ("data.csv is empty", "header row"), files={"data.csv": ""}),
    Case("header-only", ANON, ("has a header but no rows",), files={"data.csv": "age,sex\n"}),
    Case(
        "ragged",
        ANON,
        ("Line 4 of data.csv has 3 fields", "the header has 2"),
        files={"data.csv": "age,sex\n30,F\n31,M\n32,F,x\n"},
    ),
    Case(
        "missing-file",
        ["check", "{d}/nope.csv", "--qi", "a", "--k", "2"],
        ("nope.csv was not found", "Check the file name"),
    ),
    Case("input-is-a-folder", ["check", "{d}", "--qi", "a", "--k", "2"], ("folder",)),
    Case(
        "binary-file",
        ["check", "{d}/data.csv", "--qi", "a", "--k", "2"],
        ("does not look like a text table", "line 1", "Export the table as CSV"),
        files={"data.csv": bytes(range(256)) * 8},
    ),
    Case(
        "nul-byte",
        ["check", "{d}/data.csv", "--qi", "a", "--k", "2"],
        ("Line 3 of data.csv holds a NUL byte (0x00)", "UTF-16"),
        files={"data.csv": b"a,b\nx,1\ny\x00z,2\n"},
    ),
    Case(
        "zip-not-a-workbook",
        ["check", "{d}/t.xlsx", "--qi", "a", "--k", "2"],
        ("t.xlsx is a zip archive but not an Excel workbook", "unzip it"),
        files={"t.xlsx": b"PK\x03\x04" + b"\x00" * 60},
    ),
    Case(
        "old-xls",
        ["check", "{d}/t.xls", "--qi", "a", "--k", "2"],
        ("old Excel .xls format", ".xlsx or .csv"),
        files={"t.xls": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100},
    ),
    Case(
        "damaged-parquet",
        ["check", "{d}/t.parquet", "--qi", "a", "--k", "2"],
        ("t.parquet starts as a Parquet file but cannot be read", "export it again"),
        files={"t.parquet": b"PAR1" + b"\x01" * 50},
    ),
    Case(
        "utf16-without-bom",
        ["check", "{d}/data.csv", "--qi", "a", "--k", "2"],
        ("Line 1 of data.csv holds a NUL byte", "Choose the encoding UTF-16"),
        files={"data.csv": "a,b\nMüller,1\n".encode("utf-16-le")},
    ),
    Case(
        "duplicate-column",
        ANON,
        ("the column name 'age' twice", "columns 1 and 2"),
        files={"data.csv": "age,age,sex\n1,2,F\n"},
    ),
    Case("no-input", ["anonymize", "--qi", "age", "--k", "2"], ("No input table", "--project")),
    # --- columns and roles ------------------------------------------------------------------------------
    Case(
        "unknown-qi", [*ANON[:3], "age,postcode", *ANON[4:]], ("The quasi-identifier 'postcode' is not in",)
    ),
    Case("unknown-identifier", [*ANON[:5], "ssn", *ANON[6:]], ("The identifier column 'ssn' is not in",)),
    Case(
        "unknown-sensitive",
        [*ANON, "--sensitive", "disease"],
        ("The sensitive attribute 'disease' is not in",),
    ),
    Case(
        "no-qi-check", ["check", "{d}/data.csv", "--qi", "", "--k", "2"], ("--qi needs at least one column",)
    ),
    Case(
        "identifier-and-qi",
        [*ANON[:3], "age,sex,name", *ANON[4:]],
        (
            "'name' is given both as an identifier (--identifier) and as a quasi-identifier (--qi)",
            "a column has one role",
        ),
    ),
    Case(
        "identifier-and-sensitive",
        [*ANON, "--sensitive", "name"],
        ("'name' is given both as an identifier (--identifier) and as a sensitive attribute (--sensitive)",),
    ),
    Case(
        "qi-and-sensitive",
        [*ANON, "--sensitive", "sex"],
        ("'sex' is given both as a quasi-identifier (--qi) and as a sensitive attribute",),
    ),
    Case(
        "flag-against-project-role",
        ["anonymize", "--project", "{d}/p.json", "--qi", "age,id"],
        ("'id' is given both as an identifier (in the project p.json)", "replaces the project's columns"),
    ),
    Case(
        "project-column-twice",
        ["anonymize", "--project", "{d}/p.json"],
        ("p.json: the column 'age' is given two roles", "'quasi-identifier' and 'sensitive'"),
        files={
            "p.json": project().replace(
                '"sex": "quasi-identifier"', '"sex": "quasi-identifier", "age": "sensitive"'
            )
        },
    ),
    # --- k and parameters -------------------------------------------------------------------------------
    Case("k-too-large", [*ANON[:-1], "99"], ("k = 99 is larger than the table, which has 12 records",)),
    Case(
        "k-one",
        ["check", "{d}/data.csv", "--qi", "age", "--k", "1"],
        ("k must be an integer of at least 2; got 1",),
    ),
    Case(
        "average-risk-zero",
        [*ANON, "--average-risk", "0"],
        ("--average-risk: Average risk must be a number above 0 and at most 1; got 0.",),
    ),
    Case(
        "k-not-a-number", ["check", "{d}/data.csv", "--qi", "age", "--k", "five"], ("k must be an integer",)
    ),
    Case("suppression-limit-above-one", [*ANON, "--suppression-limit", "2"], ("suppression",)),
    Case("unknown-metric", [*ANON, "--metric", "fastest"], ("fastest",)),
    Case("unknown-algorithm", [*ANON, "--algorithm", "magic"], ("magic",)),
    Case(
        "param-without-value", [*ANON, "--param", "summary"], ("--param expects COLUMN=VALUE; got 'summary'",)
    ),
    Case("l-below-two", [*ANON, "--sensitive", "diag", "--l", "1"], ("l must be",)),
    Case("t-above-one", [*ANON, "--sensitive", "diag", "--t", "2"], ("t must be",)),
    Case(
        "several-sensitive-without-protect",
        [*ANON, "--sensitive", "diag,zip", "--l", "2"],
        ("Several sensitive attributes", "--protect"),
    ),
    Case(
        "levels-not-a-number",
        [*APPLY, "--levels", "age=x"],
        ("--levels age=x: a level is a whole number", "For example --levels age=2"),
    ),
    Case(
        "levels-too-high",
        [*APPLY, "--levels", "age=9", "--hierarchy", "age={d}/h.csv"],
        ("The level of 'age' must be between 0 and 2; got 9",),
    ),
    Case(
        "levels-unknown-column",
        [*APPLY, "--levels", "foo=1"],
        ("--levels names 'foo'", "not a quasi-identifier"),
    ),
    Case("levels-without-equals", [*APPLY, "--levels", "age"], ("--levels expects COLUMN=VALUE; got 'age'",)),
    # --- hierarchies ------------------------------------------------------------------------------------
    Case(
        "hierarchy-misses-a-value",
        [*ANON, "--hierarchy", "age={d}/h.csv"],
        ("1 value of 'age' in the data is not in its hierarchy: '33'", "rebuild the hierarchy"),
        files={"h.csv": "30;30-31;*\n31;30-31;*\n32;32-33;*\n"},
    ),
    Case(
        "hierarchy-not-a-tree",
        [*ANON, "--hierarchy", "age={d}/h.csv"],
        ("two parents",),
        files={"h.csv": "30;a;X\n31;a;Y\n32;b;Y\n33;b;Y\n"},
    ),
    Case("hierarchy-file-missing", [*ANON, "--hierarchy", "age={d}/nope.csv"], ("nope.csv",)),
    Case(
        "hierarchy-value-twice",
        [*ANON, "--hierarchy", "age={d}/h.csv"],
        ("lists the value '30' of 'age' twice", "lines 1 and 2"),
        files={"h.csv": "30;a;*\n30;a;*\n"},
    ),
    Case(
        "hierarchy-without-equals", [*ANON, "--hierarchy", "{d}/h.csv"], ("--hierarchy expects COLUMN=VALUE",)
    ),
    Case(
        "build-intervals-not-numbers",
        ["hierarchy", "{d}/data.csv", "--column", "age", "--intervals", "a,b", "--output", "{d}/ha.csv"],
        ("--intervals expects widths such as 5,10,20",),
    ),
    Case(
        "build-date-levels-wrong",
        ["hierarchy", "{d}/data.csv", "--column", "visit", "--dates", "year,month", "--output", "{d}/hv.csv"],
        ("Date levels must be taken, finest first",),
    ),
    Case("build-without-output", ["hierarchy", "{d}/data.csv", "--column", "age"], ("--output is needed",)),
    Case(
        "check-hierarchy-missing",
        ["hierarchy", "{d}/data.csv", "--column", "age", "--check", "{d}/nope.csv"],
        ("nope.csv",),
    ),
    Case(
        "build-over-its-input",
        ["hierarchy", "{d}/data.csv", "--column", "age", "--masking", "--output", "{d}/data.csv"],
        ("--output: data.csv is the data file",),
    ),
    # --- project files ----------------------------------------------------------------------------------
    Case(
        "project-missing", ["anonymize", "--project", "{d}/nope.json"], ("The project file", "does not exist")
    ),
    Case(
        "project-not-json",
        ["anonymize", "--project", "{d}/p.json"],
        ("p.json is not a kanon project",),
        files={"p.json": "age,sex\n1,F\n"},
    ),
    Case(
        "project-newer-schema",
        ["anonymize", "--project", "{d}/p.json"],
        ("newer kanon", "Update kanon"),
        files={"p.json": project(schema_version=99)},
    ),
    Case(
        "project-model-without-k",
        ["anonymize", "--project", "{d}/p.json"],
        ("The privacy model 'k-anonymity' needs its setting 'k'", '"k": 5'),
        files={"p.json": project(models=[{"name": "k-anonymity"}])},
    ),
    Case(
        "project-model-unknown-setting",
        ["anonymize", "--project", "{d}/p.json"],
        ("has no setting 'kk'", "Its settings are: k"),
        files={"p.json": project(models=[{"name": "k-anonymity", "kk": 2}])},
    ),
    Case(
        "project-unknown-model",
        ["anonymize", "--project", "{d}/p.json"],
        ("Unknown privacy model 'k-mop'",),
        files={"p.json": project(models=[{"name": "k-mop", "k": 2}])},
    ),
    Case(
        "project-unknown-role",
        ["anonymize", "--project", "{d}/p.json"],
        ("the role 'secret' of column 'sex'",),
        files={"p.json": project(roles={"age": "quasi-identifier", "sex": "secret"})},
    ),
    Case(
        "project-unknown-type",
        ["anonymize", "--project", "{d}/p.json"],
        ("the type 'colour' of column 'age'",),
        files={"p.json": project(data={"path": "data.csv", "column_types": {"age": {"kind": "colour"}}})},
    ),
    Case(
        "project-data-missing",
        ["anonymize", "--project", "{d}/p.json"],
        ("gone.csv",),
        files={"p.json": project(data={"path": "gone.csv"})},
    ),
    # --- outputs (checked before any work; inputs never replaced) ---------------------------------------
    Case(
        "output-is-the-data",
        [*ANON, "--output", "{d}/data.csv"],
        ("--output: data.csv is the data file", "never writes over its input"),
    ),
    Case(
        "output-is-a-hierarchy",
        [*ANON, "--hierarchy", "age={d}/h.csv", "--output", "{d}/h.csv"],
        ("h.csv is the hierarchy file of 'age'",),
    ),
    Case(
        "report-is-a-hierarchy",
        [*ANON, "--hierarchy", "age={d}/h.csv", "--report", "{d}/h.csv"],
        ("--report: h.csv is the hierarchy file of 'age'",),
    ),
    Case(
        "output-is-the-project",
        ["anonymize", "--project", "{d}/p.json", "--output", "{d}/p.json"],
        ("p.json is the project file",),
    ),
    Case(
        "output-links-to-the-data",
        [*ANON, "--output", "{d}/link.csv"],
        ("link.csv (the same file as data.csv) is the data file",),
        files={"link.csv": symlink("data.csv", "link.csv")},
    ),
    Case(
        "output-is-a-folder",
        [*ANON, "--output", "{d}"],
        ("--output names the folder", "Give a file name inside it"),
    ),
    Case(
        "output-unknown-format",
        [*ANON, "--output", "{d}/rel.dat"],
        ("--output rel.dat", ".csv, .tsv, .xlsx or .parquet"),
        absent=("rel.dat",),
    ),
    Case(
        "report-pdf-named-html",
        [*ANON, "--output", "{d}/rel.csv", "--report-pdf", "{d}/r.html"],
        ("--report-pdf r.html", "ending of an HTML report"),
        absent=("rel.csv",),
    ),
    Case(
        "two-reports-one-file",
        [*ANON, "--output", "{d}/rel.csv", "--report", "{d}/r.json", "--report-html", "{d}/r.json"],
        ("--report and --report-html both name r.json",),
        absent=("rel.csv",),
    ),
    Case(
        "release-and-report-one-file",
        [*ANON, "--output", "{d}/rel.csv", "--report", "{d}/rel.csv"],
        ("--output and --report both name rel.csv",),
        absent=("rel.csv",),
    ),
    Case(
        "output-folder-missing",
        [*ANON, "--output", "{d}/rel.csv", "--report-pdf", "{d}/no/r.pdf"],
        ("--report-pdf: r.pdf cannot be written: the folder", "does not exist"),
        absent=("rel.csv",),
    ),
    Case(
        "save-project-over-the-project",
        ["anonymize", "--project", "{d}/p.json", "--save-project", "{d}/p.json"],
        ("--save-project: p.json is the project file",),
    ),
    Case(
        "save-project-onto-the-release",
        [*ANON, "--output", "{d}/rel.csv", "--save-project", "{d}/rel.csv"],
        ("--output and --save-project both name rel.csv",),
        absent=("rel.csv",),
    ),
    Case(
        "output-delimiter-too-long",
        [*ANON, "--output", "{d}/rel.csv", "--output-delimiter", "ab"],
        ("delimiter must be one character",),
    ),
    # --- dates ------------------------------------------------------------------------------------------
    Case(
        "dates-in-two-formats",
        ["anonymize", "{d}/dates.csv", "--qi", "dob,sex", "--k", "2"],
        ("'dob' of dates.csv mixes date formats", "line 2:", "--column-type dob=text"),
        files={"dates.csv": mixed_dates},
    ),
    Case(
        "column-type-unknown-kind",
        [*ANON, "--column-type", "age=colour"],
        ("--column-type age=colour: the type must be integer, decimal, date, text or categorical",),
    ),
    Case(
        "column-type-unknown-column",
        [*ANON, "--column-type", "dob=text"],
        ("The --column-type column 'dob' is not in data.csv", "Its columns are"),
    ),
    Case(
        "column-type-format-on-integer",
        [*ANON, "--column-type", "age=integer:%Y"],
        ("only a date type takes a format",),
    ),
    # --- risk -------------------------------------------------------------------------------------------
    Case(
        "risk-release-of-another-table",
        [*RISK, "--release", "{d}/big.csv"],
        ("big.csv has 24 rows but data.csv has 12 records", "not a release of this table"),
        files={"big.csv": "age,sex,zip,diag\n" + "*,*,*,flu\n" * 24},
    ),
    Case(
        "risk-release-without-a-qi",
        [*RISK, "--release", "{d}/r.csv"],
        ("The quasi-identifier 'sex' is not a column of r.csv",),
        files={"r.csv": "age,diag\n*,flu\n"},
    ),
    Case(
        "risk-population-of-others",
        [*RISK, "--population", "{d}/pop.csv"],
        ("pop.csv lacks 12 of the 12 records of data.csv", "not the population"),
        files={"pop.csv": "age,sex\n70,F\n71,M\n"},
    ),
    Case(
        "risk-release-and-anonymize",
        [*RISK, "--release", "{d}/data.csv", "--anonymize"],
        ("either --release", "or --anonymize"),
    ),
    Case("risk-output-without-anonymize", [*RISK, "--output", "{d}/rel.csv"], ("need --anonymize",)),
    Case("risk-threshold-above-one", [*RISK, "--threshold", "2"], ("threshold must be a probability",)),
    Case("risk-external-missing", [*RISK, "--external", "{d}/voters.csv"], ("voters.csv was not found",)),
    # --- issue 29: the last crashes and riddles -----------------------------------------------------------
    *(
        Case(
            f"empty-qi-{name}",
            [*ANON, *extra],
            ("The quasi-identifier 'age' of data.csv is empty", "12 cells is missing"),
            files={"data.csv": EMPTY_AGE},
        )
        for name, extra in (
            ("optimal", []),
            ("local-suppression", ["--algorithm", "local-suppression"]),
            ("suppress-cells", ["--algorithm", "datafly", "--suppress", "cells"]),
            ("duckdb", ["--engine", "duckdb"]),
        )
    ),
    Case(
        "empty-qi-parquet-duckdb",
        ["anonymize", "{d}/t.parquet", "--qi", "age,sex", "--k", "2", "--engine", "duckdb"],
        ("The quasi-identifier 'age' of t.parquet is empty",),
        files={"t.parquet": empty_parquet},
        unchanged=("t.parquet",),
    ),
    Case(
        "empty-qi-with-hierarchy",
        [*ANON, "--hierarchy", "age={d}/h.csv"],
        ("The column 'age' is empty: every cell is missing",),
        files={"data.csv": EMPTY_AGE},
    ),
    Case(
        "input-not-readable",
        [*ANON, "--output", "{d}/rel.csv"],
        ("data.csv cannot be read", "Permission denied", "may read the file"),
        patch=lambda mp, d: deny_reading(mp, d / "data.csv"),
        absent=("rel.csv",),
    ),
    *(
        Case(
            f"sealed-{name}",
            ["anonymize", "--project", "{d}/s.json", "--output", "{d}/rel.csv"],
            ("s.json asks for password-stretching parameters kanon never writes", "copy saved earlier"),
            files={"s.json": sealed_with(**changes)},
            env={"KANON_PROJECT_PASSWORD": "pw"},
            unchanged=("s.json",),
            absent=("rel.csv",),
        )
        for name, changes in (
            ("n-2-30", {"n": 1 << 30}),
            ("r-2-20", {"r": 1 << 20}),
            ("n-2-21", {"n": 1 << 21}),
        )
    ),
    Case(
        "star-in-a-quasi-identifier",
        [*ANON, "--output", "{d}/rel.csv"],
        ("The quasi-identifier 'sex' of data.csv holds '*'", "lines 2, 4 and 6", "--suppression-mark"),
        files={"data.csv": DATA.replace(",M,", ",*,")},
        absent=("rel.csv",),
    ),
    Case(
        "chosen-mark-in-the-data",
        [*ANON, "--suppression-mark", "F", "--output", "{d}/rel.csv"],
        ("The quasi-identifier 'sex' of data.csv holds 'F'", "lines 3, 5 and 7"),
        absent=("rel.csv",),
    ),
    Case(
        "carriage-return-in-a-value",
        ANON,
        ("Line 3 of data.csv has a line break (a carriage return) inside the value of 'name'", "quotes"),
        files={"data.csv": DATA.replace("Name 1,", "Na\rme 1,")},
    ),
    Case(
        "total-footer-row",
        [*ANON, "--hierarchy", "age={d}/h.csv"],
        ("not in its hierarchy: (missing)", "Line 14 of data.csv, the last, is a summary row ('Total')"),
        files={"data.csv": DATA + "Total,,,,,12,\n"},
    ),
    Case(
        "value-missing-from-hierarchy-named-by-line",
        [*ANON, "--hierarchy", "age={d}/h.csv"],
        ("not in its hierarchy: '34'", "It is first in line 2 of data.csv"),
        files={"data.csv": DATA.replace("P00,Name 0,30,", "P00,Name 0,34,")},
    ),
    Case(
        "l-is-the-cause",
        [*ANON, "--sensitive", "diag", "--l", "6", "--algorithm", "local-recoding"],
        ("does not satisfy distinct 6-diversity",),
        code=3,
    ),
    Case(
        "project-data-is-the-project",
        ["anonymize", "--project", "{d}/p.json"],
        ("The project file p.json names itself as its data file",),
        files={"p.json": project(data={"path": "p.json"})},
    ),
    Case(
        "read-only-output",
        [*ANON, "--output", "{d}/rel.csv"],
        ("rel.csv is read-only, so it is not replaced",),
        files={"rel.csv": read_only("old release\n")},
        unchanged=("data.csv", "h.csv", "p.json", "rel.csv"),
    ),
    Case(
        "memory-limit-absurd",
        [*ANON, "--engine", "duckdb", "--memory-limit", "1KB"],
        ("The memory limit 1KB is too small for DuckDB", "64MB"),
    ),
    Case(
        "hierarchy-group-named-like-another-value",
        [*ANON, "--hierarchy", "age={d}/h.csv"],
        ("The group '33' at level 1 of 'age' has the name of a value of the data under another group",),
        files={"h.csv": "30;33;*\n31;33;*\n32;32-33;*\n33;32-33;*\n"},
    ),
    Case(
        "file-changed-between-counting-and-writing",
        [*ANON, "--engine", "duckdb", "--output", "{d}/rel.csv"],
        ("data.csv changed during the run", "no release was written"),
        patch=lambda mp, d: edit_before_writing(mp, d / "data.csv"),
        unchanged=("h.csv", "p.json"),
        absent=("rel.csv",),
    ),
    Case(
        "dead-dask-scheduler",
        [*ANON, "--engine", "dask", "--scheduler", "tcp://127.0.0.1:1"],
        ("The Dask scheduler at tcp://127.0.0.1:1 cannot be reached",),
    ),
]


def _prepare(d: Path, case: Case) -> None:
    files: dict[str, str | bytes | Callable[[Path], None]] = {
        "data.csv": DATA,
        "h.csv": HIER,
        "p.json": project(),
        **case.files,
    }
    for name, content in files.items():
        if callable(content):
            content(d)
        elif isinstance(content, bytes):
            (d / name).write_bytes(content)
        else:
            (d / name).write_text(content, encoding="utf-8")


def _hashes(d: Path, names: tuple[str, ...]) -> dict[str, str]:
    return {n: hashlib.sha256((d / n).read_bytes()).hexdigest() for n in names if (d / n).is_file()}


def _run(case: Case, d: Path, capsys, monkeypatch, prefix: str = "error: ") -> str:
    """Run one case in folder ``d``; its one error line, after the checks every case shares (exit
    code, no traceback, one line, inputs unchanged, outputs not started)."""
    _prepare(d, case)
    before = _hashes(d, case.unchanged)
    for name, value in case.env.items():
        monkeypatch.setenv(name, value.replace("{d}", str(d)))
    if case.patch is not None:
        case.patch(monkeypatch, d)
    argv = [a.replace("{d}", str(d)) for a in case.argv]
    code = main(argv)  # an exception escaping here would be the traceback a user sees
    monkeypatch.undo()
    out, err = capsys.readouterr()
    assert code == case.code, err
    assert "Traceback" not in err and "Traceback" not in out
    errors = [line for line in err.splitlines() if line.startswith(prefix)]
    assert len(errors) == 1 and err.endswith("\n") and err.count("\n") == len(err.splitlines()), err
    assert _hashes(d, case.unchanged) == before
    for name in case.absent:
        assert not (d / name).exists(), name
    return errors[0]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, tmp_path: Path, capsys, monkeypatch) -> None:
    """One case of the catalogue (see the module docstring)."""
    error = _run(case, tmp_path, capsys, monkeypatch)
    for words in case.words:
        assert words in error, f"{words!r} not in {error!r}"


#: Words of an English sentence that no German one uses (values quoted in a message are left out).
ENGLISH = {"the", "The", "is", "not", "was", "cannot", "and", "of", "with", "has", "does", "this",
           "that", "Check", "Choose", "or", "be", "are", "its", "to", "for", "which", "been", "file",
           "column"}  # fmt: skip


def _english_words(message: str) -> set[str]:
    import re

    bare = re.sub(
        r"--\S+|\S+=\S+|'[^']*'|„[^“]*“|\"[^\"]*\"|\S*[/\\]\S*|\S+\.(csv|json|parquet|xlsx|xls|txt)\b",
        " ",
        message,
    )
    return set(re.findall(r"[A-Za-z]+", bare)) & ENGLISH


@pytest.fixture
def german():
    """Every message in German for the test (KANON_LANG, as a user sets it); English again afterwards."""
    from kanon_engine import i18n

    yield "de"
    i18n.install("en")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_in_german(case: Case, tmp_path: Path, capsys, monkeypatch, german) -> None:
    """The same case with KANON_LANG=de: the one sentence is German, no English sentence is left."""
    case = Case(**{**case.__dict__, "env": {**case.env, "KANON_LANG": german}})
    error = _run(case, tmp_path, capsys, monkeypatch, prefix="Fehler: ")
    assert not _english_words(error), error


def test_the_catalogue_is_large_enough() -> None:
    assert len(CASES) >= 60 and len({c.id for c in CASES}) == len(CASES)
