"""The person column of a stay-level table: its settings, its codes, and what is wrong with it.

A hospital extract is rarely one row per patient: it is one row per stay, visit or prescription. The
*person* role names the column that says which rows belong to one person (the patient number); kanon
then counts persons where it counted rows (:mod:`kanon_engine.core.persons`): every class must hold
rows of at least k distinct persons, which is (X,Y)-anonymity with Y the person (Wang & Fung 2006,
"Anonymizing sequential releases", KDD). The column itself is removed from the release like an
identifier (or pseudonymized with a key, as identifiers are).

Settings (the project file's ``persons`` section, the CLI's ``--person-knows`` and ``--person-blanks``):

- ``knows`` (M): how many distinct released rows of one person an attacker may know, 1, 2, 3 or all
  (:data:`ALL`); see :mod:`kanon_engine.core.person_sets`;
- ``blanks``: a blank person cell is refused (the rows are named), or each blank row is a person of
  its own (``own``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.data.roles import Role, match_name
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.i18n import N_, _, ngettext
from kanon_engine.params import ParamSpec, choice_spec

#: ``knows`` for "a person's whole profile" (every released row of the person).
ALL = 0
#: The values ``knows`` takes, as the CLI and the project file write them.
KNOWS_CHOICES = ("1", "2", "3", "all")

PERSON_KNOWS = ParamSpec(
    "person_knows",
    N_("Stays an attacker knows"),
    "choice",
    "1",
    N_(
        "How many different stays (rows) of one person an attacker may know: with M, every combination "
        "of up to M released rows of a person is shared by at least k persons; all: a person's whole "
        "set of released rows."
    ),
    choices=KNOWS_CHOICES,
    choice_labels=(N_("one stay"), N_("two stays"), N_("three stays"), N_("all stays of a person")),
)
PERSON_BLANKS = choice_spec(
    "person_blanks",
    N_("Blank person cells"),
    "refuse",
    N_("What a row without a person number is: refused (fill it in), or a person of its own."),
    {
        "refuse": N_("refuse them"),
        "own": N_("each blank row is a person of its own"),
    },
)


def knows_value(value: Any) -> int:
    """``knows`` as the engine uses it: 1, 2, 3, or :data:`ALL` (0) for ``all``; a ConfigError in one
    sentence otherwise."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and int(value) in (0, 1, 2, 3):
        return int(value)
    text = str(value).strip().lower()
    if text not in KNOWS_CHOICES:
        raise ConfigError(
            _("--person-knows must be 1, 2, 3 or all; got {value}.", value=repr(value)), where="person_knows"
        )
    return ALL if text == "all" else int(text)


def knows_text(knows: int) -> str:
    """``knows`` as the CLI and the project file write it (``1`` .. ``3``, ``all``)."""
    return "all" if knows == ALL else str(int(knows))


def blanks_value(value: Any) -> str:
    """``refuse`` or ``own``; a ConfigError in one sentence otherwise."""
    text = "refuse" if value is None else str(value).strip().lower()
    if text not in PERSON_BLANKS.choices:
        raise ConfigError(
            _("--person-blanks must be refuse or own; got {value}.", value=repr(value)), where="person_blanks"
        )
    return text


def blank_mask(series: pd.Series) -> np.ndarray:
    """Rows whose person cell is blank (missing, or only spaces)."""
    text = series.astype("string")
    return (text.isna() | (text.str.strip() == "")).to_numpy(dtype=bool, na_value=True)


def blank_rows_error(column: str, rows: np.ndarray, total: int | None = None) -> DataError:
    """One sentence naming the rows (1-based, as a spreadsheet numbers them) whose person is blank."""
    n = int(total if total is not None else len(rows))
    shown = ", ".join(str(int(r) + 1) for r in rows[:10])
    if n > 10 or (total is not None and not len(rows)):
        shown = _("{values} and {n} more", values=shown, n=n - min(len(rows), 10)) if len(rows) else ""
    where = _(" (rows {rows})", rows=shown) if shown else ""
    return DataError(
        ngettext(
            "The person column '{column}' is blank in {n} row{where}: fill it in, or count each blank row as "
            "a person of its own (--person-blanks own).",
            "The person column '{column}' is blank in {n} rows{where}: fill them in, or count each blank row "
            "as a person of its own (--person-blanks own).",
            n,
            column=column,
            where=where,
        ),
        where=column,
    )


def person_codes(series: pd.Series, blanks: str = "refuse") -> tuple[np.ndarray, int]:
    """The person of every row as a code 0..P-1, and P; a blank cell gets the code P (each blank row a
    person of its own, see :mod:`kanon_engine.core.persons`) or, with ``blanks="refuse"``, a DataError
    naming the rows."""
    blank = blank_mask(series)
    if blank.any() and blanks != "own":
        raise blank_rows_error(str(series.name), np.flatnonzero(blank))
    text = series.astype(object).where(~blank, None)
    codes, uniques = pd.factorize(text, use_na_sentinel=True)
    n = len(uniques)
    return np.where(codes < 0, n, codes).astype(np.int64), n


# --- what a table says about persons --------------------------------------------------------------------
#: Share of a column's values that must be distinct for it to look like a patient number (not a
#: category such as a ward): below it, repeats say nothing about persons.
ID_LIKE_SHARE = 0.02
#: Share of repeated values whose rows agree on the patient-level columns for the column to count as a
#: person column (birth date, sex and postcode do not change between a patient's stays).
AGREEMENT = 0.95
#: Kinds of column whose value belongs to the patient, not the stay (see :mod:`kanon_engine.data.roles`).
PATIENT_LEVEL_KINDS = frozenset({"date of birth", "sex", "postcode", "town", "nationality", "age"})


def repeats_like_person(frame: pd.DataFrame, column: str, patient_level: list[str]) -> bool:
    """Whether ``column`` repeats across rows whose patient-level columns agree: identifier-like (many
    distinct values), some values on several rows, and (when there are patient-level columns) rows that
    share a value agree on them for nearly every repeated value. Vectorized: one grouping per column."""
    values = frame[column]
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    n = len(values)
    if n < 2 or len(uniques) < max(2, ID_LIKE_SHARE * n) or len(uniques) >= n:
        return False
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
    repeated = counts > 1
    if not repeated.any():
        return False
    if not patient_level:
        return True
    agree = np.ones(len(uniques), dtype=bool)
    for col in patient_level:
        other, _u = pd.factorize(frame[col], use_na_sentinel=False)
        lo = np.full(len(uniques), np.iinfo(np.int64).max)
        hi = np.full(len(uniques), -1)
        ok = codes >= 0
        np.minimum.at(lo, codes[ok], other[ok])
        np.maximum.at(hi, codes[ok], other[ok])
        agree &= lo == hi
    return bool(agree[repeated].mean() >= AGREEMENT)


def differing_persons(frame: pd.DataFrame, person: str, columns: list[str]) -> tuple[str, int, Any] | None:
    """The first patient-level column whose value differs between the rows of one person: (column, the
    number of persons concerned, one such person's number), or None. Such values are said, never
    reconciled: kanon does not guess which of a patient's birth dates is right."""
    codes, uniques = pd.factorize(frame[person], use_na_sentinel=True)
    ok = codes >= 0
    for col in columns:
        other, _u = pd.factorize(frame[col], use_na_sentinel=False)
        lo = np.full(len(uniques), np.iinfo(np.int64).max)
        hi = np.full(len(uniques), -1)
        np.minimum.at(lo, codes[ok], other[ok])
        np.maximum.at(hi, codes[ok], other[ok])
        differ = np.flatnonzero(lo != hi)
        if len(differ):
            return col, int(len(differ)), uniques[differ[0]]
    return None


def patient_level_columns(columns: Any) -> list[str]:
    """The columns whose name says they belong to the patient, not the stay (birth date, sex, postcode)."""
    return [str(c) for c in columns if (m := match_name(str(c))) is not None and m[0] in PATIENT_LEVEL_KINDS]


def rows_not_persons_warning(table: Any, roles: Mapping[str, Any]) -> list[str]:
    """Without a person column: the identifier or insensitive columns that repeat like a patient number
    (rows sharing a value agree on birth date, sex, postcode), said once each: k counts rows here."""
    frame = getattr(table, "frame", None)
    if frame is None or Role.PERSON.value in [str(r) for r in roles.values()]:
        return []
    level = patient_level_columns(frame.columns)
    candidates = [c for c, r in roles.items() if str(r) in (Role.IDENTIFIER.value, Role.INSENSITIVE.value)]
    return [
        _(
            "The column '{column}' repeats across rows with the same birth date, sex or postcode: it looks "
            "like a patient number, so one person has several rows and k counts rows, not persons. Give it "
            "the role person (patient number), --person {column} on the command line, to count persons.",
            column=c,
        )
        for c in candidates
        if c in frame.columns and repeats_like_person(frame, c, [x for x in level if x != c])
    ]


def differing_warning(frame: pd.DataFrame, person: str) -> list[str]:
    """Under the person role: a patient-level column (birth date, sex, postcode by its name) whose value
    differs between the rows of one person, said in one sentence (kanon does not guess which is right)."""
    level = patient_level_columns(frame.columns)
    found = differing_persons(frame, person, [c for c in level if c != person])
    if found is None:
        return []
    column, n, _who = found
    return [
        ngettext(
            "'{column}' differs between the rows of {n} person of '{person}', though it belongs to the "
            "person: check those rows; kanon does not guess which value is right.",
            "'{column}' differs between the rows of {n} persons of '{person}', though it belongs to the "
            "person: check those rows; kanon does not guess which value is right.",
            n,
            column=column,
            person=person,
        )
    ]
