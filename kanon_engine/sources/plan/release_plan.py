"""Release plans: what an algorithm decided, as a function of a row's codes, applied a batch at a time.

An algorithm works on points (:mod:`kanon_engine.sources.plan.points`) and ends with a class for every point
(full-domain generalization: the class of the chosen node, or suppressed; Mondrian: the partition's class,
with the records of a point divided between classes where relaxed Mondrian divided them). A plan turns
a batch of input rows into release rows: it finds each row's point, hence its class, and builds the
quasi-identifier columns from codes and label tables (:mod:`kanon_engine.release.build`). The same plan runs
on
the whole loaded table (the workbench's release) and on every batch an engine streams (the export), so
the bytes written do not depend on the engine.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from kanon_engine.config import AnonymizationConfig
from kanon_engine.hierarchy.model import ROOT
from kanon_engine.i18n import _
from kanon_engine.release.build import mask_suppressed, missing_as_empty_codes, qi_column
from kanon_engine.sources.backends.base import Boxes, encode_batch
from kanon_engine.sources.plan.combination_keys import CombinationKeys
from kanon_engine.sources.plan.guard import TableChanged
from kanon_engine.sources.plan.key_tree import KeyTree
from kanon_engine.sources.plan.points import Counted


@dataclass
class BatchState:
    """What a plan carries from one batch to the next: rows seen, and records seen of each point (for
    points whose records are divided between classes, in input order)."""

    rows: int = 0
    seen: np.ndarray | None = None
    #: the point of every row of the batch when the engine already knows it (in memory, from counting)
    points: np.ndarray | None = None
    #: the state of every box of a :class:`BoxedPartitionPlan` (its own points, its own records seen)
    boxes: dict[int, BatchState] = field(default_factory=dict)

    def points_of(self, counted: Counted, codes: np.ndarray) -> np.ndarray:
        """The point of every row of the batch: known, or looked up by its codes."""
        if self.points is None:
            return counted.point_of(codes)
        return self.points.astype(np.int64, copy=False)  # kept as int32; keys below multiply them


@dataclass(eq=False)
class ReleasePlan(ABC):
    """The release of a run as a function of the rows (see the module docstring)."""

    config: AnonymizationConfig
    counted: Counted
    #: extra columns per class (Mondrian's ``<qi>_mean``): name -> (codes per class, labels)
    extra: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def n_qi(self) -> int:
        return self.counted.enc.n_qi

    @abstractmethod
    def row_classes(self, codes: np.ndarray, state: BatchState) -> np.ndarray:
        """Released class of every row of a batch (-1: suppressed), given its codes."""

    def suppressed_records(self) -> int:
        """Records the release suppresses (points of class -1, and Datafly's trimmed records)."""
        point_class = getattr(self, "point_class", np.zeros(0, dtype=np.int64))
        weights = self.counted.enc.weights
        off = point_class < 0
        n = (int(weights[off].sum()) if weights is not None else int(off.sum())) if len(point_class) else 0
        return n + int(getattr(self, "trimmed_records", 0))

    @abstractmethod
    def class_values(self, n_classes: int) -> dict[str, np.ndarray]:
        """The released quasi-identifier values of every class (object arrays, one per quasi-identifier),
        from the points alone: the workbench lists the groups of a run whose rows it does not hold."""

    @abstractmethod
    def qi_columns(
        self, frame: pd.DataFrame, codes: np.ndarray, row_class: np.ndarray
    ) -> dict[str, pd.Categorical]:
        """Released quasi-identifier columns of a batch (before suppression); a column left out keeps the
        input's strings."""

    def codes_of(self, frame: pd.DataFrame) -> np.ndarray:
        """The codes (quasi-identifiers, then sensitive attributes) of a batch of input rows."""

        names = [c.name for c in self.counted.codings]
        arrays = []
        for n in names:
            col = frame[n]
            arrow = getattr(col.array, "_pa_array", None)
            if arrow is None:
                arrow = pa.array(
                    col.astype(object).where(col.notna(), None).to_numpy(dtype=object), pa.string()
                )
            arrays.append(arrow)
        return encode_batch(pa.table(arrays, names=names), self.counted.codings)

    def apply(
        self, frame: pd.DataFrame, state: BatchState, codes: np.ndarray | None = None
    ) -> tuple[pd.DataFrame, np.ndarray]:
        """The release rows of a batch of input rows (identifiers dropped, quasi-identifiers replaced,
        suppressed rows masked; not dropped nor shuffled) and the class of every row."""
        codes = self.codes_of(frame) if codes is None else codes
        row_class = self.row_classes(codes, state)
        state.rows += len(frame)
        suppressed = row_class < 0
        cfg = self.config
        ids = set(cfg.identifiers)
        columns: dict[str, pd.Series] = {c: frame[c] for c in frame.columns if c not in ids}
        for name, values in self.qi_columns(frame, codes, row_class).items():
            # the missing-value group is an empty cell, whichever algorithm ran (release.py's rule)
            columns[name] = pd.Series(missing_as_empty_codes(values), index=frame.index, copy=False)
        if suppressed.any():
            for name in cfg.quasi_identifiers:
                columns[name] = mask_suppressed(columns[name], suppressed)
        out = pd.DataFrame(columns, index=frame.index, copy=False)
        for name, (per_class, labels) in self.extra.items():
            codes_x = np.where(suppressed, len(labels), per_class[np.maximum(row_class, 0)])
            values = batch_categorical(codes_x, labels, ROOT)
            base = name[:-5] if name.endswith("_mean") else None
            series = pd.Series(values, index=out.index, copy=False)
            if base in out.columns:
                out.insert(out.columns.get_loc(base) + 1, name, series)
            else:
                out[name] = series
        return out.reset_index(drop=True), row_class


#: Label tables longer than this are cut down to the labels a batch uses (see :func:`batch_categorical`).
_FEW_LABELS = 4096


def batch_categorical(codes: np.ndarray, labels: np.ndarray, extra: str | None = None) -> pd.Categorical:
    """A batch's released column: ``labels[codes]`` (code ``len(labels)`` is ``extra``) as a categorical
    of only the labels the batch uses, in the labels' order. The text of every row is the same either
    way, but a run with millions of released values (Mondrian's 7.5 million classes of 100 million rows)
    would hand every batch all of them to check, convert and format: on 100 million rows that was most of
    the time of the write and up to 2 GB of memory."""
    table = np.asarray(labels, dtype=object)
    tail = np.array([] if extra is None else [extra], dtype=object)
    if len(table) + len(tail) <= _FEW_LABELS:
        return pd.Categorical.from_codes(codes, pd.Index(np.append(table, tail), dtype=object))
    used = np.zeros(len(table) + len(tail), dtype=bool)
    used[codes] = True
    renumber = np.cumsum(used) - 1
    kept = np.append(table[used[: len(table)]], tail[used[len(table) :]])
    return pd.Categorical.from_codes(renumber[codes], pd.Index(kept, dtype=object))


def _table_changed() -> TableChanged:
    """A row of the release matches none of the counted groups: the file changed after counting (the
    release writer names the file, :mod:`kanon_engine.sources.plan.guard`)."""
    return TableChanged(
        _("The table changed while it was being anonymized (a row matches no counted group)."),
        hint=_("Run the anonymization again."),
    )


@dataclass(frozen=True, eq=False)
class NodeClasses:
    """The released class of every combination of generalized values of a full-domain node: a row's
    class from its own codes, by a binary search among the node's classes (tens of thousands, which stay
    in the processor's cache) instead of among the points (millions: the search for a row's point was a
    third of the time of writing a release)."""

    levels: tuple[int, ...]
    maps: tuple[np.ndarray, ...]  # per quasi-identifier: leaf code -> code at the node's level
    coder: CombinationKeys  # numbers the node's combinations (by those of the points)
    keys: np.ndarray  # sorted keys of the node's combinations
    classes: np.ndarray  # released class of each (-1: suppressed)

    @classmethod
    def of(cls, counted: Counted, levels: tuple[int, ...], point_class: np.ndarray) -> NodeClasses:
        enc = counted.enc
        maps = tuple(enc.level_maps[q][lv] for q, lv in enumerate(levels))
        sizes = tuple(int(enc.level_sizes[q][lv]) for q, lv in enumerate(levels))
        coder, keys = CombinationKeys.of(_generalized(enc.codes, maps), sizes)
        keys, first = np.unique(keys, return_index=True)  # every point of a combination has its class
        return cls(tuple(levels), maps, coder, keys, point_class[first])

    def classes_of(self, codes: np.ndarray) -> np.ndarray:
        """The class of every row given its codes (quasi-identifier leaves first)."""
        key = self.coder.keys(_generalized(codes, self.maps))
        pos = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        if not np.array_equal(self.keys[pos], key):
            raise _table_changed()
        return self.classes[pos]


def _generalized(codes: np.ndarray, maps: tuple[np.ndarray, ...]) -> np.ndarray:
    """(quasi-identifiers, m) codes at a node's levels from leaf codes (quasi-identifiers first)."""
    out = np.empty((len(maps), codes.shape[1]), dtype=np.int64)
    for q, m in enumerate(maps):
        out[q] = m[codes[q]]
    return out


@dataclass(eq=False)
class FullDomainPlan(ReleasePlan):
    """One level per quasi-identifier; ``point_class`` is the released class of every point (-1:
    suppressed)."""

    levels: tuple[int, ...] = ()
    point_class: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: Datafly's step 4 (:mod:`kanon_engine.core.suppressed_group`): per released class its records and how
    #: many of them (the last ones in input order) are suppressed as well; None when none are
    trim: tuple[np.ndarray, np.ndarray] | None = None
    #: some rows of a released class are suppressed (a person's rows cut out of it, see
    #: :mod:`kanon_engine.core.person_sets`): a streamed row finds its class through its point
    by_point: bool = False
    _lookup: NodeClasses | None = field(default=None, repr=False, compare=False)

    @property
    def trimmed_records(self) -> int:
        return 0 if self.trim is None else int(self.trim[1].sum())

    def row_classes(self, codes: np.ndarray, state: BatchState) -> np.ndarray:
        if state.points is None and not self.by_point:  # streamed: the class of its generalized values
            cls = self._node_classes().classes_of(codes)
        else:
            cls = self.point_class[state.points_of(self.counted, codes)]
        if self.trim is None:
            return cls
        sizes, trimmed = self.trim
        if state.seen is None:
            state.seen = np.zeros(len(sizes), dtype=np.int64)
        in_class = np.flatnonzero(cls >= 0)
        rank = _ranks(cls[in_class], state.seen)
        c = cls[in_class]
        out = cls.copy()
        out[in_class[rank >= sizes[c] - trimmed[c]]] = -1
        return out

    def class_values(self, n_classes: int) -> dict[str, np.ndarray]:
        enc = self.counted.enc
        classes, first = np.unique(self.point_class, return_index=True)
        point = np.zeros(n_classes, dtype=np.int64)
        keep = (classes >= 0) & (classes < n_classes)
        point[classes[keep]] = first[keep]
        out = {}
        for q, (name, lv) in enumerate(zip(enc.qi, self.levels)):
            h, leaves = enc.hierarchies[q], enc.codes[q][point]
            if lv > 0:
                labels = np.asarray(h.level_codes[lv][1], dtype=object)[enc.level_maps[q][lv][leaves]]
            else:
                labels = np.asarray(h.values, dtype=object)[leaves]
            out[name] = labels
        return out

    def _node_classes(self) -> NodeClasses:
        if self._lookup is None:
            self._lookup = NodeClasses.of(self.counted, self.levels, self.point_class)
        return self._lookup

    def qi_columns(
        self, frame: pd.DataFrame, codes: np.ndarray, row_class: np.ndarray
    ) -> dict[str, pd.Categorical]:
        enc = self.counted.enc
        any_suppressed = bool((row_class < 0).any())
        out = {}
        for q, (name, lv) in enumerate(zip(enc.qi, self.levels)):
            column = qi_column(enc, q, lv, codes[q], frame[name], any_suppressed)
            if column is not None:
                out[name] = column
        return out


@dataclass(eq=False)
class PartitionPlan(ReleasePlan):
    """Classes of records (Mondrian): ``labels[q]`` are the codes (per class) into ``label_text[q]`` of
    every quasi-identifier. Every point is in one class (``point_class``), except the points relaxed
    Mondrian divided: their records go to classes by their rank among the point's records in input
    order, ``fragments`` holding (point, first rank, class) sorted by point then rank."""

    point_class: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    labels: list[np.ndarray] = field(default_factory=list)
    label_text: list[np.ndarray] = field(default_factory=list)
    fragments: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def row_classes(self, codes: np.ndarray, state: BatchState) -> np.ndarray:
        point = state.points_of(self.counted, codes)
        if self.fragments is None:
            return self.point_class[point]
        f_point, f_rank, f_class = self.fragments
        if state.seen is None:
            state.seen = np.zeros(self.counted.enc.n_points, dtype=np.int64)
        rank = _ranks(point, state.seen)
        weights = self.counted.enc.weights
        stride = (int(weights.max()) if weights is not None else 1) + 1
        key = f_point * stride + f_rank
        idx = np.searchsorted(key, point * stride + rank, side="right") - 1
        split = np.zeros(len(point), dtype=bool)
        ok = idx >= 0
        split[ok] = f_point[idx[ok]] == point[ok]
        return np.where(split, f_class[np.maximum(idx, 0)], self.point_class[point])

    def class_values(self, n_classes: int) -> dict[str, np.ndarray]:
        return {
            name: np.asarray(self.label_text[q], dtype=object)[self.labels[q][:n_classes]]
            for q, name in enumerate(self.counted.enc.qi)
        }

    def qi_columns(
        self, frame: pd.DataFrame, codes: np.ndarray, row_class: np.ndarray
    ) -> dict[str, pd.Categorical]:
        cls = np.maximum(row_class, 0)
        return {
            name: batch_categorical(self.labels[q][cls], self.label_text[q])
            for q, name in enumerate(self.counted.enc.qi)
        }


@dataclass(eq=False)
class TreePartitionPlan(PartitionPlan):
    """One box of strict Mondrian cut by the engine, whose rows find their partition through the cut
    tree (:class:`~kanon_engine.sources.plan.key_tree.KeyTree`) instead of their points: no array over the
    points is held (12 bytes a point), only the tree (about 13 bytes a partition and its bounds).
    ``part_class`` is the class of every partition of the box."""

    tree: KeyTree | None = None
    part_class: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    keys: tuple[np.ndarray, ...] = ()  # per quasi-identifier, the key of every leaf code

    def row_classes(self, codes: np.ndarray, state: BatchState) -> np.ndarray:
        keys = np.stack([k[c] for k, c in zip(self.keys, codes)])
        return self.classes_of_keys(keys)

    def classes_of_keys(self, keys: np.ndarray) -> np.ndarray:
        """The class of every row given its keys (quasi-identifiers, rows)."""
        assert self.tree is not None
        part = self.tree.lookup(keys)
        if (part < 0).any():
            raise _table_changed()
        return self.part_class[part]


@dataclass(eq=False)
class BoxedPartitionPlan(PartitionPlan):
    """Mondrian's classes when its first cuts were made by the engine
    (:mod:`kanon_engine.algorithms.mondrian.engine`): a row's box comes from its keys, and the box's own
    plan (its points, the class of each) gives the row's class. Only the boxes' points are held, never
    one array over all of them; the labels are those of the whole release."""

    boxes: Boxes | None = None
    parts: list[PartitionPlan] = field(default_factory=list)

    def suppressed_records(self) -> int:
        return 0  # Mondrian suppresses nothing

    def row_classes(self, codes: np.ndarray, state: BatchState) -> np.ndarray:
        assert self.boxes is not None
        n_qi = len(self.boxes.codings)
        keys = self.boxes.key_columns(codes[:n_qi])
        box = self.boxes.box_of(keys)
        if (box < 0).any():
            raise _table_changed()
        out = np.empty(len(box), dtype=np.int64)
        for b in np.unique(box):
            sel = box == b
            part = self.parts[b]
            if isinstance(part, TreePartitionPlan):
                out[sel] = part.classes_of_keys(keys[:, sel])
            else:
                out[sel] = part.row_classes(codes[:, sel], state.boxes.setdefault(int(b), BatchState()))
        return out


def _ranks(point: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Rank of every row among the rows of its point, in input order across batches (``seen`` counts the
    rows of every point in earlier batches, and is updated)."""
    order = np.argsort(point, kind="stable")
    sp = point[order]
    start = np.flatnonzero(np.concatenate([[True], sp[1:] != sp[:-1]])) if len(sp) else sp
    first = np.repeat(start, np.diff(np.append(start, len(sp))))
    rank = np.empty(len(point), dtype=np.int64)
    rank[order] = np.arange(len(point)) - first + seen[sp]
    np.add.at(seen, point, 1)
    return rank
