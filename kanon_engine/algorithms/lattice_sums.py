"""The class sizes of every node of a lattice, summed the way SafePub's scores need them: for each node,
the records in classes of at least k, the sum of their squared sizes, and the records in smaller classes.

SafePub's exponential mechanism (Bild, Kuhn, Prasser, PoPETs 2018) weighs every node of the lattice, so
every node's classes are counted. Each node is rolled up from the frequency set of its direct
specialization with the fewest classes (one level lower in one attribute; Incognito's roll-up, LeFevre et
al. 2005), never from the records: every node below a node lies below one of its direct specializations,
and a generalization never has more classes, so that source is the smallest one can take. Nodes are taken
height by height, and a height's frequency sets are forgotten once the next height is counted.

A class is held as one integer key, the mixed-radix number of its generalized codes (radix: the
attribute's leaf count, which bounds its codes at every level of a tree hierarchy). Raising attribute a one
level changes only a's digit, by a table lookup (the parent's code at the new level, minus the old code,
times a's stride), so a roll-up is one lookup, one hash grouping of the keys (``pandas.factorize``: its
distinct keys are the new node's keys) and one weighted count, over the source's classes. Attributes whose
radices multiply past 2**62 are split into blocks with a key each, grouped together.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import FrequencySet, group_columns, representatives
from kanon_engine.core.lattice import Lattice
from kanon_engine.i18n import _
from kanon_engine.progress import ProgressCallback, no_progress

#: Largest product of radices one key holds.
MAX_KEY_SPACE = 1 << 62
#: Up to this many classes a roll-up groups its keys by sorting (``pandas.factorize`` costs some 40 µs a
#: call to set up, more than sorting a few hundred integers).
SORT_KEYS = 256
#: Memory the frequency sets of one height may hold; past it, nodes of the next height are rolled up from
#: the bottom node's (exact, slower).
HEIGHT_BYTES = 512 << 20


@dataclass(frozen=True)
class ClassSums:
    """Per node of a lattice, in index order (int64): records in classes of at least k (``kept``), the sum
    of those classes' squared sizes (``kept_squares``), records in smaller classes (``suppressed``), the
    number of classes (``classes``), and, when asked for, over every attribute below its top level the
    sum over its generalized values of the squared number of kept records showing it (``value_squares``,
    for SafePub's entropy score)."""

    kept: np.ndarray
    kept_squares: np.ndarray
    suppressed: np.ndarray
    classes: np.ndarray
    value_squares: np.ndarray

    @classmethod
    def zeros(cls, size: int) -> ClassSums:
        return cls(*(np.zeros(size, dtype=np.int64) for _i in range(5)))

    def add(self, idx: int, counts: np.ndarray, k: int, codes: list[np.ndarray] | None = None) -> None:
        """Record node ``idx``'s sums from its class sizes ``counts`` (and ``codes``: each class's code
        of every attribute below its top level, for ``value_squares``)."""
        ok = counts >= k
        kept = counts[ok]
        self.kept[idx] = kept.sum()
        self.kept_squares[idx] = kept @ kept
        self.suppressed[idx] = counts.sum() - self.kept[idx]
        self.classes[idx] = len(counts)
        for code in codes or ():
            per_value = np.bincount(code[ok], weights=kept).astype(np.int64)
            self.value_squares[idx] += per_value @ per_value


class KeyPlan:
    """How a class's generalized codes are packed into integer keys: attribute ``a`` is digit
    ``stride[a]`` (radix ``radix[a]``) of block ``block[a]``'s key."""

    def __init__(self, enc: EncodedTable) -> None:
        self.enc = enc
        self.radix = [int(sizes[0]) for sizes in enc.level_sizes]
        self.block: list[int] = []
        self.stride: list[int] = []
        space, n_blocks = 1, 0
        for r in self.radix:
            if n_blocks == 0 or space * max(r, 1) >= MAX_KEY_SPACE:
                n_blocks, space = n_blocks + 1, 1
            self.block.append(n_blocks - 1)
            self.stride.append(space)
            space *= max(r, 1)
        self.n_blocks = n_blocks
        self._steps: dict[tuple[int, int, int], np.ndarray] = {}

    def bottom_keys(self, base: FrequencySet) -> np.ndarray:
        """(n_blocks, m) keys of the classes of the bottom node (every attribute at level 0)."""
        leaves = base.leaves()
        keys = np.zeros((self.n_blocks, base.n_classes), dtype=np.int64)
        for a, maps in enumerate(self.enc.level_maps):
            keys[self.block[a]] += maps[0][leaves[a]].astype(np.int64) * self.stride[a]
        return keys

    def step(self, a: int, low: int, high: int) -> np.ndarray:
        """What raising attribute ``a`` from level ``low`` to ``high`` adds to a key, by a's code at
        ``low`` (the hierarchy is a tree, so a code's generalization does not depend on the leaf)."""
        hit = self._steps.get((a, low, high))
        if hit is None:
            maps = self.enc.level_maps[a]
            up = np.zeros(self.enc.level_sizes[a][low], dtype=np.int64)
            up[maps[low]] = maps[high]
            hit = (up - np.arange(len(up), dtype=np.int64)) * self.stride[a]
            self._steps[(a, low, high)] = hit
        return hit

    def code(self, keys: np.ndarray | list[np.ndarray], a: int) -> np.ndarray:
        """Attribute ``a``'s digit (its generalized code) of every class's key."""
        b, s = self.block[a], self.stride[a]
        code = keys[b] // s if s > 1 else keys[b]
        if a + 1 < len(self.block) and self.block[a + 1] == b:
            code = code % self.radix[a]
        return code

    def raise_levels(self, keys: np.ndarray, changes: list[tuple[int, int, int]]) -> list[np.ndarray]:
        """The keys of ``keys``'s classes after each change (attribute, from level, to level)."""
        out = list(keys)
        for a, low, high in changes:
            b = self.block[a]
            out[b] = out[b] + self.step(a, low, high)[self.code(out, a)]
        return out


def group_keys(cols: list[np.ndarray], weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of the key columns ``cols`` as (n_blocks, c) keys, and the summed ``weights`` of
    each (int64)."""
    if len(cols) == 1 and len(cols[0]) <= SORT_KEYS:
        distinct, ids = np.unique(cols[0], return_inverse=True)
        keys = distinct[None, :]
    elif len(cols) == 1:
        ids, distinct = pd.factorize(cols[0], sort=False)
        keys = np.asarray(distinct, dtype=np.int64)[None, :]
    else:
        dense = [pd.factorize(c, sort=False) for c in cols]
        ids, c = group_columns([d[0] for d in dense], [len(d[1]) for d in dense])
        keys = np.stack(cols)[:, representatives(ids, c)]
    counts = np.bincount(ids, weights=weights, minlength=keys.shape[1]).astype(np.int64)
    return keys, counts


def class_sums(
    enc: EncodedTable,
    base: FrequencySet,
    lattice: Lattice,
    k: int,
    progress: ProgressCallback = no_progress,
    values: bool = False,
) -> ClassSums:
    """:class:`ClassSums` of every node of ``lattice`` over the classes rolled up from ``base`` (the bottom
    node's frequency set of ``enc``), classes of fewer than ``k`` records counted as suppressed;
    ``value_squares`` only when ``values``."""
    plan = KeyPlan(enc)
    heights = enc.heights
    levels = lattice.levels
    strides = lattice.strides
    sums = ClassSums.zeros(lattice.size)
    bottom = (plan.bottom_keys(base), base.counts.astype(np.int64))
    stored: dict[int, tuple[np.ndarray, np.ndarray]] = {0: bottom}
    order, starts = lattice.by_height()
    done = 0
    for h in range(lattice.max_height + 1):
        nodes = order[starts[h] : starts[h + 1]]
        sources = _sources(lattice, nodes, sums.classes, stored) if h else np.zeros(1, dtype=np.int64)
        kept_now: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        held = 0
        for idx, attr in zip(nodes.tolist(), sources.tolist()):
            if done % 256 == 0:
                progress(0.9 * done / lattice.size, _("scoring the generalizations"))
            done += 1
            if h == 0:
                keys, counts = bottom
            elif attr >= 0:  # one level above the stored specialization idx - stride
                parent = stored[idx - int(strides[attr])]
                lv = int(levels[idx, attr])
                keys, counts = group_keys(plan.raise_levels(parent[0], [(attr, lv - 1, lv)]), parent[1])
            else:  # no specialization kept (over the memory budget): from the bottom
                changes = [(a, 0, int(lv)) for a, lv in enumerate(levels[idx]) if lv]
                keys, counts = group_keys(plan.raise_levels(bottom[0], changes), bottom[1])
            codes = [plan.code(keys, a) for a in _below_top(levels[idx], heights)] if values else None
            sums.add(idx, counts, k, codes)
            if held < HEIGHT_BYTES:
                kept_now[idx] = (keys, counts)
                held += keys.nbytes + counts.nbytes
        stored = kept_now
    return sums


def _below_top(levels: np.ndarray, heights: np.ndarray) -> list[int]:
    """The attributes whose values a node shows (below their top level, or never generalized)."""
    return [a for a, lv in enumerate(levels) if lv < heights[a] or not heights[a]]


def _sources(
    lattice: Lattice, nodes: np.ndarray, classes: np.ndarray, stored: dict[int, tuple[np.ndarray, np.ndarray]]
) -> np.ndarray:
    """For each node, the attribute whose direct specialization (one level lower there) is stored and
    has the fewest classes; -1 when none is stored."""
    lv = lattice.levels[nodes]
    preds = nodes[:, None] - lattice.strides[None, :]
    is_stored = np.zeros(lattice.size + 1, dtype=bool)
    is_stored[np.fromiter(stored, dtype=np.int64, count=len(stored))] = True
    usable = (lv > 0) & is_stored[np.where(lv > 0, preds, lattice.size)]
    cost = np.where(usable, classes[np.where(usable, preds, 0)], np.iinfo(np.int64).max)
    best = cost.argmin(axis=1)
    return np.where(usable[np.arange(len(nodes)), best], best, -1)
