"""What the models that judge the release as a whole share (average risk, sample and population
uniqueness): the release's classes, and the suppression of its smallest classes until the model holds.

Like ARX's sample-based criteria (``RiskBasedCriterion``), such a model is enforced after the per-class
models: the classes still released are ordered by size (ties by class number) and the smallest are
suppressed, as few as the model allows, within the records the suppression limit leaves. For a model whose
verdict can only improve as small classes go (average risk, sample uniqueness: the smallest remaining
class never exceeds the average), the least number is found for every prefix at once (one cumulative sum,
vectorized); for a model without that property (population uniqueness) by bisection over the number
of classes within the allowance (:func:`bisect_suppression`).

Two readings of a release are judged where they can differ: the records released with their values (ARX's
reading: suppressed records are left out), and the release as its file shows it, where the suppressed
records kept as rows of ``*`` form one more class (what kanon's Risk tab counts). A release passes only
when it passes in both, so no figure shown for it exceeds the threshold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kanon_engine.privacy.base import ClassStats, PrivacyModel


class ReleaseRiskModel(PrivacyModel):
    """What the three models of the release's re-identification risk declare alike: each judges the
    release as a whole (:meth:`~PrivacyModel.release_suppression`, by this module's ladder), bounds
    re-identification by itself (a run may leave k-anonymity out) and reads class sizes in rows (a run
    with a person role refuses it). Each declares the rest: its thresholds, whether it is monotone
    without suppression, its verdict and its words."""

    counts_persons: ClassVar[bool] = False
    judges_release: ClassVar[bool] = True
    guards_identity: ClassVar[bool] = True


@dataclass(frozen=True, eq=False)
class Ladder:
    """The released classes from the smallest up: suppressing the first ``p`` of ``order`` (p = 0 ...
    len(order)) removes ``removed[p]`` records and leaves ``kept[p]`` classes and ``records[p]``
    records; ``star[p]`` records then show * (the suppressed ones, when the release keeps them)."""

    order: np.ndarray
    sizes: np.ndarray  # sizes of the released classes, ascending
    removed: np.ndarray  # (L + 1,) records removed by the first p
    kept: np.ndarray  # (L + 1,) classes left
    records: np.ndarray  # (L + 1,) records left with their values
    star: np.ndarray  # (L + 1,) records in the group of * (0 when the release drops them)

    @property
    def steps(self) -> int:
        return len(self.order)

    def mask(self, p: int, n_classes: int) -> np.ndarray:
        """Per class of the node: whether it is among the first ``p`` suppressed."""
        out = np.zeros(n_classes, dtype=bool)
        out[self.order[:p]] = True
        return out


def ladder(stats: ClassStats, released: np.ndarray) -> Ladder:
    """The :class:`Ladder` of a node's release (``released[i]``: records of class ``i`` released)."""
    live = np.flatnonzero(released > 0)
    order = live[np.argsort(released[live], kind="stable")]
    sizes = released[order].astype(np.int64)
    removed = np.concatenate([[0], np.cumsum(sizes)])
    total = int(sizes.sum())
    kept = len(order) - np.arange(len(order) + 1)
    star0 = int(stats.sizes.sum()) - total if stats.keeps_suppressed else 0
    star = star0 + removed if stats.keeps_suppressed else np.zeros(len(order) + 1, dtype=np.int64)
    return Ladder(order, sizes, removed, kept, total - removed, star)


def least_suppression(
    stats: ClassStats, released: np.ndarray, allowance: int, holds: Callable[[Ladder], np.ndarray]
) -> np.ndarray | None:
    """The fewest smallest classes to suppress so that ``holds`` (one verdict per prefix p = 0 ... L,
    vectorized, monotone in p) is true, within ``allowance`` records; None when no prefix does."""
    lad = ladder(stats, released)
    ok = holds(lad) & (lad.removed <= allowance)
    if not ok.any():
        return None
    return lad.mask(int(np.argmax(ok)), stats.n_classes)


def bisect_suppression(
    stats: ClassStats, released: np.ndarray, allowance: int, holds: Callable[[Ladder, int], bool]
) -> np.ndarray | None:
    """The fewest smallest classes to suppress for a verdict ``holds(ladder, p)`` that is costly (an
    estimate per call) and need not improve with p: none when it holds as it is; else, when it holds with
    the most classes the allowance permits suppressed (P), the least p in 1 .. P found by bisection, as
    ARX bisects (``HashGroupifyDistribution.suppressWhileNotFulfilledBinary``, which also stops where the
    verdict fails beyond the allowance); the verdict is checked again on the prefix it ends at (ARX does
    not). For a verdict that does improve with p this is the least p; otherwise it is a p for which the
    verdict holds, found the same way for every node, which is what makes the search's optimum exact."""
    lad = ladder(stats, released)
    if holds(lad, 0):
        return lad.mask(0, stats.n_classes)
    most = int(np.searchsorted(lad.removed, allowance, side="right")) - 1  # largest p within the allowance
    if most <= 0 or not holds(lad, most):
        return None
    low, high = 1, most  # holds(high) is known true
    while low < high:
        mid = (low + high) // 2
        if holds(lad, mid):
            high = mid
        else:
            low = mid + 1
    return lad.mask(high, stats.n_classes)
