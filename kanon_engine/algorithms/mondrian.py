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
  (:func:`tree_order`: the members of every hierarchy node are contiguous, siblings in the order the
  hierarchy lists them), a partition sits at the lowest node covering its values, and a cut sends the
  children subtrees of that node to two sides, so a cut is a threshold on a child boundary.

Cut rules. Strict: find the median record (the lower median in key order) and the *block* holding it
(its value; for a categorical axis the child subtree holding it); the cut goes just after the block
(the paper's "values <= median left") or just before it, whichever leaves the smaller side larger (ties:
after). That is the most balanced threshold there is, so if any threshold cut on the axis is allowable
for k-anonymity this one is, which gives the paper's bound: every class holds between k and
2d(k-1)+m records (m: the largest count of one point; the bound does not hold with hierarchies).
Relaxed: the records are put in key order (ties in their current order) and the first ceil(n/2) go
left, so the records at the median are split between the sides and every class holds between k and
2k-1 records.

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
import time
import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from kanon_engine.algorithms.base import METRIC, Algorithm
from kanon_engine.config import AnonymizationConfig, ParamSpec, require_k_fits
from kanon_engine.data.table import ColumnKind, Table
from kanon_engine.encoding import EncodedTable
from kanon_engine.errors import InfeasibleError
from kanon_engine.frequency import group_columns
from kanon_engine.hierarchy.model import ROOT, Hierarchy
from kanon_engine.metrics.partition import categorical_ncp, numeric_ncp, partition_metrics
from kanon_engine.privacy.models import ClassStats, KAnonymity, PrivacyModel
from kanon_engine.progress import ProgressCallback
from kanon_engine.release import assemble_release
from kanon_engine.result import AnonymizationResult, PartitionRecord

SUMMARY = ParamSpec(
    "summary",
    "Summary statistic",
    "choice",
    "range",
    "How a class shows its numbers: range releases [min-max] (or the hierarchy node for categories); "
    "mean also adds a <column>_mean column with the class average of each numeric quasi-identifier.",
    choices=("range", "mean"),
)

#: Proleptic Gregorian ordinal of 1970-01-01 (``datetime.date(1970, 1, 1).toordinal()``).
_EPOCH_ORDINAL = 719163
#: A number as the type detection reads one (sign, digits, decimals, exponent), after trimming spaces.
_NUMBER = r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$"


# --------------------------------------------------------------------------------------------- axes
def tree_order(hierarchy: Hierarchy) -> np.ndarray:
    """Leaf indices in the order Mondrian and its boxes use for a categorical attribute.

    Every hierarchy node's leaves are contiguous; siblings keep the order in which the hierarchy first
    lists them; leaves under one parent keep hierarchy order. For hierarchies that list the members of
    each group together (the builders' and ARX's usual layout) this is the hierarchy order itself.
    """
    paths = _node_paths(hierarchy)
    n = len(hierarchy.values)
    leaf = np.arange(n)
    keys = [leaf]
    for j in range(1, hierarchy.depth):
        first = np.full(int(paths[j].max()) + 1, n, dtype=np.int64)
        np.minimum.at(first, paths[j], leaf)
        keys.append(first[paths[j]])
    return np.lexsort(keys)


def _node_paths(hierarchy: Hierarchy) -> list[np.ndarray]:
    """Per level, the node id of every leaf, a node being its label *and* its path to the top (so a
    hierarchy whose labels repeat under different parents still forms a tree)."""
    depth = hierarchy.depth
    paths: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * depth
    n_up = 1
    for j in range(depth - 1, -1, -1):
        codes, labels = pd.factorize(hierarchy.matrix[:, j])
        if j == depth - 1:
            paths[j], n_up = codes.astype(np.int64), len(labels)
        else:
            paths[j], n_up = group_columns([paths[j + 1], codes.astype(np.int64)], [n_up, len(labels)])
    return paths


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

    @abstractmethod
    def labels(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Released value (object array of strings) of partitions spanning ``[lo, hi]``."""

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

    def width(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        n_num = self.n_numeric
        lo_v = self.value[np.minimum(lo, max(n_num - 1, 0))] if n_num else np.zeros(len(lo))
        hi_v = self.value[np.minimum(hi, max(n_num - 1, 0))] if n_num else np.zeros(len(hi))
        w = numeric_ncp(lo_v, hi_v, *self.domain)
        w[hi >= n_num] = 0.0
        w[self._mixed(lo, hi)] = 1.0
        return w

    def labels(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        pair = lo.astype(np.int64) * self.n_keys + hi
        inverse, uniq = pd.factorize(pair)
        ulo, uhi = uniq // self.n_keys, uniq % self.n_keys
        out = np.empty(len(uniq), dtype=object)
        text = self.text
        out[:] = [text[a] if a == b else _range_text(text[a], text[b]) for a, b in zip(ulo, uhi)]
        mixed = self._mixed(ulo, uhi)
        if mixed.any():
            out[mixed] = self._covering_nodes(ulo[mixed], uhi[mixed])
        return out[inverse]

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
        self.n_keys = n
        self.key_of_leaf = np.empty(n, dtype=np.int64)
        self.key_of_leaf[order] = np.arange(n)
        paths = _node_paths(hierarchy)
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

    def block(self, v: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        level, _ = self.lca(lo, hi)
        blo, bhi = v.copy(), v.copy()
        for j in np.unique(level):
            if j == 0:
                continue
            sel = level == j
            child = self.node[j - 1][v[sel]]
            blo[sel] = self.first[j - 1][child]
            bhi[sel] = self.last[j - 1][child]
        return blo, bhi

    def labels(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        level, ids = self.lca(lo, hi)
        out = np.empty(len(lo), dtype=object)
        for j in np.unique(level):
            sel = level == j
            out[sel] = self.label[j][ids[sel]]
        return out

    def bounds(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return lo.astype(np.float64), hi.astype(np.float64)


def _leaf_values(table: Table, name: str, hierarchy: Hierarchy, kind: ColumnKind) -> np.ndarray:
    """Numbers (or ordinal days) of the hierarchy's leaves; NaN where a leaf is not one."""
    leaves = pd.Series(np.asarray(hierarchy.values, dtype=object), dtype=object)
    if kind == ColumnKind.DATE:
        ctype = table.column_types.get(name)
        fmt = ctype.date_format if ctype is not None else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            dt = pd.to_datetime(leaves, format=fmt or "mixed", errors="coerce")
        ns = dt.to_numpy(dtype="datetime64[ns]")
        days = ns.astype(np.int64) / 86_400e9 + _EPOCH_ORDINAL
        return np.where(np.isnat(ns), np.nan, days)
    text = pc.utf8_trim_whitespace(pa.array(leaves.to_numpy(dtype=object), type=pa.string()))
    is_number = pc.match_substring_regex(text, _NUMBER)
    x = pc.cast(pc.if_else(is_number, text, None), pa.float64()).to_numpy(zero_copy_only=False)
    return np.where(np.isfinite(x), x, np.nan)


def make_axes(table: Table, enc: EncodedTable) -> list[_Axis]:
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
        self.simple = all(isinstance(m, KAnonymity) for m in models)
        names = [s.name for s in enc.sensitive]
        self.attributes = tuple(sorted({names.index(m.sensitive) for m in models if m.sensitive}))

    def passes(self, rows: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
        """One boolean per group id (``group[i]`` is the group of record ``rows[i]``)."""
        if self.simple:
            return np.bincount(group, minlength=n_groups) >= self.min_size
        stats = ClassStats.from_rows(self.enc, rows, group.astype(np.int64), n_groups, self.attributes)
        ok = np.ones(n_groups, dtype=bool)
        for m in self.models:
            ok &= m.passes(stats)
        return ok


# ------------------------------------------------------------------------------------- partitioning
@dataclass(frozen=True, eq=False)
class Partitioning:
    """Mondrian's partitions: ``row_partition[i]`` of every record, tight key bounds (P, n_qi) per
    partition, sizes, and how many cuts were made and checked."""

    row_partition: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    sizes: np.ndarray
    first_row: np.ndarray
    splits: int
    checked: int


def _key_dtype(n_keys: int) -> type:
    return np.int16 if n_keys < 2**15 else np.int32


class _Level:
    """The candidate cuts of one attempt at one recursion level (all partitions at once)."""

    def __init__(
        self,
        ka: np.ndarray,
        pid: np.ndarray,
        sizes: np.ndarray,
        cand: np.ndarray,
        dim: np.ndarray,
        n_keys: int,
    ) -> None:
        self.cidx = np.flatnonzero(cand)
        m = len(self.cidx)
        if m == len(sizes):
            self.pos = np.arange(ka.shape[1], dtype=np.int64)
            self.lp = pid
        else:
            local = np.full(len(sizes), -1, dtype=np.int64)
            local[self.cidx] = np.arange(m)
            self.pos = np.flatnonzero(cand[pid])
            self.lp = local[pid[self.pos]]
        self.size = sizes[self.cidx]
        self.start = np.cumsum(self.size) - self.size
        self.dim = dim[self.cidx]
        n_act = ka.shape[1]
        self.key = np.take(ka.ravel(), self.dim[self.lp] * n_act + self.pos).astype(np.int64)
        base = np.arange(m, dtype=np.int64) * n_keys
        self.base = base
        coded = base[self.lp] + self.key
        if m * n_keys < 2**31:
            coded = coded.astype(np.int32)
        self.sorted = np.sort(coded)

    def count_le(self, t: np.ndarray) -> np.ndarray:
        """Records with key <= t in each candidate partition."""
        query = (self.base + t).astype(self.sorted.dtype)
        return np.searchsorted(self.sorted, query, side="right") - self.start

    def strict(self, axes: list[_Axis], lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Left sizes and the right-side mask of the median cuts (see the module docstring)."""
        v = self.sorted[self.start + (self.size - 1) // 2].astype(np.int64) - self.base
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
        return left, self.key > threshold[self.lp]

    def relaxed(self) -> tuple[np.ndarray, np.ndarray]:
        """Left sizes (ceil(n/2)) and the right-side mask; ties at the median split in record order."""
        left = (self.size + 1) // 2
        v = self.sorted[self.start + left - 1].astype(np.int64) - self.base
        query = (self.base + v).astype(self.sorted.dtype)
        below = np.searchsorted(self.sorted, query, side="left") - self.start
        need = left - below
        tie = self.key == v[self.lp]
        ties_before = np.cumsum(tie) - tie
        rank = ties_before - ties_before[self.start][self.lp]
        right = (self.key > v[self.lp]) | (tie & (rank >= need[self.lp]))
        return left, right


def partition(
    keys: np.ndarray, axes: list[_Axis], strict: bool, checker: _CutChecker, progress: ProgressCallback
) -> Partitioning:
    """Run Mondrian on the key matrix ``keys`` (n_qi, n_rows), level by level for all partitions."""
    d, n = keys.shape
    n_keys = max(ax.n_keys for ax in axes)
    ka = keys.astype(_key_dtype(n_keys), copy=False)  # never written: each level makes a new array
    rows = np.arange(n, dtype=np.int64)
    sizes = np.array([n], dtype=np.int64)
    done_rows: list[np.ndarray] = []
    done_lo: list[np.ndarray] = []
    done_hi: list[np.ndarray] = []
    done_sizes: list[np.ndarray] = []
    splits = checked = 0
    expected = max(1.0, math.log2(max(n, 2) / max(checker.min_size, 1))) + 1
    level = 0
    finished = 0
    while len(sizes):
        share = max(level / expected, finished / n)
        progress(
            min(0.9, 0.05 + 0.85 * share),
            f"Mondrian level {level}: {len(sizes)} open partitions, {splits} splits so far",
        )
        n_parts = len(sizes)
        starts = np.cumsum(sizes) - sizes
        lo = np.minimum.reduceat(ka, starts, axis=1).astype(np.int64)
        hi = np.maximum.reduceat(ka, starts, axis=1).astype(np.int64)
        width = np.stack([ax.width(lo[q], hi[q]) for q, ax in enumerate(axes)])
        order = np.argsort(-width, axis=0, kind="stable")
        pid = np.repeat(np.arange(n_parts, dtype=np.int64), sizes)
        cut = np.zeros(n_parts, dtype=bool)
        n_left = np.zeros(n_parts, dtype=np.int64)
        right = np.zeros(len(rows), dtype=bool)
        is_open = sizes >= 2 * checker.min_size
        cols = np.arange(n_parts)
        for a in range(d):
            dim = order[a]
            if strict:
                is_open &= width[dim, cols] > 0
            if not is_open.any():
                break
            cand = _Level(ka, pid, sizes, is_open, dim, n_keys)
            left, side = cand.strict(axes, lo, hi) if strict else cand.relaxed()
            ok = np.minimum(left, cand.size - left) >= checker.min_size
            if not checker.simple and ok.any():
                sel = ok[cand.lp]
                group = 2 * cand.lp[sel] + side[sel]
                passes = checker.passes(rows[cand.pos[sel]], group, 2 * len(cand.cidx))
                ok &= passes[0::2] & passes[1::2]
            checked += len(cand.cidx)
            won = cand.cidx[ok]
            cut[won] = True
            n_left[won] = left[ok]
            sel = ok[cand.lp]
            right[cand.pos[sel]] = side[sel]
            is_open[won] = False
        # partitions without an allowable cut are final
        keep = cut[pid]
        if not cut.all():
            final = ~cut
            done_rows.append(rows[~keep])
            done_lo.append(lo[:, final].T)
            done_hi.append(hi[:, final].T)
            done_sizes.append(sizes[final])
            finished += int(sizes[final].sum())
        if not cut.any():
            break
        splits += int(cut.sum())
        rows, ka, sizes = _regroup(rows, ka, pid, keep, right, cut, sizes, n_left)
        level += 1
    all_rows = np.concatenate(done_rows)
    part_sizes = np.concatenate(done_sizes)
    part_starts = np.cumsum(part_sizes) - part_sizes
    row_partition = np.empty(n, dtype=np.int64)
    row_partition[all_rows] = np.repeat(np.arange(len(part_sizes), dtype=np.int64), part_sizes)
    return Partitioning(
        row_partition,
        np.concatenate(done_lo),
        np.concatenate(done_hi),
        part_sizes,
        np.minimum.reduceat(all_rows, part_starts),
        splits,
        checked,
    )


def _regroup(
    rows: np.ndarray,
    ka: np.ndarray,
    pid: np.ndarray,
    keep: np.ndarray,
    right: np.ndarray,
    cut: np.ndarray,
    sizes: np.ndarray,
    n_left: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """Lay the records of the cut partitions out as left child, right child, in order (a stable
    partition of every segment by its side, from cumulative counts; final partitions leave)."""
    if cut.all():
        kpos = None
        ci = pid
        r = right
    else:
        kpos = np.flatnonzero(keep)
        ci = (np.cumsum(cut) - 1)[pid[kpos]]
        r = right[kpos]
    seg = sizes[cut]
    lefts = n_left[cut]
    kstart = np.cumsum(seg) - seg
    # exclusive count of right-side records before each record; in its partition c a left record moves
    # to (its index - rights before it), a right one to kstart[c] + lefts[c] + (rights before it in c)
    rights = np.cumsum(r) - r
    at_start = rights[kstart]
    shift = np.stack([at_start, kstart + lefts - at_start], axis=1).ravel()
    idx = np.arange(len(r), dtype=np.int64)
    new_pos = np.where(r, rights, idx - rights) + shift[2 * ci + r]
    src = np.empty(len(r), dtype=np.int64)
    src[new_pos] = idx if kpos is None else kpos
    new_sizes = np.stack([lefts, seg - lefts], axis=1).ravel()
    return rows[src], np.take(ka, src, axis=1), new_sizes


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
    params = (METRIC, SUMMARY)
    strict: ClassVar[bool] = True

    def __init__(self, *, metric: str = "dm", summary: str = "range") -> None:
        self.metric = metric
        self.summary = summary

    def _run(
        self,
        table: Table,
        config: AnonymizationConfig,
        enc: EncodedTable,
        progress: ProgressCallback,
        start: float,
    ) -> AnonymizationResult:
        n = enc.n_rows
        require_k_fits(config.k, n)
        for m in config.models:
            if m.sensitive is not None:
                enc.sensitive_column(m.sensitive)
        checker = _CutChecker(enc, config.models)
        everyone = np.arange(n)
        if not checker.passes(everyone, np.zeros(n, dtype=np.int64), 1)[0]:
            failing = [
                m
                for m in config.models
                if not _CutChecker(enc, (m,)).passes(everyone, np.zeros(n, dtype=np.int64), 1)[0]
            ]
            models = " ".join(m.describe() for m in failing)
            raise InfeasibleError(
                f"The whole table of {n} records does not satisfy {models} Mondrian never suppresses "
                "records, so it cannot release this table.",
                hint="Lower k or l (or raise t), or use a full-domain algorithm with a suppression limit.",
                where="models",
            )
        axes = make_axes(table, enc)
        keys = np.empty(enc.codes.shape, dtype=_key_dtype(max(ax.n_keys for ax in axes)))
        for q, ax in enumerate(axes):
            keys[q] = ax.key_of_leaf.astype(keys.dtype)[enc.codes[q]]
        parts = partition(keys, axes, self.strict, checker, progress)
        progress(0.92, "building the release")
        return self._result(table, config, enc, axes, parts, start)

    def _result(
        self,
        table: Table,
        config: AnonymizationConfig,
        enc: EncodedTable,
        axes: list[_Axis],
        parts: Partitioning,
        start: float,
    ) -> AnonymizationResult:
        lo, hi = parts.lower, parts.upper
        labels = [ax.labels(lo[:, q], hi[:, q]) for q, ax in enumerate(axes)]
        # partitions with identical released values form one class of the release
        cols, card = [], []
        for lab in labels:
            codes, uniques = pd.factorize(pd.Series(lab, dtype=object), sort=False)
            cols.append(codes.astype(np.int64))
            card.append(len(uniques))
        part_class, n_classes = group_columns(cols, card)
        first = np.full(n_classes, enc.n_rows, dtype=np.int64)
        np.minimum.at(first, part_class, parts.first_row)
        rank = np.empty(n_classes, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(n_classes)
        part_class = rank[part_class]
        row_class = part_class[parts.row_partition]
        class_sizes = np.bincount(row_class, minlength=n_classes).astype(np.int64)

        qi_values, extra = {}, {}
        for q, (ax, lab) in enumerate(zip(axes, labels)):
            per_class = np.empty(n_classes, dtype=object)
            per_class[part_class] = lab
            qi_values[ax.name] = per_class[row_class]
            if self.parameters["summary"] == "mean" and isinstance(ax, _OrderedAxis) and not ax.is_date:
                x = ax.value[ax.key_of_leaf[enc.codes[q]]]
                ok = np.isfinite(x)
                total = np.bincount(row_class, weights=np.where(ok, x, 0.0), minlength=n_classes)
                count = np.bincount(row_class, weights=ok.astype(np.float64), minlength=n_classes)
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean = total / count
                extra[f"{ax.name}_mean"] = _mean_text(mean)[row_class]
        release = assemble_release(table, config, qi_values, np.zeros(enc.n_rows, dtype=bool), extra)

        ncp = np.stack([ax.width(lo[:, q], hi[:, q]) for q, ax in enumerate(axes)], axis=1)
        metrics = partition_metrics(enc.qi, class_sizes, parts.sizes, ncp, config.k)
        metrics["splits"] = float(parts.splits)
        order = np.lexsort((parts.first_row, part_class))
        bounds = [ax.bounds(lo[order, q], hi[order, q]) for q, ax in enumerate(axes)]
        record = PartitionRecord(
            qi=tuple(enc.qi),
            lower=np.stack([b[0] for b in bounds], axis=1),
            upper=np.stack([b[1] for b in bounds], axis=1),
            sizes=parts.sizes[order],
            numeric=tuple(ax.numeric for ax in axes),
            labels=list(zip(*(lab[order] for lab in labels))),
            classes=part_class[order],
        )
        notes = []
        if n_classes < len(parts.sizes):
            notes.append(
                f"{len(parts.sizes)} partitions were made; some share their released values, so "
                f"the release has {n_classes} equivalence classes."
            )
        return AnonymizationResult(
            algorithm=self.name,
            parameters=dict(self.parameters),
            config=config,
            release=release,
            row_class=row_class,
            class_sizes=class_sizes,
            metrics=metrics,
            runtime_seconds=time.perf_counter() - start,
            transformation=None,
            nodes_checked=parts.checked,
            lattice=None,
            partitions=record,
            notes=tuple(notes),
        )


class Mondrian(_Mondrian):
    """Strict Mondrian (LeFevre et al. 2006): median cuts, non-overlapping regions."""

    name = "mondrian"
    title = "Mondrian (strict multidimensional partitioning)"
    description = (
        "Cuts the table in two again and again at the median of one quasi-identifier (the one whose "
        "values spread widest), as long as both halves satisfy the privacy models; each final group is "
        "released as ranges such as [35-38] or as the smallest hierarchy group covering it. Records "
        "with the same values always land in the same group. Fast on large tables, much less "
        "generalization than full-domain methods, never suppresses; groups are not aligned across the "
        "table (age 35 may be [35-36] in one group and [33-37] in another)."
    )
    strict = True


class MondrianRelaxed(_Mondrian):
    """Relaxed Mondrian (LeFevre et al. 2006): records at the median are split evenly between sides."""

    name = "mondrian-relaxed"
    title = "Mondrian relaxed (groups of k to 2k-1 records)"
    description = (
        "Like Mondrian, but the records at the median value are shared out between the two halves, so "
        "every partition holds between k and 2k-1 records: the smallest groups (best discernibility). "
        "Records with identical values may fall into different partitions, whose released ranges then "
        "overlap (partitions released with identical values form one group), and ranges tend to be "
        "wider than strict Mondrian's."
    )
    strict = False
