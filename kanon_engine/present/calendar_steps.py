"""Calendar steps for dates on charts: the bins of a date column's distribution and the ticks of a date
axis, computed without Qt (the views only draw them).

Why calendar steps: a date axis labelled at evenly spaced day numbers shows odd dates (``2022-07-13``,
``2023-02-28``) that no reader thinks in, and a bar per distinct date of a column with a thousand dates is
noise. People read dates by month and by year, so bins and ticks start on the first of a month, a quarter
or a year, and are labelled that way (``Mar 2022``, ``Q1 2022``, ``2022``, ``1930–1934``; a quarter is
written as the date hierarchy writes it in the language, ``T1 2022`` in French). The step is the finest one
that keeps the number of bins (or ticks) within what can be labelled, so every bar keeps its label, and
no finer than the periods of the release (:func:`release_step`), so the original and the release are
drawn on the same bins, under the same labels.

Dates are *ordinal days* (``datetime.date.toordinal``: 1 = 1 January of year 1), the scale Mondrian records
date bounds on and the partition view draws. Month names are the current language's
(:func:`kanon_engine.i18n.formats.month_names`: ``Mar 2022``, ``März 2022``, ``mars 2022``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kanon_engine.data.dates import read_dates
from kanon_engine.i18n import _, formats, ngettext

#: ``date.toordinal()`` of 1970-01-01 (numpy's datetime64 epoch).
EPOCH_ORDINAL = 719_163
#: Bin steps in months, finest first: month, quarter, half year, year, 2, 5, 10, 20, 50 and 100 years.
MONTH_STEPS = (1, 3, 6, 12, 24, 60, 120, 240, 600, 1200)
#: Tick steps in months: the bin steps and every second month.
TICK_MONTH_STEPS = (1, 2, *MONTH_STEPS[1:])
#: Tick steps in days below a month: every day, every second day, every week, every second week.
DAY_STEPS = (1, 2, 7, 14)
#: At most this many bins by default: about what a chart can label one by one.
MAX_BINS = 24


# --- conversions ---------------------------------------------------------------------------------------
def to_ordinal_days(values: pd.Series, date_format: str | None = None) -> np.ndarray:
    """Ordinal days of date strings (float, NaN where missing or not a date of ``date_format``).

    ``date_format`` is a strftime format (``%d.%m.%Y``); without it, the one known format most values
    fit. Values are read with that one format, never guessed one by one
    (:func:`kanon_engine.data.dates.read_dates`)."""
    parsed = read_dates(pd.Series(values, dtype=object), date_format).to_numpy(dtype="datetime64[ns]")
    days = parsed.astype("datetime64[D]")
    out = days.astype(np.int64).astype(float) + EPOCH_ORDINAL
    out[np.isnat(parsed)] = np.nan
    return out


def _datetime64(days: np.ndarray) -> np.ndarray:
    return (np.asarray(days, dtype=np.int64) - EPOCH_ORDINAL).astype("datetime64[D]")


def month_index(days: np.ndarray) -> np.ndarray:
    """``year * 12 + month - 1`` of every (finite) ordinal day: months counted from year 0, so a step
    of 12 months starts on a year and a step of 60 on a year divisible by 5."""
    months = _datetime64(np.floor(days)).astype("datetime64[M]").astype(np.int64)
    return months + 1970 * 12


def month_start(index: int | np.ndarray) -> np.ndarray | float:
    """Ordinal day of the first day of month ``index`` (see :func:`month_index`)."""
    idx = np.asarray(index, dtype=np.int64) - 1970 * 12
    days = idx.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64) + EPOCH_ORDINAL
    return days.astype(float) if days.ndim else float(days)


# --- bins of a distribution ----------------------------------------------------------------------------
@dataclass(frozen=True)
class DateBins:
    """Calendar bins of a date column: ``len(labels)`` bins of ``step`` months from month ``first``.

    ``edges`` are the ordinal days where the bins start, plus the day after the last one ends."""

    first: int
    step: int
    labels: tuple[str, ...]
    edges: np.ndarray

    @property
    def unit(self) -> str:
        """What one bin is, in words: month, quarter, half year, year, or "5 years"."""
        named = {1: _("month"), 3: _("quarter"), 6: _("half year"), 12: _("year")}
        if self.step in named:
            return named[self.step]
        return ngettext("{n} year", "{n} years", self.step // 12, n=self.step // 12)

    def __len__(self) -> int:
        return len(self.labels)

    def index(self, days: np.ndarray) -> np.ndarray:
        """The bin of every ordinal day (-1 where missing or outside the bins)."""
        days = np.asarray(days, dtype=float)
        out = np.full(len(days), -1, dtype=np.int64)
        ok = np.isfinite(days)
        if ok.any():
            b = (month_index(days[ok]) - self.first) // self.step
            out[ok] = np.where((b >= 0) & (b < len(self)), b, -1)
        return out

    def count(self, days: np.ndarray) -> np.ndarray:
        """Records per bin (days outside the bins or missing are not counted)."""
        b = self.index(days)
        return np.bincount(b[b >= 0], minlength=len(self))


def bin_label(start: int, step: int) -> str:
    """The words of a bin of ``step`` months starting at month ``start``: ``Mar 2022`` (a month),
    ``Q1 2022`` (a quarter; ``T1 2022`` in French), ``Jan–Jun 2022`` (a half year), ``2022`` (a year),
    ``1930–1934`` (several years)."""
    year, month = divmod(int(start), 12)
    names = formats.month_names()
    if step == 1:
        return formats.month_year(year, month + 1)
    if step == 3:
        return formats.quarter_year(year, month // 3 + 1)
    if step < 12:
        last = (month + step - 1) % 12
        return f"{names[month]}\u2013{names[last]} {year}"
    if step == 12:
        return f"{year}"
    return f"{year}\u2013{year + step // 12 - 1}"


def date_bins(days: np.ndarray, max_bins: int = MAX_BINS, min_step: int = 1) -> DateBins:
    """Calendar bins for these ordinal days: the finest step of :data:`MONTH_STEPS` (month, quarter,
    year, then several years) of at least ``min_step`` months that needs at most ``max_bins`` bins;
    bins start on a calendar boundary of their step (quarters in January, April, ...; 5-year bins on
    years divisible by 5)."""
    days = np.asarray(days, dtype=float)
    finite = days[np.isfinite(days)]
    if not len(finite):
        return DateBins(0, 1, (), np.zeros(0))
    months = month_index(finite)
    lo, hi = int(months.min()), int(months.max())
    for step in MONTH_STEPS:
        if step < min_step and step != MONTH_STEPS[-1]:
            continue
        first = lo - lo % step
        n = (hi - first) // step + 1
        if n <= max(1, int(max_bins)):
            break
    starts = first + step * np.arange(n + 1)
    labels = tuple(bin_label(int(s), step) for s in starts[:-1])
    return DateBins(first, step, labels, np.asarray(month_start(starts), dtype=float))


# --- released labels ------------------------------------------------------------------------------------
_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_QUARTER = re.compile(r"^(\d{4})-Q([1-4])$")
# the date hierarchy's labels in a language's style (kanon_engine.hierarchy.builders, style "language"):
# 20.09.1965 / 20/09/1965, 09.1965 / 09/1965, Q3 1965 / T3 1965 (any language's, whatever is shown now)
_DAY_LOCAL = re.compile(r"^(\d{1,2})[./](\d{1,2})[./](\d{4})$")
_MONTH_LOCAL = re.compile(r"^(\d{1,2})[./](\d{4})$")
_QUARTER_LOCAL = re.compile(r"^[QT]([1-4])\s(\d{4})$")
_YEAR = re.compile(r"^(\d{4})$")
_YEARS = re.compile(r"^(\d{4})\s*[-\u2013]\s*(\d{4})$")
_RANGE = re.compile(r"^\[(.+?) - (.+?)\]$")


def label_interval(label: str) -> tuple[float, float] | None:
    """First and last ordinal day a released date label stands for, or None when it is not one.

    The labels of kanon's date hierarchies (``1965-09-20``, ``1965-09``, ``1965-Q3``, ``1965``,
    ``1960-1969``) and Mondrian's date ranges (``[2020-01-05 - 2020-03-01]``)."""
    text = str(label).strip()

    def months(first: int, count: int) -> tuple[float, float]:
        return float(month_start(first)), float(month_start(first + count)) - 1.0

    for pattern in (_DAY, _RANGE):
        m = pattern.match(text)
        if m is not None:
            parts = [m.group(0)] if pattern is _DAY else [m.group(1), m.group(2)]
            days = to_ordinal_days(pd.Series(parts, dtype=object), "%Y-%m-%d")
            return None if np.isnan(days).any() else (float(days[0]), float(days[-1]))
    m = _DAY_LOCAL.match(text)
    if m is not None:
        iso = f"{m.group(3)}-{int(m.group(2)):02d}-{int(m.group(1)):02d}"
        days = to_ordinal_days(pd.Series([iso], dtype=object), "%Y-%m-%d")
        return None if np.isnan(days).any() else (float(days[0]), float(days[0]))
    m = _MONTH.match(text)
    if m is not None and 1 <= int(m.group(2)) <= 12:
        return months(int(m.group(1)) * 12 + int(m.group(2)) - 1, 1)
    m = _MONTH_LOCAL.match(text)
    if m is not None and 1 <= int(m.group(1)) <= 12:
        return months(int(m.group(2)) * 12 + int(m.group(1)) - 1, 1)
    m = _QUARTER.match(text)
    if m is not None:
        return months(int(m.group(1)) * 12 + 3 * (int(m.group(2)) - 1), 3)
    m = _QUARTER_LOCAL.match(text)
    if m is not None:
        return months(int(m.group(2)) * 12 + 3 * (int(m.group(1)) - 1), 3)
    m = _YEAR.match(text)
    if m is not None:
        return months(int(m.group(1)) * 12, 12)
    m = _YEARS.match(text)
    if m is not None and int(m.group(1)) <= int(m.group(2)):
        return months(int(m.group(1)) * 12, 12 * (int(m.group(2)) - int(m.group(1)) + 1))
    return None


def release_step(labels: pd.Series | list[str]) -> int:
    """The bin step (months, one of :data:`MONTH_STEPS`) the original should be drawn with so that every
    released date label falls in one bin: the smallest step whose calendar bins each hold whole
    periods of the release (a quarter in quarters, a year in years); 1 when no label is a period longer
    than a day's month (dates, months, or no date labels)."""
    spans = []
    for label in labels:
        span = label_interval(str(label))
        if span is not None:
            first, last = month_index(np.array(span, dtype=float))
            spans.append((int(first), int(last)))
    for step in MONTH_STEPS:
        if all(first // step == last // step for first, last in spans):
            return step
    return MONTH_STEPS[-1]


def count_labels_in_bins(labels: pd.Series, bins: DateBins) -> np.ndarray | None:
    """Records per bin for released date labels (``labels``: label -> records), or None unless every
    label lies within one bin (then the release is drawn on the original's bins, bar beside bar)."""
    out = np.zeros(len(bins), dtype=np.int64)
    for label, count in labels.items():
        span = label_interval(str(label))
        if span is None:
            return None
        first, last = bins.index(np.array(span))
        if first < 0 or first != last:
            return None
        out[first] += int(count)
    return out


# --- ticks of an axis -----------------------------------------------------------------------------------
def calendar_ticks(lo: float, hi: float, max_ticks: int = 8) -> list[tuple[float, str]]:
    """Ticks between ordinal days ``lo`` and ``hi`` on calendar boundaries, with their words.

    The finest step that gives at most ``max_ticks`` ticks: days (``5 Mar 2022``), weeks (Mondays),
    months (``Apr 2022``: every tick says its year, since the first may be cut off at the axis' edge),
    or years (``2022``; every 2, 5, 10, 20, 50 or 100 years)."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi < lo:
        return []
    max_ticks = max(2, int(max_ticks))
    first_day, last_day = int(np.ceil(lo)), int(np.floor(hi))
    for step in DAY_STEPS:
        if (last_day - first_day) // step + 1 > max_ticks:
            continue
        anchor = 1 if step >= 7 else 0  # weeks start on Mondays (ordinal day 1 was a Monday)
        start = first_day + (anchor - first_day) % step
        days = np.arange(start, last_day + 1, step)
        return [(float(d), _day_words(int(d))) for d in days]
    months_lo = int(month_index(np.array([float(first_day) - 1]))[0]) + 1
    months_hi = int(month_index(np.array([float(last_day)]))[0])
    for step in TICK_MONTH_STEPS:
        start = months_lo + (-months_lo) % step
        if start > months_hi or (months_hi - start) // step + 1 <= max_ticks:
            break
    out = []
    for m in np.arange(start, months_hi + 1, step):
        year, month = divmod(int(m), 12)
        text = f"{year}" if step >= 12 else formats.month_year(year, month + 1)
        out.append((float(month_start(int(m))), text))
    return out


def _day_words(day: int) -> str:
    return formats.day_month_year(_datetime64(np.array([day]))[0].astype(object))
