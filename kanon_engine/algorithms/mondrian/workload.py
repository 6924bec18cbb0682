"""Workload-aware Mondrian: cut where the intended analyses draw their boundaries.

The seed's Mondrian paper (section 2.4) calls "directly integrating knowledge of an anticipated
workload into the anonymization algorithm" its most important future direction, and notes that the
dimension to cut "may be chosen based on an anticipated workload". A query is answered exactly when no
released group straddles a boundary of its condition (predicate-range matching); so this guide steers
strict Mondrian's cuts toward those boundaries:

- every query's condition on a quasi-identifier is turned into the set of that attribute's *keys*
  (Mondrian's value order) it selects; its **boundaries** are the places where consecutive keys change
  between selected and not selected;
- **dimension**: for each open partition, the attribute with the largest weighted number of boundaries
  strictly inside the partition, counting only queries whose condition overlaps the partition (a
  boundary of a query that selects none of the partition's records cannot split its answer); ties, and
  partitions without such boundaries, fall back to Mondrian's widest normalized range;
- **cut value**: among those boundaries, the allowable one (both sides keep at least k records and pass
  the privacy models) that splits the partition most evenly; on a categorical attribute a boundary is
  moved to the edges of the hierarchy subtree holding it, so the cut still makes labels more specific.
  When no boundary cut is allowable the partition is cut at the median as usual.

Everything is vectorized over partitions and queries (arrays of shape queries x partitions per level).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from kanon_engine.data.table import TableLike
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.workload.constraints import column_spec, compile_query
from kanon_engine.workload.exact import table_specs
from kanon_engine.workload.query import Workload


class _Axis(Protocol):
    """What the guide needs of a Mondrian axis (:class:`kanon_engine.algorithms.mondrian.algorithm._Axis`)."""

    name: str
    n_keys: int

    def key_text(self) -> np.ndarray: ...

    def snap(self, t: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]: ...


class _Level(Protocol):
    """What the guide needs of one level's candidate cuts (``mondrian._Level``)."""

    cidx: np.ndarray
    dim: np.ndarray
    size: np.ndarray
    key: np.ndarray
    lp: np.ndarray

    def strict_threshold(
        self, axes: Sequence[Any], lo: np.ndarray, hi: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]: ...

    def count_le_at(self, local: np.ndarray, t: np.ndarray) -> np.ndarray: ...


class WorkloadGuide:
    """The workload's boundaries per quasi-identifier, in Mondrian's key space."""

    def __init__(self, workload: Workload, table: TableLike, axes: Sequence[_Axis]) -> None:
        table_specs(table, workload)  # columns exist and aggregates fit (plain messages otherwise)
        self.axes = axes
        self.weights = np.array([q.weight for q in workload], dtype=np.float64)
        n_q = len(workload)
        names = [ax.name for ax in axes]
        specs = {c: column_spec(table, c) for q in workload for c in q.columns()}
        #: per axis: cumulative count of selected keys (queries x n_keys+1) and of boundaries
        self.selected: list[np.ndarray] = []
        self.boundaries: list[np.ndarray] = []
        #: per axis: (query index, boundary position t: a cut after key t) of every boundary
        self.positions: list[tuple[np.ndarray, np.ndarray]] = []
        constraints = [compile_query(q, specs) for q in workload]
        for ax in axes:
            n = ax.n_keys
            sel = np.ones((n_q, n), dtype=bool)
            for j, cons in enumerate(constraints):
                if ax.name in cons:
                    sel[j] = cons[ax.name].check(_key_strings(ax))
            change = sel[:, 1:] != sel[:, :-1]
            self.selected.append(np.concatenate([np.zeros((n_q, 1)), np.cumsum(sel, axis=1)], axis=1))
            self.boundaries.append(np.concatenate([np.zeros((n_q, 1)), np.cumsum(change, axis=1)], axis=1))
            qj, t = np.nonzero(change)
            self.positions.append((qj.astype(np.int64), t.astype(np.int64)))
        if not any(len(p[1]) for p in self.positions):
            raise ConfigError(
                _(
                    "The workload has no condition on a quasi-identifier, so it cannot guide Mondrian's "
                    "cuts (quasi-identifiers: {values}).",
                    values=", ".join(names),
                ),
                hint=_("Add conditions on quasi-identifiers, or turn workload_aware off."),
                where="workload_aware",
            )

    def overlap(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """(queries, partitions): the query's condition selects some key inside every axis's range."""
        out = np.ones((len(self.weights), lo.shape[1]), dtype=bool)
        for q, cum in enumerate(self.selected):
            out &= (cum[:, hi[q] + 1] - cum[:, lo[q]]) > 0
        return out

    def scores(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """(axes, partitions): weighted boundaries strictly inside each partition's range, over the
        queries that overlap the partition."""
        w = self.overlap(lo, hi) * self.weights[:, None]
        out = np.zeros(lo.shape, dtype=np.float64)
        for q, cum in enumerate(self.boundaries):
            inside = cum[:, hi[q]] - cum[:, lo[q]]  # boundaries t with lo <= t < hi
            out[q] = (w * inside).sum(axis=0)
        return out

    def cut(
        self, cand: _Level, lo: np.ndarray, hi: np.ndarray, min_size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Left sizes and right-side mask: the most even allowable boundary cut, else the median cut."""
        threshold, left = cand.strict_threshold(self.axes, lo, hi)
        cols = cand.cidx
        overlap = self.overlap(lo[:, cols], hi[:, cols])
        for q in np.unique(cand.dim):
            rows = np.flatnonzero(cand.dim == q)
            qj, t = self.positions[q]
            if not len(t):
                continue
            plo, phi = lo[q, cols[rows]], hi[q, cols[rows]]
            pair_p, pair_m = np.nonzero(overlap[qj][:, rows].T & (plo[:, None] <= t) & (t < phi[:, None]))
            if not len(pair_p):
                continue
            starts = self.axes[q].snap(t[pair_m], plo[pair_p], phi[pair_p])
            pair_p = np.concatenate([pair_p] * len(starts))
            th = np.concatenate(starts)
            ok = (th >= plo[pair_p]) & (th < phi[pair_p])
            pair_p, th = pair_p[ok], th[ok]
            local = rows[pair_p]
            n_left = cand.count_le_at(local, th)
            balance = np.minimum(n_left, cand.size[local] - n_left)
            good = balance >= min_size
            if not good.any():
                continue
            local, th, n_left, balance = local[good], th[good], n_left[good], balance[good]
            best = np.lexsort((th, -balance, local))  # per partition: most even first, then lowest t
            first = np.concatenate([[True], local[best][1:] != local[best][:-1]])
            pick = best[first]
            threshold[local[pick]] = th[pick]
            left[local[pick]] = n_left[pick]
        return left, cand.key > threshold[cand.lp]


def _key_strings(ax: _Axis) -> np.ndarray:
    """The original value (text) of every key of an axis, as the workload's conditions read it."""
    return np.asarray(ax.key_text(), dtype=object)
