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
of a class are its pairs. Pairs are kept sorted by person, then class (the sets of
:mod:`kanon_engine.core.person_sets` read a person's pairs as one run), so after a roll-up they are
nearly sorted and merging them is one sort of nearly sorted integer keys, never a pass over the
table's rows. They live among the frequency set's histograms under the key
:data:`PERSON_KEY`, so caching, roll-ups and memory accounting treat them as histograms.

Most checked nodes only need to know which classes hold at least k persons, so a roll-up does not merge
(:class:`RolledPairs`): it maps the class of every pair (one gather) and carries per class two bounds on
its distinct persons, ``max`` (a class holds every person of each class merged into it) and ``sum``
(at most all of them, and no more than its records) of the merged classes' bounds. A class whose lower
bound reaches k passes, one whose upper bound stays below k fails, and only the pairs of the classes in
between are merged, with one sort of integer keys ``class * persons + person``
(:meth:`RolledPairs.at_least`). The full merge is made once, when something needs the pairs themselves
(:meth:`RolledPairs.merged`: other models, ``--person-knows`` above 1, the release).

A blank person cell, when the user chose so, is a person of its own: it has the code ``P`` (one more than
the last person), and a pair of that code counts its records as persons.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
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
        order = np.argsort(key)  # equal keys are one entry: no need for a stable sort (3x faster)
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

    def roll_up(self, class_map: np.ndarray, n_classes: int) -> Histograms:
        """The pairs of coarser classes (``class_map[c]``: the new class of class ``c``), not merged
        until needed (:class:`RolledPairs`)."""
        return RolledPairs.of(self, class_map, n_classes)

    def weights(self) -> np.ndarray:
        """Persons of every pair: 1, or its records for a blank cell's pair."""
        return np.where(self.val == self.blank, self.cnt, 1)

    def per_class(self, n_classes: int) -> np.ndarray:
        """Distinct persons per class."""
        return np.bincount(self.cls, weights=self.weights(), minlength=n_classes).astype(np.int64)

    def persons_among(self, pair_mask: np.ndarray) -> int:
        """Distinct persons of the pairs selected by ``pair_mask`` (blank records each one person)."""
        return _persons_among(self, pair_mask)


def _persons_among(h: Histograms, pair_mask: np.ndarray) -> int:
    """Distinct persons of the (class, person, records) entries of ``h`` selected by ``pair_mask``,
    merged or not (a blank cell, the last code, counts its records)."""
    blank = h.val == h.n_values - 1
    named = int(len(np.unique(h.val[pair_mask & ~blank])))
    return named + int(h.cnt[pair_mask & blank].sum())


def _distinct_per_class(h: Histograms, entries: np.ndarray, n_classes: int) -> np.ndarray:
    """Distinct persons per class among the (class, person, records) ``entries`` of ``h`` (indices),
    merged or not: one sort of the integer keys ``class * persons + person`` (np.sort), a blank
    cell's records each one person."""
    cls, val = h.cls[entries], h.val[entries]
    blank = val == h.n_values - 1
    out = np.bincount(cls[blank], weights=h.cnt[entries][blank], minlength=n_classes).astype(np.int64)
    width = max(int(h.n_values), 1)
    if n_classes * width < _MAX_KEY:
        keys = np.sort(cls[~blank].astype(np.int64) * width + val[~blank])
        first = np.empty(len(keys), dtype=bool)
        first[:1] = True
        np.not_equal(keys[1:], keys[:-1], out=first[1:])
        return out + np.bincount(keys[first] // width, minlength=n_classes)
    merged = PersonPairs._merged(cls[~blank], val[~blank], h.cnt[entries][~blank], n_classes, h.n_values)
    return out + np.bincount(merged.cls, minlength=n_classes)


@dataclass(frozen=True, eq=False)
class RolledPairs(Histograms):
    """Person pairs rolled up without merging: (class, person, records) entries where one person may
    have several entries in one class, in the order of the entries they came from (``val`` and ``cnt``
    are those arrays, shared; the bottom's are in class order), and per class bounds on its distinct
    persons,
    ``low <= persons <= high`` (module docstring). :meth:`merged` gives the :class:`PersonPairs`."""

    low: np.ndarray
    high: np.ndarray
    #: the merged pairs, once made (:meth:`merged`)
    done: PersonPairs | None = None

    @property
    def n_classes(self) -> int:
        return int(len(self.low))

    @property
    def nbytes(self) -> int:
        extra = self.done.nbytes if self.done is not None else 0
        return int(self.cls.nbytes + self.low.nbytes + self.high.nbytes + extra)

    @classmethod
    def of(cls, pairs: PersonPairs | RolledPairs, class_map: np.ndarray, n_classes: int) -> RolledPairs:
        """``pairs`` (of the classes of a finer node) rolled up to the coarser classes
        (``class_map[c]``: the new class of class ``c``): one gather, and the bounds."""
        if isinstance(pairs, RolledPairs):
            low, high = pairs.low, pairs.high
            if pairs.done is not None and len(pairs.done.cls) < len(pairs.cls):
                pairs = pairs.done  # fewer entries once merged
        else:
            low = high = pairs.per_class(len(class_map))  # (the bottom's are counted once: person_base)
        new_low = np.zeros(n_classes, dtype=np.int64)
        np.maximum.at(new_low, class_map, low)
        new_high = np.zeros(n_classes, dtype=np.int64)
        np.add.at(new_high, class_map, high)
        return cls(class_map[pairs.cls], pairs.val, pairs.cnt, pairs.n_values, new_low, new_high)

    def roll_up(self, class_map: np.ndarray, n_classes: int) -> RolledPairs:
        return RolledPairs.of(self, class_map, n_classes)

    def merged(self) -> PersonPairs:
        """The merged pairs (each person once per class; sorted by person, then class), made once."""
        if self.done is None:
            done = PersonPairs._merged(self.cls, self.val, self.cnt, self.n_classes, self.n_values)
            object.__setattr__(self, "done", done)
            self.low[:] = self.high[:] = done.per_class(self.n_classes)
            return done
        return self.done

    def per_class(self, n_classes: int) -> np.ndarray:
        """Distinct persons per class: the bounds where they meet, the merged entries of the others."""
        open_ = self.low != self.high
        if open_.any():
            self._settle(open_)
        return self.low.copy()

    def at_least(self, k: int) -> np.ndarray:
        """Per class, whether it holds at least ``k`` distinct persons: decided by the bounds where
        they suffice, by merging the entries of the other classes only."""
        open_ = (self.low < k) & (self.high >= k)
        if open_.any():
            self._settle(open_)
        return self.low >= k

    def _settle(self, classes: np.ndarray) -> None:
        """Count the distinct persons of the selected classes exactly (their bounds become equal)."""
        entries = np.flatnonzero(classes[self.cls])
        exact = _distinct_per_class(self, entries, self.n_classes)
        self.low[classes] = self.high[classes] = exact[classes]

    def persons_among(self, pair_mask: np.ndarray) -> int:
        """Distinct persons of the entries selected by ``pair_mask`` (blank records each one person)."""
        return _persons_among(self, pair_mask)


def merged_pairs(fs: FrequencySet) -> PersonPairs:
    """The merged person pairs of a frequency set under the person role (merging rolled-up ones once)."""
    pairs = (fs.hists or {})[PERSON_KEY]
    if isinstance(pairs, RolledPairs):
        return pairs.merged()
    assert isinstance(pairs, PersonPairs)
    return pairs


def persons_at_least(fs: FrequencySet, k: int) -> np.ndarray:
    """Per class of a frequency set under the person role, whether it holds at least ``k`` distinct
    persons (what k-anonymity asks), merging as few pairs as the bounds allow."""
    pairs = (fs.hists or {})[PERSON_KEY]
    if isinstance(pairs, RolledPairs):
        return pairs.at_least(k)
    assert isinstance(pairs, PersonPairs)
    return pairs.per_class(fs.n_classes) >= k


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
    pairs = PersonPairs.of_rows(base.records, enc.persons, n, enc.n_persons, enc.weights)
    exact = pairs.per_class(n)  # the bounds of the bottom classes meet: every roll-up starts from them
    # in class order, so the roll-ups from the bottom read their class maps in order (3x faster than
    # in person order on a million pairs); the merged pairs, in person order, are ``done``
    order = np.argsort(pairs.cls)
    rolled = RolledPairs(
        pairs.cls[order], pairs.val[order], pairs.cnt[order], pairs.n_values, exact, exact.copy(), pairs
    )
    hists: dict[int, Histograms] = {PERSON_KEY: rolled}
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
    if not isinstance(pairs, (PersonPairs, RolledPairs)):
        return hists, None
    out = {a: h.collapse(n_classes) if isinstance(h, PersonValues) else h for a, h in hists.items() if a >= 0}
    return out, pairs.per_class(n_classes)


def person_stats(
    enc: EncodedTable,
    group: np.ndarray,
    n_groups: int,
    person: np.ndarray,
    codes: Mapping[int, np.ndarray],
    weights: np.ndarray,
) -> tuple[dict[int, Histograms], np.ndarray]:
    """Histograms (persons per value) and persons per group of groups of rows (``group[i]`` holds
    ``weights[i]`` records of person ``person[i]`` with the sensitive codes ``codes[a][i]``): the person
    counts of :meth:`kanon_engine.privacy.base.ClassStats.of_groups`, for points and for the frequency
    rows of the cell-level algorithms alike."""
    w = np.asarray(weights)
    pairs = PersonPairs.of_rows(group, person, n_groups, enc.n_persons, w)
    hists = {
        a: PersonValues.of_rows(
            group, c, person, n_groups, len(enc.sensitive[a].values), enc.n_persons, w
        ).collapse(n_groups)
        for a, c in codes.items()
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
    if cut is not None:  # ``cut`` is per merged pair
        pairs = merged_pairs(fs)
    assert isinstance(pairs, (PersonPairs, RolledPairs))
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
