"""Bring back a saved run's result when a project is reopened, without searching again.

A project file keeps a summary of every run (:meth:`AnonymizationResult.summary`): the algorithm, its
parameters, the transformation a full-domain search chose, the counts, and the fingerprint of the
configuration it ran with (:meth:`AnonymizationConfig.fingerprint`), and beside them the settings the run
was made with (:func:`run_settings`: roles, privacy models, output options, workload). Reopening the
project rebuilds each run with its own settings and the project's hierarchies: it re-applies the
transformation (one node check, a fraction of a second) or, for Mondrian and the algorithms that keep
every record, repeats the deterministic run, then checks the result against the summary's counts and
measures the run's workload again. So a run made before the models or the output options were changed
comes back too (the walk of issue 27 got its first run back as a summary only, the second without its
workload figures). A run whose configuration cannot be rebuilt exactly (a hierarchy edited since, other
data) is not restored: a release is never shown under settings other than the ones that made it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kanon_engine.algorithms import algorithms, get_algorithm
from kanon_engine.algorithms.full_domain import apply_transformation
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.errors import KanonError
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.i18n import N_, _
from kanon_engine.privacy import model_from_dict
from kanon_engine.project.project_file import column_values
from kanon_engine.result import AnonymizationResult
from kanon_engine.workload import parse_workload
from kanon_engine.workload.evaluate import with_workload
from kanon_engine.workload.generate import default_workload

#: The key of a run's own settings in the project file's run history.
SETTINGS = "settings"


def run_settings(config: AnonymizationConfig) -> dict[str, Any]:
    """What a run needs, besides the project's hierarchies, to be rebuilt as it was made: kept in the
    project file beside the run's summary (plain JSON). The hierarchies are not copied (they can hold
    a million values): the fingerprint tells whether the project's still match."""
    workload = config.workload
    return {
        "quasi_identifiers": list(config.quasi_identifiers),
        "sensitive": list(config.sensitive),
        "identifiers": list(config.identifiers),
        "models": [m.to_dict() for m in config.models],
        "drop_suppressed": bool(config.drop_suppressed),
        "shuffle_seed": config.shuffle_seed,
        "protect_suppressed_group": bool(config.protect_suppressed_group),
        "workload": None if workload is None else {"text": workload.to_text(), "source": workload.source},
    }


def saved_run(result: AnonymizationResult) -> dict[str, Any]:
    """A run as the project file's history keeps it: its summary, with the settings it ran with."""
    return {**result.summary(), SETTINGS: run_settings(result.config)}


def config_of_run(config: AnonymizationConfig, summary: dict[str, Any], table: Any) -> AnonymizationConfig:
    """The configuration ``summary``'s run was made with: ``config`` (the project's, with its
    hierarchies) with the run's own roles, models and output options. A column that is no longer a
    quasi-identifier gets its default hierarchy; a summary saved without settings (older project files)
    gives ``config`` itself. Whether the result is the run's exact configuration is for the caller to
    check against the saved fingerprint."""

    settings = summary.get(SETTINGS)
    if not isinstance(settings, dict):
        return config
    qi = tuple(settings.get("quasi_identifiers") or config.quasi_identifiers)
    hierarchies = {}
    for q in qi:
        h = config.hierarchies.get(q)
        if h is None:
            h = default_hierarchy(q, column_values(table, q), table.column_types.get(q))
        hierarchies[q] = h
    sensitive = tuple(settings.get("sensitive") or ())
    given = settings.get("workload")
    workload = None
    if isinstance(given, dict) and given.get("text"):
        workload = parse_workload(str(given["text"]), str(given.get("source") or "workload"))
    return config.with_changes(
        quasi_identifiers=qi,
        hierarchies=hierarchies,
        sensitive=sensitive,
        sensitive_hierarchies={s: h for s, h in config.sensitive_hierarchies.items() if s in sensitive},
        identifiers=tuple(settings.get("identifiers") or ()),
        models=tuple(model_from_dict(m) for m in settings.get("models") or ()),
        drop_suppressed=bool(settings.get("drop_suppressed", config.drop_suppressed)),
        shuffle_seed=settings.get("shuffle_seed"),
        protect_suppressed_group=bool(settings.get("protect_suppressed_group", True)),
        workload=workload,
    )


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
#: Why a saved run made with other settings was not rebuilt (a hierarchy it used was changed since).
OTHER_HIERARCHIES = N_(
    "{run} was made with hierarchies that were changed since, so it cannot be rebuilt as it was."
)


def rebuild_run(
    table: Table | Any, config: AnonymizationConfig, summary: dict[str, Any], progress: Any = None
) -> tuple[AnonymizationResult | None, str]:
    """:func:`restore_run`, and why a run was not rebuilt ("" when it was). ``config`` is the
    project's configuration; the run is rebuilt with its own settings (:func:`config_of_run`), and only
    when they give exactly the fingerprint it was saved with. A run saved without its settings (an
    older project file) is rebuilt only under the project's present settings. ``table`` may be a table
    source (DuckDB, Dask): the run is then rebuilt through the engine (without the workload figures,
    which are measured on a table in memory)."""
    try:
        run_config = config_of_run(config, summary, table)
    except KanonError as exc:
        return None, str(exc)
    if not can_restore(summary, run_config, table):
        if SETTINGS in summary and int(summary.get("records", -1)) == table.n_rows:
            label = str(summary.get("label") or summary.get("algorithm", ""))
            return None, _(OTHER_HIERARCHIES, run=label)
        return None, ""
    try:
        result = _rebuild(table, run_config, summary, progress)
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
    if "workload" in summary and isinstance(table, Table):
        restored = with_workload(restored, table, default_workload(table, run_config))
    return restored, ""


#: Why a saved run with a time limit (local suppression) is not rebuilt.
TIMED_RUN = N_(
    "Not rebuilt: it was given a time limit, and another run may find another release. Run it again."
)


def _rebuild(
    table: Table | Any, config: AnonymizationConfig, summary: dict[str, Any], progress: Any = None
) -> AnonymizationResult | None:

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
