"""DuckDB, embedded: the table source for files larger than memory (no server, works offline).

Counting goes through a table ``codes`` in a DuckDB database in the temporary folder: every row's
quasi-identifiers and sensitive attributes as small integers (the codes of the run), a few bytes per cell
after DuckDB's compression. A Parquet file whose counted columns are text (or integers) is read by
DuckDB itself, on all its threads: the value counts are one ``GROUP BY`` per column, and the codes one
join of the file with the small value -> code tables of the run (:meth:`DuckDBSource._read_directly`);
every other file is read in batches (:mod:`kanon_engine.data.stream`, the same strings as a loaded
table), encoded by pyarrow and appended to ``codes`` through Arrow. Counting (:meth:`DuckDBSource.count`)
is then a ``GROUP BY`` over ``codes``, with every hierarchy level applied by a join with a small table
of codes; DuckDB keeps within its memory limit and spills to the temporary folder what does not fit (its
out-of-core hash aggregation). The release is streamed from the file again, batch by batch, through the
run's release plan into the one writer.

Nothing here opens a network connection: extensions are neither installed nor loaded automatically, and
external access is off; the only file DuckDB may read itself is the user's Parquet file (its one allowed
path, besides its own database and spill folder)."""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa

from kanon_engine.data.stream import BATCH_ROWS, text_batches
from kanon_engine.data.table import ReadOptions
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.i18n import N_, _
from kanon_engine.progress import ProgressCallback, no_progress, wait_cancellable
from kanon_engine.release.fileio import try_lock
from kanon_engine.sources.backends.base import (
    Boxes,
    ColumnCoding,
    CountRequest,
    PointCounts,
    StreamedSource,
    dense_histograms,
    encode_batch,
    map_key,
    value_counts_of,
)
from kanon_engine.sources.backends.settings import ENGINE_TITLES

#: What a DuckDB source says while it counts (also while Cancel is waited for).
COUNTING = N_("counting the groups (DuckDB)")
#: DuckDB's memory limit when the user sets none: a quarter of this machine's memory, at least 1 GB.
DEFAULT_MEMORY_SHARE = 0.25


def parse_memory(text: str | None) -> str | None:
    """A memory limit as DuckDB takes it (``4GB``, ``512MB``); a ConfigError for anything else."""
    if text is None or str(text).strip() == "":
        return None
    t = str(text).strip().upper().replace(" ", "").replace("IB", "B")
    units = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
    for unit in sorted(units, key=len, reverse=True):
        if t.endswith(unit):
            number = t[: -len(unit)]
            break
    else:
        unit, number = "GB", t
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if value <= 0:
        raise ConfigError(
            _("The memory limit must be an amount such as 4GB or 512MB; got '{text}'.", text=text),
            where="memory-limit",
        )
    if value * units[unit] < MIN_MEMORY:  # DuckDB would fail minutes into the run, not at once
        raise ConfigError(
            _(
                "The memory limit {text} is too small for DuckDB to count anything; give at least {least}.",
                text=text,
                least="64MB",
            ),
            hint=_("For example --memory-limit 1GB."),
            where="memory-limit",
        )
    return f"{int(value * units[unit]) >> 20}MiB"


#: The smallest memory limit DuckDB is given (below it every count fails, after minutes of reading).
MIN_MEMORY = 64 << 20


_F = TypeVar("_F", bound=Callable[..., Any])


@contextlib.contextmanager
def _plain_errors(source: DuckDBSource) -> Iterator[None]:
    """DuckDB's own errors of a source's row-wide step as one plain sentence: the memory limit too
    small for the work (DuckDB cannot spill everything), or the temporary folder full or unwritable."""
    import duckdb

    try:
        yield
    except duckdb.OutOfMemoryException:
        raise ConfigError(
            _(
                "DuckDB needed more memory than the memory limit ({limit}) allows for {name}.",
                limit=source.memory_limit,
                name=source.name(),
            ),
            hint=_("Raise --memory-limit (1GB is enough for most files), or close other programs."),
            where="memory-limit",
        ) from None
    except duckdb.IOException:
        raise ConfigError(
            _(
                "DuckDB could not write to the temporary folder {folder} (is the disk full?).",
                folder=source.work.parent,
            ),
            hint=_("Free some space there, or choose another folder with --temp-dir."),
            where="temp-dir",
        ) from None


def in_one_sentence(method: _F) -> _F:
    """A source's method whose DuckDB errors become one plain sentence (:func:`_plain_errors`), also
    while a generator's rows are fetched."""
    if inspect.isgeneratorfunction(method):

        @functools.wraps(method)
        def streamed(self: DuckDBSource, *args: Any, **kwargs: Any) -> Any:
            with _plain_errors(self):
                yield from method(self, *args, **kwargs)

        return streamed  # type: ignore[return-value]

    @functools.wraps(method)
    def guarded(self: DuckDBSource, *args: Any, **kwargs: Any) -> Any:
        with _plain_errors(self):
            return method(self, *args, **kwargs)

    return guarded  # type: ignore[return-value]


class DuckDBSource(StreamedSource):
    """A CSV or Parquet file counted and streamed by an embedded DuckDB (see the module docstring)."""

    engine = "duckdb"
    title = ENGINE_TITLES["duckdb"]
    #: every exact count reads all the rows (choose_floor starts from the candidate predicted to fit)
    costly_counts = True
    #: the release's batches are read and planned by a thread while the previous ones are written
    #: (:func:`kanon_engine.sources.plan.sink.read_ahead`)
    read_ahead = True

    def __init__(
        self,
        path: str | Path,
        options: ReadOptions | None = None,
        *,
        memory_limit: str | None = None,
        temp_dir: str | Path | None = None,
        threads: int | None = None,
        reason: str = "",
        batch_rows: int = BATCH_ROWS,
    ) -> None:
        super().__init__(reason)
        import duckdb

        self._open_file(path, options)
        self.batch_rows = batch_rows
        parent = Path(temp_dir) if temp_dir else Path(tempfile.gettempdir())
        if not parent.is_dir():
            raise DataError(
                _("The temporary folder {folder} is a file, not a folder.", folder=parent)
                if parent.exists()
                else _("The temporary folder {folder} does not exist.", folder=parent),
                hint=_("Create it, or choose another folder with --temp-dir."),
                where=str(parent),
            )
        remove_stale_work_folders(parent)
        self.work = parent / f"{WORK_PREFIX}{uuid.uuid4().hex[:12]}"
        try:
            self.work.mkdir(mode=0o700)
        except OSError:
            raise DataError(
                _("The temporary folder {folder} cannot be written to.", folder=parent),
                hint=_("Choose a folder you may write to with --temp-dir."),
                where=str(parent),
            ) from None
        self._lock = _hold_lock(self.work)
        limit = parse_memory(memory_limit) or default_memory_limit()
        self.memory_limit = limit
        config: dict[str, str | bool | int | float | list[str]] = {
            "memory_limit": limit,
            "temp_directory": str(self.work / "spill"),
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "preserve_insertion_order": False,
        }
        if threads:
            config["threads"] = int(threads)
        self.con = duckdb.connect(str(self.work / "codes.duckdb"), config=config)
        self._parquet = _parquet_schema(self.file.path) if self.file.kind == "parquet" else None
        if self._parquet is not None:  # the one file DuckDB reads itself (see _read_directly)
            self.con.execute(f"SET allowed_paths = [{_literal(self._parquet_path())}]")
            self.con.execute(f"SET allowed_directories = [{_literal(str(self.work))}]")
        self.con.execute("SET enable_external_access = false")
        self._codes_key: tuple[str, ...] | None = None
        self._n_maps = 0
        #: the last request grouped, by the keys of its codings and maps (see _grouped_table)
        self._kept: tuple[tuple[tuple[str, bytes | None], ...], str] | None = None

    # --- what the file is ---------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        if self._rows is None:
            rows = 0
            for b in text_batches(self.file, self.file.names[:1], self.batch_rows):
                rows += b.num_rows
            self._rows = rows
        return self._rows

    def batches(self, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
        yield from text_batches(self.file, columns, self.batch_rows)

    @in_one_sentence
    def _value_counts(
        self, columns: list[str], progress: ProgressCallback = no_progress
    ) -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
        texts = self._read_directly(columns)
        if texts is not None:
            return {name: self._direct_value_counts(text, progress) for name, text in zip(columns, texts)}
        rows = [0]

        def counted() -> Iterator[pa.RecordBatch]:
            for b in self.batches(columns):
                rows[0] += b.num_rows
                yield b

        out = value_counts_of(counted(), columns, progress, self._rows)
        self._rows = rows[0]
        return out

    # --- reading the Parquet file in DuckDB -----------------------------------------------------------
    def _read_directly(self, columns: list[str]) -> list[str] | None:
        """The SQL of every column's text as kanon's reader gives it, when DuckDB reads the file itself:
        a Parquet file whose columns are text (an empty string missing, as :func:`arrow_to_text` makes
        it) or integers (decimal digits, as pyarrow's cast writes them); None for any other file or
        type (then the rows come in batches through Arrow)."""
        if self._parquet is None:
            return None
        raw_of = dict(zip(self.file.names, self._parquet.names))
        if len(set(self._parquet.names)) != len(self._parquet.names):
            return None
        out = []
        for name in columns:
            raw = raw_of[name]
            kind = self._parquet.field(raw).type
            if pa.types.is_dictionary(kind):
                kind = kind.value_type
            if pa.types.is_string(kind) or pa.types.is_large_string(kind):
                out.append(f"NULLIF({_ident(raw)}, '')")
            elif pa.types.is_integer(kind):
                out.append(f"CAST({_ident(raw)} AS VARCHAR)")
            else:
                return None
        return out

    def _parquet_path(self) -> str:
        """The absolute path of the file: the one DuckDB may read, spelled alike where allowed and read."""
        return str(Path(self.file.path).resolve())

    def _scan(self) -> str:
        return f"read_parquet({_literal(self._parquet_path())})"

    def _direct_value_counts(
        self, text: str, progress: ProgressCallback = no_progress
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """One column's value counts by DuckDB (sorted as Python sorts strings, as the batch path does)."""
        sql = f"SELECT {text} AS v, count(*) AS n FROM {self._scan()} GROUP BY 1"
        table = self._fetch(sql, progress, _("counting the values of {file}", file=self.name()))
        values = np.asarray(table.column("v").to_pylist(), dtype=object)
        counts = table.column("n").to_numpy().astype(np.int64)
        present = np.asarray([v is not None for v in values], dtype=bool)
        missing = int(counts[~present].sum())
        values, counts = values[present], counts[present]
        order = np.argsort(values, kind="stable")
        self._rows = int(counts.sum()) + missing
        return values[order], counts[order], missing

    def _encode_directly(
        self, codings: tuple[ColumnCoding, ...], texts: list[str], progress: ProgressCallback = no_progress
    ) -> int:
        """Fill ``codes`` from the Parquet file in DuckDB: the file joined with one small table of value
        -> code per column (a missing cell gets the coding's missing code); the rows counted."""
        selects, joins = [], []
        for i, c in enumerate(codings):
            values = pa.table({"v": pa.array(c.values, pa.string()), "code": pa.array(c.codes, pa.int32())})
            self.con.register("values_arrow", values)
            try:
                self.con.execute(f"CREATE OR REPLACE TABLE values_{i} AS SELECT * FROM values_arrow")
            finally:
                self.con.unregister("values_arrow")
            kind = "SMALLINT" if c.dtype == np.int16 else "INTEGER"
            code = f"CASE WHEN t.x{i} IS NULL THEN {int(c.missing)} ELSE v{i}.code END"
            selects.append(f"({code})::{kind} AS c{i}")
            joins.append(f"LEFT JOIN values_{i} AS v{i} ON t.x{i} = v{i}.v")
        inner = ", ".join(f"{text} AS x{i}" for i, text in enumerate(texts))
        said = _("encoding the rows of {file} (DuckDB)", file=self.name())
        self._run(
            f"CREATE TABLE codes AS SELECT {', '.join(selects)} "
            f"FROM (SELECT {inner} FROM {self._scan()}) AS t {' '.join(joins)}",
            progress,
            said,
        )
        unknown = ", ".join(f"count(*) FILTER (WHERE c{i} IS NULL)" for i in range(len(codings)))
        row = self._row(f"SELECT count(*), {unknown} FROM codes", progress, said)
        for c, n in zip(codings, row[1:]):
            if n:
                raise DataError(
                    _(
                        "The column '{column}' holds a value that was not there when the run started.",
                        column=c.name,
                    ),
                    hint=_("The file changed while it was being read; run again."),
                    where=c.name,
                )
        return int(row[0])

    # --- counting -----------------------------------------------------------------------------------
    @in_one_sentence
    def _ensure_codes(self, codings: tuple[ColumnCoding, ...], progress: ProgressCallback) -> None:
        """Encode the file's rows into the table ``codes`` (once per set of codings)."""
        import duckdb

        key = tuple(c.key for c in codings)
        if self._codes_key is not None and set(key) <= set(self._codes_key):
            return
        self._kept = None
        texts = self._read_directly([c.name for c in codings])
        if texts is not None:
            self.con.execute("DROP TABLE IF EXISTS codes")
            self._rows = self._encode_directly(codings, texts, progress)
            progress(0.5, _("encoding rows: {n} read", n=self._rows))
            self._codes_key = key
            return
        names = [f"c{i}" for i in range(len(codings))]
        schema = pa.schema([pa.field(n, pa.from_numpy_dtype(c.dtype)) for n, c in zip(names, codings)])
        total = max(self._rows or 1, 1)
        done = [0]
        #: what the batches raised (a Cancel from the progress callback, a file that changed): DuckDB
        #: wraps it in its own InvalidInputException, so it is kept here and raised as it was
        failed: list[BaseException] = []

        def encoded() -> Iterator[pa.RecordBatch]:
            try:
                for b in self.batches([c.name for c in codings]):
                    codes = encode_batch(b, codings)
                    done[0] += b.num_rows
                    progress(min(0.5, 0.5 * done[0] / total), _("encoding rows: {n} read", n=done[0]))
                    yield pa.RecordBatch.from_arrays(
                        [pa.array(codes[i].astype(c.dtype)) for i, c in enumerate(codings)], schema=schema
                    )
            except BaseException as exc:
                failed.append(exc)
                raise

        reader = pa.RecordBatchReader.from_batches(schema, encoded())
        self.con.execute("DROP TABLE IF EXISTS codes")
        self.con.register("encoded_stream", reader)
        try:
            self.con.execute("CREATE TABLE codes AS SELECT * FROM encoded_stream")
        except duckdb.Error:
            if failed:
                raise failed[0] from None
            raise
        finally:
            self.con.unregister("encoded_stream")
        self._rows = done[0]
        self._codes_key = key

    @in_one_sentence
    def count(self, request: CountRequest, progress: ProgressCallback = no_progress) -> PointCounts:
        table = self._grouped_table(request, progress)
        groups = ", ".join(f"g{i}" for i in range(len(request.maps)))
        result = self._fetch(f"SELECT * FROM {table} ORDER BY {groups}", progress, _(COUNTING))
        codes = np.stack([result.column(f"g{i}").to_numpy() for i in range(len(request.maps))])
        return PointCounts.from_groups(codes, result.column("n").to_numpy())

    @in_one_sentence
    def distinct_count(self, request: CountRequest, progress: ProgressCallback = no_progress) -> int:
        table = self._grouped_table(request, progress)
        return int(self._row(f"SELECT count(*) FROM {table}", progress, _(COUNTING))[0])

    def _grouped_table(self, request: CountRequest, progress: ProgressCallback) -> str:
        """The groups of a request as a table, kept until another request is grouped: choosing the floor
        counts a request's groups and then fetches them (one GROUP BY over every row, not two)."""
        key = tuple((c.key, map_key(m)) for c, m in zip(request.codings, request.maps))
        if self._kept is not None and self._kept[0] == key:
            return self._kept[1]
        sql, tables = self._grouped(request, progress)
        try:
            self._run(f"CREATE OR REPLACE TABLE grouped AS {sql}", progress, _(COUNTING))
        finally:
            self._drop(tables)
        self._kept = (key, "grouped")
        return "grouped"

    @in_one_sentence
    def estimate_distinct(
        self, requests: list[CountRequest], progress: ProgressCallback = no_progress
    ) -> list[int]:
        """HyperLogLog estimates of the combinations of several requests, in one pass over the codes."""
        if not requests:
            return []
        self._ensure_codes(requests[0].codings, progress)
        column = {k: f"c{j}" for j, k in enumerate(self._codes_key or ())}
        lists: dict[bytes | None, str] = {}
        aggregates = []
        for request in requests:
            parts = []
            for m, c in zip(request.maps, request.codings):
                if m is None:
                    parts.append(column[c.key])
                else:
                    if map_key(m) not in lists:
                        lists[map_key(m)] = self._map_list(m)
                    parts.append(f"{lists[map_key(m)]}[{column[c.key]} + 1]")
            aggregates.append(f"approx_count_distinct(hash({', '.join(parts)}))")
        row = self._row(f"SELECT {', '.join(aggregates)} FROM codes", progress, _(COUNTING))
        return [int(x) for x in row]

    def _map_list(self, mapping: np.ndarray) -> str:
        """A hierarchy level as a DuckDB list literal (small: one entry per leaf)."""
        return "[" + ", ".join(str(int(x)) for x in mapping) + "]"

    @in_one_sentence
    def small_classes(
        self, request: CountRequest, k: int, progress: ProgressCallback = no_progress
    ) -> tuple[int, int]:
        """Records in classes smaller than ``k`` and the classes. The groups are not kept: a node below
        the floor checked here usually fails, and it has many more groups than the floor's points."""
        sql, tables = self._grouped(request, progress)
        try:
            row = self._row(
                f"SELECT coalesce(sum(n) FILTER (WHERE n < {int(k)}), 0), count(*) FROM ({sql})",
                progress,
                _(COUNTING),
            )
        finally:
            self._drop(tables)
        return int(row[0]), int(row[1])

    def _run(self, sql: str, progress: ProgressCallback, message: str) -> None:
        """Run a statement that may take long; Cancel interrupts it (:func:`wait_cancellable`)."""
        wait_cancellable(lambda: self.con.execute(sql), progress, 0.5, message, self.con.interrupt)

    def _fetch(self, sql: str, progress: ProgressCallback, message: str) -> pa.Table:
        """The result of a query that may take long, as an Arrow table; Cancel interrupts it."""
        return wait_cancellable(
            lambda: self.con.execute(sql).to_arrow_table(), progress, 0.5, message, self.con.interrupt
        )

    def _row(self, sql: str, progress: ProgressCallback, message: str) -> tuple[Any, ...]:
        """The one row of an aggregate query (counts and sums always give one); Cancel interrupts it."""
        row = wait_cancellable(
            lambda: self.con.execute(sql).fetchone(), progress, 0.5, message, self.con.interrupt
        )
        assert row is not None
        return row

    def _drop(self, tables: list[str]) -> None:
        for name in tables:
            self.con.execute(f"DROP TABLE IF EXISTS {name}")

    def _grouped(self, request: CountRequest, progress: ProgressCallback) -> tuple[str, list[str]]:
        """The GROUP BY of a request over the codes table, and the map tables it joins."""
        self._ensure_codes(request.codings, progress)
        progress(0.5, _(COUNTING))
        selects, joins, tables = [], [], []
        assert self._codes_key is not None
        column = {k: f"c{j}" for j, k in enumerate(self._codes_key)}
        for i, (m, c) in enumerate(zip(request.maps, request.codings)):
            col = column[c.key]
            if m is None:
                selects.append(f"codes.{col} AS g{i}")
                continue
            name = self._map_table(m)
            tables.append(name)
            joins.append(f"JOIN {name} AS m{i} ON codes.{col} = m{i}.code")
            selects.append(f"m{i}.g AS g{i}")
        groups = ", ".join(f"g{i}" for i in range(len(request.maps)))
        sql = f"SELECT {', '.join(selects)}, count(*)::BIGINT AS n FROM codes {' '.join(joins)}"
        sql += f" GROUP BY {groups}"
        return sql, tables

    def _map_table(self, mapping: np.ndarray) -> str:
        """A small DuckDB table code -> mapped code (a hierarchy level)."""
        self._n_maps += 1
        name = f"map_{self._n_maps}"
        arrow = pa.table({"code": np.arange(len(mapping), dtype=np.int32), "g": mapping.astype(np.int32)})
        self.con.register("map_arrow", arrow)
        try:
            self.con.execute(f"CREATE TABLE {name} AS SELECT * FROM map_arrow")
        finally:
            self.con.unregister("map_arrow")
        return name

    # --- Mondrian's cuts of partitions too large to count (kanon_engine.algorithms.mondrian.engine) ---
    def _box_sql(self, boxes: Boxes) -> tuple[list[str], str, list[str]]:
        """The codes column of every box column, the key of the columns a box bounds (a list lookup of
        their codes, ``... AS k{q}``), and the box of a row: the sum of every box's number times whether
        the row is inside it, less one (boxes are disjoint; -1 when in none)."""
        assert self._codes_key is not None
        column = {k: f"c{j}" for j, k in enumerate(self._codes_key)}
        cols = [column[c.key] for c in boxes.codings]
        full = np.asarray(boxes.n_keys) - 1
        terms, bounded = [], set()
        for b in range(boxes.n_boxes):
            lo, hi = boxes.lower[b], boxes.upper[b]
            cond = [f"k{q} >= {int(lo[q])}" for q in range(len(cols)) if lo[q] > 0]
            cond += [f"k{q} <= {int(hi[q])}" for q in range(len(cols)) if hi[q] < full[q]]
            bounded |= {q for q in range(len(cols)) if lo[q] > 0 or hi[q] < full[q]}
            terms.append(f"({' AND '.join(cond) or 'true'})::INTEGER * {b + 1}")
        keys = [f"{self._map_list(boxes.keys[q])}[{cols[q]} + 1] AS k{q}" for q in sorted(bounded)]
        return cols, f"({' + '.join(terms)} - 1)", keys

    @in_one_sentence
    def box_histograms(self, boxes: Boxes, progress: ProgressCallback = no_progress) -> list[np.ndarray]:
        """One pass: a GROUP BY GROUPING SETS ((box, codes) of every column) over the codes table; the
        codes become keys afterwards (only the columns a box bounds are looked up per row)."""

        self._ensure_codes(boxes.codings, progress)
        cols, case, keys = self._box_sql(boxes)
        d = len(cols)
        inner = f"SELECT {', '.join([*(f'{c} AS r{q}' for q, c in enumerate(cols)), *keys])} FROM codes"
        sets = ", ".join(f"(b, r{q})" for q in range(d))
        flags = ", ".join(f"grouping(r{q}) AS s{q}" for q in range(d))
        sql = (
            f"SELECT b, {', '.join(f'r{q}' for q in range(d))}, {flags}, count(*)::BIGINT AS n "
            f"FROM (SELECT {case} AS b, * FROM ({inner})) WHERE b >= 0 GROUP BY GROUPING SETS ({sets})"
        )
        table = self._fetch(sql, progress, _(COUNTING))
        box, n = table.column("b").to_numpy(), table.column("n").to_numpy()
        parts = []
        for q in range(d):
            mine = table.column(f"s{q}").to_numpy() == 0
            code = table.column(f"r{q}").to_numpy(zero_copy_only=False)[mine].astype(np.int64)
            parts.append((box[mine], boxes.keys[q][code], n[mine]))
        return dense_histograms(parts, boxes)

    @in_one_sentence
    def count_in_boxes(
        self, request: CountRequest, boxes: Boxes, which: list[int], progress: ProgressCallback = no_progress
    ) -> Iterator[PointCounts]:
        """The GROUP BY of :meth:`count` over the rows of the listed boxes, by box; fetched in sorted
        batches, so only one box's points are held at a time (not the whole pass's: 12 million points,
        about 0.5 GB, beside Mondrian's work on the box)."""
        if any(m is not None for m in request.maps):
            raise NotImplementedError("count_in_boxes counts leaves")
        self._ensure_codes(tuple(dict.fromkeys((*request.codings, *boxes.codings))), progress)
        listed = Boxes(boxes.codings, boxes.keys, boxes.lower[which], boxes.upper[which])
        _cols, case, keys = self._box_sql(listed)
        column = {k: f"c{j}" for j, k in enumerate(self._codes_key or ())}
        groups = ", ".join(f"{column[c.key]} AS g{i}" for i, c in enumerate(request.codings))
        names = ", ".join(f"g{i}" for i in range(len(request.codings)))
        inner = f"SELECT {', '.join(['*', *keys])} FROM codes"
        sql = (
            f"SELECT b, {names}, count(*)::BIGINT AS n FROM (SELECT {case} AS b, {groups} FROM ({inner})) "
            f"WHERE b >= 0 GROUP BY ALL ORDER BY b, {names}"
        )
        reader = self.con.execute(sql).to_arrow_reader(1 << 20)
        yield from _per_box(reader, len(which), len(request.codings))

    def close(self) -> None:
        con = self.__dict__.pop("con", None)  # closing twice (and the finalizer after) does nothing
        if con is not None:
            con.close()
        lock = self.__dict__.pop("_lock", None)
        if lock is not None:
            os.close(lock)
        work = getattr(self, "work", None)
        if work is not None and work.exists():
            shutil.rmtree(work, ignore_errors=True)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


def _per_box(reader: pa.RecordBatchReader, n_boxes: int, n_columns: int) -> Iterator[PointCounts]:
    """The points of boxes 0 .. n_boxes-1 in turn from batches of (b, g0.., n) rows sorted by box:
    a box is handed over as soon as a later box appears, so at most one box (and a batch) is held."""
    held: list[pa.RecordBatch] = []
    current = 0
    for batch in reader:
        if not batch.num_rows:
            continue
        held.append(batch)
        last = int(batch.column(0)[-1].as_py())
        if last > current:
            table = pa.Table.from_batches(held)
            cut = int(np.searchsorted(table.column("b").to_numpy(), last))
            yield from _boxes_in(table.slice(0, cut), current, last, n_columns)
            held, current = table.slice(cut).to_batches(), last
    yield from _boxes_in(pa.Table.from_batches(held, schema=reader.schema), current, n_boxes, n_columns)


def _boxes_in(table: pa.Table, first: int, end: int, n_columns: int) -> Iterator[PointCounts]:
    """The points of boxes first .. end-1 from (b, g0.., n) rows sorted by box (a box without rows has
    none)."""
    box = table.column("b").to_numpy()
    codes = np.stack([table.column(f"g{i}").to_numpy() for i in range(n_columns)])
    n = table.column("n").to_numpy()
    cuts = np.searchsorted(box, np.arange(first, end + 1))
    for a, b in zip(cuts[:-1], cuts[1:]):
        yield PointCounts.from_groups(codes[:, a:b], n[a:b])


def _parquet_schema(path: Path) -> pa.Schema:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).schema_arrow


def _literal(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    """A SQL identifier (a column name as the file spells it)."""
    return '"' + name.replace('"', '""') + '"'


#: The engine's folder in the temporary folder: the encoded rows (patient data), spills, a lock.
WORK_PREFIX = "kanon-duckdb-"


def _hold_lock(work: Path) -> int:
    """A lock file in the work folder, held while the source lives (a crashed run's folder has none)."""

    fd = os.open(work / "lock", os.O_CREAT | os.O_RDWR, 0o600)
    try_lock(fd)
    return fd


def remove_stale_work_folders(parent: Path) -> list[str]:
    """Remove work folders a crashed or killed run left in ``parent`` (they hold encoded patient rows):
    those whose lock no process holds. Where locks are unavailable, only folders a day old."""

    removed = []
    for entry in parent.glob(f"{WORK_PREFIX}*"):
        lock = entry / "lock"
        try:
            fd = os.open(lock, os.O_RDWR)
        except OSError:
            stale = time.time() - entry.stat().st_mtime > 86400 if entry.exists() else False
        else:
            try:
                taken = try_lock(fd)
                stale = taken is True or (taken is None and time.time() - lock.stat().st_mtime > 86400)
            finally:
                os.close(fd)
        if stale:
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry.name)
    return removed


def physical_memory() -> int:
    """Bytes of memory of this machine (0 when it cannot be told)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    try:  # Windows
        import ctypes

        class _Status(ctypes.Structure):
            _fields_ = [
                ("dwLength", ctypes.c_ulong),
                ("dwMemoryLoad", ctypes.c_ulong),
                ("ullTotalPhys", ctypes.c_ulonglong),
                ("ullAvailPhys", ctypes.c_ulonglong),
                ("ullTotalPageFile", ctypes.c_ulonglong),
                ("ullAvailPageFile", ctypes.c_ulonglong),
                ("ullTotalVirtual", ctypes.c_ulonglong),
                ("ullAvailVirtual", ctypes.c_ulonglong),
                ("sullAvailExtendedVirtual", ctypes.c_ulonglong),
            ]

        status = _Status()
        status.dwLength = ctypes.sizeof(_Status)
        ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status))  # type: ignore[attr-defined]
        return int(status.ullTotalPhys)
    except Exception:  # noqa: BLE001 - unknown platform: say nothing
        return 0


def default_memory_limit() -> str:
    """A quarter of the machine's memory (at least 1 GB), in DuckDB's words."""
    total = physical_memory() or (8 << 30)
    return f"{max(1 << 30, int(total * DEFAULT_MEMORY_SHARE)) >> 20}MiB"
