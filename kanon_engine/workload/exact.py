"""Exact answers of a workload on the original table (the truth the release's estimates are judged by).

SQL semantics: a record counts when it satisfies every predicate; missing cells satisfy none and are
skipped by SUM, AVG, MIN and MAX. AVG, MIN and MAX over no record have no answer (NaN here, ``null`` in
JSON); SUM over no record is 0. Answered over the table's distinct rows of the workload's columns with
their counts (:mod:`kanon_engine.workload.distinct`), vectorized per query.
"""

from __future__ import annotations

import numpy as np

from kanon_engine.data.table import Table, TableLike
from kanon_engine.i18n import pgettext
from kanon_engine.workload.constraints import (
    ColumnSpec,
    check_aggregate,
    check_columns,
    column_spec,
    compile_query,
    parse_values,
)
from kanon_engine.workload.distinct import table_rows
from kanon_engine.workload.query import Query, Workload


def table_specs(table: TableLike, workload: Workload) -> dict[str, ColumnSpec]:
    """The comparison kind of every column the workload names (checked to exist in the table)."""
    specs: dict[str, ColumnSpec] = {}
    for q in workload:
        check_columns(
            q, table.columns, pgettext("a column is not in ...", "the table {name}", name=table.name())
        )
        for c in q.columns():
            if c not in specs:
                specs[c] = column_spec(table, c)
        check_aggregate(q, specs.get(q.column) if q.column else None)
    return specs


def aggregate(
    query: Query, mask: np.ndarray, x: np.ndarray | None, counts: np.ndarray | None = None
) -> float:
    """The query's aggregate over the records in ``mask`` (``x``: the aggregated column as numbers).

    ``counts`` (None: one record each) is how many records each entry stands for: the entries are
    distinct rows of the table (:mod:`kanon_engine.workload.distinct`), so a SUM adds value x count.
    """
    w = np.ones(len(mask), dtype=np.int64) if counts is None else counts
    if query.aggregate == "COUNT":
        return float(w[mask].sum())
    assert x is not None
    keep = mask & np.isfinite(x)
    vals, n = x[keep], w[keep]
    if query.aggregate == "SUM":
        return float((vals * n).sum())
    if not len(vals):
        return float("nan")
    if query.aggregate == "AVG":
        return float((vals * n).sum() / n.sum())
    return float(vals.min() if query.aggregate == "MIN" else vals.max())


class _Columns:
    """The table's distinct rows over the workload's columns (:mod:`kanon_engine.workload.distinct`):
    a condition is checked once per distinct value of a column, gathered to the distinct rows, and the
    records are counted through the rows' counts; no query reads the records."""

    def __init__(self, table: Table, specs: dict[str, ColumnSpec]) -> None:
        self.specs = specs
        self.rows = table_rows(table, list(specs))
        self._numbers: dict[str, np.ndarray] = {}

    def value_numbers(self, name: str) -> np.ndarray:
        """The column's distinct values as numbers (dates as day numbers), parsed once."""
        if name not in self._numbers:
            self._numbers[name] = parse_values(self.rows.values[name], self.specs[name])
        return self._numbers[name]

    def numbers(self, name: str) -> np.ndarray:
        """The column's value in every distinct row, as a number."""
        return self.value_numbers(name)[self.rows.codes[name]]

    def satisfying(self, query: Query) -> np.ndarray:
        """Which distinct rows satisfy the query's predicates."""
        mask = np.ones(len(self.rows), dtype=bool)
        for column, constraint in compile_query(query, self.specs).items():
            if constraint.spec.ordered:
                ok = constraint.check_numbers(self.value_numbers(column))
            else:
                ok = constraint.check_text(self.rows.values[column])
            mask &= ok[self.rows.codes[column]]
        return mask


def exact_answers(workload: Workload, table: Table, specs: dict[str, ColumnSpec] | None = None) -> np.ndarray:
    """The true answer of every query on ``table`` (NaN where the query has no answer)."""
    specs = specs or table_specs(table, workload)
    columns = _Columns(table, specs)
    out = np.full(len(workload), np.nan)
    for i, q in enumerate(workload):
        x = columns.numbers(q.column) if q.column is not None else None
        out[i] = aggregate(q, columns.satisfying(q), x, columns.rows.counts)
    return out


def satisfying(query: Query, table: Table, specs: dict[str, ColumnSpec]) -> np.ndarray:
    """Which records of ``table`` satisfy the query's predicates."""
    columns = _Columns(table, {c: specs[c] for c in query.columns()})
    return columns.satisfying(query)[columns.rows.row_ids]
