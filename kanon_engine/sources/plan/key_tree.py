"""Which of Mondrian's partitions holds a row, from the row's keys alone: a cut tree rebuilt from the
partitions' bounds.

Strict Mondrian (LeFevre, DeWitt & Ramakrishnan 2006) cuts a partition in two by a threshold on one
attribute's key, so its partitions are the leaves of a binary tree of guillotine cuts, and a row's
partition follows from its keys by at most as many comparisons as the tree is deep. The streamed
release of a run too large for memory (:mod:`kanon_engine.algorithms.mondrian.engine`) used to find a
row's partition through its point (the sorted keys of all distinct combinations, 12 bytes a point:
1.2 GB for 100 million admissions); this tree needs about 13 bytes a *partition* (one partition holds
k to 2k-1 records) beside the partitions' bounds the run keeps anyway, which catch a row matching no
partition (the file changed after counting).

The tree is rebuilt from the tight bounds, not recorded during the run: any set of disjoint boxes that
guillotine cuts separate has such a tree, and the cuts Mondrian made still separate the tight bounds
of its partitions. Each level finds, for every group of partitions, the cut on one attribute that
separates them into two groups without crossing any partition and is the most balanced (so the tree
is about log2(partitions) deep, as the run's own). Relaxed Mondrian divides the records of one point
between partitions, whose bounds then overlap: :meth:`KeyTree.build` returns None, and the caller
keeps the points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class KeyTree:
    """Guillotine cuts over keys: internal node ``i`` sends a row left when its key on attribute
    ``dim[i]`` is at most ``threshold[i]``; a child below zero is the leaf ``-(child + 1)`` (a partition
    index). ``lower``/``upper`` (partitions, attributes) are every partition's bounds, to check that a row
    is inside (held, not copied: the caller's narrowest integer type)."""

    dim: np.ndarray  # (nodes,) int8
    threshold: np.ndarray  # (nodes,) int32
    left: np.ndarray  # (nodes,) int32
    right: np.ndarray  # (nodes,) int32
    lower: np.ndarray
    upper: np.ndarray

    @property
    def n_partitions(self) -> int:
        return int(self.lower.shape[0])

    @property
    def node_bytes(self) -> int:
        """Memory of the cuts themselves (the bounds are the caller's)."""
        return sum(a.nbytes for a in (self.dim, self.threshold, self.left, self.right))

    @classmethod
    def build(cls, lower: np.ndarray, upper: np.ndarray) -> KeyTree | None:
        """The tree over partitions with inclusive key bounds ``lower``/``upper`` (partitions, attributes);
        None when no guillotine cut separates some of them (overlapping bounds: relaxed Mondrian)."""
        n, d = lower.shape
        if n == 0 or d > 127:
            return None
        levels: list[tuple[np.ndarray, ...]] = []
        members = np.arange(n, dtype=np.int64)
        starts, sizes = np.zeros(1, dtype=np.int64), np.array([n], dtype=np.int64)
        if n == 1:
            starts = sizes = np.zeros(0, dtype=np.int64)
        next_id = 1
        while len(sizes):
            grp = np.repeat(np.arange(len(sizes)), sizes)
            found = _best_cuts(lower, upper, members, grp, starts, sizes)
            if found is None:
                return None
            dim, threshold = found
            side = lower[members, dim[grp]] > threshold[grp]
            members = members[np.argsort(2 * grp + side, kind="stable")]
            n_left = np.bincount(grp, weights=~side, minlength=len(sizes)).astype(np.int64)
            child_starts = np.stack([starts, starts + n_left], axis=1).ravel()
            child_sizes = np.stack([n_left, sizes - n_left], axis=1).ravel()
            inner = child_sizes > 1
            ids = next_id + np.cumsum(inner) - 1
            child = np.where(inner, ids, -(members[np.minimum(child_starts, n - 1)] + 1)).reshape(-1, 2)
            levels.append((dim.astype(np.int8), threshold.astype(np.int32), child[:, 0], child[:, 1]))
            next_id += int(inner.sum())
            starts, sizes = child_starts[inner], child_sizes[inner]
            members, starts = _compact(members, starts, sizes)
        if levels:
            dim, threshold, left, right = (np.concatenate(x) for x in zip(*levels))
        else:  # one partition: the root is its leaf
            dim, threshold, left, right = np.zeros(0, np.int8), *(np.zeros(0, np.int32) for _i in range(3))
        return cls(dim, threshold, left.astype(np.int32), right.astype(np.int32), lower, upper)

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """The partition of every row given its keys (attributes, rows); -1 where the row is in none."""
        n = keys.shape[1]
        if not len(self.dim):
            found = np.zeros(n, dtype=np.int64)
        else:
            found = np.empty(n, dtype=np.int64)
            rows = np.arange(n)
            node = np.zeros(n, dtype=np.int64)
            while len(rows):
                go_right = keys[self.dim[node], rows] > self.threshold[node]
                nxt = np.where(go_right, self.right[node], self.left[node]).astype(np.int64)
                leaf = nxt < 0
                found[rows[leaf]] = -nxt[leaf] - 1
                rows, node = rows[~leaf], nxt[~leaf]
        inside = np.ones(n, dtype=bool)
        for q in range(keys.shape[0]):
            inside &= (keys[q] >= self.lower[found, q]) & (keys[q] <= self.upper[found, q])
        return np.where(inside, found, -1)


def _compact(members: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Only the groups still open (the leaves drop out), each contiguous: the members and new starts."""
    new_starts = np.cumsum(sizes) - sizes
    pos = np.repeat(starts - new_starts, sizes) + np.arange(int(sizes.sum()))
    return members[pos], new_starts


def _best_cuts(
    lower: np.ndarray,
    upper: np.ndarray,
    members: np.ndarray,
    grp: np.ndarray,
    starts: np.ndarray,
    sizes: np.ndarray,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Per group of partitions (``members[starts[g]:starts[g] + sizes[g]]``, ``grp`` the group of each
    position), the attribute and threshold of the most balanced cut crossing none of them; None when a
    group has none."""
    n = len(members)
    big = int(max(upper.max(), 0)) + 1
    offset = grp * big
    last = np.zeros(n, dtype=bool)
    last[starts + sizes - 1] = True
    invalid = np.int64(n + 1)
    best = np.full(len(sizes), invalid * (n + 1), dtype=np.int64)
    dim = np.zeros(len(sizes), dtype=np.int64)
    threshold = np.zeros(len(sizes), dtype=np.int64)
    balance = np.abs(2 * (np.arange(n) - starts[grp] + 1) - sizes[grp])  # of a cut after each position
    for q in range(lower.shape[1]):
        lo_q, hi_q = lower[members, q].astype(np.int64), upper[members, q].astype(np.int64)
        order = np.argsort(offset + lo_q, kind="stable")  # within each group (groups stay in place)
        lo_s = lo_q[order]
        reach = np.maximum.accumulate(offset + hi_q[order]) - offset  # the highest key so far, per group
        ok = ~last & (reach < np.append(lo_s[1:], 0))
        score = np.where(ok, balance, invalid) * (n + 1) + np.arange(n)
        low = np.minimum.reduceat(score, starts)
        better = low < best
        pos = low % (n + 1)
        best[better] = low[better]
        dim[better] = q
        threshold[better] = reach[pos[better]]
    if (best >= invalid * (n + 1)).any():
        return None
    return dim, threshold
