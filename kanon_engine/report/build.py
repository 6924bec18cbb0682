"""The de-identification report as data: what was released, how it was made, and what risk remains.

A privacy officer shows it to an ethics board, so it says everything needed to check the release
without kanon: the input file and its SHA-256, roles, hierarchies, privacy models, algorithm and
parameters, the release's facts counted from its rows as written (:mod:`kanon_engine.report.facts`:
records, suppressed records, groups, values shown as ``*``, row order, the sensitive attributes), the
transformation (or partitioning), quality metrics, risk before and after
(:mod:`kanon_engine.metrics.risk`), optionally a linkage attack demonstration
(:mod:`kanon_engine.metrics.linkage`), the released file's SHA-256, the software version and the date,
and plain sentences for readers who are not specialists (:mod:`kanon_engine.report.sentences`).

:func:`build_report` makes the JSON-able dict; :func:`write_reports` writes it as HTML
(:mod:`kanon_engine.report.html`) and PDF (:mod:`kanon_engine.report.pdf`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict, Unpack

import numpy as np

import kanon_engine
from kanon_engine.algorithms import algorithms, title_of
from kanon_engine.data.persons import rows_not_persons_warning
from kanon_engine.data.roles import Role, suggest_roles
from kanon_engine.hierarchy.builders import MISSING_LABEL
from kanon_engine.hierarchy.model import MISSING
from kanon_engine.i18n import N_, _, current_language, using
from kanon_engine.metrics.risk import (
    DEFAULT_THRESHOLD,
    RiskComparison,
    compare,
    definitions,
    with_population,
)
from kanon_engine.project.validation import released_unchanged_warnings, result_warnings
from kanon_engine.release.cell_recoding import wildcard_reading
from kanon_engine.release.fileio import refuse_input_overwrite, temp_file_beside
from kanon_engine.release.writer import sha256_file
from kanon_engine.report.charts import class_size_bands, sizes_of
from kanon_engine.report.dp_words import dp_facts
from kanon_engine.report.facts import report_facts
from kanon_engine.report.html import render_html, write_html
from kanon_engine.report.pdf import write_pdf
from kanon_engine.report.persons import person_facts_of
from kanon_engine.report.population import population_assumption
from kanon_engine.report.sentences import plain_summary
from kanon_engine.result import SURVEY_MODELS
from kanon_engine.utility import report_section as fitness_section

#: Said first when the release was made with settings the project no longer has.
STALE_WARNING = N_(
    "This release was made with settings (roles, hierarchies or privacy models) that differ from the "
    "project's current ones: it describes the release as it was made, not the current configuration."
)


class ReportKeywords(TypedDict, total=False):
    """What a report may be told beside the table, the result and the project: the keywords of
    :func:`build_report` that :func:`write_reports` and the export pass on as they are (PEP 692), so a
    misspelt or mistyped one is caught where it is passed, not when the report is built."""

    risk: RiskComparison | None
    release: Mapping[str, Any] | None
    linkage: Any | None
    threshold: float
    generated: datetime | None
    workload: Any | None
    run_label: str | None
    stale: bool
    purpose: str | None
    recipient: str | None
    approved_by: str | None
    population_size: int | None


def build_report(
    table: Any,
    result: Any,
    project: Any | None = None,
    *,
    risk: RiskComparison | None = None,
    release_path: str | Path | None = None,
    release: Mapping[str, Any] | None = None,
    linkage: Any | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    generated: datetime | None = None,
    workload: Any | None = None,
    run_label: str | None = None,
    stale: bool = False,
    purpose: str | None = None,
    recipient: str | None = None,
    approved_by: str | None = None,
    population_size: int | None = None,
) -> dict[str, Any]:
    """The report as a JSON-able dict (also the data of the HTML/PDF). ``run_label`` names the run,
    ``stale`` says its settings are not the project's any more; ``purpose``, ``recipient`` and
    ``approved_by`` fill the sign-off section (by default the project's report details; a field left
    empty is a blank line to be filled in by hand).

    ``release`` is an :meth:`ExportSummary.to_dict() <kanon_engine.release.export.ExportSummary.to_dict>`,
    whose ``facts`` (counted from the rows written) are the ones the report states; without it, the facts
    of the run's release. With only ``release_path`` the file's SHA-256 is computed here. Hashes are of
    the actual files. ``population_size``: a population typed in the workbench's Risk tab, for the
    estimates when the run's models name none (:func:`~kanon_engine.report.population.population_assumption`).
    """
    risk = risk or compare(table, result, threshold=threshold)
    assumed = population_assumption(result.config, population_size)
    risk = with_population(risk, assumed["size"])
    generated = generated or datetime.now().astimezone()
    if release is None and release_path is not None:
        release = _release_file(Path(release_path), result)
    facts = report_facts(table, result, release)
    report: dict[str, Any] = {
        "title": _("De-identification report"),
        "software": {"name": "kanon", "version": kanon_engine.__version__},
        "generated": generated.isoformat(timespec="seconds"),
        "facts": facts,
        "dataset": _dataset_facts(table, result),
        "configuration": _configuration_facts(table, result, project, facts),
        "result": _result_facts(result, facts),
        "risk": {
            "before": risk.before.to_dict(),
            "after": risk.after.to_dict(),
            "definitions": definitions(),
            "population": assumed,
        },
        "linkage": linkage.to_dict() if linkage is not None else None,
        "release": {k: v for k, v in release.items() if k != "facts"} if release is not None else None,
        "workload": _workload_dict(workload if workload is not None else getattr(result, "workload", None)),
        "fitness": fitness_section.section(table, result),
        "differential_privacy": dp_facts(result, facts),
        "run": {"label": run_label, "stale": bool(stale)},
        "sign_off": _sign_off(project, purpose, recipient, approved_by),
        "language": current_language(),
        "persons": person_facts_of(table, result, threshold),
    }
    roles = report["dataset"]["roles"]
    report["warnings"] = ([_(STALE_WARNING)] if stale else []) + _warnings(table, result, roles, facts)
    report["summary"] = plain_summary(report)
    return report


def _sign_off(
    project: Any | None, purpose: str | None, recipient: str | None, approved: str | None
) -> dict[str, Any]:
    """The sign-off fields: as given, else the project's report details."""
    details = getattr(project, "report", None)
    return {
        "purpose": purpose if purpose is not None else getattr(details, "purpose", ""),
        "recipient": recipient if recipient is not None else getattr(details, "recipient", ""),
        "approved_by": approved if approved is not None else getattr(details, "approved_by", ""),
    }


def _workload_dict(workload: Any | None) -> dict[str, Any] | None:
    """The workload figures of the run (a WorkloadEvaluation) as report data."""
    return workload.to_dict() if workload is not None else None


def _warnings(table: Any, result: Any, roles: Mapping[str, str], facts: Mapping[str, Any]) -> list[str]:
    """What the ethics board must know: columns that look knowable but were released unchanged, and
    what makes the release of little use (the same rules the workbench and CLI warn with)."""

    kept = [c for c, r in roles.items() if r in (Role.INSENSITIVE.value, Role.SENSITIVE.value)]
    found = (
        suggest_roles(table.frame[kept], column_types=getattr(table, "column_types", None)) if kept else []
    )
    suggestions = {x.column: x for x in found}
    issues = released_unchanged_warnings({c: Role(r) for c, r in roles.items()}, suggestions)
    issues += result_warnings(result, facts)
    return [i.message for i in issues] + rows_not_persons_warning(table, roles)


def _file_sha256(path: Path | None) -> str | None:

    if path is None or not Path(path).is_file():
        return None
    return sha256_file(path)


def _release_file(path: Path, result: Any) -> dict[str, Any]:
    return {
        "file": path.name,
        "path": str(path),
        "sha256": _file_sha256(path),
        "rows": int(result.released_records),
        "format": path.suffix.lstrip(".").lower(),
    }


def _dataset_facts(table: Any, result: Any) -> dict[str, Any]:
    source = Path(table.source) if getattr(table, "source", None) else None
    return {
        "file": source.name if source else None,
        "path": str(source) if source else None,
        "sha256": _file_sha256(source) or getattr(table, "sha256", None),
        "rows": int(table.n_rows),
        "columns": len(table.columns),
        "roles": {c: result.config.role_of(c).value for c in table.columns},
    }


def _configuration_facts(
    table: Any, result: Any, project: Any | None, facts: Mapping[str, Any]
) -> dict[str, Any]:
    cfg = result.config
    params = dict(result.parameters)
    algo_cls = algorithms().get(result.algorithm)
    return {
        "quasi_identifiers": list(cfg.quasi_identifiers),
        "sensitive": list(cfg.sensitive),
        "identifiers": list(cfg.identifiers),
        "insensitive": [c for c in table.columns if cfg.role_of(c).value == "insensitive"],
        "hierarchies": _hierarchy_summary(cfg, project),
        "models": [{**m.to_dict(), "description": m.describe()} for m in cfg.models],
        "algorithm": {
            "name": result.algorithm,
            "title": _(title_of(algo_cls, result.algorithm)),
            "parameters": params,
            "parameters_shown": _parameters_shown(algo_cls, params),
        },
        "suppression": {
            "limit": params.get("suppression_limit"),
            "suppressed": facts["release"]["records_suppressed"],
            "dropped": bool(facts["release"]["records_dropped"]) or bool(cfg.drop_suppressed),
        },
        "k": int(cfg.k),
    }


def _parameters_shown(algo_cls: Any, params: Mapping[str, Any]) -> list[list[str]]:
    """[label, value in plain words] per parameter of the run (percentages, the choices' words)."""
    specs = {p.name: p for p in getattr(algo_cls, "params", ())}
    out = []
    for name, value in params.items():
        spec = specs.get(name)
        if spec is None:
            out.append([name.replace("_", " "), _("not set") if value is None else str(value)])
        else:
            out.append([spec.shown_label, _("not set") if value is None else spec.show(value)])
    return out


def _hierarchy_summary(config: Any, project: Any | None) -> list[dict[str, Any]]:
    """Per quasi-identifier: where its hierarchy comes from, its values, height and a few labels of each
    level."""
    out = []
    files = dict(getattr(project, "hierarchy_files", {}) or {})
    explicit = set(getattr(project, "hierarchies", {}) or {})
    for q in config.quasi_identifiers:
        h = config.hierarchies[q]
        if q in files:
            source = _("file {name}", name=Path(files[q]).name)
        elif q in explicit:
            source = _("defined in the project")
        elif project is not None:
            source = _("built automatically from the data")
        else:
            source = _("given to the run")
        levels = []
        for j in range(1, h.depth):
            labels = h.level_codes[j][1]
            real = [str(x) for x in labels if x not in (MISSING, MISSING_LABEL)]
            levels.append({"level": j, "groups": len(labels), "examples": real[:3]})
        out.append(
            {"attribute": q, "source": source, "values": len(h.values), "height": h.height, "levels": levels}
        )
    return out


def _result_facts(result: Any, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The Result section's data: the figures from the facts, the algorithm's own record of how it
    worked (transformation, partitions, metrics, notes)."""
    rel = facts["release"]
    original = facts.get("original") or {}
    return {
        "model": {"name": result.model, "description": SURVEY_MODELS.get(result.model, "")},
        "cell_level": _cell_level(result, rel),
        "records": int(rel["records"]) + int(rel["records_dropped"]),
        "suppressed": rel["records_suppressed"],
        "classes": rel["classes"],
        "smallest_class": rel["min_class_size"],
        "released_records": rel["records"],
        "transformation": result.transformation,
        "partitions": _partition_facts(result.partitions),
        "metrics": {k: _num(v) for k, v in result.metrics.items()},
        "runtime_seconds": round(float(result.runtime_seconds), 3),
        "nodes_checked": result.nodes_checked,
        "notes": list(result.notes),
        "class_size_bands": class_size_bands(
            sizes_of(original.get("class_sizes")), sizes_of(rel.get("class_sizes")), result.config.k
        ),
    }


def _cell_level(result: Any, rel: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a cell-level release (every record kept, single values recoded) says beyond its facts: the
    transformations its records use, and its groups in sdcMicro's reading of ``*`` (matching anything)
    beside the strict one it was checked in."""

    rec = getattr(result, "recoding", None)
    if rec is None or result.release is None:
        return None
    used = rec.transformations()
    k = int(result.config.k)
    sizes = sizes_of(rel.get("class_sizes"))
    reading = wildcard_reading(result.release, result.config.quasi_identifiers, k)
    return {
        "certificate": getattr(result, "certificate", None),  # local suppression: how close to the fewest *
        "transformations": used[:12],
        "transformations_used": len(used),
        "readings": {
            "strict_smallest_class": int(rel["min_class_size"]),
            "strict_records_below_k": int(sizes[sizes < k].sum()),
            "smallest_frequency": reading["smallest_frequency"],
            "records_below_k": reading["records_below_k"],
        },
    }


def _partition_facts(partitions: Any | None) -> dict[str, Any] | None:
    if partitions is None:
        return None
    sizes = np.asarray(partitions.sizes)
    return {
        "boxes": int(len(sizes)),
        "smallest": int(sizes.min()) if len(sizes) else 0,
        "largest": int(sizes.max()) if len(sizes) else 0,
        "median": float(np.median(sizes)) if len(sizes) else 0.0,
    }


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


# --- writing ---------------------------------------------------------------------------------------------
def write_reports(
    table: Any,
    result: Any,
    project: Any | None,
    html_path: str | Path | None,
    pdf_path: str | Path | None,
    release_path: str | Path | None = None,
    *,
    project_path: str | Path | None = None,
    language: str | None = None,
    **details: Unpack[ReportKeywords],
) -> dict[str, Any]:
    """Build the report and write it as HTML and/or PDF (the CLI's ``--report-html/--report-pdf``).

    Inputs (data, project, release) are never overwritten. With only a PDF wanted, the HTML goes to a
    temporary file next to it, removed afterwards. ``language``: the report's language (``de``, ...;
    None: the language in force), its words and its number and date formats. ``details``: the keywords
    of :func:`build_report` (:class:`ReportKeywords`), passed on as they are. Returns the report dict.
    """
    inputs = [getattr(table, "source", None), project_path, release_path, getattr(project, "data_path", None)]
    for p in (html_path, pdf_path):
        if p is not None:
            refuse_input_overwrite(Path(p), inputs)
    with using(language):
        report = build_report(table, result, project, release_path=release_path, **details)
        _write_files(report, html_path, pdf_path)
        return report


def _write_files(
    report: Mapping[str, Any], html_path: str | Path | None, pdf_path: str | Path | None
) -> None:
    """The HTML (when asked) and the PDF (from that HTML, or from a temporary one beside the PDF)."""
    if html_path is not None:
        write_html(report, html_path)
    if pdf_path is not None:
        pdf_path = Path(pdf_path)
        if html_path is not None:
            write_pdf(html_path, pdf_path)
        else:
            html = render_html(report).encode("utf-8")
            with temp_file_beside(pdf_path.with_suffix(".html"), html) as tmp:
                write_pdf(tmp, pdf_path)
