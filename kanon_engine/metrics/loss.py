"""Information-loss metrics: formulas on class sizes and levels, and the objectives searches minimize.

Every metric is a loss (lower is better) for the search, with a *lower bound* that holds for a node and
every generalization of it that satisfies the model: the optimal search prunes a node's whole upset
when its bound cannot beat the best value found (the branch-and-bound idea of Flash, Kohlmayer et al.
2012, and OLA, El Emam et al. 2009), which keeps the search exact for non-monotonic metrics such as DM
with its suppression penalty.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Protocol

import numpy as np

from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import BinaryHistograms, FrequencySet, base_frequency_set, group_columns
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _
from kanon_engine.metrics.classification import (
    CURVE_MAX_K,
    SUPPRESSED_PENALTY,
    SuppressionCurve,
    TwoCounts,
    majority,
    penalty_bound,
    qi_target_penalty,
    released_penalty,
    target_histograms,
    two_counts_penalty,
)


# --- formulas ------------------------------------------------------------------------------------------
def discernibility(sizes: np.ndarray, suppressed: int, n_rows: int) -> float:
    """DM = sum over released classes of |E|^2 + |T| for each suppressed record.

    Bayardo & Agrawal 2005, "Data Privacy through Optimal k-Anonymization" (ICDE); LeFevre et al. 2006
    (the seed's Mondrian paper) as C_DM. ``sizes`` are the sizes of the released (not suppressed) classes.
    """
    s = np.asarray(sizes, dtype=np.float64)
    return float((s * s).sum() + float(suppressed) * n_rows)


def discernibility_star(sizes: np.ndarray) -> float:
    """DM* = sum of |E|^2 over all classes, suppressed or not: monotone under generalization
    (ARX's "DM*"); a lower bound of DM for a node and all its generalizations."""
    s = np.asarray(sizes, dtype=np.float64)
    return float((s * s).sum())


def average_class_size(records: int, classes: int, k: int) -> float:
    """C_AVG = (|T| / number of equivalence classes) / k (LeFevre, DeWitt & Ramakrishnan 2006, the seed's
    "normalized average equivalence class size metric"), with |T| every record of the table.

    1.0 is the ideal: every class has exactly k records. With suppression the paper's |T| still counts the
    suppressed records; :func:`average_released_class_size` is the variant over released records only.
    """
    if classes == 0:
        return float("inf")
    return records / classes / k


def average_released_class_size(released_records: int, released_classes: int, k: int) -> float:
    """C_AVG over the released records only: (|T| - suppressed) / classes / k (the average size of the
    groups a reader of the release sees, relative to k; reported as ``cavg_released``)."""
    return average_class_size(released_records, released_classes, k)


def precision(levels: np.ndarray, heights: np.ndarray, suppressed: int, n_rows: int) -> float:
    """Sweeney's precision Prec = 1 - sum_{records, QIs} (h/|DGH|) / (|T| |QI|) (Sweeney 2002, Prec).

    Suppressed records count as fully generalized. QIs whose hierarchy has a single level count 0.
    """
    frac = np.divide(levels, heights, out=np.zeros(len(heights)), where=heights > 0)
    kept = n_rows - suppressed
    loss = (kept * frac.sum() + suppressed * float((heights > 0).sum())) / (n_rows * len(heights))
    return 1.0 - loss


def loss_aggregate(per_attribute: np.ndarray) -> float:
    """ARX's aggregate of per-attribute losses: the geometric mean of ``1 + loss``, minus 1 (so one
    attribute generalized to ``*`` weighs more than the same total spread over several attributes)."""
    v = np.asarray(per_attribute, dtype=np.float64)
    if v.size == 0:
        return 0.0
    return float(np.exp(np.log1p(v).mean()) - 1.0)


def normalized_loss(total_share: float, n_rows: int, domain_size: int) -> float:
    """One attribute's Loss from the sum over records of the domain share of their released value.

    0 when every value is released as it is (each record's share is ``1/|D|``), 1 when every value is
    ``*`` or suppressed (share 1): ``(S - n/|D|) / (n - n/|D|)``, as ARX normalizes it.
    """
    low = n_rows / max(domain_size, 1)
    if n_rows - low <= 0:
        return 0.0
    return float(max(0.0, (total_share - low) / (n_rows - low)))


def generalization_intensity(levels: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """Per attribute: level / height (0 = untouched, 1 = fully generalized)."""
    return np.divide(levels, heights, out=np.zeros(len(heights)), where=heights > 0)


class EntropyTables:
    """Costs of the non-uniform entropy metric (Gionis & Tassa 2009; de Waal & Willenborg 1999).

    For a record whose value v of QI q is generalized to g at level j, the loss is
    -log2(Pr[v | g]) = -log2(f(v) / f(g)), frequencies taken in the original table. The total over the
    records of a column at a level does not depend on which node it is part of, so it is tabulated once.
    """

    def __init__(self, enc: EncodedTable) -> None:
        self.enc = enc
        self.cost: list[list[np.ndarray]] = []  # [q][level] -> cost per leaf
        self.total: list[np.ndarray] = []  # [q] -> total cost over all records per level
        for q, h in enumerate(enc.hierarchies):
            f0 = enc.leaf_histogram(q)
            per_level, totals = [], []
            for j in range(h.depth):
                gen = enc.level_maps[q][j]
                fj = np.bincount(gen, weights=f0, minlength=enc.level_sizes[q][j])[gen]
                with np.errstate(divide="ignore", invalid="ignore"):
                    c = np.where(f0 > 0, -np.log2(f0 / fj), 0.0)
                per_level.append(c)
                totals.append(float((c * f0).sum()))
            self.cost.append(per_level)
            self.total.append(np.array(totals))

    def unsuppressed(self, levels: tuple[int, ...]) -> float:
        return float(sum(self.total[q][lv] for q, lv in enumerate(levels)))

    def suppressed_extra(self, leaf_codes: np.ndarray, counts: np.ndarray, levels: tuple[int, ...]) -> float:
        """Extra loss of suppressing records (leaf codes per QI x rows, with counts).

        When the rows are points counted above the leaves (a floor, :mod:`kanon_engine.sources.plan.floor`),
        a point's leaf stands for its whole group at the floor's level, so the group's average extra
        loss (weighted by the leaves' frequencies) is used: an estimate, exact for attributes counted at
        their leaves."""
        floor = getattr(self.enc.below, "floor", None)
        extra = 0.0
        for q, lv in enumerate(levels):
            top = len(self.cost[q]) - 1
            cost = self.cost[q][top] - self.cost[q][lv]
            if floor is not None and floor[q] > 0:
                group = self.enc.level_maps[q][floor[q]]
                f0 = self.enc.leaf_histogram(q)
                total = np.bincount(group, weights=f0 * cost)
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean = np.nan_to_num(total / np.bincount(group, weights=f0))
                cost = mean[group]
            extra += float((cost[leaf_codes[q]] * counts).sum())
        return extra


# --- objectives ----------------------------------------------------------------------------------------
class NodeFigures(Protocol):
    """What a metric reads of a checked node: its levels, classes (the frequency set), which classes pass,
    what is suppressed and taken out (:class:`~kanon_engine.core.evaluation.NodeEvaluation` has it all;
    the node check sits above the metrics, so they name these, not the class)."""

    @property
    def levels(self) -> tuple[int, ...]: ...

    @property
    def freq(self) -> FrequencySet: ...

    @property
    def passes(self) -> np.ndarray: ...

    @property
    def suppressed(self) -> int: ...

    @property
    def trimmed(self) -> np.ndarray | None: ...

    @property
    def sizes(self) -> np.ndarray: ...

    @property
    def released_sizes(self) -> np.ndarray: ...

    @property
    def n_classes(self) -> int: ...


@dataclass(frozen=True)
class Metric(ABC):
    """An objective to minimize over lattice nodes."""

    name: ClassVar[str]
    label: ClassVar[str]
    #: a few words for tight places (a progress bar): the metric's usual abbreviation
    short: ClassVar[str]
    #: True when the value never decreases under generalization (then only minimal nodes matter).
    monotone: ClassVar[bool] = False
    #: True when the bounds checks give (not the levels) are what prunes the optimal search: its tagging
    #: then passes over a path's nodes that became hopeless instead of checking them. Only the
    #: classification metric: with DM the same rule checks more nodes (Adult k=5, 0 %: 125, not 80).
    skips_hopeless_on_paths: ClassVar[bool] = False
    #: whether the optimal search first steps down from the top for an early solution (see
    #: ``LatticeSearch.descend``); not with the classification metric, whose top node (one class, nothing
    #: suppressed) is usually better than every node just below it: the descent would stop there, and its
    #: checks near the top only cut the tagging's paths short (Adult k=10: 380 nodes checked, not 329)
    descends: ClassVar[bool] = True
    #: whether :meth:`suppression_curve` may give a bound (the optimal search then keeps, on small
    #: lattices, the records every node suppresses at least, from its checked generalizations)
    bounds_by_suppression: ClassVar[bool] = False

    @abstractmethod
    def value(self, ev: NodeFigures, ctx: MetricContext) -> float: ...

    def lower_bound(self, ev: NodeFigures, ctx: MetricContext) -> float:
        """A bound on the value of ``ev``'s node and every satisfying generalization of it."""
        return -np.inf

    def levels_bound(self, levels: np.ndarray, ctx: MetricContext) -> np.ndarray:
        """A bound computed from the levels alone (rows of nodes), without checking the nodes."""
        return np.full(len(levels), -np.inf)

    def suppression_curve(self, ev: NodeFigures, ctx: MetricContext) -> SuppressionCurve | None:
        """For searches that suppress whole classes only, among them those smaller than k: what every
        generalization of ``ev``'s node adds to the node's :meth:`lower_bound`, by the records its
        classes smaller than k hold (:class:`~kanon_engine.metrics.classification.SuppressionCurve`);
        None when the metric has none."""
        return None


@dataclass(eq=False)
class MetricContext:
    enc: EncodedTable
    k: int
    max_suppressed: int
    #: Datafly's step 4 may take records out of released classes (k-anonymity only, suppression allowed)
    trims: bool = False
    #: the bottom frequency set, when the caller has it already (else computed on first use)
    base_set: FrequencySet | None = None
    #: rows of single persons may be cut out of released classes (``--person-knows`` above 1 with
    #: suppression, :mod:`kanon_engine.core.person_sets`): a class can lose any number of its records
    cuts: bool = False
    #: what a metric tabulates once per run (the classification metric's target points)
    tables: dict[str, object] = field(default_factory=dict)

    @cached_property
    def entropy(self) -> EntropyTables:
        return EntropyTables(self.enc)

    @property
    def n_rows(self) -> int:
        return self.enc.n_rows

    @cached_property
    def shares(self) -> DomainShares:
        return DomainShares(self.enc)

    @cached_property
    def base(self) -> FrequencySet:
        """Leaf-level frequency set (for the entropy of suppressed records, and the release)."""
        return self.base_set if self.base_set is not None else base_frequency_set(self.enc)


class DomainShares:
    """Per quasi-identifier and level: the *domain share* of every leaf's generalization, i.e. the
    share of the hierarchy's values its group covers (Iyengar 2002, "Transforming data to satisfy
    privacy constraints", KDD: the loss metric LM; ARX's "Loss" uses the same shares), and the sum of
    the shares over all records when nothing is suppressed (tabulated once, like the entropy costs)."""

    def __init__(self, enc: EncodedTable) -> None:
        self.enc = enc
        self.share: list[list[np.ndarray]] = []  # [q][level] -> share per leaf
        self.total: list[np.ndarray] = []  # [q] -> sum over records per level
        for q, h in enumerate(enc.hierarchies):
            f0 = enc.leaf_histogram(q)
            per_level, totals = [], []
            for j in range(h.depth):
                gen = enc.level_maps[q][j]
                covered = np.bincount(gen, minlength=enc.level_sizes[q][j]).astype(np.float64)
                share = covered[gen] / len(h.values)
                per_level.append(share)
                totals.append(float((share * f0).sum()))
            self.share.append(per_level)
            self.total.append(np.array(totals))

    def normalized(self, q: int) -> np.ndarray:
        """Normalized Loss of attribute ``q`` at every level when nothing is suppressed."""
        n = self.enc.n_rows
        size = len(self.enc.hierarchies[q].values)
        return np.array([normalized_loss(t, n, size) for t in self.total[q]])

    def per_attribute(
        self, levels: tuple[int, ...], suppressed_extra: np.ndarray | None = None
    ) -> np.ndarray:
        """Normalized Loss per attribute at ``levels`` (plus the extra share of suppressed records)."""
        n = self.enc.n_rows
        out = np.empty(self.enc.n_qi)
        for q, lv in enumerate(levels):
            total = self.total[q][lv] + (0.0 if suppressed_extra is None else suppressed_extra[q])
            out[q] = normalized_loss(total, n, len(self.enc.hierarchies[q].values))
        return out


class DiscernibilityMetric(Metric):
    name = "dm"
    label = N_("Discernibility (DM, with suppression penalty)")
    short = "DM"

    def value(self, ev: NodeFigures, ctx: MetricContext) -> float:
        return discernibility(ev.released_sizes, ev.suppressed, ctx.n_rows)

    def lower_bound(self, ev: NodeFigures, ctx: MetricContext) -> float:
        # Under generalization a record's class only grows; in a satisfying generalization it is either
        # in a released class of >= k records or suppressed at cost |T| >= k. So each record of a class E
        # costs at least max(|E|, k): DM(Y) >= sum_E |E| * max(|E|, k) for every satisfying Y >= X.
        # When step 4 may take up to k-1 records out of a class, a kept record's class in Y still holds
        # at least |E| - (k-1) records (and a taken one costs |T|): max(|E| - k + 1, k) then.
        s = ev.sizes.astype(np.float64)
        floor = s - (ctx.k - 1) if ctx.trims else s
        if ctx.cuts:  # what is left of the class in a generalization may be k records only
            floor = np.zeros_like(s)
        return float((s * np.maximum(floor, ctx.k)).sum())


class DiscernibilityStarMetric(Metric):
    name = "dm-star"
    label = N_("Discernibility DM* (monotone, no suppression penalty)")
    short = "DM*"
    monotone = True

    def value(self, ev: NodeFigures, ctx: MetricContext) -> float:
        return discernibility_star(ev.sizes)

    def lower_bound(self, ev: NodeFigures, ctx: MetricContext) -> float:
        return discernibility_star(ev.sizes)


class AverageClassSizeMetric(Metric):
    name = "cavg"
    label = N_("Normalized average class size (C_AVG)")
    short = "C_AVG"

    def value(self, ev: NodeFigures, ctx: MetricContext) -> float:
        return average_class_size(ctx.n_rows, ev.n_classes, ctx.k)

    def lower_bound(self, ev: NodeFigures, ctx: MetricContext) -> float:
        # a generalization has at most as many classes, and releases at most as many
        return ctx.n_rows / max(ev.freq.n_classes, 1) / ctx.k


class PrecisionMetric(Metric):
    name = "precision"
    label = N_("Precision loss (1 - Sweeney's Prec)")
    short = N_("precision loss")

    def value(self, ev: NodeFigures, ctx: MetricContext) -> float:
        return 1.0 - precision(np.asarray(ev.levels), ctx.enc.heights, ev.suppressed, ctx.n_rows)

    def levels_bound(self, levels: np.ndarray, ctx: MetricContext) -> np.ndarray:
        h = ctx.enc.heights
        frac = np.divide(levels, h, out=np.zeros(levels.shape, dtype=float), where=h > 0)
        return frac.sum(axis=1) / len(h)


class HeightMetric(Metric):
    name = "height"
    label = N_("Height (sum of levels)")
    short = N_("height")
    monotone = True

    def value(self, ev: NodeFigures, ctx: MetricContext) -> float:
        return float(sum(ev.levels))

    def levels_bound(self, levels: np.ndarray, ctx: MetricContext) -> np.ndarray:
        return levels.sum(axis=1).astype(float)


class EntropyMetric(Metric):
    name = "entropy"
    label = N_("Non-uniform entropy (bits)")
    short = N_("entropy (bits)")

    def value(self, ev: NodeFigures, ctx: MetricContext) -> float:
        base = ctx.entropy.unsuppressed(ev.levels)
        if ev.suppressed == 0:
            return base
        extra = _trimmed_entropy(ev, ctx) if ev.trimmed is not None else 0.0
        if ev.suppressed == (0 if ev.trimmed is None else int(ev.trimmed.sum())):
            return base + extra
        return base + _suppressed_entropy(ev, ctx) + extra

    def levels_bound(self, levels: np.ndarray, ctx: MetricContext) -> np.ndarray:
        tables = ctx.entropy.total
        out = np.zeros(len(levels))
        for q, table in enumerate(tables):
            out += table[levels[:, q]]
        return out


class LossMetric(Metric):
    """ARX's default utility measure "Loss" (MetricMDNMLoss with its defaults: generalization and
    suppression weighed equally, per-attribute losses combined by the geometric mean).

    Per attribute: every released record costs the domain share of its released value, a suppressed
    record costs 1 (as if released as ``*``); the sum is normalized to 0 (original values) .. 1
    (everything ``*`` or suppressed), see :func:`normalized_loss`. The attributes are combined by
    :func:`loss_aggregate`. Unlike DM it looks at every attribute, so a release that keeps most
    attributes exact but turns one into ``*`` scores worse than one that generalizes all a little.
    Not monotone (suppression): the value without suppression bounds a node and all its
    generalizations from below (shares only grow under generalization, and suppression only adds).
    """

    name = "loss"
    label = N_("Loss (ARX's default: generalization and suppression)")
    short = "Loss"

    def value(self, ev: NodeFigures, ctx: MetricContext) -> float:
        return loss_aggregate(loss_per_attribute(ev, ctx))

    def lower_bound(self, ev: NodeFigures, ctx: MetricContext) -> float:
        return loss_aggregate(ctx.shares.per_attribute(ev.levels))

    def levels_bound(self, levels: np.ndarray, ctx: MetricContext) -> np.ndarray:
        levels = np.asarray(levels)
        if levels.shape[0] == 0:
            return np.zeros(0)
        per = np.stack([ctx.shares.normalized(q)[levels[:, q]] for q in range(ctx.enc.n_qi)], axis=1)
        return np.exp(np.log1p(per).mean(axis=1)) - 1.0


@dataclass(frozen=True)
class ClassificationMetric(Metric):
    """Iyengar's classification metric as ARX computes it (:mod:`kanon_engine.metrics.classification`):
    records off their class's majority value of each target, and suppressed records at 1/2, over all
    records. Not monotone (suppression); :func:`~kanon_engine.metrics.classification.penalty_bound`
    bounds a node and its generalizations, so the optimal search stays exact."""

    name = "classification"
    label = N_("Classification (records off their group's majority value of the target)")
    short = N_("classification")
    skips_hopeless_on_paths = True
    descends = False
    bounds_by_suppression = True
    targets: tuple[str, ...] = ()

    def value(self, ev: NodeFigures, ctx: MetricContext) -> float:
        penalty = 0.0
        for target in self.targets:
            if target in ctx.enc.qi:
                penalty += self._qi_penalty(ev, ctx, ctx.enc.qi.index(target))
                continue
            two = self._two_counts(ev, ctx, target)
            if two is not None and ev.trimmed is None:
                penalty += two_counts_penalty(two.h, two.off, ev.passes, ev.suppressed)
                continue
            total, top1, tie = self._stats(ev, ctx, target)
            penalty += released_penalty(total, top1, tie, ev.passes, ev.trimmed)
        return penalty / ctx.n_rows

    def lower_bound(self, ev: NodeFigures, ctx: MetricContext) -> float:
        bound = 0.0
        for target in self.targets:
            if target in ctx.enc.qi:
                continue  # a generalized target's penalty has no simple bound: none claimed
            two = self._two_counts(ev, ctx, target)
            if two is not None and not ctx.trims:
                # two values: no class saves by being suppressed, so the bound is the records off the
                # majorities (penalty_bound's value, without its knapsack)
                bound += two.paid
                continue
            total, top1, _tie = self._stats(ev, ctx, target)
            bound += penalty_bound(total, top1, ctx.max_suppressed, ctx.trims)
        return bound / ctx.n_rows

    def suppression_curve(self, ev: NodeFigures, ctx: MetricContext) -> SuppressionCurve | None:
        """One two-valued target outside the quasi-identifiers, nothing trimmed or cut: the curve of its
        two counts (their records off the majority are the ones the node's bound and value just read);
        k at most :data:`~kanon_engine.metrics.classification.CURVE_MAX_K` (the curve sorts k * k kinds)."""
        if len(self.targets) != 1 or self.targets[0] in ctx.enc.qi or ctx.trims or ctx.cuts:
            return None
        if ctx.k > CURVE_MAX_K:
            return None
        two = self._two_counts(ev, ctx, self.targets[0])
        if two is None:
            return None
        return SuppressionCurve(two.h, two.off, ctx.k, ctx.n_rows)

    @staticmethod
    def _two_counts(ev: NodeFigures, ctx: MetricContext, target: str) -> TwoCounts | None:
        """The target's histograms at ``ev``'s node when carried as two counts per class, with the
        records off the majority per class and their sum; None otherwise. Kept for the node's value and
        curve after its bound: a check asks all three of the same evaluation."""
        key = "two:" + target
        last = ctx.tables.get(key)
        if isinstance(last, tuple) and last[0] is ev.freq:
            return last[1]
        h = target_histograms(ctx.enc, ev.freq, target)
        two = None
        if isinstance(h, BinaryHistograms) and len(h.total) == ev.freq.n_classes:
            two = TwoCounts.of(h)
        ctx.tables[key] = (ev.freq, two)
        return two

    def _stats(
        self, ev: NodeFigures, ctx: MetricContext, target: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per class of ``ev``'s node: records, majority records, ties (kept for the node's value after
        its bound: both are asked of the same evaluation)."""
        key = "last:" + target
        last = ctx.tables.get(key)
        if isinstance(last, tuple) and last[0] is ev.freq:
            return last[1]
        stats = majority(target_histograms(ctx.enc, ev.freq, target), ev.freq.n_classes)
        ctx.tables[key] = (ev.freq, stats)
        return stats

    def _qi_penalty(self, ev: NodeFigures, ctx: MetricContext, target: int) -> float:
        sizes = ev.freq.counts.astype(np.float64)
        extra = 0.0
        if ev.trimmed is not None:
            sizes = sizes - ev.trimmed
            extra = SUPPRESSED_PENALTY * float(ev.trimmed[ev.passes].sum())
        penalty = qi_target_penalty(ctx.enc, ev.levels, ev.freq.leaves(), sizes, ev.passes, target)
        return penalty + extra


def loss_per_attribute(ev: NodeFigures, ctx: MetricContext) -> np.ndarray:
    """Normalized Loss of every attribute at the evaluated node, suppressed records counting 1."""
    if ev.suppressed == 0:
        return ctx.shares.per_attribute(ev.levels)
    freq = ev.freq
    failing = ~ev.passes
    leaves = freq.leaves()
    counts = freq.counts[failing].astype(np.float64)
    extra = np.array(
        [
            float(((1.0 - ctx.shares.share[q][lv][leaves[q][failing]]) * counts).sum())
            for q, lv in enumerate(ev.levels)
        ]
    )
    if ev.trimmed is not None:  # records Datafly's step 4 took out of released classes
        taken = np.flatnonzero(ev.trimmed)
        rep = leaves[:, taken]
        extra += np.array(
            [
                float(((1.0 - ctx.shares.share[q][lv][rep[q]]) * ev.trimmed[taken]).sum())
                for q, lv in enumerate(ev.levels)
            ]
        )
    return ctx.shares.per_attribute(ev.levels, extra)


def _trimmed_entropy(ev: NodeFigures, ctx: MetricContext) -> float:
    """Entropy added by the records step 4 takes out of released classes: suppressing a record whose
    value v is released as g adds -log2(f(v)/|T|) + log2(f(v)/f(g)) = log2(|T| / f(g)) per attribute,
    which depends only on g, shared by the whole class, so no record needs to be named."""
    enc = ctx.enc
    assert ev.trimmed is not None  # called when step 4 took records out
    taken = np.flatnonzero(ev.trimmed)
    rep = ev.freq.leaves()[:, taken]
    per_record = np.zeros(len(taken))
    for q, lv in enumerate(ev.levels):
        gen = enc.level_maps[q][lv]
        f_g = np.bincount(gen, weights=enc.leaf_histogram(q), minlength=enc.level_sizes[q][lv])
        per_record += np.log2(ctx.n_rows / f_g[gen[rep[q]]])
    return float((per_record * ev.trimmed[taken]).sum())


def _suppressed_entropy(ev: NodeFigures, ctx: MetricContext) -> float:
    """Entropy added by suppressing the failing classes: needs the leaf values of their records, so the
    base rows are matched to the failing classes by their generalized key."""
    enc = ctx.enc
    base = ctx.base
    failing = ~ev.passes
    levels = ev.levels
    sizes = [enc.level_sizes[q][lv] for q, lv in enumerate(levels)]
    leaves = ev.freq.leaves()
    base_leaves = base.leaves()
    gen_fail = [enc.level_maps[q][lv][leaves[q][failing]] for q, lv in enumerate(levels)]
    gen_base = [enc.level_maps[q][lv][base_leaves[q]] for q, lv in enumerate(levels)]
    ids, _sizes = group_columns([np.concatenate([a, b]) for a, b in zip(gen_fail, gen_base)], sizes)
    fail_ids = ids[: len(gen_fail[0])]
    in_fail = np.isin(ids[len(gen_fail[0]) :], fail_ids)
    return ctx.entropy.suppressed_extra(base_leaves[:, in_fail], base.counts[in_fail], levels)


METRICS: dict[str, type[Metric]] = {
    m.name: m
    for m in (
        DiscernibilityMetric,
        DiscernibilityStarMetric,
        AverageClassSizeMetric,
        PrecisionMetric,
        HeightMetric,
        EntropyMetric,
        LossMetric,
        ClassificationMetric,
    )
}


#: The search objective when none is chosen (see bench/bench_default_metric.py for why).
DEFAULT_METRIC = "loss"


def get_metric(name: str, targets: tuple[str, ...] = ()) -> Metric:
    """The metric called ``name``; the classification metric needs its target attributes."""
    if name not in METRICS:
        raise ConfigError(
            _("Unknown metric '{name}'; choose one of {values}.", name=name, values=", ".join(METRICS)),
            where="metric",
        )
    if name == ClassificationMetric.name:
        if not targets:
            raise ConfigError(
                _("The classification metric needs the attribute the study will predict."),
                hint=_("Name it with --target (for example --target diagnosis)."),
                where="target",
            )
        return ClassificationMetric(targets=tuple(targets))
    return METRICS[name]()


def node_metrics(ev: NodeFigures, ctx: MetricContext) -> dict[str, float]:
    """Every metric of one node, as reported (precision as Prec, higher is better)."""
    out = {
        "discernibility": discernibility(ev.released_sizes, ev.suppressed, ctx.n_rows),
        "discernibility_star": discernibility_star(ev.sizes),
        "cavg": average_class_size(ctx.n_rows, ev.n_classes, ctx.k),
        "cavg_released": average_released_class_size(ctx.n_rows - ev.suppressed, ev.n_classes, ctx.k),
        "precision": precision(np.asarray(ev.levels), ctx.enc.heights, ev.suppressed, ctx.n_rows),
        "height": float(sum(ev.levels)),
        "entropy": EntropyMetric().value(ev, ctx),
        "loss": LossMetric().value(ev, ctx),
    }
    return out
