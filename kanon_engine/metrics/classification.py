"""The classification metric: how well each class of a release still predicts a target attribute.

Iyengar (2002, "Transforming data to satisfy privacy constraints", KDD) scores a release for a study
that will train a classifier on it: a record is penalized when its target value differs from the
majority value of its class (a classifier trained on the release will get it wrong), and when it is
suppressed. kanon computes it as ARX 3.9.2 does (``MetricSDClassification`` with its defaults, so the
figures compare):

- a released class with a single most frequent target value costs the records that do not hold it;
- a released class whose two most frequent values tie has no majority: all its records cost 1;
- a suppressed record costs 1/2 (ARX's suppression penalty is its generalization/suppression factor,
  0.5 by default);
- the sum is divided by the number of records, so 0 is perfect and a release whose every record is
  suppressed scores 0.5; with several targets the penalties add up (ARX divides by the records once).

A target may be a quasi-identifier, as in ARX: its classes are then the groups of the other
quasi-identifiers, its values are the released (generalized) ones, and at its top level (one value left)
every record costs 1 since nothing is left to predict.

Everything works on frequency sets: the target is counted with the quasi-identifiers like a sensitive
attribute, and its per-class histogram is rolled up with the classes
(:class:`~kanon_engine.core.frequency.Histograms`), never recounted from records. The classes'
non-majority counts only add up under generalization (a merged class's majority holds at most the sum of
its parts' majorities), which gives the lower bound the optimal search prunes with
(:func:`penalty_bound`).
"""

from __future__ import annotations

import functools
from bisect import bisect_left
from typing import NamedTuple

import numpy as np

from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import BinaryHistograms, FrequencySet, Histograms, group_columns
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _

#: What a suppressed record costs (ARX: the generalization/suppression factor, 0.5 by default).
SUPPRESSED_PENALTY = 0.5
#: The largest k for which a :class:`SuppressionCurve` is made (it tabulates ``k * k`` kinds of class)
CURVE_MAX_K = 64


def check_targets(targets: tuple[str, ...], identifiers: tuple[str, ...], enc: EncodedTable) -> None:
    """A target must be kept in the release and vary: an identifier is removed, and a single value
    predicts itself (every release would score 0). One sentence each."""
    for target in targets:
        if target in identifiers:
            raise identifier_target(target, _("Give it another role, or choose another target."))
        if target in enc.qi:
            n_values = len(enc.hierarchies[enc.qi.index(target)].values)
        else:
            n_values = len(enc.sensitive_column(target).values)
        if n_values < 2:
            raise single_valued_target(target)


def identifier_target(target: str, hint: str) -> ConfigError:
    """The refusal of a target the release does not keep (shared with the utility study's check)."""
    return ConfigError(
        _("The target '{column}' is an identifier, which is removed from the release.", column=target),
        hint=hint,
        where="target",
    )


def single_valued_target(target: str) -> ConfigError:
    """The refusal of a target with one value: it predicts itself, so every release would score 0."""
    return ConfigError(
        _("The target '{column}' holds a single value, so there is nothing to predict.", column=target),
        hint=_("Choose a target with at least two values."),
        where="target",
    )


def majority(h: Histograms, n_classes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per class: its records, the records of its most frequent value, and whether two values tie for
    most frequent (from the class's histogram triples, sorted by class).

    A two-valued target (the usual case) is read as two columns: a maximum and a comparison, no segmented
    reductions over the triples (none at all when the evaluator carried it as two counts per class)."""
    if isinstance(h, BinaryHistograms) and len(h.total) == n_classes:
        first = h.total - h.ones
        return h.total, np.maximum(first, h.ones), first == h.ones
    cnt = h.cnt.astype(np.float64)
    if h.n_values == 2:
        total = np.bincount(h.cls, weights=cnt, minlength=n_classes)
        second = np.bincount(h.cls, weights=cnt * h.val, minlength=n_classes)
        first = total - second
        return total, np.maximum(first, second), first == second
    total = np.bincount(h.cls, weights=cnt, minlength=n_classes)
    top1 = np.zeros(n_classes)
    if len(h.cls):
        starts = np.flatnonzero(np.r_[True, h.cls[1:] != h.cls[:-1]])
        top1[h.cls[starts]] = np.maximum.reduceat(cnt, starts)
    tie = np.bincount(h.cls, weights=(cnt == top1[h.cls]), minlength=n_classes) > 1
    return total, top1, tie


class TwoCounts(NamedTuple):
    """A two-valued target at one node carried as two counts per class (``h``), with each class's records
    off its majority (``off``, :func:`records_off_majority`) and their sum (``paid``, the node's bound):
    what a check reads for the node's bound, its suppression curve and its value."""

    h: BinaryHistograms
    off: np.ndarray
    paid: float

    @classmethod
    def of(cls, h: BinaryHistograms) -> TwoCounts:
        off = records_off_majority(h)
        return cls(h, off, float(off.sum()))


def records_off_majority(h: BinaryHistograms) -> np.ndarray:
    """Per class of a two-valued target: the records off its majority (the smaller of its two counts;
    half the class on a tie)."""
    return np.minimum(h.ones, h.total - h.ones)


def two_counts_penalty(
    h: BinaryHistograms, off: np.ndarray, released: np.ndarray, suppressed: float | None = None
) -> float:
    """:func:`released_penalty` of a two-valued target carried as two counts per class
    (``off = records_off_majority(h)``), nothing trimmed: a released class costs its records off the
    majority, or all of them on a tie (two equal halves), a suppressed record 1/2. One dot product over
    the classes, where the general path takes the majorities and several masks (two when the records
    suppressed, the classes not released, are not given)."""
    total = h.total
    own = np.where(off + off == total, total, off)
    if suppressed is None:
        suppressed = float(total @ ~released)
    return float(own @ released) + SUPPRESSED_PENALTY * suppressed


class SuppressionCurve:
    """What suppression adds to a checked node N's bound at its generalizations (k-anonymity alone,
    step 4 on whole classes, one two-valued target outside the quasi-identifiers): every generalization
    G of N whose classes smaller than ``k`` hold ``s`` records or more has a value of at least N's
    :func:`penalty_bound` (its records off the majorities, over all records) plus :meth:`extra` ``(s)``.
    Made at N's check from N's two counts; the curve itself is tabulated only when first asked (most
    checked nodes are never asked).

    Proof. G's classes are unions of N's. G's penalty is ``sum(pen(R), R released) + 1/2 |S_G|`` over
    its released classes R and suppressed records S_G, where ``pen(R)`` is R's records off its majority
    (all of them on a tie, more). A released class's records off its majority are at least the sum of
    its parts' (:func:`penalty_bound`), and a suppressed class c of N costs ``off_c + (n_c/2 - off_c)``,
    so the penalty is at least ``sum(off_c) + sum(n_c/2 - off_c, c suppressed by G)`` over N's classes
    c. Every term ``(1/2 - off_c/n_c) n_c`` is >= 0 (a minority holds at most half of a class of a
    two-valued target), so keeping only the classes inside G's classes smaller than k keeps a lower
    bound. Those are classes of N smaller than k (a class of k or more inside one would make it large),
    holding ``s_G`` records. The least any set of N's small classes holding ``s`` records or more adds
    is at least the fractional knapsack taking the lowest rate ``1/2 - off_c/n_c`` first: a
    piecewise-linear, non-decreasing curve from (0, 0), so ``s_G >= s`` gives at least its value at
    ``s``; ``s_G`` never exceeds N's own small records (G's small classes are unions of N's), the
    curve's end. The metric is Iyengar's (2002) as ARX computes it (the module docstring).
    """

    __slots__ = ("slope", "classes", "_h", "_off", "_k", "_n_rows", "_records", "_extra")

    def __init__(self, h: BinaryHistograms, off: np.ndarray, k: int, n_rows: int) -> None:
        self._h: BinaryHistograms | None = h
        self._off: np.ndarray | None = off
        self._k, self._n_rows = k, n_rows
        #: N's classes, whose counts the curve keeps until it is tabulated
        self.classes = len(off)
        #: the most :meth:`extra` adds per record (a suppressed record costs 1/2, its share off >= 0)
        self.slope = SUPPRESSED_PENALTY / n_rows
        self._records: list[float] | None = None
        self._extra: list[float] = []

    def extra(self, s: int) -> float:
        """What suppression adds at a generalization whose classes smaller than ``k`` hold ``s`` records
        or more (over all records, as the metric's value)."""
        if self._records is None:
            self._records, self._extra = self._tabulate()
            self._h = self._off = None  # (the counts are no longer needed)
        records, extra = self._records, self._extra
        i = bisect_left(records, s)  # records[i - 1] < s <= records[i]
        if i >= len(records):
            return extra[-1] / self._n_rows
        if i == 0:
            return 0.0
        r0, e0 = records[i - 1], extra[i - 1]
        return (e0 + (extra[i] - e0) * (s - r0) / (records[i] - r0)) / self._n_rows

    def _tabulate(self) -> tuple[list[float], list[float]]:
        """(records taken, penalty added) at the knots: N's classes smaller than k counted by their kind
        (``size * k + off``, below ``k * k``; the large ones in one more bin), lowest rate first
        (:func:`small_class_kinds`; a kind no class has adds a knot where the curve does not bend)."""
        k = self._k
        assert self._h is not None and self._off is not None
        order, size, rate = small_class_kinds(k)
        kind = np.minimum(self._h.total * k + self._off, k * k).astype(np.int64)
        held = np.bincount(kind, minlength=k * k + 1)[order] * size
        # (records and penalty, not yet over all records: :meth:`extra` divides its one number)
        return [0.0, *np.cumsum(held).tolist()], [0.0, *np.cumsum(held * rate).tolist()]


@functools.cache
def small_class_kinds(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kinds of a class smaller than ``k`` of a two-valued target (``size * k + off``: its size, 1 to
    k - 1, and its records off the majority, at most half of it), lowest rate ``1/2 - off/size`` first,
    with their sizes and rates: what :class:`SuppressionCurve` sorts its classes by, once per ``k``."""
    kind = np.arange(k, k * k)
    kind = kind[2 * (kind % k) <= kind // k]  # (a minority holds at most half its class)
    size, off = kind // k, kind % k
    rate = SUPPRESSED_PENALTY - off / size
    order = np.argsort(rate, kind="stable")
    return kind[order], size[order], rate[order]


def class_penalty(total: np.ndarray, top1: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """ARX's penalty of each released class: its records off the majority, or all of them on a tie."""
    return np.where(tie, total, total - top1)


def target_histograms(enc: EncodedTable, fs: FrequencySet, target: str) -> Histograms:
    """The per-class histogram of non-QI ``target`` at ``fs``'s node: rolled up with the classes when the
    evaluator tracked it, else counted from the encoded rows (one grouping, for a frequency set built
    elsewhere)."""
    names = [s.name for s in enc.sensitive]
    index = names.index(target)
    if fs.hists is not None and index in fs.hists:
        return fs.hists[index]
    column = enc.sensitive[index]
    row_class = point_classes(enc, fs.levels, fs.leaves(), enc.codes)
    return Histograms.from_rows(row_class, column.codes, fs.n_classes, len(column.values), enc.weights)


def point_classes(
    enc: EncodedTable, levels: tuple[int, ...], class_leaves: np.ndarray, leaves: np.ndarray
) -> np.ndarray:
    """The class (an index into ``class_leaves``' columns, one representative per class of the node at
    ``levels``) of every column of ``leaves``: both generalized and grouped together."""
    n_cls = class_leaves.shape[1]
    cols, sizes = [], []
    for q, lv in enumerate(levels):
        gen = enc.level_maps[q][lv]
        cols.append(np.concatenate([gen[class_leaves[q]], gen[leaves[q]]]))
        sizes.append(enc.level_sizes[q][lv])
    ids, n = group_columns(cols, sizes)
    position = np.full(n, -1, dtype=np.int64)
    position[ids[:n_cls]] = np.arange(n_cls, dtype=np.int64)
    return position[ids[n_cls:]]


def released_penalty(
    total: np.ndarray,
    top1: np.ndarray,
    tie: np.ndarray,
    released: np.ndarray,
    trimmed: np.ndarray | None,
) -> float:
    """Penalty of the released classes and the suppressed records of one target.

    Records Datafly's step 4 takes out of a released class (``trimmed``) cost as suppressed; the class is
    scored on the rest as if the taken records had been of its majority value (the worst case: which
    records go is decided by their order in the file, not by their target value).
    """
    own = class_penalty(total, top1, tie)
    suppressed = float(total[~released].sum())
    if trimmed is not None:
        taken = trimmed.astype(np.float64)
        own = np.where(taken > 0, (total - taken) - np.maximum(top1 - taken, 0.0), own)
        suppressed += float(taken[released].sum())
    return float(own[released].sum() + SUPPRESSED_PENALTY * suppressed)


def penalty_bound(total: np.ndarray, top1: np.ndarray, max_suppressed: int, trims: bool) -> float:
    """A lower bound on one target's penalty at the node of these classes and at every generalization
    that satisfies the models within the suppression limit.

    Under generalization classes only merge, and a merged class's records off the majority are at least
    the sum of its parts' (its majority value holds at most their majorities; a tie costs more). So the
    sum of ``total - top1`` over the classes here is paid at every generalization, except by records it
    suppresses, which cost 1/2 instead, and at most ``max_suppressed`` records are suppressed. Suppressing
    a whole class saves ``off/total - 1/2`` a record; the best any release can save is a fractional
    knapsack over the classes (the largest savings first, up to the limit). When step 4 may take single
    records out of a class, each may save 1/2 (a record off the majority), up to the limit.
    """
    off = total - top1
    paid = float(off.sum())
    if max_suppressed <= 0 or paid <= 0:
        return paid
    if trims:
        return paid - SUPPRESSED_PENALTY * min(float(max_suppressed), paid)
    # only a class whose majority holds under half its records saves by being suppressed (never with a
    # two-valued target): the knapsack runs over those alone
    useful = np.flatnonzero(off > SUPPRESSED_PENALTY * total)
    if not len(useful):
        return paid
    rate = off[useful] / total[useful] - SUPPRESSED_PENALTY
    order = np.argsort(-rate, kind="stable")
    taken = np.minimum(np.cumsum(total[useful][order]), float(max_suppressed))
    records = np.diff(np.r_[0.0, taken])
    return paid - float((records * rate[order]).sum())


def qi_target_penalty(
    enc: EncodedTable,
    levels: tuple[int, ...],
    class_leaves: np.ndarray,
    sizes: np.ndarray,
    released: np.ndarray,
    target: int,
) -> float:
    """Penalty of quasi-identifier ``target`` (its index): the released classes grouped by the other
    quasi-identifiers, the target's released values counted in each group (ARX's MetaHashGroupify);
    at the target's top level nothing is left to predict and every record costs 1."""
    lv = levels[target]
    suppressed = SUPPRESSED_PENALTY * float(sizes[~released].sum())
    if enc.level_sizes[target][lv] <= 1 or len(enc.hierarchies[target].values) <= 1:
        return float(sizes[released].sum()) + suppressed
    keep = np.flatnonzero(released)
    others = [q for q in range(enc.n_qi) if q != target]
    cols = [enc.level_maps[q][levels[q]][class_leaves[q][keep]] for q in others]
    if cols:
        group, n = group_columns(cols, [enc.level_sizes[q][levels[q]] for q in others])
    else:
        group, n = np.zeros(len(keep), dtype=np.int64), 1
    values = enc.level_maps[target][lv][class_leaves[target][keep]]
    h = Histograms.from_rows(group, values, n, enc.level_sizes[target][lv], sizes[keep].astype(np.int64))
    total, top1, tie = majority(h, n)
    return float(class_penalty(total, top1, tie).sum()) + suppressed
