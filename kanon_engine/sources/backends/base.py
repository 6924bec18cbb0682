"""The seam between the algorithms and the rows: a *table source* does the only steps that touch every row.

An anonymization reads every record twice: once to count the records into a frequency set (the
distinct quasi-identifier combinations with their counts and the sensitive values of each), and once to
write the release. Everything between (lattice search, Mondrian, metrics, risk, report) works on the
counts (LeFevre, DeWitt & Ramakrishnan 2005, "Incognito", frequency sets and their roll-up). So a
source has exactly these operations:

- :meth:`TableSource.value_counts`: the distinct values of a column with their counts (type detection,
  hierarchy builders, the value -> code tables of a run, the workbench's column profile);
- :meth:`TableSource.count`: encode columns through value -> code tables, optionally map the codes to
  coarser ones (a hierarchy level), and count the distinct combinations (:class:`PointCounts`);
- :meth:`TableSource.batches`: the rows in input order as record batches of the original strings, which
  a release plan (:mod:`kanon_engine.sources.plan.release_plan`) turns into release rows for the one writer.

Implementations: pandas in memory (:mod:`.memory`, the default for files that fit), DuckDB embedded
(:mod:`.duckdb_source`, larger than memory, spills to a temp folder), Dask distributed
(:mod:`.dask_source`, a cluster). They share the encoding of a batch (:func:`encode_batch`) and the
batch reader (:mod:`kanon_engine.data.stream`), so every engine counts and writes the same values.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from kanon_engine.core.frequency import group_columns
from kanon_engine.data.stream import inspect_file, text_batches
from kanon_engine.data.table import ReadOptions
from kanon_engine.data.types import ColumnKind, ColumnType, detect_counts
from kanon_engine.errors import DataError
from kanon_engine.i18n import N_, _
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.sources.plan.guard import InputFingerprint, TableChanged


@dataclass(frozen=True, eq=False)
class ColumnCoding:
    """How one column's strings become integer codes: ``values[i]`` has code ``codes[i]``; a missing
    cell has ``missing`` (-1: the run has no code for it, which :func:`kanon_engine.sources.plan.points`
    reports before any row is encoded)."""

    name: str
    values: tuple[str, ...]
    codes: np.ndarray  # int32, one per value
    missing: int
    size: int  # number of codes (codes are 0..size-1)

    @property
    def dtype(self) -> type:
        return np.int16 if self.size < (1 << 15) else np.int32

    @functools.cached_property
    def key(self) -> str:
        """A fingerprint of what the coding says (column, values, codes): the key of the engines' caches
        of encoded rows. Never ``id()``: once a coding is freed, a new one with other codes may land on
        its address and would be served the old one's counts."""
        digest = hashlib.blake2b(digest_size=16)
        digest.update(repr((self.name, self.missing, self.size, len(self.values))).encode())
        digest.update(np.fromiter(map(len, self.values), np.int64, len(self.values)).tobytes())
        digest.update("".join(self.values).encode("utf-8", "surrogatepass"))
        digest.update(np.ascontiguousarray(self.codes, dtype=np.int32).tobytes())
        return digest.hexdigest()


def map_key(mapping: np.ndarray | None) -> bytes | None:
    """The content of a hierarchy level's code map (one entry per leaf: small), as a cache key."""
    return None if mapping is None else np.ascontiguousarray(mapping, dtype=np.int64).tobytes()


@dataclass(frozen=True, eq=False)
class CountRequest:
    """Count the distinct combinations of coded columns, each code first mapped by ``maps[i]`` to one of
    ``map_sizes[i]`` coarser codes (a hierarchy level of a lattice node) when ``maps[i]`` is not None."""

    codings: tuple[ColumnCoding, ...]
    maps: tuple[np.ndarray | None, ...] = ()
    map_sizes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.maps:
            object.__setattr__(self, "maps", (None,) * len(self.codings))
            object.__setattr__(self, "map_sizes", tuple(c.size for c in self.codings))

    @property
    def sizes(self) -> tuple[int, ...]:
        """Number of codes of every column after its map."""
        return tuple(c.size if m is None else s for c, m, s in zip(self.codings, self.maps, self.map_sizes))


@dataclass(frozen=True, eq=False)
class PointCounts:
    """Distinct combinations of codes (``codes[:, i]``, one row per column of the request) with their
    counts, sorted lexicographically by the codes, so every engine returns the same arrays."""

    codes: np.ndarray  # (n_columns, n_points) int32
    counts: np.ndarray  # (n_points,) int64
    #: the point of every input row, in input order, when the engine has it at no cost (in memory);
    #: the release then needs no lookup of each row's point
    #: (:class:`kanon_engine.sources.plan.release_plan.BatchState`)
    rows: np.ndarray | None = None

    @property
    def n_points(self) -> int:
        return int(len(self.counts))

    @classmethod
    def from_groups(cls, codes: np.ndarray, counts: np.ndarray) -> PointCounts:
        """Sorted (lexicographically, first column first) and with equal combinations added up."""
        if codes.shape[1] == 0:
            return cls(codes.astype(np.int32), counts.astype(np.int64))
        order = np.lexsort(codes[::-1])
        codes, counts = codes[:, order], counts[order]
        new = np.ones(codes.shape[1], dtype=bool)
        new[1:] = (codes[:, 1:] != codes[:, :-1]).any(axis=0)
        if new.all():
            return cls(codes.astype(np.int32), counts.astype(np.int64))
        starts = np.flatnonzero(new)
        return cls(codes[:, starts].astype(np.int32), np.add.reduceat(counts.astype(np.int64), starts))


def encode_column(column: pa.Array | pa.ChunkedArray, coding: ColumnCoding) -> np.ndarray:
    """Codes of a text column (one hash lookup per value, in pyarrow); a value the coding does not know
    is a bug of the caller (codings are built from the column's value counts) and raises."""
    idx = pc.index_in(column, value_set=pa.array(coding.values, pa.string()))
    missing_in = column.null_count
    if idx.null_count != missing_in:
        raise TableChanged(
            _(
                "The column '{column}' holds a value that was not there when the run started.",
                column=coding.name,
            ),
            hint=_("The file changed while it was being read; run again."),
            where=coding.name,
        )
    pos = idx.to_numpy(zero_copy_only=False) if idx.null_count == 0 else pc.fill_null(idx, -1).to_numpy()
    if not len(coding.codes):  # a column of missing cells only
        return np.full(len(pos), coding.missing, dtype=coding.dtype)
    out = coding.codes[np.maximum(pos, 0)].astype(coding.dtype, copy=False)
    if missing_in:
        out = np.where(pos < 0, coding.missing, out).astype(coding.dtype, copy=False)
    return out


def encode_batch(batch: pa.RecordBatch | pa.Table, codings: tuple[ColumnCoding, ...]) -> np.ndarray:
    """(n_columns, n_rows) int32 codes of the coded columns of a batch of strings."""
    out = np.empty((len(codings), batch.num_rows), dtype=np.int32)
    for i, c in enumerate(codings):
        out[i] = encode_column(batch.column(c.name), c)
    return out


def group_codes(codes: np.ndarray, sizes: tuple[int, ...], with_rows: bool = False) -> PointCounts:
    """Count the distinct columns of a (n_columns, n_rows) code matrix (numpy; in memory); with
    ``with_rows`` the result also says the point of every row."""

    if codes.shape[1] == 0:
        return PointCounts(codes.astype(np.int32), np.zeros(0, dtype=np.int64))
    if float(np.prod([max(s, 1) for s in sizes], dtype=np.float64)) < 2.0**62:
        # the combinations numbered in mixed radix (first column most significant): the sorted distinct
        # keys are the points in order, with no sort of the points afterwards (Adult: 1.7 ms, not 4.6)
        key = codes[0].astype(np.int64)
        for col, size in zip(codes[1:], sizes[1:]):
            key *= max(size, 1)
            key += col
        ids, keys = pd.factorize(key, sort=True)
        points = np.empty((codes.shape[0], len(keys)), dtype=np.int32)
        for i in range(codes.shape[0] - 1, -1, -1):
            keys, points[i] = np.divmod(keys, max(sizes[i], 1))
        counts = np.bincount(ids, minlength=points.shape[1]).astype(np.int64)
        dtype = np.int32 if points.shape[1] < (1 << 31) else np.int64
        return PointCounts(points, counts, ids.astype(dtype) if with_rows else None)
    group, n = group_columns([codes[i] for i in range(codes.shape[0])], list(sizes))
    counts = np.bincount(group, minlength=n).astype(np.int64)
    first = np.empty(n, dtype=np.int64)
    first[group] = np.arange(len(group), dtype=np.int64)
    points = codes[:, first]
    order = np.lexsort(points[::-1])  # the groups are distinct: sorting them is all from_groups does
    rows = None
    if with_rows:
        rank = np.empty(n, dtype=np.int32 if n < (1 << 31) else np.int64)  # kept with the result
        rank[order] = np.arange(n, dtype=rank.dtype)
        rows = rank[group]
    return PointCounts(points[:, order].astype(np.int32), counts[order], rows)


def apply_maps(codes: np.ndarray, maps: tuple[np.ndarray | None, ...]) -> np.ndarray:
    """The codes with each row mapped by its map (rows without one kept)."""
    out = codes.copy() if any(m is not None for m in maps) else codes
    for i, m in enumerate(maps):
        if m is not None:
            out[i] = m[codes[i]]
    return out


def count_codes(
    codes: np.ndarray, maps: tuple[np.ndarray | None, ...], sizes: tuple[int, ...], with_rows: bool = False
) -> PointCounts:
    """A count request answered on codes held in memory (the loaded table, or a Dask worker's piece):
    each column mapped to the request's level, then the combinations counted."""
    return group_codes(apply_maps(codes, maps), sizes, with_rows=with_rows)


@dataclass(frozen=True, eq=False)
class Boxes:
    """Fragments of a table as boxes of keys (Mondrian's partitions before their points are counted):
    a row is in box ``b`` when ``lower[b, q] <= keys[q][code] <= upper[b, q]`` for every column ``q`` of
    ``codings`` (``keys[q]`` orders the codes of column q: Mondrian's key of every leaf). The boxes of
    a partitioning are disjoint; a row in none of them is left out."""

    codings: tuple[ColumnCoding, ...]
    keys: tuple[np.ndarray, ...]  # per column, the key (int) of every code
    lower: np.ndarray  # (n_boxes, n_columns) int64, inclusive
    upper: np.ndarray  # (n_boxes, n_columns) int64, inclusive

    @property
    def n_boxes(self) -> int:
        return int(self.lower.shape[0])

    @property
    def n_keys(self) -> tuple[int, ...]:
        return tuple(int(k.max()) + 1 if len(k) else 1 for k in self.keys)

    def key_columns(self, codes: np.ndarray) -> np.ndarray:
        """(n_columns, n_rows) keys of rows given their codes (one row of ``codes`` per column)."""
        return np.stack([k[c] for k, c in zip(self.keys, codes)]) if len(codes) else codes

    def box_of(self, keys: np.ndarray) -> np.ndarray:
        """The box of every row given its keys (-1: none); one comparison per box and column, numpy."""
        out = np.full(keys.shape[1], -1, dtype=np.int64)
        for b in range(self.n_boxes):
            inside = out < 0
            for q in range(len(self.codings)):
                inside &= (keys[q] >= self.lower[b, q]) & (keys[q] <= self.upper[b, q])
            out[inside] = b
        return out


def give_back_freed_memory() -> None:
    """Return the C library's freed heap to the system (glibc's ``malloc_trim``; elsewhere nothing).

    Between the boxes of a run too large for memory, millions of freed small arrays stay in the
    process's heap (arrays under glibc's mmap threshold, up to 32 MB, are not unmapped when freed):
    about 170 MB after a 10-million-row Mondrian run, counted in the process's memory until returned."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, looked up once (None elsewhere: Windows, macOS, musl)."""
    import ctypes
    import ctypes.util

    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim
    except (OSError, AttributeError):
        return None


def box_histograms_of(codes: np.ndarray, boxes: Boxes) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per column, the records of every (box, key) pair of rows with these codes (numpy, for the engines
    that hold codes: in memory, and every Dask worker on its pieces)."""
    keys = boxes.key_columns(codes)
    box = boxes.box_of(keys)
    inside = box >= 0
    out = []
    for q, n in enumerate(boxes.n_keys):
        pair = box[inside] * n + keys[q][inside]
        uniq, counts = np.unique(pair, return_counts=True)
        out.append((uniq // n, uniq % n, counts.astype(np.int64)))
    return out


def count_codes_in_boxes(
    codes: np.ndarray, box_codes: np.ndarray, boxes: Boxes, which: list[int], sizes: tuple[int, ...]
) -> list[PointCounts]:
    """The points (``codes``, one row per counted column) of the rows of every box in ``which``, given
    the codes of the boxes' columns (``box_codes``); numpy, for the engines that hold codes."""
    box = boxes.box_of(boxes.key_columns(box_codes))
    return [group_codes(codes[:, box == b], sizes) for b in which]


def dense_histograms(
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], boxes: Boxes
) -> list[np.ndarray]:
    """(box, key, records) triples per column as (n_boxes, n_keys) matrices of records."""
    out = []
    for (box, key, counts), n in zip(parts, boxes.n_keys):
        m = np.zeros(boxes.n_boxes * n, dtype=np.int64)
        np.add.at(m, np.asarray(box, dtype=np.int64) * n + np.asarray(key, dtype=np.int64), counts)
        out.append(m.reshape(boxes.n_boxes, n))
    return out


@dataclass(frozen=True)
class ColumnProfile:
    """What the workbench shows of a column without loading the table: its detected type, distinct and
    missing counts, and the most frequent values."""

    name: str
    type: ColumnType
    top: tuple[tuple[str, int], ...]


class TableSource(ABC):
    """A table the engine reads row-wide (see the module docstring). Subclasses say which engine they are
    (``engine``, the ``--engine`` value) and, when chosen automatically, why (``reason``)."""

    engine: ClassVar[str]
    title: ClassVar[str]
    #: True when the rows are held in memory (the workbench can show every row of the release)
    in_memory: ClassVar[bool] = False

    def __init__(self, reason: str = "") -> None:
        self.reason = reason
        self._types: dict[str, ColumnType] = {}
        self._counts: dict[str, tuple[np.ndarray, np.ndarray, int]] = {}

    # --- what every source knows ---------------------------------------------------------------------
    source: Path | None = None
    sha256: str | None = None
    #: how the file was read (a loaded table's own options)
    options: ReadOptions

    @property
    @abstractmethod
    def columns(self) -> list[str]:
        """Column names in file order."""

    @property
    @abstractmethod
    def n_rows(self) -> int:
        """Records (counted on first use when the format does not say)."""

    def name(self) -> str:
        return self.source.name if self.source else "table"

    def describe(self) -> str:
        """Which engine runs and why, for the user."""
        title = _(self.title)
        return _("{engine}: {reason}", engine=title, reason=self.reason) if self.reason else title

    def require_columns(self, names: list[str] | tuple[str, ...], what: str = N_("column")) -> None:
        """Raise a DataError naming the first unknown column and listing the known ones."""
        known = set(self.columns)
        for n in names:
            if n not in known:
                raise DataError(
                    _("The {what} '{name}' is not in {table}.", what=_(what), name=n, table=self.name()),
                    hint=_("Its columns are: {columns}.", columns=", ".join(self.columns[:20])),
                    where=n,
                )

    @property
    def column_types(self) -> dict[str, ColumnType]:
        """Detected types of the columns whose values were counted (see :meth:`column_type`)."""
        return dict(self._types)

    def set_column_types(self, types: dict[str, ColumnType]) -> None:
        """Types decided elsewhere (the project's overrides, a loaded table's detection)."""
        self._types.update(types)

    def column_type(self, name: str) -> ColumnType:
        """The column's type, detected from its value counts on first use."""
        if name not in self._types:
            values, counts, missing = self.value_counts(name)
            vc = pd.Series(counts, index=pd.Index(values, dtype=object))
            self._types[name] = detect_counts(vc, missing, name)
        return self._types[name]

    def kind(self, name: str) -> ColumnKind:
        return self.column_type(name).kind

    def profile(self, name: str, top: int = 10) -> ColumnProfile:
        values, counts, _missing = self.value_counts(name)
        order = np.argsort(-counts, kind="stable")[:top]
        return ColumnProfile(
            name, self.column_type(name), tuple((str(values[i]), int(counts[i])) for i in order)
        )

    # --- the row-wide steps --------------------------------------------------------------------------
    def value_counts(self, column: str) -> tuple[np.ndarray, np.ndarray, int]:
        """Distinct non-missing values of a column (object array of strings, sorted), their counts, and
        the number of missing cells. Cached: a column's counts are read once per source."""
        if column not in self._counts:
            self.require_columns([column])
            self._counts.update(self._value_counts([column]))
        return self._counts[column]

    def prefetch_value_counts(
        self, columns: list[str] | tuple[str, ...], progress: ProgressCallback = no_progress
    ) -> None:
        """Count the values of several columns in one pass over the rows (``progress`` is called per
        batch, so the workbench's profile of a large file shows how far it got and can be cancelled)."""
        todo = [c for c in dict.fromkeys(columns) if c not in self._counts]
        if todo:
            self.require_columns(todo)
            self._counts.update(self._value_counts(todo, progress))

    @abstractmethod
    def _value_counts(
        self, columns: list[str], progress: ProgressCallback = no_progress
    ) -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
        """Value counts of several columns, in one pass."""

    @abstractmethod
    def count(self, request: CountRequest, progress: ProgressCallback = no_progress) -> PointCounts:
        """Count the distinct combinations of the coded (and mapped) columns of ``request``."""

    def distinct_count(self, request: CountRequest, progress: ProgressCallback = no_progress) -> int:
        """Number of distinct combinations :meth:`count` would return (an engine may count them without
        returning them)."""
        return self.count(request, progress).n_points

    def estimate_distinct(
        self, requests: list[CountRequest], progress: ProgressCallback = no_progress
    ) -> list[int]:
        """Estimates of :meth:`distinct_count` for several requests (exact here; an engine may estimate
        them all in one pass)."""
        return [self.distinct_count(r, progress) for r in requests]

    def small_classes(
        self, request: CountRequest, k: int, progress: ProgressCallback = no_progress
    ) -> tuple[int, int]:
        """Records in combinations of fewer than ``k`` records, and the number of combinations."""
        counts = self.count(request, progress).counts
        return int(counts[counts < k].sum()), int(len(counts))

    def box_histograms(self, boxes: Boxes, progress: ProgressCallback = no_progress) -> list[np.ndarray]:
        """Per column of ``boxes``, an (n_boxes, n_keys) matrix of the records of every box with every
        key: Mondrian's median cuts of partitions too large to count into points, computed by the engine
        (:mod:`kanon_engine.algorithms.mondrian.engine`). One pass over the rows."""
        raise NotImplementedError(type(self).__name__)

    def count_in_boxes(
        self, request: CountRequest, boxes: Boxes, which: list[int], progress: ProgressCallback = no_progress
    ) -> Iterable[PointCounts]:
        """:meth:`count` of the rows of each box listed in ``which`` (the points of Mondrian's boxes), in
        one pass over the rows, box after box (an engine may hand them over as they come)."""
        raise NotImplementedError(type(self).__name__)

    @abstractmethod
    def batches(self, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
        """The rows in input order as record batches of strings (missing = null)."""

    @abstractmethod
    def preview(self, n: int = 200) -> pd.DataFrame:
        """The first ``n`` rows as a frame of strings."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the engine holds (connections, temporary files, a local cluster)."""

    def __enter__(self) -> TableSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StreamedSource(TableSource):
    """What the sources that read a file in batches share (DuckDB, Dask): the file, its columns, its
    first rows and its fingerprint (size, time and SHA-256 as opened, hashed by a thread while the run
    counts: the report names the hash, and the release is written only from the file that was counted,
    :mod:`kanon_engine.sources.plan.guard`)."""

    def _open_file(self, path: str | Path, options: Any) -> None:

        self.file = inspect_file(path, options)
        self.source = self.file.path
        self.options = self.file.options
        self._rows: int | None = self.file.rows
        self.fingerprint = InputFingerprint(self.file.path)

    @property
    def sha256(self) -> str:  # type: ignore[override]
        return self.fingerprint.sha256

    @property
    def columns(self) -> list[str]:
        return list(self.file.names)

    def preview(self, n: int = 200) -> pd.DataFrame:

        for b in text_batches(self.file, None, max(n, 1)):
            return b.slice(0, n).to_pandas()
        return pd.DataFrame(columns=self.columns)


def value_counts_of(
    batches: Iterator[pa.RecordBatch],
    columns: list[str],
    progress: ProgressCallback = no_progress,
    total: int | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
    """Value counts of several columns over a stream of batches (pyarrow per batch, merged at the end):
    sorted distinct values, counts, missing cells. ``progress`` hears of every batch (``total``: the
    rows expected, when known)."""
    parts: dict[str, list[pa.StructArray]] = {c: [] for c in columns}
    missing = dict.fromkeys(columns, 0)
    done = 0
    for b in batches:
        done += b.num_rows
        progress(min(1.0, done / total) if total else 0.0, _("counting values: {n} rows read", n=done))
        for c in columns:
            col = b.column(c)
            missing[c] += col.null_count
            parts[c].append(pc.value_counts(col.drop_null()))
    return {c: merge_value_counts(parts[c], missing[c]) for c in columns}


def merge_points(parts: list[PointCounts], n_columns: int) -> PointCounts:
    """The points of a whole table from the points of its pieces (each counted on its own, as a Dask
    worker counts its pieces): the same combination in two pieces is one point, its counts added."""
    if not parts:
        return PointCounts.from_groups(np.zeros((n_columns, 0)), np.zeros(0, dtype=np.int64))
    codes = np.concatenate([p.codes for p in parts], axis=1)
    return PointCounts.from_groups(codes, np.concatenate([p.counts for p in parts]))


def merge_value_counts(parts: list[pa.StructArray], missing: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Merge pyarrow ``value_counts`` results (struct arrays of values and counts)."""
    values = [p.field("values") for p in parts if len(p)]
    counts = [p.field("counts") for p in parts if len(p)]
    if not values:
        return np.array([], dtype=object), np.zeros(0, dtype=np.int64), int(missing)
    s = pd.Series(
        np.concatenate([c.to_numpy() for c in counts]).astype(np.int64),
        index=pd.Index(pa.chunked_array(values).to_numpy(zero_copy_only=False), dtype=object),
    )
    s = s.groupby(level=0, sort=True).sum()
    return np.asarray(s.index, dtype=object), s.to_numpy(dtype=np.int64), int(missing)
