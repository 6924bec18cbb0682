"""Every attribute before and after: what a researcher's first table of descriptive statistics would show.

- a category: its most frequent value (the mode), the number of distinct values, and how far the
  release's distribution is from the original's, by the Earth Mover's Distance with t-closeness's equal
  ground distance (Li et al. 2007): the share of records whose category had to move;
- a number: mean, median, quartiles and range, and the EMD with the ordered ground distance. In a release
  a range stands for values spread evenly over it (a cell ``30-39`` is one record somewhere from 30 to
  39), so the release's figures are estimates, and said to be; suppressed cells are left out of them
  and counted as missing.

The distance is computed over the values of both tables together (a generalized label, and a missing
cell, are values of their own for the equal distance; for numbers, the release's distribution is spread
over the original's values by the ranges, and its missing cells are counted apart): 0 means the same
distribution, 1 the farthest apart.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.privacy.t_closeness import distribution_distance
from kanon_engine.utility.values import SUPPRESSED, categories, intervals, is_numeric


def summarize(
    original: pd.DataFrame, release: pd.DataFrame, columns: list[str], mark: str = SUPPRESSED
) -> dict[str, dict[str, Any]]:
    """``{column: {kind, original: {...}, release: {...}, distance}}`` for every column of both tables."""
    out: dict[str, dict[str, Any]] = {}
    for name in columns:
        if is_numeric(original[name], mark):
            out[name] = _numbers(original[name], release[name], mark)
        else:
            out[name] = _categories(original[name], release[name], mark)
    return out


def _categories(before: pd.Series, after: pd.Series, mark: str) -> dict[str, Any]:
    a, b = categories(before, mark), categories(after, mark)
    counts_a, counts_b = a.value_counts(), b.value_counts()
    domain = counts_a.index.union(counts_b.index)
    # a missing cell (suppressed, or blank) is one more value for the distance: a column turned into
    # '*' has moved all of its records
    ca = np.r_[counts_a.reindex(domain, fill_value=0).to_numpy(np.float64), float(a.isna().sum())]
    cb = np.r_[counts_b.reindex(domain, fill_value=0).to_numpy(np.float64), float(b.isna().sum())]
    return {
        "kind": "category",
        "original": _category_side(counts_a, a),
        "release": _category_side(counts_b, b),
        "distance": distribution_distance(cb, ca / max(ca.sum(), 1.0), ordered=False) if ca.sum() else None,
    }


def _category_side(counts: pd.Series, values: pd.Series) -> dict[str, Any]:
    return {
        "mode": str(counts.index[0]) if len(counts) else None,
        "mode_share": float(counts.iloc[0] / counts.sum()) if len(counts) else None,
        "distinct": int(len(counts)),
        "missing": int(values.isna().sum()),
    }


def _numbers(before: pd.Series, after: pd.Series, mark: str) -> dict[str, Any]:
    lo_a, _hi = intervals(before, mark)
    lo_b, hi_b = intervals(after, mark)
    exact = lo_a[np.isfinite(lo_a)]
    keep = np.isfinite(lo_b) & np.isfinite(hi_b)
    lo_b, hi_b = lo_b[keep], hi_b[keep]
    side_a = _number_side(exact, exact, len(before))
    side_b = _number_side(lo_b, hi_b, len(after))
    side_b["estimated"] = bool((hi_b > lo_b).any())
    return {"kind": "number", "original": side_a, "release": side_b, "distance": _ordered(exact, lo_b, hi_b)}


def _number_side(lo: np.ndarray, hi: np.ndarray, rows: int) -> dict[str, Any]:
    """Mean, quartiles and range of values spread evenly over [lo, hi] (a point where lo == hi)."""
    if not len(lo):
        return {
            "mean": None,
            "median": None,
            "q1": None,
            "q3": None,
            "min": None,
            "max": None,
            "missing": rows,
        }
    q1, median, q3 = _quantiles(lo, hi, (0.25, 0.5, 0.75))
    return {
        "mean": float(((lo + hi) / 2).mean()),
        "median": median,
        "q1": q1,
        "q3": q3,
        "min": float(lo.min()),
        "max": float(hi.max()),
        "missing": int(rows - len(lo)),
    }


def _cdf(lo: np.ndarray, hi: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Share of the values at or below each point of ``at`` (ranges spread evenly), over the distinct
    (lo, hi) pairs with their counts, never over rows."""
    pairs, counts = np.unique(np.column_stack([lo, hi]), axis=0, return_counts=True)
    width = pairs[:, 1] - pairs[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        part = (at[:, None] - pairs[None, :, 0]) / width[None, :]
    part = np.where(width[None, :] > 0, np.clip(part, 0.0, 1.0), (at[:, None] >= pairs[None, :, 0]) * 1.0)
    return (part * counts[None, :]).sum(axis=1) / counts.sum()


def _quantiles(lo: np.ndarray, hi: np.ndarray, shares: tuple[float, ...]) -> tuple[float, ...]:
    """Quantiles of values spread evenly over their ranges: the CDF is piecewise linear between the
    ends of ranges and steps at exact values, so it is inverted on both limits of every such point."""
    if np.array_equal(lo, hi):
        return tuple(float(v) for v in np.quantile(lo, shares))
    points = np.unique(np.concatenate([lo, hi]))
    right = _cdf(lo, hi, points)
    exact = lo[lo == hi]
    mass = np.searchsorted(np.sort(exact), points, "right") - np.searchsorted(np.sort(exact), points, "left")
    left = right - mass / len(lo)
    xs = np.repeat(points, 2)
    ys = np.maximum.accumulate(np.column_stack([left, right]).ravel())
    return tuple(float(np.interp(s, ys, xs)) for s in shares)


def _ordered(exact: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float | None:
    """Ordered-distance EMD between the original values and the release's ranges spread over them."""
    if not len(exact) or not len(lo):
        return None
    values, counts = np.unique(exact, return_counts=True)
    reference = counts / counts.sum()
    cdf = _cdf(lo, hi, values)
    spread = np.diff(np.r_[0.0, cdf])
    spread[-1] += 1.0 - cdf[-1]  # release mass above the largest original value sits on it
    return distribution_distance(spread * len(lo), reference, ordered=True)
