"""Dates are read with one format per column, never guessed value by value (issue 17, item 4).

The audit's file: 300 dates of 2022, a third written ``dd.mm.yyyy`` among ``yyyy-mm-dd``. pandas' mixed
parsing read ``01.12.2022`` as 12 January, so dates landed in the wrong month of the release, silently.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kanon_engine.cli import main
from kanon_engine.data.dates import date_fit, parse_column_type
from kanon_engine.data.io import read_table
from kanon_engine.data.types import describe_date_format
from kanon_engine.errors import ConfigError, HierarchyError
from kanon_engine.hierarchy import date_hierarchy


def mixed_file(path: Path, n: int = 300, seed: int = 1) -> list[dt.date]:
    rng = random.Random(seed)
    rows, days = ["id,dob,sex"], []
    for i in range(n):
        d = dt.date(2022, 1, 1) + dt.timedelta(days=rng.randrange(365))
        fmt = rng.choice(["%Y-%m-%d", "%d.%m.%Y", "%Y-%m-%d"])
        rows.append(f"{i},{d.strftime(fmt)},{rng.choice('MF')}")
        days.append(d)
    path.write_text("\n".join(rows) + "\n")
    return days


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_date_fit_reports_count_examples_lines_and_other_format(tmp_path: Path) -> None:
    mixed_file(tmp_path / "d.csv")
    table = read_table(tmp_path / "d.csv")
    fit = date_fit(table.frame["dob"], None, "dob")
    dotted = table.frame["dob"].str.contains(".", regex=False)
    assert fit.format == "%Y-%m-%d" and fit.mixed and not fit.given
    assert fit.misfits == int(dotted.sum()) and fit.values == 300
    first = list(dotted[dotted].index[:3])
    assert [r for r, _ in fit.examples] == first
    assert fit.others[0] == ("%d.%m.%Y", fit.misfits)
    assert describe_date_format("%d.%m.%Y") == "dd.mm.yyyy"


def test_cli_refuses_a_date_column_in_several_formats(capsys, tmp_path: Path) -> None:
    mixed_file(tmp_path / "d.csv")
    table = read_table(tmp_path / "d.csv")
    dotted = table.frame["dob"].str.contains(".", regex=False)
    line = int(dotted[dotted].index[0]) + 2  # header is line 1
    args = ["anonymize", tmp_path / "d.csv", "--qi", "dob,sex", "--identifier", "id", "--k", "5"]
    code, _, err = run(capsys, *args, "--output", tmp_path / "rel.csv")
    assert code == 2 and "Traceback" not in err
    for words in (
        "The column 'dob' of d.csv mixes date formats",
        f"{int(dotted.sum())} of its 300 values do not fit yyyy-mm-dd",
        f"line {line}: '{table.frame['dob'][line - 2]}'",
        "--column-type dob=date:FORMAT (e.g. %d.%m.%Y)",
        "--column-type dob=text",
    ):
        assert words in err, err
    assert not (tmp_path / "rel.csv").exists()
    # another format: the ISO dates do not fit it, so still refused, naming them
    code, _, err = run(capsys, *args, "--column-type", "dob=date:%d.%m.%Y")
    assert code == 2 and "do not fit dd.mm.yyyy (the column's format)" in err
    # treat as text: the user's choice, released with a flat hierarchy
    code, out, err = run(capsys, *args, "--column-type", "dob=text", "--output", tmp_path / "rel.csv")
    assert code == 0, err


def test_hierarchy_command_never_guesses_the_month(capsys, tmp_path: Path) -> None:
    mixed_file(tmp_path / "d.csv")
    out = tmp_path / "h.csv"
    code, _, err = run(capsys, "hierarchy", tmp_path / "d.csv", "--column", "dob", "--dates", "month,year",
                       "--output", out)  # fmt: skip
    assert code == 2 and "mixes date formats" in err and "--date-format" in err and not out.exists()


def test_one_format_puts_every_date_in_its_month(capsys, tmp_path: Path) -> None:
    days = mixed_file(tmp_path / "d.csv")
    frame = pd.read_csv(tmp_path / "d.csv", dtype=str)
    frame["dob"] = [d.strftime("%d.%m.%Y") for d in days]  # the file fixed: one format
    frame.to_csv(tmp_path / "fixed.csv", index=False)
    out = tmp_path / "h.csv"
    code, _, err = run(capsys, "hierarchy", tmp_path / "fixed.csv", "--column", "dob", "--dates",
                       "month,year", "--output", out)  # fmt: skip
    assert code == 0, err
    h = pd.read_csv(out, sep=";", header=None, dtype=str)
    month = {dd.strftime("%d.%m.%Y"): dd.strftime("%Y-%m") for dd in days}
    assert (h[1] == h[0].map(month)).all()  # 01.12.2022 is December, not January


def test_a_date_column_with_a_stray_value_is_reported(capsys, tmp_path: Path) -> None:
    rows = ["id,dob,sex"] + [f"{i},2020-01-{i % 28 + 1:02d},{'MF'[i % 2]}" for i in range(60)]
    rows[3] = "2,unknown,F"
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    code, _, err = run(capsys, "anonymize", tmp_path / "d.csv", "--qi", "dob,sex", "--k", "5")
    assert code == 2
    assert (
        "is read as dates: 1 of its 60 values does not fit yyyy-mm-dd" in err and "line 4: 'unknown'" in err
    )
    assert "an unknown date is an empty cell" in err


def test_project_column_type_is_the_users_choice(capsys, tmp_path: Path) -> None:
    from kanon_engine.data.roles import Role
    from kanon_engine.project.project_file import Project

    mixed_file(tmp_path / "d.csv")
    Project(
        data_path=tmp_path / "d.csv",
        roles={"dob": Role.QUASI_IDENTIFIER, "sex": Role.QUASI_IDENTIFIER, "id": Role.IDENTIFIER},
        column_types={"dob": ("categorical", None)},
    ).save(tmp_path / "p.json")
    code, out, err = run(capsys, "anonymize", "--project", tmp_path / "p.json", "--k", "5")
    assert code == 0, err
    assert json.loads(out)["records"] == 300


def test_builders_and_mondrian_use_one_format() -> None:
    with pytest.raises(HierarchyError, match="not dates in the format yyyy-mm-dd: '01.12.2022'"):
        date_hierarchy("d", ["2022-05-01", "2022-05-02", "01.12.2022"])
    from kanon_engine.hierarchy.builders import _guess_kind

    assert _guess_kind(pd.Series(["2022-05-01", "01.12.2022"]).to_numpy(dtype=object)) == "categorical"
    assert _guess_kind(pd.Series(["2022-05-01", "2022-12-01"]).to_numpy(dtype=object)) == "date"


@pytest.mark.parametrize(
    "spec,expect",
    [
        ("date:%d.%m.%Y", ("date", "%d.%m.%Y")),
        ("text", ("categorical", None)),
        ("integer", ("integer", None)),
    ],
)
def test_parse_column_type(spec, expect) -> None:
    assert parse_column_type("c", spec) == expect


def test_parse_column_type_errors() -> None:
    with pytest.raises(ConfigError, match="must be integer, decimal, date, text or categorical"):
        parse_column_type("c", "colour")
    with pytest.raises(ConfigError, match="only a date type takes a format"):
        parse_column_type("c", "integer:%Y")


def test_validation_flags_a_date_quasi_identifier_in_two_formats(tmp_path: Path) -> None:
    """The workbench's rule (kanon_engine.project.validation): the same facts, and both ways to choose."""
    from kanon_engine.data.roles import Role
    from kanon_engine.project.project_file import Project
    from kanon_engine.project.validation import validate

    mixed_file(tmp_path / "d.csv")
    table = read_table(tmp_path / "d.csv")
    project = Project(data_path=tmp_path / "d.csv", roles={"dob": Role.QUASI_IDENTIFIER})
    errors = [i for i in validate(project, table) if i.is_error and i.where == "dob"]
    assert errors and "mixes date formats" in errors[0].message and "import dialog" in errors[0].message
    as_text = project.with_changes(column_types={"dob": ("categorical", None)})
    assert not [i for i in validate(as_text, table) if i.where == "dob" and i.is_error]


def test_drawing_and_matching_read_one_format() -> None:
    """Linkage and the partition axes read dates with one format too: a value that does not fit is left
    out (NaT), never read as another month."""
    from kanon_engine.data.dates import read_dates
    from kanon_engine.metrics.linkage import _as_dates

    values = pd.Series(["2022-05-01", "2022-06-01", "01.12.2022"], dtype=object)
    for parsed in (read_dates(values), _as_dates(values)):
        assert list(parsed.dt.month[:2]) == [5, 6] and pd.isna(parsed.iloc[2])
    assert read_dates(values, "%d.%m.%Y").iloc[2] == pd.Timestamp("2022-12-01")


@pytest.mark.parametrize("seed", range(6))
def test_could_be_mixed_never_drops_a_mixed_column(seed, monkeypatch):
    """The early stop of :func:`could_be_mixed` (chunks of distinct values) is exact: False only for
    columns :func:`date_fit` does not find mixed, on random mixes of two formats and non-dates."""
    import kanon_engine.data.dates as dates

    monkeypatch.setattr(dates, "CHUNK", 7)  # many chunks on a small column
    rng = np.random.default_rng(seed)
    n = 300
    days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), unit="D")
    iso, dotted = days.strftime("%Y-%m-%d"), days.strftime("%d.%m.%Y")
    other = np.array([f"P{i:05d}" for i in rng.integers(0, 99999, n)], dtype=object)
    share = (0.0, 0.03, 0.08, 0.2)[seed % 4]  # of values that are no dates
    pick = rng.choice(3, size=n, p=[0.6, 0.4 - share, share])
    values = pd.Series(np.where(pick == 0, iso, np.where(pick == 1, dotted, other)), dtype=object)
    assert dates.could_be_mixed(values) or not dates.date_fit(values).mixed
    assert dates.could_be_mixed(values) == (np.mean(pick == 2) <= 1 - dates.MIXED_SHARE)
    assert not dates.could_be_mixed(pd.Series(other, dtype=object))
