"""Evaluate lattice nodes: classes, the privacy models, suppression, with a cache of frequency sets.

A node is checked by rolling up the smallest cached frequency set of a node below it (Incognito's
rollup, LeFevre et al. 2005), so checks higher in the lattice get cheaper, and a table replicated 30
times costs the same as the original (only counts change).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kanon_engine.encoding import EncodedTable
from kanon_engine.errors import ConfigError
from kanon_engine.frequency import (
    CompositeLayout,
    FrequencySet,
    NodeClasses,
    base_frequency_set,
    representatives,
    roll_up,
    sensitive_combos,
)
from kanon_engine.privacy.models import ClassStats, KAnonymity, PrivacyModel, all_monotone
from kanon_engine.suppressed_group import GroupRule, enforce


@dataclass(eq=False)
class NodeEvaluation:
    """The outcome of checking one full-domain transformation (a vector of levels)."""

    levels: tuple[int, ...]
    classes: NodeClasses
    stats: ClassStats
    passes: np.ndarray  # per class: passes every model
    suppressed: int  # records in classes that fail (suppressed when the node is applied), plus trimmed
    satisfies: bool  # suppressed records fit within the limit
    #: per class: records taken out of a passing class so the kept suppressed records number 0 or >= k
    #: (Datafly's step 4, :mod:`kanon_engine.suppressed_group`); None when nothing was taken
    trimmed: np.ndarray | None = None

    @property
    def sizes(self) -> np.ndarray:
        return self.classes.sizes

    @property
    def released_sizes(self) -> np.ndarray:
        """Sizes of the released (passing) classes, after the records taken out by step 4."""
        sizes = self.classes.sizes if self.trimmed is None else self.classes.sizes - self.trimmed
        return sizes[self.passes]

    @property
    def n_classes(self) -> int:
        """Classes of the release (classes that are not suppressed)."""
        return int(self.passes.sum())


def evaluator_context(evaluator: NodeEvaluator):
    """The metric context of an evaluator's nodes (k, MaxSup, and whether step 4 may trim classes)."""
    from kanon_engine.metrics.loss import MetricContext

    rule = evaluator.group_rule
    trims = rule.trim and rule.group_k > 0 and evaluator.max_suppressed > 0
    return MetricContext(evaluator.enc, evaluator.k, evaluator.max_suppressed, trims)


def suppression_allowance(n_rows: int, limit: float) -> int:
    """Records that may be suppressed for a limit given as a fraction of the records."""
    if not 0 <= limit <= 1:
        raise ConfigError(
            f"The suppression limit must be a fraction between 0 and 1; got {limit}.",
            where="suppression-limit",
        )
    return int(np.floor(limit * n_rows + 1e-9))


class NodeEvaluator:
    """Checks nodes of one encoded table against a set of privacy models.

    ``max_suppressed`` is the number of records that may be suppressed (MaxSup, Samarati 2001).
    """

    def __init__(
        self,
        enc: EncodedTable,
        models: tuple[PrivacyModel, ...],
        max_suppressed: int,
        cache_bytes: int = 256 << 20,
        suppressed_group_k: int = 0,
    ) -> None:
        if not any(isinstance(m, KAnonymity) for m in models):
            raise ConfigError("Every run needs k-anonymity (k >= 2) among its privacy models.", where="k")
        for m in models:
            if m.sensitive is not None:
                enc.sensitive_column(m.sensitive)
        k = max(m.k for m in models if isinstance(m, KAnonymity))
        self.enc = enc
        self.models = tuple(models)
        self.k = k
        self.max_suppressed = int(max_suppressed)
        simple = all(isinstance(m, KAnonymity) for m in self.models)
        self.group_rule = GroupRule(int(suppressed_group_k), k, simple)
        # whole-class step 4 (other models than k) can make a coarser node need more suppression
        self.monotone = all_monotone(self.models, self.max_suppressed > 0) and (
            simple or self.group_rule.group_k == 0 or self.max_suppressed == 0
        )
        self.combos = sensitive_combos(enc)
        self.base = base_frequency_set(enc, self.combos, CompositeLayout(enc))
        self.checks = 0
        self._entries: list[FrequencySet] = []
        self._keys = np.zeros((64, enc.n_qi), dtype=np.int16)
        self._sizes = np.zeros(64, dtype=np.int64)
        self._cache_bytes = cache_bytes
        self._used = 0

    def _source(self, levels: tuple[int, ...]) -> FrequencySet:
        """The smallest cached frequency set of a node at or below ``levels``."""
        n = len(self._entries)
        if n == 0:
            return self.base
        below = (self._keys[:n] <= np.asarray(levels, dtype=np.int16)).all(axis=1)
        if not below.any():
            return self.base
        sizes = np.where(below, self._sizes[:n], np.iinfo(np.int64).max)
        return self._entries[int(np.argmin(sizes))]

    def classes(self, levels: tuple[int, ...]) -> NodeClasses:
        levels = tuple(int(x) for x in levels)
        return roll_up(self.enc, self._source(levels), levels, self.combos.n_combos)

    def evaluate(self, levels: tuple[int, ...] | np.ndarray) -> NodeEvaluation:
        """Check one node: classes, models, suppression. Counts as one check."""
        levels = tuple(int(x) for x in levels)
        classes = self.classes(levels)
        self._remember(classes.freq)
        self.checks += 1
        stats = ClassStats(self.enc, classes, self.combos)
        passes = np.ones(classes.n_classes, dtype=bool)
        for m in self.models:
            passes &= m.passes(stats)
        suppressed = int(classes.sizes[~passes].sum())
        trimmed = None
        if self.group_rule.applies(suppressed):
            passes, trimmed, suppressed = enforce(
                self.group_rule, classes.sizes, passes, suppressed, self._class_order(classes, levels)
            )
        ok = suppressed <= self.max_suppressed
        return NodeEvaluation(levels, classes, stats, passes, suppressed, ok, trimmed)

    def _class_order(self, classes: NodeClasses, levels: tuple[int, ...]) -> np.ndarray:
        """Rank of every class by its generalized values (hierarchy order, first attribute first)."""
        leaves = classes.freq.leaves()[:, representatives(classes.row_class, classes.n_classes)]
        codes = [self.enc.level_maps[q][lv][leaves[q]] for q, lv in enumerate(levels)]
        rank = np.empty(classes.n_classes, dtype=np.int64)
        rank[np.lexsort(codes[::-1])] = np.arange(classes.n_classes)
        return rank

    def _remember(self, fs: FrequencySet) -> None:
        """Cache a frequency set; when over budget, forget the largest ones (the least useful)."""
        if fs.size >= self.base.size or fs.nbytes > self._cache_bytes:
            return
        n = len(self._entries)
        if n == len(self._sizes):  # grow the key arrays geometrically
            self._keys = np.concatenate([self._keys, np.zeros_like(self._keys[: max(n, 64)])])
            self._sizes = np.concatenate([self._sizes, np.zeros(max(n, 64), dtype=np.int64)])
        self._entries.append(fs)
        self._keys[n] = fs.levels
        self._sizes[n] = fs.size
        self._used += fs.nbytes
        if self._used > self._cache_bytes:
            self._entries.sort(key=lambda e: e.size)
            while self._used > self._cache_bytes:
                self._used -= self._entries.pop().nbytes
            for i, e in enumerate(self._entries):
                self._keys[i] = e.levels
                self._sizes[i] = e.size
