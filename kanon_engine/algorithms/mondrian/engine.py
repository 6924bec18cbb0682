"""Mondrian on a table whose points do not fit in memory: the first cuts by the engine, the rest in memory.

Mondrian works on points (:mod:`kanon_engine.algorithms.mondrian.algorithm`). When even the distinct
combinations
of quasi-identifier leaves exceed the memory budget (:data:`kanon_engine.sources.plan.points.POINT_BUDGET`;
100 million admissions are nearly as many combinations), the top of the recursion runs in the engine:

1. A partition is a *box*: a range of keys per quasi-identifier
(:class:`~kanon_engine.sources.backends.base.Boxes`;
   a strict cut is a threshold on one key, so every partition of strict Mondrian is a box). The engine
   computes, in one pass per level, the records of every open box at every key of every
   quasi-identifier (:meth:`~kanon_engine.sources.backends.base.TableSource.box_histograms`: a ``GROUP BY
   GROUPING SETS`` in DuckDB, numpy in memory and on every Dask worker).
2. From these histograms the cut is chosen exactly as on points (LeFevre, DeWitt & Ramakrishnan 2006):
   the tight range of every attribute, the widest normalized range first, the median record, the block
   holding it and the more balanced of the two thresholds beside it, falling back to the next attribute
   when the cut is not allowable. The medians are *exact* (weighted, from the histograms): no
   approximate quantile is used, so the partitions are those of the in-memory algorithm and quality is
   unchanged (the tests compare both with the budget forced low).
3. A box goes to memory once it holds at most ``budget // BOX_SHARE`` records (so its points fit,
   whatever the duplicates, with room for Mondrian's work on them), or when no cut is allowable
   there: its points are counted with a filter
   (:meth:`~kanon_engine.sources.backends.base.TableSource.count_in_boxes`, as many boxes a pass as fit the
   budget together) and the ordinary algorithm continues on them (:func:`partition`, unchanged).
4. Each box then keeps only what the release needs, per partition: its bounds (16 bytes where the
   keys fit 16 bits), records and first point, and for strict Mondrian the cut tree that finds a row's
   partition from its keys (:class:`~kanon_engine.sources.plan.key_tree.KeyTree`, about 13 bytes a
   partition). Relaxed Mondrian divides points between partitions, so its boxes keep every point's key
   and class instead (12 bytes a point: 1.2 GB for 100 million distinct rows). The partitions of all
   boxes are labelled and numbered as one run numbers them (by their first point in code order), so
   the figures and the release are those of the in-memory run; the release streams through a
   :class:`~kanon_engine.sources.plan.release_plan.BoxedPartitionPlan` (a row's box from its keys, then the
   box's
   tree or points), batch by batch, into the one writer.

Which cut, and quality. Approximate quantiles (DuckDB's ``approx_quantile``, a t-digest) would save
nothing here: the histograms are as small as the attributes' domains (2,500 zip codes, 1,826 days), and
an approximate median would move the cut by a few records, changing every partition below it. So the
medians are exact and strict Mondrian's partitions are the in-memory run's, byte for byte (tested on
Adult cut 2 to 8 levels deep, on random tables, and on 10 million rows). Relaxed Mondrian's cuts in
the engine keep the median block whole (strict's threshold): dividing a point's records between sides
needs their order in the file, which the engine's counts do not keep; the partitions below are relaxed
as usual. On Adult at k=5 with the budget forced to 4,000 records relaxed DM is 475,016 and GCP 0.0384,
against 469,004 and 0.0382 in memory (1.3 % and 0.6 % more loss).

Limits. The engine's cuts check k-anonymity (the size of both sides): l-diversity and t-closeness would
need the sensitive values of every side, so a run with them is refused past the budget (one sentence),
as is a workload-aware run. Mondrian's partition boxes for the viewer (:class:`PartitionRecord`'s bounds
and released values, about 200 bytes a partition) are not built for a streamed run (the viewer needs the
rows); the released values are codes into per-attribute texts, 8 bytes a partition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.progress import ProgressCallback
from kanon_engine.sources.backends.base import Boxes, TableSource, give_back_freed_memory
from kanon_engine.sources.plan.combination_keys import CombinationKeys
from kanon_engine.sources.plan.key_tree import KeyTree
from kanon_engine.sources.plan.points import Counted, PointSpec, counted_from
from kanon_engine.sources.plan.release_plan import BoxedPartitionPlan, PartitionPlan, TreePartitionPlan

#: Mondrian's view of one quasi-identifier (:class:`kanon_engine.algorithms.mondrian.algorithm._Axis`:
#: ``n_keys``,
#: ``key_of_leaf``, ``width``, ``block``; ordered ones also ``value`` and ``is_date``).
Axis = Any
#: Mondrian's partitions (:class:`kanon_engine.algorithms.mondrian.algorithm.Partitioning`).
Partitioning = Any
#: Released values of partitions on one quasi-identifier: codes (one a partition) into distinct texts.
Labels = tuple[np.ndarray, np.ndarray]


#: A box the engine cut is finished in memory once it holds at most ``budget // BOX_SHARE`` records.
#: Mondrian's work on a box takes about 150 bytes a point (keys, weights, the fragments and each level's
#: copies) beside the points of the pass being counted (``budget`` records at most, about 50 bytes a
#: point), and each box's cut tree is kept: with boxes of a quarter of the budget the in-memory phase of
#: a 100-million-row run stays under 1.5 GB. The partitions do not depend on it (strict cuts by the
#: engine are exact); the engine makes two more passes of cuts.
BOX_SHARE = 4


@dataclass(frozen=True)
class Kernel:
    """What this module needs of the in-memory algorithm, handed over by
    :mod:`kanon_engine.algorithms.mondrian.algorithm` (which imports this module, not the other way round):
    the
    run on one box's points, the partitioning's constructor, the mean's text, and the records both sides
    of a cut need at least."""

    cut: Callable[[Any], Partitioning]  # EncodedTable of a box's points -> its partitions
    partitioning: Callable[..., Partitioning]
    mean_text: Callable[[np.ndarray], np.ndarray]
    min_size: int
    means: bool = False  # the mean summary: every box keeps its partitions' sums


def require_engine_cuts(name: str, algorithm: str, config: AnonymizationConfig, workload: bool) -> None:
    """One sentence when the engine cannot make this run's first cuts (see the module docstring)."""
    if any(m.sensitive for m in config.models) or workload:
        raise ConfigError(
            _(
                "{name} has more distinct combinations of quasi-identifier values than fit in memory; "
                "{algorithm} then makes its first cuts while reading the table, and those check "
                "k-anonymity only.",
                name=name,
                algorithm=algorithm,
            ),
            hint=_("Use k-anonymity alone here, or a full-domain algorithm (optimal, datafly)."),
            where="algorithm",
        )


def _tight(hist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last key holding records of every box (rows of a histogram matrix)."""
    present = hist > 0
    lo = np.argmax(present, axis=1)
    hi = hist.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1)
    return lo.astype(np.int64), hi.astype(np.int64)


def _median_cut(
    axis: Axis, cum: np.ndarray, size: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Threshold (keys <= t go left) and left records of the strict median cut of boxes whose records
    up to every key are ``cum`` (rows):
    :meth:`kanon_engine.algorithms.mondrian.algorithm._Level.strict_threshold`
    on a histogram instead of points."""
    rank = (size - 1) // 2
    v = (cum <= rank[:, None]).sum(axis=1).astype(np.int64)  # the key of the median record
    blo, bhi = axis.block(v, lo, hi)
    rows = np.arange(len(size))
    after = cum[rows, bhi]
    before = np.where(blo > 0, cum[rows, np.maximum(blo - 1, 0)], 0)
    use_after = np.minimum(after, size - after) >= np.minimum(before, size - before)
    return np.where(use_after, bhi, blo - 1), np.where(use_after, after, before)


def engine_cuts(
    source: TableSource,
    boxes: Boxes,
    records: int,
    axes: list[Axis],
    min_size: int,
    budget: int,
    progress: ProgressCallback,
) -> tuple[Boxes, np.ndarray, int, int]:
    """Cut the table (``records`` rows, one box) in the engine until every box holds at most ``budget``
    records or cannot be cut; the boxes to finish in memory, their records, the cuts made and the cuts
    checked (counted
    as the in-memory run counts them: a box not cut here is checked again in memory). Only boxes over
    the budget are read: the records of both sides of a cut are known from its histogram."""
    done_lo, done_hi, done_n = [], [], []
    lower, upper, recs = boxes.lower, boxes.upper, np.array([records], dtype=np.int64)
    splits = checked = level = 0
    while len(lower):
        big = recs > budget
        done_lo.append(lower[~big])
        done_hi.append(upper[~big])
        done_n.append(recs[~big])
        lower, upper, recs = lower[big], upper[big], recs[big]
        if not len(lower):
            break
        progress(
            0.05,
            _(
                "Mondrian level {level}, cut while reading the table: {n} partitions",
                level=level,
                n=len(lower),
            ),
        )
        hist = source.box_histograms(Boxes(boxes.codings, boxes.keys, lower, upper), progress)
        cut, dim, threshold, left, tries = _cuts(hist, recs, axes, min_size)
        splits += int(cut.sum())
        checked += int(tries[cut].sum())
        done_lo.append(lower[~cut])
        done_hi.append(upper[~cut])
        done_n.append(recs[~cut])
        c = np.flatnonzero(cut)
        left_hi, right_lo = upper[c].copy(), lower[c].copy()
        left_hi[np.arange(len(c)), dim[c]] = threshold[c]
        right_lo[np.arange(len(c)), dim[c]] = threshold[c] + 1
        lower = np.stack([lower[c], right_lo], axis=1).reshape(-1, lower.shape[1])
        upper = np.stack([left_hi, upper[c]], axis=1).reshape(-1, upper.shape[1])
        recs = np.stack([left[c], recs[c] - left[c]], axis=1).ravel()
        level += 1
    final = Boxes(boxes.codings, boxes.keys, np.concatenate(done_lo), np.concatenate(done_hi))
    return final, np.concatenate(done_n), splits, checked


def _cuts(
    hist: list[np.ndarray], recs: np.ndarray, axes: list[Axis], min_size: int
) -> tuple[np.ndarray, ...]:
    """Mondrian's cut of every box from its histograms
    (:func:`kanon_engine.algorithms.mondrian.algorithm._cut_level`
    over histograms): whether it is cut, on which attribute, the threshold, the left side's records and
    the attempts made."""
    n = len(recs)
    tight = [_tight(h) for h in hist]
    width = np.stack([ax.width(t[0], t[1]) for ax, t in zip(axes, tight)])
    order = np.argsort(-width, axis=0, kind="stable")
    is_open = recs >= 2 * min_size
    cut = np.zeros(n, dtype=bool)
    threshold, dim, left = (np.zeros(n, dtype=np.int64) for _i in range(3))
    tries = np.zeros(n, dtype=np.int64)
    cols = np.arange(n)
    for a in range(len(axes)):
        dims = order[a]
        active = is_open & ~cut & (width[dims, cols] > 0)
        tries += active
        for q in np.unique(dims[active]):
            sel = np.flatnonzero(active & (dims == q))
            cum = np.cumsum(hist[q][sel], axis=1)
            t, lft = _median_cut(axes[q], cum, recs[sel], tight[q][0][sel], tight[q][1][sel])
            ok = np.minimum(lft, recs[sel] - lft) >= min_size
            cut[sel[ok]] = True
            threshold[sel[ok]], dim[sel[ok]], left[sel[ok]] = t[ok], q, lft[ok]
    return cut, dim, threshold, left, tries


def mondrian_by_engine(
    source: TableSource,
    spec: PointSpec,
    axes: list[Axis],
    kernel: Kernel,
    budget: int,
    progress: ProgressCallback,
) -> tuple[Counted, Boxes, list[_Box], Partitioning]:
    """The first cuts in the engine, then Mondrian in memory on every box's points: the boxes, what
    each keeps for the release (:class:`_Box`), and the partitions of all boxes (bounds, sizes, and the
    key of each one's first point, which numbers the classes as the in-memory run numbers them)."""
    n_qi = len(spec.qi)
    keys = tuple(ax.key_of_leaf.astype(np.int64) for ax in axes)
    full = Boxes(
        spec.codings[:n_qi],
        keys,
        np.zeros((1, n_qi), dtype=np.int64),
        np.array([[ax.n_keys - 1 for ax in axes]], dtype=np.int64),
    )
    min_size = kernel.min_size
    records = int(spec.leaf_counts[0].sum())
    box_budget = max(budget // BOX_SHARE, 1)
    boxes, box_records, splits, checked = engine_cuts(
        source, full, records, axes, min_size, box_budget, progress
    )
    leaves = (0,) * n_qi
    request = spec.request(leaves)
    kept: list[_Box] = []
    for which in _passes(box_records, budget):
        progress(
            0.1 + 0.8 * which[0] / boxes.n_boxes,
            _("Mondrian in memory: part {i} of {n}", i=which[0] + 1, n=boxes.n_boxes),
        )
        for counts in source.count_in_boxes(request, boxes, which, progress):
            counted = counted_from(spec, leaves, counts)
            kept.append(_Box.of(counted, kernel.cut(counted.enc), axes, kernel.means))
            del counted, counts
        give_back_freed_memory()
    whole = EncodedTable(
        spec.qi, spec.hierarchies, _no_codes(n_qi, 1), (), np.array([records], dtype=np.int64)
    )
    coder = CombinationKeys(tuple(max(int(s), 1) for s in request.sizes))  # never looks a row up
    counted = Counted(whole, spec.codings, leaves, np.zeros(0, dtype=np.int64), coder, holds_points=False)
    return counted, boxes, kept, _summary(kernel, kept, splits, checked)


def _passes(records: np.ndarray, budget: int) -> list[list[int]]:
    """Consecutive boxes counted in one pass, as many as hold at most ``budget`` records together (a box
    over the budget, one that could not be cut, alone)."""
    out: list[list[int]] = []
    total = budget + 1
    for b, n in enumerate(records.tolist()):
        if total + n > budget:
            out.append([])
            total = 0
        out[-1].append(b)
        total += n
    return out


def _no_codes(n_qi: int, n: int) -> np.ndarray:
    """A read-only (n_qi, n) array of zeros taking no memory: a box's points are looked up by their keys,
    and their codes are not needed after the box was cut."""
    return np.broadcast_to(np.zeros((n_qi, 1), dtype=np.int32), (n_qi, n))


@dataclass(eq=False)
class _Box:
    """What one box keeps after Mondrian ran on its points: the points' keys and records (to find a
    row's point), the partition of every point's first records and the points relaxed Mondrian divided
    (point, first rank, partition), and per partition its bounds, records, first point's key and the
    sums of every numeric attribute for the mean summary."""

    counted: Counted
    first_part: np.ndarray
    divided: tuple[np.ndarray, np.ndarray, np.ndarray] | None
    lower: np.ndarray
    upper: np.ndarray
    sizes: np.ndarray
    first_key: np.ndarray
    sums: dict[str, tuple[np.ndarray, np.ndarray]]
    splits: int = 0
    checked: int = 0
    tree: KeyTree | None = None  # strict Mondrian: finds a row's partition (then the points are not kept)
    n_parts: int = 0  # its partitions (set when the per-partition arrays go to the whole run's)

    @classmethod
    def of(cls, counted: Counted, parts: Partitioning, axes: list[Axis], means: bool) -> _Box:
        enc = counted.enc
        n_parts = len(parts.sizes)
        first_part = np.zeros(enc.n_points, dtype=np.int32)
        order = np.lexsort((parts.offset, parts.point))[::-1]
        first_part[parts.point[order]] = parts.partition[order]  # the last write is the first records
        pieces = np.bincount(parts.point, minlength=enc.n_points)
        divided = None
        if (pieces > 1).any():
            sel = pieces[parts.point] > 1
            o = np.lexsort((parts.offset[sel], parts.point[sel]))
            divided = (parts.point[sel][o], parts.offset[sel][o], parts.partition[sel][o])
        sums = {}
        for q, ax in enumerate(axes if means else ()):
            if ax.numeric and not ax.is_date:  # numbers (ordered, not dates): the mean summary
                x = ax.value[ax.key_of_leaf[enc.codes[q][parts.point]]]
                ok = np.isfinite(x)
                total = np.bincount(parts.partition, np.where(ok, x, 0.0) * parts.weight, minlength=n_parts)
                count = np.bincount(parts.partition, ok * parts.weight, minlength=n_parts)
                sums[f"{ax.name}_mean"] = (total, count)
        first_key = counted.keys[parts.first]
        # bounds in the narrowest type (16 bytes a partition where the keys allow, not 64 in int32)
        small = int(parts.upper.max(initial=0)) < np.iinfo(np.int16).max
        lo, hi = (b.astype(np.int16 if small else np.int32) for b in (parts.lower, parts.upper))
        # strict: a row's partition from its keys (the cut tree), so the points need not be kept
        tree = KeyTree.build(lo, hi) if divided is None else None
        # (new empty arrays: an empty view would keep the whole array alive)
        point_keys = counted.keys if tree is None else np.zeros(0, dtype=np.int64)
        if tree is not None:
            first_part = np.zeros(0, dtype=np.int32)
        # the records of every point matter to the plan only where relaxed Mondrian divided points
        weights = enc.weights if divided is not None else None
        light = EncodedTable(enc.qi, enc.hierarchies, _no_codes(enc.n_qi, enc.n_points), (), weights)
        coder = counted.coder if tree is None else counted.coder.without_combinations()
        kept = Counted(light, counted.codings, counted.floor, point_keys, coder)
        sizes = parts.sizes
        return cls(
            kept, first_part, divided, lo, hi, sizes, first_key, sums, parts.splits, parts.checked, tree
        )


def _summary(kernel: Kernel, kept: list[_Box], splits: int, checked: int) -> Partitioning:
    """The partitions of every box, one after the other (no per-point arrays: the boxes keep those)."""
    none = np.zeros(0, dtype=np.int64)
    bounds = np.concatenate([k.lower for k in kept]), np.concatenate([k.upper for k in kept])
    sizes, first_key = np.concatenate([k.sizes for k in kept]), np.concatenate([k.first_key for k in kept])
    for k in kept:  # held once: the boxes' copies are not needed again (the trees keep their bounds)
        k.n_parts = len(k.sizes)
        k.lower = k.upper = k.sizes = k.first_key = none
    return kernel.partitioning(
        none,
        none,
        none,
        none,
        bounds[0],
        bounds[1],
        sizes,
        first_key,
        splits + sum(k.splits for k in kept),
        checked + sum(k.checked for k in kept),
    )


def class_labels(
    labels: list[Labels], part_class: np.ndarray, n_classes: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Every class's released value per quasi-identifier as codes into distinct texts, numbered in class
    order as ``pd.factorize`` numbers the class's strings (so the release is the same, byte for byte),
    from the partitions' codes: integers per class, never a string object per class."""
    label_codes, label_text = [], []
    for codes, text in labels:
        per_class = np.empty(n_classes, dtype=np.int64)
        per_class[part_class] = codes  # every partition of a class has the class's values
        class_codes, seen = pd.factorize(per_class, sort=False)
        # int32 when the texts allow (always, in practice): 4 bytes a class and attribute held to the write
        small = len(seen) < np.iinfo(np.int32).max
        label_codes.append(class_codes.astype(np.int32 if small else np.int64))
        label_text.append(np.asarray(text, dtype=object)[seen])
    return label_codes, label_text


def boxed_plan(
    config: AnonymizationConfig,
    boxes: Boxes,
    kept: list[_Box],
    labels: list[Labels],
    part_class: np.ndarray,
    n_classes: int,
    mean_text: Callable[[np.ndarray], np.ndarray] | None,
) -> BoxedPartitionPlan:
    """The release plan of a run cut by the engine: the labels of every class (as
    :func:`kanon_engine.algorithms.mondrian.algorithm._partition_plan` makes them) and a plan per box."""
    label_codes, label_text = class_labels(labels, part_class, n_classes)
    subs: list[PartitionPlan] = []
    base = 0
    for k in kept:
        cls = part_class[base : base + k.n_parts]
        base += k.n_parts
        if k.tree is not None:
            subs.append(TreePartitionPlan(config, k.counted, tree=k.tree, part_class=cls, keys=boxes.keys))
            continue
        fragments = None if k.divided is None else (k.divided[0], k.divided[1], cls[k.divided[2]])
        point_class = cls[k.first_part].astype(np.int32)
        k.first_part = point_class[:0]  # replaced by the classes (one array a point held, not two)
        subs.append(PartitionPlan(config, k.counted, point_class=point_class, fragments=fragments))
    plan = BoxedPartitionPlan(
        config,
        None,  # type: ignore[arg-type]  # the counts are set by finish_result
        labels=label_codes,
        label_text=label_text,
        boxes=boxes,
        parts=subs,
    )
    if mean_text is not None:
        plan.extra = _means_of(kept, part_class, n_classes, mean_text)
    return plan


def _means_of(
    kept: list[_Box], part_class: np.ndarray, n_classes: int, mean_text: Callable[[np.ndarray], np.ndarray]
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The mean summary's columns from the partitions' sums (as
    :func:`kanon_engine.algorithms.mondrian.algorithm._means` makes them from the points)."""
    extra = {}
    for name in kept[0].sums if kept else ():
        total = np.bincount(part_class, np.concatenate([k.sums[name][0] for k in kept]), minlength=n_classes)
        count = np.bincount(part_class, np.concatenate([k.sums[name][1] for k in kept]), minlength=n_classes)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / count
        codes, uniques = pd.factorize(pd.Series(mean_text(mean), dtype=object), sort=False)
        extra[name] = (codes.astype(np.int64), np.asarray(uniques, dtype=object))
    return extra
