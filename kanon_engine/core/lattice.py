"""The generalization lattice of full-domain transformations (Samarati 2001; LeFevre et al. 2005), the
record of what a search learned about it (its drawing geometry is :mod:`kanon_engine.present.lattice_layout`).

A node is a vector of levels, one per quasi-identifier; its height is the sum of levels; an edge goes one
level up in one attribute. Nodes are numbered in mixed radix (last attribute fastest), so the whole
lattice is an integer matrix and "all generalizations of a node" is one vectorized comparison.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kanon_engine.errors import InfeasibleError
from kanon_engine.i18n import N_, _

#: Exhaustive methods (optimal, incognito) refuse lattices larger than this.
MAX_EXHAUSTIVE_NODES = 500_000
#: Up to this size a search tags whole upsets/downsets as boxes of the lattice's grid (a few vector
#: operations over the box per check, :meth:`Lattice.box`); above it, by walking the lattice layer by
#: layer from the checked node and stopping at nodes already tagged (work proportional to what is newly
#: tagged).
DENSE_TAGGING_NODES = 1 << 16


class Lattice:
    """All full-domain transformations of attributes with the given maximal levels."""

    def __init__(self, max_levels: np.ndarray | list[int], names: tuple[str, ...] = ()) -> None:
        self.max_levels = np.asarray(max_levels, dtype=np.int64)
        self.names = tuple(names)
        self.radix = self.max_levels + 1
        self.size = int(np.prod(self.radix, dtype=object))
        self.strides = strides_of(self.max_levels)
        self._digits = list(zip(self.strides.tolist(), self.radix.tolist()))  # for node(): Python ints
        self._levels: np.ndarray | None = None
        self._heights: np.ndarray | None = None

    @staticmethod
    def require_size(size: int, algorithm: str, limit: int = MAX_EXHAUSTIVE_NODES) -> None:
        if size > limit:
            raise InfeasibleError(
                _(
                    "The generalization lattice has {size} transformations, too many for {algorithm} "
                    "(at most {limit}).",
                    size=size,
                    algorithm=algorithm,
                    limit=limit,
                ),
                hint=_(
                    "Use the heuristic search (the best release within a time limit, for any lattice), "
                    "Datafly or Mondrian; or fewer quasi-identifiers or shallower hierarchies."
                ),
                where="algorithm",
            )

    @property
    def levels(self) -> np.ndarray:
        """(size, n_attributes) matrix of every node's levels, in index order."""
        if self._levels is None:
            idx = np.arange(self.size, dtype=np.int64)
            self._levels = ((idx[:, None] // self.strides[None, :]) % self.radix[None, :]).astype(np.int64)
        return self._levels

    @property
    def heights(self) -> np.ndarray:
        """Height (sum of levels) of every node, in index order."""
        if self._heights is None:
            if self._levels is not None or self.size <= DENSE_TAGGING_NODES:
                self._heights = self.levels.sum(axis=1)
            else:  # without materializing the levels: one digit at a time, in small integers
                dtype = np.int16 if self.max_height < 1 << 15 else np.int64
                out: np.ndarray = np.zeros(self.size, dtype=dtype)
                idx = np.arange(self.size, dtype=np.int64)
                for stride, radix in zip(self.strides, self.radix):
                    out += ((idx // stride) % radix).astype(dtype)
                self._heights = out
        return self._heights

    def levels_of(self, indices: np.ndarray) -> np.ndarray:
        """(len(indices), n_attributes) levels of the given nodes (no lattice-wide matrix needed)."""
        return levels_of(self.max_levels, indices)

    def by_height(self) -> tuple[np.ndarray, np.ndarray]:
        """Node indices sorted by height then index, and where each height starts in that order
        (``order[starts[h]:starts[h + 1]]`` are the nodes at height h)."""
        heights = self.heights
        order = np.argsort(heights, kind="stable")
        starts = np.searchsorted(heights[order], np.arange(self.max_height + 2))
        return order, starts

    def neighbours(self, indices: np.ndarray, up: bool, scratch: np.ndarray | None = None) -> np.ndarray:
        """The distinct direct generalizations (``up``) or specializations of the given nodes.

        ``scratch`` (an int array of the lattice's size, contents irrelevant) removes duplicates in one
        pass instead of a sort."""
        idx = np.asarray(indices, dtype=np.int64)
        parts = []
        for stride, radix, top in zip(self.strides, self.radix, self.max_levels):
            digit = (idx // stride) % radix
            parts.append(idx[digit < top] + stride if up else idx[digit > 0] - stride)
        if not parts:
            return idx[:0]
        out = np.concatenate(parts)
        if scratch is None:
            return np.unique(out)
        pos = np.arange(len(out), dtype=scratch.dtype)
        scratch[out] = pos
        return out[scratch[out] == pos]

    @property
    def max_height(self) -> int:
        return int(self.max_levels.sum())

    def index(self, levels: tuple[int, ...] | np.ndarray) -> int:
        return int(np.dot(np.asarray(levels, dtype=np.int64), self.strides))

    def node(self, index: int) -> tuple[int, ...]:
        # (asked for every node of a search's paths: Python integers, half the time of array arithmetic)
        index = int(index)
        return tuple([(index // stride) % radix for stride, radix in self._digits])

    def bottom_up_order(self) -> np.ndarray:
        """Node indices by height, then index (the order every search visits nodes in)."""
        return np.lexsort((np.arange(self.size), self.heights))

    @property
    def shape(self) -> tuple[int, ...]:
        """The lattice as a grid: one axis per attribute, of its levels (a per-node array in index order
        reshaped to it is a view, as the last attribute varies fastest)."""
        return tuple(self.radix.tolist())

    def box(self, index: int, up: bool) -> tuple[slice, ...]:
        """The node and its generalizations (``up``) or specializations, as a box of :attr:`shape`:
        levels at least (at most) the node's in every attribute. Read or written through a per-node
        array's grid view, it costs a few operations over the box, not over the whole lattice."""
        node = self.node(index)
        if up:
            return tuple([slice(lv, None) for lv in node])
        return tuple([slice(0, lv + 1) for lv in node])

    def successors(self, index: int) -> list[int]:
        lv = self.node(index)
        return [index + int(self.strides[i]) for i in range(len(lv)) if lv[i] < self.max_levels[i]]

    def predecessors(self, index: int) -> list[int]:
        lv = self.node(index)
        return [index - int(self.strides[i]) for i in range(len(lv)) if lv[i] > 0]

    def at_height(self, height: int) -> np.ndarray:
        return np.flatnonzero(self.heights == height)


# Status of a node in a search record (what the algorithm learned about it).
NOT_EVALUATED = 0
SATISFIES = 1  # checked, satisfies the privacy model
FAILS = 2  # checked, fails
INFERRED_SATISFIES = 3  # not checked: a specialization satisfies (monotonicity)
INFERRED_FAILS = 4  # not checked: a generalization fails (monotonicity)
PRUNED = 5  # not checked: its metric bound cannot beat the optimum

STATUS_NAMES = {
    NOT_EVALUATED: N_("not evaluated"),
    SATISFIES: N_("satisfies"),
    FAILS: N_("fails"),
    INFERRED_SATISFIES: N_("satisfies (inferred)"),
    INFERRED_FAILS: N_("fails (inferred)"),
    PRUNED: N_("pruned by bound"),
}


@dataclass(eq=False)
class SearchRecord:
    """What a lattice search learned about every node, for the lattice viewer and the report."""

    names: tuple[str, ...]
    max_levels: np.ndarray
    status: np.ndarray  # int8 per node (index order)
    metric: np.ndarray  # float per node, NaN where not computed
    optimum: int | None = None
    metric_name: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def lattice(self) -> Lattice:
        return Lattice(self.max_levels, self.names)

    def satisfying(self) -> np.ndarray:
        """Indices of every node known (checked or inferred) to satisfy the model."""
        return np.flatnonzero((self.status == SATISFIES) | (self.status == INFERRED_SATISFIES))

    def counts(self) -> dict[str, int]:
        return {STATUS_NAMES[s]: int((self.status == s).sum()) for s in STATUS_NAMES}


# --- drawing geometry (no Qt): where the lattice view puts every node ------------------------------------
def strides_of(max_levels: np.ndarray) -> np.ndarray:
    """Mixed-radix strides of lattice indices (last attribute fastest), as :class:`Lattice` numbers nodes."""
    radix = np.asarray(max_levels, dtype=np.int64) + 1
    strides = np.ones(len(radix), dtype=np.int64)
    for i in range(len(radix) - 2, -1, -1):
        strides[i] = strides[i + 1] * radix[i + 1]
    return strides


def levels_of(max_levels: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """(n, n_qi) level vectors of the given node indices (without building the whole lattice)."""
    radix = np.asarray(max_levels, dtype=np.int64) + 1
    idx = np.asarray(indices, dtype=np.int64)
    return (idx[:, None] // strides_of(max_levels)[None, :]) % radix[None, :]


def satisfying_frontier(record: SearchRecord) -> np.ndarray:
    """Indices of the minimal satisfying nodes (no direct specialization known to satisfy), plus the
    optimum. Monotonicity makes every other satisfying node a generalization of one of these, so they
    summarize the solution space of a lattice too large to draw. Memory stays O(satisfying nodes)."""
    status = record.status
    sat = (status == SATISFIES) | (status == INFERRED_SATISFIES)
    idx = np.flatnonzero(sat).astype(np.int64)
    strides = strides_of(record.max_levels)
    radix = np.asarray(record.max_levels, dtype=np.int64) + 1
    has_sat_pred = np.zeros(len(idx), dtype=bool)
    for a in range(len(strides)):
        level = (idx // strides[a]) % radix[a]
        down = level > 0
        pred = np.where(down, idx - strides[a], 0)
        has_sat_pred |= down & sat[pred]
    out = idx[~has_sat_pred]
    if record.optimum is not None and record.optimum not in set(out.tolist()):
        out = np.sort(np.append(out, np.int64(record.optimum)))
    return out
