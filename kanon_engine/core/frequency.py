"""Frequency sets: the equivalence classes of a lattice node with their sizes (LeFevre et al. 2005,
Incognito), and the per-class histograms of sensitive attributes.

A frequency set at a lattice node holds one row per class (distinct generalized QI combination): its
size and one representative record's leaf codes. Because a hierarchy is a tree, the generalization of
the representative at a higher level is the generalization of the whole class, so the frequency set of a
more general node is *rolled up* from any cached less general one, never from the rows of the table (the
Incognito "rollup" property). The histograms of a sensitive attribute (how many records of each class
hold each value, :class:`Histograms`) roll up the same way, so l-diversity and t-closeness are checked on
the classes without regrouping records. On Adult the bottom frequency set has 12,458 classes instead of
30,162 records; replicating the table changes only the counts.

This module is the seam a table source (pandas in memory, DuckDB, Dask) fills: counting records into
the bottom frequency set is the only step that reads rows (:func:`base_frequency_set`); everything above
works on frequency sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kanon_engine.core.encoding import EncodedTable

_DENSE_FACTOR = 8
#: key spaces up to this size take the presence table up to _WIDE_FACTOR times the rows (reading a
#: table of booleans costs less than hashing the rows: a roll-up on Adult 20 % less)
_WIDE_FACTOR = 64
_WIDE_SPACE = 1 << 20
_SORT_ROWS = 2048
_MAX_KEY = 1 << 62
#: the keys :func:`group_columns` builds stay below this (a larger mixed-radix key is densified first)
KEY_LIMIT = _MAX_KEY


def _presence_fits(space: int, m: int) -> bool:
    """Whether ids of ``m`` keys below ``space`` come from a presence table (in key order)."""
    return space <= _DENSE_FACTOR * m or (space <= _WIDE_SPACE and space <= _WIDE_FACTOR * m)


def dense_ids(key: np.ndarray, space: int) -> tuple[np.ndarray, int]:
    """Ids 0..g-1 of the distinct values of a non-negative int64 ``key`` below ``space``.

    A presence table when the key space is small relative to the rows (one pass, no sort or hash), a
    sort for a few rows, hashing otherwise.
    """
    m = len(key)
    if _presence_fits(space, m):
        present = np.zeros(space, dtype=bool)
        present[key] = True
        found = np.flatnonzero(present)  # the keys that occur, in order: a key's id is its rank
        rank = np.empty(space, dtype=np.int64)  # written only where a key occurs (no pass over space)
        rank[found] = np.arange(len(found), dtype=np.int64)
        return rank[key], len(found)
    if m <= _SORT_ROWS:
        uniques, inverse = np.unique(key, return_inverse=True)
        return inverse.astype(np.int64, copy=False), len(uniques)
    codes, uniques = pd.factorize(key, sort=False)
    return codes.astype(np.int64), len(uniques)


def group_columns(columns: list[np.ndarray], sizes: list[int]) -> tuple[np.ndarray, int]:
    """Group rows by the combination of integer columns (``columns[i] < sizes[i]``).

    Returns the group id of every row and the number of groups; the key is a mixed-radix number,
    re-densified whenever it would overflow 64 bits.
    """
    if not columns:
        return np.zeros(0, dtype=np.int64), 0
    key = columns[0].astype(np.int64)
    space = max(int(sizes[0]), 1)
    for col, size in zip(columns[1:], sizes[1:]):
        size = max(int(size), 1)
        if space * size >= _MAX_KEY:
            key, space = dense_ids(key, space)
        key *= size
        key += col
        space *= size
    return dense_ids(key, space)


def representatives(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Index of one row of each group (any row will do: all rows of a group look alike)."""
    rep = np.empty(n_groups, dtype=np.int64)
    rep[group] = np.arange(len(group), dtype=np.int64)
    return rep


class CompositeLayout:
    """Packs attributes with small domains into composite columns, so a roll-up touches fewer arrays.

    Attributes are binned (first fit, largest domain first) while the product of their leaf counts stays
    within ``limit`` (small enough that a lookup array stays in the CPU's L1 cache); a composite leaf code
    is the mixed-radix number of the attributes' leaf codes, and the generalization of a whole bin at given
    levels is one precomputed lookup array (built on first use). On Adult the 8 quasi-identifiers become
    3 composite columns: a check does 3 gathers, not 8.
    """

    def __init__(self, enc: EncodedTable, limit: int = 1 << 12) -> None:
        self.enc = enc
        n = [len(h.values) for h in enc.hierarchies]
        bins: list[list[int]] = []
        prods: list[int] = []
        for a in sorted(range(enc.n_qi), key=lambda x: (-n[x], x)):
            for b, prod in enumerate(prods):
                if prod * n[a] <= limit:
                    bins[b].append(a)
                    prods[b] *= n[a]
                    break
            else:
                bins.append([a])
                prods.append(n[a])
        self.groups: list[list[int]] = [sorted(b) for b in bins]
        self.n_leaves = n
        self.sizes0 = [int(np.prod([n[a] for a in g], dtype=np.int64)) for g in self.groups]
        self.strides: list[list[int]] = []
        for g in self.groups:
            st, acc = [], 1
            for a in reversed(g):
                st.append(acc)
                acc *= n[a]
            self.strides.append(list(reversed(st)))
        self._maps: dict[tuple[int, tuple[int, ...]], tuple[np.ndarray, int]] = {}

    def compose(self, codes: np.ndarray) -> np.ndarray:
        """Composite leaf codes (n_groups, m) from per-attribute leaf codes (n_qi, m), as intp (numpy
        converts any other index type before every gather)."""
        out = np.empty((len(self.groups), codes.shape[1]), dtype=np.intp)
        for g, attrs in enumerate(self.groups):
            dims = [self.n_leaves[a] for a in attrs]
            out[g] = np.ravel_multi_index([codes[a] for a in attrs], dims)
        return out

    def decode(self, crep: np.ndarray) -> np.ndarray:
        """Per-attribute leaf codes (n_qi, m) from composite codes."""
        out = np.zeros((self.enc.n_qi, crep.shape[1]), dtype=np.int32)
        for g, (attrs, st) in enumerate(zip(self.groups, self.strides)):
            for a, s in zip(attrs, st):
                out[a] = (crep[g] // s) % self.n_leaves[a]
        return out

    def generalize(self, g: int, levels: tuple[int, ...]) -> tuple[np.ndarray, int]:
        """(composite leaf -> composite generalized code, number of codes) for bin ``g`` at ``levels``."""
        attrs = self.groups[g]
        key = (g, tuple(levels[a] for a in attrs))
        hit = self._maps.get(key)
        if hit is None:
            code = np.zeros(1, dtype=np.int64)
            size = 1
            for a in attrs:  # mixed radix over the product grid, first attribute slowest
                lv = levels[a]
                width = self.enc.level_sizes[a][lv]
                code = (code[:, None] * width + self.enc.level_maps[a][lv][None, :]).ravel()
                size *= width
            hit = (code.astype(np.int32) if size < (1 << 31) else code, size)
            self._maps[key] = hit
        return hit


@dataclass(frozen=True, eq=False)
class Histograms:
    """Per-class counts of one sensitive attribute's values: a sparse (class x value) matrix.

    Stored as the triples (class, value, count) of every pair that occurs, sorted by class then value, so
    a class with 3 distinct diagnoses costs 3 entries whatever the number of diagnoses in the table. Rolling
    up a frequency set maps the class of every triple and adds the counts of triples that meet (one
    grouping over the triples, never over records): the per-class distributions that l-diversity and
    t-closeness test are carried along with the classes.
    """

    cls: np.ndarray  # (nnz,) int64 class id
    val: np.ndarray  # (nnz,) int64 value code
    cnt: np.ndarray  # (nnz,) int64 records
    n_values: int

    @property
    def nbytes(self) -> int:
        return int(self.cls.nbytes + self.val.nbytes + self.cnt.nbytes)

    @classmethod
    def from_rows(
        cls,
        row_class: np.ndarray,
        values: np.ndarray,
        n_classes: int,
        n_values: int,
        weights: np.ndarray | None = None,
        binary: bool = False,
    ) -> Histograms:
        """Count the values of records grouped into classes (``row_class[i]`` of record ``i``); with
        ``weights``, row i stands for that many records. ``binary``: a two-valued attribute is counted
        as :class:`BinaryHistograms` (when every row weighs something)."""
        if weights is None:
            weights = np.ones(len(row_class), dtype=np.int64)
        if binary and n_values == 2 and (not len(weights) or weights.min() > 0):
            return BinaryHistograms.count(row_class, values, n_classes, weights)
        return _triples(
            row_class.astype(np.int64, copy=False),
            values.astype(np.int64),
            weights.astype(np.int64, copy=False),
            n_classes,
            n_values,
        )

    def roll_up(self, class_map: np.ndarray, n_classes: int) -> Histograms:
        """The histograms of coarser classes: ``class_map[c]`` is the new class of old class ``c``."""
        return _triples(class_map[self.cls], self.val, self.cnt, n_classes, self.n_values)

    def distinct(self, n_classes: int) -> np.ndarray:
        """Number of distinct values per class."""
        return np.bincount(self.cls, minlength=n_classes)


class BinaryHistograms(Histograms):
    """The histograms of a two-valued attribute as two counts per class: its records and those holding
    value 1 (the classification metric's usual target, such as a salary class).

    A roll-up then adds two columns by class (two ``bincount``s over the source's classes) instead of
    regrouping (class, value) pairs, which is most of what a check costs beyond the classes themselves.
    The pairs (:attr:`cls`, :attr:`val`, :attr:`cnt`, the same as :class:`Histograms` would hold) are
    built only when a reader asks for them. Only for rows that all weigh something: a pair of weight 0
    kept by :func:`_triples` would vanish from two counts.
    """

    def __init__(self, ones: np.ndarray, total: np.ndarray) -> None:  # noqa: D107
        object.__setattr__(self, "ones", ones)
        object.__setattr__(self, "total", total)
        object.__setattr__(self, "n_values", 2)
        object.__setattr__(self, "_pairs", None)

    ones: np.ndarray  # (n_classes,) float64 records holding value 1
    total: np.ndarray  # (n_classes,) float64 records

    @classmethod
    def count(
        cls, row_class: np.ndarray, values: np.ndarray, n_classes: int, weights: np.ndarray
    ) -> BinaryHistograms:
        """Count records (``weights[i]`` records in row i, of class ``row_class[i]``)."""
        w = weights.astype(np.float64)
        return cls(
            np.bincount(row_class, weights=w * values, minlength=n_classes),
            np.bincount(row_class, weights=w, minlength=n_classes),
        )

    def _triples(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pairs = self.__dict__["_pairs"]
        if pairs is None:
            table = np.stack([self.total - self.ones, self.ones], axis=1).ravel()
            found = np.flatnonzero(table)
            pairs = (found // 2, found % 2, table[found].astype(np.int64))
            object.__setattr__(self, "_pairs", pairs)
        return pairs

    @property
    def cls(self) -> np.ndarray:
        return self._triples()[0]

    @property
    def val(self) -> np.ndarray:
        return self._triples()[1]

    @property
    def cnt(self) -> np.ndarray:
        return self._triples()[2]

    @property
    def nbytes(self) -> int:
        return int(self.ones.nbytes + self.total.nbytes)

    def roll_up(self, class_map: np.ndarray, n_classes: int) -> Histograms:
        return BinaryHistograms(
            np.bincount(class_map, weights=self.ones, minlength=n_classes),
            np.bincount(class_map, weights=self.total, minlength=n_classes),
        )

    def roll_up_sized(self, class_map: np.ndarray, sizes: np.ndarray) -> BinaryHistograms:
        """:meth:`roll_up` given the coarser classes' sizes: a frequency set's class sizes count the same
        rows with the same weights as :attr:`total`, so its roll-up adds one column, not two."""
        ones = np.bincount(class_map, weights=self.ones, minlength=len(sizes))
        return BinaryHistograms(ones, sizes.astype(np.float64))

    def distinct(self, n_classes: int) -> np.ndarray:
        return (self.ones > 0).astype(np.int64) + (self.total > self.ones)


def _triples(cls: np.ndarray, val: np.ndarray, cnt: np.ndarray, n_classes: int, n_values: int) -> Histograms:
    """Sum the counts of equal (class, value) pairs; the result sorted by class, then value."""
    space = n_classes * n_values
    key = cls * n_values + val
    if len(key) and space <= _DENSE_FACTOR * len(key) and cnt.min() > 0:
        # few values (a two-valued target): count into the (class x value) table and read the pairs that
        # occur in key order, half the work of numbering the pairs first (a pair of weight 0 would vanish
        # from the table, so rows of weight 0, which the cell-level algorithms may hold, go the other way)
        table = np.bincount(key, weights=cnt, minlength=space)
        found = np.flatnonzero(table)
        return Histograms(found // n_values, found % n_values, table[found].astype(np.int64), n_values)
    if _presence_fits(space, len(key)) or len(key) <= _SORT_ROWS:
        ids, n = dense_ids(key, space)  # presence table or sort: ids follow the key order
    else:
        uniques, inverse = np.unique(key, return_inverse=True)
        ids, n = inverse.astype(np.int64, copy=False), len(uniques)
    counts = np.bincount(ids, weights=cnt, minlength=n).astype(np.int64)
    rep = representatives(ids, n)
    return Histograms(cls[rep], val[rep], counts, n_values)


@dataclass(frozen=True, eq=False)
class SensitiveCombos:
    """The distinct combinations of the sensitive values of records: ``codes[a][c]`` is the code of
    sensitive attribute ``a`` in combination ``c``. The cell-level algorithms split classes record by
    record, so their frequency rows keep each record's whole combination (the lattice searches, which
    never split a class, keep one histogram per attribute instead)."""

    row_combo: np.ndarray  # (n_rows,) combination of every record
    codes: np.ndarray  # (n_sens, n_combos)

    @property
    def n_combos(self) -> int:
        return int(self.codes.shape[1]) if self.codes.size else 1


def sensitive_combos(enc: EncodedTable) -> SensitiveCombos:
    """Factorize the records' combinations of sensitive values once."""
    if not enc.sensitive:
        return SensitiveCombos(np.zeros(enc.n_rows, dtype=np.int64), np.zeros((0, 1), dtype=np.int32))
    cols = [s.codes for s in enc.sensitive]
    row_combo, n = group_columns(cols, [len(s.values) for s in enc.sensitive])
    rep = representatives(row_combo, n)
    return SensitiveCombos(row_combo, np.stack([c[rep] for c in cols]).astype(np.int32))


@dataclass(frozen=True, eq=False)
class FrequencySet:
    """The equivalence classes of one lattice node: one row per class.

    Each class keeps one representative record's leaf codes as composite codes ``crep`` (see
    :class:`CompositeLayout`; :meth:`leaves` decodes them), its size in ``counts``, and, when a privacy
    model looks at a sensitive attribute, that attribute's per-class :class:`Histograms` in ``hists``
    (keyed by the attribute's index in the encoded table). ``hists`` is None while the histograms have not
    been rolled up (a node that already fails k-anonymity never needs them).
    """

    levels: tuple[int, ...]
    #: (n_groups, m) composite leaf codes; None in a roll-up until first asked for (:attr:`crep`)
    stored_crep: np.ndarray | None
    counts: np.ndarray  # (m,) int64 records per class
    layout: CompositeLayout
    hists: dict[int, Histograms] | None = None
    #: the bottom frequency set only: the class of every record (what the release writer maps records by)
    records: np.ndarray | None = None
    #: a roll-up's source rows (their composite codes) and the class of each, from which :attr:`crep`
    #: picks one representative per class when first asked for: most checked nodes never serve as the
    #: source of another roll-up nor reach a release, and picking costs a quarter of a roll-up
    origin: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def crep(self) -> np.ndarray:
        """(n_groups, m) composite leaf codes of one representative record of every class."""
        if self.stored_crep is None:
            assert self.origin is not None
            source_crep, cls = self.origin
            picked = source_crep[:, representatives(cls, len(self.counts))]
            object.__setattr__(self, "stored_crep", picked)
            object.__setattr__(self, "origin", None)
            return picked
        return self.stored_crep

    @property
    def size(self) -> int:
        return int(len(self.counts))

    @property
    def n_classes(self) -> int:
        return int(len(self.counts))

    @property
    def sizes(self) -> np.ndarray:
        return self.counts

    @property
    def nbytes(self) -> int:
        """Memory held: the class arrays and histograms (a roll-up not yet asked for its
        representatives holds its source's class of every row instead, and shares the source's codes)."""
        extra = sum(h.nbytes for h in self.hists.values()) if self.hists else 0
        held = self.stored_crep if self.stored_crep is not None else self.origin[1] if self.origin else None
        codes = held.nbytes if held is not None else 0
        return int(codes + self.counts.nbytes + extra)

    def leaves(self) -> np.ndarray:
        """Representative leaf codes per attribute (n_qi, m)."""
        return self.layout.decode(self.crep)


def base_frequency_set(
    enc: EncodedTable,
    layout: CompositeLayout | None = None,
    sensitive: tuple[int, ...] = (),
    binary: tuple[int, ...] = (),
) -> FrequencySet:
    """The frequency set of the bottom node (all levels 0), computed once from the records, with the
    histograms of the sensitive attributes numbered in ``sensitive`` (those in ``binary`` with two
    values as :class:`BinaryHistograms`)."""
    layout = layout or CompositeLayout(enc)
    crep_rows = layout.compose(enc.codes)
    group, n = group_columns([crep_rows[g] for g in range(len(layout.groups))], layout.sizes0)
    rep = representatives(group, n)
    counts = np.bincount(group, weights=enc.weights, minlength=n).astype(np.int64)
    hists = {
        s: Histograms.from_rows(
            group, enc.sensitive[s].codes, n, len(enc.sensitive[s].values), enc.weights, s in binary
        )
        for s in sensitive
    }
    return FrequencySet(tuple([0] * enc.n_qi), crep_rows[:, rep], counts, layout, hists, group)


def match_classes(a: FrequencySet, b: FrequencySet) -> np.ndarray:
    """For two frequency sets of the same node (rolled up from different sources, so numbered
    differently): the class of ``a`` of every class of ``b``."""
    layout = a.layout
    maps = [layout.generalize(g, a.levels) for g in range(len(layout.groups))]
    cols = [m[np.concatenate([a.crep[g], b.crep[g]])] for g, (m, _) in enumerate(maps)]
    ids, n_ids = group_columns(cols, [size for _, size in maps])
    class_of_id = np.full(n_ids, -1, dtype=np.int64)
    class_of_id[ids[: a.n_classes]] = np.arange(a.n_classes)
    return class_of_id[ids[a.n_classes :]]


def roll_up(
    source: FrequencySet, levels: tuple[int, ...], histograms: bool = False
) -> tuple[FrequencySet, np.ndarray]:
    """The frequency set at ``levels`` from the frequency set of a node below it, and the new class of
    every class of ``source`` (to roll up the histograms later with :func:`with_histograms` when
    needed; with ``histograms``, at once)."""
    layout = source.layout
    maps = [layout.generalize(g, levels) for g in range(len(layout.groups))]
    gen = [m[source.crep[g]] for g, (m, _) in enumerate(maps)]
    cls, n_classes = group_columns(gen, [size for _, size in maps])
    sizes = np.bincount(cls, weights=source.counts, minlength=n_classes).astype(np.int64)
    hists = _rolled_histograms(source, cls, sizes) if histograms else None
    return FrequencySet(levels, None, sizes, layout, hists, origin=(source.crep, cls)), cls


def with_histograms(target: FrequencySet, source: FrequencySet, class_map: np.ndarray) -> FrequencySet:
    """``target`` (rolled up from ``source`` with ``class_map``) with ``source``'s histograms rolled up."""
    hists = _rolled_histograms(source, class_map, target.counts)
    return FrequencySet(
        target.levels, target.stored_crep, target.counts, target.layout, hists, origin=target.origin
    )


def _rolled_histograms(
    source: FrequencySet, class_map: np.ndarray, sizes: np.ndarray
) -> dict[int, Histograms]:
    """``source``'s histograms rolled up into the classes of ``class_map`` (of these ``sizes``)."""
    assert source.hists is not None
    return {
        s: h.roll_up_sized(class_map, sizes)
        if isinstance(h, BinaryHistograms)
        else h.roll_up(class_map, len(sizes))
        for s, h in source.hists.items()
    }
