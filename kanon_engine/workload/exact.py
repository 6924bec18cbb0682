"""Exact answers of a workload on the original table (the truth the release's estimates are judged by).

SQL semantics: a record counts when it satisfies every predicate; missing cells satisfy none and are
skipped by SUM, AVG, MIN and MAX. AVG, MIN and MAX over no record have no answer (NaN here, ``null`` in
JSON); SUM over no record is 0. Vectorized per query over whole columns (numpy / pandas).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kanon_engine.data.table import Table
from kanon_engine.workload.constraints import (
    ColumnSpec,
    check_aggregate,
    check_columns,
    column_spec,
    compile_query,
    parse_values,
)
from kanon_engine.workload.query import Query, Workload


def table_specs(table: Table, workload: Workload) -> dict[str, ColumnSpec]:
    """The comparison kind of every column the workload names (checked to exist in the table)."""
    specs: dict[str, ColumnSpec] = {}
    for q in workload:
        check_columns(q, table.columns, f"the table {table.name()}")
        for c in q.columns():
            if c not in specs:
                specs[c] = column_spec(table, c)
        check_aggregate(q, specs.get(q.column) if q.column else None)
    return specs


def aggregate(query: Query, mask: np.ndarray, x: np.ndarray | None) -> float:
    """The query's aggregate over the records in ``mask`` (``x``: the aggregated column as numbers)."""
    if query.aggregate == "COUNT":
        return float(np.count_nonzero(mask))
    assert x is not None
    vals = x[mask & np.isfinite(x)]
    if query.aggregate == "SUM":
        return float(vals.sum())
    if not len(vals):
        return float("nan")
    if query.aggregate == "AVG":
        return float(vals.mean())
    return float(vals.min() if query.aggregate == "MIN" else vals.max())


class _Columns:
    """The table's columns factorized once: a condition is checked on each distinct value, then
    gathered to the records (a few thousand checks instead of one per record and query)."""

    def __init__(self, table: Table, specs: dict[str, ColumnSpec]) -> None:
        self.table = table
        self.specs = specs
        self._codes: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._numbers: dict[str, np.ndarray] = {}

    def coded(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(code of every record, distinct values + a last slot for missing)."""
        if name not in self._codes:
            codes, uniques = pd.factorize(self.table.frame[name])
            values = np.append(np.asarray(uniques, dtype=object), None)
            self._codes[name] = (np.where(codes < 0, len(uniques), codes), values)
        return self._codes[name]

    def numbers(self, name: str) -> np.ndarray:
        if name not in self._numbers:
            codes, values = self.coded(name)
            self._numbers[name] = parse_values(values, self.specs[name])[codes]
        return self._numbers[name]

    def satisfying(self, query: Query) -> np.ndarray:
        mask = np.ones(self.table.n_rows, dtype=bool)
        for column, constraint in compile_query(query, self.specs).items():
            codes, values = self.coded(column)
            mask &= constraint.check(values)[codes]
        return mask


def exact_answers(workload: Workload, table: Table, specs: dict[str, ColumnSpec] | None = None) -> np.ndarray:
    """The true answer of every query on ``table`` (NaN where the query has no answer)."""
    specs = specs or table_specs(table, workload)
    columns = _Columns(table, specs)
    out = np.full(len(workload), np.nan)
    for i, q in enumerate(workload):
        x = columns.numbers(q.column) if q.column is not None else None
        out[i] = aggregate(q, columns.satisfying(q), x)
    return out


def satisfying(query: Query, table: Table, specs: dict[str, ColumnSpec]) -> np.ndarray:
    """Which records of ``table`` satisfy the query's predicates."""
    return _Columns(table, specs).satisfying(query)
