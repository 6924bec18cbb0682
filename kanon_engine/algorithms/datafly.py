"""Sweeney's Datafly heuristic (Sweeney 2002, "Achieving k-anonymity privacy protection using
generalization and suppression", IJUFKS 10(5); Sweeney 1997)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kanon_engine.algorithms.base import Job
from kanon_engine.algorithms.full_domain import FullDomainAlgorithm, full_domain_result, infeasible
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.evaluation import (
    NodeEvaluation,
    NodeEvaluator,
    evaluator_context,
    suppression_allowance,
)
from kanon_engine.core.lattice import FAILS, SATISFIES, Lattice, SearchRecord
from kanon_engine.i18n import N_, _
from kanon_engine.metrics.loss import Metric, MetricContext
from kanon_engine.progress import LazyText, ProgressCallback
from kanon_engine.result import AnonymizationResult

#: Lattices up to this size get a search record (one byte per node) for the lattice view.
_RECORD_NODES = 5_000_000


class Datafly(FullDomainAlgorithm):
    """Datafly: generalize the attribute with the most distinct values one level at a time until the
    records in too-small classes fit the suppression allowance, then suppress them."""

    name = "datafly"
    title = N_("Datafly (Sweeney's greedy heuristic)")
    description = N_(
        "Sweeney's Datafly: while the records that share their quasi-identifier values with fewer than "
        "k-1 others are more than the suppression allowance, generalize the quasi-identifier with the "
        "most distinct values by one level; then suppress the remaining outliers. Very fast and simple; "
        "often generalizes more than needed. Without a suppression limit it may suppress up to k records, "
        "as in Sweeney's original. Suppressed records kept in the release form one group of 0 or at least "
        "k records (Sweeney's step 4): if fewer are suppressed, more are, within the limit."
    )

    def suppression_allowance(self, n_rows: int, k: int) -> int:
        """Without a limit, up to k records (Sweeney's original); with one, that share of the records."""
        limit = self.parameters["suppression_limit"]
        return min(k, n_rows) if limit is None else suppression_allowance(n_rows, limit)

    def _run(self, job: Job) -> AnonymizationResult:
        table, config, enc, progress, start = job
        evaluator, metric, allowance, unit = self.node_checker(enc, config)
        lat = Lattice(enc.heights, enc.qi)
        ev, status = self._climb(enc, evaluator, lat, progress)
        if ev is None:
            raise infeasible(config, allowance, unit)
        ctx = evaluator_context(evaluator)
        record = self._record(lat, status, ev, ctx, metric)
        checks = evaluator.checks
        return full_domain_result(
            self.name, self.parameters, table, config, enc, ev, ctx, start, checks, record
        )

    def _climb(
        self, enc: EncodedTable, evaluator: NodeEvaluator, lat: Lattice, progress: ProgressCallback
    ) -> tuple[NodeEvaluation | None, dict[int, int]]:
        """Generalize one attribute at a time from the bottom; the first node that satisfies the models
        (None when the top fails) and the status of every node checked on the way."""
        status: dict[int, int] = {}
        total = int(enc.heights.sum()) + 1
        last: list[NodeEvaluation] = []

        def satisfies(levels: np.ndarray) -> bool:
            shown = tuple(int(x) for x in levels)
            progress(
                float(levels.sum()) / total,
                LazyText(lambda: _("checking levels {levels}", levels=str(shown))),
            )
            ev = evaluator.evaluate(levels)
            status[lat.index(levels)] = SATISFIES if ev.satisfies else FAILS
            last[:] = [ev]
            return ev.satisfies

        found = greedy_climb(enc, satisfies)
        return (last[0] if found is not None else None), status

    def _record(
        self, lat: Lattice, status: dict[int, int], ev: NodeEvaluation, ctx: MetricContext, metric: Metric
    ) -> SearchRecord | None:
        """The path Datafly climbed, as a search record for the lattice view (None for huge lattices)."""
        if lat.size > _RECORD_NODES:
            return None
        st = np.zeros(lat.size, dtype=np.int8)
        for idx, s in status.items():
            st[idx] = s
        chosen = lat.index(ev.levels)
        name = self.parameters["metric"]
        record = SearchRecord(lat.names, lat.max_levels.copy(), st, np.full(lat.size, np.nan), chosen, name)
        record.metric[chosen] = metric.value(ev, ctx)
        return record


def greedy_climb(enc: EncodedTable, satisfies: Callable[[np.ndarray], bool]) -> tuple[int, ...] | None:
    """Datafly's loop: from the original values, generalize the attribute with the most distinct values
    by one level until ``satisfies(levels)``; None when every attribute is at its top and it fails.
    Samarati's bounded search climbs the same way (:mod:`.samarati`)."""
    distinct = _distinct_per_level(enc)
    levels = np.zeros(enc.n_qi, dtype=np.int64)
    while not satisfies(levels):
        open_qi = [q for q in range(enc.n_qi) if levels[q] < enc.heights[q]]
        if not open_qi:
            return None
        # the attribute with the most distinct values at its current level; ties: the first listed
        q = max(open_qi, key=lambda a: (distinct[a][levels[a]], -a))
        levels[q] += 1
    return tuple(int(x) for x in levels)


def _distinct_per_level(enc: EncodedTable) -> list[np.ndarray]:
    """Number of distinct values present in the data for every QI at every level."""
    out = []
    for q, h in enumerate(enc.hierarchies):
        present = enc.leaf_histogram(q) > 0
        out.append(np.array([len(np.unique(enc.level_maps[q][j][present])) for j in range(h.depth)]))
    return out
