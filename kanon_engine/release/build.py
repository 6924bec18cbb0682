"""Turn a transformation into the release table: the one place that decides what a release holds.

Identifier columns never reach a release. Columns the run does not touch keep their original strings
(byte-for-byte). A missing cell stays an empty cell, whichever algorithm ran (:func:`missing_as_empty`).
Suppressed records keep their non-QI columns and show ``*`` in every QI, or are dropped.
Rows keep the input's order unless a shuffle seed is given (a release in input order can leak through
position).

A generalized quasi-identifier is built from integer codes and the level's label table, as a pandas
categorical column (codes + labels): no string is copied per record, a million-row release costs a few
megabytes per column, and the writers (:mod:`kanon_engine.release.writer`) format each label once.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.evaluation import NodeEvaluation
from kanon_engine.core.frequency import FrequencySet, group_columns, match_classes, roll_up
from kanon_engine.core.suppressed_group import trimmed_rows
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.builders import MISSING_LABEL
from kanon_engine.hierarchy.model import MISSING, ROOT


def release_row_order(n_rows: int, suppressed_rows: np.ndarray, config: AnonymizationConfig) -> np.ndarray:
    """The input row of every release row: suppressed rows dropped when asked, then the shuffle applied."""
    rows = np.flatnonzero(~suppressed_rows) if config.drop_suppressed else np.arange(n_rows)
    if config.shuffle_seed is not None:
        rows = rows[np.random.default_rng(config.shuffle_seed).permutation(len(rows))]
    return rows


def missing_as_empty(values: np.ndarray | pd.Series) -> np.ndarray:
    """Released values with the missing-value group as an empty cell (one rule for every algorithm).

    A missing input cell is its own group below the root of every hierarchy (the leaf ``""`` and its
    label ``(missing)``); the release shows that group as an empty cell, as the input had it, so
    ``(missing)`` never appears in a file as if it were a value. The views label it; the root ``*``
    stays ``*`` (there the missing cells are merged with everything else).
    """
    out = np.asarray(values, dtype=object).copy()
    text = pd.Series(out, dtype=object)
    out[(text.isin([MISSING, MISSING_LABEL]) | text.isna()).to_numpy()] = np.nan
    return out


def missing_as_empty_codes(cat: pd.Categorical) -> pd.Categorical:
    """:func:`missing_as_empty` for a categorical column: the missing-value group's codes become missing."""
    missing = np.flatnonzero(pd.Index(cat.categories).isin([MISSING, MISSING_LABEL]))
    if not len(missing):
        return cat
    codes = np.where(np.isin(cat.codes, missing), -1, cat.codes)
    return pd.Categorical.from_codes(codes, cat.categories)


def assemble_release(
    table: Table,
    config: AnonymizationConfig,
    qi_values: dict[str, np.ndarray | pd.Series | pd.Categorical],
    suppressed_rows: np.ndarray,
    extra_columns: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """The release: input columns minus identifiers, QIs replaced by ``qi_values``, suppression applied.

    ``qi_values`` are arrays of released values or categorical columns (kept categorical).
    ``extra_columns`` (e.g. Mondrian's mean summaries) are inserted right after the QI they belong to
    when named ``<qi>_mean``, else appended.
    """
    frame = table.frame
    keep = [c for c in frame.columns if c not in set(config.identifiers)]
    columns: dict[str, pd.Series] = {c: frame[c] for c in keep}
    for name, values in qi_values.items():
        if isinstance(values, pd.Categorical):
            columns[name] = pd.Series(missing_as_empty_codes(values), index=frame.index, copy=False)
        else:
            columns[name] = pd.Series(missing_as_empty(values), index=frame.index, dtype=object)
    if suppressed_rows.any():
        for name in config.quasi_identifiers:
            columns[name] = mask_suppressed(columns[name], suppressed_rows)
    out = pd.DataFrame(columns, index=frame.index, copy=False)
    for name, values in (extra_columns or {}).items():
        vals = pd.Series(values, index=out.index)
        if suppressed_rows.any():
            vals = vals.astype(object)
            vals[suppressed_rows] = ROOT
        base = name[:-5] if name.endswith("_mean") else None
        if base in out.columns:
            out.insert(out.columns.get_loc(base) + 1, name, vals)
        else:
            out[name] = vals
    rows = release_row_order(len(out), suppressed_rows, config)
    if not (len(rows) == len(out) and config.shuffle_seed is None):
        out = out.iloc[rows]
    return out.reset_index(drop=True)


def mask_suppressed(column: pd.Series, suppressed_rows: np.ndarray, mark: str = ROOT) -> pd.Series:
    """``column`` with ``mark`` (``*``) in the suppressed rows; a categorical column stays categorical
    (the mark joins its labels if needed), a pyarrow-backed text column is masked by pyarrow (no Python
    string per row)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        cat = column.array
        labels = list(cat.categories)
        if mark not in labels:
            labels.append(mark)
        codes = np.where(suppressed_rows, labels.index(mark), cat.codes)
        return pd.Series(pd.Categorical.from_codes(codes, labels), index=column.index, copy=False)
    arrow = getattr(column.array, "_pa_array", None)
    if arrow is not None and isinstance(column.dtype, pd.StringDtype):
        masked = pc.if_else(pa.array(suppressed_rows), pa.scalar(mark, arrow.type), arrow)
        return pd.Series(pd.array(masked, dtype=column.dtype), index=column.index, copy=False)
    col = column.astype(object)
    col[suppressed_rows] = mark
    return col


def with_mark(
    frame: pd.DataFrame,
    quasi_identifiers: tuple[str, ...] | list[str],
    suppressed_rows: np.ndarray,
    mark: str,
    suppressed_cells: np.ndarray | None = None,
) -> pd.DataFrame:
    """The release rows ``frame`` (one per input row, in order) with the user's suppression mark in
    place of ``*`` in every suppressed cell: the quasi-identifiers of suppressed rows, and the cells
    of a cell-level release (``suppressed_cells``, rows by quasi-identifiers). Unchanged for ``*``."""
    if mark == ROOT:
        return frame
    out = frame.copy()
    for q, name in enumerate(quasi_identifiers):
        cells = suppressed_rows if suppressed_cells is None else suppressed_rows | suppressed_cells[:, q]
        if name in out.columns and cells.any():
            out[name] = mask_suppressed(out[name], np.asarray(cells, dtype=bool), mark)
    return out


def row_classes(
    enc: EncodedTable, ev: NodeEvaluation, base: FrequencySet | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Class of every record at the evaluated node (ids of ``ev``'s classes) and its suppression mask.

    With the bottom frequency set (which knows the class of every record), the classes are matched once
    per bottom class and each record takes its class by one lookup; otherwise the records are grouped by
    their generalized codes together with the classes' representatives.
    """
    fs = ev.freq
    if base is not None and base.records is not None:
        at_node, class_map = roll_up(base, ev.levels)
        record_class = match_classes(fs, at_node)[class_map][base.records]
    else:
        levels = ev.levels
        rep = fs.leaves()
        sizes = [enc.level_sizes[q][lv] for q, lv in enumerate(levels)]
        cols = [
            np.concatenate([enc.level_maps[q][lv][rep[q]], enc.level_maps[q][lv][enc.codes[q]]])
            for q, lv in enumerate(levels)
        ]
        ids, n_ids = group_columns(cols, sizes)
        class_of_id = np.full(n_ids, -1, dtype=np.int64)
        class_of_id[ids[: fs.n_classes]] = np.arange(fs.n_classes)
        record_class = class_of_id[ids[fs.n_classes :]]
    return record_class, ~ev.passes[record_class]


def qi_column(
    enc: EncodedTable, q: int, level: int, leaves: np.ndarray, original: pd.Series, suppressed_any: bool
) -> pd.Categorical | None:
    """The released column of quasi-identifier ``q`` as codes + the level's labels, from the rows' leaf
    codes; None to keep the original column (level 0 with nothing to suppress, or a missing-value leaf
    that stands for both empty and missing cells of the input)."""
    h = enc.hierarchies[q]
    if level > 0:
        codes, labels = enc.level_maps[q][level][leaves], h.level_codes[level][1]
        return pd.Categorical.from_codes(codes, pd.Index(labels, dtype=object))
    if not suppressed_any:
        return None
    codes = leaves
    missing = h.leaf_index.get_indexer([MISSING])[0]
    if missing >= 0 and (codes == missing).any():
        if bool((original == "").any()):
            return None
        codes = np.where(codes == missing, -1, codes)  # the leaf stood for missing cells: keep them so
    return pd.Categorical.from_codes(codes, pd.Index(h.values, dtype=object))


def full_domain_release(
    table: Table,
    config: AnonymizationConfig,
    enc: EncodedTable,
    ev: NodeEvaluation,
    base: FrequencySet | None = None,
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Release of a full-domain transformation, the class of each record (-1 if suppressed), and the
    sizes of the released classes (renumbered 0..c-1 in the order of the node's classes).

    A quasi-identifier is a categorical column (the codes of its level and the level's labels); a column
    left at level 0 keeps the input's strings.
    """
    record_class, suppressed = row_classes(enc, ev, base)
    if ev.trimmed is not None:  # Datafly's step 4: records taken out of released classes
        suppressed |= trimmed_rows(record_class, ev.trimmed)
    any_suppressed = bool(suppressed.any())
    qi_values: dict[str, pd.Categorical] = {}
    for q, (name, lv) in enumerate(zip(enc.qi, ev.levels)):
        column = qi_column(enc, q, lv, enc.codes[q], table.frame[name], any_suppressed)
        if column is not None:
            qi_values[name] = column
    release = assemble_release(table, config, qi_values, suppressed)
    kept_ids = np.flatnonzero(ev.passes)
    renumber = np.full(ev.freq.n_classes, -1, dtype=np.int64)
    renumber[kept_ids] = np.arange(len(kept_ids))
    out_class = np.where(suppressed, -1, renumber[record_class])
    return release, out_class, ev.released_sizes
