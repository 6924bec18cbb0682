"""Cell-level releases: every record's quasi-identifiers recoded on their own (the survey's CG, CS and
AG_CS models), behind the same result interface as full-domain and Mondrian releases.

A :class:`~kanon_engine.result.CellRecoding` says, per record and quasi-identifier, the hierarchy level a
value is released at and whether the cell is suppressed (``*``). From it come

- the release (:func:`cell_release`): cells at level 0 keep the input's strings byte for byte, the others
  show their hierarchy label or ``*``;
- the equivalence classes as an attacker sees them (:func:`released_classes`): records with identical
  released strings, ``*`` counted as a value of its own (the *strict* reading). sdcMicro's reading
  treats ``*`` as matching anything (:func:`wildcard_frequencies`); a release that is k-anonymous in the
  strict reading is k-anonymous in the wildcard reading too, not the other way round;
- the information loss (:func:`cell_metrics`): NCP per attribute (Xu et al. 2006: ``(leaves covered - 1)
  / (leaves - 1)``, ``*`` = 1), Sweeney's precision and the non-uniform entropy per cell, DM and C_AVG on
  the released classes, and the suppressed cells per attribute.

Everything is numpy over integer codes: one lookup table per attribute turns (level, leaf) into a label
id, so a million records cost a few array gathers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import group_columns
from kanon_engine.core.lattice import SearchRecord
from kanon_engine.data.table import Table, TableLike, loaded
from kanon_engine.hierarchy.model import ROOT
from kanon_engine.metrics.loss import (
    DomainShares,
    EntropyTables,
    average_class_size,
    discernibility,
    loss_aggregate,
    normalized_loss,
)
from kanon_engine.metrics.partition import hierarchy_ncp
from kanon_engine.release.build import assemble_release
from kanon_engine.result import AnonymizationResult, CellRecoding


class LabelTable:
    """Every label a quasi-identifier can be released as (its hierarchy's labels at every level, and
    ``*``), with one id per distinct string: equal strings get equal ids, so classes built on ids are
    the classes an attacker sees in the file."""

    def __init__(self, enc: EncodedTable) -> None:
        self.ids: list[np.ndarray] = []  # [q] (depth, n_leaves) label id of leaf at level
        self.star: list[int] = []  # [q] id of "*"
        self.labels: list[np.ndarray] = []  # [q] id -> string
        for h in enc.hierarchies:
            flat = np.concatenate([h.matrix.T.ravel(), np.array([ROOT], dtype=object)])
            codes, uniques = pd.factorize(pd.Series(flat, dtype=object), sort=False)
            self.ids.append(codes[:-1].reshape(h.depth, len(h.values)).astype(np.int64))
            self.star.append(int(codes[-1]))
            self.labels.append(np.asarray(uniques, dtype=object))

    def cell_ids(self, enc: EncodedTable, rec: CellRecoding) -> list[np.ndarray]:
        """Label id of every released cell, per quasi-identifier."""
        out = []
        for q in range(enc.n_qi):
            ids = self.ids[q][rec.levels[:, q].astype(np.int64), enc.codes[q]]
            out.append(np.where(rec.suppressed[:, q], self.star[q], ids))
        return out

    def sizes(self) -> list[int]:
        return [len(x) for x in self.labels]


def released_classes(cell_ids: list[np.ndarray], sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Class of every record (records with identical released strings, ``*`` a value of its own) and
    the class sizes; classes are numbered in order of first appearance."""
    ids, n = group_columns(cell_ids, sizes)
    if not len(ids):
        return ids, np.zeros(0, dtype=np.int64)
    first = np.full(n, len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids), dtype=np.int64))
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(n)
    row_class = rank[ids]
    return row_class, np.bincount(row_class, minlength=n).astype(np.int64)


def cell_release(
    table: Table, config: AnonymizationConfig, enc: EncodedTable, rec: CellRecoding, labels: LabelTable
) -> pd.DataFrame:
    """The release: unchanged cells keep the input's own strings, the others their label or ``*``."""
    qi_values: dict[str, np.ndarray] = {}
    for q, name in enumerate(enc.qi):
        changed = (rec.levels[:, q] > 0) | rec.suppressed[:, q]
        if not changed.any():
            continue
        col = table.frame[name].astype(object).to_numpy(copy=True)
        rows = np.flatnonzero(changed)
        ids = labels.ids[q][rec.levels[rows, q].astype(np.int64), enc.codes[q][rows]]
        ids = np.where(rec.suppressed[rows, q], labels.star[q], ids)
        col[rows] = labels.labels[q][ids]
        qi_values[name] = col
    return assemble_release(table, config, qi_values, np.zeros(enc.n_rows, dtype=bool))


def cell_metrics(
    enc: EncodedTable,
    rec: CellRecoding,
    class_sizes: np.ndarray,
    k: int,
    entropy: EntropyTables | None = None,
) -> dict[str, float]:
    """Information loss of a cell-level release (every record kept; ``*`` costs like the root).

    ``loss`` is ARX's Loss (domain shares, ``*`` = 1, attributes combined by the geometric mean);
    ``gcp`` is the average NCP over all quasi-identifier cells, ``ncp:<qi>`` its average per attribute;
    ``precision`` is Sweeney's Prec per cell (level / height, ``*`` = 1); ``entropy`` the non-uniform
    entropy (bits) with ``*`` at the top level; ``suppressed_cells`` (and per attribute) count ``*``.
    """
    n = enc.n_rows
    entropy = entropy or EntropyTables(enc)
    shares = DomainShares(enc)
    ncp_cols, prec_cols, ent_total, losses = [], [], 0.0, []
    for q, h in enumerate(enc.hierarchies):
        lv = rec.levels[:, q].astype(np.int64)
        sup = rec.suppressed[:, q]
        share = np.stack(shares.share[q])[lv, enc.codes[q]]
        losses.append(normalized_loss(float(np.where(sup, 1.0, share).sum()), n, len(h.values)))
        ncp = hierarchy_ncp(h)[enc.codes[q], lv]
        ncp_cols.append(np.where(sup, 1.0, ncp))
        frac = lv / h.height if h.height > 0 else np.zeros(n)
        prec_cols.append(np.where(sup, 1.0, frac))
        cost = np.stack(entropy.cost[q])  # (depth, n_leaves)
        ent = cost[lv, enc.codes[q]]
        ent_total += float(np.where(sup, cost[-1, enc.codes[q]], ent).sum())
    per_qi = np.array([c.mean() if n else 0.0 for c in ncp_cols])
    sizes = np.asarray(class_sizes, dtype=np.int64)
    out = {
        "loss": loss_aggregate(np.array(losses)),
        "discernibility": discernibility(sizes, 0, n),
        "discernibility_star": discernibility(sizes, 0, n),
        "cavg": average_class_size(n, len(sizes), k),
        "gcp": float(per_qi.mean()) if per_qi.size else 0.0,
        "precision": 1.0 - float(np.mean([c.mean() for c in prec_cols])) if n else 1.0,
        "entropy": ent_total,
        "suppressed_cells": float(rec.suppressed_cells),
        "records_touched": float(rec.records_touched),
        "records_generalized": float(rec.records_generalized),
    }
    for name, value, cells in zip(enc.qi, per_qi, rec.suppressed.sum(axis=0)):
        out[f"ncp:{name}"] = float(value)
        out[f"suppressed_cells:{name}"] = float(cells)
    return out


def wildcard_frequencies(cell_ids: list[np.ndarray], star: np.ndarray) -> np.ndarray:
    """Per record, how many records it matches when ``*`` matches any value (sdcMicro's reading of a
    suppressed cell, Templ et al. 2015, J. Stat. Softw. 67(4)): records agree wherever neither has ``*``.

    For every pair of suppression patterns present, the records of both patterns are grouped on the
    attributes neither pattern suppresses: ``sum over pattern pairs`` of one grouping, no loop per row.
    """
    n = len(star)
    d = star.shape[1] if star.ndim == 2 else 0
    if n == 0 or d == 0:
        return np.full(n, n, dtype=np.int64)
    weights = 1 << np.arange(d, dtype=np.int64)
    pattern = star.astype(np.int64) @ weights
    present, inverse = np.unique(pattern, return_inverse=True)
    # the records of each pattern, in input order: one stable sort, not one pass over all records per pattern
    order = np.argsort(inverse, kind="stable")
    members = np.split(order, np.cumsum(np.bincount(inverse, minlength=len(present)))[:-1])
    sizes = [int(max(c.max(initial=0), 0)) + 1 for c in cell_ids]
    freq = np.zeros(n, dtype=np.int64)
    for i, p in enumerate(present):
        rows_p = members[i]
        for j, r in enumerate(present):
            rows_r = members[j]
            keep = [q for q in range(d) if not (int(p) | int(r)) >> q & 1]
            both = np.concatenate([rows_p, rows_r])
            if keep:
                key, n_key = group_columns([cell_ids[q][both] for q in keep], [sizes[q] for q in keep])
            else:
                key, n_key = np.zeros(len(both), dtype=np.int64), 1
            counts = np.bincount(key[len(rows_p) :], minlength=n_key)
            freq[rows_p] += counts[key[: len(rows_p)]]
    return freq


def build_cell_result(
    algorithm: str,
    parameters: dict[str, Any],
    table: TableLike,
    config: AnonymizationConfig,
    enc: EncodedTable,
    rec: CellRecoding,
    start: float,
    nodes_checked: int = 0,
    notes: tuple[str, ...] = (),
    extra_metrics: dict[str, float] | None = None,
    transformation: dict[str, int] | None = None,
    lattice: SearchRecord | None = None,
) -> AnonymizationResult:
    """The :class:`~kanon_engine.result.AnonymizationResult` of a cell-level recoding: release, classes
    as released (strict reading), metrics. Every class is checked against k once more here (a class
    below k is the worst bug there is; never released)."""
    labels = LabelTable(enc)
    ids = labels.cell_ids(enc, rec)
    row_class, sizes = released_classes(ids, labels.sizes())
    if len(sizes) and int(sizes.min()) < config.k:
        raise RuntimeError(f"internal error: a released class has {int(sizes.min())} < k records")
    release = cell_release(loaded(table), config, enc, rec, labels)
    metrics = cell_metrics(enc, rec, sizes, config.k)
    metrics["star_cells"] = float(sum(int((c == star).sum()) for c, star in zip(ids, labels.star)))
    metrics.update(extra_metrics or {})
    return AnonymizationResult.finished(
        algorithm,
        parameters,
        config,
        start,
        release=release,
        row_class=row_class,
        class_sizes=sizes,
        metrics=metrics,
        transformation=transformation,
        nodes_checked=nodes_checked,
        lattice=lattice,
        notes=notes,
        recoding=rec,
    )


def node_ncp(enc: EncodedTable, levels: tuple[int, ...], suppressed_rows: np.ndarray) -> dict[str, float]:
    """NCP of a full-domain release (``gcp`` and ``ncp:<qi>``), suppressed records counting 1 per cell,
    so every model's releases are compared on the same figure."""
    out: dict[str, float] = {}
    per_qi = []
    for q, (name, lv) in enumerate(zip(enc.qi, levels)):
        ncp = hierarchy_ncp(enc.hierarchies[q])[:, int(lv)]
        counts = np.bincount(enc.codes[q][~suppressed_rows], minlength=len(ncp))
        total = float(counts @ ncp) + float(suppressed_rows.sum())
        per_qi.append(total / max(enc.n_rows, 1))
        out[f"ncp:{name}"] = per_qi[-1]
    out["gcp"] = float(np.mean(per_qi)) if per_qi else 0.0
    return out


def wildcard_reading(release: pd.DataFrame, qi: tuple[str, ...] | list[str], k: int) -> dict[str, int]:
    """The release's groups in sdcMicro's reading (``*`` matches any value) beside the strict one:
    the smallest number of records each record matches, and how many records match fewer than k."""
    ids, star = [], []
    for q in qi:
        col = release[q].astype(object)
        codes, _ = pd.factorize(col, use_na_sentinel=False)
        ids.append(codes.astype(np.int64))
        star.append((col == ROOT).to_numpy())
    stars = np.stack(star, axis=1) if star else np.zeros((len(release), 0), dtype=bool)
    freq = wildcard_frequencies(ids, stars)
    strict, sizes = released_classes(ids, [int(c.max(initial=0)) + 1 for c in ids])
    return {
        "smallest_frequency": int(freq.min()) if len(freq) else 0,
        "records_below_k": int((freq < k).sum()),
        "strict_smallest_class": int(sizes.min()) if len(sizes) else 0,
        "strict_records_below_k": int((sizes[strict] < k).sum()) if len(sizes) else 0,
        "records_with_star": int(stars.any(axis=1).sum()),
    }
