"""Frequency sets: the counts of distinct quasi-identifier combinations (LeFevre et al. 2005, Incognito).

A frequency set at a lattice node holds one row per distinct (generalized QI combination, sensitive
combination) with its count, plus one representative leaf code per QI. Because a hierarchy is a tree,
the generalization of any representative at a higher level is the generalization of the whole group, so
the frequency set of a more general node is *rolled up* from any cached less general one, never from the
rows of the table (the Incognito "rollup" property). On Adult the bottom frequency set has a few
thousand rows instead of 30,162; replicating the table changes only the counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kanon_engine.encoding import EncodedTable

_DENSE_FACTOR = 8
_MAX_KEY = 1 << 62


def dense_ids(key: np.ndarray, space: int) -> tuple[np.ndarray, int]:
    """Ids 0..g-1 of the distinct values of a non-negative int64 ``key`` below ``space``.

    A presence table is used when the key space is small (one pass, no sort or hash), hashing otherwise.
    """
    m = len(key)
    if space <= max(_DENSE_FACTOR * m, 1 << 16):
        present = np.zeros(space, dtype=bool)
        present[key] = True
        ids = np.cumsum(present, dtype=np.int64) - 1
        return ids[key], int(ids[-1] + 1) if space else 0
    codes, uniques = pd.factorize(key, sort=False)
    return codes.astype(np.int64), len(uniques)


def group_columns(columns: list[np.ndarray], sizes: list[int]) -> tuple[np.ndarray, int]:
    """Group rows by the combination of integer columns (``columns[i] < sizes[i]``).

    Returns the group id of every row and the number of groups; the key is a mixed-radix number,
    re-densified whenever it would overflow 64 bits.
    """
    if not columns:
        return np.zeros(0, dtype=np.int64), 0
    m = len(columns[0])
    key = np.zeros(m, dtype=np.int64)
    space = 1
    for col, size in zip(columns, sizes):
        size = max(int(size), 1)
        if space * size >= _MAX_KEY:
            key, space = dense_ids(key, space)
        key = key * size + col
        space *= size
    return dense_ids(key, space)


def representatives(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Index of one row of each group (any row will do: all rows of a group look alike)."""
    rep = np.empty(n_groups, dtype=np.int64)
    rep[group] = np.arange(len(group), dtype=np.int64)
    return rep


@dataclass(frozen=True, eq=False)
class FrequencySet:
    """Distinct (QI class, sensitive combination) rows at ``levels``, with counts.

    ``rep[q]`` is a representative leaf code of each row for QI ``q``; ``combo`` the id of the row's
    combination of sensitive values (into ``combos``), ``counts`` how many records share the row.
    """

    levels: tuple[int, ...]
    rep: np.ndarray  # (n_qi, m) int32 leaf codes
    combo: np.ndarray  # (m,) int64 sensitive combination id (0 when no sensitive attribute)
    counts: np.ndarray  # (m,) int64

    @property
    def size(self) -> int:
        return int(len(self.counts))

    @property
    def nbytes(self) -> int:
        return int(self.rep.nbytes + self.combo.nbytes + self.counts.nbytes)


@dataclass(frozen=True, eq=False)
class SensitiveCombos:
    """The distinct combinations of sensitive values: ``codes[a][c]`` = code of attribute a in combo c."""

    row_combo: np.ndarray  # (n_rows,) combo id of every record
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


def base_frequency_set(enc: EncodedTable, combos: SensitiveCombos) -> FrequencySet:
    """The frequency set of the bottom node (all levels 0), computed once from the records."""
    sizes = [h.distinct_at(0) for h in enc.hierarchies] + [combos.n_combos]
    cols = [enc.codes[q] for q in range(enc.n_qi)] + [combos.row_combo]
    group, n = group_columns(cols, sizes)
    rep = representatives(group, n)
    counts = np.bincount(group, minlength=n).astype(np.int64)
    return FrequencySet(tuple([0] * enc.n_qi), enc.codes[:, rep], combos.row_combo[rep], counts)


@dataclass(frozen=True, eq=False)
class NodeClasses:
    """Equivalence classes of a node, computed from a (less general) frequency set.

    ``row_class[i]`` is the class of row ``i`` of the node's own frequency set ``freq``; ``sizes`` the
    number of records per class.
    """

    freq: FrequencySet
    row_class: np.ndarray
    sizes: np.ndarray

    @property
    def n_classes(self) -> int:
        return int(len(self.sizes))


def roll_up(enc: EncodedTable, source: FrequencySet, levels: tuple[int, ...], n_combos: int) -> NodeClasses:
    """Classes and frequency set at ``levels`` from the frequency set of a node below it."""
    gen = [enc.level_maps[q][lv][source.rep[q]] for q, lv in enumerate(levels)]
    sizes = [enc.level_sizes[q][lv] for q, lv in enumerate(levels)]
    cls, n_classes = group_columns(gen, sizes)
    class_sizes = np.bincount(cls, weights=source.counts, minlength=n_classes).astype(np.int64)
    if n_combos <= 1:
        rep = representatives(cls, n_classes)
        freq = FrequencySet(levels, source.rep[:, rep], source.combo[rep], class_sizes)
        return NodeClasses(freq, np.arange(n_classes, dtype=np.int64), class_sizes)
    row, n_rows = dense_ids(cls * n_combos + source.combo, n_classes * n_combos) if (
        n_classes * n_combos < _MAX_KEY
    ) else group_columns([cls, source.combo], [n_classes, n_combos])
    rep = representatives(row, n_rows)
    counts = np.bincount(row, weights=source.counts, minlength=n_rows).astype(np.int64)
    freq = FrequencySet(levels, source.rep[:, rep], source.combo[rep], counts)
    return NodeClasses(freq, cls[rep], class_sizes)


def class_value_counts(
    classes: NodeClasses, combos: SensitiveCombos, attribute_index: int, n_values: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(class, value, count) triples of one sensitive attribute, one per distinct pair, sorted by class."""
    values = combos.codes[attribute_index][classes.freq.combo]
    n_classes = classes.n_classes
    pair, n_pairs = group_columns([classes.row_class, values], [n_classes, n_values])
    counts = np.bincount(pair, weights=classes.freq.counts, minlength=n_pairs).astype(np.int64)
    rep = representatives(pair, n_pairs)
    cls = classes.row_class[rep]
    val = values[rep]
    order = np.lexsort((val, cls))
    return cls[order], val[order], counts[order]
