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

import dataclasses
import time
from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from kanon_engine.algorithms.base import METRIC, SUPPRESSION_LIMIT, TARGET, Algorithm, Job, target_columns
from kanon_engine.algorithms.cell_suppression import (
    SUPPRESS,
    CellMetric,
    CellNodeEvaluation,
    CellSuppressionEvaluator,
    cell_budget,
    cell_result,
)
from kanon_engine.algorithms.local_suppression import IMPORTANCE
from kanon_engine.algorithms.person_support import with_person_facts
from kanon_engine.algorithms.search import LatticeSearch
from kanon_engine.config import AnonymizationConfig, ParamSpec, require_k_fits
from kanon_engine.core.arrays import dot
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.evaluation import (
    NodeEvaluation,
    NodeEvaluator,
    evaluator_context,
    suppression_allowance,
)
from kanon_engine.core.lattice import SearchRecord
from kanon_engine.core.persons import cut_points, merged_pairs
from kanon_engine.data.table import Table, TableLike
from kanon_engine.errors import ConfigError, InfeasibleError
from kanon_engine.i18n import N_, _, formats
from kanon_engine.metrics.classification import check_targets
from kanon_engine.metrics.loss import (
    DEFAULT_METRIC,
    Metric,
    MetricContext,
    generalization_intensity,
    get_metric,
    node_metrics,
)
from kanon_engine.metrics.partition import hierarchy_ncp
from kanon_engine.privacy import require_applicable
from kanon_engine.release.build import row_classes
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources import TableSource, as_source, encode_records, records_in_memory
from kanon_engine.sources.plan.counting import count_points
from kanon_engine.sources.plan.finish import finish_result
from kanon_engine.sources.plan.release_plan import FullDomainPlan


def infeasible(config: AnonymizationConfig, limit: int, what: str = "records") -> InfeasibleError:
    """No node satisfies the models within the suppression allowance: say so, and what to relax."""
    models = formats.join_clauses([m.describe().rstrip(". ") for m in config.models])
    return InfeasibleError(
        (
            _(
                "No transformation satisfies {models} with at most {n} suppressed quasi-identifier values.",
                models=models,
                n=limit,
            )
            if what == "cells"
            else _(
                "No transformation satisfies {models} with at most {n} suppressed records.",
                models=models,
                n=limit,
            )
        ),
        hint=_("Allow more suppression, lower k (or l, or raise t), or use broader hierarchies."),
        where="models",
    )


class FullDomainAlgorithm(Algorithm):
    """Base of the algorithms that release one full-domain transformation.

    ``suppression_limit``: largest share of records that may be suppressed (None: none, except where an
    algorithm's paper says otherwise, see Datafly); ``metric``: the quality metric that ranks solutions;
    ``suppress``: whole records (the survey's AG_TS) or single cells (AG_CS, :mod:`.cell_suppression`;
    the limit then counts quasi-identifier cells); ``importance``: with cells, the attributes to keep
    longest (as in local suppression; unused with records).
    """

    full_domain = True
    params: ClassVar[tuple[ParamSpec, ...]] = (SUPPRESSION_LIMIT, METRIC, SUPPRESS, IMPORTANCE, TARGET)
    #: under cell suppression, whether a check may stop local suppression once the node is known to
    #: fail (its ``cells`` then a lower bound): only for searches that use no figure of a failing node
    cells_stop_early: ClassVar[bool] = False
    #: Largest lattice the algorithm accepts (None: no limit); validation refuses larger ones up front.
    max_nodes: ClassVar[int | None] = None

    def counted_columns(self, config: AnonymizationConfig) -> tuple[str, ...]:
        """The classification metric's targets that are not quasi-identifiers are counted per class."""
        return tuple(c for c in target_columns(self.parameters) if c not in config.quasi_identifiers)

    def suppression_allowance(self, n_rows: int, k: int) -> int:
        """Records that may be suppressed; no suppression unless a limit is given."""
        limit = self.parameters["suppression_limit"]
        return suppression_allowance(n_rows, 0.0 if limit is None else limit)

    def node_checker(
        self, enc: EncodedTable, config: AnonymizationConfig
    ) -> tuple[NodeEvaluator, Metric, int, str]:
        """The node checker, the metric, the allowance and its unit: records, or with
        ``suppress="cells"`` quasi-identifier cells (the records' allowance times the number of
        quasi-identifiers when no limit is given)."""
        allowance = self.suppression_allowance(enc.n_rows, config.k)
        targets = target_columns(self.parameters)
        metric = get_metric(self.parameters["metric"], targets)
        if targets and self.parameters["suppress"] == "cells":
            raise ConfigError(
                _(
                    "The classification metric ranks releases that suppress whole records; with single "
                    "values suppressed (--suppress cells) choose another metric."
                ),
                where="metric",
            )
        check_targets(targets, config.identifiers, enc)
        if self.parameters["suppress"] != "cells":
            group_k = (
                config.suppressed_group_k
            )  # Datafly's step 4 (:mod:`kanon_engine.core.suppressed_group`)
            tracked = self.counted_columns(config)
            evaluator = NodeEvaluator(
                enc,
                config.models,
                allowance,
                suppressed_group_k=group_k,
                tracked=tracked,
                keeps_suppressed=not config.drop_suppressed,
            )
            return evaluator, metric, allowance, "records"
        # AG_CS keeps every record: no record is suppressed, so there is no group of suppressed records
        # for step 4 to protect (the evaluator runs without it, whatever the project's setting)
        limit = self.parameters["suppression_limit"]
        cells = allowance * enc.n_qi if limit is None else cell_budget(enc.n_rows, enc.n_qi, limit)
        evaluator = CellSuppressionEvaluator(
            enc,
            config.models,
            cells,
            self.parameters["importance"],
            stop_early=self.cells_stop_early,
            metric=metric.name,
        )
        return evaluator, CellMetric(metric), cells, "cells"


class LatticeSearchAlgorithm(FullDomainAlgorithm):
    """Common run of the lattice searches: build the search, find a node, build the release."""

    def _run(self, job: Job) -> AnonymizationResult:
        table, config, enc, progress, start = job
        evaluator, metric, allowance, unit = self.node_checker(enc, config)
        search = LatticeSearch(
            enc, config.models, allowance, metric, progress, self.name, self.max_nodes, evaluator
        )
        best = self._search(search)
        if best is None:
            raise infeasible(config, allowance, unit)
        ev = search.evaluation(best)
        progress(1.0, _("building the release"))
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
        if self.parameters["suppress"] == "cells":
            return (
                _(
                    "With cell suppression a node's '*' cells come from local suppression, which need not "
                    "fall under generalization, so every transformation that could beat the optimum was "
                    "checked (no pruning by satisfaction)."
                ),
            )
        return (
            _(
                "The privacy models are not monotone with suppression, so a transformation was ruled out "
                "without a check only when the suppression it forces rules out all its specializations too; "
                "every other one that could beat the optimum was checked."
            ),
        )


def points_ncp(
    points: EncodedTable,
    levels: tuple[int, ...],
    point_class: np.ndarray,
    trim: tuple[np.ndarray, np.ndarray] | None,
) -> dict[str, float]:
    """NCP of a full-domain release (``gcp`` and ``ncp:<qi>``) from its points (Xu et al. 2006): each
    released record counts its value's share of the hierarchy's leaves, a suppressed record 1 per cell
    (as :func:`kanon_engine.release.cell_recoding.node_ncp` counts records), so every model's releases
    compare.
    Records trimmed by Datafly's step 4 (``trim``: per released class its size and records trimmed)
    are suppressed records of their class."""
    weights = points.weights if points.weights is not None else np.ones(points.codes.shape[1], np.int64)
    kept = point_class >= 0
    w_kept = weights[kept].astype(np.float64)
    trimmed = np.zeros(0) if trim is None else trim[1].astype(np.float64)
    n_suppressed = float(weights[~kept].sum()) + float(trimmed.sum())
    out: dict[str, float] = {}
    per_qi = []
    for q, (name, lv) in enumerate(zip(points.qi, levels)):
        value = hierarchy_ncp(points.hierarchies[q])[points.codes[q][kept], int(lv)]
        total = dot(w_kept, value) + n_suppressed
        if len(trimmed):  # a class's records share one released value: its NCP is the class's
            per_class = np.zeros(len(trimmed))
            per_class[point_class[kept]] = value
            total -= dot(trimmed, per_class)
        per_qi.append(total / max(points.n_rows, 1))
        out[f"ncp:{name}"] = per_qi[-1]
    out["gcp"] = float(np.mean(per_qi)) if per_qi else 0.0
    return out


def full_domain_result(
    algorithm: str,
    parameters: dict[str, Any],
    table: TableLike,
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
    node's classes. Under cell suppression, the AG_CS release of :mod:`.cell_suppression` (records in
    memory only, see :meth:`FullDomainAlgorithm.needs_records`)."""
    if isinstance(ev, CellNodeEvaluation):
        return cell_result(algorithm, parameters, table, config, enc, ev, ctx, start, checks, record, notes)
    points = ev.points.enc if ev.points is not None else enc
    if ev.points is not None:  # a node finer than the points: its classes were counted on their own
        point_class, suppressed = row_classes(points, ev, None)
    else:
        point_class, suppressed = row_classes(enc, ev, ctx.base)
    if ev.person_cut is not None:  # the rows of persons cut out of released classes (core.person_sets)
        pairs = merged_pairs(ev.freq)  # the person role keeps its pairs in every frequency set
        suppressed = suppressed | cut_points(points, point_class, pairs, ev.person_cut)
    kept_ids = np.flatnonzero(ev.passes)
    renumber = np.full(ev.freq.n_classes, -1, dtype=np.int64)
    renumber[kept_ids] = np.arange(len(kept_ids))
    plan = FullDomainPlan(config, ev.points, levels=tuple(int(x) for x in ev.levels))
    plan.point_class = np.where(suppressed, -1, renumber[point_class])
    if ev.person_cut is not None:  # suppressed point by point, not "the last records" of a class
        plan.by_point = True
    elif ev.trimmed is not None and ev.trimmed[kept_ids].any():  # Datafly's step 4: the last records of
        plan.trim = (ev.sizes[kept_ids], ev.trimmed[kept_ids])  # these classes are suppressed as well
    metrics = node_metrics(ev, ctx)
    targets = target_columns(parameters)
    if targets:  # the classification metric, reported under its own name
        metrics["classification"] = get_metric("classification", targets).value(ev, ctx)
    metrics.update(points_ncp(points, ev.levels, plan.point_class, plan.trim))
    for q, value in zip(enc.qi, generalization_intensity(np.asarray(ev.levels), enc.heights)):
        metrics[f"intensity:{q}"] = float(value)
    return AnonymizationResult.finished(
        algorithm,
        parameters,
        config,
        start,
        plan=plan,
        class_sizes=ev.released_sizes,
        metrics=metrics,
        transformation=dict(zip(enc.qi, (int(x) for x in ev.levels))),
        nodes_checked=checks,
        lattice=record,
        notes=notes,
        models_enforced=models_enforced,
    )


def level_vector(enc: EncodedTable, levels: dict[str, int] | tuple[int, ...]) -> tuple[int, ...]:
    """The levels as a vector in quasi-identifier order, each within its hierarchy's height."""
    if isinstance(levels, dict):
        unknown = [c for c in levels if c not in enc.qi]
        if unknown:
            raise ConfigError(
                _("--levels names '{column}', which is not a quasi-identifier.", column=unknown[0]),
                where=unknown[0],
            )
        vector = tuple(int(levels.get(q, 0)) for q in enc.qi)
    else:
        vector = tuple(int(x) for x in levels)
    for q, lv, h in zip(enc.qi, vector, enc.heights):
        if not 0 <= lv <= h:
            raise ConfigError(
                _(
                    "The level of '{column}' must be between 0 and {height}; got {level}.",
                    column=q,
                    height=int(h),
                    level=lv,
                ),
                where=q,
            )
    return vector


class _AppliedLevels:
    """``apply`` as the models see it (:meth:`PrivacyModel.unsupported_by`): one full-domain node, whole
    records suppressed."""

    name: ClassVar[str] = "apply"
    title: ClassVar[str] = N_("Applying chosen levels")
    full_domain: ClassVar[bool] = True
    parameters: ClassVar[dict[str, Any]] = {}

    def works_on_records(self) -> bool:
        return False


def apply_transformation(
    table: Table | TableSource,
    config: AnonymizationConfig,
    levels: dict[str, int] | tuple[int, ...],
    suppression_limit: float = 1.0,
    metric: str = DEFAULT_METRIC,
    search: SearchRecord | None = None,
    enforce: bool = True,
    suppress: str = "records",
    importance: str | None = None,
) -> AnonymizationResult:
    """Apply one full-domain transformation chosen by the user (CLI ``apply``, a click in the lattice).

    Classes failing the privacy models are suppressed when they fit within ``suppression_limit``;
    otherwise an InfeasibleError says how many records would have to go. With ``suppress="cells"`` only
    single cells of their records are suppressed (the limit counts cells; ``importance`` names the
    attributes to keep longest). With ``enforce=False`` the
    levels are applied as they are: nothing is suppressed and no privacy model is claimed.
    """
    start = time.perf_counter()
    if enforce:  # a model with a procedure of its own (differential privacy) cannot be applied by levels
        require_applicable(config.models, _AppliedLevels())
    parameters = {
        "suppression_limit": SUPPRESSION_LIMIT.coerce(suppression_limit),
        "metric": METRIC.coerce(metric),
        "suppress": SUPPRESS.coerce(suppress),
        "importance": IMPORTANCE.coerce(importance),
    }
    source = as_source(table)
    if enforce and parameters["suppress"] == "cells":  # single cells of single records: rows in memory
        records = records_in_memory(source, _("Cell suppression"))
        config.check_table(records)
        enc = encode_records(records, config)
        vector = level_vector(enc, levels)
        result = _apply_with_cells(records, config, enc, vector, parameters, search, start)
        return dataclasses.replace(result, engine=source.engine, engine_reason=source.reason)
    config.check_columns(source)
    counted = count_points(source, config)
    enc = counted.enc
    if enforce:
        require_k_fits(config.k, enc.n_rows)
    vector = level_vector(enc, levels)
    allowance = suppression_allowance(enc.n_rows, parameters["suppression_limit"])
    group_k = config.suppressed_group_k if enforce else 0
    evaluator = NodeEvaluator(enc, config.models, allowance, suppressed_group_k=group_k)
    ev = evaluator.evaluate(vector, complete=True)
    if not enforce:
        ev.passes = np.ones(ev.freq.n_classes, dtype=bool)
        ev.suppressed, ev.satisfies = 0, True
    if not ev.satisfies and ev.rejected_by is not None:
        raise InfeasibleError(
            _(
                "At these levels the release does not satisfy this privacy model: {model}",
                model=ev.rejected_by.describe(),
            ),
            hint=_("Generalize more, or allow more suppression."),
            where="levels",
        )
    if not ev.satisfies:
        raise InfeasibleError(
            _(
                "At these levels {n} records fall in groups that fail the privacy models, more "
                "than the {allowance} the suppression limit allows.",
                n=int(ev.suppressed),
                allowance=allowance,
            ),
            hint=_("Generalize more, or allow more suppression."),
            where="levels",
        )
    ctx = evaluator_context(evaluator)
    result = full_domain_result(
        "apply", parameters, source, config, enc, ev, ctx, start, evaluator.checks, search, (), enforce
    )
    return with_person_facts(finish_result(source, counted, result, start), source)


def _apply_with_cells(
    table: Table,
    config: AnonymizationConfig,
    enc: EncodedTable,
    vector: tuple[int, ...],
    parameters: dict[str, Any],
    search: SearchRecord | None,
    start: float,
) -> AnonymizationResult:
    """``apply`` under cell suppression: the outliers at these levels lose single cells (AG_CS)."""
    budget = cell_budget(enc.n_rows, enc.n_qi, parameters["suppression_limit"])
    evaluator = CellSuppressionEvaluator(enc, config.models, budget, parameters["importance"])
    ev = evaluator.evaluate(vector)
    if not ev.satisfies and ev.peeling is None and ev.cells <= budget:
        raise InfeasibleError(
            _(
                "At these levels no choice of values to replace by * satisfies the privacy models (even "
                "hiding every outlier's values leaves a group that fails them)."
            ),
            hint=_("Generalize more, or relax l or t."),
            where="levels",
        )
    if not ev.satisfies:
        raise InfeasibleError(
            (
                _(
                    "At these levels {cells} values would have to be suppressed, more than the {budget} the "
                    "suppression limit allows.",
                    cells=ev.cells,
                    budget=budget,
                )
                if ev.peeling is not None
                else _(
                    "At these levels at least {cells} values would have to be suppressed, more than the "
                    "{budget} the suppression limit allows.",
                    cells=ev.cells,
                    budget=budget,
                )
            ),
            hint=_("Generalize more, or allow more suppression."),
            where="levels",
        )
    ctx = MetricContext(enc, evaluator.k, budget)
    return cell_result("apply", parameters, table, config, enc, ev, ctx, start, evaluator.checks, search)
