"""Lattice search machinery shared by the full-domain algorithms.

- ``check`` evaluates a node, records its status and metric, and keeps its metric lower bound, which holds
  for every satisfying generalization of it.
- ``_tag`` applies every monotonicity the models have (ARX's distinction, Prasser & Kohlmayer 2015):
  with models monotone with suppression, a satisfying node's generalizations satisfy and a failing node's
  specializations fail (Samarati 2001; LeFevre et al. 2005). Otherwise two facts still hold: a node whose
  classes failing k-anonymity or distinct l-diversity are too many to suppress has only failing
  specializations (those classes only split), and a node where every class passes (nothing suppressed)
  has only satisfying generalizations (merging passing classes keeps them passing, ARX's "monotonic with
  generalization", true of every model here).
- ``tag_lattice`` classifies every node with few checks by binary searches along upward paths, the
  idea of Flash (Kohlmayer, Prasser, Eckert, Kemper & Kuhn 2012, "Flash: Efficient, Stable and Optimal
  k-Anonymity", PASSAT) and of OLA (El Emam et al. 2009).
- ``optimize`` finds the best satisfying node by branch and bound: nodes are visited bottom-up, height by
  height, and a node is skipped when a lower bound of its metric (from a checked specialization, or from
  its levels) cannot beat the best value found. The bound is valid for non-monotonic metrics (DM with its
  suppression penalty), so the result is the exact optimum.

Small lattices tag and bound whole upsets as boxes of the lattice's grid (:meth:`Lattice.box`); large
ones (past :data:`~kanon_engine.core.lattice.DENSE_TAGGING_NODES`) walk the lattice layer by layer from
the checked node and pass bounds up height by height, so the work per check follows what changes, not
the lattice's size.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.evaluation import NodeEvaluation, NodeEvaluator, evaluator_context
from kanon_engine.core.lattice import (
    DENSE_TAGGING_NODES,
    FAILS,
    INFERRED_FAILS,
    INFERRED_SATISFIES,
    NOT_EVALUATED,
    PRUNED,
    SATISFIES,
    Lattice,
    SearchRecord,
)
from kanon_engine.i18n import _
from kanon_engine.metrics.classification import SuppressionCurve
from kanon_engine.metrics.loss import Metric
from kanon_engine.privacy.models import PrivacyModel
from kanon_engine.progress import LazyText, ProgressCallback, no_progress

#: Bounds and values are floats computed along different paths; a bound may exceed the value it bounds by
#: rounding, so pruning against a solution already found allows this relative slack.
TOLERANCE = 1e-9
#: Nodes examined per step of the vectorized scans over the lattice in bottom-up order (few enough that
#: what the checks of one step learn spares the next step's nodes a question each).
_CHUNK = 256
#: Classes the suppression curves kept by a search may refer to before the oldest are dropped (a dropped
#: curve only bounds less: about 24 bytes a class, so some 50 MB)
_CURVE_CLASSES = 1 << 21


class LatticeSearch:
    """The state of one search over the lattice of an encoded table."""

    def __init__(
        self,
        enc: EncodedTable,
        models: tuple[PrivacyModel, ...],
        max_suppressed: int,
        metric: Metric,
        progress: ProgressCallback = no_progress,
        algorithm: str = "search",
        max_nodes: int | None = None,
        evaluator: NodeEvaluator | None = None,
        suppressed_group_k: int = 0,
    ) -> None:
        self.enc = enc
        self.lattice = Lattice(enc.heights, enc.qi)
        if max_nodes is not None:
            Lattice.require_size(self.lattice.size, algorithm, max_nodes)
        # a given evaluator decides what "satisfies" means (cell suppression: the AG_CS model) and
        # carries its own step-4 rule; otherwise records are suppressed with step 4 at suppressed_group_k
        self.evaluator = evaluator or NodeEvaluator(
            enc, models, max_suppressed, suppressed_group_k=suppressed_group_k
        )
        self.metric = metric
        self.ctx = evaluator_context(self.evaluator)
        self.progress = progress
        n = self.lattice.size
        self.status = np.zeros(n, dtype=np.int8)
        self.values = np.full(n, np.nan)
        #: lower bound of the metric of a node and of its satisfying generalizations, from checks
        self.bound = np.full(n, -np.inf)
        #: lower bound of the metric of the node alone, from a check stopped at a cutoff
        self.floor = np.full(n, -np.inf)
        #: nodes known to pass the monotone part of the models (all of them when they are monotone with
        #: suppression, else k-anonymity and distinct l-diversity), and so does every generalization
        self.mono_passes = np.zeros(n, dtype=bool)
        #: nodes known to fail, and so does every specialization
        self.fails_below = np.zeros(n, dtype=bool)
        self._dense = n <= DENSE_TAGGING_NODES
        #: (small lattices) per-node arrays as grids, one axis per attribute: an upset or downset is a box
        self._shape = self.lattice.shape
        # models not all monotone: nodes whose whole upset is known to satisfy (nothing suppressed)
        self._sat_closed = None if self.monotone else np.zeros(n, dtype=bool)
        self._levels_bound: np.ndarray | None = None
        self._order: tuple[np.ndarray, np.ndarray] | None = None
        self._evals: dict[int, NodeEvaluation] = {}
        self._scratch: np.ndarray | None = None  # large lattices: for removing duplicates in walks
        self._known = 0
        #: best metric value of any satisfying node checked so far (an upper bound of the optimum over
        #: the whole lattice; used to skip classifying hopeless nodes)
        self.incumbent = np.inf
        self._cap = np.inf  # the incumbent with the rounding slack (what a bound must reach to be hopeless)
        e = self.evaluator
        #: (small lattices, k-anonymity alone with whole classes suppressed, a metric whose suppressed
        #: records cost: the classification metric) the records every node suppresses at least in its
        #: classes smaller than k, from its checked satisfying generalizations (those classes only split
        #: downwards); with the checked nodes' curves, a bound of a node alone (:meth:`_hopeless_alone`)
        self._sup = (
            np.zeros(n, dtype=np.int64)
            if self._dense
            and metric.bounds_by_suppression
            and type(e) is NodeEvaluator  # (cell suppression's evaluator suppresses cells, not classes)
            and e.suppresses_small_classes
            else None
        )
        #: (with it) the checked node whose own bound is a node's :attr:`bound`, and the checked nodes'
        #: curves (the latest, within :data:`_CURVE_CLASSES`)
        self._below = np.full(n, -1, dtype=np.int64) if self._sup is not None else None
        self._curves: dict[int, SuppressionCurve] = {}
        self._held = 0  # classes the kept curves refer to
        self._slope = 0.0  # the most a curve adds per record
        self._rel = (1.0 / np.maximum(self.lattice.max_levels, 1)).tolist()  # Flash's balanced paths
        # per attribute, in Python numbers (read at every step of a path): top level, stride, weight
        self._steps = list(zip(self.lattice.max_levels.tolist(), self.lattice.strides.tolist(), self._rel))

    @property
    def monotone(self) -> bool:
        return self.evaluator.monotone

    @property
    def _gates(self) -> bool:
        """Whether a check given a cutoff may skip the models judging the release as a whole
        (:meth:`NodeEvaluator.evaluate_under`): with such models, which are not monotone (so a check's
        tags come from the suppression counts alone, known before they are asked: :meth:`_tag`)."""
        return not self.monotone and not self.evaluator.takes_cutoff and self.evaluator.judges_release

    def _lower_bound(self, ev: NodeEvaluation) -> float:
        """The metric's lower bound of a node's value (and of its satisfying generalizations')."""
        return self.metric.lower_bound(ev, self.ctx)

    @property
    def checks(self) -> int:
        return self.evaluator.checks

    def by_height(self) -> tuple[np.ndarray, np.ndarray]:
        """The lattice's nodes by height then index, and where each height starts (cached)."""
        if self._order is None:
            self._order = self.lattice.by_height()
        return self._order

    def levels_bound(self, indices: np.ndarray | None = None) -> np.ndarray:
        """The metric's bound from the levels alone, of the given nodes (all nodes by default)."""
        if self._dense or indices is None:
            if self._levels_bound is None:
                self._levels_bound = self.metric.levels_bound(self.lattice.levels, self.ctx)
            return self._levels_bound if indices is None else self._levels_bound[indices]
        return self.metric.levels_bound(self.lattice.levels_of(indices), self.ctx)

    # --- checking ---------------------------------------------------------------------------------------
    def check(self, index: int, cutoff: float = np.inf) -> NodeEvaluation:
        """Evaluate one node; record status, metric value and the bound for its generalizations.

        ``cutoff``: the value the node must come under to matter (given by the searches that only want a
        better node than one they know); an evaluator that ``takes_cutoff`` may then stop early, and the
        node is marked pruned with a floor of its own value (:attr:`floor`)."""
        if self.checks % (16 if self._dense else 256) == 0:  # (for the progress words only)
            self._known = int(np.count_nonzero(self.status))
        node, known, size = self.checks + 1, self._known, self.lattice.size
        # the words only when a callback shows them (a translated message costs ~30 µs, a check less)
        self.progress(
            known / size,
            LazyText(
                lambda: _(
                    "checking node {node} ({known} of {size} classified)", node=node, known=known, size=size
                )
            ),
        )
        # models judging the whole release: asked only when the node may come under the cutoff
        gated = cutoff < np.inf and self._gates
        if self.evaluator.takes_cutoff and cutoff < np.inf:
            ev = self.evaluator.evaluate(self.lattice.node(index), cutoff=cutoff)  # type: ignore[call-arg]
        elif gated:
            slack = TOLERANCE * max(1.0, abs(cutoff))  # strictly worse only: a tie may win on order
            ev = self.evaluator.evaluate_under(self.lattice.node(index), cutoff + slack, self._lower_bound)
        else:
            ev = self.evaluator.evaluate(self.lattice.node(index))
        if ev.beaten:
            self.status[index] = PRUNED
            self.floor[index] = ev.value_floor
            if not gated:  # a check stopped early (cell suppression) tells nothing about other nodes
                return ev
        else:
            self.status[index] = SATISFIES if ev.satisfies else FAILS
        up = self.lattice.box(index, True) if self._dense else None
        if ev.beaten:
            lb = ev.value_floor
        else:
            lb = self.metric.lower_bound(ev, self.ctx) if ev.bounded else -np.inf
        if math.isfinite(lb):
            if up is not None:
                bounds = self._grid(self.bound)[up]
                raised = bounds < lb
                bounds[raised] = lb
                if self._below is not None:
                    self._grid(self._below)[up][raised] = index
            else:  # passed up height by height when needed (see propagate_bounds)
                self.bound[index] = max(self.bound[index], lb)
        if self._sup is not None and ev.bounded and not ev.beaten:
            self._note_suppression(index, ev)
        if ev.satisfies:
            value = self.metric.value(ev, self.ctx)
            self.values[index] = value
            if value < self.incumbent:
                self.incumbent = value
                self._cap = value + TOLERANCE * max(1.0, abs(value))
            self._keep(index, ev)
        self._tag(index, ev, up)
        return ev

    def _note_suppression(self, index: int, ev: NodeEvaluation) -> None:
        """Keep a checked node's suppression curve (tabulated only when asked; the oldest dropped past
        :data:`_CURVE_CLASSES`), and pass a satisfying node's records in classes smaller than k down to
        its specializations: their classes smaller than k hold at least as many (a class only splits
        downwards, and a part of a small class is small)."""
        assert self._sup is not None
        curve = self.metric.suppression_curve(ev, self.ctx)
        if curve is None:
            return
        self._curves[index] = curve
        self._slope = max(self._slope, curve.slope)
        self._held += curve.classes
        while self._held > _CURVE_CLASSES and len(self._curves) > 1:
            self._held -= self._curves.pop(next(iter(self._curves))).classes
        small = ev.suppressed_monotone  # (k-anonymity alone: the records in classes smaller than k)
        sup = self._sup
        # (every raise of a node's count came with its whole downset: none below it has less)
        if ev.satisfies and small > sup[index]:
            below = self._grid(sup)[self.lattice.box(index, False)]
            np.maximum(below, small, out=below)

    def _hopeless_alone(self, index: int, cap: float) -> bool:
        """True when the node alone (not its generalizations) cannot come under ``cap``: the checked
        specialization whose own bound is the node's :attr:`bound`, plus its curve
        (:meth:`Metric.suppression_curve`) at the records the node suppresses at least, reaches it; kept
        in :attr:`floor`. Lazy, asked of a node the search is about to check or to put on a path: a
        curve adds at most ``slope`` per record, so most nodes are decided without one. (Another
        specialization's curve may reach higher; on Adult at k=5, asking all of them spared no check.)"""
        assert self._sup is not None and self._below is not None
        if self.floor[index] >= cap:
            return True
        s = int(self._sup[index])
        base = float(self.bound[index])
        if base + self._slope * s < cap:
            return False
        curve = self._curves.get(int(self._below[index]))
        if curve is None:
            return False
        value = base + curve.extra(s)
        if value < cap:
            return False
        self.floor[index] = value
        return True

    def _grid(self, values: np.ndarray) -> np.ndarray:
        """A per-node array as a view of the lattice's grid (small lattices: see :meth:`Lattice.box`)."""
        return values.reshape(self._shape)

    def _tag(self, index: int, ev: NodeEvaluation, up: tuple[slice, ...] | None) -> None:
        """Tag what the check implies about other nodes (see the module docstring)."""
        e = self.evaluator
        if self.monotone:  # the monotone part is every model
            fails_below, passes_up = not ev.satisfies, ev.satisfies
        else:
            fails_below = ev.suppressed_floor > e.max_suppressed
            passes_up = ev.suppressed_monotone <= e.max_suppressed
        if fails_below:
            down = self.lattice.box(index, False) if self._dense else None
            self._close(index, down, False, self.fails_below, INFERRED_FAILS)
        if passes_up:
            self._close(index, up, True, self.mono_passes, INFERRED_SATISFIES if self.monotone else 0)
            # (a node refused by a model judging the whole release proves nothing about its upset)
            if not self.monotone and ev.satisfies and ev.suppressed == 0 and e.monotone_without_suppression:
                assert self._sat_closed is not None
                self._close(index, up, True, self._sat_closed, INFERRED_SATISFIES)

    def _close(
        self, index: int, box: tuple[slice, ...] | None, up: bool, known: np.ndarray, status: int = 0
    ) -> None:
        """Mark ``known`` on the upset (``up``) or downset of a node, and set the status of unevaluated
        ones to ``status`` (when given). Given its box (small lattices) in one step; otherwise layer by
        layer, stopping at nodes already marked, whose up/downsets are marked too."""
        if box is not None:
            self._grid(known)[box] = True
            if status:
                st = self._grid(self.status)[box]
                st[st == NOT_EVALUATED] = status
            return
        if known[index]:
            return
        known[index] = True
        if status and self.status[index] == NOT_EVALUATED:
            self.status[index] = status
        if self._scratch is None:
            self._scratch = np.empty(self.lattice.size, dtype=np.int32)
        frontier = np.array([index], dtype=np.int64)
        while len(frontier):
            nxt = self.lattice.neighbours(frontier, up, self._scratch)
            nxt = nxt[~known[nxt]]
            known[nxt] = True
            if status:
                self.status[nxt[self.status[nxt] == NOT_EVALUATED]] = status
            frontier = nxt

    def satisfies(self, index: int) -> bool:
        """Whether a node satisfies the model, checking it only when not already known."""
        st = self.status[index]
        if st in (SATISFIES, INFERRED_SATISFIES):
            return True
        if st in (FAILS, INFERRED_FAILS):
            return False
        return self.check(index).satisfies

    # --- bounds -----------------------------------------------------------------------------------------
    def propagate_bounds(self) -> None:
        """Pass every check's bound up to all generalizations (large lattices keep them at the checked
        node until now): one pass over the heights, a node taking the largest bound of its direct
        specializations. Small lattices propagate at every check, so this does nothing for them."""
        if self._dense:
            return
        order, starts = self.by_height()
        for h in range(1, len(starts) - 1):
            idx = order[starts[h] : starts[h + 1]]
            self.bound[idx] = np.maximum(self.bound[idx], self._predecessor_bound(idx))

    def _predecessor_bound(self, idx: np.ndarray) -> np.ndarray:
        """The largest bound among the direct specializations of each node of ``idx``."""
        lat = self.lattice
        out = np.full(len(idx), -np.inf)
        for stride, radix in zip(lat.strides, lat.radix):
            has = (idx // stride) % radix > 0
            out[has] = np.maximum(out[has], self.bound[idx[has] - stride])
        return out

    def hopeless(self, index: int) -> bool:
        """True when the node's metric bound cannot beat a solution already found (nor can its
        generalizations': the bound holds for the whole upset; or, with :meth:`_hopeless_alone`, the
        node's alone: the nodes above it stay unclassified, and :meth:`optimize` still weighs them)."""
        cap = self._cap
        if self.bound[index] >= cap:
            return True
        sup = self._sup  # (a node known to suppress nothing has no suppression bound)
        if sup is not None and sup[index] and self._hopeless_alone(index, cap):
            return True  # the node alone (its suppression bound), not its generalizations
        # (called for every node of a path: the dense lattice's levels bound is read from its cache)
        own = self.levels_bound()[index] if self._dense else self.levels_bound(np.array([index]))[0]
        return bool(own >= cap)

    # --- Flash-style classification ------------------------------------------------------------------
    def _is_classified(self, nodes: np.ndarray | int) -> np.ndarray | bool:
        """Nodes classified for :meth:`tag_lattice`: known to fail with their specializations, or (models
        monotone) to pass with their generalizations, or (models not monotone) checked or inferred."""
        if isinstance(nodes, int):  # one node (asked for every node of a path): no array operations
            if self.monotone:
                return bool(self.mono_passes[nodes] or self.fails_below[nodes])
            return bool(self.fails_below[nodes] or self.status[nodes] != NOT_EVALUATED)
        if self.monotone:
            return self.mono_passes[nodes] | self.fails_below[nodes]
        return self.fails_below[nodes] | (self.status[nodes] != NOT_EVALUATED)

    def classified(self, index: int, prune: bool = False) -> bool:
        """Whether the node may satisfy: False when it fails with all its specializations (checking it
        only when that is not known; with ``prune``, against the best value found so far, see
        :meth:`check`: the classification is the same, only the verdict of a node that cannot beat that
        value may be left unknown)."""
        if not self._is_classified(index):
            self.check(index, self.incumbent if prune else np.inf)
        return not self.fails_below[index]

    def _unclassified(self, candidates: np.ndarray | None, prune: bool) -> Iterator[int]:
        """Yield nodes neither known to pass the monotone part nor to fail below, bottom-up, skipping
        known ones a chunk at a time."""
        order, _heights = self.by_height()
        for pos in range(0, len(order), _CHUNK):
            chunk = order[pos : pos + _CHUNK]
            chunk = chunk[~self._is_classified(chunk)]
            if candidates is not None:
                chunk = chunk[candidates[chunk]]
            if prune:  # (those already hopeless by their bound; the rest are asked one by one)
                chunk = chunk[self.bound[chunk] < self._cap]
            for start in chunk.tolist():
                if not self._is_classified(start) and not (prune and self.hopeless(start)):
                    yield start

    def tag_lattice(self, candidates: np.ndarray | None = None, prune: bool = False) -> None:
        """Classify every node by binary search along upward paths, on the monotone part of the models
        (all of them when they are monotone with suppression; else k-anonymity and distinct l-diversity,
        whose failure rules out a node and its specializations, as ARX does for the k-anonymity part).

        Paths are built greedily from the lowest unclassified node, always raising the attribute that is
        least generalized relative to its hierarchy (Flash's balanced path), and stop at a classified node.
        With ``prune``, nodes that cannot beat the best solution checked so far are left unclassified
        (only the optimum is wanted, not the full classification).
        """
        if not (self.monotone or self.evaluator.rules_out_specializations):
            return  # nothing a check says classifies other nodes: branch and bound does all the work
        if prune:
            self.propagate_bounds()
        skip = prune and self.metric.skips_hopeless_on_paths
        for start in self._unclassified(candidates, prune):
            path = self._path(start, candidates, prune)
            lo, hi = 0, len(path) - 1
            while lo <= hi:
                mid = (lo + hi) // 2
                # (metrics whose checks' bounds prune) a node that became hopeless since the path was
                # built needs no check, nor does the path above it (the bound holds for its upset)
                if (skip and self.hopeless(path[mid])) or self.classified(path[mid], prune):
                    hi = mid - 1
                else:
                    lo = mid + 1

    def _path(self, start: int, candidates: np.ndarray | None, prune: bool) -> list[int]:
        """Flash's balanced upward path of unclassified nodes from ``start``."""
        steps = self._steps
        lv = list(self.lattice.node(start))  # (the levels of ``cur``, raised along the path)
        path = [start]
        cur = start
        bound, cap = self.bound, self._cap if prune else np.inf  # (no check while a path is built)
        while True:
            # the attributes that can rise, least generalized relative to its hierarchy first
            options = sorted(
                (lv[a] * rel, a, stride) for a, (top, stride, rel) in enumerate(steps) if lv[a] < top
            )
            for _share, a, stride in options:
                cand = cur + stride
                if (
                    bound[cand] < cap  # (hopeless by its bound: the usual refusal, asked first)
                    and not self._is_classified(cand)
                    and (candidates is None or candidates[cand])
                    and not (prune and self.hopeless(cand))
                ):
                    lv[a] += 1
                    break
            else:
                return path
            path.append(cand)
            cur = cand

    def descend(self) -> None:
        """Find a good solution early, to prune with: from the top node, step down to the best satisfying
        specialization while the metric improves (a local optimum). The top nodes are cheap to check
        (tiny frequency sets) and every check also classifies nodes, so little is wasted."""
        lat = self.lattice
        current = lat.size - 1
        if not self.satisfies(current):
            return
        if self.evaluator.takes_cutoff:
            current = self._dive(current)
        value = self._value(current)
        while True:
            preds = list(lat.predecessors(current))
            if self.evaluator.takes_cutoff:
                self._check_promising(preds, value)
            best, best_value = None, value
            for p in preds:
                if self.evaluator.takes_cutoff and np.isnan(self.values[p]):
                    continue  # failing, or known not to beat ``value`` (see _check_promising)
                if self.satisfies(p):
                    v = self._value(p)
                    if v < best_value:
                        best, best_value = p, v
            if best is None:
                return
            current, value = best, best_value

    def _dive(self, top: int) -> int:
        """Where the step-down starts when checks are dear (cell suppression: a full local suppression
        per satisfying node): the lowest satisfying node of the path down from ``top`` that always takes
        the predecessor with the lowest levels bound (what the step-down mostly follows, as a node's
        value is near its levels bound there), found by checking the path up from its bottom. Optima
        under cell suppression lie low, and the nodes below them are cheap to check: a node whose
        outliers outnumber the cell limit fails at once, one near the limit once its cells pass it,
        while the step-down from the top ran local suppression in full at every node of the path.
        Each check has the best value so far as its cutoff. Only the start of the step-down changes:
        :meth:`optimize` finds the same optimum from any incumbent."""
        path = [top]
        while True:
            preds = np.array(list(self.lattice.predecessors(path[-1])), dtype=np.int64)
            if not len(preds):
                break
            path.append(int(preds[int(np.argmin(self.levels_bound(preds)))]))
        for index in reversed(path[1:]):
            if self._improves(index):
                return index
        return top

    def _improves(self, index: int) -> bool:
        """Check a node with the best value so far as its cutoff: True when it satisfies with a value
        known (it may then be better than the best)."""
        if self.status[index] == NOT_EVALUATED:
            self.check(index, cutoff=self.incumbent)
        elif self.status[index] == INFERRED_SATISFIES:
            self._value(index)
        return not np.isnan(self.values[index])

    def _check_promising(self, preds: list[int], value: float) -> None:
        """Check the predecessors that may come under ``value``, those with the lowest metric bound
        first, each with the best value found so far as its cutoff (checks that may stop early: cell
        suppression). The others' values exceed the best one, so :meth:`descend` picks the same node
        as when it checks every predecessor: ties keep their order, as a node whose bound equals the
        cutoff is checked in full."""
        bounds = self.levels_bound(np.array(preds, dtype=np.int64))
        best = value
        for i in np.argsort(bounds, kind="stable").tolist():
            if bounds[i] > best + TOLERANCE * max(1.0, abs(best)):
                return  # sorted: no other predecessor can come under ``best``
            p = preds[i]
            if self.status[p] == NOT_EVALUATED:
                self.check(p, cutoff=best)
            if not np.isnan(self.values[p]):
                best = min(best, float(self.values[p]))

    def _value(self, index: int) -> float:
        """Metric value of a satisfying node (checking it if it was only inferred)."""
        if np.isnan(self.values[index]):
            self.check(index)
        return float(self.values[index])

    # --- branch and bound -----------------------------------------------------------------------------
    def optimize(self, candidates: np.ndarray | None = None) -> int | None:
        """Index of the best satisfying node among ``candidates`` (all nodes by default).

        Ties go to the lowest node (by height, then index). Nodes whose bound cannot beat the best value
        are marked PRUNED when nothing else is known about them.
        """
        order, starts = self.by_height()
        best_val = np.inf
        best: int | None = None
        # the best value of a satisfying candidate checked earlier (the incumbent) caps the optimum (only
        # candidates count: Samarati's binary search checks nodes at other heights that must not prune
        # this one's)
        known = self.values if candidates is None else np.where(candidates, self.values, np.nan)
        incumbent = float(np.nanmin(known)) if np.isfinite(known).any() else np.inf
        cap = incumbent + TOLERANCE * max(1.0, abs(incumbent)) if np.isfinite(incumbent) else np.inf
        for h in range(len(starts) - 1):
            idx = order[starts[h] : starts[h + 1]]
            if not self._dense and h > 0:  # bounds of large lattices go up height by height
                self.bound[idx] = np.maximum(self.bound[idx], self._predecessor_bound(idx))
            if candidates is not None:
                idx = idx[candidates[idx]]
            st = self.status[idx]
            idx = idx[(st != FAILS) & (st != INFERRED_FAILS)]
            if not len(idx):
                continue
            bound = np.maximum(np.maximum(self.bound[idx], self.levels_bound(idx)), self.floor[idx])
            over = bound > cap
            self.status[idx[over & (self.status[idx] == NOT_EVALUATED)]] = PRUNED
            for index, b in zip(idx[~over].tolist(), bound[~over].tolist()):
                # a satisfying node checked earlier (the incumbent) already caps the optimum; a node whose
                # bound equals it may still tie with it and win on order, so only strictly worse are skipped
                if b >= best_val:
                    if self.status[index] == NOT_EVALUATED:
                        self.status[index] = PRUNED
                    continue
                if np.isnan(self.values[index]) and not self.check(index, min(best_val, cap)).satisfies:
                    continue
                value = self.values[index]
                if value < best_val:
                    best_val, best = value, index
        return best

    def _keep(self, index: int, ev: NodeEvaluation, limit: int = 32) -> None:
        """Keep the latest evaluations of satisfying nodes (the optimum is usually among them)."""
        self._evals[index] = ev
        if len(self._evals) > limit:
            self._evals.pop(next(iter(self._evals)))

    def evaluation(self, index: int) -> NodeEvaluation:
        """The evaluation of a node (re-evaluated if it was not kept)."""
        if index not in self._evals:
            self._keep(index, self.evaluator.evaluate(self.lattice.node(index), complete=True))
        return self._evals[index]

    def record(self, optimum: int | None) -> SearchRecord:
        return SearchRecord(
            self.enc.qi,
            self.lattice.max_levels.copy(),
            self.status.copy(),
            self.values.copy(),
            optimum,
            self.metric.name,
        )
