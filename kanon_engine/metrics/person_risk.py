"""Persons, not rows: what a release does to the persons behind a stay-level table, and their risk.

Under the person role (:mod:`kanon_engine.data.persons`) a release is judged by persons: how many
distinct persons each released class holds, how many persons lost some of their rows to suppression and
how many lost all of them (:class:`PersonFacts`), and the re-identification risk of every person
(:class:`PersonRisk`), under the attacker models of El Emam & Dankar 2008 (JAMIA 15(5)) read per person:

- a person is re-identified through the released row of theirs that is hardest to hide: with ``p``
  persons in a class, the prosecutor risk of that row is ``1/p``, and a person's risk is the largest
  over their released rows (the attacker uses the stay they know in the smallest crowd);
- *journalist*: without a population table the population is the table itself, so it equals the
  prosecutor risk;
- *marketer*: the expected share of persons an attacker who links every person through their riskiest
  row re-identifies: the mean of the persons' risks;
- *sample uniques*: persons alone in some class of theirs (``p = 1``).

Rows are matched to classes as they are released (suppressed rows, ``*`` everywhere, are one class
like any other unless dropped), so the figures are computed from the release itself. All numpy over
(class, person) pairs, no loop per person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kanon_engine.core.frequency import group_columns
from kanon_engine.i18n import N_, _


def class_persons(row_class: np.ndarray, person: np.ndarray, blank: int) -> tuple[np.ndarray, np.ndarray]:
    """Per (class, person) pair of the rows with a class (``row_class >= 0``): the pair's class and
    person, deduplicated; a blank person (code ``blank``) is a person of its own on every row, so its
    rows are pairs of their own."""
    kept = np.flatnonzero(row_class >= 0)
    cls, who = row_class[kept].astype(np.int64), person[kept].astype(np.int64)
    own = who == blank
    who = np.where(own, blank + 1 + kept, who)  # each blank row its own person
    ids, n = group_columns([cls, who], [int(cls.max(initial=-1)) + 1, int(who.max(initial=-1)) + 1])
    first = np.zeros(n, dtype=np.int64)
    first[ids] = np.arange(len(ids))
    return cls[first], who[first]


@dataclass(frozen=True)
class PersonFacts:
    """The persons of a release: ``persons`` in the table; per released class the distinct persons
    (``smallest``, ``median``); the persons who lost some rows to suppression and those who lost all;
    the persons in the group of kept suppressed rows; and M (``knows``, 0 = all)."""

    column: str
    persons: int
    classes: int
    smallest: int
    median: float
    lost_rows: int
    lost_all: int
    suppressed_group: int
    knows: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "column": self.column,
            "persons": self.persons,
            "classes": self.classes,
            "min_persons_per_class": self.smallest,
            "median_persons_per_class": self.median,
            "persons_lost_rows": self.lost_rows,
            "persons_lost_all_rows": self.lost_all,
            "persons_in_suppressed_group": self.suppressed_group,
            "person_knows": "all" if self.knows == 0 else self.knows,
        }


def person_facts(
    column: str, row_class: np.ndarray, person: np.ndarray, blank: int, knows: int, dropped: bool
) -> PersonFacts:
    """The facts of a release whose input row ``i`` is in class ``row_class[i]`` (-1: suppressed) and
    belongs to ``person[i]`` (codes; ``blank``: a blank cell, a person of its own)."""
    own = person == blank
    who = np.where(own, blank + 1 + np.arange(len(person)), person).astype(np.int64)
    ids, n_persons = group_columns([who], [int(who.max(initial=-1)) + 1])
    suppressed = row_class < 0
    lost = np.bincount(ids[suppressed], minlength=n_persons) > 0
    kept = np.bincount(ids[~suppressed], minlength=n_persons) > 0
    cls, _who = class_persons(row_class, person, blank)
    per_class = np.bincount(cls, minlength=int(row_class.max(initial=-1)) + 1) if len(cls) else cls
    per_class = per_class[per_class > 0]
    group = 0 if dropped else int(len(np.unique(ids[suppressed])))
    return PersonFacts(
        column,
        int(n_persons),
        int(len(per_class)),
        int(per_class.min()) if len(per_class) else 0,
        float(np.median(per_class)) if len(per_class) else 0.0,
        int(lost.sum()),
        int((lost & ~kept).sum()),
        group,
        int(knows),
    )


@dataclass(frozen=True)
class PersonRisk:
    """Re-identification risk per person (module docstring)."""

    persons: int
    classes: int
    smallest_class: int
    prosecutor_highest: float
    prosecutor_average: float
    threshold: float
    persons_above_threshold: int
    journalist_highest: float
    marketer: float
    sample_uniques: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "persons": self.persons,
            "classes": self.classes,
            "smallest_class_persons": self.smallest_class,
            "prosecutor_highest": self.prosecutor_highest,
            "prosecutor_average": self.prosecutor_average,
            "threshold": self.threshold,
            "persons_above_threshold": self.persons_above_threshold,
            "share_above_threshold": self.persons_above_threshold / self.persons if self.persons else 0.0,
            "journalist_highest": self.journalist_highest,
            "marketer": self.marketer,
            "sample_uniques": self.sample_uniques,
            "share_sample_uniques": self.sample_uniques / self.persons if self.persons else 0.0,
        }


def person_risk(row_class: np.ndarray, person: np.ndarray, blank: int, threshold: float) -> PersonRisk:
    """The risk of every person whose rows are in classes ``row_class`` (the suppressed group, when
    kept, one of them), summed up over the persons."""
    cls, who = class_persons(row_class, person, blank)
    if not len(cls):
        return PersonRisk(0, 0, 0, 0.0, 0.0, threshold, 0, 0.0, 0.0, 0)
    per_class = np.bincount(cls)
    ids, n_persons = group_columns([who], [int(who.max()) + 1])
    risk = np.zeros(n_persons)
    np.maximum.at(risk, ids, 1.0 / per_class[cls])
    present = per_class[per_class > 0]
    return PersonRisk(
        persons=int(n_persons),
        classes=int(len(present)),
        smallest_class=int(present.min()),
        prosecutor_highest=float(risk.max()),
        prosecutor_average=float(risk.mean()),
        threshold=float(threshold),
        persons_above_threshold=int((risk > threshold).sum()),
        journalist_highest=float(risk.max()),
        marketer=float(risk.mean()),
        sample_uniques=int((risk >= 1.0).sum()),
    )


#: Plain-language definitions of the per-person figures (catalog ids), keyed like ``to_dict``.
DEFINITIONS = {
    "persons": N_(
        "Persons, not rows: in a table with several rows per person (stays, visits), the figures per "
        "person count each person once. A person's risk is that of their released row in the group of "
        "fewest persons: an attacker who knows one of their stays uses the one that narrows it down most."
    ),
    "prosecutor_highest": N_(
        "Prosecutor risk per person, highest: 1/p for a person whose row is in a group of rows of p "
        "persons; the largest over all persons."
    ),
    "marketer": N_(
        "Marketer risk per person: the share of persons an attacker who links every person through their "
        "riskiest row re-identifies correctly, the mean of the persons' risks (the population is the "
        "table itself, so the journalist risk equals the prosecutor risk)."
    ),
    "sample_uniques": N_("Unique persons: persons alone in a group of theirs (p = 1)."),
}


def definitions() -> dict[str, str]:
    """:data:`DEFINITIONS` in the current language."""
    return {key: _(text) for key, text in DEFINITIONS.items()}
