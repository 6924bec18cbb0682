"""Two attributes cross-tabulated, in the original and in the release: what a heatmap of their joint
distribution shows a researcher (does the association the study looks for survive?).

Each table is tabulated on its own values (a release's generalized labels are its categories; its
suppression mark is shown as "missing"). Numbers are put in at most :data:`NUMBER_BINS` bins of equal counts
of the original, the same edges for both tables, a released range falling in the bin of its midpoint (an
estimate). Categories beyond :data:`MOST_CATEGORIES` are gathered as "other", so the table stays readable.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.i18n import _, formats
from kanon_engine.utility.values import SUPPRESSED, categories, intervals, is_numeric, midpoints

NUMBER_BINS = 8
MOST_CATEGORIES = 12


def contingency(
    original: pd.DataFrame, release: pd.DataFrame, first: str, second: str, mark: str = SUPPRESSED
) -> dict[str, Any]:
    """``{"original": {rows, columns, counts}, "release": {...}}`` for the two attributes."""
    out: dict[str, Any] = {"attributes": [first, second]}
    cells: dict[str, list[pd.Series]] = {"original": [], "release": []}
    for name in (first, second):
        if is_numeric(original[name], mark):
            edges = _edges(intervals(original[name], mark)[0])
            cells["original"].append(_binned(midpoints(original[name], mark), edges))
            cells["release"].append(_binned(midpoints(release[name], mark), edges))
        else:
            cells["original"].append(_capped(categories(original[name], mark)))
            cells["release"].append(_capped(categories(release[name], mark)))
    for side, (rows, cols) in cells.items():
        table = pd.crosstab(rows, cols, dropna=False)
        out[side] = {
            "rows": [str(v) for v in table.index],
            "columns": [str(v) for v in table.columns],
            "counts": table.to_numpy(dtype=np.int64).tolist(),
        }
    return out


def _edges(values: np.ndarray) -> np.ndarray:
    present = values[np.isfinite(values)]
    if not len(present):
        return np.zeros(0)
    return np.unique(np.quantile(present, np.linspace(0, 1, NUMBER_BINS + 1)))


def _binned(values: np.ndarray, edges: np.ndarray) -> pd.Series:
    """Bin labels (``20 - 29``) of numbers, "missing" for nan."""
    missing = _("missing")
    if len(edges) < 2:
        return pd.Series(
            np.where(np.isfinite(values), formats.decimal(edges[0], 2) if len(edges) else "", missing)
        )
    index = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, len(edges) - 2)
    labels = [
        f"{formats.decimal(edges[i], 2)} – {formats.decimal(edges[i + 1], 2)}" for i in range(len(edges) - 1)
    ]
    out = np.asarray(labels, dtype=object)[index]
    out[~np.isfinite(values)] = missing
    order = [*labels, missing]
    return pd.Series(pd.Categorical(out, categories=order)).cat.remove_unused_categories()


def _capped(values: pd.Series) -> pd.Series:
    """The most frequent categories, the rest as "other", the mark as "missing"."""
    counts = values.value_counts()
    keep = set(counts.index[:MOST_CATEGORIES])
    other, missing = _("other"), _("missing")
    out = values.where(values.isin(keep), other).where(values.notna(), missing)
    order = [*counts.index[:MOST_CATEGORIES], other, missing]
    return pd.Series(pd.Categorical(out.astype(object), categories=order)).cat.remove_unused_categories()
