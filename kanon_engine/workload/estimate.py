"""Estimate a workload's answers from the release table alone, the way an analyst holding it would.

The estimator reads every released cell as the set of original values it stands for and assumes, as
the seed's Mondrian paper does when nothing else is known (section 2.4), that a record's value is
spread *uniformly* over that set, independently across columns:

- a value of the original domain (a hierarchy leaf, or any value of a column the run did not touch)
  stands for itself;
- a hierarchy label (``30-39``, ``Higher education``, ``0213*``) stands for the leaves below it, each
  leaf equally likely (the label found at the lowest level that has it);
- a range ``[35-38]`` / ``[2020-01-01 - 2020-03-05]`` (Mondrian) stands for every whole number (or
  day) from one end to the other for integer and date columns, and for the interval for decimals;
- ``*`` stands for the whole domain (every leaf of the hierarchy), and so does a label the hierarchy
  does not know (counted and reported);
- a Mondrian mean summary ``<column>_mean`` replaces the spread when a query aggregates that column
  over records whose range lies wholly inside the query's condition on it (the mean statistic M of
  the paper, which answers AVG and SUM exactly there).

**Suppressed records** kept in the release (every quasi-identifier ``*``) are treated as unknown:
each counts as spread over the whole domain of every quasi-identifier, so it adds the share of the
domain the query selects. Records dropped from the release are not in it and are not counted (COUNT
and SUM then fall short by what they held; the evaluation reports how many were dropped).

A record satisfies a query with probability ``P = prod over columns of P(cell satisfies the column's
condition)``. COUNT is the sum of P; SUM adds ``E[x 1{condition}]``; AVG is SUM over the expected
count of records with a number; MIN and MAX are the smallest and largest values the release allows
among records that may satisfy the condition (bounds, not expectations). A query **matches** the
release (the paper's predicate-range matching) when every released record satisfies it with
probability 0 or 1: no released group straddles a boundary of the condition.

Works for every algorithm, full-domain, Mondrian or cell-level, because it reads only released values.
It reads them as the release's distinct rows with their counts (a full-domain release of Adult x30 has
231 of them for 904,860 records): the estimate of a COUNT is the sum over distinct rows of P times the
row's count, the same figure as the sum over records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from kanon_engine.hierarchy.model import ROOT, Hierarchy
from kanon_engine.i18n import N_
from kanon_engine.workload.constraints import ColumnSpec, Constraint, compile_query, parse_values
from kanon_engine.workload.distinct import frame_rows
from kanon_engine.workload.query import Query, Workload

_RANGE = re.compile(r"^\[(.+)\]$", re.DOTALL)
_TOLERANCE = 1e-9

ESTIMATOR_NOTE = N_(
    "Estimates come from the release alone: each released value is read as the set of original values it "
    "stands for (a hierarchy label as the values below it, a range [a-b] as every value from a to b, * as "
    "the whole domain), spread uniformly, independently across columns; Mondrian's mean columns are used "
    "for SUM and AVG where a group lies wholly inside the condition. Suppressed records kept in the "
    "release count as unknown: spread over the whole domain. Records dropped from the release are not "
    "counted."
)


@dataclass
class CellStats:
    """Per distinct released value of a column, under one condition on that column."""

    frac: np.ndarray  # P(the value satisfies the condition)
    present: np.ndarray  # P(satisfies and is a number): the records AVG counts
    weighted: np.ndarray  # E[x * 1{satisfies and is a number}]
    low: np.ndarray  # smallest satisfying number (NaN: none)
    high: np.ndarray  # largest satisfying number (NaN: none)


def _split_range(inner: str) -> tuple[str, str] | None:
    if " - " in inner:
        a, b = inner.split(" - ", 1)
        return a.strip(), b.strip()
    if inner.count("-") == 1:
        a, b = inner.split("-")
        return a.strip(), b.strip()
    return None


class ReleasedColumn:
    """One column of the release, its distinct cells classified by what they stand for.

    ``values`` are the column's distinct cells (the last slot, None, for empty cells) and ``codes`` the
    cell of every distinct released row (:mod:`kanon_engine.workload.distinct`).
    """

    def __init__(
        self, values: np.ndarray, codes: np.ndarray, spec: ColumnSpec, hierarchy: Hierarchy | None = None
    ) -> None:
        self.spec = spec
        self.hierarchy = hierarchy
        self.codes = codes
        n_u = len(values) - 1
        text = np.asarray([str(u) for u in values[:n_u]] + [""], dtype=object)
        m = n_u + 1
        self.missing = np.zeros(m, dtype=bool)
        self.missing[n_u] = True
        self.level = np.full(m, -1, dtype=np.int64)  # hierarchy level of the cell (depth = whole domain)
        self.node = np.full(m, -1, dtype=np.int64)
        self.range_lo = np.full(m, np.nan)
        self.range_hi = np.full(m, np.nan)
        self.unknown = np.zeros(m, dtype=bool)
        todo = ~self.missing.copy()
        if hierarchy is not None:
            self._classify_hierarchy(text, todo)
        if spec.ordered:
            self._classify_ranges(text, todo)
        if hierarchy is not None:
            self.unknown = todo & (text != ROOT)
            self.level[todo] = hierarchy.depth  # '*' or an unknown label: the whole domain
            self.node[todo] = 0
            todo[:] = False
        self.exact = todo  # a value standing for itself (columns the run did not touch)
        self.exact_x = parse_values(text, spec) if spec.ordered else np.full(m, np.nan)
        self.exact_text = text
        if hierarchy is not None:
            leaves = np.asarray(hierarchy.values, dtype=object)
            self.leaf_x = parse_values(leaves, spec) if spec.ordered else np.full(len(leaves), np.nan)
            self.leaf_text = leaves

    def _classify_hierarchy(self, text: np.ndarray, todo: np.ndarray) -> None:
        h = self.hierarchy
        assert h is not None
        leaf = h.leaf_index.get_indexer(pd.Index(text))
        is_leaf = todo & (leaf >= 0)
        self.level[is_leaf], self.node[is_leaf] = 0, leaf[is_leaf]
        todo &= ~is_leaf
        for j in range(1, h.depth):
            if not todo.any():
                break
            labels = pd.Index(h.level_codes[j][1])
            node = labels.get_indexer(pd.Index(text))
            hit = todo & (node >= 0)
            self.level[hit], self.node[hit] = j, node[hit]
            todo &= ~hit

    def _classify_ranges(self, text: np.ndarray, todo: np.ndarray) -> None:
        idx = np.flatnonzero(todo)
        ends_a, ends_b, where = [], [], []
        for i in idx:
            m = _RANGE.match(text[i])
            parts = _split_range(m.group(1)) if m else None
            if parts is not None:
                ends_a.append(parts[0])
                ends_b.append(parts[1])
                where.append(i)
        if not where:
            return
        a = parse_values(np.asarray(ends_a, dtype=object), self.spec)
        b = parse_values(np.asarray(ends_b, dtype=object), self.spec)
        ok = np.isfinite(a) & np.isfinite(b) & (a <= b)
        rows = np.asarray(where)[ok]
        self.range_lo[rows], self.range_hi[rows] = a[ok], b[ok]
        todo[rows] = False

    # --- statistics under a condition -------------------------------------------------------------------
    def stats(self, constraint: Constraint | None) -> CellStats:
        m = len(self.missing)
        out = CellStats(np.zeros(m), np.zeros(m), np.zeros(m), np.full(m, np.nan), np.full(m, np.nan))
        out.frac[self.missing] = 1.0 if constraint is None else 0.0
        self._exact_stats(constraint, out)
        self._range_stats(constraint, out)
        if self.hierarchy is not None:
            self._hierarchy_stats(constraint, out)
        return out

    def _exact_stats(self, constraint: Constraint | None, out: CellStats) -> None:
        sel = self.exact
        if not sel.any():
            return
        x = self.exact_x[sel]
        if constraint is None:
            sat = np.ones(int(sel.sum()), dtype=bool)
        elif self.spec.ordered:
            sat = constraint.check_numbers(x)
        else:
            sat = constraint.check_text(self.exact_text[sel])
        has = sat & np.isfinite(x)
        out.frac[sel] = sat
        out.present[sel] = has
        out.weighted[sel] = np.where(has, x, 0.0)
        out.low[sel] = np.where(has, x, np.nan)
        out.high[sel] = np.where(has, x, np.nan)

    def _range_stats(self, constraint: Constraint | None, out: CellStats) -> None:
        sel = np.isfinite(self.range_lo)
        if not sel.any():
            return
        a, b = self.range_lo[sel], self.range_hi[sel]
        if self.spec.discrete:
            frac, weighted, low, high = _discrete_range(a, b, constraint)
        else:
            frac, weighted, low, high = _continuous_range(a, b, constraint)
        out.frac[sel], out.present[sel], out.weighted[sel] = frac, frac, weighted
        out.low[sel], out.high[sel] = low, high

    def _hierarchy_stats(self, constraint: Constraint | None, out: CellStats) -> None:
        h = self.hierarchy
        assert h is not None
        x = self.leaf_x
        if constraint is None:
            sat = np.ones(len(x), dtype=bool)
        elif self.spec.ordered:
            sat = constraint.check_numbers(x)
        else:
            sat = constraint.check_text(self.leaf_text)
        has = sat & np.isfinite(x)
        xs = np.where(has, x, 0.0)
        for j in np.unique(self.level[self.level >= 0]):
            cells = self.level == j
            codes = h.level_codes[j][0] if j < h.depth else np.zeros(len(x), dtype=np.int64)
            n_nodes = int(codes.max()) + 1 if len(codes) else 1
            count = np.bincount(codes, minlength=n_nodes).astype(np.float64)
            node = self.node[cells]
            with np.errstate(invalid="ignore", divide="ignore"):
                out.frac[cells] = (np.bincount(codes, weights=sat, minlength=n_nodes) / count)[node]
                out.present[cells] = (np.bincount(codes, weights=has, minlength=n_nodes) / count)[node]
                out.weighted[cells] = (np.bincount(codes, weights=xs, minlength=n_nodes) / count)[node]
            low = np.full(n_nodes, np.inf)
            high = np.full(n_nodes, -np.inf)
            np.minimum.at(low, codes[has], x[has])
            np.maximum.at(high, codes[has], x[has])
            out.low[cells] = np.where(np.isfinite(low), low, np.nan)[node]
            out.high[cells] = np.where(np.isfinite(high), high, np.nan)[node]


def _discrete_range(a: np.ndarray, b: np.ndarray, c: Constraint | None) -> tuple[np.ndarray, ...]:
    """Ranges of whole numbers a..b, each value equally likely."""
    a, b = np.ceil(a), np.floor(b)
    n = b - a + 1
    if c is None:
        return np.ones(len(a)), (a + b) / 2, a, b
    if c.points is not None:
        cnt = np.zeros(len(a))
        total = np.zeros(len(a))
        low = np.full(len(a), np.inf)
        high = np.full(len(a), -np.inf)
        for p in c.points[c.check_numbers(c.points) & (np.floor(c.points) == c.points)]:
            inside = (p >= a) & (p <= b)
            cnt += inside
            total += inside * p
            low = np.where(inside, np.minimum(low, p), low)
            high = np.where(inside, np.maximum(high, p), high)
    else:
        lo_c, hi_c = c.integer_bounds()
        low, high = np.maximum(a, lo_c), np.minimum(b, hi_c)
        cnt = np.maximum(high - low + 1, 0)
        total = np.where(cnt > 0, cnt * (low + high) / 2, 0.0)
    some = cnt > 0
    return cnt / n, total / n, np.where(some, low, np.nan), np.where(some, high, np.nan)


def _continuous_range(a: np.ndarray, b: np.ndarray, c: Constraint | None) -> tuple[np.ndarray, ...]:
    """Intervals [a, b] of decimals, uniform density (a point when a == b)."""
    if c is None:
        return np.ones(len(a)), (a + b) / 2, a, b
    point = a == b
    frac = np.zeros(len(a))
    frac[point] = c.check_numbers(a[point])
    low, high = a.copy(), b.copy()
    if c.points is None:
        low, high = np.maximum(a, c.low), np.minimum(b, c.high)
        width = np.where(point, 1.0, b - a)
        frac = np.where(point, frac, np.maximum(high - low, 0) / width)
    some = frac > 0
    return frac, frac * (low + high) / 2, np.where(some, low, np.nan), np.where(some, high, np.nan)


@dataclass
class Estimates:
    """Estimated answers (NaN: no answer), whether each query matches the release, and what was read."""

    values: np.ndarray
    matches: np.ndarray
    unknown_cells: dict[str, int] = field(default_factory=dict)
    suppressed_rows: int = 0


class ReleaseReader:
    """The release read once, as its distinct rows with their counts, for many queries.

    The rows are grouped over the columns the queries read, the quasi-identifiers (to count the
    suppressed records) and the mean summaries of the queried columns: every estimate is a sum over
    the distinct released rows weighted by how many records each holds, never a pass over the records
    (:mod:`kanon_engine.workload.distinct`).
    """

    def __init__(
        self,
        release: pd.DataFrame,
        specs: dict[str, ColumnSpec],
        hierarchies: dict[str, Hierarchy],
        quasi_identifiers: tuple[str, ...] = (),
    ) -> None:
        self.specs = specs
        self.hierarchies = hierarchies
        present = set(release.columns)
        self.qi = tuple(q for q in quasi_identifiers if q in present)
        self._mean_columns = {n: f"{n}_mean" for n in specs if f"{n}_mean" in present and n in hierarchies}
        names = [n for n in specs if n in present] + list(self.qi) + list(self._mean_columns.values())
        self.rows = frame_rows(release, names)
        self._columns: dict[str, ReleasedColumn] = {}

    def column(self, name: str) -> ReleasedColumn:
        if name not in self._columns:
            self._columns[name] = ReleasedColumn(
                self.rows.values[name], self.rows.codes[name], self.specs[name], self.hierarchies.get(name)
            )
        return self._columns[name]

    def means(self, name: str) -> np.ndarray | None:
        """The mean summary ``<name>_mean`` of every distinct row (None: the release has none)."""
        col = self._mean_columns.get(name)
        if col is None:
            return None
        return parse_values(self.rows.values[col], ColumnSpec(col, "decimal"))[self.rows.codes[col]]

    @property
    def suppressed_rows(self) -> int:
        """Released records whose quasi-identifiers are all ``*`` (the suppressed records kept)."""
        if not self.qi:
            return 0
        every = np.ones(len(self.rows), dtype=bool)
        for q in self.qi:
            every &= (self.rows.values[q] == ROOT)[self.rows.codes[q]]
        return int(self.rows.counts[every].sum())

    def estimate(self, query: Query) -> tuple[float, bool]:
        """The estimated answer of one query and whether the query matches the release."""
        p = np.ones(len(self.rows))
        conditions = compile_query(query, self.specs)
        for name, constraint in conditions.items():
            if name != query.column:
                col = self.column(name)
                p *= col.stats(constraint).frac[col.codes]
        if query.column is None:
            value = float((p * self.rows.counts).sum())
        else:
            col = self.column(query.column)
            st = col.stats(conditions.get(query.column))
            value = self._aggregate(query, p, col, st)
            p = p * st.frac[col.codes]
        matches = bool(np.all((p <= _TOLERANCE) | (p >= 1 - _TOLERANCE)))
        return value, matches

    def _aggregate(self, query: Query, p: np.ndarray, col: ReleasedColumn, st: CellStats) -> float:
        codes, counts = col.codes, self.rows.counts
        weighted, present = st.weighted[codes], st.present[codes]
        means = self.means(col.spec.name) if query.aggregate in ("SUM", "AVG") else None
        if means is not None:
            whole = (st.frac[codes] >= 1 - _TOLERANCE) & np.isfinite(means)
            weighted = np.where(whole, means, weighted)
            present = np.where(whole, 1.0, present)
        if query.aggregate == "SUM":
            return float((p * weighted * counts).sum())
        if query.aggregate == "AVG":
            count = float((p * present * counts).sum())
            return float((p * weighted * counts).sum() / count) if count > _TOLERANCE else float("nan")
        possible = (p > _TOLERANCE) & (present > _TOLERANCE)
        if not possible.any():
            return float("nan")
        bound = st.low[codes] if query.aggregate == "MIN" else st.high[codes]
        vals = bound[possible]
        vals = vals[np.isfinite(vals)]
        if not len(vals):
            return float("nan")
        return float(vals.min() if query.aggregate == "MIN" else vals.max())

    def estimate_all(self, workload: Workload) -> Estimates:
        values = np.full(len(workload), np.nan)
        matches = np.zeros(len(workload), dtype=bool)
        for i, q in enumerate(workload):
            values[i], matches[i] = self.estimate(q)
        counts = self.rows.counts
        unknown = {
            n: int(counts[c.unknown[c.codes]].sum()) for n, c in self._columns.items() if c.unknown.any()
        }
        return Estimates(values, matches, unknown, self.suppressed_rows)
