"""Cell-level recoding by cost-ordered peeling: the engine shared by local recoding (CG), local
suppression (CS) and full-domain generalization with cell suppression (AG_CS).

Every record gets a transformation of its own: a node of the generalization lattice (one level per
quasi-identifier). Records released at the same node with the same generalized values form a class
(the strict reading: a ``*`` or a hierarchy label is a value like any other). The problem is to choose
the nodes so that every class satisfies the privacy models at the least total cost (NCP for local
recoding, the number of ``*`` cells for local suppression). It is NP-hard (Meyerson & Williams 2004), so
this is a heuristic; tests bound its gap to the optimum by exhaustive search on small tables.

Peeling, on the frequency set of the table (distinct quasi-identifier rows with their counts):

1. every record is *open*. Lattice nodes are visited in increasing average cost over the open records
   (:class:`CostOrder`, a heap walk up from the bottom node: the lattice is never materialized);
2. at each node the open records are grouped by their generalized values; every group that satisfies
   the privacy models becomes a class released at that node and its records are closed. A node never
   needs a second visit: open records only leave, so its groups only shrink;
3. *donors* (local suppression, k-anonymity only): a group short of k may take records from classes
   larger than k whose values generalize to the group's, when what they pay (their cost at this node
   minus their cost now) is less than what the group's own records save by closing here (at least
   ``donor_gain`` each: a record left open pays one more ``*`` at least);
4. records still open after the last node (the top, where every value is its root) form one class; when
   it fails the models, records of other classes join it, cheapest first, until it passes.

The idea is ARX's iterative local recoding turned around (Prasser, Kohlmayer, Kuhn et al., "Lightning:
utility-driven anonymization of high-dimensional data", TDP 2016, and the iterative re-anonymization of
ARX 3.7+, Prasser et al., IEEE JBHI 2018): ARX applies the globally best transformation, then
anonymizes the records it suppressed again; here each round takes the *cheapest* transformation for the
records still open, so most records keep their values and only the rare ones climb the lattice, as in
bottom-up local recoding (Xu, Wang, Pei, Wang, Shi & Fu, "Utility-based anonymization using local
recoding", KDD 2006). Python loops run per visited node, never per record.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

import numpy as np

from kanon_engine.config import require_k_fits
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import (
    KEY_LIMIT,
    SensitiveCombos,
    dense_ids,
    group_columns,
    representatives,
)
from kanon_engine.errors import InfeasibleError
from kanon_engine.i18n import _
from kanon_engine.privacy.models import ClassStats, KAnonymity, PrivacyModel
from kanon_engine.progress import LazyText, ProgressCallback, no_progress

#: Largest number of nodes one run visits; past it the records still open go to the top node.
MAX_STEPS = 250_000
_EPS = 1e-12
#: lattices of at most this many nodes are ordered by one sort per reseed (:class:`CostOrder`)
SORTED_NODES = 4096
#: relative margin of :meth:`Peeler._may_take_donors` over the rounding of :meth:`Peeler._donate`'s sums
_SLACK = 1e-9


@dataclass(frozen=True, eq=False)
class PeelingInput:
    """A frequency set to recode: ``codes[q, r]`` is the leaf of row ``r`` in attribute ``q``'s
    hierarchy, ``counts[r]`` its records, ``combo[r]`` its combination of sensitive values.
    ``level_maps[q][j]`` maps a leaf to its code at level ``j`` (``level_sizes[q][j]`` codes) and
    ``cost[q][leaf, j]`` is what releasing that leaf at level ``j`` costs (per record)."""

    codes: np.ndarray
    counts: np.ndarray
    combo: np.ndarray
    level_maps: tuple[tuple[np.ndarray, ...], ...]
    level_sizes: tuple[tuple[int, ...], ...]
    cost: tuple[np.ndarray, ...]

    @property
    def n_qi(self) -> int:
        return len(self.level_maps)

    @property
    def heights(self) -> np.ndarray:
        return np.array([len(m) - 1 for m in self.level_maps], dtype=np.int64)

    def __post_init__(self) -> None:
        # per attribute and level: whether the level's map is the identity (its codes are the leaves)
        same = tuple(
            tuple(len(m) == size and bool((m == np.arange(size)).all()) for m, size in zip(maps, sizes))
            for maps, sizes in zip(self.level_maps, self.level_sizes)
        )
        object.__setattr__(self, "_identity", same)
        # per attribute and level: whether every leaf costs the same there
        flat = tuple(
            tuple(bool(len(c)) and bool((c == c[0]).all(axis=0)[j]) for j in range(c.shape[1]))
            for c in self.cost
        )
        object.__setattr__(self, "_flat", flat)
        # the leaves row by row, and per node the multipliers of its mixed-radix key (see :meth:`keys`)
        object.__setattr__(self, "_leaf_rows", np.ascontiguousarray(self.codes.T, dtype=np.int64))
        object.__setattr__(self, "_radix", {})
        object.__setattr__(self, "_same", {})

    def keys(self, rows: np.ndarray, node: np.ndarray) -> tuple[np.ndarray, int]:
        """Group ids of ``rows`` by their generalized values at ``node`` (the ids of
        :func:`group_columns` over every attribute: one with a single value adds nothing to its
        mixed-radix key, so it is left out; an identity level is not looked up)."""
        radix = self._node_radix(node)
        if radix is not None:
            multipliers, space = radix
            return dense_ids(self._leaf_rows[rows] @ multipliers, space)  # type: ignore[attr-defined]
        identity = self._identity  # type: ignore[attr-defined]
        cols, sizes = [], []
        for q in range(self.n_qi):
            lv = node[q]
            size = self.level_sizes[q][lv]
            if size == 1:
                continue
            codes = self.codes[q, rows]
            cols.append(codes if identity[q][lv] else self.level_maps[q][lv][codes])
            sizes.append(size)
        if not cols:
            return dense_ids(np.zeros(len(rows), dtype=np.int64), 1)
        return group_columns(cols, sizes)

    def _node_radix(self, node: np.ndarray) -> tuple[np.ndarray, int] | None:
        """When every attribute of ``node`` with more than one value shows its leaves (cell
        suppression's inputs: a leaf or ``*``) and their values multiply below :func:`group_columns`'s
        limit: the multiplier of each attribute in the mixed-radix key that :func:`group_columns`
        builds over those attributes (the last one's 1; attributes with one value 0) and the key's
        space. A key is then one product of a row's leaves with the multipliers: the same number, so
        the same group ids, in a few array operations instead of several per attribute."""
        key = node.tobytes()
        cache = self._radix  # type: ignore[attr-defined]
        if key not in cache:
            at = node.tolist()
            identity = self._identity  # type: ignore[attr-defined]
            multipliers = np.zeros(self.n_qi, dtype=np.int64)
            space, fits = 1, True
            for q in range(self.n_qi - 1, -1, -1):
                size = self.level_sizes[q][at[q]]
                if size == 1:
                    continue
                if not identity[q][at[q]] or space >= KEY_LIMIT:  # (a multiplier must fit int64)
                    fits = False
                    break
                multipliers[q] = space
                space *= size
            cache[key] = (multipliers, space) if fits and space < KEY_LIMIT else None
        return cache[key]

    def row_cost(self, rows: np.ndarray, node: np.ndarray) -> np.ndarray:
        """Cost per record of releasing ``rows`` at ``node`` (a level costing every leaf the same is
        added as one number: the same sums, in the same order)."""
        same = self._same_cost(node)
        if same is not None:
            return np.full(len(rows), same)
        out = np.zeros(len(rows))
        flat = self._flat  # type: ignore[attr-defined]
        for q in range(self.n_qi):
            lv = node[q]
            if flat[q][lv]:
                out += self.cost[q][0, lv]
            else:
                out += self.cost[q][self.codes[q, rows], lv]
        return out

    def _same_cost(self, node: np.ndarray) -> float | None:
        """Every record's cost at ``node`` when each level of it costs every leaf the same (cell
        suppression's inputs), summed as :meth:`row_cost` sums it (from 0, attribute by attribute);
        None otherwise. Kept per node."""
        key = node.tobytes()
        cache = self._same  # type: ignore[attr-defined]
        if key not in cache:
            at = node.tolist()
            flat = self._flat  # type: ignore[attr-defined]
            total: float | None = 0.0
            for q in range(self.n_qi):
                if not flat[q][at[q]]:
                    total = None
                    break
                total = float(np.float64(total) + self.cost[q][0, at[q]])
            cache[key] = total
        return cache[key]

    def row_cost_at(self, rows: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Cost per record of releasing each row at its own node (``nodes[i]`` for ``rows[i]``)."""
        out = np.zeros(len(rows))
        for q in range(self.n_qi):
            out += self.cost[q][self.codes[q, rows], nodes[:, q]]
        return out


@dataclass(frozen=True, eq=False)
class Peeling:
    """The outcome: ``entry_count[e]`` records of frequency row ``entry_row[e]`` are released in class
    ``entry_class[e]``, which is released at node ``class_levels[c]``."""

    entry_row: np.ndarray
    entry_class: np.ndarray
    entry_count: np.ndarray
    class_levels: np.ndarray  # (n_classes, n_qi)
    steps: int
    donated: int
    joined_top: int

    def record_classes(self, record_row: np.ndarray) -> np.ndarray:
        """The class of every record, given the frequency row of every record (the records of a row
        are shared out among the row's entries in record order)."""
        order = np.argsort(record_row, kind="stable")
        e_order = np.lexsort((self.entry_class, self.entry_row))
        ends = np.cumsum(self.entry_count[e_order])
        out = np.empty(len(record_row), dtype=np.int64)
        # the p-th record in row order belongs to the entry whose cumulative count first exceeds p
        out[order] = self.entry_class[e_order[np.searchsorted(ends, np.arange(len(order)), side="right")]]
        return out


class NoRelease(RuntimeError):
    """Peeling found no release: the records left at the top node fail the privacy models even with every
    other record joining them (the local algorithms rule this out up front with
    :func:`require_feasible`; under cell suppression the node simply does not satisfy)."""


class PeelingStopped(RuntimeError):
    """The caller's ``should_stop`` ended a run before its end (under cell suppression: the node is known
    to fail, or to be worse than a solution already found, whatever the rest of the run would do)."""


class GroupChecker:
    """Which groups of frequency rows satisfy every privacy model (the same model objects the
    full-domain searches use, on a frequency set built from the group ids)."""

    def __init__(self, enc: EncodedTable, models: tuple[PrivacyModel, ...], combos: SensitiveCombos) -> None:
        self.enc = enc
        self.models = tuple(models)
        self.combos = combos
        self.k = max(m.k for m in models if isinstance(m, KAnonymity))
        # under the person role k counts distinct persons: never the records alone
        self.simple = all(isinstance(m, KAnonymity) for m in models) and enc.persons is None
        names = [s.name for s in enc.sensitive]
        self.attributes = tuple(sorted({names.index(m.sensitive) for m in models if m.sensitive}))

    def passes(self, group: np.ndarray, n_groups: int, combo: np.ndarray, weights: np.ndarray) -> np.ndarray:
        sizes = np.bincount(group, weights=weights, minlength=n_groups).astype(np.int64)
        ok = sizes >= self.k
        if self.simple or not ok.any():
            return ok
        group = np.asarray(group, dtype=np.int64)
        stats = ClassStats.from_combos(
            self.enc, group, n_groups, combo, np.asarray(weights), self.combos, self.attributes
        )
        for m in self.models:
            ok &= m.passes(stats)
        return ok


class CostOrder:
    """Lattice nodes in increasing cost, where a node costs the sum of a per-attribute, per-level cost
    that grows with the level: a heap walk up from the bottom node (the k-smallest-sums enumeration),
    so a lattice of millions of nodes is never built. ``reseed`` changes the costs for the nodes not
    yet visited.

    The walk yields the unvisited nodes sorted by (cost, node): the heap's top is never above any node
    not yet yielded (each such node has a pushed predecessor, whose cost is not larger as the level
    costs only grow and rounding is monotone, and whose tuple is smaller on a tie). A lattice of at
    most :data:`SORTED_NODES` nodes (cell suppression's: one ``*`` level per attribute) is therefore
    sorted once per reseed instead, with the costs added in the walk's order: the same sequence."""

    def __init__(self, heights: np.ndarray) -> None:
        self.heights = tuple(int(h) for h in heights)
        self.visited: set[tuple[int, ...]] = set()
        self._heap: list[tuple[float, tuple[int, ...]]] = []
        self._pushed: set[tuple[int, ...]] = set()
        self._level_cost: list[np.ndarray] = []
        size = 1
        for h in self.heights:
            size *= h + 1
        #: every node (small lattices only), and the nodes in order from the last reseed
        self._nodes = _all_nodes(self.heights) if size <= SORTED_NODES else None
        self._sorted: list[tuple[int, ...]] = []
        self._at = 0

    def reseed(self, level_cost: list[np.ndarray]) -> None:
        self._level_cost = [np.maximum.accumulate(np.asarray(c, dtype=float)) for c in level_cost]
        if self._nodes is not None:
            nodes = self._nodes
            cost = np.zeros(len(nodes))
            for q, c in enumerate(self._level_cost):  # the order of :meth:`_cost`'s sum
                cost = cost + c[nodes[:, q]]
            keys = [nodes[:, q] for q in range(nodes.shape[1] - 1, -1, -1)]
            order = np.lexsort((*keys, cost))
            self._sorted = [tuple(n) for n in nodes[order].tolist()]
            self._at = 0
            return
        bottom = tuple(0 for _h in self.heights)
        self._heap = [(self._cost(bottom), bottom)]
        self._pushed = {bottom}

    def _cost(self, node: tuple[int, ...]) -> float:
        return float(sum(c[j] for c, j in zip(self._level_cost, node)))

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return self

    def __next__(self) -> tuple[int, ...]:
        if self._nodes is not None:
            while self._at < len(self._sorted):
                node = self._sorted[self._at]
                self._at += 1
                if node not in self.visited:
                    self.visited.add(node)
                    return node
            raise StopIteration
        while self._heap:
            _cost, node = heapq.heappop(self._heap)
            for q, h in enumerate(self.heights):
                if node[q] < h:
                    up = node[:q] + (node[q] + 1,) + node[q + 1 :]
                    if up not in self._pushed:
                        self._pushed.add(up)
                        heapq.heappush(self._heap, (self._cost(up), up))
            if node not in self.visited:
                self.visited.add(node)
                return node
        raise StopIteration


def _all_nodes(heights: tuple[int, ...]) -> np.ndarray:
    """Every node of the lattice with these heights, one row each."""
    grids = np.meshgrid(*[np.arange(h + 1, dtype=np.int64) for h in heights], indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1) if heights else np.zeros((1, 0), dtype=np.int64)


class Peeler:
    """One run of cost-ordered peeling (see the module docstring)."""

    def __init__(
        self,
        inp: PeelingInput,
        checker: GroupChecker,
        donor_gain: float | None = None,
        progress: ProgressCallback = no_progress,
        max_steps: int = MAX_STEPS,
        should_stop: Callable[[Peeler, np.ndarray], bool] | None = None,
    ) -> None:
        self.inp = inp
        #: asked before every visit (with the node about to be visited): True ends the run with
        #: :class:`PeelingStopped`
        self.should_stop = should_stop
        self.checker = checker
        self.k = checker.k
        self.donor_gain = donor_gain if checker.simple else None
        self.progress = progress
        self.max_steps = max_steps
        self.left = inp.counts.astype(np.int64).copy()
        self.open = np.flatnonzero(self.left > 0)
        self._rows: list[np.ndarray] = []
        self._cls: list[np.ndarray] = []
        self._cnt: list[np.ndarray] = []
        self._levels: list[np.ndarray] = []
        self.class_size = np.zeros(0, dtype=np.int64)
        self.class_cost = np.zeros(0)
        self.class_rep = np.zeros(0, dtype=np.int64)
        self.steps = self.donated = self.joined_top = 0
        self._top_rounds = 0
        #: counts the changes of the open records and classes: figures derived from them are kept
        #: until it moves (most visits change nothing)
        self.version = 0
        self._open_count = (-1, 0)
        self._dearest_donor = (-1, 0.0)
        self._donors = (-1, np.zeros(0, dtype=np.int64))
        # per attribute and level, the cheapest leaf's cost: what any record pays at least at a node
        self._least_cost = [np.asarray(c).min(axis=0) if len(c) else np.zeros(c.shape[1]) for c in inp.cost]
        self._least: dict[bytes, float] = {}  # per node (its levels' bytes)

    # --- the main loop -------------------------------------------------------------------------------
    def run(self) -> Peeling:
        total = int(self.left.sum())
        order = CostOrder(self.inp.heights)
        seeded_at = self._reseed(order)
        top = tuple(int(h) for h in self.inp.heights)
        for node in order:
            if not len(self.open) or self.steps >= self.max_steps:
                break
            self.steps += 1
            open_records = self.open_records()
            self.progress(
                1.0 - open_records / max(total, 1),
                LazyText(partial(_open_text, open_records)),
            )
            here = np.array(node, dtype=np.int64)
            if self.should_stop is not None and self.should_stop(self, here):
                raise PeelingStopped(node)
            self._visit(here)
            if node == top:
                break
            if len(self.open) and 2 * self.open_records() <= seeded_at:
                seeded_at = self._reseed(order)
        if len(self.open):
            self._merge_leftover(np.array(top, dtype=np.int64))
        if len(self.open):
            self._close_at_top(np.array(top, dtype=np.int64))
        return self._outcome()

    def open_records(self) -> int:
        """Records open now (kept until the next change)."""
        if self._open_count[0] != self.version:
            self._open_count = (self.version, int(self.left[self.open].sum()))
        return self._open_count[1]

    def _reseed(self, order: CostOrder) -> int:
        """Order the unvisited nodes by the average cost over the records open now."""
        rows, w = self.open, self.left[self.open].astype(float)
        total = max(float(w.sum()), 1.0)
        level_cost = []
        for q in range(self.inp.n_qi):
            n_leaves = self.inp.cost[q].shape[0]
            per_leaf = np.bincount(self.inp.codes[q, rows], weights=w, minlength=n_leaves)
            level_cost.append(per_leaf @ self.inp.cost[q] / total)
        order.reseed(level_cost)
        return int(w.sum())

    def _visit(self, node: np.ndarray) -> None:
        rows = self.open
        if self.checker.simple and self._idle(node, rows):
            return
        group, n_groups = self.inp.keys(rows, node)
        if self.donor_gain is not None and self.class_size.size:
            sizes = np.bincount(group, weights=self.left[rows], minlength=n_groups)
            short = sizes[(sizes > 0) & (sizes < self.k)]
            if self._may_take_donors(node, short) and self._donate(node, rows, group, n_groups, sizes):
                rows = self.open
                group, n_groups = self.inp.keys(rows, node)
        ok = self.checker.passes(group, n_groups, self.inp.combo[rows], self.left[rows])
        if ok.any():
            self._close(rows, group, ok, node)

    def _close(self, rows: np.ndarray, group: np.ndarray, ok: np.ndarray, node: np.ndarray) -> None:
        """Make the passing groups classes released at ``node``."""
        done = ok[group]
        new_id = np.cumsum(ok) - 1 + len(self.class_size)
        closed = rows[done]
        counts = self.left[closed]
        cls = new_id[group[done]]
        n_new = int(ok.sum())
        first = np.full(n_new, -1, dtype=np.int64)
        first[cls - len(self.class_size)] = closed
        self._rows.append(closed)
        self._cls.append(cls)
        self._cnt.append(counts)
        self._levels.append(np.repeat(node[None, :], n_new, axis=0))
        sizes = np.bincount(cls - len(self.class_size), weights=counts, minlength=n_new).astype(np.int64)
        self.class_size = np.concatenate([self.class_size, sizes])
        self.version += 1
        self.class_cost = np.concatenate([self.class_cost, self.inp.row_cost(first, node)])
        self.class_rep = np.concatenate([self.class_rep, first])
        self.left[closed] = 0
        self.open = rows[~done]

    # --- donors (k-anonymity only) ---------------------------------------------------------------------
    def _entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All entries as three arrays (consolidated in place)."""
        if len(self._rows) > 1:
            self._rows = [np.concatenate(self._rows)]
            self._cls = [np.concatenate(self._cls)]
            self._cnt = [np.concatenate(self._cnt)]
        return self._rows[0], self._cls[0], self._cnt[0]

    def _idle(self, node: np.ndarray, rows: np.ndarray) -> bool:
        """True when a visit of ``node`` can change nothing, known without grouping (k-anonymity
        only): the open records are fewer than k, so no group of them passes alone, and not even a
        group of all of them could take donors (:meth:`_may_take_donors`: the more records a group
        has, the more it gains and the fewer donors it needs)."""
        have = self.open_records()
        if have >= self.k:
            return False
        if self.donor_gain is None or not self.class_size.size:
            return True
        return not self._may_take_donors(node, np.array([float(have)]))

    def _may_take_donors(self, node: np.ndarray, have: np.ndarray) -> bool:
        """False when no group short of k (``have`` records each) can accept donors at ``node``, without
        looking at the candidates: a group takes exactly ``k - have`` donors, each costing at least the
        cheapest record at ``node`` minus the dearest donor class (never less than what :meth:`_donate`
        adds up), and accepts only when that total is under what its own records gain. Most visits end
        here when few records are left open (their groups hold one or two records)."""
        if not len(have):
            return False
        dearest = self._dearest_donor_cost()
        if dearest is None:
            return False
        least = self._least_at(node)
        delta = least - dearest
        if delta <= _EPS:
            return True
        gain = have * float(self.donor_gain or 0.0)
        return bool(((self.k - have) * delta <= gain + _SLACK * np.maximum(gain, 1.0)).any())

    def _least_at(self, node: np.ndarray) -> float:
        """What any record costs at least at ``node``: the cheapest leaf of each attribute, added in the
        order of :meth:`PeelingInput.row_cost`'s sum (so never above it), kept per node."""
        key = node.tobytes()
        if key not in self._least:
            least = 0.0
            for q, j in enumerate(node.tolist()):
                least += float(self._least_cost[q][j])
            self._least[key] = least
        return self._least[key]

    def _dearest_donor_cost(self) -> float | None:
        """The largest cost of a class that may give records (more than k), None when none may."""
        if self._dearest_donor[0] != self.version:
            donors = self.class_size > self.k
            dearest = float(self.class_cost[donors].max()) if donors.any() else np.nan
            self._dearest_donor = (self.version, dearest)
        value = self._dearest_donor[1]
        return None if np.isnan(value) else value

    def _donor_entries(self) -> np.ndarray:
        """The entries that may give records (records left, in a class larger than k), kept until the
        next change."""
        if self._donors[0] != self.version:
            e_row, e_cls, e_cnt = self._entries()
            self._donors = (self.version, np.flatnonzero((e_cnt > 0) & (self.class_size[e_cls] > self.k)))
        return self._donors[1]

    def _may_accept(
        self,
        need: np.ndarray,
        have: np.ndarray,
        key: np.ndarray,
        delta: np.ndarray,
        most: np.ndarray,
    ) -> bool:
        """False when no group short of k can accept donors, whatever :func:`_allocate` shares out: a
        group takes at most ``most`` records of each candidate (its records, or its class's spare) and
        accepts only ``k - have`` records, each costing at least its cheapest candidate's ``delta``,
        when their cost stays under its gain (``have * donor_gain``) or is nil. Then :meth:`_donate`
        moves nothing, so it need not share out."""
        n_key = len(need)
        most_in = np.bincount(key, weights=most, minlength=n_key)
        cheapest = np.full(n_key, np.inf)
        np.minimum.at(cheapest, key, delta)
        missing = self.k - have
        enough = need & (have + most_in >= self.k)
        if not enough.any():
            return False
        gain = have * float(self.donor_gain or 0.0)
        least = missing[enough] * cheapest[enough]
        limit = np.maximum(gain[enough], _EPS) + _SLACK * np.maximum(gain[enough], 1.0)
        return bool((least <= limit).any())

    def _donor_candidates(
        self, node: np.ndarray, rows: np.ndarray, group: np.ndarray, sizes: np.ndarray, cand: np.ndarray
    ) -> np.ndarray:
        """The entries of ``cand`` that could give records to a group short of k at ``node``; leaving
        out the others changes nothing :meth:`_donate` decides, and spares grouping them:

        - an entry whose record costs at least ``T`` more here than in its class (``T`` the largest
          gain of any short group) never gives to an accepted group (its group's cost would reach the
          gain), and every cheaper entry of its class or group comes before it in :func:`_allocate`'s
          order (by cost), so what those take is the same without it;
        - an entry whose value of the attribute with the most values at ``node`` is no short group's
          value cannot join any short group.
        """
        if not len(cand):
            return cand
        e_row, e_cls, _e_cnt = self._entries()
        short = (sizes > 0) & (sizes < self.k)
        gain = float(sizes[short].max()) * float(self.donor_gain or 0.0)
        least = self._least_at(node)
        dear = least - self.class_cost[e_cls[cand]] >= gain + _SLACK * max(gain, 1.0)
        cand = cand[~dear]
        widths = [self.inp.level_sizes[q][node[q]] for q in range(self.inp.n_qi)]
        q = widths.index(max(widths))  # the first of the widest, as np.argmax
        if widths[q] > 1 and len(cand):
            level = self.inp.level_maps[q][node[q]]
            wanted = np.zeros(widths[q], dtype=bool)
            wanted[level[self.inp.codes[q, rows[short[group]]]]] = True
            cand = cand[wanted[level[self.inp.codes[q, e_row[cand]]]]]
        return cand

    def _donate(
        self, node: np.ndarray, rows: np.ndarray, group: np.ndarray, n_groups: int, sizes: np.ndarray
    ) -> bool:
        """Complete groups short of k with records of classes larger than k, where that pays off;
        True when records moved (they are open again and match their new group's values)."""
        e_row, e_cls, e_cnt = self._entries()
        cand = self._donor_entries()
        cand = self._donor_candidates(node, rows, group, sizes, cand)
        if not len(cand):
            return False
        key, n_key = self.inp.keys(np.concatenate([rows, e_row[cand]]), node)
        k_open, k_cand = key[: len(rows)], key[len(rows) :]
        have = np.bincount(k_open, weights=self.left[rows], minlength=n_key).astype(np.int64)
        need = (have > 0) & (have < self.k)
        sel = need[k_cand]
        cand, k_cand = cand[sel], k_cand[sel]
        if not len(cand):
            return False
        delta = np.maximum(self.inp.row_cost(e_row[cand], node) - self.class_cost[e_cls[cand]], 0.0)
        if not self._may_accept(
            need, have, k_cand, delta, np.minimum(e_cnt[cand], self.class_size[e_cls[cand]] - self.k)
        ):
            return False
        take = _allocate(
            cand, e_cls[cand], k_cand, delta, e_cnt[cand], self.class_size - self.k, self.k - have
        )
        cost = np.bincount(k_cand, weights=take * delta, minlength=n_key)
        got = np.bincount(k_cand, weights=take, minlength=n_key)
        gain = have * float(self.donor_gain or 0.0)
        accept = need & (have + got >= self.k) & ((cost < gain - _EPS) | (cost <= _EPS))
        take = np.where(accept[k_cand], take, 0)
        if not take.any():
            return False
        moved = cand[take > 0]
        amount = take[take > 0]
        e_cnt[moved] -= amount
        np.subtract.at(self.class_size, e_cls[moved], amount)
        donor_rows = e_row[moved]
        np.add.at(self.left, donor_rows, amount)
        self._reopen(donor_rows)
        self.donated += int(amount.sum())
        self.version += 1
        return True

    # --- the top node ----------------------------------------------------------------------------------
    def _merge_leftover(self, top: np.ndarray) -> None:
        """When the records left open fail the models on their own, release them together with the
        class they join most cheaply: at the lowest node (at or above the class's own) where they and
        the class look alike, if that costs less than the top node would (KACA's merge of a small
        group into its closest class, Li, Wong, Fu & Pei, IEEE TKDE 2008)."""
        rows, w = self.open, self.left[self.open]
        group = np.zeros(len(rows), dtype=np.int64)
        if self.checker.passes(group, 1, self.inp.combo[rows], w)[0] or not self.class_size.any():
            return
        alive = np.flatnonzero(self.class_size > 0)
        levels = np.concatenate(self._levels)[alive]
        node, cost_open = self._meeting_nodes(rows, w, self.class_rep[alive], levels)
        members = self.class_size[alive]
        extra = members * (self.inp.row_cost_at(self.class_rep[alive], node) - self.class_cost[alive])
        total = cost_open + extra
        best = int(np.argmin(total))
        if total[best] >= self._top_estimate(rows, w, top) - _EPS:
            return
        e_row, e_cls, e_cnt = self._entries()
        moving = np.flatnonzero((e_cls == alive[best]) & (e_cnt > 0))
        self._move(moving, e_cnt[moving].copy())
        rows = self.open
        group = np.zeros(len(rows), dtype=np.int64)
        ok = self.checker.passes(group, 1, self.inp.combo[rows], self.left[rows])
        if ok[0]:
            self._close(rows, group, ok, node[best])

    def _meeting_nodes(
        self, rows: np.ndarray, w: np.ndarray, reps: np.ndarray, levels: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per class (representative row, node), the lowest node at or above the class's node where
        ``rows`` and the class share one released tuple, and what ``rows`` cost there in all."""
        inp = self.inp
        node = np.zeros_like(levels)
        cost = np.zeros(len(reps))
        for q in range(inp.n_qi):
            found = np.zeros(len(reps), dtype=bool)
            for j in range(int(inp.heights[q]) + 1):
                codes = inp.level_maps[q][j][inp.codes[q, rows]]
                if (codes != codes[0]).any():
                    continue
                meet = ~found & (levels[:, q] <= j) & (inp.level_maps[q][j][inp.codes[q, reps]] == codes[0])
                node[meet, q] = j
                cost[meet] += float((w * inp.cost[q][inp.codes[q, rows], j]).sum())
                found |= meet
        return node, cost

    def _top_estimate(self, rows: np.ndarray, w: np.ndarray, top: np.ndarray) -> float:
        """What releasing ``rows`` at the top node costs, with the cheapest records that would have to
        join them when they are fewer than k."""
        own = float((w * self.inp.row_cost(rows, top)).sum())
        short = self.k - int(w.sum())
        if short <= 0:
            return own
        e_row, e_cls, e_cnt = self._entries()
        live = np.flatnonzero(e_cnt > 0)
        delta = self.inp.row_cost(e_row[live], top) - self.class_cost[e_cls[live]]
        spare = np.minimum(e_cnt[live], np.maximum(self.class_size[e_cls[live]] - self.k, 0))
        order = np.argsort(delta, kind="stable")
        taken = np.minimum(np.cumsum(spare[order]), short)
        step = np.diff(np.concatenate([[0], taken]))
        if int(taken[-1]) >= short:
            return own + float((step * delta[order]).sum())
        whole = np.bincount(e_cls[live], weights=delta * e_cnt[live], minlength=len(self.class_size))
        return own + float(whole[self.class_size > 0].min())

    def _close_at_top(self, top: np.ndarray) -> None:
        """Release the records still open at the top node; when they fail the models, records of other
        classes join them, those whose cost rises least first."""
        while True:
            rows = self.open
            group = np.zeros(len(rows), dtype=np.int64)
            ok = self.checker.passes(group, 1, self.inp.combo[rows], self.left[rows])
            if ok[0]:
                self._close(rows, group, ok, top)
                return
            if not self._join_top(top, int(self.left[rows].sum())):
                raise NoRelease(_("the whole table fails the privacy models at the top node"))

    def _join_top(self, top: np.ndarray, have: int) -> bool:
        """Move records into the open top group: spare records of large classes when k alone is short,
        else whole classes (a batch that doubles each time). False when nothing is left to move."""
        e_row, e_cls, e_cnt = self._entries()
        live = np.flatnonzero(e_cnt > 0)
        if not len(live):
            return False
        delta = self.inp.row_cost(e_row[live], top) - self.class_cost[e_cls[live]]
        if self.checker.simple and have < self.k:
            spare = np.maximum(self.class_size - self.k, 0)
            zero = np.zeros(len(live), dtype=np.int64)
            take = _allocate(live, e_cls[live], zero, delta, e_cnt[live], spare, np.array([self.k - have]))
            if int(take.sum()) >= self.k - have:
                self._move(live[take > 0], take[take > 0])
                return True
        by_class = np.bincount(e_cls[live], weights=delta * e_cnt[live], minlength=len(self.class_size))
        alive = np.flatnonzero(self.class_size > 0)
        batch = alive[np.argsort(by_class[alive], kind="stable")][: 1 << min(self._top_rounds, 30)]
        self._top_rounds += 1
        moving = live[np.isin(e_cls[live], batch)]
        self._move(moving, e_cnt[moving].copy())
        return True

    def _move(self, entries: np.ndarray, amount: np.ndarray) -> None:
        """Reopen ``amount`` records of each entry (they join the open records)."""
        e_row, e_cls, e_cnt = self._entries()
        e_cnt[entries] -= amount
        np.subtract.at(self.class_size, e_cls[entries], amount)
        np.add.at(self.left, e_row[entries], amount)
        self._reopen(e_row[entries])
        self.version += 1
        self.joined_top += int(amount.sum())

    def _reopen(self, rows: np.ndarray) -> None:
        """``rows`` got records back (``left`` already raised): the open rows are the sorted union of
        the open ones and ``rows``, which are the rows with records left (``open`` always holds exactly
        those, in order), found without sorting."""
        self.open = np.flatnonzero(self.left > 0)

    def _outcome(self) -> Peeling:
        e_row, e_cls, e_cnt = self._entries() if self._rows else (np.zeros(0, np.int64),) * 3
        live = e_cnt > 0
        used = np.flatnonzero(self.class_size > 0)
        renumber = np.full(len(self.class_size), -1, dtype=np.int64)
        renumber[used] = np.arange(len(used))
        levels = np.concatenate(self._levels) if self._levels else np.zeros((0, self.inp.n_qi), np.int64)
        return Peeling(
            e_row[live],
            renumber[e_cls[live]],
            e_cnt[live],
            levels[used],
            self.steps,
            self.donated,
            self.joined_top,
        )


def _allocate(
    entries: np.ndarray,
    cls: np.ndarray,
    key: np.ndarray,
    delta: np.ndarray,
    count: np.ndarray,
    spare: np.ndarray,
    deficit: np.ndarray,
) -> np.ndarray:
    """How many records each candidate entry gives: each class gives at most its ``spare`` (cheapest
    entries first), each group ``key`` takes at most its ``deficit`` (cheapest first)."""
    order = np.lexsort((entries, delta, cls))
    c_sorted, n_sorted = cls[order], count[order]
    before = exclusive_segment_cumsum(c_sorted, n_sorted)
    avail = np.empty(len(order), dtype=np.int64)
    avail[order] = np.clip(spare[c_sorted] - before, 0, n_sorted)
    order = np.lexsort((entries, delta, key))
    k_sorted, a_sorted = key[order], avail[order]
    before = exclusive_segment_cumsum(k_sorted, a_sorted)
    take = np.empty(len(order), dtype=np.int64)
    take[order] = np.clip(deficit[k_sorted] - before, 0, a_sorted)
    return take


def exclusive_segment_cumsum(segment: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sum of ``values`` before each element within its run of equal (sorted) ``segment`` ids."""
    if not len(values):
        return values.astype(np.int64)
    total = np.cumsum(values) - values
    starts = np.flatnonzero(np.concatenate([[True], segment[1:] != segment[:-1]]))
    run = np.repeat(starts, np.diff(np.concatenate([starts, [len(values)]])))
    return total - total[run]


def frequency_rows(enc: EncodedTable, combos: SensitiveCombos) -> tuple[np.ndarray, np.ndarray]:
    """The frequency row of every record (distinct quasi-identifier leaves and sensitive combination)
    and one representative record per row."""

    cols = [enc.codes[q] for q in range(enc.n_qi)] + [combos.row_combo]
    sizes = [len(h.values) for h in enc.hierarchies] + [combos.n_combos]
    record_row, n_rows = group_columns(cols, sizes)
    return record_row, representatives(record_row, n_rows)


def peeling_input(
    enc: EncodedTable,
    combos: SensitiveCombos,
    cost: tuple[np.ndarray, ...],
    record_row: np.ndarray,
    rep: np.ndarray,
) -> PeelingInput:
    """The frequency set of the whole table as a :class:`PeelingInput` with the given costs."""
    return PeelingInput(
        enc.codes[:, rep],
        np.bincount(record_row, minlength=len(rep)).astype(np.int64),
        combos.row_combo[rep],
        enc.level_maps,
        enc.level_sizes,
        cost,
    )


def require_feasible(enc: EncodedTable, checker: GroupChecker, algorithm: str) -> None:
    """k no larger than the table, and the whole table (everything at the root) passing the models:
    otherwise no release keeps every record, so say so before any work."""

    n = enc.n_rows
    require_k_fits(checker.k, n)
    combo = checker.combos.row_combo
    everyone, ones = np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64)
    if not checker.passes(everyone, 1, combo, ones)[0]:
        # name the models that fail (k fits the table: the others), not every model of the run
        stats = ClassStats.from_combos(enc, everyone, 1, combo, ones, checker.combos, checker.attributes)
        failing = [m for m in checker.models if not isinstance(m, KAnonymity) and not m.passes(stats)[0]]
        models = " ".join(m.describe() for m in failing or checker.models)
        raise InfeasibleError(
            _(
                "The whole table of {n} records does not satisfy {models} {algorithm} keeps every record, "
                "so it cannot release this table.",
                n=n,
                models=models,
                algorithm=algorithm,
            ),
            hint=_("Lower k or l (or raise t), or use a full-domain algorithm that may suppress records."),
            where="models",
        )


def _open_text(n: int) -> str:
    """The progress words of a peeling step (built only when shown)."""
    return _("recoding: {n} records open", n=n)
