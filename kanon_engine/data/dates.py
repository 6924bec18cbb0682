"""Dates are read with ONE format per column; values that do not fit it are reported, never guessed.

Why: a column holding ``2022-05-01`` beside ``01.12.2022`` cannot be read value by value without guessing
which number is the month (pandas' "mixed" parsing reads ``01.12.2022`` as 12 January), and a date read
under a guess is generalized into the wrong month and released. So a column is parsed with a single
strftime format (the one the user gave, or the one most of its values fit, from
:data:`kanon_engine.data.types.DATE_FORMATS`), and the values that do not fit are reported with their
count, first examples and line numbers, and which other format they fit. The user then chooses: fix the
file, give another format, or treat the column as text. Work is done on distinct values (vectorized
``pandas.to_datetime`` with an exact format), so a million-row column costs one parse per distinct value.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.data.table import Table
from kanon_engine.data.types import DATE_FORMATS, ColumnKind, describe_date_format
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.i18n import _, formats, ngettext

#: A text column counts as dates written in several formats when this share of its values fits one
#: format or another, though no single format fits them all.
MIXED_SHARE = 0.95
EXAMPLES = 3
#: ``--column-type`` kinds: the project file's four, and "text" for categorical.
KINDS = {"integer": "integer", "decimal": "decimal", "date": "date", "categorical": "categorical"}
KINDS["text"] = "categorical"


def parse_dates(values: pd.Series, fmt: str) -> pd.Series:
    """``values`` as datetimes read with exactly ``fmt`` (NaT where a value does not fit; no guessing)."""
    text = values.astype(object).where(values.notna(), None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return pd.to_datetime(text.map(lambda v: v.strip() if isinstance(v, str) else v), format=fmt,
                              errors="coerce", exact=True)  # fmt: skip


def read_dates(values: pd.Series, fmt: str | None = None) -> pd.Series:
    """``values`` as datetimes read with ``fmt``, or with the one known format most of them fit; NaT for
    a value that does not fit it (never a per-value guess). For drawing and matching, where a value that
    does not fit is left out; a release refuses such a column instead (:func:`date_problems`)."""
    fmt = fmt or date_fit(values).format
    if fmt is None:
        return pd.Series(pd.NaT, index=values.index, dtype="datetime64[ns]")
    return parse_dates(values, fmt)


@dataclass(frozen=True)
class DateFit:
    """How a column's values fit one date format."""

    column: str
    format: str | None  # the format read with (None: no format fits any value)
    values: int  # non-missing values
    misfits: int  # of them, values that do not fit ``format``
    examples: tuple[tuple[int, str], ...]  # (0-based row, value) of the first misfits
    others: tuple[tuple[str, int], ...]  # other formats the misfits fit, with how many, most first
    covered: int  # values that fit some known format
    given: bool = False  # the format was given (by the user or the column's type), not the most common

    @property
    def mixed(self) -> bool:
        """Every value (nearly) is a date, but not all in one format."""
        return bool(self.others) and self.values > 0 and self.covered >= MIXED_SHARE * self.values


def date_fit(values: pd.Series, fmt: str | None = None, column: str = "") -> DateFit:
    """How ``values`` fit ``fmt`` (default: the known format most values fit)."""
    given = fmt is not None
    codes, uniq = pd.factorize(values.astype(object), use_na_sentinel=True)
    text = pd.Series(np.asarray(uniq, dtype=object), dtype=object).astype(str).str.strip()
    counts = np.bincount(codes[codes >= 0], minlength=len(uniq)).astype(np.int64)
    fits = {f: parse_dates(text, f).notna().to_numpy(dtype=bool) for f in DATE_FORMATS}
    if fmt is None:
        best = max(DATE_FORMATS, key=lambda f: (int(counts[fits[f]].sum()), -DATE_FORMATS.index(f)))
        fmt = best if counts[fits[best]].sum() > 0 else None
    if fmt is None:
        ok = np.zeros(len(uniq), dtype=bool)
    else:
        found = fits.get(fmt)
        ok = parse_dates(text, fmt).notna().to_numpy(dtype=bool) if found is None else found
    bad = ~ok
    present = np.flatnonzero(codes >= 0)
    rows = present[bad[codes[present]]]  # (a column of missing cells only has no values to index)
    others = sorted(
        ((f, int(counts[bad & fits[f]].sum())) for f in DATE_FORMATS if f != fmt),
        key=lambda x: -x[1],
    )
    covered = np.zeros(len(uniq), dtype=bool)
    for f in DATE_FORMATS:
        covered |= fits[f]
    return DateFit(
        column=column,
        format=fmt,
        values=int(counts.sum()),
        misfits=int(counts[bad].sum()),
        examples=tuple((int(r), str(text.iloc[codes[r]])) for r in rows[:EXAMPLES]),
        others=tuple((f, n) for f, n in others if n > 0)[:2],
        covered=int(counts[covered | ok].sum()),
        given=given,
    )


def describe_misfits(fit: DateFit, table: Table) -> str:
    """One sentence: the column, how many values do not fit its format, examples with their lines."""
    first = 2 if table.options.header else 1
    by_line = _line_word(table) == "line"
    shown = ", ".join(
        _("line {number}: '{value}'", number=str(r + first), value=v)
        if by_line
        else _("row {number}: '{value}'", number=str(r + first), value=v)
        for r, v in fit.examples
    )
    label = describe_date_format(fit.format) if fit.format else _("any date format")
    if fit.mixed:
        head = _("The column '{column}' of {table} mixes date formats", column=fit.column, table=table.name())
    else:
        head = _("The column '{column}' of {table} is read as dates", column=fit.column, table=table.name())
    if fit.given:
        why = _(" (the column's format)")
    else:
        why = _(" (the format most of them have)") if fit.format else ""
    text = ngettext(
        "{head}: {misfits} of its {values} values does not fit {label}{why}, e.g. {shown}",
        "{head}: {misfits} of its {values} values do not fit {label}{why}, e.g. {shown}",
        fit.misfits,
        head=head,
        misfits=fit.misfits,
        values=fit.values,
        label=label,
        why=why,
        shown=shown,
    )
    if fit.others:
        text += "; " + formats.join(
            [_("{n} fit {format}", n=n, format=describe_date_format(f)) for f, n in fit.others]
        )
    return text + "."


def _line_word(table: Table) -> str:
    """``line`` for a text file (numbered by line), ``row`` for a workbook (a key, not shown)."""
    suffix = table.source.suffix.lower() if table.source is not None else ".csv"
    return "line" if suffix in (".csv", ".tsv", ".txt", ".tab", "") else "row"


def cli_choices(fit: DateFit) -> str:
    """What the command line tells the user to do about a column whose dates do not fit one format."""
    c = fit.column
    text = _("kanon reads a column with one date format. Fix these values in the file")
    if fit.others:
        text += _(
            ", give another format with --column-type {column}=date:FORMAT (e.g. {suggested_format})",
            column=c,
            suggested_format=suggested_format(fit),
        )
    else:
        text += _(" (an unknown date is an empty cell)")
    return text + _(", or treat the column as text with --column-type {column}=text.", column=c)


def date_problems(
    table: Table, columns: Iterable[str], user_typed: Iterable[str] = ()
) -> list[tuple[DateFit, str]]:
    """The columns among ``columns`` whose dates do not all fit one format, each with its sentence.

    A column is checked when it is read as dates (its type is date) or, unless the user chose its type
    (``user_typed``), when its text is dates in several formats.
    """
    typed = set(user_typed)
    out = []
    for col in columns:
        ctype = table.column_types.get(col)
        is_date = ctype is not None and ctype.kind == ColumnKind.DATE
        if not is_date and (col in typed or (ctype is not None and ctype.kind != ColumnKind.CATEGORICAL)):
            continue
        values = _values_of(table, col)
        if not is_date and not could_be_mixed(values):
            continue
        fit = date_fit(values, ctype.date_format if ctype is not None and is_date else None, col)
        if fit.misfits and (is_date or fit.mixed):
            out.append((fit, describe_misfits(fit, table)))
    return out


#: Distinct values parsed at a time by :func:`could_be_mixed` (a worker lets the window run between chunks).
CHUNK = 50_000


def could_be_mixed(values: pd.Series) -> bool:
    """False as soon as more than ``1 - MIXED_SHARE`` of the values fit no known format: a text column
    can then not be dates in several formats (:attr:`DateFit.mixed`). Exact, and it stops after a few
    chunks of a column of millions of distinct values that are no dates (a record number: 14 formats
    times 10 million values would take minutes)."""
    codes, uniq = pd.factorize(values.astype(object), use_na_sentinel=True)
    counts = np.bincount(codes[codes >= 0], minlength=len(uniq)).astype(np.int64)
    allowed = (1.0 - MIXED_SHARE) * counts.sum()
    text = pd.Series(np.asarray(uniq, dtype=object), dtype=object).astype(str).str.strip()
    uncovered = 0
    for start in range(0, len(text), CHUNK):
        part = text.iloc[start : start + CHUNK]
        covered = np.zeros(len(part), dtype=bool)
        for f in DATE_FORMATS:
            covered |= parse_dates(part, f).notna().to_numpy(dtype=bool)
        uncovered += int(counts[start : start + CHUNK][~covered].sum())
        if uncovered > allowed:
            return False
    return True


def _values_of(table: Any, column: str) -> pd.Series:
    """A loaded column, or the distinct values of a table source's column (a file not loaded whole: the
    workbench checks its dates on the values the engine counted, each once)."""
    frame = getattr(table, "frame", None)
    if frame is not None:
        return frame[column]
    values, _counts, missing = table.value_counts(column)
    return pd.Series([*values, *([None] if missing else [])], dtype=object)


def check_dates(table: Table, columns: Iterable[str], user_typed: Iterable[str] = ()) -> None:
    """Raise a DataError for the first column of :func:`date_problems`, with the command line's choices."""
    found = date_problems(table, columns, user_typed)
    if found:
        fit, text = found[0]
        raise DataError(
            text,
            hint=cli_choices(fit),
            where=fit.column,
        )


def suggested_format(fit: DateFit) -> str:
    """The format to offer as an example: the one most misfits have, else the one read with."""
    return fit.others[0][0] if fit.others else (fit.format or "%Y-%m-%d")


def parse_column_type(column: str, spec: str) -> tuple[str, str | None]:
    """``date:%d.%m.%Y`` / ``text`` / ``integer`` -> (kind, date format), as the project file stores it."""
    kind, _sep, fmt = spec.partition(":")
    kind = KINDS.get(kind.strip().lower(), "")
    if not kind:
        raise ConfigError(
            _(
                "--column-type {column}={spec}: the type must be integer, decimal, date, text or "
                "categorical.",
                column=column,
                spec=spec,
            ),
            hint=_("For example --column-type birth_date=date:%d.%m.%Y or --column-type code=text."),
            where="--column-type",
        )
    if fmt and kind != "date":
        raise ConfigError(
            _("--column-type {column}={spec}: only a date type takes a format.", column=column, spec=spec),
            where="--column-type",
        )
    return kind, (fmt or None)
