"""The distinct rows of the columns a workload reads, with how many records hold each: the frequency set
the workload is measured on.

The architecture's rule (algorithms work on frequency sets; only counting and writing touch rows) holds
for the workload too: a query's answer depends on a record only through the values of the columns the
query reads, so the records are counted once into their distinct value combinations and every query is
answered over those (Adult x30: 19,502 distinct combinations of the 8 quasi-identifiers instead of
904,860 records; a full-domain release of it: 231). A column is coded once (a categorical column of a
release already is: its codes are used as they are; a loaded table's codes are shared with type
detection and the search, :mod:`kanon_engine.data.codes`), its codes are combined with
:func:`kanon_engine.core.frequency.group_columns`, and nothing else reads the records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kanon_engine.core.frequency import group_columns, representatives
from kanon_engine.data.codes import ColumnCodes, code_column
from kanon_engine.data.table import Table


def table_column(table: Table, name: str) -> ColumnCodes:
    """The codes of a column of a loaded table (coded once: :func:`kanon_engine.data.codes.code_column`)."""
    return code_column(table.frame[name])


@dataclass(frozen=True, eq=False)
class DistinctRows:
    """The distinct combinations of some columns: ``counts[d]`` records hold combination ``d``, whose value
    of column ``c`` is ``values[c][codes[c][d]]``; ``row_ids[i]`` is the combination of record ``i``."""

    counts: np.ndarray  # (distinct,) int64
    codes: dict[str, np.ndarray]  # per column: (distinct,) codes into values[column]
    values: dict[str, np.ndarray]  # per column: its distinct values, None last (missing)
    row_ids: np.ndarray  # (rows,) int64

    def __len__(self) -> int:
        return len(self.counts)


def distinct_rows(columns: dict[str, ColumnCodes], n_rows: int) -> DistinctRows:
    """Group records by their combination of the coded ``columns`` (a table of ``n_rows`` records)."""
    names = list(columns)
    if not names:
        ids, n = np.zeros(n_rows, dtype=np.int64), min(n_rows, 1)
    else:
        ids, n = group_columns([columns[c].codes for c in names], [len(columns[c].values) for c in names])
    rep = representatives(ids, n)
    return DistinctRows(
        counts=np.bincount(ids, minlength=n).astype(np.int64),
        codes={c: columns[c].codes[rep] for c in names},
        values={c: columns[c].values for c in names},
        row_ids=ids,
    )


def table_rows(table: Table, names: list[str] | tuple[str, ...]) -> DistinctRows:
    """The distinct rows of a loaded table's columns ``names``."""
    return distinct_rows({c: table_column(table, c) for c in dict.fromkeys(names)}, table.n_rows)


def frame_rows(frame: pd.DataFrame, names: list[str] | tuple[str, ...]) -> DistinctRows:
    """The distinct rows of a frame's columns ``names`` (a release: its categorical columns cost nothing
    to code)."""
    return distinct_rows({c: code_column(frame[c]) for c in dict.fromkeys(names)}, len(frame))
