"""Write a release as CSV/TSV or Parquet from integer codes and label tables.

A release column is a list of codes into a small table of labels: a generalized quasi-identifier is a
categorical column already (:mod:`kanon_engine.release.build`), an untouched text column is dictionary-encoded
by pyarrow in one pass. Everything that looks at text happens once per distinct label, never per cell:
formula neutralization, CSV quoting. The rows are then assembled by pyarrow's compute kernels (a gather
per column and an element-wise join), a slice of rows at a time, and streamed into the one guarded atomic
writer (:func:`kanon_engine.release.fileio.atomic_writer`) while their SHA-256 is computed. A 900,000-row
release
is written in a fraction of a second, with memory for one slice.

The CSV is RFC 4180's: UTF-8 (optionally with a byte-order mark), fields quoted only when they hold the
delimiter, a quote, a line feed or a carriage return, quotes doubled, missing cells empty, lines ending in
CR LF (:data:`LINE_END`), as Excel on Windows writes and expects them (issue 27; kanon wrote ``\\n``
before, which Notepad and some import tools show as one line). Formula neutralization follows
:mod:`kanon_engine.release.export` (a leading apostrophe on a text cell a spreadsheet would run as a formula).
This module is also the writing half of a table source: anything that yields coded columns can be
written through it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from kanon_engine.errors import DataError
from kanon_engine.i18n import _
from kanon_engine.release.fileio import atomic_writer

#: First characters that make a spreadsheet cell a formula (or DDE payload).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: A plain negative decimal number, which spreadsheets read as a number (left as it is).
NEGATIVE_NUMBER = re.compile(r"^-(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
#: Rows assembled per slice (bounds the memory of the text being built).
SLICE_ROWS = 1 << 17
#: The end of every CSV line (RFC 4180, and what Excel on Windows expects).
LINE_END = "\r\n"

_TEXT = pa.large_string()


def is_formula_like(text: str) -> bool:
    """Whether a spreadsheet could run the cell ``text`` as a formula (plain negative numbers excepted)."""
    return bool(text) and text[0] in FORMULA_STARTS and NEGATIVE_NUMBER.fullmatch(text) is None


def is_formula_like_name(name: str) -> bool:
    """The same test for a column name, as kanon has always applied it to names (``re.match``, which
    also accepts a negative number followed by one line feed)."""
    return bool(name) and name[0] in FORMULA_STARTS and NEGATIVE_NUMBER.match(name) is None


@dataclass(frozen=True, eq=False)
class CodedColumn:
    """One column as codes into labels: ``labels[codes[i]]`` is row i's text, code -1 a missing cell.

    ``text`` says whether the column holds text (formula neutralization applies to text columns only, as
    it always has: numbers and dates are written as they are).
    """

    name: object
    codes: np.ndarray
    labels: pa.Array  # large_string, no nulls
    text: bool


def _is_text(dtype: object) -> bool:
    if isinstance(dtype, pd.CategoricalDtype):
        return _is_text(dtype.categories.dtype)
    return pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)


def _as_text(values: np.ndarray | pd.Index) -> pa.Array:
    """Distinct values as the text a CSV shows (``str`` of each, as pandas' ``astype(str)`` gives)."""
    text = pd.Series(np.asarray(values, dtype=object), dtype=object).astype(str)
    return pa.array(np.asarray(text, dtype=object), _TEXT)


def coded_column(name: object, column: pd.Series) -> CodedColumn:
    """The codes and labels of a release column: a categorical as it is, a pyarrow text column through
    pyarrow's dictionary encoding, anything else through pandas' factorize."""
    text = _is_text(column.dtype)
    if isinstance(column.dtype, pd.CategoricalDtype):
        cat = column.array
        return CodedColumn(name, np.asarray(cat.codes), _as_text(cat.categories), text)
    arrow = getattr(column.array, "_pa_array", None)
    if arrow is not None and isinstance(column.dtype, pd.StringDtype):
        encoded = pc.dictionary_encode(arrow).combine_chunks()
        codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
        return CodedColumn(name, codes, encoded.dictionary.cast(_TEXT), text)
    codes, uniques = pd.factorize(column, sort=False, use_na_sentinel=True)
    return CodedColumn(name, np.asarray(codes), _as_text(uniques), text)


def coded_columns(frame: pd.DataFrame) -> list[CodedColumn]:
    return [coded_column(c, frame.iloc[:, i]) for i, c in enumerate(frame.columns)]


def _scalar(text: str) -> pa.Scalar:
    return pa.scalar(text, _TEXT)


def neutralize_labels(labels: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Labels with a leading apostrophe where a spreadsheet would run them, and which were changed.

    Labels starting with a formula character are found by pyarrow; only those are tested in Python
    (the exception for negative numbers), so a large label table costs a vectorized pass.
    """
    first = pc.utf8_slice_codeunits(labels, 0, 1)
    starts = pc.is_in(first, value_set=pa.array(FORMULA_STARTS, _TEXT))
    candidates = np.flatnonzero(starts.to_numpy(zero_copy_only=False))
    risky = np.zeros(len(labels), dtype=bool)
    if len(candidates):
        values = labels.take(pa.array(candidates)).to_pylist()
        risky[candidates] = [is_formula_like(v) for v in values]
    if not risky.any():
        return labels, risky
    prefixed = pc.binary_join_element_wise(_scalar("'"), labels, _scalar(""))
    return pc.if_else(pa.array(risky), prefixed, labels), risky


def neutralize_header(name: object) -> object:
    """A column name as the release shows it (text names only, as always)."""
    return "'" + name if isinstance(name, str) and is_formula_like_name(name) else name


def check_delimiter(delimiter: str) -> None:
    if len(delimiter) != 1 or delimiter in '"\r\n':
        raise DataError(
            _(
                "The delimiter must be one character other than a quote or a line break; got {delimiter}.",
                delimiter=repr(delimiter),
            ),
            hint=_("Use ',', ';', a tab or '|'."),
            where="delimiter",
        )


def quote_labels(labels: pa.Array, delimiter: str) -> pa.Array:
    """CSV fields: quoted (quotes doubled) only when they hold the delimiter, a quote or a line break."""
    need = None
    for special in (delimiter, '"', "\n", "\r"):
        hit = pc.match_substring(labels, special)
        need = hit if need is None else pc.or_(need, hit)
    if need is None or not pc.any(need).as_py():
        return labels
    doubled = pc.replace_substring(labels, '"', '""')
    quoted = pc.binary_join_element_wise(_scalar('"'), doubled, _scalar('"'), _scalar(""))
    return pc.if_else(need, quoted, labels)


def quote(text: str, delimiter: str) -> str:
    """One CSV field (the rule of :func:`quote_labels`)."""
    if delimiter in text or '"' in text or "\n" in text or "\r" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


@dataclass(frozen=True)
class WrittenRelease:
    """What a writer wrote: the header as written, rows, SHA-256 of the file, cells neutralized."""

    columns: tuple[str, ...]
    rows: int
    sha256: str
    neutralized_cells: int


class _CsvColumn:
    """A coded column ready for the CSV: its field text per code (the last code: a missing cell)."""

    def __init__(self, col: CodedColumn, delimiter: str, neutralize: bool, line_end: str) -> None:
        labels, self.changed = col.labels, 0
        if neutralize and col.text:
            labels, risky = neutralize_labels(labels)
            if risky.any():
                present = col.codes[col.codes >= 0]
                self.changed = int(np.bincount(present, minlength=len(labels))[risky].sum())
        fields = quote_labels(labels, delimiter)
        fields = pa.concat_arrays([fields, pa.array([""], _TEXT)])
        if line_end:
            fields = pc.binary_join_element_wise(fields, _scalar(line_end), _scalar(""))
        self.fields = fields
        self.codes = np.where(col.codes < 0, len(labels), col.codes).astype(np.int64, copy=False)

    def slice(self, start: int, stop: int) -> pa.Array:
        return self.fields.take(pa.array(self.codes[start:stop]))


def _buffer(lines: pa.Array) -> memoryview:
    """The bytes of a string array's values, without copying."""
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[lines.offset : lines.offset + len(lines) + 1]
    return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]


def csv_chunks(
    frame: pd.DataFrame, delimiter: str = ",", neutralize: bool = True, bom: bool = False
) -> tuple[WrittenRelease, Iterable[bytes | memoryview]]:
    """The release as CSV: what will be written, and the bytes, a slice of rows at a time."""
    check_delimiter(delimiter)
    coded = coded_columns(frame)
    names = [str(neutralize_header(c.name) if neutralize else c.name) for c in coded]
    header = delimiter.join(quote(n, delimiter) for n in names) + LINE_END
    last = len(coded) - 1
    columns = [
        _CsvColumn(c, delimiter, neutralize, LINE_END if i == last else "") for i, c in enumerate(coded)
    ]
    n = len(frame)
    sep = pa.scalar(delimiter, _TEXT)

    def chunks() -> Iterator[bytes | memoryview]:
        yield (("\ufeff" if bom else "") + header).encode("utf-8")
        if not columns:
            yield b""
            return
        for start in range(0, n, SLICE_ROWS):
            stop = min(start + SLICE_ROWS, n)
            parts = [c.slice(start, stop) for c in columns]
            lines = parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, sep)
            yield _buffer(lines)

    info = WrittenRelease(tuple(names), n, "", sum(c.changed for c in columns))
    return info, chunks()


def write_csv(
    path: str | Path, frame: pd.DataFrame, delimiter: str = ",", bom: bool = False, neutralize: bool = True
) -> WrittenRelease:
    """Write ``frame`` as CSV to ``path`` through the atomic writer; the SHA-256 is computed on the way."""
    info, chunks = csv_chunks(frame, delimiter, neutralize, bom)
    digest = hashlib.sha256()
    with atomic_writer(path, "wb") as fh:
        for chunk in chunks:
            digest.update(chunk)
            fh.write(chunk)
    return WrittenRelease(info.columns, info.rows, digest.hexdigest(), info.neutralized_cells)


def csv_bytes(
    frame: pd.DataFrame, delimiter: str = ",", bom: bool = False, neutralize: bool = False
) -> bytes:
    """The CSV of ``frame`` in memory (small tables: value mappings, tests)."""
    _changed, chunks = csv_chunks(frame, delimiter, neutralize, bom)
    return b"".join(bytes(c) for c in chunks)


def arrow_table(frame: pd.DataFrame) -> pa.Table:
    """The release as an Arrow table of text columns built from the same codes and labels (missing cells
    null), for Parquet."""
    arrays = []
    for col in coded_columns(frame):
        codes = pa.array(col.codes.astype(np.int64), mask=col.codes < 0)
        arrays.append(col.labels.cast(pa.string()).take(codes))
    return pa.table(arrays, names=[str(c) for c in frame.columns]) if arrays else pa.table({})


def write_parquet(path: str | Path, frame: pd.DataFrame) -> WrittenRelease:
    """Write ``frame`` as Parquet to ``path`` through the atomic writer."""
    import pyarrow.parquet as pq

    table = arrow_table(frame)
    with atomic_writer(path, "wb") as fh:
        pq.write_table(table, fh)
    return WrittenRelease(tuple(str(c) for c in frame.columns), len(frame), sha256_file(path), 0)


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def neutralized_frame(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """A copy of ``frame`` with formula-like text cells and column names prefixed by ``'`` (for writers
    that take cell values, such as XLSX), and how many cells changed; once per distinct label."""
    columns = []
    changed = 0
    for i, col in enumerate(coded_columns(frame)):
        original = frame.iloc[:, i]
        labels, risky = neutralize_labels(col.labels) if col.text else (col.labels, np.zeros(0, bool))
        if not risky.any():
            columns.append(original)
            continue
        changed += int(np.bincount(col.codes[col.codes >= 0], minlength=len(labels))[risky].sum())
        text = np.append(np.asarray(labels.to_pylist(), dtype=object), np.array([None], dtype=object))
        values = text[np.where(col.codes < 0, len(labels), col.codes)]
        columns.append(pd.Series(values, index=frame.index, dtype=object))
    out = pd.concat(columns, axis=1) if columns else frame.copy()
    out.columns = [neutralize_header(c) for c in frame.columns]
    return out, changed
