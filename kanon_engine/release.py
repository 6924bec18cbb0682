"""Turn a transformation into the release table: the one place that decides what a release holds.

Identifier columns never reach a release. Columns the run does not touch keep their original strings
(byte-for-byte). A missing cell stays an empty cell, whichever algorithm ran (:func:`missing_as_empty`).
Suppressed records keep their non-QI columns and show ``*`` in every QI, or are dropped.
Rows keep the input's order unless a shuffle seed is given (a release in input order can leak through
position).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.encoding import EncodedTable
from kanon_engine.evaluation import NodeEvaluation
from kanon_engine.frequency import group_columns, representatives
from kanon_engine.hierarchy.builders import MISSING_LABEL
from kanon_engine.hierarchy.model import MISSING, ROOT
from kanon_engine.suppressed_group import trimmed_rows


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


def assemble_release(
    table: Table,
    config: AnonymizationConfig,
    qi_values: dict[str, np.ndarray | pd.Series],
    suppressed_rows: np.ndarray,
    extra_columns: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """The release: input columns minus identifiers, QIs replaced by ``qi_values``, suppression applied.

    ``extra_columns`` (e.g. Mondrian's mean summaries) are inserted right after the QI they belong to
    when named ``<qi>_mean``, else appended.
    """
    frame = table.frame
    keep = [c for c in frame.columns if c not in set(config.identifiers)]
    out = frame[keep].copy()
    for name, values in qi_values.items():
        out[name] = pd.Series(missing_as_empty(values), index=out.index, dtype=object)
    if suppressed_rows.any():
        for name in config.quasi_identifiers:
            col = out[name].astype(object)
            col[suppressed_rows] = ROOT
            out[name] = col
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


def row_classes(enc: EncodedTable, ev: NodeEvaluation) -> tuple[np.ndarray, np.ndarray]:
    """Class of every record at the evaluated node (ids of ``ev``'s classes) and its suppression mask.

    The records are matched to the node's classes through their generalized codes: one grouping over
    the class representatives followed by all records.
    """
    levels = ev.levels
    cls = ev.classes
    rep = cls.freq.leaves()[:, representatives(cls.row_class, cls.n_classes)]
    sizes = [enc.level_sizes[q][lv] for q, lv in enumerate(levels)]
    cols = [
        np.concatenate([enc.level_maps[q][lv][rep[q]], enc.level_maps[q][lv][enc.codes[q]]])
        for q, lv in enumerate(levels)
    ]
    ids, n_ids = group_columns(cols, sizes)
    class_of_id = np.full(n_ids, -1, dtype=np.int64)
    class_of_id[ids[: cls.n_classes]] = np.arange(cls.n_classes)
    record_class = class_of_id[ids[cls.n_classes :]]
    suppressed = ~ev.passes[record_class]
    return record_class, suppressed


def full_domain_release(
    table: Table, config: AnonymizationConfig, enc: EncodedTable, ev: NodeEvaluation
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Release of a full-domain transformation, the class of each record (-1 if suppressed), and the
    sizes of the released classes (renumbered 0..c-1 in order of first appearance)."""
    record_class, suppressed = row_classes(enc, ev)
    if ev.trimmed is not None:  # Datafly's step 4: records taken out of released classes
        suppressed |= trimmed_rows(record_class, ev.trimmed)
    qi_values: dict[str, np.ndarray] = {}
    for q, (name, lv) in enumerate(zip(enc.qi, ev.levels)):
        if lv > 0:
            qi_values[name] = enc.hierarchies[q].matrix[enc.codes[q], lv]
    release = assemble_release(table, config, qi_values, suppressed)
    kept_ids = np.flatnonzero(ev.passes)
    renumber = np.full(ev.classes.n_classes, -1, dtype=np.int64)
    renumber[kept_ids] = np.arange(len(kept_ids))
    out_class = np.where(suppressed, -1, renumber[record_class])
    return release, out_class, ev.released_sizes
