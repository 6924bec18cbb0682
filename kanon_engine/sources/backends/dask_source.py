"""Dask distributed: the table source for a cluster (hospital research computing: HPC through
dask-jobqueue, Kubernetes), or for this machine's cores when no scheduler is named.

The file (a path every worker can read: a shared file system) is cut into pieces: Parquet row groups, or
byte ranges of a CSV cut at line ends. Each worker reads its pieces with the same reader as every other
engine (:mod:`kanon_engine.data.stream`), encodes them
(:func:`~kanon_engine.sources.backends.base.encode_batch`)
and keeps the codes in its memory; a count is a map over the pieces (each counts its own combinations)
and a merge of the partial counts on the client, so only counts travel, never rows. The release is read
piece by piece in input order and streamed through the plan into the one writer on the client.

Nothing opens a network connection unless the user names a scheduler (``tcp://HOST:8786`` or a scheduler
file); without one a ``LocalCluster`` of worker processes is started on this machine, talking over the
loopback interface only, without its web dashboard. kanon must be installed on the workers
(``pip install kanon[cluster]``). A CSV with line breaks inside quoted values cannot be cut into pieces:
such a file is refused with a plain sentence (convert it to Parquet first).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from kanon_engine.data.io import arrow_to_text
from kanon_engine.data.stream import BATCH_ROWS, StreamedFile, records_batches
from kanon_engine.data.table import ReadOptions
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.i18n import _, ngettext
from kanon_engine.progress import ProgressCallback, no_progress, wait_cancellable
from kanon_engine.sources.backends.base import (
    Boxes,
    ColumnCoding,
    CountRequest,
    PointCounts,
    StreamedSource,
    box_histograms_of,
    count_codes,
    count_codes_in_boxes,
    dense_histograms,
    encode_batch,
    merge_points,
    merge_value_counts,
    value_counts_of,
)
from kanon_engine.sources.backends.settings import ENGINE_TITLES

#: Seconds to wait for a named scheduler's answer: a scheduler on a reachable host answers in well under
#: a second, so a dead one is said at once rather than after the default half-minute and its retries.
CONNECT_SECONDS = 5
#: Bytes of CSV per piece (a few hundred thousand rows).
PIECE_BYTES = 64 << 20


@dataclass(frozen=True)
class Piece:
    """Part of the file one task reads: Parquet row groups, or a byte range of a CSV's records."""

    index: int
    row_groups: tuple[int, ...] = ()
    start: int = 0
    stop: int = 0


def read_piece(f: StreamedFile, piece: Piece, columns: list[str] | None) -> pa.Table:
    """The rows of one piece as strings (runs on a worker)."""
    if f.kind == "parquet":
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(f.path)
        wanted = list(f.names) if columns is None else [c for c in f.names if c in set(columns)]
        raw_of = dict(zip(f.names, pf.schema_arrow.names))
        t = pf.read_row_groups(list(piece.row_groups), columns=[raw_of[c] for c in wanted])
        cols = [arrow_to_text(t.column(i), f.dates.get(c)) for i, c in enumerate(wanted)]
        return pa.table(cols, names=wanted)
    with open(f.path, "rb") as fh:
        fh.seek(piece.start)
        data = fh.read(piece.stop - piece.start)
    q = f.options.quotechar or '"'
    if f.quoted and data.count(q.encode("utf-8")) % 2:
        raise DataError(
            _(
                "{name} has a line break inside a quoted value, so it cannot be cut into pieces for Dask.",
                name=f.path.name,
            ),
            hint=_("Convert it to Parquet (or use the duckdb engine)."),
            where=f.path.name,
        )
    batches = list(records_batches(f, data, columns, 1 << 30))
    if not batches:
        names = list(f.names) if columns is None else [c for c in f.names if c in set(columns)]
        return pa.table({c: pa.array([], pa.string()) for c in names})
    return pa.Table.from_batches(batches)


def encode_piece(f: StreamedFile, piece: Piece, codings: tuple[ColumnCoding, ...]) -> np.ndarray:
    """The codes of a piece's rows (kept in the worker's memory)."""
    return encode_batch(read_piece(f, piece, [c.name for c in codings]), codings)


def count_piece(
    codes: np.ndarray, rows: list[int], maps: tuple[np.ndarray | None, ...], sizes: tuple[int, ...]
) -> PointCounts:
    """The combinations of a piece's codes (``rows`` picks the request's columns), counted."""
    return count_codes(codes[rows], maps, sizes)


def box_histograms_piece(
    codes: np.ndarray, rows: list[int], boxes: Boxes
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(box, key, records) per box column of a piece's rows (Mondrian's cuts by the engine)."""
    return box_histograms_of(codes[rows], boxes)


def count_piece_in_boxes(
    codes: np.ndarray,
    rows: list[int],
    box_rows: list[int],
    boxes: Boxes,
    which: list[int],
    sizes: tuple[int, ...],
) -> list[PointCounts]:
    """The combinations of the piece's rows in every box of ``which``, counted."""
    return count_codes_in_boxes(codes[rows], codes[box_rows], boxes, which, sizes)


def value_counts_piece(
    f: StreamedFile, piece: Piece, columns: list[str]
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray, int]], int]:
    """Value counts of a piece's columns, and its rows."""
    t = read_piece(f, piece, columns)
    return value_counts_of(iter(t.to_batches()), columns), t.num_rows


def _peak_rss() -> int:
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


class DaskSource(StreamedSource):
    """A CSV or Parquet file counted by the workers of a Dask cluster (see the module docstring)."""

    engine = "dask"
    title = ENGINE_TITLES["dask"]

    def __init__(
        self,
        path: str | Path,
        options: ReadOptions | None = None,
        *,
        scheduler: str | None = None,
        workers: int | None = None,
        reason: str = "",
        batch_rows: int = BATCH_ROWS,
    ) -> None:
        super().__init__(reason)
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError(
                _("The dask engine needs Dask, which this installation of kanon does not include."),
                hint=_("Install it with 'pip install kanon[cluster]', or use the duckdb engine."),
                where="engine",
            ) from None
        self._open_file(path, options)
        self.batch_rows = batch_rows
        self.cluster = None
        if scheduler:
            self.client = _connect(Client, scheduler)
            self.where = _("the cluster at {address}", address=scheduler)
        else:
            n = int(workers or os.cpu_count() or 1)
            self.cluster = LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
            )
            self.client = Client(self.cluster)
            self.where = ngettext(
                "a local cluster of {n} worker process", "a local cluster of {n} worker processes", n
            )
        self.pieces = self._pieces()
        self._codes: list[Any] | None = None
        self._code_ids: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"{self.title}, {self.where}{': ' + self.reason if self.reason else ''}"

    def _pieces(self) -> list[Piece]:
        f = self.file
        if f.kind == "parquet":
            import pyarrow.parquet as pq

            n = pq.ParquetFile(f.path).metadata.num_row_groups
            return [Piece(i, (i,)) for i in range(n)]
        size = f.path.stat().st_size
        cuts = [f.body_offset]
        with open(f.path, "rb") as fh:
            pos = f.body_offset + PIECE_BYTES
            while pos < size:
                fh.seek(pos)
                line = fh.readline()
                pos += len(line)
                if pos < size:
                    cuts.append(pos)
                pos += PIECE_BYTES
        cuts.append(size)
        return [Piece(i, start=a, stop=b) for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])) if b > a]

    @property
    def n_rows(self) -> int:
        if self._rows is None:
            self.prefetch_value_counts(self.columns[:1])
        return int(self._rows or 0)

    def _value_counts(
        self, columns: list[str], progress: ProgressCallback = no_progress
    ) -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
        futures = self.client.map(
            value_counts_piece, [self.file] * len(self.pieces), self.pieces, columns=columns
        )
        parts = self._gather(futures, progress, 0.0, _("counting the values on {where}", where=self.where))
        self._rows = sum(rows for _counts, rows in parts)
        out = {}
        for c in columns:
            values = [p[c] for p, _rows in parts]
            structs = [
                pa.StructArray.from_arrays([pa.array(v, pa.string()), pa.array(n)], ["values", "counts"])
                for v, n, _missing in values
            ]
            out[c] = merge_value_counts(structs, sum(m for _values, _counts, m in values))
        return out

    def _gather(
        self, futures: list[Any], progress: ProgressCallback, fraction: float, message: str
    ) -> list[Any]:
        """The results of ``futures``. Cancel cancels them (:func:`wait_cancellable`), and the encoded pieces
        still being made with them: the next run encodes again."""

        def stop() -> None:
            self.client.cancel(futures)
            if self._codes is not None and not all(f.done() for f in self._codes):
                self.client.cancel(self._codes)
                self._codes, self._code_ids = None, ()

        return wait_cancellable(lambda: self.client.gather(futures), progress, fraction, message, stop)

    def _ensure_codes(self, codings: tuple[ColumnCoding, ...]) -> None:
        ids = tuple(c.key for c in codings)
        if self._codes is not None and set(ids) <= set(self._code_ids):
            return
        self._codes = self.client.map(
            encode_piece, [self.file] * len(self.pieces), self.pieces, codings=codings, pure=False
        )
        self._code_ids = ids

    def count(self, request: CountRequest, progress: ProgressCallback = no_progress) -> PointCounts:
        self._ensure_codes(request.codings)
        counting = _("counting the groups on {where}", where=self.where)
        progress(0.3, counting)
        rows = [self._code_ids.index(c.key) for c in request.codings]
        parts = self._gather(
            self.client.map(count_piece, self._codes, rows=rows, maps=request.maps, sizes=request.sizes),
            progress,
            0.3,
            counting,
        )
        return merge_points(parts, len(rows))

    def box_histograms(self, boxes: Boxes, progress: ProgressCallback = no_progress) -> list[np.ndarray]:
        self._ensure_codes(boxes.codings)
        rows = [self._code_ids.index(c.key) for c in boxes.codings]
        parts = self._gather(
            self.client.map(box_histograms_piece, self._codes, rows=rows, boxes=boxes),
            progress,
            0.3,
            _("counting the groups on {where}", where=self.where),
        )
        merged = [
            (
                np.concatenate([p[q][0] for p in parts]),
                np.concatenate([p[q][1] for p in parts]),
                np.concatenate([p[q][2] for p in parts]),
            )
            for q in range(len(rows))
        ]
        return dense_histograms(merged, boxes)

    def count_in_boxes(
        self, request: CountRequest, boxes: Boxes, which: list[int], progress: ProgressCallback = no_progress
    ) -> list[PointCounts]:
        if any(m is not None for m in request.maps):
            raise NotImplementedError("count_in_boxes counts leaves")
        self._ensure_codes(request.codings)
        rows = [self._code_ids.index(c.key) for c in request.codings]
        box_rows = [self._code_ids.index(c.key) for c in boxes.codings]
        parts = self._gather(
            self.client.map(
                count_piece_in_boxes,
                self._codes,
                rows=rows,
                box_rows=box_rows,
                boxes=boxes,
                which=which,
                sizes=request.sizes,
            ),
            progress,
            0.3,
            _("counting the groups on {where}", where=self.where),
        )
        return [merge_points([p[i] for p in parts], len(rows)) for i in range(len(which))]

    def batches(self, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
        ahead = 2  # pieces read ahead by the workers while the client writes
        futures = [
            self.client.submit(read_piece, self.file, p, columns, pure=False) for p in self.pieces[:ahead]
        ]
        for i in range(len(self.pieces)):
            if i + ahead < len(self.pieces):
                futures.append(
                    self.client.submit(read_piece, self.file, self.pieces[i + ahead], columns, pure=False)
                )
            table = futures[i].result()
            futures[i] = None
            yield from (
                table.combine_chunks().to_batches(max_chunksize=self.batch_rows) if table.num_rows else []
            )

    def worker_peak_rss(self) -> list[int]:
        """Peak memory of every worker process (bytes)."""
        return list(self.client.run(_peak_rss).values())

    def close(self) -> None:
        """Close the client and the local cluster. Their shutdown races are not the user's business:
        a connection closed first by the other side (``CommClosedError``) printed a traceback after a
        run that had succeeded, so distributed's log is quiet while it shuts down."""
        client, cluster = getattr(self, "client", None), getattr(self, "cluster", None)
        self.client = self.cluster = None
        with _quiet_shutdown():
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()


@contextlib.contextmanager
def _quiet_shutdown() -> Iterator[None]:
    """distributed's loggers silenced, and its connection errors swallowed, while a cluster closes."""

    loggers = [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio")]
    levels = [log.level for log in loggers]
    for log in loggers:
        log.setLevel(logging.CRITICAL + 1)
    try:
        yield
    except (OSError, RuntimeError, TimeoutError):  # CommClosedError is an OSError: the run is over
        pass
    finally:
        for log, level in zip(loggers, levels):
            log.setLevel(level)


def _connect(client_cls: Any, scheduler: str) -> Any:
    """A client of the named scheduler: an address (tcp://HOST:8786) or a scheduler file."""
    try:
        if "://" in scheduler:
            return client_cls(scheduler, timeout=f"{CONNECT_SECONDS}s")
        if not Path(scheduler).is_file():
            raise ConfigError(
                _(
                    "The scheduler '{scheduler}' is neither an address such as tcp://HOST:8786 nor a file.",
                    scheduler=scheduler,
                ),
                hint=_("Give the scheduler's address, or the scheduler file dask-scheduler wrote."),
                where="scheduler",
            )
        return client_cls(scheduler_file=scheduler, timeout=f"{CONNECT_SECONDS}s")
    except (OSError, TimeoutError) as err:
        raise ConfigError(
            _(
                "The Dask scheduler at {address} cannot be reached (no answer within {seconds} seconds).",
                address=scheduler,
                seconds=CONNECT_SECONDS,
            )
            if isinstance(err, TimeoutError)
            else _("The Dask scheduler at {address} cannot be reached.", address=scheduler),
            hint=_("Check that it runs and that this computer may connect to it."),
            where="scheduler",
        ) from None
