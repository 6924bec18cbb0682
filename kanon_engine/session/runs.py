"""Runs: an algorithm run, the levels of one lattice node applied, a run's workload measured, a project's
saved runs rebuilt, and a run's summary as the project file keeps it. The workbench (in a worker) and the
command line call these; neither holds any of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.algorithms import algorithms, get_algorithm
from kanon_engine.algorithms.base import Algorithm
from kanon_engine.algorithms.full_domain import FullDomainAlgorithm, apply_transformation
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table, TableLike
from kanon_engine.errors import ConfigError, KanonError
from kanon_engine.i18n import _
from kanon_engine.metrics.loss import DEFAULT_METRIC
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.project.project_file import Project
from kanon_engine.project.restore import rebuild_run, saved_run
from kanon_engine.project.validation import TableFacts
from kanon_engine.release.fileio import clean_stale_temp_files
from kanon_engine.report.facts import result_facts
from kanon_engine.result import AnonymizationResult
from kanon_engine.session.engines import is_streamed
from kanon_engine.session.profile import open_project_data
from kanon_engine.sources import InMemorySource, TableSource
from kanon_engine.workload.evaluate import with_workload
from kanon_engine.workload.generate import default_workload
from kanon_engine.workload.query import Workload

#: At most this many saved runs are rebuilt when a project is opened (the latest ones).
RESTORE_RUNS = 5

#: The levels of one lattice node applied by the user (CLI ``apply``, a click in the lattice view).
apply_levels = apply_transformation


def run(
    table: Table | TableSource,
    config: AnonymizationConfig,
    algorithm: Algorithm,
    progress: ProgressCallback = no_progress,
) -> AnonymizationResult:
    """Run ``algorithm`` on ``table`` (loaded, or a source of any engine) with ``config``."""
    return algorithm.run(table, config, progress=progress)


def run_project(
    project: Project, table: Table | TableSource, progress: ProgressCallback = no_progress
) -> AnonymizationResult:
    """Run the project's algorithm with its parameters on ``table`` (validated first by the caller with
    :func:`~kanon_engine.project.validation.require_valid`)."""
    algorithm = get_algorithm(project.algorithm, **project.algorithm_params)
    return run(table, project.config(table), algorithm, progress)


def measure(
    result: AnonymizationResult,
    table: TableLike,
    workload: Workload | None = None,
    progress: ProgressCallback = no_progress,
    count_facts: bool = True,
) -> AnonymizationResult:
    """The run with the figures of its release against ``workload`` (None: the configuration's, else the
    default generated one, :func:`~kanon_engine.workload.generate.default_workload`). A run whose engine
    streamed the rows is returned as it is: the workload is answered on rows held in memory.
    ``count_facts``: the release's facts counted here too, for the workbench that shows them next (the
    command line leaves them out: it states those of the file it writes, counted there)."""
    rows = table.table if isinstance(table, InMemorySource) else table
    if not result.in_memory or not isinstance(rows, Table):
        return result
    progress(1.0, _("measuring the workload"))
    measured = with_workload(result, rows, workload or default_workload(rows, result.config))
    if count_facts:
        result_facts(measured, rows)  # the release's facts counted here, off the window's thread
    return measured


def node_suppression_limit(result: AnonymizationResult, n_rows: int) -> float:
    """The suppression limit a lattice node of ``result`` is applied with: the run's own, else the
    share of records its algorithm suppresses when given none (Datafly's allowance,
    :meth:`~kanon_engine.algorithms.datafly.Datafly.suppression_allowance`; none for the others)."""
    limit = result.parameters.get("suppression_limit")
    if limit is not None:
        return float(limit)
    cls = algorithms().get(result.algorithm)
    if cls is None or not issubclass(cls, FullDomainAlgorithm):
        return 0.0
    known = {p.name for p in cls.params}
    algorithm = cls(**{k: v for k, v in result.parameters.items() if k in known})
    return algorithm.suppression_allowance(n_rows, result.config.k) / max(n_rows, 1)


def apply_node(
    result: AnonymizationResult,
    table: Table | TableSource,
    levels: dict[str, int] | Sequence[int],
    progress: ProgressCallback = no_progress,
) -> AnonymizationResult:
    """Apply one node of ``result``'s lattice (a click in the lattice view) with the run's settings:
    its suppression limit (:func:`node_suppression_limit`), metric, cell or record suppression and
    importance; the lattice of the run is kept for the view."""
    vector = tuple(int(x) for x in (levels.values() if isinstance(levels, dict) else levels))
    progress(0.0, _("applying levels {vector}", vector=vector))
    parameters = result.parameters
    return apply_transformation(
        table,
        result.config,
        vector,
        suppression_limit=node_suppression_limit(result, table.n_rows),
        metric=parameters.get("metric", DEFAULT_METRIC),
        search=result.lattice,
        suppress=parameters.get("suppress", "records"),  # a cell-suppression run applies cells
        importance=parameters.get("importance"),
    )


def rebuild_saved_runs(
    project: Project,
    table: Table | TableSource,
    facts: TableFacts,
    progress: ProgressCallback | None = None,
) -> tuple[list[tuple[AnonymizationResult, dict[str, Any]]], list[str]]:
    """Rebuild the project's latest saved runs that match its settings: the saved transformation
    re-applied, or the partitioning repeated (:func:`kanon_engine.project.restore.rebuild_run`), on the
    table in memory or through the engine of a table source; and why each run made with the project's
    settings was not rebuilt. The configuration is built as the workbench builds it (default hierarchies
    from the value counts)."""
    if not project.columns_with(Role.QUASI_IDENTIFIER) or not project.runs:
        return [], []
    try:
        config = project.with_changes(hierarchies={**facts.defaults, **project.hierarchies}).config(table)
    except KanonError:
        return [], []
    out, reasons = [], []
    summaries = list(project.runs)[-RESTORE_RUNS:]
    for i, summary in enumerate(summaries):
        if progress is not None:
            label = str(summary.get("label") or summary.get("algorithm", ""))
            progress(i / len(summaries), _("rebuilding the saved run {run}", run=label))
        rebuilt, why = rebuild_run(table, config, dict(summary), progress)
        if rebuilt is not None:
            out.append((rebuilt, dict(summary)))
        elif why:
            reasons.append(why)
    return out, reasons


@dataclass(frozen=True)
class LoadedProject:
    """What opening a project computes: its data (a table, or a source not loaded whole, with its first
    rows and the columns only sampled), the warnings of reading it, the facts validation needs, and the
    saved runs rebuilt (with why others made with its settings were not)."""

    table: Table | TableSource
    warnings: list[str]
    facts: TableFacts
    restored: list[tuple[AnonymizationResult, dict[str, Any]]]
    preview: pd.DataFrame | None = None
    sampled: frozenset[str] = frozenset()
    not_restored: tuple[str, ...] = ()


def open_project(project: Project, progress: ProgressCallback = no_progress) -> LoadedProject:
    """Open a project's data and profile it; its saved runs are rebuilt here when the rows are in
    memory (through an engine they take a pass over the file each: the caller rebuilds them afterwards
    with :func:`rebuild_saved_runs`). The temporary files a crash left beside the project file (patient
    data) go first."""
    if project.base_dir is not None:
        clean_stale_temp_files(project.base_dir)
    if project.data_path is None:
        raise ConfigError(_("The project does not name a data file."), where="data")
    opened, warnings = open_project_data(project, progress)
    if is_streamed(opened.table):
        return LoadedProject(opened.table, warnings, opened.facts, [], opened.preview, opened.sampled)
    progress(0.8, _("restoring the saved results"))
    restored, why = rebuild_saved_runs(project, opened.table, opened.facts)
    for result, _summary in restored:
        result_facts(result, opened.table)  # counted here, not in the window's thread
    return LoadedProject(opened.table, warnings, opened.facts, restored, not_restored=tuple(why))


def project_summary(result: AnonymizationResult, label: str) -> dict[str, Any]:
    """A run's summary as the project file keeps it: plain JSON values, its label, and of its workload
    the figures, not every query."""
    summary = jsonable(saved_run(result))  # the summary and the settings it ran with
    summary["label"] = label
    if isinstance(summary.get("workload"), dict):
        summary["workload"].pop("queries", None)
    return summary


def jsonable(value: Any) -> Any:
    """Numbers from numpy and tuples turned into plain JSON types (run summaries go in the project)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
