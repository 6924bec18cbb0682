"""Tie an algorithm's decision about points back to the rows: the release of a run.

An algorithm returns a result whose plan gives the class of every point; :func:`finish_result` links the
plan to the points (so it can find a row's point), and, for a table in memory, applies it to every row:
the workbench shows that release, and an export writes it. For a larger-than-memory engine the release
is not built here: an export streams it from the source through the same plan
(:func:`kanon_engine.sources.plan.sink.export_streamed`).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from kanon_engine.release.build import release_row_order
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources.backends.base import TableSource
from kanon_engine.sources.plan.points import Counted
from kanon_engine.sources.plan.release_plan import BatchState


def finish_result(
    source: TableSource, counted: Counted, result: AnonymizationResult, start: float
) -> AnonymizationResult:
    """``result`` with its plan tied to ``counted``, the engine named, and (in memory) the release."""
    if result.plan.counted is not None:  # the chosen node is finer than the points: counted on its own
        counted = result.plan.counted
    plan = dataclasses.replace(result.plan, counted=counted)
    suppressed = plan.suppressed_records()
    release = row_class = None
    if source.in_memory:
        frame = source.frame  # type: ignore[attr-defined]
        codes = source.codes(counted.codings)  # type: ignore[attr-defined]
        release, row_class = plan.apply(frame, BatchState(points=counted.rows), codes)
        rows = release_row_order(len(release), row_class < 0, result.config)
        if not (len(rows) == len(release) and result.config.shuffle_seed is None):
            release = release.iloc[rows].reset_index(drop=True)
        row_class = row_class.astype(np.int64, copy=False)
    return dataclasses.replace(
        result,
        plan=plan,
        release=release,
        row_class=row_class,
        engine=source.engine,
        engine_reason=source.reason,
        n_records=counted.enc.n_rows,
        n_suppressed=suppressed,
        runtime_seconds=time.perf_counter() - start,
    )
