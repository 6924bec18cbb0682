"""Column type detection: kinds, shares, date formats, and the leading-zero rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.data import ColumnKind, Table, detect_types
from kanon_engine.data import types as types_module
from kanon_engine.data.types import detect_column, guess_date_format


def col(values: list[str | None]) -> pd.Series:
    return pd.Series(values, dtype="str")


def test_integer_with_share_and_missing() -> None:
    values = [str(i) for i in range(97)] + ["?", "unknown", "NA"] + [None] * 5
    t = detect_column(col(values))
    assert t.kind is ColumnKind.INTEGER
    assert t.share == pytest.approx(0.97)
    assert t.missing == 5
    assert t.distinct == 100


def test_below_95_percent_is_categorical() -> None:
    t = detect_column(col([str(i) for i in range(90)] + ["x"] * 10))
    assert t.kind is ColumnKind.CATEGORICAL
    assert t.share == 1.0


def test_share_is_weighted_by_row_counts() -> None:
    t = detect_column(col(["5"] * 960 + ["?"] * 40))
    assert t.kind is ColumnKind.INTEGER
    assert t.share == pytest.approx(0.96)
    assert t.distinct == 2


def test_decimal() -> None:
    t = detect_column(col(["1.5", "-2", "3.", ".25", "1e5", "7"] * 10))
    assert t.kind is ColumnKind.DECIMAL
    assert t.share == 1.0


def test_nan_and_inf_strings_are_not_numbers() -> None:
    assert detect_column(col(["1.5", "nan", "inf", "2"])).kind is ColumnKind.CATEGORICAL


def test_whitespace_around_numbers_is_tolerated() -> None:
    assert detect_column(col([" 39", "40 ", "41"])).kind is ColumnKind.INTEGER


def test_leading_zero_codes_are_categorical() -> None:
    t = detect_column(col(["02138", "02139", "12345", "90210"]))
    assert t.kind is ColumnKind.CATEGORICAL
    assert t.distinct == 4
    assert detect_column(col(["0", "10", "20"])).kind is ColumnKind.INTEGER  # a lone 0 is a number


@pytest.mark.parametrize(
    ("values", "fmt"),
    [
        (["1965-09-20", "1965-02-14", "1964-10-23"], "%Y-%m-%d"),
        (["31/01/2020", "15/02/2020", "01/03/2020"], "%d/%m/%Y"),
        (["01/31/2020", "02/15/2020", "03/01/2020"], "%m/%d/%Y"),
        (["31.01.2020", "15.02.2020"], "%d.%m.%Y"),
        (["2020-01", "2020-02", "2019-12"], "%Y-%m"),
        (["2020-01-31 10:00:00", "2020-02-01 23:59:59"], "%Y-%m-%d %H:%M:%S"),
    ],
)
def test_date_formats(values: list[str], fmt: str) -> None:
    t = detect_column(col(values * 5))
    assert t.kind is ColumnKind.DATE
    assert t.date_format == fmt
    assert t.share == 1.0


def test_date_format_chosen_by_most_values() -> None:
    # Only 13/01 and 25/12 decide: day first. The share reports the one value no format explains.
    values = ["13/01/2020", "25/12/2019", "01/02/2020", "03/04/2021"] * 30 + ["2020-13-45"] * 2
    t = detect_column(col(values))
    assert t.kind is ColumnKind.DATE
    assert t.date_format == "%d/%m/%Y"
    assert t.share == pytest.approx(120 / 122)


def test_yyyymmdd_integers_are_dates_but_other_integers_are_not() -> None:
    assert detect_column(col(["19650920", "19650214", "20001231"])).date_format == "%Y%m%d"
    assert detect_column(col(["12345678", "23456789"])).kind is ColumnKind.INTEGER


def test_years_need_a_name_hint() -> None:
    values = col(["1965", "1970", "1980"])
    assert detect_column(values, name="birth_year").date_format == "%Y"
    assert detect_column(values, name="salary").kind is ColumnKind.INTEGER


def test_all_missing_column() -> None:
    t = detect_column(col([None, None]))
    assert (t.kind, t.missing, t.distinct) == (ColumnKind.CATEGORICAL, 2, 0)


def test_guess_date_format_none_for_words() -> None:
    assert guess_date_format(col(["flu", "cancer"])) is None


def test_detect_types_on_frame_and_from_frame() -> None:
    frame = pd.DataFrame(
        {
            "age": [39, 50, np.nan],
            "zip": ["02138", "02139", "02141"],
            "born": ["1965-09-20", None, "1970-01-01"],
            "disease": ["Flu", "HIV", "Flu"],
        }
    )
    types = detect_types(frame.astype(object).where(frame.notna(), None))
    assert types["zip"].kind is ColumnKind.CATEGORICAL
    assert types["born"].kind is ColumnKind.DATE and types["born"].missing == 1
    assert types["disease"].distinct == 2
    t = Table.from_frame(pd.DataFrame({"age": [39, 50], "w": [1.5, 2.0]}))
    assert t.kind("age") is ColumnKind.INTEGER
    assert t.kind("w") is ColumnKind.DECIMAL


def test_large_column_is_vectorized_enough() -> None:
    # 200,000 rows with few distinct values: correctness on a size where a per-row loop would show.
    rng = np.random.default_rng(1)
    days = np.datetime64("1950-01-01") + rng.integers(0, 20000, 200_000).astype("timedelta64[D]")
    frame = pd.DataFrame(
        {"d": pd.Series(days).dt.strftime("%d.%m.%Y"), "n": rng.integers(0, 90, 200_000).astype(str)}
    ).astype("str")
    types = detect_types(frame)
    assert types["d"].date_format == "%d.%m.%Y"
    assert types["n"].kind is ColumnKind.INTEGER


_PIECES = [
    "1",
    "12",
    "1 234",
    "1.234",
    "1,5",
    "12,50",
    "1'234,5",
    "-3",
    "+4,0",
    "1\u202f234",
    ".",
    "-",
    "'",
    "0",
    "x",
    "12a",
    "Anna",
    "",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=3).map("".join), min_size=1, max_size=40)
)
def test_local_number_shortcut_never_changes_the_detected_type(values: list[str]) -> None:
    """The detection skips the local number formats when too few values have the shape of a local
    number; with that shortcut switched off (a pattern every value matches) it must say the same."""
    series = col([v or None for v in values])
    quick = detect_column(series)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(types_module, "_LOCAL_SHAPE", r"(?s).*")
        assert detect_column(series) == quick
