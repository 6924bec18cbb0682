"""Evaluate lattice nodes: classes, the privacy models, suppression, with a cache of frequency sets.

A node is checked by rolling up the smallest cached frequency set of a node below it (Incognito's
rollup, LeFevre et al. 2005), so checks higher in the lattice get cheaper, and a table replicated 30
times costs the same as the original (only counts change).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kanon_engine.core.arrays import dot
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import (
    CompositeLayout,
    FrequencySet,
    base_frequency_set,
    roll_up,
    with_histograms,
)
from kanon_engine.core.person_sets import suppress_for_persons
from kanon_engine.core.persons import person_base, persons_at_least
from kanon_engine.core.population_counts import population_counter
from kanon_engine.core.suppressed_group import GroupRule, enforce
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.metrics.loss import MetricContext
from kanon_engine.privacy import (
    ClassStats,
    KAnonymity,
    PrivacyModel,
    Requirement,
    all_monotone,
    k_of,
    require_identity_model,
)

_NEVER = np.iinfo(np.int64).max
#: Most frequency sets cached (choosing a source compares the node with every cached one).
_MAX_CACHED = 4096
#: A node is first tried on a sample of this many times the classes that prove it fails
#: (:meth:`NodeEvaluator._fails_by_class_count`), when its source has this share more classes still, and
#: at least _SAMPLE_MIN_CLASSES (below that a roll-up costs milliseconds).
_SAMPLE_FACTOR = 2
_SAMPLE_MIN_SHARE = 3
_SAMPLE_MIN_CLASSES = 200_000

#: A lower bound of a node's metric value from its classes alone (``Metric.lower_bound`` in a search's
#: context): what :meth:`NodeEvaluator.evaluate_under` compares with its cutoff.
ValueBound = Callable[["NodeEvaluation"], float]


@dataclass(eq=False)
class NodeEvaluation:
    """The outcome of checking one full-domain transformation (a vector of levels).

    ``suppressed_monotone`` counts the records in classes failing a model that is monotone with
    suppression (k-anonymity, distinct l-diversity): every generalization of a node where they fit within
    the limit passes those models. ``suppressed_floor`` (at least ``suppressed_monotone``) is a number of
    records every specialization of the node has to suppress (:meth:`PrivacyModel.assess`), so a node
    where it exceeds the limit fails together with all its specializations. ``complete`` is False when the
    check stopped after k-anonymity (too many records to suppress already, so the node fails whatever the
    other models say); then ``passes`` and ``suppressed`` cover k-anonymity only.
    """

    levels: tuple[int, ...]
    freq: FrequencySet
    passes: np.ndarray  # per class: passes every model
    suppressed: int  # records in classes that fail (suppressed when the node is applied), plus trimmed
    satisfies: bool  # suppressed records fit within the limit
    suppressed_monotone: int = 0
    suppressed_floor: int = 0
    complete: bool = True
    #: False when the node was found failing through a coarser node (finer than the points: see
    #: :mod:`kanon_engine.sources.plan.floor`); then ``freq`` is that node's and bounds nothing of this one
    bounded: bool = True
    #: the points the node's classes were counted on, when not the evaluator's (a node finer than them)
    points: Any = None
    #: per class: records taken out of a passing class so the kept suppressed records number 0 or >= k
    #: (Datafly's step 4, :mod:`kanon_engine.core.suppressed_group`); None when nothing was taken
    trimmed: np.ndarray | None = None
    #: the model that judged the release as a whole and refused it (``PrivacyModel.release_passes``),
    #: when that is why the node does not satisfy the models
    rejected_by: PrivacyModel | None = None
    #: under the person role with ``--person-knows`` above 1: per (class, person) pair of the node's
    #: person pairs, whether its rows are cut out of a released class (:mod:`kanon_engine.core.person_sets`)
    person_cut: np.ndarray | None = None
    #: the check stopped once the node's metric value was known to exceed the search's cutoff (only
    #: evaluators that ``take_cutoff``): ``satisfies`` is then False without the node failing, and
    #: ``value_floor`` is a lower bound of its value
    beaten: bool = False
    value_floor: float = -np.inf

    @property
    def sizes(self) -> np.ndarray:
        """Records per class, every class of the node (released or not)."""
        return self.freq.counts

    @property
    def released_sizes(self) -> np.ndarray:
        """Sizes of the released (passing) classes, after the records taken out by step 4."""
        sizes = self.freq.counts if self.trimmed is None else self.freq.counts - self.trimmed
        return sizes[self.passes]

    @property
    def n_classes(self) -> int:
        """Classes of the release (classes that are not suppressed)."""
        return int(self.passes.sum())


def evaluator_context(evaluator: NodeEvaluator) -> MetricContext:
    """The metric context of an evaluator's nodes (k, MaxSup, whether step 4 may trim classes, and the
    bottom frequency set it already counted)."""
    rule = evaluator.group_rule
    trims = rule.trim and rule.group_k > 0 and evaluator.max_suppressed > 0
    enc = evaluator.enc
    cuts = enc.persons is not None and enc.person_knows != 1 and evaluator.max_suppressed > 0
    return MetricContext(enc, evaluator.k, evaluator.max_suppressed, trims, evaluator.base, cuts)


def suppression_allowance(n_rows: int, limit: float) -> int:
    """Records that may be suppressed for a limit given as a fraction of the records."""
    if not 0 <= limit <= 1:
        raise ConfigError(
            _("The suppression limit must be a fraction between 0 and 1; got {value}.", value=str(limit)),
            where="suppression-limit",
        )
    return int(np.floor(limit * n_rows + 1e-9))


class NodeEvaluator:
    """Checks nodes of one encoded table against a set of privacy models.

    ``max_suppressed`` is the number of records that may be suppressed (MaxSup, Samarati 2001). Frequency
    sets of checked nodes are cached (up to ``cache_bytes``) so each check rolls up the smallest cached
    set below it. Histograms of sensitive attributes are rolled up only for nodes that pass k-anonymity
    within the limit: the others fail whatever the distribution of their sensitive values.
    ``suppressed_group_k`` > 0 applies Datafly's step 4 (:mod:`kanon_engine.core.suppressed_group`); it only
    adds suppression, so the lower bounds of suppression used for pruning stay valid.
    """

    #: whether a check can rule out a node's specializations (``suppressed_floor``); an evaluator whose
    #: "satisfies" is not about suppressed records (cell suppression) says no, and the searches then do
    #: not classify the lattice
    rules_out_specializations = True
    #: whether ``evaluate`` takes a ``cutoff`` (a metric value past which the search does not need the
    #: node's exact figures: cell suppression may then stop early, see ``NodeEvaluation.beaten``)
    takes_cutoff = False

    def __init__(
        self,
        enc: EncodedTable,
        models: tuple[PrivacyModel, ...],
        max_suppressed: int,
        cache_bytes: int = 256 << 20,
        suppressed_group_k: int = 0,
        tracked: tuple[str, ...] = (),
        keeps_suppressed: bool = True,
    ) -> None:
        require_identity_model(models)
        #: the release keeps its suppressed records as rows of * (models judging the release see them)
        self.keeps_suppressed = keeps_suppressed
        for m in models:
            if m.sensitive is not None:
                enc.sensitive_column(m.sensitive)
        k = max(k_of(models), 1)  # without k-anonymity every class is large enough
        self.enc = enc
        self.models = tuple(models)
        self.k = k
        self.max_suppressed = int(max_suppressed)
        # under the person role step 4 suppresses a whole class (core.person_sets): never simple
        simple = all(isinstance(m, KAnonymity) for m in self.models) and enc.persons is None
        # step 4 takes single records out of groups only when no metric looks at their values: which
        # records go depends on the file's order, which counted points do not know
        self.group_rule = GroupRule(int(suppressed_group_k), k, simple and not tracked)
        #: k-anonymity alone, step 4 (if any) on whole classes: a node suppresses its classes smaller than
        #: k (``suppressed_monotone`` records) and perhaps whole others, never part of a class
        self.suppresses_small_classes = simple and not self.group_rule.trim
        # whole-class step 4 (other models than k) can make a coarser node need more suppression
        self.monotone = all_monotone(self.models, self.max_suppressed > 0) and (
            self.group_rule.trim or self.group_rule.group_k == 0 or self.max_suppressed == 0
        )
        #: every model is monotone without suppression: a node whose classes all pass has only satisfying
        #: generalizations
        self.monotone_without_suppression = all(m.monotone_without_suppression for m in self.models)
        others = [m for m in self.models if not isinstance(m, KAnonymity)]
        #: models beyond k-anonymity (without any, a node is checked on its class sizes alone)
        self._others = bool(others)
        self._mono = [m for m in others if m.monotone_with_suppression]
        self._non_mono = [m for m in others if not m.monotone_with_suppression]
        self._whole = [m for m in others if m.judges_release]
        names = [s.name for s in enc.sensitive]
        #: attributes whose per-class histograms every node carries, for the metric (the classification
        #: metric's targets), not for a model
        self._tracked = tuple(names.index(t) for t in tracked)
        self._sensitive = tuple(
            sorted({names.index(m.sensitive) for m in others if m.sensitive} | set(self._tracked))
        )
        # a two-valued target that only the metric reads rolls up as two counts per class
        binary = (
            ()
            if enc.persons is not None
            else tuple(set(self._tracked) - {names.index(m.sensitive) for m in others if m.sensitive})
        )
        self.base = base_frequency_set(enc, CompositeLayout(enc), self._sensitive, binary)
        #: the population counted per class (k-map on a population table, delta-presence)
        self._population = population_counter(enc, self.base.layout, others, Requirement.POPULATION)
        #: the person role (core.persons): person pairs among the histograms, persons counted per class
        self._persons = enc.persons is not None
        if self._persons:
            self.base = person_base(enc, self.base, self._sensitive)
            # an attacker knowing several stays: the rule that cuts rows is not monotone with suppression
            self.monotone = self.monotone and (enc.person_knows == 1 or self.max_suppressed == 0)
        self.checks = 0
        self._entries: list[FrequencySet] = []
        self._keys = np.zeros((64, enc.n_qi), dtype=np.int16)
        self._sizes = np.zeros(64, dtype=np.int64)
        # the cached nodes' levels packed into one integer each (a field per attribute topped by a guard
        # bit) when they fit in 62 bits: choosing a source is then one subtraction per cached node
        width = int(max(enc.heights, default=0)).bit_length() + 1
        self._width = width if width * enc.n_qi <= 62 else 0
        self._guards = sum(1 << (width * q + width - 1) for q in range(enc.n_qi)) if self._width else 0
        self._packed = np.zeros(64, dtype=np.int64)
        self._packed_last: tuple[tuple[int, ...], int] = ((), 0)
        self._cache_bytes = cache_bytes
        self._used = 0

    def _source(self, levels: tuple[int, ...]) -> FrequencySet:
        """The smallest cached frequency set of a node at or below ``levels``."""
        n = len(self._entries)
        if n == 0:
            return self.base
        if self._width:
            # a field of (levels | guard) - cached keeps its guard bit exactly when the cached level is
            # at most the node's (a field never borrows from the next: guard > any level)
            guards = self._guards
            below = ((self._pack(levels) | guards) - self._packed[:n]) & guards == guards
        else:
            below = (self._keys[:n] <= np.asarray(levels, dtype=np.int16)).all(axis=1)
        if not below.any():
            return self.base
        sizes = np.where(below, self._sizes[:n], _NEVER)
        return self._entries[int(np.argmin(sizes))]

    def _pack(self, levels: tuple[int, ...]) -> int:
        """The levels as one integer of :attr:`_width` bits per attribute (see :meth:`_source`); the last
        node's is kept, as a check asks for it twice (its source, then caching its classes)."""
        if self._packed_last[0] == levels:
            return self._packed_last[1]
        width = self._width
        packed = sum(lv << (width * q) for q, lv in enumerate(levels))
        self._packed_last = (levels, packed)
        return packed

    def frequency_set(self, levels: tuple[int, ...] | np.ndarray) -> FrequencySet:
        """The classes at ``levels`` with the histograms the models need (not counted as a check)."""
        levels = tuple(int(x) for x in levels)
        source = self._source(levels)
        fs, class_map = roll_up(source, levels)
        return with_histograms(fs, source, class_map) if self._sensitive or self._persons else fs

    @property
    def judges_release(self) -> bool:
        """Whether a model judges the release as a whole (its verdict costs most: see
        :meth:`evaluate_under`)."""
        return bool(self._whole)

    def evaluate_under(self, levels: tuple[int, ...], cutoff: float, bound: ValueBound) -> NodeEvaluation:
        """Check one node for a search that only needs nodes whose metric value may come under ``cutoff``.

        The models judging the release as a whole (a population estimate per step of a bisection) are
        asked last, once the node passes the others within the limit; by then its classes are known, and
        when ``bound`` of them (a lower bound of the node's value, whatever those models suppress: the
        metric's bound holds for the node with any suppression within the limit) exceeds ``cutoff``, they
        are not asked. The node is then returned ``beaten`` (``value_floor``: the bound), without a
        verdict, but with ``suppressed_monotone`` and ``suppressed_floor``, which do not depend on those
        models, so the search classifies other nodes by it as it would have."""
        return self._evaluate(levels, False, (cutoff, bound))

    def evaluate(self, levels: tuple[int, ...] | np.ndarray, complete: bool = False) -> NodeEvaluation:
        """Check one node: classes, models, suppression. Counts as one check.

        Unless ``complete``, a node that fails k-anonymity within the limit is not checked further.
        """
        return self._evaluate(levels, complete, None)

    def _evaluate(
        self,
        levels: tuple[int, ...] | np.ndarray,
        complete: bool,
        gate: tuple[float, ValueBound] | None,
    ) -> NodeEvaluation:
        """:meth:`evaluate`, and with ``gate`` (cutoff, bound) :meth:`evaluate_under`."""
        if not isinstance(levels, tuple):
            levels = tuple(int(x) for x in levels)
        below = self.enc.below
        if below is not None and not below.covers(levels):
            return below.evaluate(self, levels, complete)
        source = self._source(levels)
        if not complete:
            failed = self._fails_by_class_count(levels, source)
            if failed is not None:
                self.checks += 1
                return failed
        # (k-anonymity alone: the histograms of the metric's targets are rolled up at once)
        alone = not self._others and not self._persons
        fs, class_map = roll_up(source, levels, histograms=alone and bool(self._tracked))
        self.checks += 1
        passes = fs.counts >= self.k
        suppressed = int(fs.counts @ ~passes)
        if alone:
            self._remember(fs)
            return self._finish(levels, fs, passes, suppressed, suppressed, suppressed)
        if suppressed > self.max_suppressed and not complete:
            return NodeEvaluation(levels, fs, passes, suppressed, False, suppressed, suppressed, False)
        if self._sensitive or self._persons:
            fs = with_histograms(fs, source, class_map)
        self._remember(fs)
        # under the person role with k-anonymity alone, no per-class statistics but the persons
        stats = ClassStats.of(self.enc, fs) if self._others else None
        if stats is not None:
            stats.keeps_suppressed = self.keeps_suppressed
            if self._population is not None:
                self._population.fill(stats, fs)
        if self._persons:  # k counts distinct persons (a class of fewer rows has fewer persons)
            passes = stats.people >= self.k if stats is not None else persons_at_least(fs, self.k)
        for m in self._mono:  # models beyond k: their statistics were counted
            assert stats is not None
            passes &= m.passes(stats)
        suppressed_monotone = int(fs.counts @ ~passes)
        share = (~passes).astype(np.float64)
        for m in self._non_mono:
            assert stats is not None
            ok_m, share_m = m.assess(stats)
            passes &= ok_m
            np.maximum(share, share_m, out=share)
        suppressed = int(fs.counts @ ~passes)
        # a lower bound on a count of records: round down, and a little more for float error
        floor = max(suppressed_monotone, int(np.floor(dot(share, fs.counts) - 1e-6)))
        return self._finish(levels, fs, passes, suppressed, suppressed_monotone, floor, stats, gate)

    def _fails_by_class_count(self, levels: tuple[int, ...], source: FrequencySet) -> NodeEvaluation | None:
        """A node proven to fail from a sample of ``source``'s classes, without rolling up all of them;
        None when the sample proves nothing (or is not much smaller than ``source``).

        Classes passing k-anonymity hold at least k records each, so at most ``n // k`` of the node's
        classes are kept and every other class has at least one record to suppress: a node with ``C``
        classes suppresses at least ``C - n // k`` records, and so does every specialization (it has at
        least as many classes). The sample's classes are some of the node's (every sampled class of
        ``source`` generalizes into one of them), so more than ``n // k + MaxSup`` of them prove that the
        node and its specializations fail (Samarati 2001's monotonicity, counted on classes only). Near
        the bottom of a lattice over millions of points most nodes are such (nearly every point its own
        class), and a sample of twice that many classes settles them for a fraction of a roll-up.
        """
        limit = self.enc.n_rows // self.k + self.max_suppressed
        sample = _SAMPLE_FACTOR * (limit + 1)
        if source.n_classes < _SAMPLE_MIN_SHARE * sample or source.n_classes < _SAMPLE_MIN_CLASSES:
            return None
        step = source.n_classes // sample
        part = FrequencySet(source.levels, source.crep[:, ::step], source.counts[::step], source.layout)
        fs, _class_map = roll_up(part, levels)
        if fs.n_classes <= limit:
            return None
        bound = fs.n_classes - self.enc.n_rows // self.k
        passes = np.zeros(fs.n_classes, dtype=bool)
        return NodeEvaluation(levels, fs, passes, bound, False, bound, bound, complete=False, bounded=False)

    def _finish(
        self,
        levels: tuple[int, ...],
        fs: FrequencySet,
        passes: np.ndarray,
        suppressed: int,
        suppressed_monotone: int,
        floor: int,
        stats: ClassStats | None = None,
        gate: tuple[float, ValueBound] | None = None,
    ) -> NodeEvaluation:
        """Apply step 4 (it only adds suppression, so the monotone count and the floor stay lower bounds)
        and decide whether the node satisfies the models within the limit, and then the models that judge
        the release as a whole (``stats``: the node's classes, given when there are such models; not
        asked when ``gate`` shows the node cannot come under its cutoff: :meth:`evaluate_under`)."""
        trimmed = cut = None
        if self._persons:  # several stays known, step 4 in persons (core.person_sets)
            order = lambda: self._class_order(fs, levels)  # noqa: E731
            passes, cut, trimmed, suppressed = suppress_for_persons(
                self.enc, fs, passes, self.group_rule, self.models, order
            )
        elif self.group_rule.applies(suppressed):
            passes, trimmed, suppressed = enforce(
                self.group_rule, fs.counts, passes, suppressed, self._class_order(fs, levels)
            )
        ok = suppressed <= self.max_suppressed
        rejected = None
        if ok and self._whole and stats is not None:
            if gate is not None:
                ev = NodeEvaluation(
                    levels,
                    fs,
                    passes,
                    suppressed,
                    False,
                    suppressed_monotone,
                    floor,
                    trimmed=trimmed,
                    person_cut=cut,
                )
                value_floor = gate[1](ev)
                if value_floor > gate[0]:
                    ev.beaten, ev.value_floor = True, value_floor
                    return ev
            passes, suppressed, rejected = self._judge_release(levels, fs, passes, trimmed, suppressed, stats)
            ok = rejected is None
        return NodeEvaluation(
            levels,
            fs,
            passes,
            suppressed,
            ok,
            suppressed_monotone,
            floor,
            trimmed=trimmed,
            rejected_by=rejected,
            person_cut=cut,
        )

    def _judge_release(
        self,
        levels: tuple[int, ...],
        fs: FrequencySet,
        passes: np.ndarray,
        trimmed: np.ndarray | None,
        suppressed: int,
        stats: ClassStats,
    ) -> tuple[np.ndarray, int, PrivacyModel | None]:
        """The models that judge the release as a whole, in turn (as ARX enforces its sample-based
        criteria after the per-class ones): each may suppress more classes within the allowance, or refuse
        the node. At the top node the one class shows * everywhere: like ARX, the models see it as
        suppressed. Returns the passing classes, the suppressed records and the refusing model."""
        sizes = fs.counts if trimmed is None else fs.counts - trimmed
        released = np.where(passes, sizes, 0)
        if all(lv >= h for lv, h in zip(levels, self.enc.heights)):
            released = np.zeros_like(released)
        for m in self._whole:
            extra = m.release_suppression(stats, released, self.max_suppressed - suppressed)
            if extra is None:
                return passes, suppressed, m
            if extra.any():
                suppressed += int(released[extra].sum())
                passes = passes & ~extra
                released = np.where(extra, 0, released)
        if self.group_rule.applies(suppressed):
            return passes, suppressed, self._whole[-1]  # the kept group of * would be smaller than k
        return passes, suppressed, None

    def _class_order(self, fs: FrequencySet, levels: tuple[int, ...]) -> np.ndarray:
        """Rank of every class by its generalized values (hierarchy order, first attribute first)."""
        leaves = fs.leaves()
        codes = [self.enc.level_maps[q][lv][leaves[q]] for q, lv in enumerate(levels)]
        rank = np.empty(fs.n_classes, dtype=np.int64)
        rank[np.lexsort(codes[::-1])] = np.arange(fs.n_classes)
        return rank

    def _remember(self, fs: FrequencySet) -> None:
        """Cache a frequency set; over budget, forget the largest ones (the least useful) until a quarter
        of the budget is free again, so the eviction's sort is paid rarely."""
        nbytes = fs.nbytes
        if fs.size >= self.base.size or nbytes > self._cache_bytes // 4:
            return
        n = len(self._entries)
        if n == len(self._sizes):  # grow the key arrays geometrically
            self._keys = np.concatenate([self._keys, np.zeros_like(self._keys[: max(n, 64)])])
            self._sizes = np.concatenate([self._sizes, np.zeros(max(n, 64), dtype=np.int64)])
            self._packed = np.concatenate([self._packed, np.zeros(max(n, 64), dtype=np.int64)])
        self._entries.append(fs)
        self._keys[n] = fs.levels
        self._packed[n] = self._pack(fs.levels) if self._width else 0
        self._sizes[n] = fs.size
        self._used += nbytes
        if self._used > self._cache_bytes or n + 1 > _MAX_CACHED:
            order = np.argsort(self._sizes[: n + 1], kind="stable")
            kept: list[FrequencySet] = []
            used = 0
            for i in order:
                e = self._entries[int(i)]
                if used + e.nbytes > 3 * self._cache_bytes // 4 or len(kept) >= 3 * _MAX_CACHED // 4:
                    break
                kept.append(e)
                used += e.nbytes
            self._entries, self._used = kept, used
            for i, e in enumerate(kept):
                self._keys[i] = e.levels
                self._packed[i] = self._pack(e.levels) if self._width else 0
                self._sizes[i] = e.size
