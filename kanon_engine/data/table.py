"""The loaded table: the user's data exactly as read, plus what the import learned about it.

Every column is held as text (pandas ``object``/``str``): the strings of the input are kept so that a
column the release does not touch is exported byte-for-byte as it came in. Missing cells are ``NaN``
(``pd.isna``). Typed views (numbers, dates) are derived on demand from ``column_types``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from kanon_engine.data.codes import code_column
from kanon_engine.data.types import (
    PLAIN,
    ColumnKind,
    ColumnType,
    detect_types,
    number_misfits,
    numbers_refused,
    parse_numbers,
)
from kanon_engine.errors import DataError
from kanon_engine.i18n import _, formats


@dataclass(frozen=True)
class ReadOptions:
    """How to read a file, and how it was read (kept in the project file so it reads the same way next
    time). A field left None is detected when reading; the table's own options hold what was used."""

    delimiter: str | None = None
    encoding: str | None = None
    quotechar: str | None = None
    header: bool = True
    sheet: str | int | None = None


class TableLike(Protocol):
    """What every table the engine reads offers, loaded whole (:class:`Table`) or read by an engine
    without loading it (a table source, :class:`kanon_engine.sources.backends.base.TableSource`): the
    functions that take either name this (a run's configuration, its checks, the release's export)."""

    @property
    def source(self) -> Path | None: ...

    @property
    def sha256(self) -> str | None: ...

    @property
    def columns(self) -> list[str]: ...

    @property
    def n_rows(self) -> int: ...

    @property
    def column_types(self) -> dict[str, ColumnType]: ...

    def name(self) -> str: ...

    def require_columns(self, names: list[str] | tuple[str, ...], what: str = ...) -> None: ...

    def kind(self, name: str) -> ColumnKind: ...


@dataclass(frozen=True, eq=False)
class Table:
    """A loaded table. ``frame`` holds the original strings; never modified after loading."""

    frame: pd.DataFrame
    source: Path | None = None
    sha256: str | None = None
    options: ReadOptions = field(default_factory=ReadOptions)
    column_types: dict[str, ColumnType] = field(default_factory=dict)

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self.frame.columns]

    @property
    def n_rows(self) -> int:
        return int(len(self.frame))

    def name(self) -> str:
        return self.source.name if self.source else "table"

    def column(self, name: str) -> pd.Series:
        """The column's original strings; a clear error naming the column if it does not exist."""
        self.require_columns([name])
        return self.frame[name]

    def require_columns(self, names: list[str] | tuple[str, ...], what: str | None = None) -> None:
        """Raise a DataError naming the first unknown column and listing the known ones."""
        known = set(self.columns)
        for n in names:
            if n not in known:
                cols = ", ".join(self.columns[:20])
                raise DataError(
                    _(
                        "The {what} '{column}' is not in {file}.",
                        what=what or _("column"),
                        column=n,
                        file=self.name(),
                    ),
                    hint=_("Its columns are: {columns}.", columns=cols),
                    where=n,
                )

    def kind(self, name: str) -> ColumnKind:
        t = self.column_types.get(name)
        return t.kind if t else ColumnKind.CATEGORICAL

    def numeric(self, name: str) -> np.ndarray:
        """The column as float64 (NaN where missing or not a number), read as the column writes its
        numbers (a decimal comma, thousands separators: :func:`kanon_engine.data.types.parse_numbers`)."""
        t = self.column_types.get(name)
        return parse_numbers(self.column(name), t.number_format if t is not None else None)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: Path | None = None, **kw: Any) -> Table:
        """Wrap a DataFrame (converted to strings, missing kept missing), detecting column types."""
        text = frame.copy()
        for c in text.columns:
            col = text[c]
            if not (pd.api.types.is_object_dtype(col) or pd.api.types.is_string_dtype(col)):
                text[c] = (
                    col.astype(object).where(col.notna(), None).map(lambda v: v if v is None else str(v))
                )
        text.columns = [str(c) for c in text.columns]
        types = kw.pop("column_types", None) or detect_types(text)
        return cls(text, source=source, column_types=types, **kw)


def loaded(table: TableLike) -> Table:
    """The loaded table behind ``table``: itself, or the one an in-memory table source holds (its
    ``table``). A source whose rows are not in memory has none: a TypeError (streamed runs take other
    paths before they get here)."""
    found = table if isinstance(table, Table) else getattr(table, "table", None)
    if not isinstance(found, Table):
        raise TypeError(f"{type(table).__name__} holds no rows in memory")
    return found


def require_values(table: Any, names: list[str] | tuple[str, ...], what: str) -> None:
    """Raise a DataError naming the first column of ``names`` whose every cell is missing (an export's
    empty column: nothing to generalize, and every date, interval and query built on it would be built
    on nothing). ``table`` is a loaded :class:`Table` or a table source (its counted values)."""
    for n in names:
        frame = getattr(table, "frame", None)
        if frame is not None:
            empty = not bool(frame[n].notna().any())
        else:
            empty = len(table.value_counts(n)[0]) == 0
        if empty:
            raise DataError(
                _(
                    "The {what} '{column}' of {file} is empty: every one of its {rows} cells is missing.",
                    what=what,
                    column=n,
                    file=table.name(),
                    rows=formats.count(table.n_rows),
                ),
                hint=_("Choose another column, or fill this one in the file."),
                where=n,
            )


def require_mark_free(table: Any, names: list[str] | tuple[str, ...], mark: str) -> None:
    """Raise a DataError naming the column and rows where a quasi-identifier holds ``mark``, the text
    of a suppressed cell: a release would print both the same (an export's '*' for "unknown"). The
    rows are found in the loaded table, or in one pass over a table source's rows (only when its
    counted values hold the mark)."""
    rows_none = np.zeros(0, dtype=np.int64)
    for n in names:
        frame = getattr(table, "frame", None)
        if frame is not None:  # the column's codes are kept: only its distinct values are compared
            coded = code_column(frame[n])
            hit = np.flatnonzero(coded.values[:-1] == mark)
            rows = np.flatnonzero(coded.codes == hit[0]) if len(hit) else rows_none
            count = len(rows)
        else:
            values, counts, _missing = table.value_counts(n)
            count = int(counts[values == mark].sum()) if len(values) else 0
            rows = _rows_holding(table, n, mark) if count else rows_none
        if count:
            first = 2 if getattr(table, "options", ReadOptions()).header else 1
            shown = formats.join([str(int(r) + first) for r in rows[:3]])
            raise DataError(
                _(
                    "The quasi-identifier '{column}' of {file} holds '{mark}', the mark of a suppressed "
                    "value, as a value of its own ({count} rows, lines {lines}): the release could not tell "
                    "them apart.",
                    column=n,
                    file=table.name(),
                    mark=mark,
                    count=formats.count(count),
                    lines=shown,
                ),
                hint=_(
                    "Recode these values in the file (an unknown value is an empty cell), or choose "
                    "another mark with --suppression-mark (for example '[suppressed]')."
                ),
                where=n,
            )


#: First cells of a spreadsheet's summary row (a "Total" footer exported with the records).
FOOTER_WORDS = ("total", "totals", "sum", "summe", "gesamt", "insgesamt", "totaux", "suma", "totales")


def line_of_value(table: Any, column: str, value: str | None) -> str:
    """Where ``value`` (None: a missing cell) first occurs in a loaded table's ``column``, as a
    sentence fragment naming the line, and saying so when that line is a spreadsheet's summary row
    ("Total" in a cell of the last line): such a row is not a record. "" for a table not loaded."""
    frame = getattr(table, "frame", None)
    if frame is None or column not in frame.columns or not len(frame):
        return ""
    col = frame[column]
    hits = np.flatnonzero((col.isna() if value in (None, "") else col.astype(object) == value).to_numpy())
    if not len(hits):
        return ""
    row = int(hits[0])
    line = row + (2 if getattr(table, "options", ReadOptions()).header else 1)
    cells = [str(v).strip() for v in frame.iloc[row].tolist() if isinstance(v, str)]
    if row == len(frame) - 1 and any(c.casefold().rstrip(":") in FOOTER_WORDS for c in cells):
        return _(
            " Line {line} of {file}, the last, is a summary row ('{cell}'), not a record: delete it from "
            "the file.",
            line=line,
            file=table.name(),
            cell=next(c for c in cells if c.casefold().rstrip(":") in FOOTER_WORDS),
        )
    return _(" It is first in line {line} of {file}.", line=line, file=table.name())


def _rows_holding(source: Any, column: str, value: str, limit: int = 3) -> np.ndarray:
    """The first rows (0-based) of a table source whose ``column`` is ``value``."""
    found: list[int] = []
    start = 0
    for batch in source.batches([column]):
        col = batch.column(0).to_numpy(zero_copy_only=False)
        found.extend(int(start + i) for i in np.flatnonzero(col == value)[: limit - len(found)])
        start += batch.num_rows
        if len(found) >= limit:
            break
    return np.asarray(found, dtype=np.int64)


def apply_type_overrides(table: Table, overrides: Mapping[str, tuple[ColumnKind | str, str | None]]) -> Table:
    """The table with the user's type choices (kind, date format) replacing the detected ones.

    The import dialog and the project file both use this, so a project reopens with the types the user
    chose, not the ones detection would guess again.
    """
    if not overrides:
        return table
    types = dict(table.column_types)
    for col, (kind, fmt) in overrides.items():
        kind = ColumnKind(kind)
        old = types.get(col)
        numbers = _declared_numbers(table, col, kind)  # refuses a declared number column that is not one
        same_numbers = old is not None and (old.number_format == numbers or col not in table.frame.columns)
        if (
            old is None
            or old.kind != kind
            or (kind == ColumnKind.DATE and fmt and old.date_format != fmt)
            or not same_numbers
        ):
            share = old.share if old is not None and old.kind == kind else 1.0
            types[col] = ColumnType(
                kind,
                share,
                fmt if kind == ColumnKind.DATE else None,
                old.distinct if old else 0,
                old.missing if old else 0,
                numbers,
            )
    return replace(table, column_types=types)


def _declared_numbers(table: Table, column: str, kind: ColumnKind) -> str | None:
    """For a column the user declares integer or decimal: the way it writes its numbers ("12,5" too), or
    a DataError in one sentence when some of its values are not such numbers (never read as text
    silently). Columns not held in memory are checked where they are read."""
    if kind not in (ColumnKind.INTEGER, ColumnKind.DECIMAL) or column not in table.frame.columns:
        return None
    values = table.frame[column]
    fmt, bad = number_misfits(values, kind)
    if len(bad):
        first_line = 2 if table.options.header else 1
        raise DataError(
            numbers_refused(column, table.name(), kind, values, first_line),
            hint=_(
                "Correct these values in the file (an unknown number is an empty cell), or read the column "
                "as text."
            ),
            where=column,
        )
    return None if fmt == PLAIN else fmt.code
