"""Bring back a saved run's result when a project is reopened, without searching again.

A project file keeps a summary of every run (:meth:`AnonymizationResult.summary`): the algorithm, its
parameters, the transformation a full-domain search chose, the counts, and the fingerprint of the
configuration it ran with (:meth:`AnonymizationConfig.fingerprint`). Reopening the project re-applies
that transformation (one node check, a fraction of a second) or, for Mondrian, repeats the partitioning
(deterministic, well under a second for 100,000 records), then checks the result against the summary's
counts. A run whose configuration or data no longer match is not restored: a release is never shown
under settings other than the ones that made it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.errors import KanonError
from kanon_engine.i18n import N_, _
from kanon_engine.result import AnonymizationResult


def can_restore(summary: dict[str, Any], config: AnonymizationConfig, table: Table) -> bool:
    """Whether ``summary`` was made with exactly this configuration on a table of this size."""
    return (
        summary.get("config_fingerprint") == config.fingerprint()
        and int(summary.get("records", -1)) == table.n_rows
    )


def restore_run(
    table: Table, config: AnonymizationConfig, summary: dict[str, Any]
) -> AnonymizationResult | None:
    """The result a saved run summary describes, rebuilt on ``table``; None when it cannot be rebuilt
    exactly (another configuration, other data, or counts that differ)."""
    return rebuild_run(table, config, summary)[0]


#: Why a saved run made with the project's settings was not rebuilt (its figures came out otherwise).
OTHER_FIGURES = N_(
    "Rebuilt, its groups or suppressed records came out different from the saved ones: the data changed."
)


def rebuild_run(
    table: Table | Any, config: AnonymizationConfig, summary: dict[str, Any], progress: Any = None
) -> tuple[AnonymizationResult | None, str]:
    """:func:`restore_run`, and why a run made with these settings was not rebuilt ("" when it was, or
    when it was made with other settings: such a run is never shown again). ``table`` may be a table
    source (DuckDB, Dask): the run is then rebuilt through the engine."""
    if not can_restore(summary, config, table):
        return None, ""
    try:
        result = _rebuild(table, config, summary, progress)
    except KanonError as exc:
        return None, str(exc)
    if result is None:
        return None, ""
    same = result.suppressed == int(summary.get("suppressed", -1)) and result.n_classes == int(
        summary.get("classes", -1)
    )
    if not same:
        return None, _(OTHER_FIGURES)
    restored = replace(
        result,
        algorithm=str(summary.get("algorithm", result.algorithm)),
        parameters=dict(summary.get("parameters") or result.parameters),
        nodes_checked=int(summary.get("nodes_checked", result.nodes_checked)),
        runtime_seconds=float(summary.get("runtime_seconds", result.runtime_seconds)),
    )
    return restored, ""


#: Why a saved run with a time limit (local suppression) is not rebuilt.
TIMED_RUN = N_(
    "Not rebuilt: it was given a time limit, and another run may find another release. Run it again."
)


def _rebuild(
    table: Table | Any, config: AnonymizationConfig, summary: dict[str, Any], progress: Any = None
) -> AnonymizationResult | None:
    from kanon_engine.algorithms import algorithms, get_algorithm
    from kanon_engine.algorithms.full_domain import apply_transformation

    levels = summary.get("transformation")
    params = dict(summary.get("parameters") or {})
    if levels:
        # exactly the records the run suppressed may be suppressed again (failing classes only)
        share = int(summary.get("suppressed", 0)) / max(table.n_rows, 1)
        metric = params.get("metric") or "loss"
        result = apply_transformation(
            table, config, dict(levels), suppression_limit=min(1.0, share), metric=metric
        )
        return result
    name = str(summary.get("algorithm", ""))
    cls = algorithms().get(name)
    if cls is None or cls.full_domain:
        return None
    if params.get("time_limit") is not None:  # local suppression with more time: another run may differ
        raise KanonError(_(TIMED_RUN))
    known = {p.name for p in cls.params}
    algorithm = get_algorithm(name, **{k: v for k, v in params.items() if k in known})
    return algorithm.run(table, config, progress=progress) if progress else algorithm.run(table, config)
