"""Mondrian multidimensional partitioning, strict and relaxed (LeFevre, DeWitt & Ramakrishnan 2006,
"Mondrian Multidimensional K-Anonymity", ICDE; the seed paper "Achieving Multidimensional K-Anonymity by
a Greedy Approach" restates it).

Mondrian cuts the table recursively, kd-tree style: a partition is cut in two on one quasi-identifier at
the median, choosing the attribute with the widest normalized range and falling back to the next when
no allowable cut exists there. A cut is *allowable* when both sides satisfy every privacy model of the
run (k-anonymity, l-diversity, t-closeness: the same model objects the full-domain searches use). When
no allowable cut remains the partition becomes an equivalence class and its records are released as a
summary of the class (a range ``[35-38]`` or a hierarchy node). Nothing is suppressed.

Each quasi-identifier is an *axis* with an order on its values (keys):

- numbers (``Table.kind`` INTEGER/DECIMAL) and dates are cut on their value order; values that are not
  numbers or dates (missing cells) come after them, each its own key;
- categorical attributes are cut along their hierarchy, top down: the leaves are put in *tree order*
  (:func:`~kanon_engine.core.leaf_order.tree_order`: the members of every hierarchy node are
  contiguous, siblings in the order the hierarchy lists them), a partition sits at the lowest node
  covering its values, and a cut sends the children subtrees of that node to two sides, so a cut is a
  threshold on a child boundary.

Cut rules. Strict: find the median record (the lower median in key order) and the *block* holding it
(its value; for a categorical axis the child subtree holding it); the cut goes just after the block
(the paper's "values <= median left") or just before it, whichever leaves the smaller side larger (ties:
after). That is the most balanced threshold there is, so if any threshold cut on the axis is allowable
for k-anonymity this one is, which gives the paper's bound: every class holds between k and
2d(k-1)+m records (m: the largest count of one point; the bound does not hold with hierarchies).
Relaxed: on a numeric or date attribute the records are put in key order and the first ceil(n/2) go
left, so the records at the median are split between the sides, every point there giving its share in
proportion to its records (:meth:`_Level.relaxed`). On a
categorical attribute such a cut would split a hierarchy subtree and make no label more specific, so
there the relaxed cut is strict's cut along a child boundary; attributes whose range no longer spreads
are skipped. Only when no attribute can be cut that way are the records of the median block of the
widest attribute divided between the sides (the paper's relaxed rule), so a partition of 2k records or
more is always cut and every class holds between k and 2k-1 records. On Adult at k=5 this keeps
relaxed GCP (0.0382) and DM (469,004) below strict's (0.0392, 580,110); splitting inside subtrees gave
GCP 0.268.

Dimension choice: the widest normalized range, which is the attribute's NCP (see
:mod:`kanon_engine.metrics.partition`): ``(max - min) / (table max - table min)`` for ordered axes,
``(leaves under the node - 1) / (leaves - 1)`` for categorical ones; ties go to the attribute listed
first. A class that mixes numbers with missing values counts as width 1.

Speed: the recursion runs one *level* at a time for all partitions at once over index arrays: segmented
min/max with ``reduceat``, the medians of all partitions from one sort of (partition, key) codes,
``searchsorted`` for the side counts, and a stable in-place regrouping of the records by cumulative sums.
Python loops run per level and per dimension attempt, never per partition or per record.

Released values: the range of the class's values (the single value when they are all equal; original
strings; ``[a - b]`` with spaces when a bound contains ``-``, e.g. dates), or for a categorical axis the
label of the lowest hierarchy node covering the class's values. A class mixing numbers with missing
values gets the lowest hierarchy node covering its key range. With ``summary="mean"`` numeric attributes
also get a ``<qi>_mean`` column. Two partitions that come out with identical released values are one
equivalence class of the release (an attacker cannot tell them apart): ``row_class`` and
``class_sizes`` describe those classes; :class:`~kanon_engine.result.PartitionRecord` keeps every
partition as a box (tight bounds per axis: values for numbers, ordinal days for dates, tree-order leaf
positions for categorical attributes).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from kanon_engine.algorithms.base import METRIC, Algorithm, Job
from kanon_engine.algorithms.mondrian.engine import (
    Kernel,
    Labels,
    boxed_plan,
    class_labels,
    mondrian_by_engine,
    plan_before_counts,
    require_engine_cuts,
)
from kanon_engine.algorithms.mondrian.workload import WorkloadGuide
from kanon_engine.config import AnonymizationConfig, ParamSpec, require_k_fits
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import group_columns
from kanon_engine.core.leaf_order import node_paths, tree_order
from kanon_engine.data.dates import read_dates
from kanon_engine.data.table import ColumnKind, TableLike
from kanon_engine.data.types import parse_numbers
from kanon_engine.errors import ConfigError, InfeasibleError
from kanon_engine.hierarchy.model import ROOT, Hierarchy
from kanon_engine.i18n import N_, _
from kanon_engine.metrics.loss import DEFAULT_METRIC
from kanon_engine.metrics.partition import categorical_ncp, numeric_ncp, partition_metrics
from kanon_engine.params import choice_spec
from kanon_engine.privacy.models import ClassStats, KAnonymity, PrivacyModel
from kanon_engine.progress import ProgressCallback
from kanon_engine.result import AnonymizationResult, PartitionRecord
from kanon_engine.sources import TableSource
from kanon_engine.sources.backends.base import give_back_freed_memory
from kanon_engine.sources.plan import points
from kanon_engine.sources.plan.finish import finish_result
from kanon_engine.sources.plan.person_points import require_leaf_points
from kanon_engine.sources.plan.release_plan import PartitionPlan

SUMMARY = choice_spec(
    "summary",
    N_("Summary statistic"),
    "range",
    N_(
        "How a group of records shows its numbers: range releases [min-max] (or the hierarchy node for "
        "categories); mean also adds a column with the group's average of each numeric quasi-identifier."
    ),
    {
        "range": N_("Range [min-max]"),
        "mean": N_("Range, and the mean in a column of its own"),
    },
)

WORKLOAD_AWARE = ParamSpec(
    "workload_aware",
    N_("Cut along the workload"),
    "bool",
    False,
    N_(
        "Choose where to cut from the workload of intended analyses: cut the attribute whose query "
        "boundaries fall inside a group, at such a boundary, so the release answers those queries without "
        "spreading (needs a workload)."
    ),
)

#: Proleptic Gregorian ordinal of 1970-01-01 (``datetime.date(1970, 1, 1).toordinal()``).
_EPOCH_ORDINAL = 719163
#: A number as the type detection reads one (sign, digits, decimals, exponent), after trimming spaces.
_NUMBER = r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$"


# --------------------------------------------------------------------------------------------- axes
class _Axis(ABC):
    """One quasi-identifier as Mondrian sees it: keys (an order on its leaves) and how to summarize."""

    name: str
    n_keys: int
    key_of_leaf: np.ndarray
    numeric: bool

    @abstractmethod
    def width(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Normalized width (= NCP) of partitions whose keys span ``[lo, hi]``."""

    def block(self, v: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keys that a strict cut must keep on one side together with key ``v``."""
        return v, v

    def snap(self, t: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
        """Cut positions (a cut after key t) a strict cut may use near the wanted positions ``t``."""
        return [t]

    @abstractmethod
    def key_text(self) -> np.ndarray:
        """The original value (string) of every key."""

    @abstractmethod
    def label_ids(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Released value of partitions spanning ``[lo, hi]`` as ids into a table of texts (the table may
        repeat a text; :meth:`coded_labels` makes them distinct)."""

    def coded_labels(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Released value of partitions spanning ``[lo, hi]`` as codes into distinct texts, numbered as
        ``pd.factorize`` numbers the strings (first seen first), without a string object per partition:
        millions of partitions of a streamed run hold 8 bytes each here, not a Python object."""
        ids, table = self.label_ids(lo, hi)
        same, text = pd.factorize(pd.Series(table, dtype=object), sort=False)
        codes, seen = pd.factorize(same[ids], sort=False)
        small = len(seen) < np.iinfo(np.int32).max  # always, in practice: 4 bytes a partition
        return codes.astype(np.int32 if small else np.int64), np.asarray(text, dtype=object)[seen]

    def labels(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Released value (object array of strings) of partitions spanning ``[lo, hi]``."""
        codes, text = self.coded_labels(lo, hi)
        return text[codes]

    @abstractmethod
    def bounds(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Box bounds (floats) for the partition viewer."""


def _range_text(a: str, b: str) -> str:
    sep = " - " if ("-" in a or "-" in b) else "-"
    return f"[{a}{sep}{b}]"


class _OrderedAxis(_Axis):
    """Numbers or dates: keys are dense ranks of the values; other values (missing) follow, one key each."""

    def __init__(
        self, name: str, hierarchy: Hierarchy, values: np.ndarray, present: np.ndarray, is_date: bool
    ) -> None:
        self.name = name
        self.numeric = True
        self.is_date = is_date
        self.hierarchy = hierarchy
        leaves = np.asarray(hierarchy.values, dtype=object)
        ok = np.isfinite(values)
        leaf_idx = np.arange(len(leaves))
        # numeric keys: distinct values; the text of a key is its first leaf present in the data
        num = leaf_idx[ok]
        order = np.lexsort((num, ~present[num], values[num]))
        ordered = values[num][order]
        first = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]])) if len(num) else num
        uniq = ordered[first]
        self.n_numeric = len(uniq)
        key = np.empty(len(leaves), dtype=np.int64)
        key[num] = np.searchsorted(uniq, values[num])
        other = leaf_idx[~ok]
        key[other] = self.n_numeric + np.arange(len(other))
        self.key_of_leaf = key
        self.n_keys = self.n_numeric + len(other)
        self.leaf_of_key = np.concatenate([num[order][first], other]).astype(np.int64)
        self.text = leaves[self.leaf_of_key]
        self.value = np.concatenate([uniq, np.full(len(other), np.nan)])
        used = np.flatnonzero(np.bincount(key[present], minlength=self.n_keys))
        used_num = used[used < self.n_numeric]
        if len(used_num):
            self.domain = (float(self.value[used_num[0]]), float(self.value[used_num[-1]]))
        else:
            self.domain = (0.0, 0.0)
        self._changes: list[np.ndarray] | None = None

    def _mixed(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        return (hi >= self.n_numeric) & (lo != hi)

    def key_text(self) -> np.ndarray:
        return self.text

    def width(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        n_num = self.n_numeric
        lo_v = self.value[np.minimum(lo, max(n_num - 1, 0))] if n_num else np.zeros(len(lo))
        hi_v = self.value[np.minimum(hi, max(n_num - 1, 0))] if n_num else np.zeros(len(hi))
        w = numeric_ncp(lo_v, hi_v, *self.domain)
        w[hi >= n_num] = 0.0
        w[self._mixed(lo, hi)] = 1.0
        return w

    def label_ids(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pair = lo.astype(np.int64) * self.n_keys + hi
        inverse, uniq = pd.factorize(pair)
        ulo, uhi = uniq // self.n_keys, uniq % self.n_keys
        out = np.empty(len(uniq), dtype=object)
        text = self.text
        out[:] = [text[a] if a == b else _range_text(text[a], text[b]) for a, b in zip(ulo, uhi)]
        mixed = self._mixed(ulo, uhi)
        if mixed.any():
            out[mixed] = self._covering_nodes(ulo[mixed], uhi[mixed])
        return inverse, out

    def _covering_nodes(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Label of the lowest hierarchy node covering every key in ``[lo, hi]``: at level j the keys of a
        range share one node when the node does not change between consecutive keys inside the range."""
        h = self.hierarchy
        if self._changes is None:
            self._changes = []
            for j in range(h.depth):
                node = pd.factorize(h.matrix[:, j])[0][self.leaf_of_key]
                self._changes.append(np.concatenate([[0], np.cumsum(node[1:] != node[:-1])]))
        out = np.full(len(lo), ROOT, dtype=object)
        todo = np.ones(len(lo), dtype=bool)
        for j in range(1, h.depth):
            same = todo & (self._changes[j][hi] == self._changes[j][lo])
            out[same] = h.matrix[self.leaf_of_key[lo[same]], j]
            todo &= ~same
        return out

    def bounds(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.value[lo], self.value[hi]


class _TreeAxis(_Axis):
    """A categorical attribute cut along its hierarchy; keys are leaf positions in tree order."""

    def __init__(self, name: str, hierarchy: Hierarchy) -> None:
        self.name = name
        self.numeric = False
        n = len(hierarchy.values)
        order = tree_order(hierarchy)
        self.leaf_text = np.asarray(hierarchy.values, dtype=object)[order]
        self.n_keys = n
        self.key_of_leaf = np.empty(n, dtype=np.int64)
        self.key_of_leaf[order] = np.arange(n)
        paths = node_paths(hierarchy)
        # node id of every key per level, plus a virtual root above the top level
        self.node: list[np.ndarray] = [p[order] for p in paths] + [np.zeros(n, dtype=np.int64)]
        self.first: list[np.ndarray] = []
        self.last: list[np.ndarray] = []
        self.label: list[np.ndarray] = []
        pos = np.arange(n)
        for j, node in enumerate(self.node):
            m = int(node.max()) + 1
            first = np.full(m, n, dtype=np.int64)
            last = np.full(m, -1, dtype=np.int64)
            np.minimum.at(first, node, pos)
            np.maximum.at(last, node, pos)
            self.first.append(first)
            self.last.append(last)
            if j < hierarchy.depth:
                self.label.append(np.asarray(hierarchy.matrix[order[first], j], dtype=object))
            else:
                self.label.append(np.array([ROOT], dtype=object))

    def lca(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Level and node id of the lowest node covering keys ``lo..hi`` (contiguous in tree order)."""
        level = np.full(len(lo), len(self.node) - 1, dtype=np.int64)
        todo = np.ones(len(lo), dtype=bool)
        for j, node in enumerate(self.node[:-1]):
            same = todo & (node[lo] == node[hi])
            level[same] = j
            todo &= ~same
            if not todo.any():
                break
        ids = np.zeros(len(lo), dtype=np.int64)
        for j in np.unique(level):
            sel = level == j
            ids[sel] = self.node[j][lo[sel]]
        return level, ids

    def width(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        level, ids = self.lca(lo, hi)
        leaves = np.empty(len(lo), dtype=np.int64)
        for j in np.unique(level):
            sel = level == j
            leaves[sel] = self.last[j][ids[sel]] - self.first[j][ids[sel]] + 1
        return categorical_ncp(leaves, self.n_keys)

    def _child_span(
        self, v: np.ndarray, lo: np.ndarray, hi: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The level of the lowest node covering ``lo..hi``, and the first and last key of its child
        subtree holding key ``v`` (``v`` itself where that node is a leaf, level 0)."""
        level, _ids = self.lca(lo, hi)
        first, last = v.copy(), v.copy()
        for j in np.unique(level):
            if j == 0:
                continue
            sel = level == j
            child = self.node[j - 1][v[sel]]
            first[sel] = self.first[j - 1][child]
            last[sel] = self.last[j - 1][child]
        return level, first, last

    def block(self, v: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _level, first, last = self._child_span(v, lo, hi)
        return first, last

    def key_text(self) -> np.ndarray:
        return self.leaf_text

    def snap(self, t: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
        """The edges of the child subtree (of the partition's lowest covering node) holding key t: a
        strict cut on a hierarchy runs along child boundaries, so labels become more specific."""
        level, first, last = self._child_span(t, lo, hi)
        return [last, np.where(level > 0, first - 1, t)]

    def label_ids(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        level, ids = self.lca(lo, hi)
        base = np.cumsum([0] + [len(lab) for lab in self.label])[:-1]
        return base[level] + ids, np.concatenate(self.label)

    def bounds(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return lo.astype(np.float64), hi.astype(np.float64)


def _leaf_values(table: TableLike, name: str, hierarchy: Hierarchy, kind: ColumnKind) -> np.ndarray:
    """Numbers (or ordinal days) of the hierarchy's leaves; NaN where a leaf is not one."""
    leaves = pd.Series(np.asarray(hierarchy.values, dtype=object), dtype=object)
    if kind == ColumnKind.DATE:
        ctype = table.column_types.get(name)
        dt = read_dates(leaves, ctype.date_format if ctype is not None else None)
        ns = dt.to_numpy(dtype="datetime64[ns]")
        days = ns.astype(np.int64) / 86_400e9 + _EPOCH_ORDINAL
        return np.where(np.isnat(ns), np.nan, days)
    ctype = table.column_types.get(name)
    if ctype is not None and ctype.number_format:  # "12,5", "1 234,50": as the column writes them
        return parse_numbers(leaves, ctype.number_format)
    text = pc.utf8_trim_whitespace(pa.array(leaves.to_numpy(dtype=object), type=pa.string()))
    is_number = pc.match_substring_regex(text, _NUMBER)
    x = pc.cast(pc.if_else(is_number, text, None), pa.float64()).to_numpy(zero_copy_only=False)
    return np.where(np.isfinite(x), x, np.nan)


def make_axes(table: TableLike, enc: EncodedTable) -> list[_Axis]:
    """The axis of every quasi-identifier: numeric/date columns ordered, the others along the hierarchy."""
    axes: list[_Axis] = []
    for q, (name, h) in enumerate(zip(enc.qi, enc.hierarchies)):
        kind = table.kind(name)
        if kind in (ColumnKind.INTEGER, ColumnKind.DECIMAL, ColumnKind.DATE):
            present = enc.leaf_histogram(q) > 0
            values = _leaf_values(table, name, h, kind)
            axes.append(_OrderedAxis(name, h, values, present, kind == ColumnKind.DATE))
        else:
            axes.append(_TreeAxis(name, h))
    return axes


# ----------------------------------------------------------------------------------------- checks
class _CutChecker:
    """Whether groups of records satisfy every privacy model, through the shared model code."""

    def __init__(self, enc: EncodedTable, models: tuple[PrivacyModel, ...]) -> None:
        self.enc = enc
        self.models = models
        self.min_size = max(m.min_class_size for m in models)
        # under the person role k counts distinct persons: never the records alone
        self.simple = all(isinstance(m, KAnonymity) for m in models) and enc.persons is None
        names = [s.name for s in enc.sensitive]
        self.attributes = tuple(sorted({names.index(m.sensitive) for m in models if m.sensitive}))

    def passes(self, rows: np.ndarray, group: np.ndarray, n_groups: int, weights: np.ndarray) -> np.ndarray:
        """One boolean per group id: ``group[i]`` is the group of ``weights[i]`` records of point
        ``rows[i]``."""
        if self.simple:
            return np.bincount(group, weights=weights, minlength=n_groups) >= self.min_size
        stats = ClassStats.from_rows(
            self.enc, rows, group.astype(np.int64), n_groups, self.attributes, weights
        )
        ok = np.ones(n_groups, dtype=bool)
        for m in self.models:
            ok &= m.passes(stats)
        return ok


# ------------------------------------------------------------------------------------- partitioning
@dataclass(frozen=True, eq=False)
class Partitioning:
    """Mondrian's partitions over points. A *fragment* is ``weight[i]`` records of point ``point[i]``
    (those of rank ``offset[i]`` on among the point's records, in input order) in partition
    ``partition[i]``; a point is one fragment unless relaxed Mondrian divided its records. Tight key
    bounds (P, n_qi) and records per partition, the smallest (point, offset) of each (to number classes
    in an order every engine agrees on), and how many cuts were made and checked."""

    point: np.ndarray
    offset: np.ndarray
    weight: np.ndarray
    partition: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    sizes: np.ndarray
    first: np.ndarray
    splits: int
    checked: int


def _key_dtype(n_keys: int) -> type:
    return np.int16 if n_keys < 2**15 else np.int32


class _Level:
    """The candidate cuts of one attempt at one recursion level (all partitions at once).

    Partitions hold fragments (points with records); a partition's records in key order are its
    fragments sorted by key, ties in their current order, each standing for its weight in records, so
    the median *record* and the records on each side of a threshold come from cumulative weights.
    """

    def __init__(
        self,
        ka: np.ndarray,
        wt: np.ndarray,
        pid: np.ndarray,
        seg: np.ndarray,
        recs: np.ndarray,
        cand: np.ndarray,
        dim: np.ndarray,
        n_keys: int,
    ) -> None:
        self.cidx = np.flatnonzero(cand)
        m = len(self.cidx)
        if m == len(seg):
            self.pos = np.arange(ka.shape[1], dtype=np.int64)
            self.lp = pid
        else:
            local = np.full(len(seg), -1, dtype=np.int64)
            local[self.cidx] = np.arange(m)
            self.pos = np.flatnonzero(cand[pid])
            self.lp = local[pid[self.pos]]
        self.seg = seg[self.cidx]
        self.size = recs[self.cidx]
        self.start = np.cumsum(self.seg) - self.seg
        self.dim = dim[self.cidx]
        self.wt = wt[self.pos]
        n_act = ka.shape[1]
        self.key = np.take(ka.ravel(), self.dim[self.lp] * n_act + self.pos).astype(np.int64)
        self.base = np.arange(m, dtype=np.int64) * n_keys
        coded = self.base[self.lp] + self.key
        order = np.argsort(coded, kind="stable")
        self.sorted = coded[order]
        self.cum = np.concatenate([[0], np.cumsum(self.wt[order])])
        self.cum_start = self.cum[self.start]

    def count_le(self, t: np.ndarray) -> np.ndarray:
        """Records with key <= t in each candidate partition."""
        return self.cum[np.searchsorted(self.sorted, self.base + t, side="right")] - self.cum_start

    def key_at(self, r: np.ndarray) -> np.ndarray:
        """The key of the record of rank ``r`` (0-based, in key order) of each candidate partition."""
        j = np.searchsorted(self.cum, self.cum_start + r, side="right") - 1
        return self.sorted[j] - self.base

    def count_le_at(self, local: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Records with key <= t[i] in candidate partition local[i] (any number of pairs)."""
        at = np.searchsorted(self.sorted, self.base[local] + t, side="right")
        return self.cum[at] - self.cum_start[local]

    def strict(self, axes: list[_Axis], lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Left sizes and the right-side mask of the median cuts (see the module docstring)."""
        threshold, left = self.strict_threshold(axes, lo, hi)
        return left, self.key > threshold[self.lp]

    def strict_threshold(
        self, axes: Sequence[_Axis], lo: np.ndarray, hi: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Thresholds (keys <= t go left) and left sizes of the median cuts."""
        v = self.key_at((self.size - 1) // 2)
        blo, bhi = v.copy(), v.copy()
        for q in np.unique(self.dim):
            sel = self.dim == q
            cols = self.cidx[sel]
            blo[sel], bhi[sel] = axes[q].block(v[sel], lo[q, cols], hi[q, cols])
        after = self.count_le(bhi)
        before = self.count_le(blo - 1)
        use_after = np.minimum(after, self.size - after) >= np.minimum(before, self.size - before)
        threshold = np.where(use_after, bhi, blo - 1)
        left = np.where(use_after, after, before)
        return threshold, left

    def relaxed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Left sizes (ceil(n/2) records), the right-side mask, and the records of each fragment that go
        left when the fragment is divided (0 elsewhere).

        The records at the median key are shared out *in proportion*: of the ``need`` tied records the
        left side still takes, every tied fragment gives about ``need / tied`` of its records (rounded on
        the running totals, so the shares add up exactly), its first records in input order. That is
        what the paper's cut does in expectation when the tied records come in any order, and it keeps
        the release independent of the row order and of the engine. Giving whole points to one side
        in their code order instead leaves the two sides with disjoint blocks of identical records, which
        end up in partitions with identical released values: on Adult at k=5 the release's DM was 488,234
        that way against 469,004 in proportion (470,086 row by row with ties in input order).
        """
        left = (self.size + 1) // 2
        v = self.key_at(left - 1)
        below = self.count_le(v - 1)
        need, tied_total = left - below, self.count_le(v) - below
        tie = self.key == v[self.lp]
        tied = np.where(tie, self.wt, 0)
        upto = np.cumsum(tied)
        upto -= np.concatenate([[0], upto])[self.start][self.lp]  # tied records up to each fragment
        need_e, total_e = need[self.lp], np.maximum(tied_total[self.lp], 1)
        went_left = (need_e * upto + total_e // 2) // total_e  # tied records sent left so far
        share = went_left - (need_e * (upto - tied) + total_e // 2) // total_e
        whole = share == self.wt
        right = (self.key > v[self.lp]) | (tie & ~whole & (share == 0))
        return left, right, np.where(tie & ~whole, share, 0)

    def relaxed_on_trees(
        self, axes: list[_Axis], lo: np.ndarray, hi: np.ndarray, min_size: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Relaxed cuts that respect hierarchy subtrees where they can.

        On a categorical attribute a relaxed cut in the middle of a subtree makes no label more specific
        (both sides still need the subtree's parent), so there the most even cut along a child boundary
        (strict's) is used; when it is not allowable the caller tries the next attribute, and only when
        no attribute can be cut so are the records of the median block (the child subtree holding the
        median) divided between the sides by :meth:`relaxed`, as the paper divides the records at the
        median. Numeric attributes keep the plain relaxed cut.
        """
        left, right, share = self.relaxed()
        tree = np.array([isinstance(axes[q], _TreeAxis) for q in self.dim], dtype=bool)
        if not tree.any():
            return left, right, share
        threshold, s_left = self.strict_threshold(axes, lo, hi)
        left = np.where(tree, s_left, left)  # not allowable there: the caller tries the next attribute
        on_tree = tree[self.lp]
        right = np.where(on_tree, self.key > threshold[self.lp], right)
        return left, right, np.where(on_tree, 0, share)


def partition(
    keys: np.ndarray,
    weights: np.ndarray,
    axes: list[_Axis],
    strict: bool,
    checker: _CutChecker,
    progress: ProgressCallback,
    guide: WorkloadGuide | None = None,
) -> Partitioning:
    """Run Mondrian on points: the key matrix ``keys`` (n_qi, n_points) with the records of every point
    (``weights``), level by level for all partitions at once.

    Strict cuts never separate records with equal keys, so they cut points whole and the partitions are
    those of the records (a weighted median is the median record). Relaxed cuts share the records at the
    median out by count, dividing a point into fragments. With a ``guide`` (workload-aware Mondrian,
    strict only) dimensions and cut values follow the workload's boundaries
    (:mod:`kanon_engine.algorithms.mondrian.workload`).
    """
    n_keys = max(ax.n_keys for ax in axes)
    st = _State(keys.astype(_key_dtype(n_keys), copy=False), weights.astype(np.int64))
    total = int(st.wt.sum())
    expected = max(1.0, math.log2(max(total, 2) / max(checker.min_size, 1))) + 1
    level = finished = splits = checked = 0
    while len(st.seg):
        share = max(level / expected, finished / max(total, 1))
        progress(
            min(0.9, 0.05 + 0.85 * share),
            _(
                "Mondrian level {level}: {open} open partitions, {splits} splits so far",
                level=level,
                open=len(st.seg),
                splits=splits,
            ),
        )
        lo, hi, recs, cut, right, share_left, n_checked = _cut_level(st, axes, strict, checker, n_keys, guide)
        checked += n_checked
        finished += st.finish(~cut, lo, hi, recs)
        if not cut.any():
            break
        splits += int(cut.sum())
        st.regroup(cut, right, share_left)
        level += 1
    return st.result(splits, checked)


def _dimension_order(
    width: np.ndarray, lo: np.ndarray, hi: np.ndarray, guide: WorkloadGuide | None
) -> np.ndarray:
    """(attempt, partition) -> attribute: the widest normalized range first (ties: the first listed);
    with a workload guide, the most workload boundaries inside the partition first."""
    if guide is None:
        return np.argsort(-width, axis=0, kind="stable")
    score = guide.scores(lo, hi)
    first = np.broadcast_to(np.arange(width.shape[0])[:, None], width.shape)
    return np.lexsort((first, -width, -score), axis=0)


def _cut_level(
    st: _State,
    axes: list[_Axis],
    strict: bool,
    checker: _CutChecker,
    n_keys: int,
    guide: WorkloadGuide | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Try the cuts of one level: per open partition its bounds, records and whether it was cut; per
    fragment its side and (relaxed) the records it sends left when divided."""
    ka, seg = st.ka, st.seg
    n_parts, d = len(seg), ka.shape[0]
    starts = np.cumsum(seg) - seg
    lo = np.minimum.reduceat(ka, starts, axis=1).astype(np.int64)
    hi = np.maximum.reduceat(ka, starts, axis=1).astype(np.int64)
    recs = np.add.reduceat(st.wt, starts)
    width = np.stack([ax.width(lo[q], hi[q]) for q, ax in enumerate(axes)])
    order = _dimension_order(width, lo, hi, guide)
    pid = np.repeat(np.arange(n_parts, dtype=np.int64), seg)
    cut = np.zeros(n_parts, dtype=bool)
    right = np.zeros(ka.shape[1], dtype=bool)
    share_left = np.zeros(ka.shape[1], dtype=np.int64)
    is_open = recs >= 2 * checker.min_size
    cols = np.arange(n_parts)
    checked = 0
    # relaxed: first every attribute that still spreads, categorical ones cut along subtrees only; a last
    # attempt divides the median block of the widest attribute (the paper's relaxed cut)
    attempts = [(a, False) for a in range(d)] + ([] if strict else [(0, True)])
    for a, last_resort in attempts:
        dim = order[a]
        if strict:
            is_open &= width[dim, cols] > 0
        active = is_open if strict or last_resort else is_open & (width[dim, cols] > 0)
        if not active.any():
            if strict:
                break
            continue
        cand = _Level(ka, st.wt, pid, seg, recs, active, dim, n_keys)
        left, side, share = _propose(cand, axes, lo, hi, strict, last_resort, guide, checker.min_size)
        ok = np.minimum(left, cand.size - left) >= checker.min_size
        if not checker.simple and ok.any():
            ok &= _allowable(checker, st.point, cand, ok, side, share)
        checked += len(cand.cidx)
        cut[cand.cidx[ok]] = True
        sel = ok[cand.lp]
        right[cand.pos[sel]] = side[sel]
        share_left[cand.pos[sel]] = share[sel]
        is_open[cand.cidx[ok]] = False
    return lo, hi, recs, cut, right, share_left, checked


def _propose(
    cand: _Level,
    axes: list[_Axis],
    lo: np.ndarray,
    hi: np.ndarray,
    strict: bool,
    last_resort: bool,
    guide: WorkloadGuide | None,
    min_size: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cut of one attempt: left sizes, the fragments' right-side mask, and the records each
    divided fragment sends left (relaxed only)."""
    if last_resort:
        return cand.relaxed()
    if not strict:
        return cand.relaxed_on_trees(axes, lo, hi, min_size)
    left, side = guide.cut(cand, lo, hi, min_size) if guide is not None else cand.strict(axes, lo, hi)
    return left, side, np.zeros(len(side), dtype=np.int64)


def _allowable(
    checker: _CutChecker,
    point: np.ndarray,
    cand: _Level,
    ok: np.ndarray,
    side: np.ndarray,
    share: np.ndarray,
) -> np.ndarray:
    """Whether both sides of each candidate cut pass every model (a divided fragment counts on both
    sides with its records on each)."""
    sel = ok[cand.lp]
    lp, sd, wt, pts = cand.lp[sel], side[sel], cand.wt[sel], point[cand.pos[sel]]
    sh = share[sel]
    divided = sh > 0
    group = np.concatenate([2 * lp + sd, 2 * lp[divided] + 1])
    weights = np.concatenate([np.where(divided, sh, wt), (wt - sh)[divided]])
    rows = np.concatenate([pts, pts[divided]])
    passes = checker.passes(rows, group, 2 * len(cand.cidx), weights)
    return passes[0::2] & passes[1::2]


class _State:
    """The open partitions of a Mondrian run as contiguous segments of fragment arrays, and the finished
    partitions."""

    def __init__(self, ka: np.ndarray, wt: np.ndarray) -> None:
        n = ka.shape[1]
        self.ka = ka  # never written: each level makes new arrays
        self.wt = wt
        self.point = np.arange(n, dtype=np.int64)
        self.offset = np.zeros(n, dtype=np.int64)
        self.seg = np.array([n], dtype=np.int64) if n else np.zeros(0, dtype=np.int64)
        self.done: list[tuple[np.ndarray, ...]] = []

    def finish(self, final: np.ndarray, lo: np.ndarray, hi: np.ndarray, recs: np.ndarray) -> int:
        """Move the partitions marked ``final`` to the finished ones; returns their records."""
        if not final.any():
            return 0
        pid = np.repeat(np.arange(len(self.seg)), self.seg)
        keep = final[pid]
        self.done.append(
            (
                self.point[keep],
                self.offset[keep],
                self.wt[keep],
                np.repeat(np.arange(int(final.sum())), self.seg[final]),
                lo[:, final].T,
                hi[:, final].T,
                recs[final],
            )
        )
        return int(recs[final].sum())

    def regroup(self, cut: np.ndarray, right: np.ndarray, share_left: np.ndarray) -> None:
        """Keep the cut partitions, each laid out as left child then right child (fragments in their
        order); a divided fragment becomes two, its first ``share_left`` records on the left."""
        pid = np.repeat(np.arange(len(self.seg)), self.seg)
        keep = cut[pid]
        divided = share_left > 0
        # a divided fragment: this copy keeps the first records (left), a copy after it the rest (right)
        rep = np.where(keep, 1 + divided, 0)
        idx = np.repeat(np.arange(len(pid)), rep)
        second = np.zeros(len(idx), dtype=bool)
        if divided.any():
            first_of = np.cumsum(rep) - rep
            second[first_of[divided & keep] + 1] = True
        wt = np.where(
            second, self.wt[idx] - share_left[idx], np.where(divided[idx], share_left[idx], self.wt[idx])
        )
        offset = self.offset[idx] + np.where(second, share_left[idx], 0)
        side = np.where(divided[idx], second, right[idx])
        new_pid = (np.cumsum(cut) - 1)[pid[idx]]
        seg = np.bincount(new_pid, minlength=int(cut.sum()))
        n_left = np.bincount(new_pid, weights=~side, minlength=int(cut.sum())).astype(np.int64)
        # stable partition of every segment by side: lefts first, then rights, each in its order
        order = np.lexsort((side, new_pid))
        self.ka = np.take(self.ka, idx[order], axis=1)
        self.point, self.offset, self.wt = self.point[idx[order]], offset[order], wt[order]
        self.seg = np.stack([n_left, seg - n_left], axis=1).ravel()

    def result(self, splits: int, checked: int) -> Partitioning:
        parts = list(zip(*self.done))
        base = np.cumsum([0] + [len(r) for r in parts[6]])[:-1]
        partition = np.concatenate([p + b for p, b in zip(parts[3], base)])
        point, offset = np.concatenate(parts[0]), np.concatenate(parts[1])
        n_parts = int(sum(len(r) for r in parts[6]))
        order = np.lexsort((offset, point, partition))
        first_pos = np.searchsorted(partition[order], np.arange(n_parts))
        first = point[order][first_pos]
        return Partitioning(
            point,
            offset,
            np.concatenate(parts[2]),
            partition,
            np.concatenate(parts[4]),
            np.concatenate(parts[5]),
            np.concatenate(parts[6]),
            first,
            splits,
            checked,
        )


# ----------------------------------------------------------------------------------------- results
def _mean_text(x: np.ndarray) -> np.ndarray:
    """Class means as text (4 decimals at most, no trailing zeros); empty when the class has none."""
    out = np.full(len(x), "", dtype=object)
    ok = np.isfinite(x)
    uniq, inverse = np.unique(np.round(x[ok], 4), return_inverse=True)
    text = np.array([np.format_float_positional(u, precision=4, trim="-") for u in uniq], dtype=object)
    out[ok] = text[inverse] if len(uniq) else out[ok]
    return out


class _Mondrian(Algorithm):
    """Shared run of strict and relaxed Mondrian.

    ``metric`` is kept for the picker's uniformity only: Mondrian does not search among solutions, and
    every metric (DM, C_AVG, GCP, NCP per attribute) is reported. ``summary`` chooses range or
    range + mean columns (the seed paper's summary statistics R and M).
    """

    full_domain = False
    params: ClassVar[tuple[ParamSpec, ...]] = (METRIC, SUMMARY)
    strict: ClassVar[bool] = True

    def _run_source(
        self, source: TableSource, config: AnonymizationConfig, progress: ProgressCallback, start: float
    ) -> AnonymizationResult:
        """Mondrian on the points when they fit the memory budget; otherwise its first cuts in the engine
        (:mod:`kanon_engine.algorithms.mondrian.engine`), with the same partitions."""
        spec = points.point_spec(source, config, progress)
        leaves = (0,) * len(spec.qi)
        progress(0.02, _("counting the records into groups"))
        if source.distinct_count(spec.request(leaves), progress) > points.POINT_BUDGET:
            return self._run_by_engine(source, config, spec, progress, start)
        counted = points.points_at(source, spec, leaves, progress)
        require_k_fits(config.k, counted.enc.n_rows)
        result = self._run(Job(source, config, counted.enc, progress, start))
        return finish_result(source, counted, result, start)

    def _run_by_engine(
        self,
        source: TableSource,
        config: AnonymizationConfig,
        spec: points.PointSpec,
        progress: ProgressCallback,
        start: float,
    ) -> AnonymizationResult:
        """The run whose points exceed the budget: the first cuts by the engine, then memory per box."""
        require_engine_cuts(
            source.name(), _(self.title).split(" (")[0], config, bool(self.parameters.get("workload_aware"))
        )
        require_leaf_points(config, (1,), points.POINT_BUDGET)  # persons are counted on held points
        n_qi = len(spec.qi)
        light = EncodedTable(
            spec.qi, spec.hierarchies, np.zeros((n_qi, 0), dtype=np.int32), leaf_counts=spec.leaf_counts
        )
        n_rows = int(spec.leaf_counts[0].sum())
        require_k_fits(config.k, n_rows)
        whole = np.array([n_rows], dtype=np.int64)
        one = EncodedTable(spec.qi, spec.hierarchies, np.zeros((n_qi, 1), dtype=np.int32), (), whole)
        _require_whole_table_passes(one, config, whole)
        axes = make_axes(source, light)
        min_size = _CutChecker(light, config.models).min_size
        means = self.parameters["summary"] == "mean"
        kernel = Kernel(self._cut_box(axes, config), Partitioning, _mean_text, min_size, means)
        counted, boxes, kept, parts = mondrian_by_engine(
            source, spec, axes, kernel, points.POINT_BUDGET, progress
        )
        progress(0.92, _("building the release"))

        def plan_of(labels: list[Labels], part_class: np.ndarray, n_classes: int) -> PartitionPlan:
            mean_text = _mean_text if means else None
            return boxed_plan(config, boxes, kept, labels, part_class, n_classes, mean_text)

        result = self._partitions_result(config, spec.qi, axes, parts, start, plan_of, source.in_memory)
        give_back_freed_memory()  # the result's work arrays, before the release is written
        return finish_result(source, counted, result, start)

    def _cut_box(
        self, axes: list[_Axis], config: AnonymizationConfig
    ) -> Callable[[EncodedTable], Partitioning]:
        """Mondrian on the points of one box the engine cut (their progress is the boxes')."""
        n_key = max(ax.n_keys for ax in axes)

        def cut(enc: EncodedTable) -> Partitioning:
            keys: np.ndarray = np.empty(enc.codes.shape, dtype=_key_dtype(n_key))
            for q, ax in enumerate(axes):
                keys[q] = ax.key_of_leaf.astype(keys.dtype)[enc.codes[q]]
            checker = _CutChecker(enc, config.models)
            return partition(keys, enc.point_weights(), axes, self.strict, checker, lambda _f, _m: None)

        return cut

    def _run(self, job: Job) -> AnonymizationResult:
        table, config, enc, progress, start = job
        for m in config.models:
            if m.sensitive is not None:
                enc.sensitive_column(m.sensitive)
        if enc.below is not None:  # the points were counted above the leaves: Mondrian cuts leaves
            raise ConfigError(
                _(
                    "{name} has more distinct combinations of quasi-identifier values than {algorithm} can "
                    "hold in memory ({groups} groups were counted at coarser levels instead).",
                    name=table.name(),
                    algorithm=_(self.title).split(" (")[0],
                    groups=enc.n_points,
                ),
                hint=_("Use a full-domain algorithm (optimal, datafly) here, or fewer quasi-identifiers."),
                where="algorithm",
            )
        weights = enc.point_weights()
        _require_whole_table_passes(enc, config, weights)
        axes = make_axes(table, enc)
        keys: np.ndarray = np.empty(enc.codes.shape, dtype=_key_dtype(max(ax.n_keys for ax in axes)))
        for q, ax in enumerate(axes):
            keys[q] = ax.key_of_leaf.astype(keys.dtype)[enc.codes[q]]
        guide = None
        if self.parameters.get("workload_aware"):
            if config.workload is None:
                raise ConfigError(
                    _("workload_aware needs a workload of intended analyses."),
                    hint=_("Give one with --workload FILE (or in the workbench's Workload tab)."),
                    where="workload_aware",
                )
            guide = WorkloadGuide(config.workload, table, axes)
        checker = _CutChecker(enc, config.models)
        parts = partition(keys, weights, axes, self.strict, checker, progress, guide)
        progress(0.92, _("building the release"))
        # a Table, or an engine's source: only rows in memory get the viewer's boxes
        return self._result(config, enc, axes, parts, start, getattr(table, "in_memory", True))

    def _result(
        self,
        config: AnonymizationConfig,
        enc: EncodedTable,
        axes: list[_Axis],
        parts: Partitioning,
        start: float,
        boxes: bool = True,
    ) -> AnonymizationResult:

        def plan_of(labels: list[Labels], part_class: np.ndarray, n_classes: int) -> PartitionPlan:
            frag_class = part_class[parts.partition]
            plan = _partition_plan(config, enc, axes, parts, labels, part_class, frag_class, n_classes)
            if self.parameters["summary"] == "mean":
                plan.extra = _means(enc, axes, parts, frag_class, n_classes)
            return plan

        return self._partitions_result(config, enc.qi, axes, parts, start, plan_of, boxes)

    def _partitions_result(
        self,
        config: AnonymizationConfig,
        qi: tuple[str, ...],
        axes: list[_Axis],
        parts: Partitioning,
        start: float,
        plan_of: Callable[[list[Labels], np.ndarray, int], PartitionPlan],
        boxes: bool = True,
    ) -> AnonymizationResult:
        """The result from the partitions alone (bounds, sizes, first points; ``plan_of`` makes the
        release plan from the labels and the class of every partition), so a run whose points are held
        box by box (:mod:`kanon_engine.algorithms.mondrian.engine`) shares it. ``boxes``: whether to
        build the viewer's boxes (:func:`_partition_record`)."""
        lo, hi = parts.lower, parts.upper
        labels = [ax.coded_labels(lo[:, q], hi[:, q]) for q, ax in enumerate(axes)]
        part_class, n_classes = _classes(labels, parts)
        class_sizes = np.bincount(part_class, weights=parts.sizes, minlength=n_classes).astype(np.int64)
        plan = plan_of(labels, part_class, n_classes)
        record = _partition_record(qi, axes, parts, labels, part_class, boxes)
        del labels  # the plan holds them per class now: not beside the losses below (millions of partitions)
        ncp = (ax.width(lo[:, q], hi[:, q]) for q, ax in enumerate(axes))  # each attribute as it is summed
        metrics = partition_metrics(qi, class_sizes, parts.sizes, ncp, config.k)
        metrics["splits"] = float(parts.splits)
        notes = []
        if n_classes < len(parts.sizes):
            notes.append(
                _(
                    "{partitions} partitions were made; some share their released values, so "
                    "the release has {classes} equivalence classes.",
                    partitions=len(parts.sizes),
                    classes=int(n_classes),
                )
            )
        return AnonymizationResult.finished(
            self.name,
            self.parameters,
            config,
            start,
            plan=plan,
            class_sizes=class_sizes,
            metrics=metrics,
            nodes_checked=parts.checked,
            partitions=record,
            notes=tuple(notes),
        )


def _require_whole_table_passes(enc: EncodedTable, config: AnonymizationConfig, weights: np.ndarray) -> None:
    """Mondrian never suppresses: the whole table must satisfy every model, else say which fail."""
    everyone = np.arange(enc.n_points)
    group = np.zeros(enc.n_points, dtype=np.int64)
    if _CutChecker(enc, config.models).passes(everyone, group, 1, weights)[0]:
        return
    failing = [m for m in config.models if not _CutChecker(enc, (m,)).passes(everyone, group, 1, weights)[0]]
    models = " ".join(m.describe() for m in failing)
    raise InfeasibleError(
        _(
            "The whole table of {n} records does not satisfy {models} Mondrian never suppresses records, "
            "so it cannot release this table.",
            n=enc.n_rows,
            models=models,
        ),
        hint=_("Lower k or l (or raise t), or use a full-domain algorithm with a suppression limit."),
        where="models",
    )


def _partition_record(
    qi: tuple[str, ...],
    axes: list[_Axis],
    parts: Partitioning,
    labels: list[Labels],
    part_class: np.ndarray,
    boxes: bool,
) -> PartitionRecord:
    """The partitions for the viewer and the report, ordered by class. Their boxes (float bounds and
    released values, about 200 bytes a partition) only when ``boxes``: the viewer draws them over the
    rows, which a streamed run does not hold (the workbench says so), and for the 7.5 million partitions
    of 100 million rows they were the largest thing the run held. Without them the record keeps the
    sizes (the report's figures) and empty bounds."""
    order = np.lexsort((parts.first, part_class))
    if not boxes:
        none = np.zeros((0, len(axes)), dtype=np.float64)
        numeric = tuple(ax.numeric for ax in axes)
        return PartitionRecord(tuple(qi), none, none, parts.sizes[order], numeric, [], None)
    bounds = [ax.bounds(parts.lower[order, q], parts.upper[order, q]) for q, ax in enumerate(axes)]
    return PartitionRecord(
        qi=tuple(qi),
        lower=np.stack([b[0] for b in bounds], axis=1),
        upper=np.stack([b[1] for b in bounds], axis=1),
        sizes=parts.sizes[order],
        numeric=tuple(ax.numeric for ax in axes),
        labels=list(zip(*(text[codes[order]] for codes, text in labels))),
        classes=part_class[order],
    )


def _classes(labels: list[Labels], parts: Partitioning) -> tuple[np.ndarray, int]:
    """The class of every partition: partitions with identical released values form one class of the
    release, numbered in the order of their first point (points are sorted by their codes, so every
    engine numbers them alike)."""
    cols = [codes for codes, _text in labels]
    card = [len(text) for _codes, text in labels]
    part_class, n_classes = group_columns(cols, card)
    first = np.full(n_classes, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, part_class, parts.first)
    rank = np.empty(n_classes, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(n_classes)
    return rank[part_class], n_classes


def _partition_plan(
    config: AnonymizationConfig,
    enc: EncodedTable,
    axes: list[_Axis],
    parts: Partitioning,
    labels: list[Labels],
    part_class: np.ndarray,
    frag_class: np.ndarray,
    n_classes: int,
) -> PartitionPlan:
    """The release plan: each class's label of every quasi-identifier, the class of every point, and
    the fragments of the points whose records relaxed Mondrian divided."""
    label_codes, label_text = class_labels(labels, part_class, n_classes)
    point_class = np.zeros(enc.n_points, dtype=np.int64)
    point_class[parts.point] = frag_class
    pieces = np.bincount(parts.point, minlength=enc.n_points)
    fragments = None
    if (pieces > 1).any():
        sel = pieces[parts.point] > 1
        order = np.lexsort((parts.offset[sel], parts.point[sel]))
        fragments = (parts.point[sel][order], parts.offset[sel][order], frag_class[sel][order])
        first = np.lexsort((parts.offset, parts.point))
        point_class[parts.point[first[::-1]]] = frag_class[first[::-1]]  # the first fragment's class
    return plan_before_counts(
        PartitionPlan,
        config,
        point_class=point_class,
        labels=label_codes,
        label_text=label_text,
        fragments=fragments,
    )


def _means(
    enc: EncodedTable, axes: list[_Axis], parts: Partitioning, frag_class: np.ndarray, n_classes: int
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The seed paper's mean summary: a ``<qi>_mean`` column per numeric quasi-identifier, the class
    average as text (codes per class into the distinct texts)."""
    extra = {}
    for q, ax in enumerate(axes):
        if not isinstance(ax, _OrderedAxis) or ax.is_date:
            continue
        x = ax.value[ax.key_of_leaf[enc.codes[q][parts.point]]]
        ok = np.isfinite(x)
        total = np.bincount(frag_class, weights=np.where(ok, x, 0.0) * parts.weight, minlength=n_classes)
        count = np.bincount(frag_class, weights=ok * parts.weight, minlength=n_classes)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / count
        codes, uniques = pd.factorize(pd.Series(_mean_text(mean), dtype=object), sort=False)
        extra[f"{ax.name}_mean"] = (codes.astype(np.int64), np.asarray(uniques, dtype=object))
    return extra


class Mondrian(_Mondrian):
    """Strict Mondrian (LeFevre et al. 2006): median cuts, non-overlapping regions."""

    name = "mondrian"
    title = N_("Mondrian (strict multidimensional partitioning)")
    description = N_(
        "Cuts the table in two again and again at the median of one quasi-identifier (the one whose "
        "values spread widest), as long as both halves satisfy the privacy models; each final group is "
        "released as ranges such as [35-38] or as the smallest hierarchy group covering it. Records "
        "with the same values always land in the same group. Fast on large tables, much less "
        "generalization than full-domain methods, never suppresses; groups are not aligned across the "
        "table (age 35 may be [35-36] in one group and [33-37] in another). Cutting along the workload, "
        "it cuts where the workload's queries draw their boundaries, so those queries are answered "
        "better."
    )
    params = (METRIC, SUMMARY, WORKLOAD_AWARE)
    strict = True

    def __init__(
        self, *, metric: str = DEFAULT_METRIC, summary: str = "range", workload_aware: bool = False
    ) -> None:
        super().__init__(metric=metric, summary=summary)
        self.workload_aware = workload_aware


class MondrianRelaxed(_Mondrian):
    """Relaxed Mondrian (LeFevre et al. 2006): records at the median are split evenly between sides."""

    name = "mondrian-relaxed"
    title = N_("Mondrian relaxed (groups of k to 2k-1 records)")
    description = N_(
        "Like Mondrian, but the records at the median value of a number are shared out between the two "
        "halves (categories are still cut along their hierarchy), so every partition holds between k and "
        "2k-1 records: the smallest groups (best discernibility). "
        "Records with identical values may fall into different partitions, whose released ranges then "
        "overlap (partitions released with identical values form one group), and ranges tend to be "
        "wider than strict Mondrian's."
    )
    strict = False
