"""Checks on any table as it is (a release, or raw data): equivalence classes and k of the table.

Used by ``python -m kanon_engine check``, ``risk`` and the GUI to verify a release independently of the
algorithm that made it. Rows that look alike are one class to an attacker, and that includes the rows
whose quasi-identifiers are all ``*``: a release marks suppressed records that way, and a record
generalized to the top of every hierarchy looks the same, so in a release file they cannot be told apart.
They form one class for k (its size must be 0 or at least k: Sweeney's Datafly step 4, "enforce the k
requirement on suppressed tuples"), and are also counted, as ``suppressed``, for the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.core.frequency import group_columns
from kanon_engine.data.records import named_values
from kanon_engine.errors import DataError
from kanon_engine.hierarchy.model import ROOT
from kanon_engine.i18n import N_, _
from kanon_engine.release.writer import FORMULA_STARTS


@dataclass(frozen=True)
class ClassCheck:
    """Equivalence classes of a table on a set of quasi-identifiers."""

    records: int
    suppressed: int  # rows whose quasi-identifiers are all * (they are one of the classes)
    classes: int
    smallest_class: int
    k: int  # the k the table achieves (its smallest class, the all-* rows' included); 0 when empty
    records_below_k: int  # records in classes smaller than the requested k
    classes_below_k: int
    requested_k: int

    @property
    def k_anonymous(self) -> bool:
        return self.records_below_k == 0

    def to_dict(self) -> dict[str, Any]:
        return named_values(
            self,
            *("k_anonymous", "requested_k", "k", "records", "suppressed", "classes", "smallest_class"),
            *("records_below_k", "classes_below_k"),
        )


def equivalence_classes(
    frame: pd.DataFrame, qi: list[str] | tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Class id of every row and the size of every class: rows with equal quasi-identifiers share one.

    Missing values form their own value (two missing ages are equal), as they do in a release.
    """
    codes = []
    sizes = []
    for q in qi:
        c, uniques = pd.factorize(frame[q], use_na_sentinel=True)
        c = np.where(c < 0, len(uniques), c)
        codes.append(c.astype(np.int64))
        sizes.append(len(uniques) + 1)
    ids, n = group_columns(codes, sizes)
    counts = np.bincount(ids, minlength=n)
    present = counts > 0
    renumber = np.cumsum(present) - 1
    return renumber[ids], counts[present]


@dataclass(frozen=True, eq=False)
class ReleaseClasses:
    """The classes of a table as an attacker sees them, and which rows are all-``*`` (suppressed)."""

    row_class: np.ndarray  # class id of every row (the all-* rows share one class)
    sizes: np.ndarray  # size of every class
    suppressed: np.ndarray  # per row: every quasi-identifier is the marker

    @property
    def n_suppressed(self) -> int:
        return int(self.suppressed.sum())

    @property
    def suppressed_class(self) -> int | None:
        """The id of the class of the all-``*`` rows, or None when there is none."""
        rows = np.flatnonzero(self.suppressed)
        return int(self.row_class[rows[0]]) if len(rows) else None


def release_classes(
    frame: pd.DataFrame, qi: list[str] | tuple[str, ...], suppressed_marker: str | None = ROOT
) -> ReleaseClasses:
    """:func:`equivalence_classes` and the rows whose quasi-identifiers all hold ``suppressed_marker``
    (None: raw data, where ``*`` is an ordinary value and no row counts as suppressed)."""
    row_class, sizes = equivalence_classes(frame, qi)
    supp = np.zeros(len(frame), dtype=bool)
    if suppressed_marker is not None and len(qi):
        supp[:] = True
        for q in qi:
            supp &= (frame[q].astype(object) == suppressed_marker).to_numpy()
    return ReleaseClasses(row_class, sizes, supp)


def check_table(
    frame: pd.DataFrame, qi: list[str] | tuple[str, ...], k: int, suppressed_marker: str | None = ROOT
) -> ClassCheck:
    """k of a table, its classes (the all-``*`` rows one of them), and the records in classes smaller
    than ``k``."""
    found = release_classes(frame, qi, suppressed_marker)
    sizes = found.sizes
    small = sizes < k
    return ClassCheck(
        records=int(len(frame)),
        suppressed=found.n_suppressed,
        classes=int(len(sizes)),
        smallest_class=int(sizes.min()) if len(sizes) else 0,
        k=int(sizes.min()) if len(sizes) else 0,
        records_below_k=int(sizes[small].sum()),
        classes_below_k=int(small.sum()),
        requested_k=int(k),
    )


# --- is this release of this table? is this population the table's? ------------------------------------
#: Share of the sample's records a population table may lack before it is refused as not the population.
POPULATION_MISSING_LIMIT = 0.5


def check_release_of(
    original: Any, release: pd.DataFrame, config: Any, release_name: str | None = None
) -> list[str]:
    """Refuse a release that cannot come from ``original`` (a DataError); return warnings about one that
    leaks (an identifier column still holding its values) or misses records.

    A release has at most one row per record of the table it was made from, keeps the table's other
    columns (sensitive, insensitive) value for value (in any order, fewer when rows were dropped), and
    holds no identifier; risk figures of another table's release would describe nothing.
    """
    release_name = _("the release") if release_name is None else release_name
    frame: pd.DataFrame = getattr(original, "frame", original)
    name = original.name() if hasattr(original, "name") else _("the table")
    missing_qi = [q for q in config.quasi_identifiers if q not in release.columns]
    if missing_qi:
        raise DataError(
            _(
                "The quasi-identifier '{missing_qi}' is not a column of {release_name}.",
                missing_qi=missing_qi[0],
                release_name=release_name,
            ),
            hint=_("Give the release made from {name}, with its quasi-identifier columns.", name=name),
            where=missing_qi[0],
        )
    n, m = len(frame), len(release)
    if m > n:
        raise _not_a_release(
            N_(
                "{release_name} has {m} rows but {name} has {n} records: a release has at most one row "
                "per record, so it is not a release of this table."
            ),
            release_name,
            name,
            release_name,
            m=m,
            n=n,
        )
    kept = [c for c in release.columns if c in frame.columns and c not in config.quasi_identifiers]
    for c in (c for c in kept if c not in config.identifiers):
        before = frame[c].astype(object).fillna("").astype(str).value_counts()
        after = _unneutralized(release[c].astype(object).fillna("").astype(str)).value_counts()
        extra = after.sub(before.reindex(after.index, fill_value=0), fill_value=0)
        if (extra > 0).any():
            raise _not_a_release(
                N_(
                    "The column '{column}' of {release_name} holds values {name} does not have (e.g. "
                    "'{value}'), or more of them: it is not a release of this table."
                ),
                release_name,
                name,
                c,
                column=c,
                value=str(extra[extra > 0].index[0]),
            )
    return _release_warnings(frame, release, [c for c in kept if c in config.identifiers], release_name, name)


def _not_a_release(sentence: str, release_name: str, name: str, where: str, **values: Any) -> DataError:
    """The error for a file ``release_name`` that cannot be a release of the table ``name``: ``sentence``
    (a catalog id naming both, ``{release_name}`` and ``{name}``, with ``values``) says why."""
    return DataError(
        _(sentence, release_name=release_name, name=name, **values),
        hint=_("Give the release made from {name}, or the table it was made from.", name=name),
        where=where,
    )


def _release_warnings(
    frame: pd.DataFrame, release: pd.DataFrame, identifiers: list[str], release_name: str, name: str
) -> list[str]:
    """Warnings about a release of this table: identifier columns still holding their values, missing
    records."""
    n, m = len(frame), len(release)
    warnings = []
    for c in identifiers:
        same = release[c].astype(object).isin(set(frame[c].dropna().astype(object)))
        if same.any():
            warnings.append(
                _(
                    "{release_name} still holds the identifier column '{column}' with its original values "
                    "({sum} of {m} rows): anyone reading it sees who each record is, whatever the figures "
                    "say.",
                    release_name=release_name,
                    column=c,
                    sum=int(same.sum()),
                    m=m,
                )
            )
    if m < n:
        warnings.append(
            _(
                "{release_name} has {m} rows for the {n} records of {name}: {n2} records are not in it "
                "(dropped as suppressed, or a part only); the figures describe the rows it has.",
                release_name=release_name,
                m=m,
                n=n,
                name=name,
                n2=n - m,
            )
        )
    return warnings


def _unneutralized(text: pd.Series) -> pd.Series:
    """Cell text without the apostrophe a CSV/XLSX export puts before formula-like values."""
    quoted = text.str.startswith("'") & text.str[1:2].isin(FORMULA_STARTS)
    return text.where(~quoted, text.str[1:])


def check_population(before: Any, population_name: str, table_name: str) -> list[str]:
    """Refuse a population table lacking most of the sample's records (a DataError), else warnings.

    A sample is drawn from its population, so every record's quasi-identifiers appear in it at least as
    often as in the sample; a population that lacks most records is another population, and journalist
    and marketer risks computed from it would be wrong.
    """
    missing = int(getattr(before, "population_missing", 0))
    n = int(before.figures.records)
    if missing == 0 or n == 0:
        return []
    text = _(
        "{population_name} lacks {missing} of the {n} records of {table_name} (fewer people in it match "
        "their quasi-identifiers than the table holds)",
        population_name=population_name,
        missing=missing,
        n=n,
        table_name=table_name,
    )
    if missing > POPULATION_MISSING_LIMIT * n:
        raise DataError(
            _("{text}: it is not the population this table was drawn from.", text=text),
            hint=_(
                "Give the population file the data was drawn from, or leave out --population (the table "
                "itself is then the population)."
            ),
            where=population_name,
        )
    return [_("{text}; for those, the table's own count is used as the population's.", text=text)]
