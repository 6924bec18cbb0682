"""The default table source: a :class:`~kanon_engine.data.table.Table` held in memory (pandas).

Every row-wide step runs on the loaded frame with numpy over integer codes; the codes of a run are kept,
so counting the same columns at several hierarchy levels costs one grouping each, never a re-encoding.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import pyarrow as pa

from kanon_engine.data.table import Table
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.sources.base import (
    ColumnCoding,
    CountRequest,
    PointCounts,
    TableSource,
    apply_maps,
    encode_batch,
    group_codes,
    value_counts_of,
)
from kanon_engine.sources.settings import ENGINE_TITLES


class InMemorySource(TableSource):
    """A loaded table as a source: rows in a pandas frame of original strings."""

    engine = "memory"
    title = ENGINE_TITLES["memory"]
    in_memory = True

    def __init__(self, table: Table, reason: str = "") -> None:
        super().__init__(reason)
        self.table = table
        self.source = table.source
        self.sha256 = table.sha256
        self.set_column_types(table.column_types)
        self._codes: dict[int, np.ndarray] = {}
        self._last: tuple[tuple, PointCounts] | None = None

    @property
    def columns(self) -> list[str]:
        return self.table.columns

    @property
    def n_rows(self) -> int:
        return self.table.n_rows

    @property
    def frame(self) -> pd.DataFrame:
        return self.table.frame

    def _value_counts(self, columns: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
        return value_counts_of(iter([self._arrow(columns)]), columns)

    def _arrow(self, columns: list[str]) -> pa.Table:
        """The columns as an arrow table of strings (no copy for pyarrow-backed text columns)."""
        arrays = []
        for c in columns:
            col = self.table.frame[c]
            arrow = getattr(col.array, "_pa_array", None)
            if (
                arrow is None
                or not pa.types.is_string(arrow.type)
                and not pa.types.is_large_string(arrow.type)
            ):
                arrow = pa.array(
                    col.astype(object).where(col.notna(), None).to_numpy(dtype=object), pa.string()
                )
            arrays.append(arrow)
        return pa.table(arrays, names=columns)

    def codes(self, codings: tuple[ColumnCoding, ...]) -> np.ndarray:
        """(n_columns, n_rows) codes of every row (each column's kept for the next request)."""
        todo = tuple(c for c in codings if id(c) not in self._codes)
        if todo:
            encoded = encode_batch(self._arrow([c.name for c in todo]), todo)
            self._codes.update({id(c): encoded[i] for i, c in enumerate(todo)})
        return np.stack([self._codes[id(c)] for c in codings]) if codings else np.zeros((0, self.n_rows))

    def count(self, request: CountRequest, progress: ProgressCallback = no_progress) -> PointCounts:
        key = (tuple(id(c) for c in request.codings), tuple(id(m) for m in request.maps))
        if self._last is None or self._last[0] != key:  # the floor's count is asked for twice
            codes = apply_maps(self.codes(request.codings), request.maps)
            self._last = (key, group_codes(codes, request.sizes))
        return self._last[1]

    def batches(self, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
        names = list(self.columns) if columns is None else [c for c in self.columns if c in set(columns)]
        yield from self._arrow(names).to_batches(max_chunksize=max(self.n_rows, 1))

    def preview(self, n: int = 200) -> pd.DataFrame:
        return self.table.frame.iloc[:n].reset_index(drop=True)

    def __getattr__(self, name: str):
        """Everything else a loaded table offers (``column``, ``numeric``, ``options``)."""
        if name == "table":
            raise AttributeError(name)
        return getattr(self.table, name)
