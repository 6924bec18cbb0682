"""The default table source: a :class:`~kanon_engine.data.table.Table` held in memory (pandas).

Every row-wide step runs on the loaded frame with numpy over integer codes; the codes of a run are kept,
so counting the same columns at several hierarchy levels costs one grouping each, never a re-encoding.
Value counts and codes start from each column's own codes (:mod:`kanon_engine.data.codes`, made once when
the table was loaded), and counting the points says the point of every row, so the release looks up no
row: on Adult x30 this keeps a whole run as fast as the search on rows was before the points.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from kanon_engine.core.arrays import positions
from kanon_engine.data.codes import code_column
from kanon_engine.data.table import Table
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.sources.backends.base import (
    Boxes,
    ColumnCoding,
    CountRequest,
    PointCounts,
    TableSource,
    apply_maps,
    box_histograms_of,
    count_codes,
    count_codes_in_boxes,
    dense_histograms,
    encode_batch,
    map_key,
)
from kanon_engine.sources.backends.settings import ENGINE_TITLES


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
        self._codes: dict[str, np.ndarray] = {}
        self._last: tuple[tuple[tuple[str, ...], tuple[bytes | None, ...]], PointCounts] | None = None
        self._matrix: tuple[tuple[str, ...], np.ndarray] | None = None

    @property
    def columns(self) -> list[str]:
        return self.table.columns

    @property
    def n_rows(self) -> int:
        return self.table.n_rows

    @property
    def frame(self) -> pd.DataFrame:
        return self.table.frame

    def _value_counts(
        self, columns: list[str], progress: ProgressCallback = no_progress
    ) -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
        """From each column's codes (:func:`~kanon_engine.data.codes.code_column`, kept with a loaded
        column since type detection made them), not from another pass over the strings."""
        out = {}
        for c in columns:
            cc = code_column(self.table.frame[c])
            counts = cc.counts()
            values, counts, missing = cc.values[:-1], counts[:-1], int(counts[-1])
            present = np.flatnonzero(counts > 0)
            order = present[np.argsort(values[present], kind="stable")]
            out[c] = (np.asarray(values[order], dtype=object), counts[order].astype(np.int64), missing)
        return out

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
        """(n_columns, n_rows) codes of every row, read-only (each column's kept for the next request,
        and the last matrix too: the release asks for the one the points were counted from)."""
        key = tuple(c.key for c in codings)
        if self._matrix is not None and self._matrix[0] == key:
            return self._matrix[1]
        for c in codings:
            if c.key not in self._codes:
                self._codes[c.key] = self._encode(c)
        out = np.empty((len(codings), self.n_rows), dtype=np.int32)
        for i, c in enumerate(codings):
            out[i] = self._codes[c.key]
        out.flags.writeable = False
        self._matrix = (key, out)
        return out

    def _encode(self, coding: ColumnCoding) -> np.ndarray:
        """A column's codes through ``coding``: the column's own codes (one per distinct value, see
        :func:`~kanon_engine.data.codes.code_column`) mapped by one lookup table, one take per row."""
        cc = code_column(self.table.frame[coding.name])
        pos = positions(coding.values, cc.values[:-1])
        table: np.ndarray = np.append(coding.codes[np.maximum(pos, 0)], coding.missing).astype(coding.dtype)
        unknown = np.flatnonzero(pos < 0)
        if len(unknown) and cc.counts()[unknown].any():
            encode_batch(self._arrow([coding.name]), (coding,))  # says which column changed
        return table[cc.codes]

    def count(self, request: CountRequest, progress: ProgressCallback = no_progress) -> PointCounts:
        """The points, with the point of every row (kept for the release: no lookup per row)."""
        key = (tuple(c.key for c in request.codings), tuple(map_key(m) for m in request.maps))
        if self._last is None or self._last[0] != key:  # the floor's count is asked for twice
            codes = self.codes(request.codings)
            self._last = (key, count_codes(codes, request.maps, request.sizes, with_rows=True))
        return self._last[1]

    def box_histograms(self, boxes: Boxes, progress: ProgressCallback = no_progress) -> list[np.ndarray]:
        return dense_histograms(box_histograms_of(self.codes(boxes.codings), boxes), boxes)

    def count_in_boxes(
        self, request: CountRequest, boxes: Boxes, which: list[int], progress: ProgressCallback = no_progress
    ) -> list[PointCounts]:
        box_codes = self.codes(boxes.codings)
        codes = apply_maps(self.codes(request.codings), request.maps)
        return count_codes_in_boxes(codes, box_codes, boxes, which, request.sizes)

    def batches(self, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
        names = list(self.columns) if columns is None else [c for c in self.columns if c in set(columns)]
        yield from self._arrow(names).to_batches(max_chunksize=max(self.n_rows, 1))

    def preview(self, n: int = 200) -> pd.DataFrame:
        return self.table.frame.iloc[:n].reset_index(drop=True)

    def __getattr__(self, name: str) -> Any:
        """Everything else a loaded table offers (``column``, ``numeric``, ``options``)."""
        if name == "table":
            raise AttributeError(name)
        return getattr(self.table, name)
