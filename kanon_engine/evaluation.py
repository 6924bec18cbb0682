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
    roll_up,
    sensitive_combos,
)
from kanon_engine.privacy.models import ClassStats, KAnonymity, PrivacyModel, all_monotone


@dataclass(eq=False)
class NodeEvaluation:
    """The outcome of checking one full-domain transformation (a vector of levels)."""

    levels: tuple[int, ...]
    classes: NodeClasses
    stats: ClassStats
    passes: np.ndarray  # per class: passes every model
    suppressed: int  # records in classes that fail (suppressed when the node is applied)
    satisfies: bool  # suppressed records fit within the limit

    @property
    def sizes(self) -> np.ndarray:
        return self.classes.sizes

    @property
    def n_classes(self) -> int:
        """Classes of the release (classes that are not suppressed)."""
        return int(self.passes.sum())


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
        self.monotone = all_monotone(self.models, self.max_suppressed > 0)
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
        return NodeEvaluation(levels, classes, stats, passes, suppressed, suppressed <= self.max_suppressed)

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
