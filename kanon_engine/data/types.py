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
- Only empty cells are missing (see :mod:`kanon_engine.data.io`); "NA" or "?" count as non-fitting values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from kanon_engine.data.codes import code_column
from kanon_engine.i18n import _, pgettext


class ColumnKind(StrEnum):
    """What a column's values look like (import wizard's type detection)."""

    INTEGER = "integer"
    DECIMAL = "decimal"
    DATE = "date"
    CATEGORICAL = "categorical"


@dataclass(frozen=True)
class ColumnType:
    """Detected type of one column: its kind, the share of non-missing values that fit it, the
    date format (strftime style) when it is a date, and how many distinct and missing values it has."""

    kind: ColumnKind
    share: float = 1.0
    date_format: str | None = None
    distinct: int = 0
    missing: int = 0


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
    used = all_counts[:-1] > 0
    vc = pd.Series(
        all_counts[:-1][used].astype(np.int64), index=pd.Index(coded.values[:-1][used], dtype=object)
    )
    return detect_counts(vc, int(all_counts[-1]), name)


def detect_counts(vc: pd.Series, missing: int = 0, name: str = "") -> ColumnType:
    """Detect the kind of a column from its value counts (distinct strings -> records) and missing cells:
    what a table source that never holds the whole column knows. The values are taken in sorted order, so
    the detection does not depend on the order of the rows (every engine detects the same type)."""
    if len(vc) == 0:
        return ColumnType(ColumnKind.CATEGORICAL, share=1.0, distinct=0, missing=missing)
    distinct = len(vc)
    vc = vc.sort_index(kind="stable")
    counts = vc.to_numpy(dtype=np.int64)
    total = int(counts.sum())
    uniq = pd.Series(vc.index.astype("str"), dtype="str").str.strip()

    def share(mask: np.ndarray) -> float:
        return float(counts[mask].sum()) / total

    is_int = uniq.str.fullmatch(_INT).to_numpy(dtype=bool, na_value=False)
    int_share = share(is_int)
    if int_share >= NUMERIC_SHARE:
        has_zero = uniq.str.match(_LEADING_ZERO).to_numpy(dtype=bool, na_value=False) & is_int
        if has_zero.any():
            return ColumnType(ColumnKind.CATEGORICAL, 1.0, None, distinct, missing)
        as_date = _integer_date(uniq, counts, name)
        if as_date is not None:
            return ColumnType(ColumnKind.DATE, as_date[1], as_date[0], distinct, missing)
        return ColumnType(ColumnKind.INTEGER, int_share, None, distinct, missing)
    is_num = uniq.str.fullmatch(_DEC).to_numpy(dtype=bool, na_value=False)
    num_share = share(is_num)
    if num_share >= NUMERIC_SHARE:
        return ColumnType(ColumnKind.DECIMAL, num_share, None, distinct, missing)
    found = guess_date_format(uniq, counts)
    if found is not None and found[1] >= DATE_SHARE:
        return ColumnType(ColumnKind.DATE, found[1], found[0], distinct, missing)
    return ColumnType(ColumnKind.CATEGORICAL, 1.0, None, distinct, missing)


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


def _integer_date(uniq: pd.Series, counts: np.ndarray, name: str) -> tuple[str, float] | None:
    """``%Y%m%d`` for 8-digit dates in 1800-2199; ``%Y`` for 4-digit years when the name says so."""
    lengths = uniq.str.len().to_numpy()
    if (lengths == 8).all():
        found = guess_date_format(uniq, counts, ("%Y%m%d",))
        if found and found[1] >= DATE_SHARE:
            years = pd.to_numeric(uniq.str.slice(0, 4), errors="coerce").to_numpy()
            if ((years >= 1800) & (years < 2200)).all():
                return found
    if (lengths == 4).all() and _YEAR_NAME.search(name):
        found = guess_date_format(uniq, counts, ("%Y",))
        if found and found[1] >= DATE_SHARE:
            return found
    return None
