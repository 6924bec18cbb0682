"""What the full-domain algorithms share: the choice of one node of the generalization lattice (a level
per quasi-identifier, Samarati 2001) and the release built from it.

- :class:`FullDomainAlgorithm`: the parameters (suppression limit, quality metric) and the suppression
  allowance of every full-domain algorithm (Datafly, Samarati, Incognito, optimal); its ``_run`` ends
  with :func:`full_domain_result`;
- :class:`LatticeSearchAlgorithm`: the run of those that search the lattice with
  :class:`~kanon_engine.algorithms.search.LatticeSearch`; a subclass only says which nodes to check and
  in what order (``_search``);
- :func:`full_domain_result`: the release of a chosen node and everything reported about it;
- :func:`apply_transformation`: one node chosen by the user (CLI ``apply``, a click in the lattice).
"""

from __future__ import annotations

import time
from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from kanon_engine.algorithms.base import METRIC, SUPPRESSION_LIMIT, Algorithm
from kanon_engine.algorithms.search import LatticeSearch
from kanon_engine.config import AnonymizationConfig, require_k_fits
from kanon_engine.data.table import Table
from kanon_engine.encoding import EncodedTable
from kanon_engine.errors import ConfigError, InfeasibleError
from kanon_engine.evaluation import NodeEvaluation, NodeEvaluator, evaluator_context, suppression_allowance
from kanon_engine.lattice import SearchRecord
from kanon_engine.metrics.loss import (
    DEFAULT_METRIC,
    MetricContext,
    generalization_intensity,
    get_metric,
    node_metrics,
)
from kanon_engine.progress import ProgressCallback
from kanon_engine.release import row_classes
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources import TableSource, as_source
from kanon_engine.sources.counting import count_points
from kanon_engine.sources.finish import finish_result
from kanon_engine.sources.plan import FullDomainPlan


def infeasible(config: AnonymizationConfig, limit: int) -> InfeasibleError:
    """No node satisfies the models within the suppression allowance: say so, and what to relax."""
    models = "; ".join(m.describe() for m in config.models)
    return InfeasibleError(
        f"No transformation satisfies {models} with at most {limit} suppressed records.",
        hint="Allow more suppression, lower k (or l, or raise t), or use broader hierarchies.",
        where="models",
    )


class FullDomainAlgorithm(Algorithm):
    """Base of the algorithms that release one full-domain transformation.

    ``suppression_limit``: largest share of records that may be suppressed (None: none, except where an
    algorithm's paper says otherwise, see Datafly); ``metric``: the quality metric that ranks solutions.
    """

    full_domain = True
    params = (SUPPRESSION_LIMIT, METRIC)
    #: Largest lattice the algorithm accepts (None: no limit); validation refuses larger ones up front.
    max_nodes: ClassVar[int | None] = None

    def __init__(self, *, suppression_limit: float | None = None, metric: str = DEFAULT_METRIC) -> None:
        self.suppression_limit = suppression_limit
        self.metric = metric

    def suppression_allowance(self, n_rows: int, k: int) -> int:
        """Records that may be suppressed; no suppression unless a limit is given."""
        limit = self.parameters["suppression_limit"]
        return suppression_allowance(n_rows, 0.0 if limit is None else limit)


class LatticeSearchAlgorithm(FullDomainAlgorithm):
    """Common run of the lattice searches: build the search, find a node, build the release."""

    def _run(
        self,
        table: Table,
        config: AnonymizationConfig,
        enc: EncodedTable,
        progress: ProgressCallback,
        start: float,
    ) -> AnonymizationResult:
        allowance = self.suppression_allowance(enc.n_rows, config.k)
        metric = get_metric(self.parameters["metric"])
        search = LatticeSearch(
            enc,
            config.models,
            allowance,
            metric,
            progress,
            self.name,
            self.max_nodes,
            config.suppressed_group_k,
        )
        best = self._search(search)
        if best is None:
            raise infeasible(config, allowance)
        ev = search.evaluation(best)
        progress(1.0, "building the release")
        record = search.record(best)
        return full_domain_result(
            self.name,
            self.parameters,
            table,
            config,
            enc,
            ev,
            search.ctx,
            start,
            search.checks,
            record,
            self._notes(search),
        )

    @abstractmethod
    def _search(self, search: LatticeSearch) -> int | None:
        """The index of the chosen node, or None when no node satisfies the models."""

    def _notes(self, search: LatticeSearch) -> tuple[str, ...]:
        if search.monotone:
            return ()
        return (
            "The privacy models are not monotone with suppression, so a transformation was ruled out "
            "without a check only when the suppression it forces rules out all its specializations too; "
            "every other one that could beat the optimum was checked.",
        )


def full_domain_result(
    algorithm: str,
    parameters: dict[str, Any],
    table: Table,
    config: AnonymizationConfig,
    enc: EncodedTable,
    ev: NodeEvaluation,
    ctx: MetricContext,
    start: float,
    checks: int,
    record: SearchRecord | None,
    notes: tuple[str, ...] = (),
    models_enforced: bool = True,
) -> AnonymizationResult:
    """The full-domain node ``ev`` as a result: the released class of every point (its plan, from which
    the release is made) and everything reported about it. Classes are numbered in the order of the
    node's classes."""
    if ev.points is not None:  # a node finer than the points: its classes were counted on their own
        point_class, suppressed = row_classes(ev.points.enc, ev, None)
    else:
        point_class, suppressed = row_classes(enc, ev, ctx.base)
    kept_ids = np.flatnonzero(ev.passes)
    renumber = np.full(ev.freq.n_classes, -1, dtype=np.int64)
    renumber[kept_ids] = np.arange(len(kept_ids))
    plan = FullDomainPlan(config, ev.points, levels=tuple(int(x) for x in ev.levels))
    plan.point_class = np.where(suppressed, -1, renumber[point_class])
    if ev.trimmed is not None and ev.trimmed[kept_ids].any():  # Datafly's step 4: the last records of
        plan.trim = (ev.sizes[kept_ids], ev.trimmed[kept_ids])  # these classes are suppressed as well
    metrics = node_metrics(ev, ctx)
    for q, value in zip(enc.qi, generalization_intensity(np.asarray(ev.levels), enc.heights)):
        metrics[f"intensity:{q}"] = float(value)
    return AnonymizationResult(
        algorithm=algorithm,
        parameters=dict(parameters),
        config=config,
        release=None,
        row_class=None,
        plan=plan,
        class_sizes=ev.released_sizes,
        metrics=metrics,
        runtime_seconds=time.perf_counter() - start,
        transformation=dict(zip(enc.qi, (int(x) for x in ev.levels))),
        nodes_checked=checks,
        lattice=record,
        notes=notes,
        models_enforced=models_enforced,
    )


def _level_vector(enc: EncodedTable, levels: dict[str, int] | tuple[int, ...]) -> tuple[int, ...]:
    """The levels as a vector in quasi-identifier order, each within its hierarchy's height."""
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
    return vector


def apply_transformation(
    table: Table | TableSource,
    config: AnonymizationConfig,
    levels: dict[str, int] | tuple[int, ...],
    suppression_limit: float = 1.0,
    metric: str = DEFAULT_METRIC,
    search: SearchRecord | None = None,
    enforce: bool = True,
) -> AnonymizationResult:
    """Apply one full-domain transformation chosen by the user (CLI ``apply``, a click in the lattice).

    Classes failing the privacy models are suppressed when they fit within ``suppression_limit``;
    otherwise an InfeasibleError says how many records would have to go. With ``enforce=False`` the levels
    are applied as they are: nothing is suppressed and no privacy model is claimed.
    """
    start = time.perf_counter()
    parameters = {
        "suppression_limit": SUPPRESSION_LIMIT.coerce(suppression_limit),
        "metric": METRIC.coerce(metric),
    }
    source = as_source(table)
    config.check_columns(source)
    counted = count_points(source, config)
    enc = counted.enc
    if enforce:
        require_k_fits(config.k, enc.n_rows)
    vector = _level_vector(enc, levels)
    allowance = suppression_allowance(enc.n_rows, parameters["suppression_limit"])
    group_k = config.suppressed_group_k if enforce else 0
    evaluator = NodeEvaluator(enc, config.models, allowance, suppressed_group_k=group_k)
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
    ctx = evaluator_context(evaluator)
    result = full_domain_result(
        "apply", parameters, source, config, enc, ev, ctx, start, evaluator.checks, search, (), enforce
    )
    return finish_result(source, counted, result, start)
