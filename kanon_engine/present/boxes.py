"""Equivalence classes as boxes on two quasi-identifiers: the geometry of the partition view, no Qt.

Mondrian (LeFevre, DeWitt & Ramakrishnan 2006, "Mondrian Multidimensional K-Anonymity", ICDE) cuts the
quasi-identifier space into boxes; :class:`~kanon_engine.result.PartitionRecord` keeps one box per
partition with the class it belongs to (partitions with equal released values form one class). A
full-domain result induces a grid (every class is a product of generalized values); its boxes are the
min/max of each class's original values on the two axes.

Axes: numbers on their scale, dates as ordinal days (as Mondrian records their bounds), categorical
attributes in Mondrian's tree order of the hierarchy
(:func:`~kanon_engine.core.leaf_order.tree_order`:
every group's leaves contiguous), one step per leaf.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kanon_engine.core.leaf_order import tree_order
from kanon_engine.data.table import ColumnKind, Table
from kanon_engine.hierarchy.labels import shown_label
from kanon_engine.hierarchy.model import MISSING
from kanon_engine.present.calendar_steps import to_ordinal_days
from kanon_engine.result import AnonymizationResult


@dataclass(eq=False)
class AxisData:
    """One axis: a coordinate per input row (NaN where missing) and, for categories, tick labels."""

    name: str
    numeric: bool
    integer: bool
    coords: np.ndarray
    ticks: list[tuple[float, str]] | None = None
    date: bool = False  # coordinates are ordinal days

    @property
    def pad(self) -> float:
        """Half a step around discrete values, so boxes of adjacent integers/categories touch."""
        return 0.5 if (self.integer or not self.numeric) else 0.0

    @property
    def extent(self) -> tuple[float, float]:
        finite = self.coords[np.isfinite(self.coords)]
        if not len(finite):
            return 0.0, 1.0
        return float(finite.min()) - self.pad, float(finite.max()) + self.pad


def axis_data(table: Table, result: AnonymizationResult, qi: str) -> AxisData:
    """Coordinates of every record on ``qi``: its number, its date as an ordinal day, or for a
    categorical attribute its leaf position in tree order (each hierarchy group contiguous)."""
    kind = table.kind(qi)
    values = table.frame[qi]
    if kind in (ColumnKind.INTEGER, ColumnKind.DECIMAL):
        return AxisData(qi, True, kind == ColumnKind.INTEGER, table.numeric(qi))
    if kind == ColumnKind.DATE:
        ctype = table.column_types.get(qi)
        days = to_ordinal_days(values, ctype.date_format if ctype is not None else None)
        return AxisData(qi, True, True, days, date=True)
    h = result.config.hierarchies.get(qi)
    if h is not None:
        order = np.asarray(tree_order(h))
        position = np.empty(len(order), dtype=float)
        position[order] = np.arange(len(order))
        leaf = h.encode(values.where(values.notna(), MISSING))
        pos = np.where(leaf >= 0, position[np.maximum(leaf, 0)], np.nan)
        labels = [shown_label(h.values[i]) for i in order]
    else:  # no hierarchy: categories in sorted order
        codes, uniques = pd.factorize(values, sort=True)
        pos = np.where(codes >= 0, codes, np.nan).astype(float)
        labels = [str(u) for u in uniques]
    return AxisData(qi, False, False, pos, [(float(i), lab) for i, lab in enumerate(labels)])


@dataclass(eq=False)
class BoxSet:
    """Boxes on two axes and the released class of each (Mondrian partitions sharing their released
    values form one class, so a class may have several boxes)."""

    x0: np.ndarray
    x1: np.ndarray
    y0: np.ndarray
    y1: np.ndarray
    cls: np.ndarray  # class id of every box
    source: str  # "partitions" (Mondrian's cuts) or "data" (min/max of each class's records)

    def __len__(self) -> int:
        return len(self.x0)

    def contains(self, x: float, y: float) -> np.ndarray:
        return (self.x0 <= x) & (x <= self.x1) & (self.y0 <= y) & (y <= self.y1)

    @property
    def area(self) -> np.ndarray:
        return (self.x1 - self.x0) * (self.y1 - self.y0)


def _class_minmax(row_class: np.ndarray, coords: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per class, min and max of ``coords`` over its records (NaN ignored; NaN if all missing)."""
    kept = np.flatnonzero(row_class >= 0)
    order = kept[np.argsort(row_class[kept], kind="stable")]
    cls = row_class[order]
    lo = np.full(n_classes, np.nan)
    hi = np.full(n_classes, np.nan)
    if not len(order):
        return lo, hi
    starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
    vals = coords[order]
    with np.errstate(invalid="ignore"):
        lo[cls[starts]] = np.fmin.reduceat(vals, starts)
        hi[cls[starts]] = np.fmax.reduceat(vals, starts)
    return lo, hi


def class_boxes(result: AnonymizationResult, ax: AxisData, ay: AxisData) -> BoxSet:
    """Boxes of ``result``'s classes on two axes: Mondrian's partitions (one box per partition, with the
    class Mondrian recorded for it) when the record uses the same scales, else one box per class
    computed from the min/max of its records' original values (a full-domain release's grid)."""
    part = result.partitions
    cls = None
    if (
        part is not None
        and part.classes is not None
        and ax.name in part.qi
        and ay.name in part.qi
        and all(bool(part.numeric[part.qi.index(a.name)]) == a.numeric for a in (ax, ay))
    ):
        cls = np.asarray(part.classes, dtype=np.int64)
    if part is not None and cls is not None:
        bounds = [
            (
                np.asarray(part.lower[:, part.qi.index(a.name)], dtype=float),
                np.asarray(part.upper[:, part.qi.index(a.name)], dtype=float),
            )
            for a in (ax, ay)
        ]
        source = "partitions"
    else:
        bounds = [_class_minmax(result.classes_of_rows(), a.coords, result.n_classes) for a in (ax, ay)]
        cls = np.arange(result.n_classes, dtype=np.int64)
        source = "data"
    edges = []
    for a, (lo, hi) in zip((ax, ay), bounds):
        full_lo, full_hi = a.extent
        lo = np.where(np.isfinite(lo), lo - a.pad, full_lo)
        hi = np.where(np.isfinite(hi), hi + a.pad, full_hi)
        if a.pad == 0.0:  # continuous axis: give degenerate boxes a visible width
            min_w = 0.004 * max(full_hi - full_lo, 1e-9)
            thin = (hi - lo) < min_w
            mid = (lo + hi) / 2
            lo = np.where(thin, mid - min_w / 2, lo)
            hi = np.where(thin, mid + min_w / 2, hi)
        edges.append((lo, hi))
    (x0, x1), (y0, y1) = edges
    return BoxSet(x0, x1, y0, y1, cls, source)


def distinct_per_class(row_class: np.ndarray, values: pd.Series, n_classes: int) -> np.ndarray:
    """Number of distinct values of a (sensitive) column in every class (distinct l-diversity)."""
    codes, _ = pd.factorize(values, use_na_sentinel=False)
    kept = row_class >= 0
    pairs = row_class[kept].astype(np.int64) * (int(codes.max(initial=0)) + 1) + codes[kept]
    unique_pairs = np.unique(pairs)
    return np.bincount(unique_pairs // (int(codes.max(initial=0)) + 1), minlength=n_classes)
