"""Calendar bins and ticks for date charts (issue 12, item 16): hand-checked dates, no Qt."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.present.calendar_steps import (
    bin_label,
    calendar_ticks,
    count_labels_in_bins,
    date_bins,
    label_interval,
    month_index,
    to_ordinal_days,
)


def _days(*iso: str) -> np.ndarray:
    return np.array([dt.date.fromisoformat(d).toordinal() for d in iso], dtype=float)


def _dates(values: np.ndarray) -> list[str]:
    return [dt.date.fromordinal(int(v)).isoformat() for v in values]


def test_ordinal_days_of_german_dates_with_missing_and_bad_values() -> None:
    days = to_ordinal_days(pd.Series(["24.12.2024", None, "31.02.2024", "01.01.1970"]), "%d.%m.%Y")
    assert days[0] == dt.date(2024, 12, 24).toordinal()
    assert np.isnan(days[1]) and np.isnan(days[2])  # missing; 31 February is no date
    assert days[3] == dt.date(1970, 1, 1).toordinal()


def test_bins_by_month_when_the_span_is_short() -> None:
    days = _days("2024-01-31", "2024-02-01", "2024-02-29", "2024-05-15")
    bins = date_bins(days)
    assert bins.unit == "month"
    assert bins.labels == ("Jan 2024", "Feb 2024", "Mar 2024", "Apr 2024", "May 2024")
    assert bins.count(days).tolist() == [1, 2, 0, 0, 1]
    assert _dates(bins.edges) == [
        "2024-01-01",
        "2024-02-01",
        "2024-03-01",
        "2024-04-01",
        "2024-05-01",
        "2024-06-01",
    ]


def test_three_years_of_admissions_fall_into_quarters_then_years() -> None:
    """The sample's admissions (2022-2024): 36 months is more than 24 bars, so quarters (12 bars);
    with room for 6 bars, half years; for 5, years."""
    days = _days("2022-01-01", "2022-04-01", "2023-07-14", "2024-12-31")
    quarters = date_bins(days, max_bins=24)
    assert quarters.unit == "quarter" and len(quarters) == 12
    assert quarters.labels[0] == "Q1 2022" and quarters.labels[-1] == "Q4 2024"  # as hierarchies write them
    assert quarters.count(days).tolist() == [1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    halves = date_bins(days, max_bins=6)
    assert halves.unit == "half year" and halves.labels[1] == "Jul–Dec 2022"
    years = date_bins(days, max_bins=5)
    assert years.unit == "year" and years.labels == ("2022", "2023", "2024")
    assert years.count(days).tolist() == [2, 1, 1]


def test_dates_of_birth_over_ninety_years_get_five_year_bins_on_round_years() -> None:
    days = _days("1931-03-02", "1934-12-31", "1935-01-01", "2019-06-30")
    bins = date_bins(days, max_bins=24)
    assert bins.unit == "5 years"
    assert bins.labels[0] == "1930\u20131934" and bins.labels[-1] == "2015\u20132019"
    assert len(bins) == 18
    counts = bins.count(days)
    assert counts[0] == 2 and counts[1] == 1 and counts[-1] == 1 and counts.sum() == 4


def test_every_bar_has_its_own_label_and_no_bin_is_empty_at_either_end() -> None:
    days = _days("2023-11-20", "2024-02-03")
    bins = date_bins(days)
    assert len(set(bins.labels)) == len(bins.labels) == 4
    counts = bins.count(days)
    assert counts[0] > 0 and counts[-1] > 0


def test_no_dates_make_no_bins() -> None:
    bins = date_bins(np.array([np.nan, np.nan]))
    assert len(bins) == 0 and bins.count(np.array([np.nan])).tolist() == []


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.dates(dt.date(1800, 1, 1), dt.date(2200, 12, 31)), min_size=1, max_size=40),
    st.integers(min_value=1, max_value=40),
)
def test_bins_hold_every_date_and_respect_the_limit(dates: list[dt.date], max_bins: int) -> None:
    days = np.array([d.toordinal() for d in dates], dtype=float)
    bins = date_bins(days, max_bins=max_bins)
    span_years = (max(dates).year - min(dates).year) + 1
    assert len(bins) <= max_bins or bins.step == 1200 or span_years > 100 * max_bins
    counts = bins.count(days)
    assert counts.sum() == len(days)  # every date falls in one bin
    idx = bins.index(days)
    assert (bins.edges[idx] <= days).all() and (days < bins.edges[idx + 1]).all()


def test_bin_labels_in_words() -> None:
    assert bin_label(2022 * 12 + 2, 1) == "Mar 2022"
    assert bin_label(2022 * 12 + 3, 3) == "Q2 2022"
    assert bin_label(2022 * 12 + 6, 6) == "Jul\u2013Dec 2022"
    assert bin_label(2022 * 12, 12) == "2022"
    assert bin_label(1960 * 12, 120) == "1960\u20131969"


def test_released_date_labels_and_their_days() -> None:
    def iso(label: str) -> list[str]:
        span = label_interval(label)
        assert span is not None, label
        return _dates(np.array(span))

    assert iso("2024-02") == ["2024-02-01", "2024-02-29"]
    assert iso("2024-Q2") == ["2024-04-01", "2024-06-30"]
    assert iso("2024") == ["2024-01-01", "2024-12-31"]
    assert iso("1960-1969") == ["1960-01-01", "1969-12-31"]
    assert iso("2024-03-05") == ["2024-03-05", "2024-03-05"]
    assert iso("[2020-01-05 - 2020-03-01]") == ["2020-01-05", "2020-03-01"]
    for not_a_date in ("*", "(missing)", "2024-13", "Cardiology", "1969-1960", "35-39"):
        assert label_interval(not_a_date) is None, not_a_date


def test_released_months_are_counted_on_the_originals_quarters_but_years_are_not() -> None:
    bins = date_bins(_days("2022-01-01", "2024-12-31"))  # quarters
    months = pd.Series({"2022-01": 3, "2022-03": 4, "2024-12": 1})
    assert count_labels_in_bins(months, bins).tolist() == [7] + [0] * 10 + [1]
    assert count_labels_in_bins(pd.Series({"2022": 5}), bins) is None  # a year spans four quarters
    assert count_labels_in_bins(pd.Series({"2022-01": 1, "*": 2}), bins) is None


def test_axis_ticks_on_years_months_weeks_and_days() -> None:
    lo, hi = _days("2022-02-12", "2024-12-24")
    ticks = calendar_ticks(lo, hi, max_ticks=8)
    assert [t for _, t in ticks] == ["Jul 2022", "Jan 2023", "Jul 2023", "Jan 2024", "Jul 2024"]
    assert _dates(np.array([v for v, _ in ticks])) == [
        "2022-07-01",
        "2023-01-01",
        "2023-07-01",
        "2024-01-01",
        "2024-07-01",
    ]
    years = calendar_ticks(*_days("1931-03-02", "2019-06-30"), max_ticks=10)
    assert [t for _, t in years] == [str(y) for y in range(1940, 2020, 10)]
    months = calendar_ticks(*_days("2022-02-12", "2022-08-31"), max_ticks=8)
    assert [t for _, t in months] == ["Mar 2022", "Apr 2022", "May 2022", "Jun 2022", "Jul 2022", "Aug 2022"]
    weeks = calendar_ticks(*_days("2022-02-12", "2022-03-02"), max_ticks=8)
    assert [t for _, t in weeks] == ["14 Feb 2022", "21 Feb 2022", "28 Feb 2022"]
    assert all(dt.date.fromordinal(int(v)).weekday() == 0 for v, _ in weeks)  # Mondays
    days = calendar_ticks(*_days("2022-02-27", "2022-03-02"), max_ticks=8)
    assert [t for _, t in days] == ["27 Feb 2022", "28 Feb 2022", "1 Mar 2022", "2 Mar 2022"]
    assert calendar_ticks(float("nan"), 5.0) == []


def test_month_index_counts_months_from_year_zero() -> None:
    assert month_index(_days("2022-03-31")).tolist() == [2022 * 12 + 2]


# --- issue 27: quarters and months in the language's words, the same on both charts ------------------
def test_quarters_in_the_languages_words() -> None:
    from kanon_engine.i18n import using

    with using("fr"):
        assert bin_label(2022 * 12, 3) == "T1 2022"
    with using("de"):
        assert bin_label(2022 * 12 + 9, 3) == "Q4 2022"


@pytest.mark.parametrize(
    "label,first,last",
    [
        ("2022-Q1", "2022-01-01", "2022-03-31"),
        ("T1 2022", "2022-01-01", "2022-03-31"),
        ("Q4 2023", "2023-10-01", "2023-12-31"),
        ("03/2022", "2022-03-01", "2022-03-31"),
        ("03.2022", "2022-03-01", "2022-03-31"),
        ("2022-03", "2022-03-01", "2022-03-31"),
        ("15/03/2022", "2022-03-15", "2022-03-15"),
        ("15.03.2022", "2022-03-15", "2022-03-15"),
    ],
)
def test_date_labels_of_every_style_read_back(label: str, first: str, last: str) -> None:
    from kanon_engine.present.calendar_steps import label_interval

    span = label_interval(label)
    assert span is not None and _dates(np.array(span)) == [first, last]


def test_the_original_is_binned_no_finer_than_the_release() -> None:
    """A release by quarter: the original is drawn by quarter too (not by month), so every released
    label falls in one bin and both charts show the same labels."""
    from kanon_engine.present.calendar_steps import count_labels_in_bins, release_step

    assert release_step(["T1 2022", "T2 2022"]) == 3
    assert release_step(["2022", "2023"]) == 12
    assert release_step(["03/2022", "2022-04"]) == 1
    assert release_step(["1960-1969"]) == 120
    days = _days("2022-01-15", "2022-02-15", "2022-05-01", "2022-08-31")
    by_month = date_bins(days)
    assert by_month.step == 1
    bins = date_bins(days, min_step=release_step(["Q1 2022", "Q2 2022", "Q3 2022"]))
    assert bins.step == 3 and bins.labels == ("Q1 2022", "Q2 2022", "Q3 2022")
    counts = count_labels_in_bins(pd.Series({"Q1 2022": 2, "Q2 2022": 1, "Q3 2022": 1}), bins)
    assert counts is not None and counts.tolist() == [2, 1, 1]
