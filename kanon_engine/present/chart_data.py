"""The numbers behind the workbench's charts, computed without drawing anything: class-size histograms,
a column's distribution before and after (binned numbers, calendar bins of dates, categories in hierarchy
order), the loss per quasi-identifier, and the words of their axes (log-scale ticks, local number format,
titles wrapped to fit). The views (``kanon_gui.views.charts`` and its neighbours) only draw them.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from kanon_engine.data.types import parse_numbers
from kanon_engine.hierarchy.model import ROOT, Hierarchy
from kanon_engine.i18n import N_, _, formats
from kanon_engine.present.calendar_steps import (
    count_labels_in_bins,
    date_bins,
    release_step,
    to_ordinal_days,
)

#: Bars of one chart at most (the most frequent values; the rest summed as "other").
MAX_CATEGORIES = 30
OTHER = N_("{count} other values")
MISSING_LABEL = N_("(missing)")  # a bar's key; shown in the interface language (draw_hbars)
#: The chart titles of :func:`loss_per_attribute`, by the metric they show.
LOSS_KINDS = {
    "ncp": N_("Range left open per quasi-identifier (NCP)"),
    "intensity": N_("Generalization per quasi-identifier (share of its hierarchy used)"),
}


def log_labels(lo: float, hi: float, extra: tuple[int, ...] = ()) -> list[tuple[float, str]]:
    """Ticks 1, 2, 5, 10, 20, 50, ... between ``lo`` and ``hi`` (linear values) at their log10."""
    values = {v for e in range(0, 10) for v in (10**e, 2 * 10**e, 5 * 10**e) if lo <= v <= hi}
    values |= {int(v) for v in extra}
    return [(float(np.log10(v)), formats.count(v)) for v in sorted(values)]


def local_tick_strings(values: list[float], scale: float, spacing: float) -> list[str]:
    """Tick labels as pyqtgraph writes them (as many decimals as the spacing needs), in the current
    language's number format: ``0,2`` and ``2.000`` in German."""
    places = max(0, int(np.ceil(-np.log10(spacing * scale)))) if spacing * scale > 0 else 0
    return [formats.decimal(v * scale, places, fixed=True) for v in values]


#: A chart title longer than this (in characters, tags aside) is written on two lines: pyqtgraph does not
#: wrap titles, and a title wider than its chart widens the chart past the view's edge (German and French
#: titles run a third longer than the English ones).
TITLE_CHARACTERS = 48


def _nearest(positions: list[int], target: float) -> int:
    """The position nearest to ``target``, the first of two as near."""
    return min(positions, key=lambda i: abs(i - target))


def wrap_title(title: str, most: int = TITLE_CHARACTERS) -> str:
    """``title`` on as many lines as it needs to keep each within about ``most`` characters, cut at the
    spaces nearest to even shares of its length (a title that already has a line break, or has no
    space, is left as it is). Two lines were not always enough: a French title of the comparison's
    narrow charts ran past their edge."""
    plain = len(re.sub(r"<[^<>]*>", "", title))
    if "<br" in title or plain <= most:
        return title
    spaces = [i for i, c in enumerate(title) if c == " " and "<" not in title[:i].rsplit(">", 1)[-1]]
    if not spaces:
        return title
    lines = min(len(spaces) + 1, -(-plain // most))
    cuts: list[int] = []
    for k in range(1, lines):
        left = [i for i in spaces if not cuts or i > cuts[-1]]
        if not left:
            break
        cuts.append(_nearest(left, k * len(title) / lines))
    out, start = [], 0
    for cut in cuts:
        out.append(title[start:cut])
        start = cut + 1
    out.append(title[start:])
    return "<br>".join(out)


def size_histogram(
    sizes: np.ndarray, log_above: int = 60, span: tuple[int, int] | None = None
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Bin edges, number of classes per bin, and whether bins are logarithmic.

    One bin per size while sizes span at most ``log_above`` values; otherwise about 40 bins evenly
    spaced on a log scale (class sizes are heavily skewed: many small classes, a few huge ones).
    ``span`` (smallest, largest size) forces the bins, so two runs are binned alike.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    if len(sizes) == 0 and span is None:
        return np.array([0.0, 1.0]), np.zeros(1, dtype=np.int64), False
    lo, hi = span if span is not None else (int(sizes.min()), int(sizes.max()))
    lo = max(int(lo), 1)
    hi = max(int(hi), lo)
    if hi - lo <= log_above:
        edges = np.arange(lo, hi + 2, dtype=float) - 0.5
        counts, _unused = np.histogram(sizes, bins=edges)
        return edges, counts, False
    edges = np.unique(np.round(np.geomspace(lo, hi + 1, 41))).astype(float)
    counts, _unused = np.histogram(sizes, bins=edges)
    return edges, counts, True


def _leading_number(label: str) -> float | None:
    m = re.match(r"\s*[\[\(]?\s*(-?\d+(?:\.\d+)?)", label)
    return float(m.group(1)) if m else None


def _ordered(counts: pd.Series, order: list[str] | None, limit: int = MAX_CATEGORIES) -> pd.Series:
    """Categories in a meaningful order: the hierarchy's, else by leading number, else by frequency;
    at most ``limit`` bars (the most frequent values), the rest summed as 'other'."""
    other = None
    if len(counts) > limit:
        top = counts.sort_values(ascending=False, kind="stable")
        other = int(top.iloc[limit - 1 :].sum())
        n_other = len(top) - (limit - 1)
        counts = top.iloc[: limit - 1]
    labels = list(counts.index)
    rank: dict[str, int] = {v: i for i, v in enumerate(order or [])}
    numbers = {lab: _leading_number(lab) for lab in labels}
    if order and all(lab in rank or lab in (ROOT, MISSING_LABEL) for lab in labels):
        key = sorted(labels, key=lambda lab: rank.get(lab, len(rank) + (lab == MISSING_LABEL)))
    elif all(numbers[lab] is not None or lab in (ROOT, MISSING_LABEL) for lab in labels):
        key = sorted(labels, key=lambda lab: (numbers[lab] is None, numbers[lab] or 0.0, lab))
    else:
        key = list(counts.sort_values(ascending=False, kind="stable").index)
    out = counts.reindex(key)
    if other is not None:
        out = pd.concat([out, pd.Series([other], index=[_(OTHER, count=n_other)])])
    return out


def _hierarchy_order(h: Hierarchy | None) -> list[str] | None:
    """Every label of the hierarchy, level by level in hierarchy order (leaves first, root last)."""
    if h is None:
        return None
    seen: dict[str, None] = {}
    for j in range(h.depth):
        for lab in h.level_codes[j][1]:
            seen.setdefault(lab, None)
    seen.pop(ROOT, None)
    return [*seen, ROOT]


def _numeric_bins(values: np.ndarray, n_bins: int = 20) -> tuple[np.ndarray, list[str]]:
    finite = values[np.isfinite(values)]
    lo, hi = float(finite.min()), float(finite.max())
    integer = bool(np.all(finite == np.round(finite)))
    edges = np.linspace(lo, hi, n_bins + 1)
    if integer:
        edges = np.unique(np.round(edges))
        if len(edges) < 2:
            edges = np.array([lo, lo + 1])
    labels = []
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        last = i == len(edges) - 2
        if integer:
            top = int(b) if last else int(b) - 1
            labels.append(f"{int(a)}" if top <= int(a) else f"{int(a)}-{top}")
        else:
            labels.append(
                f"{formats.decimal(float(f'{a:.4g}'), 12)}-{formats.decimal(float(f'{b:.4g}'), 12)}"
            )
    return edges, labels


def numeric_bins_for(
    series: pd.Series, rows: int = MAX_CATEGORIES, number_format: str | None = None
) -> tuple[np.ndarray, list[str]] | None:
    """Bins for a numeric column with more than ``rows`` distinct values (at most ``rows`` bins, so every
    bar keeps its label), else None; ``number_format``: how the column writes numbers ("12,5")."""
    nums = parse_numbers(series, number_format)
    finite = nums[np.isfinite(nums)]
    if len(np.unique(finite)) <= rows:
        return None
    return _numeric_bins(finite, n_bins=max(2, rows - 2))


def date_distributions(
    original: pd.Series,
    released: pd.Series,
    date_format: str | None,
    hierarchy: Hierarchy | None = None,
    rows: int = MAX_CATEGORIES,
) -> tuple[pd.Series, pd.Series, str, bool]:
    """Records per calendar bin of a date column before and after
    (:mod:`kanon_engine.present.calendar_steps`):
    the original's dates binned by month, quarter, year or several years (the finest step with at
    most ``rows`` bars), the release on the same bins when its values are dates or date labels that each
    fall in one bin, else by its own labels in time order; the unit of the bins in words; and whether the
    release is drawn on the original's bins."""
    kept = released[released.notna() & (released != ROOT)]
    days = to_ordinal_days(kept, date_format)
    # bins no finer than the release's periods (quarters, years): both charts then share bins and labels
    step = 1 if len(kept) and not np.isnan(days).any() else release_step(kept.astype(str).unique())
    bins = date_bins(to_ordinal_days(original, date_format), max_bins=max(1, rows - 2), min_step=step)
    orig = _with_missing(
        pd.Series(bins.count(to_ordinal_days(original, date_format)), index=bins.labels), original
    )
    rel_counts = None
    if len(kept) and not np.isnan(days).any():
        rel_counts = bins.count(days)
    elif len(kept):
        rel_counts = count_labels_in_bins(kept.astype(str).value_counts(sort=False), bins)
    if rel_counts is None:
        return orig, distribution(released, hierarchy, limit=rows), bins.unit, False
    rel = pd.Series(rel_counts, index=bins.labels)
    return orig, _with_missing(rel, released), bins.unit, True


def _with_missing(counts: pd.Series, values: pd.Series) -> pd.Series:
    """Bars for missing values and for ``*`` (suppressed or fully generalized) after the bins."""
    for label, count in ((MISSING_LABEL, int(values.isna().sum())), (ROOT, int((values == ROOT).sum()))):
        if count:
            counts[label] = count
    return counts


def distribution(
    series: pd.Series,
    hierarchy: Hierarchy | None = None,
    bins: tuple[np.ndarray, list[str]] | None = None,
    limit: int = MAX_CATEGORIES,
    number_format: str | None = None,
) -> pd.Series:
    """Counts of a column's values for a bar chart (label -> records), in display order.

    With ``bins`` (from :func:`numeric_bins_for` on the original column) a column whose values are all
    numbers is binned, so the original and an untouched release line up; anything else is counted by
    label, in hierarchy order when there is a hierarchy.
    """
    if bins is not None:
        nums = parse_numbers(series, number_format)
        finite = np.isfinite(nums)
        missing = series.isna().to_numpy()
        star = (series == ROOT).to_numpy()
        if (finite | missing | star).all():
            edges, labels = bins
            idx = np.clip(np.searchsorted(edges, nums[finite], side="right") - 1, 0, len(labels) - 1)
            return _with_missing(pd.Series(np.bincount(idx, minlength=len(labels)), index=labels), series)
    s = series.astype(object).where(series.notna(), MISSING_LABEL)
    counts = s.value_counts(sort=False)
    counts.index = [str(v) for v in counts.index]
    return _ordered(counts, _hierarchy_order(hierarchy), limit)


def loss_per_attribute(metrics: dict[str, float]) -> tuple[str, dict[str, float]]:
    """(kind, {qi: value}) from ``ncp:<qi>`` metrics when present, else ``intensity:<qi>``; ``kind`` is
    the chart's title in words."""
    for kind, title in LOSS_KINDS.items():
        prefix = f"{kind}:"
        values = {k[len(prefix) :]: float(v) for k, v in metrics.items() if k.startswith(prefix)}
        if values:
            return _(title), values
    return "", {}
