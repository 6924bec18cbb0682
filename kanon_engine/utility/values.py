"""Released cells read back as a researcher's software would: numbers, ranges, categories, or missing.

A release holds original values (``39``), generalized ones (``30-39``, ``[30, 40[``, ``Married``), and the
suppression mark (``*``). For an analysis, kanon reads:

- a number as itself; a range of numbers as the interval it names (its midpoint where one number is
  needed: an estimate, said as one);
- any other label as a category of its own (a generalized category is a coarser category);
- the suppression mark and blanks as missing.

Labels are parsed once per distinct value, never per row.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from kanon_engine.data.roles import looks_like_codes

SUPPRESSED = "*"
#: a share of an original column's values that must read as numbers for it to be treated as numeric
NUMERIC_SHARE = 0.95

_NUM = r"[-+]?\d+(?:[.,]\d+)?"
_NUMBER = re.compile(rf"^\s*({_NUM})\s*$")
_RANGE = re.compile(rf"^\s*[\[(]?\s*({_NUM})\s*(?:-|–|\.\.|,|;|to)\s*({_NUM})\s*[\])\[]?\s*$")


def _as_float(text: str) -> float:
    return float(text.replace(",", "."))


def label_interval(label: str) -> tuple[float, float]:
    """The interval a label names: a number (lo == hi), a range, or (nan, nan) for anything else."""
    m = _NUMBER.match(label)
    if m:
        x = _as_float(m.group(1))
        return x, x
    m = _RANGE.match(label)
    if m:
        lo, hi = _as_float(m.group(1)), _as_float(m.group(2))
        return (lo, hi) if lo <= hi else (hi, lo)
    return np.nan, np.nan


def intervals(series: pd.Series, mark: str = SUPPRESSED) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ends of every cell (nan for the mark, blanks and labels that name no numbers)."""
    codes, uniques = pd.factorize(series.astype("string"), use_na_sentinel=True)
    table = np.array(
        [(np.nan, np.nan) if u == mark else label_interval(str(u)) for u in uniques], dtype=np.float64
    ).reshape(-1, 2)
    lo = np.full(len(codes), np.nan)
    hi = np.full(len(codes), np.nan)
    present = codes >= 0
    lo[present] = table[codes[present], 0]
    hi[present] = table[codes[present], 1]
    return lo, hi


def is_numeric(series: pd.Series, mark: str = SUPPRESSED) -> bool:
    """Whether a column of the original table holds numbers (almost all its present values do). Codes
    with a leading zero (postcodes such as 02108) are categories: their median would mean nothing."""
    if looks_like_codes(series.astype("string").value_counts()):
        return False
    lo, _hi = intervals(series, mark)
    # a blank cell is missing, not a value unequal to the mark (a string comparison would give <NA> there)
    present = series.notna().to_numpy(dtype=bool) & (series.astype(object) != mark).to_numpy(dtype=bool)
    if not present.any():
        return False
    return bool(np.isfinite(lo[present]).mean() >= NUMERIC_SHARE)


def midpoints(series: pd.Series, mark: str = SUPPRESSED) -> np.ndarray:
    """A number per cell: itself, a range's midpoint, nan when missing or not a number."""
    lo, hi = intervals(series, mark)
    return (lo + hi) / 2.0


def categories(series: pd.Series, mark: str = SUPPRESSED) -> pd.Series:
    """The cells as categories (text), the mark and blanks as missing."""
    text = series.astype("string")
    return text.mask((text == mark).fillna(False).to_numpy(dtype=bool))
