"""Read a CSV/TSV or Parquet file as a stream of record batches of original strings, never all at once.

Why: a table larger than memory is read in batches by every engine (pandas in memory, DuckDB, Dask). Each
batch holds exactly the strings :func:`kanon_engine.data.io.read_table` would hold for those rows (the
same pyarrow parser options for text: every column a string, an empty cell missing; the same text
conversion for Parquet columns), so every engine sees the same values and a release written from a
stream is byte-for-byte the release written from the loaded table.

Text files are parsed by pyarrow's streaming CSV reader from the byte just after the header (the header
is found with the same sniffing as the import). Parquet files are read a row group at a time; a timestamp
column is written as a date when every value of the *whole column* is at midnight (checked in a first
pass over that column only, as the loaded table decides it over the whole column).
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from kanon_engine.data.io import (
    arrow_to_text,
    column_names,
    empty_error,
    format_of,
    header_only_error,
    header_record,
    read_head,
)
from kanon_engine.data.sniff import decoded_sample, detect_encoding, normalize_encoding, sniff_text
from kanon_engine.data.table import ReadOptions
from kanon_engine.errors import DataError
from kanon_engine.i18n import _

#: Rows per batch when streaming (a batch of 10 text columns costs some tens of megabytes).
BATCH_ROWS = 1 << 18


@dataclass(frozen=True)
class StreamedFile:
    """Everything needed to stream a file: its format, column names, how text is read, and (Parquet)
    how each timestamp column is written."""

    path: Path
    kind: str  # "text" or "parquet"
    names: tuple[str, ...]
    options: ReadOptions
    body_offset: int = 0  # text: byte offset of the first record after the header
    quoted: bool = True  # text: the quote character occurs in the file's start (newlines may be quoted)
    dates: dict[str, bool] = field(default_factory=dict)  # parquet timestamp column -> written as date
    rows: int | None = None  # known up front for Parquet

    @property
    def size_bytes(self) -> int:
        return self.path.stat().st_size


def inspect_file(path: str | Path, options: ReadOptions | None = None) -> StreamedFile:
    """Sniff a file's format, dialect and column names from its start (and, for Parquet, its footer)."""
    path = Path(path)
    opts = options or ReadOptions()
    head, complete = read_head(path, 64)
    kind = format_of(path, head)
    if kind == "xlsx":
        raise DataError(
            _("{name} is an Excel workbook, which is read whole into memory.", name=path.name),
            hint=_("Save it as CSV or Parquet to process it with a larger-than-memory engine."),
            where=path.name,
        )
    if kind == "parquet":
        return _inspect_parquet(path)
    return _inspect_text(path, head, complete, opts)


def _inspect_text(path: Path, head: bytes, complete: bool, o: ReadOptions) -> StreamedFile:
    enc = normalize_encoding(o.encoding, path.name) if o.encoding else detect_encoding(head, partial=True)
    if enc.startswith("utf-16") or enc.startswith("utf_16"):
        raise DataError(
            _("{name} is UTF-16 text, which can only be read whole into memory.", name=path.name),
            hint=_("Save it as UTF-8 CSV or as Parquet."),
            where=path.name,
        )
    text = decoded_sample(head, enc, complete=complete)
    text = text.removeprefix("\ufeff")
    if "\r" in text and "\n" not in text:  # an old Mac export (pyarrow reads its lines as they are)
        text = text.replace("\r", "\n")
    if not text.strip():
        raise empty_error(path.name)
    d, q = sniff_text(text, delimiter=o.delimiter, quotechar=o.quotechar)
    first, _rest = header_record(text, d, q)
    if not first:
        raise empty_error(path.name)
    bom = len(codecs.BOM_UTF8) if head.startswith(codecs.BOM_UTF8) else 0
    if o.header:
        names = column_names(first, path.name)
        pos = _header_end(text, d, q)
        offset = bom + len(text[:pos].encode(_python_codec(enc)))
    else:
        names = [f"column_{i}" for i in range(1, len(first) + 1)]
        offset = bom
    if o.header and offset >= path.stat().st_size:
        raise header_only_error(path.name)
    return StreamedFile(
        path,
        "text",
        tuple(names),
        ReadOptions(delimiter=d, encoding=enc, quotechar=q, header=o.header),
        offset,
        quoted=q in text,
    )


def _python_codec(enc: str) -> str:
    return "utf-8" if enc in ("utf-8", "utf-8-sig") else enc


def _header_end(text: str, delimiter: str, quotechar: str) -> int:
    """Character offset just after the header record in ``text``."""
    _first, after = header_record(text, delimiter, quotechar)
    # header_record gives a UTF-8 byte offset; turn it back into characters
    return len(text.encode("utf-8")[:after].decode("utf-8", errors="ignore"))


def _inspect_parquet(path: Path) -> StreamedFile:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception:  # pyarrow raises several types for a damaged file
        raise DataError(
            _("{name} cannot be read as a Parquet file.", name=path.name),
            hint=_("Check that the file is complete, or export it again."),
            where=path.name,
        ) from None
    schema = pf.schema_arrow
    if len(schema) == 0:
        raise empty_error(path.name)
    if pf.metadata.num_rows == 0:
        raise header_only_error(path.name)
    names = column_names([str(n) for n in schema.names], path.name)
    dates: dict[str, bool] = {}
    for raw, name in zip(schema.names, names):
        if pa.types.is_timestamp(schema.field(raw).type):
            dates[name] = all(
                _all_midnight(b.column(0)) for b in pf.iter_batches(batch_size=BATCH_ROWS, columns=[raw])
            )
    return StreamedFile(
        path, "parquet", tuple(names), ReadOptions(header=True), dates=dates, rows=pf.metadata.num_rows
    )


def _all_midnight(col: pa.Array) -> bool:
    return pc.all(pc.equal(pc.cast(col, pa.date32()).cast(col.type), col)).as_py() is not False


def text_batches(
    f: StreamedFile, columns: list[str] | tuple[str, ...] | None = None, batch_rows: int = BATCH_ROWS
) -> Iterator[pa.RecordBatch]:
    """The file's rows as record batches of strings (missing = null), columns named as in ``f.names``
    (only ``columns``, in file order, when given)."""
    wanted = list(f.names) if columns is None else [c for c in f.names if c in set(columns)]
    if f.kind == "parquet":
        yield from _parquet_batches(f, wanted, batch_rows)
    else:
        yield from _text_batches(f, wanted, batch_rows)


def _parquet_batches(f: StreamedFile, wanted: list[str], batch_rows: int) -> Iterator[pa.RecordBatch]:
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(f.path)
    raw_of = dict(zip(f.names, pf.schema_arrow.names))
    raw = [raw_of[c] for c in wanted]
    for b in pf.iter_batches(batch_size=batch_rows, columns=raw):
        cols = [arrow_to_text(b.column(i), f.dates.get(c)) for i, c in enumerate(wanted)]
        yield pa.RecordBatch.from_arrays(cols, names=wanted)


def records_batches(
    f: StreamedFile, data: bytes, columns: list[str] | None = None, batch_rows: int = BATCH_ROWS
) -> Iterator[pa.RecordBatch]:
    """Batches of records of a text file held in ``data`` (whole records, no header): a piece of the file
    that a Dask worker reads, parsed exactly as :func:`text_batches` parses the file."""

    wanted = list(f.names) if columns is None else [c for c in f.names if c in set(columns)]
    yield from _text_batches(f, wanted, batch_rows, io.BytesIO(data))


def _text_batches(
    f: StreamedFile, wanted: list[str], batch_rows: int, stream: BinaryIO | None = None
) -> Iterator[pa.RecordBatch]:
    internal = [f"f{i}" for i in range(len(f.names))]
    keep = [internal[f.names.index(c)] for c in wanted]
    o = f.options
    parse = pacsv.ParseOptions(
        delimiter=o.delimiter,
        quote_char=o.quotechar,
        double_quote=True,
        newlines_in_values=f.quoted,
        ignore_empty_lines=True,
    )
    enc = "utf8" if o.encoding in ("utf-8", "utf-8-sig") else o.encoding
    read = pacsv.ReadOptions(column_names=internal, use_threads=True, block_size=1 << 22, encoding=enc)
    convert = pacsv.ConvertOptions(
        column_types={c: pa.string() for c in internal},
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
        null_values=[""],
        include_columns=keep,
    )
    fh = stream if stream is not None else open(f.path, "rb")  # noqa: SIM115 - closed in the finally
    try:
        if stream is None:
            fh.seek(f.body_offset)
        try:
            reader = pacsv.open_csv(fh, read_options=read, parse_options=parse, convert_options=convert)
        except pa.ArrowInvalid as err:
            raise _stream_error(f, str(err), 0) from None
        done = 0
        pending: list[pa.RecordBatch] = []
        size = 0
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                break
            except pa.ArrowInvalid as err:
                raise _stream_error(f, str(err), done + size) from None
            pending.append(batch)
            size += batch.num_rows
            if size >= batch_rows:
                out = _concat(pending, keep, wanted)
                done += out.num_rows
                pending, size = [], 0
                yield out
        if pending:
            yield _concat(pending, keep, wanted)
    finally:
        fh.close()


def _concat(batches: list[pa.RecordBatch], keep: list[str], wanted: list[str]) -> pa.RecordBatch:
    t = pa.Table.from_batches(batches).select(keep).rename_columns(wanted)
    return t.combine_chunks().to_batches()[0] if t.num_rows else pa.RecordBatch.from_pylist([], t.schema)


def _stream_error(f: StreamedFile, message: str, rows_before: int) -> DataError:
    """A plain sentence for a parse error met while streaming (the row is counted after the header)."""
    if "UTF8" in message or "utf8" in message.lower():
        return DataError(
            _(
                "{name} has text that is not valid {encoding} after record {record}.",
                name=f.path.name,
                encoding=f.options.encoding,
                record=rows_before,
            ),
            hint=_("Choose the file's encoding (often cp1252 for Windows exports)."),
            where=f.path.name,
        )
    return DataError(
        _(
            "{name} cannot be read past record {record}: {reason}",
            name=f.path.name,
            record=rows_before,
            reason=message.splitlines()[0],
        ),
        hint=_("Check that every row has as many fields as the header, and that quotes are closed."),
        where=f.path.name,
    )
