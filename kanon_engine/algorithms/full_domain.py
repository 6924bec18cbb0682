"""Full-domain generalization algorithms: Datafly, Samarati, Incognito and a globally-optimal search.

All four share the lattice search machinery of :mod:`kanon_engine.algorithms.search` and differ only in
which nodes they check and in what order.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from kanon_engine.algorithms.base import Algorithm, register
from kanon_engine.algorithms.search import LatticeSearch
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.encoding import EncodedTable
from kanon_engine.errors import InfeasibleError
from kanon_engine.evaluation import NodeEvaluator, suppression_allowance
from kanon_engine.lattice import (
    FAILS,
    INFERRED_FAILS,
    NOT_EVALUATED,
    SATISFIES,
    Lattice,
    SearchRecord,
)
from kanon_engine.metrics.loss import MetricContext, get_metric
from kanon_engine.progress import ProgressCallback
from kanon_engine.result import AnonymizationResult


def _infeasible(config: AnonymizationConfig, limit: int) -> InfeasibleError:
    models = "; ".join(m.describe() for m in config.models)
    return InfeasibleError(
        f"No transformation satisfies {models} with at most {limit} suppressed records.",
        hint="Allow more suppression, lower k (or l, or raise t), or use broader hierarchies.",
        where="models",
    )


class _LatticeAlgorithm(Algorithm):
    """Common run of the lattice searches: build the search, find a node, build the release."""

    max_nodes: int | None = None

    def _run(
        self,
        table: Table,
        config: AnonymizationConfig,
        enc: EncodedTable,
        progress: ProgressCallback,
        start: float,
    ) -> AnonymizationResult:
        allowance = self.suppression_allowance(enc.n_rows, config.k)
        search = LatticeSearch(
            enc, config.models, allowance, get_metric(self.metric_name), progress, self.name, self.max_nodes
        )
        best = self._search(search)
        if best is None:
            raise _infeasible(config, allowance)
        ev = search.evaluation(best)
        progress(1.0, "building the release")
        return self._finish(
            table, config, enc, ev, search.ctx, start, search.checks, search.record(best), self._notes(search)
        )

    def _search(self, search: LatticeSearch) -> int | None:
        raise NotImplementedError

    def _notes(self, search: LatticeSearch) -> tuple[str, ...]:
        if search.monotone:
            return ()
        return (
            "The privacy models are not monotone with suppression, so every transformation that could "
            "beat the optimum was checked (no pruning by satisfaction).",
        )


@register
class Optimal(_LatticeAlgorithm):
    """Globally optimal full-domain search (Flash/OLA style tagging plus branch and bound)."""

    name = "optimal"
    title = "Optimal (globally best full-domain generalization)"
    description = (
        "Finds the full-domain generalization with the best quality metric among all that satisfy the "
        "privacy models within the suppression limit. It first finds a good solution by stepping down "
        "from the coarsest generalization, then classifies the lattice with few checks (if a "
        "generalization is safe, every coarser one is too) and skips those that cannot beat the best "
        "found. Use it when the lattice has up to a few hundred thousand nodes: it gives "
        "the provably best result of its kind."
    )
    max_nodes = 500_000

    def _search(self, search: LatticeSearch) -> int | None:
        search.descend()
        search.tag_lattice(prune=True)
        return search.optimize()


@register
class Samarati(_LatticeAlgorithm):
    """Samarati's binary search on lattice height with MaxSup (Samarati 2001, IEEE TKDE 13(6))."""

    name = "samarati"
    title = "Samarati (lowest generalization height)"
    description = (
        "Searches for the lowest level of generalization (the height in the lattice) at which some "
        "full-domain generalization satisfies the privacy models within the suppression limit, by binary "
        "search over heights, as in Samarati's 2001 paper; among the solutions at that height it keeps "
        "the best by the quality metric. Minimal generalization, fast, not always the best quality."
    )
    max_nodes = 2_000_000

    def _search(self, search: LatticeSearch) -> int | None:
        lat = search.lattice

        def feasible(height: int) -> bool:
            return any(search.satisfies(int(i)) for i in lat.at_height(height))

        if search.monotone:
            lo, hi = 0, lat.max_height
            if not feasible(hi):
                return None
            while lo < hi:
                mid = (lo + hi) // 2
                if feasible(mid):
                    hi = mid
                else:
                    lo = mid + 1
            height = lo
        else:
            height = next((h for h in range(lat.max_height + 1) if feasible(h)), None)
            if height is None:
                return None
        return search.optimize(lat.heights == height)


@register
class Incognito(_LatticeAlgorithm):
    """Incognito (LeFevre, DeWitt & Ramakrishnan 2005, "Incognito: Efficient Full-Domain
    K-Anonymity", SIGMOD): all k-anonymous full-domain generalizations, bottom-up over growing subsets of
    the quasi-identifier with subset-property pruning and roll-up of frequency sets."""

    name = "incognito"
    title = "Incognito (all safe full-domain generalizations)"
    description = (
        "Finds every full-domain generalization that satisfies the privacy models, working up from "
        "single quasi-identifiers to all of them: a generalization of a set of attributes can only be "
        "safe if it is safe on every subset (the subset property). Returns all solutions, for the "
        "lattice view, and the best one by the quality metric."
    )
    max_nodes = 500_000

    def _search(self, search: LatticeSearch) -> int | None:
        lat = search.lattice
        if not search.monotone:
            # no subset property without monotonicity: every node is checked to list all solutions
            for index in lat.bottom_up_order():
                search.satisfies(int(index))
            return search.optimize()
        top = lat.max_levels
        n_qi = len(top)
        levels = lat.levels
        # A node of the subset S is the full node with the attributes outside S at their top level.
        at_top = levels == top[None, :]
        passed = np.zeros(lat.size, dtype=bool)
        for size in range(1, n_qi + 1):
            new_passed = np.zeros(lat.size, dtype=bool)
            for subset in combinations(range(n_qi), size):
                outside = np.ones(n_qi, dtype=bool)
                outside[list(subset)] = False
                members = at_top[:, outside].all(axis=1)
                candidates = members.copy()
                if size > 1:
                    for a in subset:  # subset property: every (size-1)-subset node must be safe
                        parent = levels.copy()
                        parent[:, a] = top[a]
                        candidates &= passed[parent @ lat.strides]
                # nodes of this subset ruled out by the subset property fail without a check
                search.status[members & ~candidates & (search.status == NOT_EVALUATED)] = INFERRED_FAILS
                for index in lat.bottom_up_order():
                    if candidates[index] and search.satisfies(int(index)):
                        new_passed[index] = True
            passed |= new_passed
        return search.optimize()


@register
class Datafly(Algorithm):
    """Sweeney's Datafly heuristic (Sweeney 1997/2002, "Achieving k-anonymity privacy protection using
    generalization and suppression", IJUFKS 10(5))."""

    name = "datafly"
    title = "Datafly (Sweeney's greedy heuristic)"
    description = (
        "Sweeney's Datafly: while the records that share their quasi-identifier values with fewer than "
        "k-1 others are more than the suppression allowance, generalize the quasi-identifier with the "
        "most distinct values by one level; then suppress the remaining outliers. Very fast and simple; "
        "often generalizes more than needed. Without a suppression limit it may suppress up to k records, "
        "as in Sweeney's original."
    )

    def suppression_allowance(self, n_rows: int, k: int) -> int:
        limit = self.parameters.get("suppression_limit")
        return min(k, n_rows) if limit is None else suppression_allowance(n_rows, limit)

    def _run(
        self,
        table: Table,
        config: AnonymizationConfig,
        enc: EncodedTable,
        progress: ProgressCallback,
        start: float,
    ) -> AnonymizationResult:
        allowance = self.suppression_allowance(enc.n_rows, config.k)
        evaluator = NodeEvaluator(enc, config.models, allowance)
        lat = Lattice(enc.heights, enc.qi)
        distinct = _distinct_per_level(enc)
        levels = np.zeros(enc.n_qi, dtype=np.int64)
        status: dict[int, int] = {}
        total = int(enc.heights.sum()) + 1
        while True:
            progress(float(levels.sum()) / total, f"checking levels {tuple(int(x) for x in levels)}")
            ev = evaluator.evaluate(levels)
            status[lat.index(levels)] = SATISFIES if ev.satisfies else FAILS
            if ev.satisfies:
                break
            open_qi = [q for q in range(enc.n_qi) if levels[q] < enc.heights[q]]
            if not open_qi:
                raise _infeasible(config, allowance)
            # the attribute with the most distinct values at its current level; ties: the first listed
            q = max(open_qi, key=lambda a: (distinct[a][levels[a]], -a))
            levels[q] += 1
        record = None
        if lat.size <= 5_000_000:
            st = np.zeros(lat.size, dtype=np.int8)
            for idx, s in status.items():
                st[idx] = s
            record = SearchRecord(
                enc.qi,
                lat.max_levels.copy(),
                st,
                np.full(lat.size, np.nan),
                lat.index(levels),
                self.metric_name,
            )
        ctx = MetricContext(enc, evaluator.k, allowance, evaluator.base)
        record_values = get_metric(self.metric_name).value(ev, ctx)
        if record is not None:
            record.metric[lat.index(levels)] = record_values
        return self._finish(table, config, enc, ev, ctx, start, evaluator.checks, record)


def _distinct_per_level(enc: EncodedTable) -> list[np.ndarray]:
    """Number of distinct values present in the data for every QI at every level."""
    out = []
    for q, h in enumerate(enc.hierarchies):
        present = np.bincount(enc.codes[q], minlength=len(h.values)) > 0
        out.append(np.array([len(np.unique(enc.level_maps[q][j][present])) for j in range(h.depth)]))
    return out


def apply_transformation(
    table: Table,
    config: AnonymizationConfig,
    levels: dict[str, int] | tuple[int, ...],
    suppression_limit: float = 1.0,
    metric: str = "dm",
    search: SearchRecord | None = None,
    enforce: bool = True,
) -> AnonymizationResult:
    """Apply one full-domain transformation chosen by the user (CLI ``apply``, a click in the lattice).

    Classes failing the privacy models are suppressed when they fit within ``suppression_limit``;
    otherwise an InfeasibleError says how many records would have to go. With ``enforce=False`` the levels
    are applied as they are: nothing is suppressed and no privacy model is claimed.
    """
    import time

    from kanon_engine.encoding import encode_table
    from kanon_engine.errors import ConfigError

    start = time.perf_counter()
    config.check_columns(table)
    enc = encode_table(
        table, config.quasi_identifiers, config.hierarchies, config.sensitive, config.sensitive_hierarchies
    )
    if isinstance(levels, dict):
        unknown = [c for c in levels if c not in enc.qi]
        if unknown:
            raise ConfigError(
                f"--levels names '{unknown[0]}', which is not a quasi-identifier.", where=unknown[0]
            )
        vector = tuple(int(levels.get(q, 0)) for q in enc.qi)
    else:
        vector = tuple(int(x) for x in levels)
    for q, lv, h in zip(enc.qi, vector, enc.heights):
        if not 0 <= lv <= h:
            raise ConfigError(f"The level of '{q}' must be between 0 and {int(h)}; got {lv}.", where=q)
    allowance = suppression_allowance(enc.n_rows, suppression_limit)
    evaluator = NodeEvaluator(enc, config.models, allowance)
    ev = evaluator.evaluate(vector, complete=True)
    if not enforce:
        ev.passes = np.ones(ev.freq.n_classes, dtype=bool)
        ev.suppressed, ev.satisfies = 0, True
    if not ev.satisfies:
        raise InfeasibleError(
            f"At these levels {ev.suppressed} records fall in groups that fail the privacy models, more "
            f"than the {allowance} the suppression limit allows.",
            hint="Generalize more, or allow more suppression.",
            where="levels",
        )

    class _Applied(Algorithm):
        name = "apply"
        title = "Apply levels"
        description = "A transformation chosen by the user."

        def _run(self, *args, **kwargs):  # pragma: no cover - never called
            raise NotImplementedError

    algo = _Applied(suppression_limit=suppression_limit, metric=metric)
    ctx = MetricContext(enc, evaluator.k, allowance, evaluator.base)
    result = algo._finish(table, config, enc, ev, ctx, start, evaluator.checks, search)
    if not enforce:
        result.parameters["privacy_models_enforced"] = False
    return result
