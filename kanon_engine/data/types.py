"""Column type detection for the import: integer, decimal, date (with its format) or categorical.

Why it matters: the kind decides which hierarchy builders the workbench offers (intervals for numbers,
year/month steps for dates, masking or grouping for codes) and which columns information-loss metrics such
as NCP can treat as ordered (Xu et al., "Utility-based anonymization using local recoding", KDD 2006).

How: every test runs on the column's distinct values weighted by their counts (one hash pass, shared: see
:mod:`kanon_engine.data.codes`), so a
1,000,000-row column with a few thousand distinct values costs a few thousand string tests, all vectorized
(pyarrow regular expressions, ``pandas.to_datetime`` with an explicit format). The date format is guessed on
a sample of distinct values, then verified on all of them.

Rules:
- A column is numeric when at least ``NUMERIC_SHARE`` (95%) of its non-missing values parse; ``share`` says
  how many did, so the GUI can show "97% numbers" and list the rest.
- Integer-looking codes with a leading zero (ZIP "02138", "007") are CATEGORICAL: the zeros are part of the
  value and would be lost as numbers, and codes are generalized by masking digits ("0213*"), as in
  Sweeney's Datafly and Samarati's examples, not by numeric intervals.
- 8-digit integers that are all valid ``%Y%m%d`` dates are dates; 4-digit integers are years (DATE,
  ``%Y``) only when the column name says so (date, year, dob, birth, born); otherwise integers stay integers.
- Numbers are read as the user wrote them: a decimal comma ("12,5") and thousands separators (a space,
  a narrow or plain no-break space, a dot, an apostrophe: "1 234,50", "1.234,5", "1'234.50", and a
  comma before a decimal point: "1,234.50") are numbers too, the column's :class:`NumberFormat` found
  on its distinct values (the one most of them fit; a tie, as "1,234" alone, is settled by the language:
  a decimal comma but in English). The text itself is never rewritten: :func:`parse_numbers` reads it
  wherever kanon needs the numbers (intervals, charts, ranges, sorting).
- Only empty cells are missing (see :mod:`kanon_engine.data.io`); "NA" or "?" count as non-fitting values.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from kanon_engine.data.codes import code_column
from kanon_engine.i18n import _, current_language, ngettext, pgettext


class ColumnKind(StrEnum):
    """What a column's values look like (import wizard's type detection)."""

    INTEGER = "integer"
    DECIMAL = "decimal"
    DATE = "date"
    CATEGORICAL = "categorical"


@dataclass(frozen=True)
class ColumnType:
    """Detected type of one column: its kind, the share of non-missing values that fit it, the
    date format (strftime style) when it is a date, how many distinct and missing values it has, and
    for numbers written the local way their :class:`NumberFormat` code (``",| "``: decimal comma,
    spaces between thousands; None: plain ``1234.5``)."""

    kind: ColumnKind
    share: float = 1.0
    date_format: str | None = None
    distinct: int = 0
    missing: int = 0
    number_format: str | None = None


#: Characters read as a space between thousands (a space, the narrow and the plain no-break space).
SPACES = " \u202f\u00a0"


@dataclass(frozen=True)
class NumberFormat:
    """How a column writes its numbers: the decimal separator and the thousands separator (``""``: none;
    ``" "``: any of :data:`SPACES`). ``code`` is ``decimal|group``, as :class:`ColumnType` keeps it."""

    decimal: str = "."
    group: str = ""

    @property
    def code(self) -> str:
        return f"{self.decimal}|{self.group}"

    @classmethod
    def from_code(cls, code: str | None) -> NumberFormat:
        if not code:
            return PLAIN
        decimal, _sep, group = code.partition("|")
        return cls(decimal or ".", group)

    @property
    def pattern(self) -> str:
        """A regular expression a number written this way matches in full."""
        group = f"[{SPACES}]" if self.group == " " else re.escape(self.group)
        whole = rf"(?:\d{{1,3}}(?:{group}\d{{3}})+|\d+)" if self.group else r"\d+"
        return rf"[+-]?{whole}(?:{re.escape(self.decimal)}\d+)?"

    def read(self, text: pd.Series) -> np.ndarray:
        """The numbers of ``text`` (stripped strings) written this way; NaN where one is not."""
        if self == PLAIN:
            return pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
        ok = text.str.fullmatch(self.pattern).to_numpy(dtype=bool, na_value=False)
        plain = text
        if self.group:
            group = f"[{SPACES}]" if self.group == " " else re.escape(self.group)
            plain = plain.str.replace(group, "", regex=True)
        plain = plain.str.replace(self.decimal, ".", regex=False)
        out = pd.to_numeric(plain.where(ok, None), errors="coerce").to_numpy(dtype=float)
        return np.where(ok, out, np.nan)


#: Plain numbers as Python writes them (``1234.5``, ``-1e3``).
PLAIN = NumberFormat(".", "")
#: The local ways of writing numbers tried, after the plain one.
LOCAL_FORMATS: tuple[NumberFormat, ...] = (
    NumberFormat(",", ""),
    NumberFormat(",", " "),
    NumberFormat(",", "."),
    NumberFormat(",", "'"),
    NumberFormat(".", ","),
    NumberFormat(".", " "),
    NumberFormat(".", "'"),
)


def best_number_format(
    uniq: pd.Series, counts: np.ndarray | None = None, language: str | None = None
) -> tuple[NumberFormat, float]:
    """The way most of the values (stripped strings, weighted by ``counts``) write numbers, and the
    share that fits it; the plain one unless a local one fits more. A tie between a decimal comma and a
    thousands comma ("1,234") goes to the decimal comma, but in English."""

    if counts is None:
        counts = np.ones(len(uniq), dtype=np.int64)
    total = float(counts.sum()) or 1.0
    best, best_share = PLAIN, float(counts[np.isfinite(PLAIN.read(uniq))].sum()) / total
    comma_first = (language or current_language()) != "en"
    order = LOCAL_FORMATS if comma_first else tuple(sorted(LOCAL_FORMATS, key=lambda f: f.decimal != "."))
    for fmt in order:
        share = float(counts[np.isfinite(fmt.read(uniq))].sum()) / total
        if share > best_share + 1e-12:
            best, best_share = fmt, share
    return best, best_share


def parse_numbers(
    values: pd.Series | np.ndarray, number_format: str | NumberFormat | None = None
) -> np.ndarray:
    """The numbers of a column of text as float64 (NaN where missing or not a number): in the column's
    :class:`NumberFormat` (its code), or, without one, in the way most of its values are written
    (:func:`best_number_format`). Each distinct value is read once."""
    series = pd.Series(np.asarray(values, dtype=object), dtype=object)
    codes, uniq = pd.factorize(series, use_na_sentinel=True)
    text = pd.Series(np.asarray(uniq, dtype=object), dtype=object).astype(str).str.strip()
    if isinstance(number_format, NumberFormat):
        fmt = number_format
    elif number_format:
        fmt = NumberFormat.from_code(number_format)
    else:
        fmt = best_number_format(text)[0] if len(text) else PLAIN
    numbers = np.append(fmt.read(text) if len(text) else np.zeros(0), np.nan)
    return numbers[np.where(codes < 0, len(uniq), codes)]


NUMERIC_SHARE = 0.95
DATE_SHARE = 0.95
#: Formats tried, in order of preference when several fit equally many values (day-first before US).
DATE_FORMATS: tuple[str, ...] = (
    "%Y-%m-%d",
    "%d/%m/%Y",
    "%m/%d/%Y",
    "%d.%m.%Y",
    "%d-%m-%Y",
    "%Y/%m/%d",
    "%Y%m%d",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d %b %Y",
    "%Y-%m",
    "%m/%Y",
    "%Y",
)
DATE_SAMPLE = 400
_INT = r"[+-]?\d+"
_DEC = r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?"
_LEADING_ZERO = r"[+-]?0\d"
_YEAR_NAME = re.compile(r"date|year|yr|dob|birth|born", re.IGNORECASE)


#: strftime codes as people write date patterns (``%d.%m.%Y`` -> ``dd.mm.yyyy``).
_DATE_CODE_WORDS = {
    "%d": "dd",
    "%m": "mm",
    "%Y": "yyyy",
    "%y": "yy",
    "%H": "hh",
    "%M": "mm",
    "%S": "ss",
    "%b": "mon",
    "%B": "month",
    "%j": "ddd",
}


def describe_date_format(fmt: str | None) -> str:
    """A date format as people write it: ``%d.%m.%Y`` -> ``dd.mm.yyyy``, ``%Y-%m-%d`` -> ``yyyy-mm-dd``
    (shown in the import dialog and messages; the strftime code stays in the project file)."""
    if not fmt:
        return _("detected automatically")
    words = {**_DATE_CODE_WORDS, **_local_date_words()}
    return re.sub(r"%[a-zA-Z]", lambda m: words.get(m.group(0), m.group(0)), fmt)


def _local_date_words() -> dict[str, str]:
    """The words of a date pattern in the current language (``TT.MM.JJJJ`` in German)."""
    return {
        "%d": pgettext("date format: day", "dd"),
        "%m": pgettext("date format: month", "mm"),
        "%Y": pgettext("date format: year", "yyyy"),
        "%y": pgettext("date format: two-digit year", "yy"),
        "%b": pgettext("date format: month name", "mon"),
    }


_WORD_CODES = {"yyyy": "%Y", "yy": "%y", "dd": "%d", "mm": "%m", "hh": "%H", "ss": "%S", "mon": "%b"}


def date_format_from_words(text: str) -> str:
    """The strftime code of a pattern typed as ``dd.mm.yyyy`` or in the current language's words
    (``TT.MM.JJJJ``; ``mm`` after ``hh`` means minutes; codes such as ``%d`` pass through unchanged)."""
    out, previous = [], ""
    for token in re.findall(r"%[a-zA-Z]|[a-zA-Z]+|[^a-zA-Z%]+|%", str(text).strip()):
        word = token.lower()
        local = {w.lower(): code for code, w in _local_date_words().items()}
        if word == "mm" and previous == "hh":
            out.append("%M")
        else:
            out.append(_WORD_CODES.get(word) or local.get(word, token))
        if token.isalpha():
            previous = word
    return "".join(out)


def detect_types(frame: pd.DataFrame) -> dict[str, ColumnType]:
    """Detect the kind of every column of a frame of strings (missing = NaN). See the module docstring."""
    return {str(c): detect_column(frame[c], name=str(c)) for c in frame.columns}


def detect_column(values: pd.Series, name: str = "") -> ColumnType:
    """Detect the kind of one column of strings; ``name`` is used only for the year hint."""
    coded = code_column(values)  # distinct values in order of first appearance, shared with the search
    all_counts = coded.counts()
    missing = int(all_counts[-1])
    if coded.text is not None:  # Arrow text, every value used (no conversion to Python strings)
        return _detect(
            pd.Series(pd.array(coded.text, dtype="str")), all_counts[:-1].astype(np.int64), missing, name
        )
    used = all_counts[:-1] > 0
    values_used, counts = coded.values[:-1][used], all_counts[:-1][used].astype(np.int64)
    text = _strings(values_used)
    if text is None:  # values that are not all text: the general way
        return detect_counts(pd.Series(counts, index=pd.Index(values_used, dtype=object)), missing, name)
    return _detect(text, counts, missing, name)


def detect_counts(vc: pd.Series, missing: int = 0, name: str = "") -> ColumnType:
    """Detect the kind of a column from its value counts (distinct strings -> records) and missing cells:
    what a table source that never holds the whole column knows. The values are taken in sorted order, so
    the detection does not depend on the order of the rows (every engine detects the same type)."""
    text = _strings(vc.index)
    if text is not None:
        return _detect(text, vc.to_numpy(dtype=np.int64), missing, name)
    vc = vc.sort_index(kind="stable")  # not all text (numbers sort otherwise than their text): sorted here
    text = pd.Series(vc.index.astype("str"), dtype="str")
    return _detect(text, vc.to_numpy(dtype=np.int64), missing, name, ordered=True)


def _strings(values: np.ndarray | pd.Index) -> pd.Series | None:
    """``values`` as a column of text (Arrow strings) when every one is a string, else None."""
    try:
        arr = pa.array(np.asarray(values, dtype=object), type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeEncodeError):
        return None
    if arr.null_count:
        return None
    return pd.Series(pd.array(arr, dtype="str"))


def _detect(
    text: pd.Series, counts: np.ndarray, missing: int, name: str, *, ordered: bool = False
) -> ColumnType:
    """:func:`detect_counts` on distinct ``text`` (original strings) with their ``counts``, in any order.

    Only the date format's guess looks at the values in their sorted order (it tries an even sample of
    them): they are sorted for it alone, by Arrow (UTF-8 byte order is code point order, Python's), and
    only when it is asked. ``ordered``: ``text`` is in that order already."""
    if len(text) == 0:
        return ColumnType(ColumnKind.CATEGORICAL, share=1.0, distinct=0, missing=missing)
    distinct = len(text)
    total = int(counts.sum())
    uniq = text.str.strip()

    def share(mask: np.ndarray) -> float:
        return float(counts[mask].sum()) / total

    def in_order() -> tuple[pd.Series, np.ndarray]:
        if ordered:
            return uniq, counts
        order = pc.sort_indices(text.array._pa_array).to_numpy()
        return uniq.iloc[order].reset_index(drop=True), counts[order]

    is_int = uniq.str.fullmatch(_INT).to_numpy(dtype=bool, na_value=False)
    int_share = share(is_int)
    if int_share >= NUMERIC_SHARE:
        has_zero = uniq.str.match(_LEADING_ZERO).to_numpy(dtype=bool, na_value=False) & is_int
        if has_zero.any():
            return ColumnType(ColumnKind.CATEGORICAL, 1.0, None, distinct, missing)
        as_date = _integer_date(uniq, in_order, name)
        if as_date is not None:
            return ColumnType(ColumnKind.DATE, as_date[1], as_date[0], distinct, missing)
        return ColumnType(ColumnKind.INTEGER, int_share, None, distinct, missing)
    is_num = uniq.str.fullmatch(_DEC).to_numpy(dtype=bool, na_value=False)
    num_share = share(is_num)
    if num_share >= NUMERIC_SHARE:
        return ColumnType(ColumnKind.DECIMAL, num_share, None, distinct, missing)
    local = _local_numbers(uniq, counts, distinct, missing)
    if local is not None:
        return local
    if share(could_be_dates(uniq)) >= DATE_SHARE:
        found = guess_date_format(*in_order())
        if found is not None and found[1] >= DATE_SHARE:
            return ColumnType(ColumnKind.DATE, found[1], found[0], distinct, missing)
    return ColumnType(ColumnKind.CATEGORICAL, 1.0, None, distinct, missing)


#: Every format of :data:`DATE_FORMATS` starts with a number (a year, day, month or hour), so a value
#: that starts with a letter fits none of them (see :func:`could_be_dates`).
_DATES_START_WITH_NUMBERS = all(f[:2] in ("%Y", "%y", "%d", "%m", "%H") for f in DATE_FORMATS)


def could_be_dates(uniq: pd.Series) -> np.ndarray:
    """Per value of ``uniq`` (stripped strings): False when it can fit no format of :data:`DATE_FORMATS`
    because it starts with a letter (a name, a city, "P1234"); True otherwise. When too few values could
    be dates, no format can fit enough of them, and a column of a million names is set aside without
    sorting and sampling its values for the format's guess. A letter is what Arrow calls alphabetic:
    no such character is a digit Python's date parsing reads (a test checks every code point)."""
    if not _DATES_START_WITH_NUMBERS:
        return np.ones(len(uniq), dtype=bool)
    first = pc.utf8_slice_codeunits(uniq.array._pa_array, 0, 1)  # (a regex of \p{L} costs ~1 ms to build)
    return ~pc.utf8_is_alpha(first).to_numpy(zero_copy_only=False)


#: The characters a number written in any of :data:`LOCAL_FORMATS` is made of (ASCII digits, as Arrow's
#: ``\d``; signs; decimal and group separators), any number of them.
_NUMBER_TEXT = "[0-9+\\-.,'" + SPACES + "]*"


def number_characters_only(text: pd.Series) -> np.ndarray:
    """Per value of ``text`` (stripped strings): whether it is made only of characters some way of writing
    numbers uses (the empty text too). A value with any other character (a letter, '<') is no number in
    any of the formats, so a column with many of them need not be read in each."""
    return text.str.fullmatch(_NUMBER_TEXT).to_numpy(dtype=bool, na_value=False)


#: What every number written in one of :data:`LOCAL_FORMATS` looks like: a sign, digits, groups of three
#: digits after any separator, a decimal part after a dot or comma (wider than each format's pattern).
_LOCAL_SHAPE = rf"[+-]?\d+(?:[.,'{SPACES}]\d{{3}})*(?:[.,]\d+)?"


def _local_numbers(uniq: pd.Series, counts: np.ndarray, distinct: int, missing: int) -> ColumnType | None:
    """Numbers written the local way ("12,5", "1 234,50"): integer when none has a decimal part.

    A value without the shape every local format's numbers have (:data:`_LOCAL_SHAPE`) fits none of
    them, so when too few values have it no format can fit enough of them, and the seven formats are not
    tried (a column of a million names, or of dates such as 2020-01-31 or 31.01.2020, is set aside by one
    pass instead of eight). The shape uses ``\\d`` as the formats do, so it is read by the same regular
    expression engine as they are (pandas reads ``\\d`` with Python's, Unicode digits, in non-ASCII text)."""
    could = uniq.str.fullmatch(_LOCAL_SHAPE).to_numpy(dtype=bool, na_value=False)
    if float(counts[could].sum()) / float(counts.sum()) < NUMERIC_SHARE:
        return None
    fmt, fit = best_number_format(uniq, counts)
    if fmt == PLAIN or fit < NUMERIC_SHARE:
        return None
    ok = np.isfinite(fmt.read(uniq))
    whole = not uniq[ok].str.contains(re.escape(fmt.decimal), regex=True).any()
    kind = ColumnKind.INTEGER if whole and fmt.group else ColumnKind.DECIMAL
    return ColumnType(kind, fit, None, distinct, missing, fmt.code)


def _fit(values: pd.Series, fmt: str) -> np.ndarray:
    """Which values parse with ``fmt`` (exact match, no guessing)."""
    parsed = pd.to_datetime(values, format=fmt, errors="coerce", exact=True)
    return parsed.notna().to_numpy(dtype=bool)


def guess_date_format(
    uniq: pd.Series, counts: np.ndarray | None = None, formats: tuple[str, ...] = DATE_FORMATS
) -> tuple[str, float] | None:
    """The format most distinct values fit (guessed on an even sample), and the share of all values
    (weighted by ``counts``) that fit it; None when no format fits at least half of the sample."""
    if counts is None:
        counts = np.ones(len(uniq), dtype=np.int64)
    if len(uniq) == 0:
        return None
    step = max(1, len(uniq) // DATE_SAMPLE)
    sample = uniq.iloc[::step].iloc[:DATE_SAMPLE]
    if sample.str.contains(r"\d", regex=True).mean() < 0.5:
        return None
    best, best_fit = None, 0.0
    for fmt in formats:
        fit = float(_fit(sample, fmt).mean())
        if fit > best_fit:
            best, best_fit = fmt, fit
    if best is None or best_fit < 0.5:
        return None
    ok = _fit(uniq, best)
    return best, float(counts[ok].sum()) / float(counts.sum())


def _integer_date(
    uniq: pd.Series, in_order: Callable[[], tuple[pd.Series, np.ndarray]], name: str
) -> tuple[str, float] | None:
    """``%Y%m%d`` for 8-digit dates in 1800-2199; ``%Y`` for 4-digit years when the name says so.
    ``in_order()``: the values (stripped) and their counts in sorted order, asked only when needed."""
    lengths = uniq.str.len().to_numpy()
    if (lengths == 8).all():
        found = guess_date_format(*in_order(), ("%Y%m%d",))
        if found and found[1] >= DATE_SHARE:
            years = pd.to_numeric(uniq.str.slice(0, 4), errors="coerce").to_numpy()
            if ((years >= 1800) & (years < 2200)).all():
                return found
    if (lengths == 4).all() and _YEAR_NAME.search(name):
        found = guess_date_format(*in_order(), ("%Y",))
        if found and found[1] >= DATE_SHARE:
            return found
    return None


def number_misfits(values: pd.Series, kind: ColumnKind) -> tuple[NumberFormat, np.ndarray]:
    """The way a column declared integer or decimal writes its numbers (the one most values fit), and
    the rows (positions) whose value is not such a number (a whole one, for an integer column); missing
    cells are never misfits."""
    series = pd.Series(np.asarray(values, dtype=object), dtype=object)
    codes, uniq = pd.factorize(series, use_na_sentinel=True)
    text = pd.Series(np.asarray(uniq, dtype=object), dtype=object).astype(str).str.strip()
    counts = np.bincount(codes[codes >= 0], minlength=len(uniq)).astype(np.int64)
    fmt = best_number_format(text, counts)[0] if len(text) else PLAIN
    x = fmt.read(text) if len(text) else np.zeros(0)
    ok = np.isfinite(x)
    if kind == ColumnKind.INTEGER:
        ok &= np.where(ok, x == np.round(x), False)
    bad_code = np.append(~ok, False)
    return fmt, np.flatnonzero(bad_code[np.where(codes < 0, len(uniq), codes)])


def numbers_refused(
    column: str, table_name: str, kind: ColumnKind, values: pd.Series, first_line: int
) -> str:
    """The one sentence refusing a column declared integer or decimal whose values are not all numbers:
    how many fail, and the first with its line (``first_line``: the file's line of the first row)."""
    _fmt, bad = number_misfits(values, kind)
    first = int(bad[0])
    total = int(pd.Series(values).notna().sum())
    if kind == ColumnKind.INTEGER:
        kind_word = pgettext("numbers of a column", "integer numbers")
    else:
        kind_word = pgettext("numbers of a column", "decimal numbers")
    return ngettext(
        "The column '{column}' of {table} is read as {kind}, but {n} of its {values} values is not one, "
        "the first '{value}' on line {line}.",
        "The column '{column}' of {table} is read as {kind}, but {n} of its {values} values are not one, "
        "the first '{value}' on line {line}.",
        len(bad),
        column=column,
        table=table_name,
        kind=kind_word,
        values=total,
        value=str(pd.Series(values).iloc[first]),
        line=str(first + first_line),
    )
