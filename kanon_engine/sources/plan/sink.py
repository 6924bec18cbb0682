"""Stream a release from a table source into the one release writer, a batch of rows at a time.

For a run on a larger-than-memory engine the release is never held: every batch of input rows the
source yields (in input order) goes through the run's release plan
(:mod:`kanon_engine.sources.plan.release_plan`),
identifiers are pseudonymized or dropped, suppressed rows masked or dropped, and the rows are written by
:mod:`kanon_engine.release.writer` (CSV/TSV from codes and labels, Parquet in row groups of the size
pyarrow's whole-table writer uses) into the guarded atomic writer: a temporary file beside the target,
renamed over it once complete, never over an input. The bytes are those of the same release written
from memory: CSV lines do not depend on the batch they come in, Parquet row groups are cut at the same
rows.

A shuffled release needs every row before the first is written: the unshuffled rows go to a Parquet file
in the engine's temporary folder with their place in the shuffled order, and DuckDB reads them back
sorted by it (an external sort), so memory stays bounded.
"""

from __future__ import annotations

import hashlib
import queue
import secrets
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from kanon_engine.errors import DataError
from kanon_engine.i18n import _
from kanon_engine.release import writer as release_writer
from kanon_engine.release.build import with_mark
from kanon_engine.release.fileio import atomic_writer, format_for, refuse_input_overwrite
from kanon_engine.report.facts import FactsTally
from kanon_engine.sources.backends.base import TableSource
from kanon_engine.sources.backends.duckdb_source import default_memory_limit
from kanon_engine.sources.plan.guard import ReleaseTally, TableChanged, file_changed
from kanon_engine.sources.plan.release_plan import BatchState

#: Rows per Parquet row group: what ``pyarrow.parquet.write_table`` uses for a whole table.
ROW_GROUP_ROWS = 1024 * 1024

#: Test hook: called with the source once the input was found unchanged and before it is read again, so
#: a test can edit the file exactly between counting and writing (deterministically, not by a race).
before_reading_again: Callable[[TableSource], None] | None = None


def _release_batches(
    source: TableSource,
    result: Any,
    options: Any,
    facts: dict[str, Any],
    pseudonymize: Callable[..., pd.DataFrame],
    facts_tally: FactsTally | None = None,
    tally: ReleaseTally | None = None,
) -> Iterator[pd.DataFrame]:
    """The release rows, batch by batch, in input order (suppressed ones dropped when asked); every
    batch as written goes to ``facts_tally`` with its input rows beside it, its classes to ``tally``."""
    cfg = result.config
    plan = result.plan
    state = BatchState()
    drop = cfg.drop_suppressed if options.suppressed is None else options.suppressed == "drop"
    pseudo = options.pseudonymize_key is not None and bool(cfg.identifiers)
    for batch in source.batches():
        frame = batch.to_pandas()
        out, row_class = plan.apply(frame, state)
        if tally is not None:
            tally.add(row_class)
        suppressed = row_class < 0
        out = with_mark(out, cfg.quasi_identifiers, suppressed, options.mark_for(cfg))
        if pseudo:
            ids = pseudonymize(frame[list(cfg.identifiers)], list(cfg.identifiers), options.pseudonymize_key)
            order = [c for c in frame.columns if c in out.columns or c in cfg.identifiers]
            out = pd.concat([out, ids.reset_index(drop=True)], axis=1)[
                order + [c for c in out.columns if c not in order]
            ]
        n_supp = int(suppressed.sum())
        facts["suppressed"] += n_supp
        if drop and n_supp:
            out = out[~suppressed].reset_index(drop=True)
            frame = frame[~suppressed]
        if facts_tally is not None:
            facts_tally.add(out, original=frame[list(cfg.quasi_identifiers)].reset_index(drop=True))
        yield out
    facts["drop"] = drop
    facts["pseudonymized"] = tuple(cfg.identifiers) if pseudo else ()


#: Release batches prepared ahead of the writer (each some tens of megabytes).
READ_AHEAD = 2


def read_ahead(batches: Iterator[pd.DataFrame], depth: int = READ_AHEAD) -> Iterator[pd.DataFrame]:
    """The same batches, in the same order, prepared by one background thread (reading the file and
    applying the plan) while the caller formats and writes the previous ones: both halves are mostly
    pyarrow and numpy, which release the GIL, so a second core does half the work. An error in the
    thread is raised here; when the caller stops early the thread stops after its current batch."""

    done = object()
    q: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in batches:
                while not stop.is_set():
                    try:
                        q.put((item, None), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put((done, None))
        except BaseException as err:  # noqa: BLE001 - handed to the consumer, which raises it
            q.put((done, err))
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()  # the file the batches come from

    thread = threading.Thread(target=produce, name="kanon-release-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item, err = q.get()
            if item is done:
                if err is not None:
                    raise err
                return
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # unblock a producer waiting to put
            try:
                q.get(timeout=0.1)
            except queue.Empty:
                pass
        thread.join()


class _CsvTarget:
    def __init__(self, fh: Any, delimiter: str, bom: bool, neutralize: bool) -> None:
        self.fh, self.delimiter, self.bom, self.neutralize = fh, delimiter, bom, neutralize
        self.digest = hashlib.sha256()
        self.columns: tuple[str, ...] | None = None
        self.rows = self.neutralized = 0

    def write(self, frame: pd.DataFrame) -> None:
        info, chunks = release_writer.csv_chunks(frame, self.delimiter, self.neutralize, self.bom)
        for i, chunk in enumerate(chunks):
            if i == 0 and self.columns is not None:
                continue  # the header, written with the first batch
            self.digest.update(chunk)
            self.fh.write(chunk)
        if self.columns is None:
            self.columns = info.columns
        self.rows += info.rows
        self.neutralized += info.neutralized_cells

    def empty(self, columns: list[str]) -> None:
        if self.columns is None:
            self.write(pd.DataFrame(columns=columns))


class _ParquetTarget:
    def __init__(self, fh: Any) -> None:
        self.fh = fh
        self.writer: Any = None
        self.pending: list[pa.Table] = []
        self.size = 0
        self.columns: tuple[str, ...] | None = None
        self.rows = self.neutralized = 0

    def write(self, frame: pd.DataFrame) -> None:
        table = release_writer.arrow_table(frame)
        if self.columns is None:
            self.columns = tuple(str(c) for c in frame.columns)
        self.rows += table.num_rows
        self.pending.append(table)
        self.size += table.num_rows
        while self.size >= ROW_GROUP_ROWS:
            whole = pa.concat_tables(self.pending)
            self._group(whole.slice(0, ROW_GROUP_ROWS))
            rest = whole.slice(ROW_GROUP_ROWS)
            self.pending, self.size = [rest], rest.num_rows

    def _group(self, table: pa.Table) -> None:
        import pyarrow.parquet as pq

        if self.writer is None:
            self.writer = pq.ParquetWriter(self.fh, table.schema)
        self.writer.write_table(table, row_group_size=ROW_GROUP_ROWS)

    def empty(self, columns: list[str]) -> None:
        if self.columns is None:
            self.write(pd.DataFrame({c: pd.Series([], dtype=object) for c in columns}))

    def close(self) -> None:
        if self.pending and (self.size or self.writer is None):
            self._group(pa.concat_tables(self.pending))
        if self.writer is not None:
            self.writer.close()


def stream_release(
    source: TableSource,
    result: Any,
    path: str | Path,
    options: Any,
    project_path: str | Path | None,
    pseudonymize: Callable[..., pd.DataFrame],
) -> tuple[release_writer.WrittenRelease, dict[str, Any]]:
    """Write the release of ``result`` (a run on ``source``) to ``path``, streamed (``options`` as
    :class:`kanon_engine.release.export.ExportOptions`; ``pseudonymize`` its keyed pseudonyms); what was
    written,
    and facts for the export summary (format, suppressed rows masked or dropped, shuffled)."""
    path = Path(path)
    refuse_input_overwrite(path, [source.source, project_path])
    fmt = format_for(path, options.fmt)
    if fmt == "xlsx":
        raise DataError(
            _(
                "A release of {records} records read by {engine} is not written as Excel.",
                records=result.records,
                engine=_(source.title),
            ),
            hint=_("Write CSV or Parquet (an Excel sheet holds at most 1,048,575 rows)."),
            where=str(path),
        )
    cfg = result.config
    facts: dict[str, Any] = {"suppressed": 0, "format": fmt}
    shuffle = cfg.shuffle_seed is not None if options.shuffle is None else options.shuffle
    fingerprint = getattr(source, "fingerprint", None)
    if fingerprint is not None:
        fingerprint.check()  # the file is the one that was counted (size, time, SHA-256)
    if before_reading_again is not None:
        before_reading_again(source)
    facts_tally = FactsTally(
        cfg.quasi_identifiers, cfg.sensitive, input_records=result.records, mark=options.mark_for(cfg)
    )
    tally = ReleaseTally(result.class_sizes, result.suppressed, result.records)
    batches = _release_batches(source, result, options, facts, pseudonymize, facts_tally, tally)
    if getattr(source, "read_ahead", False):
        batches = read_ahead(batches)
    if shuffle:
        seed = options.shuffle_seed
        if seed is None:
            seed = cfg.shuffle_seed if options.shuffle is None else secrets.randbits(64)
        work, limit = getattr(source, "work", None), getattr(source, "memory_limit", None)
        batches = _shuffled(batches, seed, result, options, work, limit, facts_tally)
    try:
        target = _write_all(path, fmt, batches, options, lambda: _unchanged(source, tally))
    except TableChanged:
        raise file_changed(source.source) from None
    sha = target.digest.hexdigest() if isinstance(target, _CsvTarget) else release_writer.sha256_file(path)
    facts["shuffled"] = bool(shuffle)
    facts["facts"] = facts_tally.facts("written")
    written = release_writer.WrittenRelease(target.columns or (), target.rows, sha, target.neutralized)
    return written, facts


def _unchanged(source: TableSource, tally: ReleaseTally) -> None:
    """The rows written are those counted, and the file is still the one counted (size and time)."""
    tally.check(source.source)
    fingerprint = getattr(source, "fingerprint", None)
    if fingerprint is not None:
        fingerprint.check_stat()


def _write_all(
    path: Path,
    fmt: str,
    batches: Iterator[pd.DataFrame],
    options: Any,
    finished: Callable[[], None],
) -> Any:
    """Write every batch into the guarded atomic writer; ``finished`` runs before the file replaces
    ``path`` (raising there leaves ``path`` as it was and removes the partial file)."""
    with atomic_writer(path, "wb") as fh:
        if fmt in ("csv", "tsv"):
            sep = "\t" if fmt == "tsv" and options.delimiter == "," else options.delimiter
            target: Any = _CsvTarget(fh, sep, options.bom, options.neutralize_formulas)
        else:
            target = _ParquetTarget(fh)
        columns: list[str] = []
        for frame in batches:
            columns = [str(c) for c in frame.columns]
            target.write(frame)
        target.empty(columns)
        if isinstance(target, _ParquetTarget):
            target.close()
        finished()
    return target


def _shuffled(
    batches: Iterator[pd.DataFrame],
    seed: int,
    result: Any,
    options: Any,
    folder: Path | None = None,
    memory_limit: str | None = None,
    facts_tally: FactsTally | None = None,
) -> Iterator[pd.DataFrame]:
    """The release rows in the order of ``numpy.random.default_rng(seed).permutation`` over the released
    rows (the in-memory release's order), sorted out of memory by DuckDB (within the source's memory
    limit, spilling into ``folder``); ``facts_tally`` is told the unshuffled position of every row in
    the order they come out."""
    import duckdb
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    drop = result.config.drop_suppressed if options.suppressed is None else options.suppressed == "drop"
    n = result.records - (result.suppressed if drop else 0)
    perm = np.random.default_rng(seed).permutation(n)
    place = np.empty(n, dtype=np.int64)
    place[perm] = np.arange(n, dtype=np.int64)
    del perm
    with tempfile.TemporaryDirectory(prefix="kanon-shuffle-", dir=folder) as work:
        tmp = Path(work) / "release.parquet"
        writer = None
        start = 0
        columns: list[str] = []
        for frame in batches:
            columns = [str(c) for c in frame.columns]
            if start + len(frame) > n:  # more rows than were counted
                raise file_changed(None)
            table = release_writer.arrow_table(frame)
            table = table.append_column("__place", pa.array(place[start : start + len(frame)]))
            table = table.append_column("__row", pa.array(np.arange(start, start + len(frame))))
            start += len(frame)
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema)
            writer.write_table(table)
        if writer is None:
            return
        writer.close()
        del place

        # the sort spills into this private folder (removed below), never into DuckDB's default ".tmp"
        # of the working folder: the rows are patient records
        con = duckdb.connect(
            config={
                "autoinstall_known_extensions": False,
                "autoload_known_extensions": False,
                "temp_directory": str(Path(work) / "spill"),
                "memory_limit": memory_limit or default_memory_limit(),
            }
        )
        try:
            con.register("unshuffled", ds.dataset(tmp))
            reader = con.execute(
                "SELECT * EXCLUDE (__place) FROM unshuffled ORDER BY __place"
            ).to_arrow_reader(1 << 17)
            for b in reader:
                out = b.to_pandas()
                if facts_tally is not None:
                    facts_tally.add_order(out["__row"].to_numpy())
                yield out.reindex(columns=columns)
        finally:
            con.close()
