"""Lattice search machinery shared by the full-domain algorithms.

- ``check`` evaluates a node, records its status and metric, and propagates its metric lower bound to
  every generalization of it.
- ``tag`` applies monotonicity: if a node satisfies a monotone model, so do all its generalizations; if
  it fails, so do all its specializations (Samarati 2001; LeFevre et al. 2005).
- ``tag_lattice`` classifies every node with few checks by binary searches along upward paths, the
  idea of Flash (Kohlmayer, Prasser, Eckert, Kemper & Kuhn 2012, "Flash: Efficient, Stable and Optimal
  k-Anonymity", PASSAT) and of OLA (El Emam et al. 2009).
- ``optimize`` finds the best satisfying node by branch and bound: nodes are visited bottom-up and a node
  is skipped when a lower bound of its metric (from a checked specialization, or from its levels) cannot
  beat the best value found. The bound is valid for non-monotonic metrics (DM with its suppression
  penalty), so the result is the exact optimum.
"""

from __future__ import annotations

import numpy as np

from kanon_engine.encoding import EncodedTable
from kanon_engine.evaluation import NodeEvaluation, NodeEvaluator, evaluator_context
from kanon_engine.lattice import (
    FAILS,
    INFERRED_FAILS,
    INFERRED_SATISFIES,
    NOT_EVALUATED,
    PRUNED,
    SATISFIES,
    Lattice,
    SearchRecord,
)
from kanon_engine.metrics.loss import Metric
from kanon_engine.privacy.models import PrivacyModel
from kanon_engine.progress import ProgressCallback, no_progress

#: Bounds and values are floats computed along different paths; a bound may exceed the value it bounds by
#: rounding, so pruning against a solution already found allows this relative slack.
_TOLERANCE = 1e-9


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
        self.bound = np.full(n, -np.inf)
        self._levels_bound: np.ndarray | None = None
        self._evals: dict[int, NodeEvaluation] = {}
        #: best metric value of any satisfying node checked so far (an upper bound of the optimum over
        #: the whole lattice; used to skip classifying hopeless nodes)
        self.incumbent = np.inf

    @property
    def monotone(self) -> bool:
        return self.evaluator.monotone

    @property
    def checks(self) -> int:
        return self.evaluator.checks

    def levels_bound(self) -> np.ndarray:
        if self._levels_bound is None:
            self._levels_bound = self.metric.levels_bound(self.lattice.levels, self.ctx)
        return self._levels_bound

    # --- checking ---------------------------------------------------------------------------------------
    def check(self, index: int) -> NodeEvaluation:
        """Evaluate one node; record status, metric value and the bound for its generalizations."""
        known = int(np.count_nonzero(self.status))
        self.progress(
            known / self.lattice.size,
            f"checking node {self.checks + 1:,} ({known:,} of {self.lattice.size:,} classified)",
        )
        ev = self.evaluator.evaluate(self.lattice.levels[index])
        self.status[index] = SATISFIES if ev.satisfies else FAILS
        up = self.lattice.upset(index)
        lb = self.metric.lower_bound(ev, self.ctx)
        if np.isfinite(lb):
            target = self.bound[up]
            self.bound[up] = np.maximum(target, lb)
        if ev.satisfies:
            value = self.metric.value(ev, self.ctx)
            self.values[index] = value
            self.incumbent = min(self.incumbent, value)
            self._keep(index, ev)
        self._tag(index, ev.satisfies, up)
        return ev

    def _tag(self, index: int, satisfies: bool, up: np.ndarray) -> None:
        if not self.monotone:
            return
        if satisfies:
            self.status[up & (self.status == NOT_EVALUATED)] = INFERRED_SATISFIES
        else:
            down = self.lattice.downset(index)
            self.status[down & (self.status == NOT_EVALUATED)] = INFERRED_FAILS

    def satisfies(self, index: int) -> bool:
        """Whether a node satisfies the model, checking it only when not already known."""
        st = self.status[index]
        if st in (SATISFIES, INFERRED_SATISFIES):
            return True
        if st in (FAILS, INFERRED_FAILS):
            return False
        return self.check(index).satisfies

    # --- Flash-style classification ------------------------------------------------------------------
    def hopeless(self, index: int) -> bool:
        """True when the node's metric bound cannot beat a solution already found (nor can its
        generalizations': the bound holds for the whole upset)."""
        slack = _TOLERANCE * max(1.0, abs(self.incumbent)) if np.isfinite(self.incumbent) else 0.0
        return max(self.bound[index], self.levels_bound()[index]) >= self.incumbent + slack

    def tag_lattice(self, candidates: np.ndarray | None = None, prune: bool = False) -> None:
        """Classify every node (requires a monotone model) by binary search along upward paths.

        Paths are built greedily from the lowest unclassified node, always raising the attribute that is
        least generalized relative to its hierarchy (Flash's balanced path), and stop at a classified node.
        With ``prune``, nodes that cannot beat the best solution checked so far are left unclassified
        (only the optimum is wanted, not the full classification).
        """
        if not self.monotone:
            raise RuntimeError("tag_lattice needs a monotone privacy model")
        lat = self.lattice
        rel = 1.0 / np.maximum(lat.max_levels, 1)
        for start in lat.bottom_up_order():
            if candidates is not None and not candidates[start]:
                continue
            if self.status[start] != NOT_EVALUATED or (prune and self.hopeless(int(start))):
                continue
            path = [int(start)]
            cur = int(start)
            while True:
                lv = lat.levels[cur]
                options = [i for i in range(len(lv)) if lv[i] < lat.max_levels[i]]
                nxt = None
                for i in sorted(options, key=lambda a: (lv[a] * rel[a], a)):
                    cand = cur + int(lat.strides[i])
                    if (
                        self.status[cand] == NOT_EVALUATED
                        and (candidates is None or candidates[cand])
                        and not (prune and self.hopeless(cand))
                    ):
                        nxt = cand
                        break
                if nxt is None:
                    break
                path.append(nxt)
                cur = nxt
            lo, hi = 0, len(path) - 1
            while lo <= hi:
                mid = (lo + hi) // 2
                if self.satisfies(path[mid]):
                    hi = mid - 1
                else:
                    lo = mid + 1

    def descend(self) -> None:
        """Find a good solution early, to prune with: from the top node, step down to the best satisfying
        specialization while the metric improves (a local optimum). The top nodes are cheap to check
        (tiny frequency sets) and every check also classifies nodes, so little is wasted."""
        lat = self.lattice
        current = lat.size - 1
        if not self.satisfies(current):
            return
        value = self._value(current)
        while True:
            best, best_value = None, value
            for p in lat.predecessors(current):
                if self.satisfies(p):
                    v = self._value(p)
                    if v < best_value:
                        best, best_value = p, v
            if best is None:
                return
            current, value = best, best_value

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
        lat = self.lattice
        levels_lb = self.levels_bound()
        best_val = np.inf
        best: int | None = None
        # the best value of a satisfying candidate checked earlier caps the optimum (only candidates count:
        # Samarati's binary search checks nodes at other heights that must not prune this one's)
        known = self.values if candidates is None else np.where(candidates, self.values, np.nan)
        incumbent = float(np.nanmin(known)) if np.isfinite(known).any() else np.inf
        cap = incumbent + _TOLERANCE * max(1.0, abs(incumbent)) if np.isfinite(incumbent) else np.inf
        order = lat.bottom_up_order()
        for index in order:
            index = int(index)
            if candidates is not None and not candidates[index]:
                continue
            st = self.status[index]
            if st in (FAILS, INFERRED_FAILS):
                continue
            bound = max(self.bound[index], levels_lb[index])
            # a satisfying node checked earlier (the incumbent) already caps the optimum; a node whose
            # bound equals it may still tie with it and win on order, so only strictly worse are skipped
            if bound >= best_val or bound > cap:
                if st == NOT_EVALUATED:
                    self.status[index] = PRUNED
                continue
            if np.isnan(self.values[index]) and not self.check(index).satisfies:
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
            self._keep(index, self.evaluator.evaluate(self.lattice.levels[index]))
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
