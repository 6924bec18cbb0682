"""Read a table from CSV/TSV (any common delimiter and encoding), Excel ``.xlsx`` or Parquet.

Every cell is kept as the original string so a column the release leaves alone is written back exactly as
it came in; only an empty cell becomes missing (``NaN``). Strings such as ``NA`` or ``null`` stay strings:
they may be real values, and turning them into missing would change the exported bytes.

Delimited text is parsed by pyarrow's multi-threaded CSV reader (all columns typed as strings, so no
inference cost). When it meets a row with the wrong number of fields, the file is scanned once more with
Python's ``csv`` module only to find the line number for the message: that cost is paid on errors only.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import hashlib
import io
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from kanon_engine.data.sniff import (
    SAMPLE_BYTES,
    better_delimiter,
    decoded_sample,
    describe_delimiter,
    describe_encoding,
    detect_encoding,
    normalize_encoding,
    sniff_text,
)
from kanon_engine.data.table import ReadOptions, Table
from kanon_engine.data.types import detect_types
from kanon_engine.errors import DataError
from kanon_engine.i18n import Nn_, _, ngettext, plural_of
from kanon_engine.release.fileio import reading

_XLSX_MAGIC = b"PK\x03\x04"
_XLS_MAGIC = b"\xd0\xcf\x11\xe0"
_PARQUET_MAGIC = b"PAR1"


# --------------------------------------------------------------------------------------------- public API
def read_table(path: str | Path, options: ReadOptions | None = None) -> Table:
    """Load a CSV/TSV, ``.xlsx`` or Parquet file as a :class:`Table` of original strings.

    The format is recognised from the file's first bytes (zip = xlsx, ``PAR1`` = Parquet, else text).
    ``options`` says how to read it (a project's saved :class:`ReadOptions`, the import dialog's, the
    CLI's ``--delimiter``); every field left None is detected, and the values used are in
    ``Table.options``. ``sheet`` (xlsx only) is a sheet name or a 0-based index; default the first sheet.

    Column names: a blank name becomes ``column_<position>`` (1-based); two columns with the same name are
    refused with a DataError, since the release must name each column unambiguously.
    """
    o = options or ReadOptions()
    path = Path(path)
    data = _read_bytes(path)
    sha = hashlib.sha256(data).hexdigest()
    kind = format_of(path, data)
    if kind == "xlsx":
        frame, opts = _read_xlsx(data, path.name, sheet=o.sheet, header=o.header)
    elif kind == "parquet":
        frame, opts = _read_parquet(data, path.name), ReadOptions(header=True)
    else:
        frame, opts = _read_delimited(data, path.name, o, complete=True)
    return Table(frame, source=path, sha256=sha, options=opts, column_types=detect_types(frame))


def preview_table(path: str | Path, options: ReadOptions | None = None, n_rows: int = 200) -> Table:
    """The first ``n_rows`` rows, read fast for the import dialog (only the start of the file is read).

    ``options`` fields left None are detected. ``sha256`` is None: the preview is not the loaded file.
    Errors are the same as :func:`read_table`'s for the rows read, so the dialog can show them live.
    """
    path = Path(path)
    opts = options or ReadOptions()
    head, complete = read_head(path, n_rows + 1)
    kind = format_of(path, head)
    if kind in ("xlsx", "parquet"):
        data = _read_bytes(path)
        if kind == "xlsx":
            frame, used = _read_xlsx(data, path.name, sheet=opts.sheet, header=opts.header, max_rows=n_rows)
        else:
            frame, used = _read_parquet(data, path.name, max_rows=n_rows), ReadOptions(header=True)
    else:
        frame, used = _read_delimited(head, path.name, opts, complete=complete, max_rows=n_rows)
    frame = frame.iloc[:n_rows].reset_index(drop=True)
    return Table(frame, source=path, sha256=None, options=used, column_types=detect_types(frame))


def list_sheets(path: str | Path) -> list[str]:
    """Names of the sheets of an ``.xlsx`` workbook, in workbook order."""
    import openpyxl

    path = Path(path)
    data = _read_bytes(path)
    if format_of(path, data) != "xlsx":
        raise DataError(
            _("{file} is not an Excel .xlsx workbook, so it has no sheets.", file=path.name),
            hint=_("Sheets exist only in .xlsx files."),
            where=path.name,
        )
    wb = _open_workbook(openpyxl, data, path.name)
    try:
        return list(wb.sheetnames)
    finally:
        wb.close()


# ------------------------------------------------------------------------------------------- file access
def _read_bytes(path: Path) -> bytes:
    with reading(path) as fh:
        return fh.read()


def read_head(path: Path, n_lines: int) -> tuple[bytes, bool]:
    """The start of a file holding at least ``n_lines`` newlines (or the whole file); True if complete."""
    with reading(path) as fh:
        buf = bytearray()
        size = SAMPLE_BYTES
        while True:
            chunk = fh.read(size)
            if not chunk:
                return bytes(buf), True
            buf += chunk
            if buf.count(b"\n") > n_lines or len(buf) > (64 << 20):
                return bytes(buf), False
            size *= 2


def format_of(path: Path, data: bytes) -> str:
    """The format of a data file from its first bytes (Parquet, XLSX; an old .xls is refused), else text."""
    head = data[:8]
    if head.startswith(_PARQUET_MAGIC):
        return "parquet"
    if head.startswith(_XLSX_MAGIC):
        return "xlsx"
    if head.startswith(_XLS_MAGIC) or path.suffix.lower() == ".xls":
        raise DataError(
            _("{file} is in the old Excel .xls format, which cannot be read.", file=path.name),
            hint=_("Open it in Excel or LibreOffice and save it as .xlsx or .csv."),
            where=path.name,
        )
    return "text"


# ----------------------------------------------------------------------------------------------- columns
def column_names(raw: list[str], name: str) -> list[str]:
    """Blank names become ``column_<i>``; a repeated name is refused (which columns, what to do)."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for i, n in enumerate(raw, start=1):
        n = "" if n is None else str(n)
        if n.strip() == "":
            n = f"column_{i}"
            while n in raw:
                n += "_"
        if n in seen:
            raise DataError(
                _(
                    "The header of {file} has the column name '{column}' twice "
                    "(columns {first} and {second}).",
                    file=name,
                    column=n,
                    first=str(seen[n]),
                    second=str(i),
                ),
                hint=_("Give each column its own name in the file, then load it again."),
                where=n,
            )
        seen[n] = i
        names.append(n)
    return names


def empty_error(name: str) -> DataError:
    """The one sentence for a data file with nothing in it (the loader and the batch reader say it)."""
    return DataError(
        _("{file} is empty.", file=name),
        hint=_("Choose a file that holds a header row and data rows."),
        where=name,
    )


def header_only_error(name: str) -> DataError:
    """The one sentence for a data file with a header and no rows."""
    return DataError(
        _("{file} has a header but no rows.", file=name),
        hint=_("Choose a file that holds data rows below the header."),
        where=name,
    )


# --------------------------------------------------------------------------------------------- delimited
def _to_utf8(data: bytes, encoding: str, name: str, complete: bool, validated: bool = False) -> bytes:
    """UTF-8 bytes without BOM (no copy for UTF-8 input without BOM); a plain DataError when undecodable.

    ``validated``: the encoding was detected, so UTF-8 input is known to be valid. For an incomplete head
    (preview), a character cut at the end is dropped instead of refused.
    """
    if encoding in ("utf-8", "utf-8-sig"):
        raw = data[3:] if data.startswith(codecs.BOM_UTF8) else data
        if validated or raw.isascii():
            return raw
        try:
            codecs.decode(raw, "utf-8")
        except UnicodeDecodeError as err:
            if complete or err.start < len(raw) - 3:
                raise _decode_error(raw, err, "utf-8", name) from None
            raw = raw[: err.start]
        return raw
    try:
        text = codecs.decode(data, encoding, errors="strict" if complete else "ignore")
    except UnicodeDecodeError as err:
        raise _decode_error(data, err, encoding, name) from None
    return text.removeprefix("\ufeff").encode("utf-8")


def _decode_error(data: bytes, err: UnicodeDecodeError, encoding: str, name: str) -> DataError:
    line = data.count(b"\n", 0, err.start) + 1
    other = (
        _("{one} or {other}", one=describe_encoding("cp1252"), other=describe_encoding("latin-1"))
        if encoding.startswith("utf")
        else describe_encoding("utf-8")
    )
    return DataError(
        _(
            "Line {line} of {file} cannot be read as {encoding} text.",
            line=str(line),
            file=name,
            encoding=describe_encoding(encoding),
        ),
        hint=_("Choose the file's encoding (often {other}), or leave it empty to detect it.", other=other),
        where=_("{file}, line {line}", file=name, line=str(line)),
    )


def _is_blank(buf: bytes) -> bool:
    return not buf[:65536].strip() and not buf.strip()


def header_record(text: str, delimiter: str, quotechar: str) -> tuple[list[str], int]:
    """The first non-blank record of a sample, and the byte offset (in UTF-8) just after it."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, quotechar=quotechar, strict=False)
    try:
        for rec in reader:
            if rec:
                pos = 0
                for _line in range(reader.line_num):
                    nxt = text.find("\n", pos)
                    if nxt < 0:
                        return rec, len(text.encode("utf-8"))
                    pos = nxt + 1
                return rec, len(text[:pos].encode("utf-8"))
    except csv.Error:
        pass
    return [], 0


def _sample(utf8: bytes, complete: bool) -> str:
    """A text sample of whole lines; grown when the first line alone is longer than the usual sample."""
    size = SAMPLE_BYTES
    while True:
        text = decoded_sample(utf8, "utf-8", complete=complete, max_bytes=size)
        if text.count("\n") >= 2 or size >= len(utf8):
            return text
        size *= 4


def _read_delimited(
    data: bytes, name: str, options: ReadOptions, *, complete: bool, max_rows: int | None = None
) -> tuple[pd.DataFrame, ReadOptions]:
    encoding, header = options.encoding, options.header
    enc = normalize_encoding(encoding, name) if encoding else detect_encoding(data, partial=not complete)
    utf8 = _to_utf8(data, enc, name, complete, validated=encoding is None and complete)
    if b"\r" in utf8 and b"\n" not in utf8:  # an old Mac export: lines end with a carriage return only
        utf8 = utf8.replace(b"\r", b"\n")
    if not complete:  # a preview parses whole lines only
        utf8 = utf8[: utf8.rfind(b"\n") + 1]
    _check_text(utf8, name)
    if _is_blank(utf8):
        raise empty_error(name)
    sample = _sample(utf8, complete)
    d, q = sniff_text(sample, delimiter=options.delimiter, quotechar=options.quotechar)
    opts = ReadOptions(delimiter=d, encoding=enc, quotechar=q, header=header)

    first, after_header = header_record(sample, d, q)
    if not first:
        raise empty_error(name)
    if len(first) == 1:
        _check_single_column(sample, d, q, name)
    names = column_names(first, name) if header else [f"column_{i}" for i in range(1, len(first) + 1)]
    start = after_header if header else 0
    if header and _is_blank(utf8[start:]):
        raise header_only_error(name)
    frame = _parse_body(utf8, start, names, d, q, name, header=header, max_rows=max_rows)
    if header and len(frame) == 0:
        raise header_only_error(name)
    return frame, opts


#: Bytes below 32 that text tables hold: tab, line feed, carriage return (and form feed, rarely).
_TEXT_CONTROLS = b"\t\n\r\x0c"
_CONTROLS = bytes(b for b in range(32) if b not in _TEXT_CONTROLS)


def _check_text(utf8: bytes, name: str) -> None:
    """Refuse binary content with the line it starts on: a file whose start is mostly control bytes is not
    a text table (a database, an image, a compressed file); a NUL byte in a text file means damage or a
    UTF-16 file read as 8-bit text. Either would otherwise be misread or reported as "empty"."""
    head = utf8[:65536]
    odd = len(head) - len(head.translate(None, _CONTROLS))
    if len(head) >= 256 and odd > 0.05 * len(head):
        pos = next(i for i, b in enumerate(head) if b in _CONTROLS)
        line = head.count(b"\n", 0, pos) + 1
        raise DataError(
            _(
                "{file} does not look like a text table: from line {line} it holds bytes that text never has "
                "(such as 0x{byte}).",
                file=name,
                line=str(line),
                byte=f"{head[pos]:02X}",
            ),
            hint=_(
                "Is it a database, an image or a compressed file? Export the table as CSV or .xlsx and "
                "open that."
            ),
            where=_("{file}, line {line}", file=name, line=str(line)),
        )
    pos = utf8.find(b"\x00")
    if pos >= 0:
        line = utf8.count(b"\n", 0, pos) + 1
        raise DataError(
            _(
                "Line {line} of {name} holds a NUL byte (0x00), which text tables never hold: the file is "
                "damaged, or saved as UTF-16 and read as 8-bit text.",
                line=str(line),
                name=name,
            ),
            hint=_(
                "Choose the encoding UTF-16, or open the file in a spreadsheet and save it again as CSV "
                "(UTF-8)."
            ),
            where=_("{file}, line {line}", file=name, line=str(line)),
        )


def _check_single_column(sample: str, delimiter: str, quotechar: str, name: str) -> None:
    """Refuse a one-column reading when another delimiter splits the file into consistent columns."""
    other = better_delimiter(sample, delimiter, quotechar)
    if other is not None:
        raise DataError(
            _(
                "With the delimiter {delimiter} every line of {file} is a single column, "
                "but {other} splits it into {n} columns.",
                delimiter=describe_delimiter(delimiter),
                file=name,
                other=describe_delimiter(other.delimiter),
                n=other.fields,
            ),
            hint=_("Choose {delimiter} as the delimiter.", delimiter=describe_delimiter(other.delimiter)),
            where=name,
        )


def _parse_body(
    utf8: bytes,
    start: int,
    names: list[str],
    delimiter: str,
    quotechar: str,
    name: str,
    *,
    header: bool,
    max_rows: int | None,
) -> pd.DataFrame:
    """Parse the records after the header with pyarrow, every column as strings, empty -> missing."""
    internal = [f"f{i}" for i in range(len(names))]
    body = memoryview(utf8)[start:]
    quoted = utf8.find(quotechar.encode("utf-8"), start) >= 0
    parse = pacsv.ParseOptions(
        delimiter=delimiter,
        quote_char=quotechar,
        double_quote=True,
        newlines_in_values=quoted,
        ignore_empty_lines=True,
    )
    read = pacsv.ReadOptions(column_names=internal, use_threads=True, block_size=1 << 22)
    convert = pacsv.ConvertOptions(  # large strings: pandas holds its text so (no copy of every column)
        column_types={c: pa.large_string() for c in internal},
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
        null_values=[""],
    )
    try:
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(body)),
            read_options=read,
            parse_options=parse,
            convert_options=convert,
        )
    except pa.ArrowInvalid as err:
        raise _parse_error(str(err), utf8, names, delimiter, quotechar, name, header) from None
    if max_rows is not None:
        table = table.slice(0, max_rows)
    frame = table.rename_columns(names).to_pandas()
    return frame


#: A line with another number of fields than the header (True) or the first line (no header, False).
_FIELDS_AGAINST = {
    True: Nn_(
        "Line {line} of {file} has {n} field; the header has {expected}.",
        "Line {line} of {file} has {n} fields; the header has {expected}.",
    ),
    False: Nn_(
        "Line {line} of {file} has {n} field; the first line has {expected}.",
        "Line {line} of {file} has {n} fields; the first line has {expected}.",
    ),
}


def _parse_error(
    msg: str, utf8: bytes, names: list[str], delimiter: str, quotechar: str, name: str, header: bool
) -> DataError:
    """Turn pyarrow's message into one naming the 1-based line of the file (found by a second scan)."""
    if "Expected" in msg and "columns" in msg:
        found = _first_ragged_line(utf8, len(names), delimiter, quotechar, skip_first=header)
        sample = decoded_sample(utf8, "utf-8", complete=True)
        other = better_delimiter(sample, delimiter, quotechar)
        if other and other.fields != len(names):
            hint = _(
                "The file seems to be separated by {delimiter}: choose it as the delimiter.",
                delimiter=describe_delimiter(other.delimiter),
            )
        else:
            hint = _(
                "A value probably contains the delimiter {delimiter} without quotes, or a field is missing: "
                "fix that line (or quote the value), then load the file again.",
                delimiter=describe_delimiter(delimiter),
            )
        if found:
            line, n = found
            text = plural_of(_FIELDS_AGAINST[header], n, line=str(line), file=name, expected=len(names))
            return DataError(text, hint=hint, where=_("{file}, line {line}", file=name, line=str(line)))
        cut = _bare_carriage_return(utf8, names, delimiter)
        if cut is not None:
            line, column = cut
            return DataError(
                _(
                    "Line {line} of {file} has a line break (a carriage return) inside the value of "
                    "'{column}', which is not in quotes, so the record is cut in two there.",
                    line=str(line),
                    file=name,
                    column=column,
                ),
                hint=_(
                    "Remove the line break from that cell (or put the value in quotes), then load the "
                    "file again."
                ),
                where=_("{file}, line {line}", file=name, line=str(line)),
            )
        if header:
            text = _("A line of {file} does not have the {n} fields the header has.", file=name, n=len(names))
        else:
            text = _(
                "A line of {file} does not have the {n} fields the first line has.", file=name, n=len(names)
            )
        return DataError(text, hint=hint, where=name)
    reason = msg.split(":", 1)[0] if ":" in msg else msg  # never echo row contents
    return DataError(
        _("{file} cannot be read as delimited text ({reason}).", file=name, reason=reason),
        hint=_("Check the delimiter and quote character, or save the file again as CSV."),
        where=name,
    )


def _bare_carriage_return(utf8: bytes, names: list[str], delimiter: str) -> tuple[int, str] | None:
    """(line number, column name) of the first carriage return that does not end a line, in a file
    whose lines end with a line feed: a line break typed inside a spreadsheet cell (error path only)."""
    if b"\n" not in utf8:
        return None
    pos = 0
    while True:
        pos = utf8.find(b"\r", pos)
        if pos < 0:
            return None
        if utf8[pos + 1 : pos + 2] != b"\n":
            break
        pos += 1
    line_start = utf8.rfind(b"\n", 0, pos) + 1
    field = utf8[line_start:pos].count(delimiter.encode("utf-8"))
    column = names[field] if field < len(names) else f"column_{field + 1}"
    return utf8.count(b"\n", 0, pos) + 1, column


def _first_ragged_line(
    utf8: bytes, expected: int, delimiter: str, quotechar: str, skip_first: bool
) -> tuple[int, int] | None:
    """(line number, field count) of the first record whose field count differs; error path only."""
    text = codecs.decode(utf8, "utf-8")
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, quotechar=quotechar, strict=False)
    start = 1
    first = True
    try:
        for rec in reader:
            if rec:
                if first and skip_first:
                    first = False
                elif len(rec) != expected:
                    return start, len(rec)
            start = reader.line_num + 1
    except csv.Error:
        return None
    return None


# -------------------------------------------------------------------------------------------------- xlsx
def _open_workbook(openpyxl: Any, data: bytes, name: str) -> Any:
    try:
        return openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:  # openpyxl raises many types for a damaged file  # noqa: BLE001
        raise DataError(
            _(
                "{file} is a zip archive but not an Excel workbook it can read: it holds no workbook, or a "
                "damaged one.",
                file=name,
            ),
            hint=_(
                "If it is a workbook, open it in Excel or LibreOffice and save it again as .xlsx; if it is "
                "an archive, unzip it and open the table inside."
            ),
            where=name,
        ) from None


def _cell_text(v: object) -> str | None:
    """How a typed Excel cell is kept as text: integral numbers without ``.0``, dates as ISO 8601."""
    if v is None:
        return None
    if isinstance(v, str):
        return v if v != "" else None
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        if math.isnan(v):
            return None
        return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)
    if isinstance(v, dt.datetime):
        return v.strftime("%Y-%m-%d") if v.time() == dt.time(0) else v.isoformat(sep=" ")
    if isinstance(v, (dt.date, dt.time)):
        return v.isoformat()
    return str(v)


def _read_xlsx(
    data: bytes, name: str, *, sheet: str | int | None, header: bool, max_rows: int | None = None
) -> tuple[pd.DataFrame, ReadOptions]:
    """Read one sheet; cells are converted one by one (openpyxl reads cell by cell anyway)."""
    import openpyxl

    wb = _open_workbook(openpyxl, data, name)
    try:
        sheets = list(wb.sheetnames)
        if sheet is None:
            title = sheets[0]
        elif isinstance(sheet, int) and not isinstance(sheet, bool):
            if not 0 <= sheet < len(sheets):
                raise DataError(
                    ngettext(
                        "{file} has {n} sheet; there is no sheet number {number}.",
                        "{file} has {n} sheets; there is no sheet number {number}.",
                        len(sheets),
                        file=name,
                        number=sheet + 1,
                    ),
                    hint=_("Its sheets are: {sheets}.", sheets=", ".join(sheets)),
                    where=name,
                )
            title = sheets[sheet]
        elif str(sheet) in sheets:
            title = str(sheet)
        else:
            raise DataError(
                _("{file} has no sheet named '{sheet}'.", file=name, sheet=sheet),
                hint=_("Its sheets are: {sheets}.", sheets=", ".join(sheets)),
                where=str(sheet),
            )
        limit = None if max_rows is None else max_rows + (1 if header else 0)
        rows = [[_cell_text(v) for v in row] for row in wb[title].iter_rows(values_only=True, max_row=limit)]
    finally:
        wb.close()
    where = _("Sheet '{sheet}' of {file}", sheet=title, file=name)
    rows = [r for r in rows if any(v is not None for v in r)]
    if not rows:
        raise empty_error(where)
    width = max(len(r) for r in rows)
    rows = [r + [None] * (width - len(r)) for r in rows]
    first, body = (rows[0], rows[1:]) if header else ([None] * width, rows)
    keep = [j for j in range(width) if first[j] is not None or any(r[j] is not None for r in body)]
    first = [first[j] for j in keep]
    body = [[r[j] for j in keep] for r in body]
    if header and not body:
        raise header_only_error(where)
    names = (
        column_names([v or "" for v in first], name)
        if header
        else [f"column_{i}" for i in range(1, len(keep) + 1)]
    )
    frame = (
        pd.DataFrame(body, columns=names, dtype="str") if body else pd.DataFrame(columns=names, dtype="str")
    )
    return frame, ReadOptions(header=header, sheet=title)


# ----------------------------------------------------------------------------------------------- parquet
def arrow_to_text(col: pa.ChunkedArray | pa.Array, midnight: bool | None = None) -> pa.ChunkedArray:
    """A Parquet column as strings (pyarrow casts, vectorized); empty strings become missing.

    A timestamp column is written as dates when every value is at midnight; ``midnight`` gives that
    answer for the whole column when ``col`` is only part of it (a streamed batch).
    """

    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = col.type
    if pa.types.is_timestamp(t):
        if midnight is None:
            midnight = pc.all(pc.equal(pc.cast(col, pa.date32()).cast(t), col)).as_py() is not False
        col = pc.cast(col, pa.date32()) if midnight else pc.strftime(col, format="%Y-%m-%d %H:%M:%S")
    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        try:
            col = pc.cast(col, pa.string())
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
            text = pa.array([None if v is None else str(v) for v in col.to_pylist()], pa.string())
            col = pa.chunked_array([text]) if isinstance(col, pa.ChunkedArray) else text
    return pc.if_else(pc.equal(col, ""), pa.scalar(None, col.type), col)


def _read_parquet(data: bytes, name: str, max_rows: int | None = None) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
        table = (
            pa.Table.from_batches([next(pf.iter_batches(batch_size=max_rows))], schema=pf.schema_arrow)
            if max_rows is not None and pf.metadata.num_rows > 0
            else pf.read()
        )
    except Exception:  # pyarrow raises several types for a damaged file  # noqa: BLE001
        raise DataError(
            _(
                "{file} starts as a Parquet file but cannot be read as one: it is damaged or cut short.",
                file=name,
            ),
            hint=_("Check that the file is complete, or export it again."),
            where=name,
        ) from None
    if table.num_columns == 0:
        raise empty_error(name)
    if table.num_rows == 0:
        raise header_only_error(name)
    names = column_names([str(c) for c in table.column_names], name)
    cols = [arrow_to_text(table.column(i)) for i in range(table.num_columns)]
    return pa.table(cols, names=names).to_pandas()
