"""Full-domain generalization with cell suppression: the survey's AG_CS model (``--suppress cells``).

The full-domain algorithms pick one generalization level per attribute (AG). What happens to the records
that still stand out is the second half of the model: whole records are suppressed (tuple suppression,
TS, the default) or, with ``suppress="cells"``, only single values of them are replaced by ``*`` (cell
suppression, CS) and every record is kept. At a lattice node the outliers' cells are chosen by local
suppression (:mod:`kanon_engine.algorithms.peeling` on the node's frequency set, every generalized value a
leaf with ``*`` above it); the node *satisfies* when the ``*`` cells fit the suppression limit, which
then bounds the share of quasi-identifier cells (``limit * records * quasi-identifiers``), not records.

The searches stay exact for this model: the number of ``*`` a node needs is whatever the deterministic
local suppression finds there, which is not guaranteed to fall under generalization, so nodes are never
classified by monotonicity (a node whose outlier records outnumber the allowed cells fails at once: each
needs a ``*``), and the metrics' bounds are the ones that still hold when records may be regrouped: the
optimum equals brute force over every node (tests).

Metrics count cells: precision and entropy charge a ``*`` like the attribute's root, DM and C_AVG are
computed on the classes after suppression (no suppressed record pays ``|T|``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kanon_engine.algorithms.local_suppression import importance_order, star_costs
from kanon_engine.algorithms.peeling import (
    GroupChecker,
    NoRelease,
    Peeler,
    Peeling,
    PeelingInput,
    frequency_rows,
)
from kanon_engine.config import AnonymizationConfig, ParamSpec
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.evaluation import NodeEvaluation, NodeEvaluator, suppression_allowance
from kanon_engine.core.frequency import SensitiveCombos, group_columns, representatives, sensitive_combos
from kanon_engine.core.lattice import SearchRecord
from kanon_engine.data.table import Table, TableLike, loaded
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy.model import ROOT
from kanon_engine.i18n import N_, _
from kanon_engine.metrics.loss import (
    Metric,
    MetricContext,
    average_class_size,
    discernibility,
    discernibility_star,
    generalization_intensity,
    loss_aggregate,
)
from kanon_engine.privacy import PrivacyModel
from kanon_engine.privacy.base import whole_release_refusal
from kanon_engine.release.cell_recoding import build_cell_result
from kanon_engine.result import AnonymizationResult, CellRecoding

SUPPRESS = ParamSpec(
    "suppress",
    N_("What to suppress"),
    "choice",
    "records",
    N_(
        "What happens to records that still stand out after generalization: records removes the whole "
        "record (or masks all its quasi-identifiers); cells replaces only the values that make it stand "
        "out with '*' and keeps the record (the limit then counts cells)."
    ),
    choices=("records", "cells"),
    choice_labels=(N_("whole records (remove or mask the record)"), N_("single values (keep every patient)")),
)


@dataclass(eq=False)
class CellNodeEvaluation(NodeEvaluation):
    """A node under cell suppression: ``cells`` suppressed (the outliers' count when the node fails
    before any suppression is tried), ``class_sizes`` after suppression, ``per_attribute`` cells."""

    cells: int = 0
    class_sizes: np.ndarray | None = None
    per_attribute: np.ndarray | None = None
    peeling: Peeling | None = None
    rows: PeelingInput | None = None
    row_leaves: np.ndarray | None = None  # (n_qi, rows) a leaf of every row of ``rows``


class CellSuppressionEvaluator(NodeEvaluator):
    """Checks nodes under the AG_CS model: outliers lose single cells, at most ``max_cells`` in all."""

    rules_out_specializations = False

    def __init__(
        self,
        enc: EncodedTable,
        models: tuple[PrivacyModel, ...],
        max_cells: int,
        importance: str | None = None,
    ) -> None:
        refused = next((m for m in models if m.judges_release), None)
        if refused is not None:  # its cells are judged class by class only
            raise ConfigError(whole_release_refusal(refused, _("Cell suppression")), where="models")
        # every record is kept (its outlying cells become '*'), so no record is suppressed and Datafly's
        # step 4 (the group of suppressed records holds 0 or >= k) has nothing to act on: it is off here
        super().__init__(enc, models, enc.n_rows, suppressed_group_k=0)
        self.max_cells = int(max_cells)
        self.max_suppressed = 0
        self.monotone = False  # a heuristic's cell count may rise under generalization
        # nothing is inferred about other nodes from records in failing classes (they lose cells, not
        # the record), so the searches get neither a suppression floor nor upsets known to satisfy
        self.monotone_without_suppression = False
        self.combos = sensitive_combos(enc)
        self.checker = GroupChecker(enc, self.models, self.combos)
        self._rows = _combination_rows(enc, self.combos)
        # which attribute loses its value first among choices with as many '*': local suppression's rule
        self.order = importance_order(enc, importance)
        self._star = star_costs(self.order)

    def evaluate(self, levels: tuple[int, ...] | np.ndarray, complete: bool = True) -> CellNodeEvaluation:
        """Check one node under cell suppression (always completely: every outlier's cells count)."""
        base = super().evaluate(levels, complete=True)
        outliers = base.suppressed
        ev = CellNodeEvaluation(
            base.levels, base.freq, base.passes, 0, outliers <= self.max_cells, cells=outliers
        )
        if outliers == 0:
            ev.class_sizes = base.sizes
            ev.per_attribute = np.zeros(self.enc.n_qi, dtype=np.int64)
        elif ev.satisfies:
            self._suppress(ev)
        return ev

    def _suppress(self, ev: CellNodeEvaluation) -> None:
        """Local suppression of the node's outliers (cells per attribute, classes after)."""
        rows = self.node_rows(ev)
        try:
            peeling = Peeler(rows, self.checker, donor_gain=1.0).run()
        except NoRelease:  # no way found to hide the outliers here (e.g. the whole table fails l)
            ev.satisfies = False
            return
        sizes = np.bincount(peeling.entry_class, weights=peeling.entry_count).astype(np.int64)
        per_class = peeling.class_levels > 0
        ev.per_attribute = (per_class * sizes[:, None]).sum(axis=0).astype(np.int64)
        ev.cells = int(ev.per_attribute.sum())
        ev.class_sizes = sizes
        ev.satisfies = ev.cells <= self.max_cells
        ev.peeling, ev.rows = peeling, rows

    def node_rows(self, ev: CellNodeEvaluation) -> PeelingInput:
        """The node's frequency set as a suppression problem: each generalized value is a leaf with
        ``*`` above it; keeping costs 0, a ``*`` 1 (plus a tie-break that keeps the more important
        attributes longest: the ``importance`` order, then fewer distinct values first). Rows are the
        node's (class, sensitive combination) pairs, rolled up from the table's, since suppression may
        split a class; ``ev.row_leaves`` keeps a leaf of each row for the metrics."""
        leaves, combo, counts = self._rows
        gen = [self.enc.level_maps[q][lv][leaves[q]] for q, lv in enumerate(ev.levels)]
        sizes = [self.enc.level_sizes[q][lv] for q, lv in enumerate(ev.levels)]
        group, n = group_columns([*gen, combo], [*sizes, self.combos.n_combos])
        rep = representatives(group, n)
        ev.row_leaves = leaves[:, rep]
        codes, maps, shapes, cost = [], [], [], []
        for q, n_codes in enumerate(sizes):
            codes.append(gen[q][rep])
            maps.append((np.arange(n_codes), np.zeros(n_codes, dtype=np.int64)))
            shapes.append((n_codes, 1))
            c = np.zeros((n_codes, 2))
            c[:, 1] = self._star[q]
            cost.append(c)
        row_counts = np.bincount(group, weights=counts, minlength=n).astype(np.int64)
        return PeelingInput(
            np.stack(codes).astype(np.int64), row_counts, combo[rep], tuple(maps), tuple(shapes), tuple(cost)
        )


def _combination_rows(
    enc: EncodedTable, combos: SensitiveCombos
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The table's distinct (quasi-identifier leaves, sensitive combination) rows: a leaf per attribute
    of each row, its combination and its records (what :meth:`node_rows` rolls up to a node)."""
    record_row, rep = frequency_rows(enc, combos)
    counts = np.bincount(record_row, minlength=len(rep)).astype(np.int64)
    return enc.codes[:, rep], combos.row_combo[rep], counts


class CellMetric(Metric):
    """A full-domain metric under cell suppression (see the module docstring); bounds that assume a
    record's class only grows under generalization are replaced by ones that hold here."""

    inner: Metric

    def __init__(self, inner: Metric) -> None:
        object.__setattr__(self, "inner", inner)

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.inner.name

    @property
    def label(self) -> str:  # type: ignore[override]
        return self.inner.label

    @property
    def short(self) -> str:  # type: ignore[override]
        return self.inner.short

    def value(self, ev: Any, ctx: MetricContext) -> float:
        figures = cell_node_metrics(ev, ctx)
        if self.inner.name == "precision":
            return 1.0 - figures["precision"]  # the search minimizes the loss, 1 - Prec
        return figures[_METRIC_KEYS[self.inner.name]]

    def lower_bound(self, ev: Any, ctx: MetricContext) -> float:
        if self.inner.name == "dm":
            return float(ctx.n_rows * ctx.k)  # every record ends in a class of at least k
        if self.inner.name == "cavg":
            return 1.0  # every class holds at least k records
        return self.inner.lower_bound(ev, ctx)

    def levels_bound(self, levels: np.ndarray, ctx: MetricContext) -> np.ndarray:
        return self.inner.levels_bound(levels, ctx)


#: metric name -> key of :func:`cell_node_metrics`
_METRIC_KEYS = {
    "loss": "loss",
    "dm": "discernibility",
    "dm-star": "discernibility_star",
    "cavg": "cavg",
    "precision": "precision",
    "height": "height",
    "entropy": "entropy",
}


def cell_node_metrics(ev: CellNodeEvaluation, ctx: MetricContext) -> dict[str, float]:
    """Every metric of a node under cell suppression (precision as Prec, higher is better)."""
    enc, n = ctx.enc, ctx.n_rows
    levels = np.asarray(ev.levels)
    heights = enc.heights
    per_attr = ev.per_attribute if ev.per_attribute is not None else np.zeros(enc.n_qi)
    frac = np.divide(levels, heights, out=np.zeros(len(heights)), where=heights > 0)
    loss = ((n - per_attr) * frac + per_attr).sum() / (n * len(heights))
    sizes = ev.class_sizes if ev.class_sizes is not None else ev.sizes
    entropy = ctx.entropy.unsuppressed(ev.levels)
    extra_share = np.zeros(enc.n_qi)
    if ev.peeling is not None and ev.rows is not None:
        entropy += _suppressed_cells_entropy(ev, ctx)
        extra_share = _suppressed_cells_share(ev, ctx)
    return {
        "loss": loss_aggregate(ctx.shares.per_attribute(ev.levels, extra_share)),
        "discernibility": discernibility(sizes, 0, n),
        "discernibility_star": discernibility_star(ev.sizes),
        "cavg": average_class_size(n, len(sizes), ctx.k),
        "precision": 1.0 - float(loss),
        "height": float(levels.sum()),
        "entropy": float(entropy),
        "suppressed_cells": float(ev.cells),
    }


def _suppressed_cells_share(ev: CellNodeEvaluation, ctx: MetricContext) -> np.ndarray:
    """Per attribute, the domain share the ``*`` cells add (ARX's Loss counts a ``*`` as share 1): each
    starred cell adds 1 minus the share of its value at the node's level (the same for every leaf under
    that value, so the frequency row's representative leaf gives the exact figure)."""
    peeling, leaves = ev.peeling, ev.row_leaves
    assert peeling is not None and leaves is not None
    starred = peeling.class_levels[peeling.entry_class] > 0
    rows, count = peeling.entry_row, peeling.entry_count
    out = np.zeros(len(ev.levels))
    for q, lv in enumerate(ev.levels):
        share = ctx.shares.share[q][lv][leaves[q][rows]]
        out[q] = float(((1.0 - share) * count * starred[:, q]).sum())
    return out


def _suppressed_cells_entropy(ev: CellNodeEvaluation, ctx: MetricContext) -> float:
    """Entropy added by the ``*`` cells: each costs its leaf's top-level cost minus its cost at the
    node's level (leaves of the node's frequency rows weighted by their suppressed records)."""
    peeling, leaves = ev.peeling, ev.row_leaves
    assert peeling is not None and leaves is not None
    starred = peeling.class_levels[peeling.entry_class] > 0  # (entries, n_qi)
    rows, count = peeling.entry_row, peeling.entry_count
    extra = 0.0
    # top cost - level cost = log2(n / f(generalized value)): the same for every leaf under it, so the
    # representative leaf of a frequency row gives the exact figure for all its records
    for q, lv in enumerate(ev.levels):
        cost = ctx.entropy.cost[q]
        per_leaf = cost[-1] - cost[lv]
        extra += float((per_leaf[leaves[q][rows]] * count * starred[:, q]).sum())
    return extra


def suppress_cells_at_node(
    table: Table, config: AnonymizationConfig, enc: EncodedTable, ev: CellNodeEvaluation
) -> CellRecoding:
    """The recoding of every record at the chosen node: its levels, and its ``*`` cells from the node's
    local suppression (records are matched to the node's frequency rows by their generalized values)."""
    n, d = enc.n_rows, enc.n_qi
    levels = np.broadcast_to(np.asarray(ev.levels, dtype=np.int8), (n, d)).copy()
    if ev.peeling is None or ev.rows is None:
        return CellRecoding(enc.qi, levels, np.zeros((n, d), dtype=bool), "AG_CS")
    rows = ev.rows
    combos = sensitive_combos(enc)
    cols = [
        np.concatenate([rows.codes[q], enc.level_maps[q][lv][enc.codes[q]]]) for q, lv in enumerate(ev.levels)
    ] + [np.concatenate([rows.combo, combos.row_combo])]
    sizes = [enc.level_sizes[q][lv] for q, lv in enumerate(ev.levels)] + [combos.n_combos]
    ids, n_ids = group_columns(cols, sizes)
    row_of_id = np.full(n_ids, -1, dtype=np.int64)
    row_of_id[ids[: len(rows.counts)]] = np.arange(len(rows.counts))
    record_row = row_of_id[ids[len(rows.counts) :]]
    suppressed = ev.peeling.class_levels[ev.peeling.record_classes(record_row)] > 0
    for q, (h, lv) in enumerate(zip(enc.hierarchies, ev.levels)):
        # a cell the node already shows as '*' is not changed by a '*': not counted as suppressed
        suppressed[:, q] &= ~np.asarray(h.matrix[:, lv] == ROOT, dtype=bool)[enc.codes[q]]
    return CellRecoding(enc.qi, levels, suppressed, "AG_CS")


def cell_budget(n_rows: int, n_qi: int, limit: float | None) -> int:
    """Cells that may be suppressed for a limit given as a share of the quasi-identifier cells."""
    return suppression_allowance(n_rows * n_qi, 0.0 if limit is None else limit)


def cell_result(
    algorithm: str,
    parameters: dict[str, Any],
    table: TableLike,
    config: AnonymizationConfig,
    enc: EncodedTable,
    ev: CellNodeEvaluation,
    ctx: MetricContext,
    start: float,
    checks: int,
    record: SearchRecord | None,
    notes: tuple[str, ...] = (),
) -> AnonymizationResult:
    """The release of a node under cell suppression, with everything reported about it."""

    rec = suppress_cells_at_node(loaded(table), config, enc, ev)
    extra = {"height": float(sum(ev.levels))}
    for q, value in zip(enc.qi, generalization_intensity(np.asarray(ev.levels), enc.heights)):
        extra[f"intensity:{q}"] = float(value)
    return build_cell_result(
        algorithm,
        parameters,
        table,
        config,
        enc,
        rec,
        start,
        checks,
        notes,
        extra,
        transformation=dict(zip(enc.qi, (int(x) for x in ev.levels))),
        lattice=record,
    )
