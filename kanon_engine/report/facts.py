"""The facts of a release, computed from its rows as they are written: every figure kanon states about a
release (the workbench, the CLI, the HTML and PDF reports) is rendered from here.

Why a second count beside the algorithm's own: an algorithm keeps bookkeeping (the cells *it* suppressed,
the classes *it* formed), and what a reader of the file sees can differ from it: a value generalized to
the root of its hierarchy reads ``*`` although no cell was "suppressed"; an export can drop, mask or
shuffle rows the run did not; a '*' may already be in the data. An ethics board judges the file, so the
figures are those of the file: its text as the release writer writes it
(:func:`kanon_engine.release.writer.coded_column`), counted here once.

Definitions (one everywhere):

- a **suppressed record** is a row whose every quasi-identifier reads ``*``, or a record dropped from the
  file. It belongs to no group, whatever put its ``*`` there (Sweeney's suppression; a record generalized
  to the top of every hierarchy cannot be told apart from one, so it is counted the same way);
- a **group** (equivalence class) is the set of the other rows that show the same quasi-identifier text,
  ``*`` being a value of its own and an empty cell too (the strict reading in which kanon checks k);
- a **``*`` cell** is any quasi-identifier cell reading ``*``; its cause (record suppressed, single value
  suppressed, generalized to the top of the hierarchy, already ``*`` in the data) is told apart only
  where the original rows are at hand;
- for a sensitive attribute, **min_distinct** is the fewest different values in a group (distinct
  l-diversity, Machanavajjhala et al. 2007) and **max_share** the largest share one value holds in a
  group (the attacker's best guess of it; recursive (c,l)-diversity and beta-likeness bound it), 4
  decimals.

:class:`FactsTally` is fed the written rows a batch at a time (the streamed writer of DuckDB and Dask,
:mod:`kanon_engine.sources.plan.sink`), :func:`release_facts` is the same on one frame (a release written
from memory), :func:`original_facts` the same computation on the input data, :func:`result_facts` the
facts of a run's release before it is exported (cached per run). Everything is integer codes and
``numpy.bincount``; no loop per row.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from kanon_engine.core.frequency import group_columns, representatives
from kanon_engine.data.table import loaded
from kanon_engine.hierarchy.model import ROOT
from kanon_engine.metrics.risk import DEFAULT_THRESHOLD, release_class_sizes, risk_figures
from kanon_engine.release.writer import CodedColumn, coded_column

#: Where the facts were counted: the rows written to a file, the run's release held in memory, or (a
#: streamed run not exported yet) the counts of the run.
SOURCES = ("written", "memory", "counts")
#: The causes a ``*`` cell can have (``star_cells_by_cause``).
CAUSES = ("record_suppressed", "value_suppressed", "top_of_hierarchy", "in_data")
#: Pending batch tables merged once they hold this many more rows than the last merged table.
_MERGE_ROWS = 1 << 18


class _Labels:
    """The global ids of one column's texts across batches (a missing cell: id 0)."""

    def __init__(self) -> None:
        self.index = pd.Index([None], dtype=object)

    def ids(self, labels: list[Any]) -> np.ndarray:
        """Global id of each batch label (new ones appended)."""
        local = pd.Index(labels, dtype=object)
        new = local[~local.isin(self.index)].unique()
        if len(new):
            self.index = self.index.append(new)
        return self.index.get_indexer(local).astype(np.int64)

    def text(self, ids: np.ndarray) -> np.ndarray:
        return np.asarray(self.index, dtype=object)[ids]

    def __len__(self) -> int:
        return len(self.index)


@dataclass
class _Pairs:
    """Counts of distinct key rows (global ids), merged lazily: ``keys`` (m x d) and ``counts`` (m)."""

    width: int
    parts: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    merged_rows: int = 0

    def add(self, keys: np.ndarray, counts: np.ndarray, sizes: list[int]) -> None:
        """One batch's distinct key rows and their counts."""
        self.parts.append((keys, np.asarray(counts, dtype=np.int64)))
        pending = sum(len(k) for k, _c in self.parts)
        if len(self.parts) > 1 and pending > 2 * self.merged_rows + _MERGE_ROWS:
            self.merge(sizes)

    def merge(self, sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The distinct key rows with their summed counts (and the parts replaced by them)."""
        if not self.parts:
            return np.zeros((0, self.width), dtype=np.int64), np.zeros(0, dtype=np.int64)
        keys = np.concatenate([k for k, _c in self.parts])
        counts = np.concatenate([c for _k, c in self.parts])
        if len(self.parts) > 1:
            keys, counts = _distinct_rows(keys, counts, sizes)
        self.parts = [(keys, counts)]
        self.merged_rows = len(keys)
        return keys, counts


def _distinct_rows(keys: np.ndarray, counts: np.ndarray, sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``keys`` made distinct, their ``counts`` summed."""
    if not len(keys):
        return keys, counts
    ids, n = group_columns([keys[:, j] for j in range(keys.shape[1])], sizes)
    total = np.bincount(ids, weights=counts, minlength=n).astype(np.int64)
    first = np.full(n, -1, dtype=np.int64)
    first[ids[::-1]] = np.arange(len(ids) - 1, -1, -1)
    return keys[first], total


def _text_codes(column: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """Per row a code into the column's distinct texts as the release writer writes them (a missing
    cell: -1), and those texts."""
    return _listed(coded_column(column.name, column))


def _listed(coded: CodedColumn) -> tuple[np.ndarray, list[Any]]:
    return np.asarray(coded.codes, dtype=np.int64), coded.labels.to_pylist()


def _text_ids(coded: CodedColumn, texts: pa.Array) -> np.ndarray:
    """Per row of a coded column: the position of its text in ``texts`` (a missing cell: -1)."""
    where = pc.index_in(coded.labels, value_set=texts).to_numpy(zero_copy_only=False)
    return np.append(np.asarray(where, dtype=np.int64), -1)[coded.codes]


def _reads(coded: CodedColumn, text: str | None) -> np.ndarray:
    """Per row of a coded column: it reads ``text`` (a missing cell never does)."""
    if text is None:
        return np.zeros(len(coded.codes), dtype=bool)
    equal = pc.equal(coded.labels, pa.scalar(text, coded.labels.type)).to_numpy(zero_copy_only=False)
    return np.append(np.asarray(equal, dtype=bool), False)[coded.codes]


def _same_text(a: CodedColumn, b: CodedColumn) -> np.ndarray:
    """Per row: the two columns read the same (missing equals missing). Compared by integer codes: each
    side's distinct texts are looked up once in the texts of both, so two labels that read alike (``1``
    and ``"1"``) compare equal, as their written text does."""
    texts = pc.unique(pa.concat_arrays([a.labels, b.labels]))
    return _text_ids(a, texts) == _text_ids(b, texts)


class FactsTally:
    """The facts of a release, fed its rows a batch at a time as they are written.

    ``add`` takes every written batch (its columns as written; ``original``: the same records' input rows,
    aligned, to tell changed values and the causes of ``*``; ``value_suppressed``: per cell, whether the
    algorithm replaced it by ``*``); ``add_order`` the position every written row has in the unshuffled
    release (never called: the rows are written in input order). ``facts`` gives the JSON-able dict. A
    small object on its own, so the streamed writer feeds it beside its other tallies.
    """

    def __init__(
        self,
        qi: Sequence[str],
        sensitive: Sequence[str] = (),
        *,
        input_records: int | None = None,
        mark: str | None = ROOT,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> None:
        self.qi, self.sensitive = tuple(qi), tuple(s for s in sensitive if s not in qi)
        self.input_records, self.mark, self.threshold = input_records, mark, threshold
        self.rows = self.all_star = self.with_star = self.generalized_rows = 0
        self.star = dict.fromkeys(self.qi, 0)
        self.changed = dict.fromkeys(self.qi, 0)
        self.examples: dict[str, dict[Any, int]] = {q: {} for q in self.qi}
        self.causes = dict.fromkeys(CAUSES, 0)
        self.compared = True  # every batch came with its original rows
        self.labels = {c: _Labels() for c in (*self.qi, *self.sensitive)}
        self.classes = _Pairs(len(self.qi))
        self.values = {s: _Pairs(len(self.qi) + 1) for s in self.sensitive}
        self.order_seen = self.in_place = 0
        self.shuffled = False

    # --- feeding -----------------------------------------------------------------------------------
    def add(
        self, frame: pd.DataFrame, original: pd.DataFrame | None = None, value_suppressed: Any = None
    ) -> None:
        """Count one batch of written rows (see the class docstring)."""
        n = len(frame)
        self.rows += n
        if not n:
            return
        coded = [coded_column(q, frame[q]) for q in self.qi]
        ids, stars = self._coded(coded)
        every = np.logical_and.reduce(stars) if stars else np.zeros(n, dtype=bool)
        for q, star in zip(self.qi, stars):
            self.star[q] += int(star.sum())
        self.with_star += int(np.logical_or.reduce(stars).sum()) if stars else 0
        self.all_star += int(every.sum())
        if original is not None:
            self._compare(frame, coded, original, stars, every, value_suppressed)
        else:
            self.compared = False
        self._add_classes(frame, ids, ~every)

    def _coded(self, coded: list[CodedColumn]) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per quasi-identifier (``coded``: its column as written): the global id of every row's text, and
        whether it is the mark."""
        ids, stars = [], []
        for q, column in zip(self.qi, coded):
            codes, labels = _listed(column)
            codes = np.where(codes < 0, len(labels), codes)  # the last code: a missing cell
            ids.append(np.append(self.labels[q].ids(labels), 0)[codes])
            stars.append(np.append(np.asarray([x == self.mark for x in labels], dtype=bool), False)[codes])
        return ids, stars

    def _compare(
        self,
        frame: pd.DataFrame,
        coded: list[CodedColumn],
        original: pd.DataFrame,
        stars: list[np.ndarray],
        every: np.ndarray,
        value_suppressed: Any,
    ) -> None:
        """Values changed (not ``*``) per attribute, records generalized, and the cause of every ``*``
        (``coded``: the written quasi-identifiers of ``frame``; ``original``: its records' input rows)."""
        n = len(every)
        generalized = np.zeros(n, dtype=bool)
        vs = None if value_suppressed is None else np.asarray(value_suppressed, dtype=bool).reshape(n, -1)
        for j, q in enumerate(self.qi):
            orig = coded_column(q, original[q].reset_index(drop=True))
            same = _same_text(coded[j], orig)
            in_data = stars[j] & _reads(orig, self.mark)  # a mark already in the input
            changed = ~same & ~stars[j]
            generalized |= changed
            self.changed[q] += int(changed.sum())
            self._examples(q, coded[j], changed, isinstance(frame[q].dtype, pd.CategoricalDtype))
            rest = stars[j] & ~in_data
            by_record = rest & every
            by_value = rest & ~every & (vs[:, j] if vs is not None else False)
            self.causes["in_data"] += int(in_data.sum())
            self.causes["record_suppressed"] += int(by_record.sum())
            self.causes["value_suppressed"] += int(by_value.sum())
            self.causes["top_of_hierarchy"] += int((rest & ~by_record & ~by_value).sum())
        self.generalized_rows += int(generalized.sum())

    def _examples(self, q: str, column: CodedColumn, changed: np.ndarray, categorical: bool) -> None:
        """The most frequent released labels that replaced a value (to show what a group looks like); of
        labels as frequent, a categorical column's first label first, else the first one met."""
        codes = column.codes[changed]
        codes = codes[codes >= 0]
        if not len(codes):
            return
        counts = np.bincount(codes, minlength=len(column.labels))
        rank = np.arange(len(counts))
        if not categorical:
            rank = np.full(len(counts), len(codes))
            rank[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
        seen = self.examples[q]
        for i in np.lexsort((rank, -counts))[:20]:
            if counts[i]:
                label = column.labels[int(i)].as_py()
                seen[label] = seen.get(label, 0) + int(counts[i])

    def _add_classes(self, frame: pd.DataFrame, ids: list[np.ndarray], kept: np.ndarray) -> None:
        """The batch's groups (its rows not suppressed) with their records, and per sensitive attribute
        its (group, value) pairs with theirs: one grouping of integer ids each, kept as distinct rows."""
        rows = None if kept.all() else np.flatnonzero(kept)
        cols = [c if rows is None else c[rows] for c in ids]
        m = len(frame) if rows is None else len(rows)
        sizes = [len(self.labels[q]) for q in self.qi]
        cls, n_cls = group_columns(cols, sizes) if cols else (np.zeros(m, dtype=np.int64), int(m > 0))
        rep = representatives(cls, n_cls)
        keys = np.column_stack([c[rep] for c in cols]) if cols else np.zeros((n_cls, 0), dtype=np.int64)
        self.classes.add(keys, np.bincount(cls, minlength=n_cls), sizes)
        for s in self.sensitive:
            codes, labels = _text_codes(frame[s])
            vals = np.append(self.labels[s].ids(labels), 0)[np.where(codes < 0, len(labels), codes)]
            vals = vals if rows is None else vals[rows]
            pair, n_pair = group_columns([cls, vals], [max(n_cls, 1), len(self.labels[s])])
            first = representatives(pair, n_pair)
            pair_keys = np.column_stack([keys[cls[first]], vals[first]])
            self.values[s].add(pair_keys, np.bincount(pair, minlength=n_pair), [*sizes, len(self.labels[s])])

    def add_order(self, positions: np.ndarray) -> None:
        """The position in the unshuffled release of each next written row."""
        positions = np.asarray(positions, dtype=np.int64)
        expected = np.arange(self.order_seen, self.order_seen + len(positions), dtype=np.int64)
        in_place = positions == expected
        self.in_place += int(in_place.sum())
        self.shuffled = self.shuffled or not bool(in_place.all())
        self.order_seen += len(positions)

    # --- the facts ---------------------------------------------------------------------------------
    def class_sizes(self) -> np.ndarray:
        """Size of every group (suppressed rows in none)."""
        _keys, counts = self.classes.merge([len(self.labels[q]) for q in self.qi])
        return np.asarray(counts, dtype=np.int64)

    def facts(self, source: str = "written") -> dict[str, Any]:
        """The facts as a JSON-able dict: ``release`` and ``sensitive`` (see the module docstring)."""
        sizes = self.class_sizes()
        return {
            "source": source,
            "release": self._release(sizes),
            "sensitive": {s: self._sensitive(s) for s in self.sensitive},
        }

    def _release(self, sizes: np.ndarray) -> dict[str, Any]:
        dropped = max(int(self.input_records) - self.rows, 0) if self.input_records is not None else 0
        out: dict[str, Any] = {
            "records": self.rows,
            "records_dropped": dropped,
            "records_suppressed": self.all_star + dropped,
            "records_all_star": self.all_star,
            "records_in_groups": int(sizes.sum()),
            "star_cells": int(sum(self.star.values())),
            "star_cells_per_attribute": dict(self.star),
            "records_with_star": self.with_star,
            "kept_star_cells": int(sum(self.star.values())) - self.all_star * len(self.qi),
            "kept_star_cells_per_attribute": {q: n - self.all_star for q, n in self.star.items()},
            "kept_records_with_star": self.with_star - self.all_star,
            **size_facts(sizes),
            "shares": self._shares(sizes, dropped),
            "row_order": "shuffled" if self.shuffled else "input",
            "rows_in_place": self.in_place if self.order_seen else self.rows,
            "risk": _risk(sizes, self.all_star + dropped, self.threshold),
        }
        if self.compared and self.rows:
            out["records_generalized"] = self.generalized_rows
            out["star_cells_by_cause"] = dict(self.causes)
            out["attributes"] = {q: self._attribute(q) for q in self.qi}
        return out

    def _shares(self, sizes: np.ndarray, dropped: int) -> dict[str, Any]:
        """The shares the words state: of the input's records suppressed, and of the cells (in all and
        per attribute, among the records not suppressed) that show ``*``."""
        records = self.rows + dropped
        kept = self.rows - self.all_star
        kept_cells = sum(self.star.values()) - self.all_star * len(self.qi)
        out = {
            "records_suppressed": _share(self.all_star + dropped, records),
            "records_dropped": _share(dropped, records),
            "records_all_star": _share(self.all_star, records),
            "star_cells": _share(kept_cells, kept * len(self.qi)),
            "star_per_attribute": {q: _share(self.star[q] - self.all_star, kept) for q in self.qi},
        }
        if self.compared:
            changed = {q: self.star[q] - self.all_star + self.changed[q] for q in self.qi}
            out["changed_per_attribute"] = {q: _share(n, kept) for q, n in changed.items()}
        return out

    def _attribute(self, q: str) -> dict[str, Any]:
        seen = self.examples[q]
        example = max(seen, key=lambda k: seen[k]) if seen else None
        star, changed = self.star[q], self.changed[q]
        return {
            "star": star,
            "generalized": changed,
            "unchanged": self.rows - star - changed,
            "example": None if example is None else str(example),
        }

    def _sensitive(self, s: str) -> dict[str, Any]:
        sizes = [*(len(self.labels[q]) for q in self.qi), len(self.labels[s])]
        keys, counts = self.values[s].merge(sizes)
        return sensitive_facts(keys[:, :-1], counts, sizes[:-1])


def _share(part: int, whole: int) -> float:
    """``part / whole`` to 6 decimals (0 for nothing)."""
    return round(part / whole, 6) if whole else 0.0


def size_facts(sizes: np.ndarray) -> dict[str, Any]:
    """Groups, smallest and largest group, and the histogram ``[[size, groups], ...]`` of their sizes."""
    sizes = np.asarray(sizes, dtype=np.int64)
    values, counts = np.unique(sizes, return_counts=True)
    return {
        "classes": int(len(sizes)),
        "min_class_size": int(sizes.min()) if len(sizes) else 0,
        "max_class_size": int(sizes.max()) if len(sizes) else 0,
        "class_sizes": [[int(v), int(c)] for v, c in zip(values, counts)],
    }


def sensitive_facts(class_keys: np.ndarray, counts: np.ndarray, sizes: list[int]) -> dict[str, Any]:
    """min_distinct, max_share (4 decimals), and the groups holding one value only, from the distinct
    (group, value) rows and their records."""
    if not len(counts):
        return {"min_distinct": None, "max_share": None, "homogeneous_classes": 0, "homogeneous_records": 0}
    cls, n = group_columns([class_keys[:, j] for j in range(class_keys.shape[1])], sizes)
    if not class_keys.shape[1]:
        cls, n = np.zeros(len(counts), dtype=np.int64), 1
    size = np.bincount(cls, weights=counts, minlength=n)
    distinct = np.bincount(cls, minlength=n)
    order = np.lexsort((counts, cls))
    last = np.r_[cls[order][1:] != cls[order][:-1], True]
    top = np.zeros(n)
    top[cls[order][last]] = counts[order][last]
    homogeneous = distinct == 1
    return {
        "min_distinct": int(distinct.min()),
        "max_share": round(float((top / size).max()), 4),
        "homogeneous_classes": int(homogeneous.sum()),
        "homogeneous_records": int(size[homogeneous].sum()),
    }


def _risk(sizes: np.ndarray, suppressed: int, threshold: float) -> dict[str, Any]:
    """The prosecutor figures of the groups (El Emam & Dankar 2008; the population is the table)."""
    fig = risk_figures(sizes, suppressed, threshold).to_dict()
    keep = (
        "prosecutor_highest",
        "prosecutor_average",
        "threshold",
        "records_above_threshold",
        "share_above_threshold",
        "sample_uniques",
        "share_sample_uniques",
    )
    return {k: fig[k] for k in keep}


def order_positions(input_rows: np.ndarray) -> np.ndarray:
    """The position each written row has in the unshuffled release, from the input row of every written
    row (the unshuffled release is the same rows in input order)."""
    rows = np.asarray(input_rows, dtype=np.int64)
    ranks = np.empty(len(rows), dtype=np.int64)
    ranks[np.argsort(rows, kind="stable")] = np.arange(len(rows), dtype=np.int64)
    return ranks


def release_facts(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] = (),
    *,
    input_records: int | None = None,
    input_rows: np.ndarray | None = None,
    original: pd.DataFrame | None = None,
    value_suppressed: Any = None,
    mark: str | None = ROOT,
    source: str = "written",
    threshold: float = DEFAULT_THRESHOLD,
) -> dict[str, Any]:
    """The facts of the release ``frame`` (its rows as written, in the written order). ``input_rows``:
    the input row of every written row (for the row order); ``original``: the input rows aligned with
    ``frame`` (for the changed values and the causes of ``*``); ``input_records``: the records of the
    input (rows missing from ``frame`` were dropped)."""
    tally = FactsTally(qi, sensitive, input_records=input_records, mark=mark, threshold=threshold)
    tally.add(frame.reset_index(drop=True), original, value_suppressed)
    if input_rows is not None:
        tally.add_order(order_positions(input_rows))
    return tally.facts(source)


def original_facts(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] = (),
    threshold: float = DEFAULT_THRESHOLD,
) -> dict[str, Any]:
    """The same computation on the input data (every record in a group: no value there is a suppression
    mark): records, groups and their sizes, the risk, and the sensitive attributes."""
    facts = release_facts(frame, qi, sensitive, mark=None, source="original", threshold=threshold)
    rel = facts["release"]
    keep = ("records", "classes", "min_class_size", "max_class_size", "class_sizes", "risk")
    return {**{k: rel[k] for k in keep}, "sensitive": facts["sensitive"]}


# --- a run's release ----------------------------------------------------------------------------------
_PerObject = weakref.WeakKeyDictionary[Any, dict[Any, Any]]


@dataclass
class _Counted:
    """One run's facts: ``alone`` counted without a table, ``per_table`` with each table given."""

    alone: dict[str, Any] | None = None
    per_table: _PerObject = field(default_factory=weakref.WeakKeyDictionary)


#: Facts counted once per object: a run's release facts per table (``None``: counted without one), and
#: the original data's per table and attribute roles. Keyed by the objects themselves (weakly, so a freed
#: run or table takes its facts with it), never by ``id()``: a new table landing on a freed one's id must
#: not be given the old one's facts.
_RESULTS: weakref.WeakKeyDictionary[Any, _Counted] = weakref.WeakKeyDictionary()
_ORIGINALS: _PerObject = weakref.WeakKeyDictionary()


def _cached(cache: weakref.WeakKeyDictionary[Any, Any], key: Any, empty: Any) -> Any:
    """``cache``'s entry for ``key`` (``empty`` stored first when there is none); ``empty`` itself, not
    kept, when ``key`` cannot be weakly referred to."""
    try:
        return cache.setdefault(key, empty)
    except TypeError:
        return empty


def result_facts(result: Any, table: Any | None = None) -> dict[str, Any]:
    """The facts of a run's release as the run holds it (before an export chooses otherwise), compared
    with the input rows and with the facts of the original data (``original``) when ``table`` is given;
    computed once per run and table. A streamed run holds no rows: its facts come from its counts
    (:func:`counted_facts`) until it is exported."""
    counted: _Counted = _cached(_RESULTS, result, _Counted())
    if table is None:
        if counted.alone is None:  # counted with a table already: the same release facts, and more
            known = next(iter(counted.per_table.values()), None)
            counted.alone = known if known is not None else _compute_result_facts(result, None)
        return counted.alone
    facts = _cached(counted.per_table, table, {})
    if not facts:
        facts.update(_compute_result_facts(result, table))
    return facts


def _compute_result_facts(result: Any, table: Any | None) -> dict[str, Any]:
    if not getattr(result, "in_memory", True):
        return counted_facts(result)
    facts = _run_facts(table, result, result.release, result.release_rows, "memory")
    if table is not None:
        facts["original"] = table_facts(table, result.config)
    return facts


def table_facts(table: Any, config: Any) -> dict[str, Any]:
    """:func:`original_facts` of a table in memory (or of the loaded table a source holds) under a
    configuration's attribute roles, counted once per table and roles."""
    qi, sensitive = tuple(config.quasi_identifiers), tuple(config.sensitive)
    table = loaded(table)
    per_roles = _cached(_ORIGINALS, table, {})
    if (qi, sensitive) not in per_roles:
        per_roles[(qi, sensitive)] = original_facts(table.frame, qi, sensitive)
    return per_roles[(qi, sensitive)]


def written_facts(
    table: Any, result: Any, frame: pd.DataFrame, input_rows: np.ndarray, mark: str = ROOT
) -> dict[str, Any]:
    """The facts of a release written from memory: ``frame`` is exactly what was written (before its
    formula-like cells got their apostrophe, which changes no group), ``input_rows`` the input record of
    each of its rows, ``mark`` the text its suppressed cells show."""
    return _run_facts(table, result, frame, input_rows, "written", mark)


def _run_facts(
    table: Any | None,
    result: Any,
    frame: pd.DataFrame,
    rows: np.ndarray,
    source: str,
    mark: str = ROOT,
) -> dict[str, Any]:
    """The facts of the rows ``frame`` of a run's release (``rows``: their input records), compared with
    the input rows when ``table`` holds them."""
    cfg = result.config
    rows = np.asarray(rows, dtype=np.int64)
    original = None
    if table is not None and len(getattr(table, "frame", ())) == result.records:
        original = table.frame.iloc[rows][list(cfg.quasi_identifiers)].reset_index(drop=True)
    rec = getattr(result, "recoding", None)
    facts = release_facts(
        frame,
        cfg.quasi_identifiers,
        cfg.sensitive,
        input_records=result.records,
        input_rows=rows,
        original=original,
        value_suppressed=rec.suppressed[rows] if rec is not None and original is not None else None,
        source=source,
        mark=mark,
    )
    dp = getattr(result, "differential_privacy", None)
    if dp is not None:
        split_sampling(facts["release"], dp)
    return facts


def sample_released(release: Mapping[str, Any], k: int) -> int:
    """The records a differentially private release holds, from its facts (``release``): its rows but
    those reading ``*`` in every quasi-identifier, unless every row does and they are at least ``k``: then
    the generalization drawn is the top one, whose one group (the whole sample) is released, not removed
    (SafePub drops the records it removes; it never writes them as ``*``)."""
    written, all_star = int(release["records"]), int(release.get("records_all_star", 0))
    at_top = written > 0 and all_star == written and written >= k
    return written if at_top else written - all_star


def split_sampling(release: dict[str, Any], block: Mapping[str, Any]) -> None:
    """In a differentially private release's facts (``release``: counted from its rows), tell the records
    the sampling left out (``records_left_out_by_sampling``) apart from the suppressed ones: both are
    missing from the file, but only the latter were removed in groups smaller than k."""
    given = int(release["records"]) + int(release["records_dropped"])
    left_out = given - int(block["records_sampled"])
    release["records_left_out_by_sampling"] = left_out
    release["records_suppressed"] = int(block["records_sampled"]) - sample_released(release, int(block["k"]))
    shares = release.setdefault("shares", {})
    shares["records_left_out_by_sampling"] = _share(left_out, given)
    shares["records_suppressed"] = _share(release["records_suppressed"], given)


def counted_facts(result: Any) -> dict[str, Any]:
    """What a streamed run's counts tell before its rows are written: the groups and the suppressed
    records (a group released as ``*`` everywhere counted as suppressed, as in the rows); nothing about
    single cells or the sensitive attributes, which only the rows tell."""

    sizes, suppressed = release_class_sizes(result)
    cfg = result.config
    dropped = int(result.suppressed) if cfg.drop_suppressed else 0
    all_star = suppressed - dropped
    return {
        "source": "counts",
        "release": {
            "records": result.records - dropped,
            "records_dropped": dropped,
            "records_suppressed": suppressed,
            "records_all_star": all_star,
            "records_in_groups": int(sizes.sum()),
            **size_facts(sizes),
            "row_order": "shuffled" if cfg.shuffle_seed is not None else "input",
            "shares": {"records_suppressed": _share(suppressed, result.records)},
            "risk": _risk(sizes, suppressed, DEFAULT_THRESHOLD),
        },
        "sensitive": {},
    }


def fact(facts: Mapping[str, Any], path: str, default: Any = None) -> Any:
    """``fact(facts, "release.records")``: one fact by its dotted name (``default`` when absent)."""
    node: Any = facts
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return default
        node = node[part]
    return node


def report_facts(table: Any, result: Any, written: Any = None) -> dict[str, Any]:
    """The facts a report states: those of the written release (``written``: its
    :class:`~kanon_engine.release.export.ExportSummary` or its dict) when there is one, else those of the
    run's release; with the original data's (``original``) when the table is in memory."""
    facts = getattr(written, "facts", None) if not isinstance(written, Mapping) else written.get("facts")
    in_memory = getattr(table, "frame", None) is not None
    if facts is None:
        facts = result_facts(result, table if in_memory else None)
    facts = dict(facts)
    if "original" not in facts and in_memory:
        facts["original"] = table_facts(table, result.config)
    return facts


def kept_star_cells(facts: Mapping[str, Any]) -> tuple[int, int]:
    """``*`` cells in the records that are not suppressed, and those records: the values a kept record
    shows as ``*`` (a suppressed record's are all ``*``)."""
    rel = facts["release"]
    if "kept_star_cells" not in rel:
        return 0, 0
    return int(rel["kept_star_cells"]), int(rel["kept_records_with_star"])


#: The algorithm's own counts of ``*`` and touched records (its bookkeeping): never shown as figures of
#: the release, whose counts are the facts above (a value generalized to a root that reads ``*`` is
#: one of the release's ``*`` but none of the algorithm's suppressed cells).
BOOKKEEPING_METRICS = ("suppressed_cells", "star_cells", "records_touched", "records_generalized")


def quality_metrics(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """The quality metrics to show beside the facts: the run's metrics without its bookkeeping counts."""
    return {
        key: value
        for key, value in metrics.items()
        if key not in BOOKKEEPING_METRICS and key.partition(":")[0] != "suppressed_cells"
    }
