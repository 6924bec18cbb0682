"""How fit a release is for a workload: per query the true answer, the estimate, the error, the match.

Figures (the seed's Mondrian paper, section 2.4, measures quality this way):

- **relative error** of a query: ``|estimate - true| / |true|``; where the true answer is 0 the
  **absolute error** ``|estimate|`` is used instead (and the query says so);
- **mean** and **median error** over the workload, each query weighted by its weight (queries with
  no true answer, such as AVG over no record, are left out and counted);
- **match share**: the weighted share of queries the release matches (every released record satisfies
  the query's condition with probability 0 or 1: :mod:`kanon_engine.workload.estimate`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.data.table import Table
from kanon_engine.i18n import _, pgettext
from kanon_engine.workload.constraints import check_columns
from kanon_engine.workload.estimate import ESTIMATOR_NOTE, ReleaseReader
from kanon_engine.workload.exact import exact_answers, table_specs
from kanon_engine.workload.parser import WorkloadError
from kanon_engine.workload.query import RunSettings, Workload


@dataclass(frozen=True)
class QueryFigures:
    """One query's figures. ``error_kind`` is "relative", "absolute" (true answer 0) or None (no answer)."""

    text: str
    line: int
    weight: float
    true: float | None
    estimate: float | None
    error: float | None
    error_kind: str | None
    matches: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.text,
            "line": self.line,
            "weight": self.weight,
            "true": self.true,
            "estimate": self.estimate,
            "error": self.error,
            "error_kind": self.error_kind,
            "matches": self.matches,
        }


def query_error(true: float, estimate: float) -> tuple[float | None, str | None]:
    """Relative error, or absolute where the true answer is 0; (None, None) when either is missing."""
    if math.isnan(true):
        return None, None
    est = 0.0 if math.isnan(estimate) else estimate
    if true == 0:
        return abs(est), "absolute"
    return abs(est - true) / abs(true), "relative"


def weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The smallest value at which the cumulative weight reaches half the total (NaN when empty)."""
    if not len(values):
        return float("nan")
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cum, cum[-1] / 2 - 1e-12)])


@dataclass(frozen=True)
class WorkloadEvaluation:
    """Every figure of one release against one workload."""

    source: str
    queries: tuple[QueryFigures, ...]
    mean_error: float | None
    median_error: float | None
    match_share: float
    answered: int
    suppressed_rows: int = 0
    dropped_rows: int = 0
    unknown_cells: dict[str, int] = field(default_factory=dict)
    estimator: str = ESTIMATOR_NOTE

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "queries_total": len(self.queries),
            "queries_answered": self.answered,
            "mean_error": self.mean_error,
            "median_error": self.median_error,
            "match_share": self.match_share,
            "suppressed_rows_in_release": self.suppressed_rows,
            "dropped_rows": self.dropped_rows,
            "unknown_cells": dict(self.unknown_cells),
            "estimator": self.estimator,
            "queries": [q.to_dict() for q in self.queries],
        }


def _num(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def evaluate_release(
    workload: Workload, table: Table, release: pd.DataFrame, config: RunSettings
) -> WorkloadEvaluation:
    """Figures of ``release`` (a release table of ``table`` made with ``config``) against ``workload``."""
    specs = table_specs(table, workload)
    for q in workload:
        check_columns(q, [str(c) for c in release.columns], pgettext("a column is not in ...", "the release"))
    truth = exact_answers(workload, table, specs)
    reader = ReleaseReader(release, specs, dict(config.hierarchies), config.quasi_identifiers)
    est = reader.estimate_all(workload)
    rows = []
    errors, weights = [], []
    for q, t, e, m in zip(workload, truth, est.values, est.matches):
        err, kind = query_error(float(t), float(e))
        rows.append(
            QueryFigures(q.to_text(with_weight=False), q.line, q.weight, _num(t), _num(e), err, kind, bool(m))
        )
        if err is not None:
            errors.append(err)
            weights.append(q.weight)
    w = np.asarray(weights, dtype=np.float64)
    e = np.asarray(errors, dtype=np.float64)
    all_w = np.array([q.weight for q in workload], dtype=np.float64)
    return WorkloadEvaluation(
        source=workload.source,
        queries=tuple(rows),
        mean_error=float((w * e).sum() / w.sum()) if len(e) else None,
        median_error=weighted_median(e, w) if len(e) else None,
        match_share=float((all_w * est.matches).sum() / all_w.sum()),
        answered=len(e),
        suppressed_rows=est.suppressed_rows,
        dropped_rows=max(0, table.n_rows - len(release)),
        unknown_cells=est.unknown_cells,
    )


def evaluate_result(workload: Workload, table: Table, result: Any) -> WorkloadEvaluation:
    """Figures of a run's release (an :class:`~kanon_engine.result.AnonymizationResult`)."""
    return evaluate_release(workload, table, result.release, result.config)


def with_workload(result: Any, table: Table, workload: Workload) -> Any:
    """The result with its workload figures attached (``result.workload``). A workload that does not
    fit the release (a column removed as an identifier, say) leaves the run as it is, with a note."""
    try:
        evaluation = evaluate_result(workload, table, result)
    except WorkloadError as exc:
        note = _("The workload could not be measured on this release: {reason}", reason=exc)
        return replace(result, notes=(*result.notes, note))
    return replace(result, workload=evaluation)
