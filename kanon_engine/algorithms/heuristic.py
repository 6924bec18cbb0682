"""An anytime search for lattices of any size: the best full-domain transformation it can find within a
time limit, with the proof of optimality when it gets to finish.

The exact search (:mod:`.optimal`) keeps arrays over the whole lattice; past a few million
transformations that is too slow and too large (10 quasi-identifiers with 7 levels each make 282 million).
This search keeps only the transformations it has met, in the spirit of ARX's Lightning (Prasser, Bild,
Eicher, Spengler, Kuhn & Kohlmayer 2016, "Lightning: Utility-Driven Anonymization of High-Dimensional
Data", Transactions on Data Privacy 9(2)):

1. the top transformation (every attribute fully generalized) is checked first, so a release exists
   from the start whenever one exists at all, and improved by stepping down to better satisfying
   specializations while there are any (top-down checks are cheap: few, large classes);
2. a greedy dive from the bottom: step to the generalization with the best quality (the metric counted
   as if the failing classes were suppressed) until the models are satisfied, then step down to better
   satisfying specializations while there are any (a local optimum);
3. best-first search from the bottom, always expanding the checked transformation of best quality, with
   the pruning of the exact search: a transformation whose metric lower bound (from a checked
   specialization, or from its levels) cannot beat the best release found is not checked, nor is anything
   above it; a transformation known to fail with all its specializations is expanded without a check.

The search stops at the time limit and returns the best release found, labelled "not proven optimal". If
the best-first search runs out of transformations first, every transformation that could beat the
release was checked: the release is optimal, and the result says so.
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass

import numpy as np

from kanon_engine.algorithms.base import METRIC, SUPPRESSION_LIMIT, TARGET, Job
from kanon_engine.algorithms.cell_suppression import SUPPRESS
from kanon_engine.algorithms.full_domain import FullDomainAlgorithm, full_domain_result, infeasible
from kanon_engine.algorithms.local_suppression import IMPORTANCE
from kanon_engine.algorithms.search import TOLERANCE
from kanon_engine.config import ParamSpec
from kanon_engine.core.evaluation import NodeEvaluation, NodeEvaluator, evaluator_context
from kanon_engine.core.lattice import FAILS, PRUNED, SATISFIES, Lattice, SearchRecord
from kanon_engine.errors import InfeasibleError
from kanon_engine.i18n import N_, _, formats, text_of
from kanon_engine.metrics.labels import objective_value_label
from kanon_engine.metrics.loss import Metric
from kanon_engine.progress import LazyText, ProgressCallback
from kanon_engine.result import AnonymizationResult

TIME_LIMIT = ParamSpec(
    "time_limit",
    N_("Time limit (seconds)"),
    "float",
    10.0,
    N_(
        "How long the search may run, in seconds. It returns the best release found by then; the release "
        "is proven optimal only if the search finished earlier."
    ),
    minimum=0.1,
    maximum=86_400.0,
    presets=(5.0, 10.0, 30.0, 60.0, 300.0),
)

#: Lattices up to this size get a search record (one byte per node) for the lattice view.
_RECORD_NODES = 5_000_000

Levels = tuple[int, ...]


#: The progress messages of the search (whole, with named placeholders); :func:`best_so_far` reads the
#: quality back from them, in the language in force, by the text around ``{quality}``.
PROGRESS = {
    "running": N_("Best so far: {quality} \u2014 {checks} transformations checked, not proven optimal"),
    "finished": N_("Best so far: {quality} \u2014 {checks} transformations checked"),
}
NO_RELEASE_YET = N_("no release yet")


def best_so_far(message: str) -> str | None:
    """The quality in a progress message of this search (``"DM 352,610"``), None in other messages:
    what a progress bar shows while the search runs."""
    prefix, _placeholder, rest = text_of(PROGRESS, "finished").partition("{quality}")
    end = rest.partition("{checks}")[0]
    if not message.startswith(prefix) or not end or end not in message[len(prefix) :]:
        return None
    return message[len(prefix) :].split(end, 1)[0]


def format_quality(metric: Metric, value: float) -> str:
    """A metric value as people read it, as the report shows it: a percentage for shares (Loss,
    precision lost), thousands separators for counts (DM)."""
    return objective_value_label(metric.name).show(value)


@dataclass
class _Seen:
    """What the search knows of one transformation."""

    bound: float  # lower bound of its metric and of every satisfying generalization's
    value: float = np.inf  # metric (failing classes counted as suppressed); inf when not checked
    satisfies: bool = False
    checked: bool = False
    queued: bool = False  # put on the best-first queue (each transformation is expanded once)


class AnytimeSearch:
    """The search state: transformations met so far, the best release, the clock."""

    def __init__(
        self, evaluator: NodeEvaluator, metric: Metric, progress: ProgressCallback, time_limit: float
    ) -> None:
        enc = evaluator.enc
        self.enc = enc
        self.evaluator = evaluator
        self.ctx = evaluator_context(evaluator)
        self.metric = metric
        self.progress = progress
        self.time_limit = float(time_limit)
        self.deadline = time.perf_counter() + self.time_limit
        self.top: Levels = tuple(int(h) for h in enc.heights)
        self.seen: dict[Levels, _Seen] = {}
        self.best: Levels | None = None
        self.best_value = np.inf
        self._best_ev: NodeEvaluation | None = None
        # maximal transformations known to fail with all their specializations (rows of levels)
        self._fails_below = np.zeros((0, enc.n_qi), dtype=np.int64)
        self.finished = False
        self._started = time.perf_counter()

    # --- bookkeeping ------------------------------------------------------------------------------------
    @property
    def checks(self) -> int:
        return self.evaluator.checks

    def out_of_time(self) -> bool:
        return time.perf_counter() >= self.deadline

    def _report(self) -> None:
        elapsed = time.perf_counter() - self._started
        found = self.best is not None
        value, checks = self.best_value, self.checks
        key = "finished" if self.finished else "running"

        def words() -> str:
            quality = (
                f"{_(self.metric.short)} {format_quality(self.metric, value)}" if found else _(NO_RELEASE_YET)
            )
            return text_of(PROGRESS, key, quality=quality, checks=checks)

        self.progress(min(elapsed / self.time_limit, 1.0), LazyText(words))

    def _levels_bound(self, levels: Levels) -> float:
        return float(self.metric.levels_bound(np.asarray([levels], dtype=np.int64), self.ctx)[0])

    def _known_to_fail(self, levels: Levels) -> bool:
        if not len(self._fails_below):
            return False
        return bool((self._fails_below >= np.asarray(levels)).all(axis=1).any())

    def _beats(self, bound: float) -> bool:
        """Whether a transformation with this lower bound could still be strictly better than the best."""
        slack = TOLERANCE * max(1.0, abs(self.best_value)) if np.isfinite(self.best_value) else 0.0
        return bound < self.best_value - slack or not np.isfinite(self.best_value)

    # --- checking ---------------------------------------------------------------------------------------
    def check(self, levels: Levels, inherited: float = -np.inf) -> _Seen:
        """Check one transformation (once); remember its value and bound, and the best release."""
        known = self.seen.get(levels)
        if known is not None and known.checked:
            return known
        self._report()
        ev = self.evaluator.evaluate(levels)
        value = float(self.metric.value(ev, self.ctx))
        # a node found failing without its own classes (a sample of them, or a coarser node) bounds nothing
        own = float(self.metric.lower_bound(ev, self.ctx)) if ev.bounded else -np.inf
        bound = max(inherited, own, self._levels_bound(levels))
        node = _Seen(bound, value, ev.satisfies, True)
        self.seen[levels] = node
        if ev.satisfies and (value < self.best_value or self.best is None):
            self.best, self.best_value, self._best_ev = levels, value, ev
        if ev.suppressed_floor > self.evaluator.max_suppressed or (
            self.evaluator.monotone and not ev.satisfies
        ):
            self._fails_below_too(levels)
        return node

    def _fails_below_too(self, levels: Levels) -> None:
        """Remember that ``levels`` fails with all its specializations; only maximal ones are kept (one
        below another says nothing more), so the list stays short as the search climbs."""
        if self._known_to_fail(levels):
            return
        node = np.asarray(levels, dtype=np.int64)
        rows = self._fails_below
        self._fails_below = np.vstack([rows[~(rows <= node).all(axis=1)], node[None, :]])

    def _successors(self, levels: Levels) -> list[Levels]:
        return [
            levels[:a] + (levels[a] + 1,) + levels[a + 1 :]
            for a in range(len(levels))
            if levels[a] < self.top[a]
        ]

    def _predecessors(self, levels: Levels) -> list[Levels]:
        return [levels[:a] + (levels[a] - 1,) + levels[a + 1 :] for a in range(len(levels)) if levels[a] > 0]

    # --- phases -----------------------------------------------------------------------------------------
    def dive(self) -> None:
        """Greedy: from the bottom, step to the successor of best quality until the models are satisfied;
        then improve that release locally."""
        current = tuple(0 for _level in self.top)
        node = self.check(current)
        while not node.satisfies and not self.out_of_time():
            steps = self._successors(current)
            if not steps:
                return
            scored = [(self.check(s).value, s) for s in steps if not self.out_of_time()]
            if not scored:
                return
            _value, current = min(scored)
            node = self.seen[current]
        if node.satisfies:
            self.descend(current)

    def _lowest_satisfying(self, attribute: int) -> Levels | None:
        """The top with ``attribute`` lowered as far as the models allow (binary search on its level;
        its first level that satisfies, if the models are monotone)."""
        lo, hi = 0, self.top[attribute]
        found = None
        while lo <= hi and not self.out_of_time():
            mid = (lo + hi) // 2
            levels = self.top[:attribute] + (mid,) + self.top[attribute + 1 :]
            if self.check(levels).satisfies:
                found, hi = levels, mid - 1
            else:
                lo = mid + 1
        return found

    def descend(self, current: Levels) -> None:
        """Step down to the best satisfying specialization while it improves the metric."""
        value = self.seen[current].value
        while not self.out_of_time():
            best, best_value = None, value
            for p in self._predecessors(current):
                if self.out_of_time():
                    return
                if self._known_to_fail(p):
                    continue
                node = self.check(p)
                if node.satisfies and node.value < best_value:
                    best, best_value = p, node.value
            if best is None:
                return
            current, value = best, best_value

    def best_first(self) -> None:
        """Expand the transformation of best quality first; prune what cannot beat the best release.
        Sets ``finished`` when nothing is left to expand (the best release is then optimal)."""
        bottom = tuple(0 for _level in self.top)
        counter = itertools.count()
        heap: list[tuple[float, int, Levels]] = []

        def push(levels: Levels, rank: float) -> None:
            self.seen[levels].queued = True
            heapq.heappush(heap, (rank, next(counter), levels))

        push(bottom, self.check(bottom).value)
        while heap:
            if self.out_of_time():
                return
            _bound, _order, levels = heapq.heappop(heap)
            node = self.seen[levels]
            if not self._beats(node.bound):
                continue
            for succ in self._successors(levels):
                known = self.seen.get(succ)
                if known is not None:
                    known.bound = max(known.bound, node.bound)
                    if known.checked and not known.queued:  # met by the dive: expand it too
                        push(succ, known.value)
                    continue
                bound = max(node.bound, self._levels_bound(succ))
                if not self._beats(bound):
                    self.seen[succ] = _Seen(bound)  # pruned: neither it nor its generalizations can win
                    continue
                if self._known_to_fail(succ):
                    # fails without a check; its generalizations may not: expand it at its parent's rank
                    self.seen[succ] = _Seen(bound, node.value)
                    push(succ, node.value)
                    continue
                if self.out_of_time():
                    return
                push(succ, self.check(succ, bound).value)
        self.finished = True

    def run(self) -> Levels | None:
        """The best satisfying transformation found within the time limit (None: none found)."""
        if self.check(self.top).satisfies:
            self.descend(self.top)
            # one more descent from each attribute taken all the way down first: other local optima
            for a in range(len(self.top)):
                if self.out_of_time():
                    break
                start = self._lowest_satisfying(a)
                if start is not None:
                    self.descend(start)
        if not self.out_of_time():
            self.dive()
        if not self.out_of_time():
            self.best_first()
        self._report()
        return self.best

    def evaluation(self) -> NodeEvaluation:
        """The complete evaluation of the best transformation (for the release)."""
        assert self.best is not None and self._best_ev is not None
        return self._best_ev

    def record(self) -> SearchRecord | None:
        """What the search learned, for the lattice view (small enough lattices only)."""
        lattice = Lattice(self.enc.heights, self.enc.qi)
        if lattice.size > _RECORD_NODES:
            return None
        status = np.zeros(lattice.size, dtype=np.int8)
        values = np.full(lattice.size, np.nan)
        for levels, node in self.seen.items():
            i = lattice.index(levels)
            if node.checked:
                status[i] = SATISFIES if node.satisfies else FAILS
                if node.satisfies:
                    values[i] = node.value
            else:
                status[i] = PRUNED
        optimum = None if self.best is None else lattice.index(self.best)
        return SearchRecord(self.enc.qi, lattice.max_levels.copy(), status, values, optimum, self.metric.name)


class Heuristic(FullDomainAlgorithm):
    """Anytime search for any lattice size: the best release within ``time_limit`` seconds, optimal
    when the search finishes (see the module docstring)."""

    name = "heuristic"
    title = N_("Heuristic (best release within a time limit, any number of quasi-identifiers)")
    description = N_(
        "For tables whose generalization lattice is too large for the optimal search (many "
        "quasi-identifiers or deep hierarchies). Starts from the coarsest generalization, dives greedily "
        "from the finest one to a good solution, then explores the most promising generalizations first, "
        "skipping those that cannot beat the best found, until the time limit. Returns the best release "
        "found; it is proven optimal only if the search finished before the time limit."
    )
    params = (SUPPRESSION_LIMIT, METRIC, SUPPRESS, IMPORTANCE, TIME_LIMIT, TARGET)

    def _run(self, job: Job) -> AnonymizationResult:
        table, config, enc, progress, start = job
        p = self.parameters
        evaluator, metric, allowance, unit = self.node_checker(enc, config)
        search = AnytimeSearch(evaluator, metric, progress, p["time_limit"])
        best = search.run()
        if best is None:
            if search.finished or search.evaluator.monotone:  # nothing satisfies (the top fails)
                raise infeasible(config, allowance, unit)
            raise InfeasibleError(
                _(
                    "No transformation satisfying the privacy models was found within {seconds} seconds "
                    "(the coarsest one does not).",
                    seconds=formats.decimal(float(p["time_limit"]), 3),
                ),
                hint=_("Allow more time or more suppression, or relax the privacy models."),
                where="time_limit",
            )
        progress(1.0, _("building the release"))
        notes = (_note(search, metric),)
        ev, record = search.evaluation(), search.record()
        return full_domain_result(
            self.name, p, table, config, enc, ev, search.ctx, start, search.checks, record, notes
        )


def _note(search: AnytimeSearch, metric: Metric) -> str:
    """How good the release is known to be, in plain words."""
    quality = f"{objective_value_label(metric.name).name} {format_quality(metric, search.best_value)}"
    if search.finished:
        return _(
            "The heuristic search finished: every transformation that could beat this release was "
            "checked ({checks} checks), so it is optimal ({quality}).",
            checks=search.checks,
            quality=quality,
        )
    return _(
        "The heuristic search stopped at its time limit of {seconds} seconds after {checks} checks; "
        "this is the best release it found ({quality}), not proven optimal.",
        seconds=formats.decimal(float(search.time_limit), 3),
        checks=search.checks,
        quality=quality,
    )
