"""Exporting a run: every file an :class:`ExportPlan` names, checked first and written through the one
guarded writer, in the order that keeps them honest (the release first: the JSON and the HTML/PDF
reports cite its SHA-256).

The workbench's export dialog collects the user's choices into a plan and runs :func:`export` in a
worker; the command line makes the plan from its flags (``--output``, ``--report``, ``--report-html``,
``--report-pdf``) and runs the same function. Expected failures (read-only folder, full disk, an input
chosen as target) are the engine's typed errors with their one plain sentence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypedDict, Unpack

import numpy as np

from kanon_engine import __version__
from kanon_engine.data.table import Table
from kanon_engine.i18n import _
from kanon_engine.project.project_file import Project, ReportDetails
from kanon_engine.project.public_list import project_linkage
from kanon_engine.release.export import (
    ExportOptions,
    ExportSummary,
    export_hierarchies,
    export_release,
    export_value_mapping,
    hierarchy_targets,
)
from kanon_engine.release.fileio import atomic_write_text
from kanon_engine.release.outputs import Output, check_outputs
from kanon_engine.report.build import write_reports
from kanon_engine.report.dp_words import dp_facts
from kanon_engine.report.facts import kept_star_cells, report_facts
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources import TableSource
from kanon_engine.utility import report_section as fitness_section

#: Names of the companions an export writes beside the release ``<stem>.<ext>``.
COMPANIONS = ("_value_mapping.csv", "_report.html", "_report.pdf")


@dataclass(frozen=True)
class ExportPlan:
    """Everything an export writes. Every path but the release's may be None (not written); the
    command line may also write reports without a release."""

    release_path: Path | None
    options: ExportOptions = field(default_factory=ExportOptions)
    value_mapping_path: Path | None = None
    hierarchies_folder: Path | None = None
    hierarchy_prefix: str = "hierarchy_"
    report_json: Path | None = None
    report_html: Path | None = None
    report_pdf: Path | None = None
    project_path: Path | None = None
    inputs: tuple[Path, ...] = ()
    run_label: str | None = None
    stale: bool = False
    #: the report's language (None: the interface's)
    report_language: str | None = None
    #: the report's sign-off fields (purpose, recipient, approved by), None: the project's
    details: ReportDetails | None = None
    #: files of an earlier export of the same name that this one does not write, which the user agreed
    #: to remove (no report may lie beside a release it does not describe; see :meth:`earlier_files`)
    remove: tuple[Path, ...] = ()
    #: a population size typed in the workbench's Risk tab: the report's estimates use it when the run's
    #: privacy models name none, and say where it came from
    population_size: int | None = None

    @classmethod
    def beside(
        cls,
        release_path: Path,
        options: ExportOptions,
        project: Project | None,
        project_path: Path | None,
        *,
        value_mapping: bool = False,
        hierarchies: bool = False,
        report_html: bool = False,
        report_pdf: bool = False,
        **fields: Any,
    ) -> ExportPlan:
        """The workbench's plan: the companions asked for named after the release
        (``<stem>_value_mapping.csv``, ``<stem>_report.html``, ``<stem>_hierarchy_<column>.csv``, ...)
        in its folder, and the project's hierarchy files among the files none of them may replace."""
        stem = release_path.with_suffix("")
        files = [Path(f) for f in (project.hierarchy_files if project is not None else {}).values()]
        if project_path is not None:
            files = [f if f.is_absolute() else project_path.parent / f for f in files]
        return cls(
            release_path,
            options,
            value_mapping_path=Path(f"{stem}_value_mapping.csv") if value_mapping else None,
            hierarchies_folder=release_path.parent if hierarchies else None,
            hierarchy_prefix=f"{stem.name}_hierarchy_",
            report_html=Path(f"{stem}_report.html") if report_html else None,
            report_pdf=Path(f"{stem}_report.pdf") if report_pdf else None,
            project_path=project_path,
            inputs=tuple(files),
            **fields,
        )

    def earlier_files(self, result: AnonymizationResult) -> tuple[list[Path], list[Path]]:
        """(files of this export that exist already, companions of an earlier export of the same name
        that this one does not write): the first are replaced, the second removed, once the user agrees
        (:meth:`removing`)."""
        written = [o.path for o in self.outputs(result)]
        existing = [p for p in written if p.exists()]
        if self.release_path is None:
            return existing, []
        stem = self.release_path.with_suffix("")
        beside = [Path(f"{stem}{suffix}") for suffix in COMPANIONS]
        return existing, [p for p in beside if p.exists() and p not in written]

    def removing(self, leftovers: list[Path]) -> ExportPlan:
        """The plan that also removes ``leftovers`` (after its outputs are checked, before it writes)."""
        return replace(self, remove=tuple(leftovers))

    def outputs(self, result: AnonymizationResult) -> list[Output]:
        """Every file the plan writes, for :func:`kanon_engine.release.outputs.check_outputs`."""
        out = []
        if self.release_path is not None:
            kind = "release" if self.options.fmt is None else f"{self.options.fmt} release"  # named apart
            out.append(Output(self.release_path, kind, _("the release file")))
        if self.value_mapping_path is not None:
            out.append(Output(self.value_mapping_path, "value mapping", _("the value mapping")))
        if self.hierarchies_folder is not None:
            targets = hierarchy_targets(result.config, self.hierarchies_folder, self.hierarchy_prefix)
            out.extend(
                Output(t, "hierarchy", _("the hierarchy file of '{column}'", column=q))
                for q, t in targets.items()
            )
        for path, kind, label in (
            (self.report_json, "JSON report", _("the JSON report")),
            (self.report_html, "HTML report", _("the HTML report")),
            (self.report_pdf, "PDF report", _("the PDF report")),
        ):
            if path is not None:
                out.append(Output(path, kind, label))
        return out

    def protected(self, table: Table | TableSource) -> list[Path | None]:
        """The files the export reads, which none of its outputs may replace."""
        return [table.source, self.project_path, *self.inputs]


@dataclass(frozen=True)
class ExportOutcome:
    """What an export wrote: the release (None when the plan has none), every file in the order
    written, and the run's summary (the JSON report's content, see :func:`run_summary`)."""

    release: ExportSummary | None
    written: tuple[Path, ...]
    summary: dict[str, Any]


class LinkageKeywords(TypedDict, total=False):
    """What an export may tell the report beyond its plan (PEP 692, checked where passed): the linkage
    the command line's ``risk`` ran and its threshold."""

    linkage: Any | None
    threshold: float


def export(
    table: Table | TableSource,
    project: Project | None,
    result: AnonymizationResult,
    plan: ExportPlan,
    **details: Unpack[LinkageKeywords],
) -> ExportOutcome:
    """Write every file of ``plan`` after checking all of them (distinct, writable, none an input), so a
    bad one never leaves half an export. ``details`` go to the HTML/PDF report (the command line's
    ``risk`` gives its linkage and threshold); without a ``linkage`` the report demonstrates the
    project's public list when it names one, computed before anything is written (an unreadable list
    stops the export with its sentence instead of leaving a release without its report)."""
    check_outputs(plan.outputs(result), plan.protected(table))
    for old in plan.remove:
        old.unlink(missing_ok=True)
    reports = plan.report_html is not None or plan.report_pdf is not None
    if reports and "linkage" not in details:
        details["linkage"] = project_linkage(project, table, result) if project is not None else None
    release, written = None, []
    if plan.release_path is not None:
        release = export_release(
            table, result, plan.release_path, plan.options, project_path=plan.project_path
        )
        written.append(release.path)
    written.extend(_companions(table, result, plan))
    summary = run_summary(table, result, release)
    if plan.report_json is not None:
        atomic_write_text(plan.report_json, dumps(summary, indent=2) + "\n")
        written.append(plan.report_json)
    if reports:
        if plan.details is not None and project is not None:
            project = project.with_changes(report=plan.details)
        write_reports(
            table,
            result,
            project,
            plan.report_html,
            plan.report_pdf,
            plan.release_path,
            release=release.to_dict() if release is not None else None,
            project_path=plan.project_path,
            run_label=plan.run_label,
            stale=plan.stale,
            language=plan.report_language,
            population_size=plan.population_size,
            **details,
        )
        written.extend(p for p in (plan.report_html, plan.report_pdf) if p is not None)
    return ExportOutcome(release, tuple(written), summary)


def _companions(table: Table | TableSource, result: AnonymizationResult, plan: ExportPlan) -> list[Path]:
    """The value mapping and the hierarchies written beside the release, when the plan asks for them."""
    written = []
    if plan.value_mapping_path is not None:
        written.append(
            export_value_mapping(
                table,
                result,
                plan.value_mapping_path,
                delimiter=plan.options.delimiter,
                bom=plan.options.bom,
                project_path=plan.project_path,
            )
        )
    if plan.hierarchies_folder is not None:
        written.extend(
            export_hierarchies(
                result.config,
                plan.hierarchies_folder,
                plan.hierarchy_prefix,
                inputs=(*plan.protected(table), plan.release_path),
            )
        )
    return written


def run_summary(
    table: Table | TableSource, result: AnonymizationResult, release: ExportSummary | None
) -> dict[str, Any]:
    """The JSON report of a run: the result's summary plus the files it came from and went to, and the
    facts of the release (``facts``: counted from the rows written when ``release``, else from the run's
    release), from which the figures it prints about the release are taken."""
    summary = result.summary()
    summary["facts"] = report_facts(table, result, release)
    summary.update(figures_from_facts(summary["facts"]))
    dp = dp_facts(result, summary["facts"])
    if dp is not None:  # its counts from the rows written, the sampling's apart from the suppressed
        summary["differential_privacy"] = dp
        summary["records_left_out_by_sampling"] = dp["records_left_out_by_sampling"]
    if release is not None:
        summary["release_file"] = str(release.path)
        summary["release_sha256"] = release.sha256
    summary["suppression_mark"] = result.config.suppression_mark
    summary["input_file"] = str(table.source) if table.source else None
    summary["input_sha256"] = table.sha256
    summary["software"] = f"kanon {__version__}"
    summary["engine"] = {"name": result.engine, "reason": result.engine_reason}
    fitness = fitness_section.section(table, result)
    if fitness is not None:  # the run names the study's target: can the study still predict it?
        summary["fitness"] = fitness
    return summary


def figures_from_facts(facts: dict[str, Any]) -> dict[str, Any]:
    """The summary's figures about the release, from its facts (one count for the JSON, the words and
    the workbench): suppressed records (every quasi-identifier * or dropped), groups and the smallest,
    values a kept record shows as *, and those records."""
    rel = facts["release"]
    cells, records = kept_star_cells(facts)
    out = {
        "suppressed": rel["records_suppressed"],
        "classes": rel["classes"],
        "min_class_size": rel["min_class_size"],
    }
    if "star_cells" in rel:
        out.update(suppressed_cells=cells, records_touched=records)
    return out


def json_default(o: Any) -> Any:
    """numpy numbers and paths as JSON values."""
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(type(o).__name__)


def dumps(data: Any, indent: int | None = None) -> str:
    """JSON as kanon writes it: UTF-8 text as it is (not escaped), numpy numbers as plain numbers."""
    return json.dumps(data, indent=indent, ensure_ascii=False, default=json_default)
