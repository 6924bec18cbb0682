"""The load's shortcuts in type detection never change a detected type (branch load41).

Detection sorts a column's distinct values only for the date format's guess, sets aside a column whose
values mostly start with a letter before guessing a date format, and one whose values mostly lack the
shape of a local number before trying the local number formats. Each is checked against the detection
with the shortcut switched off, and each filter against the formats it stands for.
"""

from __future__ import annotations

import datetime as dt
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.data import types as types_module
from kanon_engine.data.codes import code_column
from kanon_engine.data.types import (
    _LOCAL_SHAPE,
    DATE_FORMATS,
    LOCAL_FORMATS,
    could_be_dates,
    detect_column,
    detect_counts,
)

ARABIC_DIGITS = "".join(chr(0x0660 + i) for i in range(10))


def text(values: list[str]) -> pd.Series:
    return pd.Series(values, dtype="str")


def slow_detection(series: pd.Series, name: str = "") -> types_module.ColumnType:
    """The detection as it was: value counts sorted by pandas (never Arrow), every shortcut off."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(types_module, "_strings", lambda values: None)
        patch.setattr(types_module, "_DATES_START_WITH_NUMBERS", False)
        patch.setattr(types_module, "_LOCAL_SHAPE", r"(?s).*")
        counts = series.value_counts(dropna=True)
        vc = pd.Series(counts.to_numpy(), index=pd.Index(np.asarray(counts.index, dtype=object)))
        return detect_counts(vc, int(series.isna().sum()), name)


# ------------------------------------------------------------------------- random columns, both ways
def _date_strings(draw: st.DrawFn, n: int) -> list[str]:
    fmt = draw(st.sampled_from(["%d.%m.%Y", "%d/%m/%Y", "%m/%d/%Y", "%Y-%m-%d", "%Y%m%d", "%d %b %Y"]))
    days = draw(st.lists(st.integers(0, 40000), min_size=n, max_size=n))
    return [(dt.date(1920, 1, 1) + dt.timedelta(days=d)).strftime(fmt) for d in days]


def _number_strings(draw: st.DrawFn, n: int) -> list[str]:
    style = draw(st.sampled_from(["zeros", "plain", "comma", "thousands", "spaces"]))
    xs = draw(st.lists(st.integers(0, 10**7), min_size=n, max_size=n))
    if style == "zeros":
        return [str(x).zfill(8) for x in xs]
    if style == "plain":
        return [str(x) for x in xs]
    if style == "comma":
        return [f"{x / 100:.2f}".replace(".", ",") for x in xs]
    if style == "thousands":
        return [f"{x / 100:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".") for x in xs]
    return [f"{x:,}".replace(",", "\u202f") for x in xs]


@st.composite
def columns(draw: st.DrawFn) -> list[str | None]:
    n = draw(st.integers(1, 60))
    main = draw(st.sampled_from([_date_strings, _number_strings]))(draw, n)
    noise = draw(
        st.lists(
            st.sampled_from(["", "x", "NA", "Anna", "P123", "?", " 7 ", "1 Jan 2000", "31.12.1999", "2,5"]),
            max_size=max(1, n // 8),
        )
    )
    values: list[str | None] = [v or None for v in main + noise]
    return draw(st.permutations(values))


@settings(max_examples=120, deadline=None)
@given(columns())
def test_detection_equals_the_slow_detection(values: list[str | None]) -> None:
    """Random columns of dates in several orders, numbers with leading zeros, decimal commas and
    thousands separators, with blanks and other text: the same type as with every shortcut off, in any
    row order."""
    series = text(values)
    fast = detect_column(series)
    assert fast == slow_detection(series)
    assert detect_column(series.iloc[::-1].reset_index(drop=True)) == fast


def test_the_date_format_is_guessed_on_the_sorted_values() -> None:
    """The format's guess reads an even sample of the distinct values in sorted order, whatever the rows'
    order: 960 dates that fit day-first and month-first, 40 that fit month-first only. The sorted sample
    holds some of the 40 (month-first); a sample of the rows as they come, which here skips them, would
    say day-first."""
    ambiguous = [f"{d:02d}/{m:02d}/{y}" for y in range(1990, 2010) for m in range(1, 13) for d in range(1, 5)]
    month_first = [f"{m:02d}/{d}/{y}" for y in range(2000, 2010) for m in (1, 2) for d in (13, 14)]
    assert len(ambiguous) == 960 and len(month_first) == 40
    rows = ambiguous[:]
    for i, v in enumerate(month_first):  # odd positions of first appearance: an every-second sample skips
        rows.insert(2 * i + 1, v)
    found = detect_column(text(rows))
    assert found.date_format == "%m/%d/%Y" and found.share == 1.0
    assert found == slow_detection(text(rows))
    assert detect_column(text(rows[::-1])) == found


# ---------------------------------------------------------------- the filters against what they stand for
_DATE_TEXT = st.text(alphabet="0123456789/.-: T" + ARABIC_DIGITS + "JanFebDecxP", max_size=22)


@settings(max_examples=300, deadline=None)
@given(st.lists(_DATE_TEXT, min_size=1, max_size=30), st.sampled_from(["", "x", "Jan ", "P", "é"]))
def test_a_value_starting_with_a_letter_fits_no_date_format(values: list[str], prefix: str) -> None:
    """Every value that some format of DATE_FORMATS reads is one could_be_dates keeps (Unicode digits,
    month names and times included)."""
    series = text([prefix + v.strip() for v in values]).str.strip()
    keep = could_be_dates(series)
    for fmt in DATE_FORMATS:
        fits = pd.to_datetime(series, format=fmt, errors="coerce", exact=True).notna().to_numpy()
        assert not (fits & ~keep).any(), (fmt, series[fits & ~keep].tolist())


def test_real_dates_are_kept_and_names_set_aside() -> None:
    arabic_year = "2000".translate(str.maketrans("0123456789", ARABIC_DIGITS))  # pandas reads it as %Y
    values = [
        "1 Jan 2000",
        "2000-01-31",
        "31.01.2000",
        "2000",
        arabic_year,
        "Anna",
        "P1234567",
        "Émile",
        "x2000",
    ]
    assert could_be_dates(text(values)).tolist() == [True] * 5 + [False] * 4


@st.composite
def local_numbers(draw: st.DrawFn) -> str:
    fmt = draw(st.sampled_from(LOCAL_FORMATS))
    whole = draw(st.integers(0, 10**9))
    digits = draw(st.sampled_from(["0123456789", ARABIC_DIGITS]))
    text = f"{whole:,}".replace(",", "\0") if fmt.group and draw(st.booleans()) else str(whole)
    group = draw(st.sampled_from(types_module.SPACES)) if fmt.group == " " else fmt.group
    text = text.replace("\0", group)
    if draw(st.booleans()):
        text += fmt.decimal + str(draw(st.integers(0, 999)))
    text = draw(st.sampled_from(["", "+", "-"])) + text
    return text.translate(str.maketrans("0123456789", digits))


@settings(max_examples=300, deadline=None)
@given(st.lists(local_numbers(), min_size=1, max_size=20), st.lists(st.text(max_size=6), max_size=5))
def test_every_local_number_has_the_local_shape(numbers: list[str], other: list[str]) -> None:
    """Whatever any local format reads as a number has the shape the shortcut looks for (written with
    each format's separators, ASCII or Arabic-Indic digits, among other text)."""
    series = text(numbers + other).str.strip()
    shaped = series.str.fullmatch(_LOCAL_SHAPE).to_numpy(dtype=bool, na_value=False)
    for fmt in LOCAL_FORMATS:
        read = np.isfinite(fmt.read(series))
        assert not (read & ~shaped).any(), (fmt, series[read & ~shaped].tolist())
    ascii_numbers = [v for v in numbers if v.isascii()]
    assert series.iloc[: len(numbers)][[v.isascii() for v in numbers]].str.fullmatch(_LOCAL_SHAPE).all()
    assert len(ascii_numbers) == 0 or all(
        any(np.isfinite(f.read(text([v])))[0] for f in LOCAL_FORMATS) for v in ascii_numbers
    )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["", "a", "b", "Ä", "007", " 7"]), st.text(max_size=4))))
def test_codes_of_arrow_text_equal_those_of_python_strings(cells: list[str | None]) -> None:
    """A column of Arrow text keeps its distinct values as Arrow strings and makes the Python ones when
    asked: the same codes, values (missing slot last) and counts as the column of Python strings."""
    cells = [None if c == "" else c for c in cells]
    arrow, python = code_column(pd.Series(cells, dtype="str")), code_column(pd.Series(cells, dtype=object))
    assert arrow.text is not None and python.text is None
    assert arrow.counts().tolist() == python.counts().tolist() and arrow.size == python.size
    assert arrow.codes.tolist() == python.codes.tolist() and arrow.codes.dtype == python.codes.dtype
    assert arrow.values.tolist() == python.values.tolist() and arrow.values[-1] is None
    assert all(type(v) is str for v in arrow.values[:-1])


def test_no_alphabetic_character_is_a_digit_dates_are_read_with() -> None:
    """could_be_dates sets aside values whose first character Arrow calls alphabetic; pandas reads the
    numbers of a date format with Python's ``\\d`` (any Unicode decimal digit). No code point is both."""
    points = [chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i <= 0xDFFF]
    alpha = pc.utf8_is_alpha(pa.array(points, pa.string())).to_numpy(zero_copy_only=False)
    digit = np.array([p.isdecimal() or p.isdigit() for p in points])
    assert alpha.sum() > 100_000 and digit.sum() > 600
    assert not (alpha & digit).any()
