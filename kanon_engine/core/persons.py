"""Persons behind the records: distinct persons per class as a second count of a frequency set.

In a stay-level table one person has several rows, so a class of 5 rows may hold 4 patients. Under the
person role (:mod:`kanon_engine.data.persons`) every model counts distinct persons: k-anonymity asks every
class to hold rows of at least k distinct persons, which is (X,Y)-anonymity with X the quasi-identifiers
and Y the person (Wang & Fung 2006, "Anonymizing sequential releases", KDD); l-diversity and t-closeness
count each person once per class and value (a patient with five stays of one diagnosis is one value,
not five). Suppression and its limit still count rows.

Distinct counts do not add up when classes merge (a patient in two merged classes is one patient, not
two), so a frequency set keeps, beside its classes, the deduplicated (class, person, records) *pairs*
(:class:`PersonPairs`), like the (class, value, records) triples of the sensitive histograms, and rolls
them up with the classes: a roll-up maps the class of every pair and merges pairs that meet. The persons
of a class are its pairs. Pairs are kept sorted by person, then class, so after a roll-up they are
nearly sorted and merging them is a sort of nearly sorted keys (timsort: close to one pass), never a
pass over the table's rows. They live among the frequency set's histograms under the key
:data:`PERSON_KEY`, so caching, roll-ups and memory accounting treat them as histograms.

A blank person cell, when the user chose so, is a person of its own: it has the code ``P`` (one more than
the last person), and a pair of that code counts its records as persons.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import (
    FrequencySet,
    Histograms,
    SensitiveCombos,
    group_columns,
    representatives,
    sensitive_combos,
)

#: The key of a frequency set's person pairs among its histograms (sensitive attributes are 0, 1, ...).
PERSON_KEY = -1
_MAX_KEY = 1 << 62


def _person_major(
    cls: np.ndarray, person: np.ndarray, inner: np.ndarray, cnt: np.ndarray, n_classes: int, n_inner: int
) -> tuple[np.ndarray, np.ndarray]:
    """The order that sorts entries by person, then ``inner`` (a value code, or 0), then class, and the
    start of every run of equal (person, inner, class): entries in the same run are one entry."""
    n_classes, n_inner = max(int(n_classes), 1), max(int(n_inner), 1)
    if int(person.max(initial=0)) + 1 <= _MAX_KEY // (n_classes * n_inner):
        key = (person * n_inner + inner) * n_classes + cls
        order = np.argsort(key, kind="stable")  # nearly sorted after a roll-up: timsort runs
        ks = key[order]
        new = np.empty(len(ks), dtype=bool)
        new[:1] = True
        np.not_equal(ks[1:], ks[:-1], out=new[1:])
    else:
        order = np.lexsort((cls, inner, person))
        p, i, c = person[order], inner[order], cls[order]
        new = np.empty(len(order), dtype=bool)
        new[:1] = True
        new[1:] = (p[1:] != p[:-1]) | (i[1:] != i[:-1]) | (c[1:] != c[:-1])
    return order, np.flatnonzero(new)


@dataclass(frozen=True, eq=False)
class PersonPairs(Histograms):
    """(class, person, records) of every class and person that meet: ``val`` is the person's code,
    ``n_values`` the number of persons plus one (the last code: a blank cell, each of whose records is
    a person of its own). Sorted by person, then class."""

    @property
    def blank(self) -> int:
        return self.n_values - 1

    @classmethod
    def of_rows(
        cls,
        row_class: np.ndarray,
        person: np.ndarray,
        n_classes: int,
        n_persons: int,
        weights: np.ndarray | None = None,
    ) -> PersonPairs:
        """The pairs of records grouped into classes (``row_class[i]``, ``person[i]``; with
        ``weights``, row i stands for that many records of that person)."""
        w = np.ones(len(row_class), dtype=np.int64) if weights is None else weights.astype(np.int64)
        keep = w > 0
        return cls._merged(
            row_class[keep].astype(np.int64), person[keep].astype(np.int64), w[keep], n_classes, n_persons + 1
        )

    @classmethod
    def _merged(
        cls, c: np.ndarray, p: np.ndarray, w: np.ndarray, n_classes: int, n_values: int
    ) -> PersonPairs:
        if not len(c):
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty, empty, n_values)
        order, starts = _person_major(c, p, np.zeros_like(p), w, n_classes, 1)
        first = order[starts]
        counts = np.add.reduceat(w[order], starts).astype(np.int64)
        return cls(c[first], p[first], counts, n_values)

    def roll_up(self, class_map: np.ndarray, n_classes: int) -> PersonPairs:
        """The pairs of coarser classes (``class_map[c]``: the new class of class ``c``)."""
        return self._merged(class_map[self.cls], self.val, self.cnt, n_classes, self.n_values)

    def weights(self) -> np.ndarray:
        """Persons of every pair: 1, or its records for a blank cell's pair."""
        return np.where(self.val == self.blank, self.cnt, 1)

    def per_class(self, n_classes: int) -> np.ndarray:
        """Distinct persons per class."""
        return np.bincount(self.cls, weights=self.weights(), minlength=n_classes).astype(np.int64)

    def persons_among(self, pair_mask: np.ndarray) -> int:
        """Distinct persons of the pairs selected by ``pair_mask`` (blank records each one person)."""
        sel = pair_mask & (self.val != self.blank)
        named = int(len(np.unique(self.val[sel])))
        return named + int(self.cnt[pair_mask & (self.val == self.blank)].sum())


@dataclass(frozen=True, eq=False)
class PersonValues(Histograms):
    """(class, value, person, records) of a sensitive attribute under the person role: ``val`` is
    ``value * persons + person`` (``persons``: the persons plus the blank code), so the triples roll up
    as histograms do; :meth:`collapse` gives the histograms the models read, whose counts are distinct
    persons per class and value."""

    persons: int = 1

    @classmethod
    def of_rows(
        cls,
        row_class: np.ndarray,
        values: np.ndarray,
        person: np.ndarray,
        n_classes: int,
        n_values: int,
        n_persons: int,
        weights: np.ndarray | None = None,
    ) -> PersonValues:
        w = np.ones(len(row_class), dtype=np.int64) if weights is None else weights.astype(np.int64)
        keep = w > 0
        p1 = n_persons + 1
        val = values[keep].astype(np.int64) * p1 + person[keep].astype(np.int64)
        return cls._merged(row_class[keep].astype(np.int64), val, w[keep], n_classes, n_values * p1, p1)

    @classmethod
    def _merged(
        cls, c: np.ndarray, val: np.ndarray, w: np.ndarray, n_classes: int, n_val: int, p1: int
    ) -> PersonValues:
        if not len(c):
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty, empty, n_val, p1)
        order, starts = _person_major(c, val % p1, val // p1, w, n_classes, max(n_val // p1, 1))
        first = order[starts]
        counts = np.add.reduceat(w[order], starts).astype(np.int64)
        return cls(c[first], val[first], counts, n_val, p1)

    def roll_up(self, class_map: np.ndarray, n_classes: int) -> PersonValues:
        return self._merged(class_map[self.cls], self.val, self.cnt, n_classes, self.n_values, self.persons)

    def collapse(self, n_classes: int) -> Histograms:
        """(class, value, distinct persons): each person once per class and value."""
        person = self.val % self.persons
        w = np.where(person == self.persons - 1, self.cnt, 1)
        return Histograms.from_rows(
            self.cls, self.val // self.persons, n_classes, self.n_values // self.persons, w
        )


def person_base(enc: EncodedTable, base: FrequencySet, sensitive: tuple[int, ...]) -> FrequencySet:
    """The bottom frequency set with the person pairs among its histograms, and the histograms of the
    ``sensitive`` attributes as (class, value, person) triples. ``base.records`` is the class of every
    row of ``enc``."""
    assert enc.persons is not None and base.records is not None
    n = base.n_classes
    hists: dict[int, Histograms] = {
        PERSON_KEY: PersonPairs.of_rows(base.records, enc.persons, n, enc.n_persons, enc.weights)
    }
    for s in sensitive:
        col = enc.sensitive[s]
        hists[s] = PersonValues.of_rows(
            base.records, col.codes, enc.persons, n, len(col.values), enc.n_persons, enc.weights
        )
    return FrequencySet(base.levels, base.crep, base.counts, base.layout, hists, base.records)


def split_hists(
    hists: dict[int, Histograms], n_classes: int
) -> tuple[dict[int, Histograms], np.ndarray | None]:
    """What the models read from a frequency set's histograms: per sensitive attribute its histograms
    (distinct persons per value under the person role), and the distinct persons per class (None
    without the person role)."""
    pairs = hists.get(PERSON_KEY)
    if not isinstance(pairs, PersonPairs):
        return hists, None
    out = {a: h.collapse(n_classes) if isinstance(h, PersonValues) else h for a, h in hists.items() if a >= 0}
    return out, pairs.per_class(n_classes)


def stats_of_rows(
    enc: EncodedTable,
    rows: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    attributes: tuple[int, ...],
    weights: np.ndarray,
) -> tuple[dict[int, Histograms], np.ndarray]:
    """Histograms (persons per value) and persons per group of groups of points (``group[i]`` holds
    ``weights[i]`` records of point ``rows[i]``, whose person is ``enc.persons[rows[i]]``): the person
    counts of :meth:`kanon_engine.privacy.base.ClassStats.from_rows`."""
    assert enc.persons is not None
    person = enc.persons[rows]
    pairs = PersonPairs.of_rows(group, person, n_groups, enc.n_persons, weights)
    hists = {
        a: PersonValues.of_rows(
            group,
            enc.sensitive[a].codes[rows],
            person,
            n_groups,
            len(enc.sensitive[a].values),
            enc.n_persons,
            weights,
        ).collapse(n_groups)
        for a in attributes
    }
    return hists, pairs.per_class(n_groups)


_REFERENCES: weakref.WeakKeyDictionary[Any, dict[int, np.ndarray]] = weakref.WeakKeyDictionary()


def reference_distribution(enc: EncodedTable, attribute: int) -> np.ndarray:
    """The whole table's distribution of a sensitive attribute counting each person once per value (the
    reference of t-closeness under the person role); cached per encoded table."""
    cache = _REFERENCES.setdefault(enc, {})
    if attribute not in cache:
        col = enc.sensitive[attribute]
        assert enc.persons is not None
        zero = np.zeros(enc.n_points, dtype=np.int64)
        h = PersonValues.of_rows(zero, col.codes, enc.persons, 1, len(col.values), enc.n_persons, enc.weights)
        counts = h.collapse(1)
        dist = np.zeros(len(col.values))
        dist[counts.val] = counts.cnt
        cache[attribute] = dist / max(dist.sum(), 1.0)
    return cache[attribute]


# --- step 4 and the release under the person role -------------------------------------------------------
def suppressed_persons(fs: FrequencySet, passes: np.ndarray, cut: np.ndarray | None = None) -> int:
    """Distinct persons among the records a node suppresses: those of failing classes, and the pairs
    ``cut`` out of passing ones (:mod:`kanon_engine.core.person_sets`)."""
    pairs = (fs.hists or {}).get(PERSON_KEY)
    assert isinstance(pairs, PersonPairs)
    mask = ~passes[pairs.cls]
    if cut is not None:
        mask |= cut
    return pairs.persons_among(mask)


def cut_points(enc: EncodedTable, point_class: np.ndarray, pairs: PersonPairs, cut: np.ndarray) -> np.ndarray:
    """Per point (row of ``enc``, of class ``point_class``): whether its (class, person) pair was cut
    out of its class (suppressed rows of a class that is released)."""
    assert enc.persons is not None
    p1 = pairs.n_values
    cut_keys = np.sort(pairs.cls[cut].astype(np.int64) * p1 + pairs.val[cut])
    keys = point_class.astype(np.int64) * p1 + enc.persons
    pos = np.minimum(np.searchsorted(cut_keys, keys), max(len(cut_keys) - 1, 0))
    return (point_class >= 0) & (cut_keys[pos] == keys) if len(cut_keys) else np.zeros(len(keys), bool)


# --- the cell-level algorithms: persons in the combinations of sensitive values ------------------------
def record_combos(enc: EncodedTable) -> SensitiveCombos:
    """The combinations the cell-level algorithms keep per frequency row: the sensitive values and,
    under the person role, the person as their last code (so a frequency row is one person's)."""
    if enc.persons is None:
        return sensitive_combos(enc)
    cols = [s.codes for s in enc.sensitive] + [enc.persons]
    row_combo, n = group_columns(cols, [len(s.values) for s in enc.sensitive] + [enc.n_persons + 1])
    rep = representatives(row_combo, n)
    return SensitiveCombos(row_combo, np.stack([c[rep] for c in cols]).astype(np.int64))


def combo_person_stats(
    enc: EncodedTable,
    group: np.ndarray,
    n_groups: int,
    combo: np.ndarray,
    weights: np.ndarray,
    combos: SensitiveCombos,
    attributes: tuple[int, ...],
) -> tuple[dict[int, Histograms], np.ndarray]:
    """:func:`stats_of_rows` for groups of frequency rows of the cell-level algorithms (row i:
    ``weights[i]`` records of the combination ``combo[i]`` of :func:`record_combos`)."""
    person = combos.codes[-1][combo]
    w = np.asarray(weights)
    pairs = PersonPairs.of_rows(group, person, n_groups, enc.n_persons, w)
    hists = {
        a: PersonValues.of_rows(
            group, combos.codes[a][combo], person, n_groups, len(enc.sensitive[a].values), enc.n_persons, w
        ).collapse(n_groups)
        for a in attributes
    }
    return hists, pairs.per_class(n_groups)
