"""What the subcommands share: exit codes, value parsing, JSON output, progress on stderr, and the plan of
what a run writes, made from the output flags (checked before any work starts, see
:mod:`kanon_engine.release.outputs`; written by :func:`kanon_engine.session.export`)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeAlias

from kanon_engine.algorithms import algorithms
from kanon_engine.data.io import read_table
from kanon_engine.data.table import ReadOptions, Table
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import SOURCE_LANGUAGE, _
from kanon_engine.project.project_file import Project
from kanon_engine.release.export import ExportOptions
from kanon_engine.release.outputs import check_cli_outputs
from kanon_engine.result import AnonymizationResult
from kanon_engine.session.export import ExportOutcome, ExportPlan, dumps, export
from kanon_engine.sources import TableSource

#: What ``register(subparsers)`` of every subcommand module gets (argparse's own type).
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_INFEASIBLE, EXIT_CANCELLED = 0, 1, 2, 3, 130
#: A password-protected project opens with the password in this variable (never a flag: command lines
#: are visible to other users and kept in shell histories).
PASSWORD_VARIABLE = "KANON_PROJECT_PASSWORD"

#: Names the command line accepts for delimiters that are awkward to type.
DELIMITER_NAMES = {"\\t": "\t", "tab": "\t", "TAB": "\t", "semicolon": ";", "comma": ",", "pipe": "|"}


def split_list(value: str | None) -> list[str]:
    """``a, b,c`` -> ``["a", "b", "c"]`` (empty items dropped)."""
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


def pairs(values: Sequence[str] | None, flag: str, comma_separated: bool = False) -> dict[str, str]:
    """``COL=VALUE`` items of a repeatable flag (each item also comma-separated when asked) -> dict."""
    out: dict[str, str] = {}
    for item in values or []:
        for part in item.split(",") if comma_separated else [item]:
            if "=" not in part:
                raise ConfigError(
                    _("{flag} expects COLUMN=VALUE; got '{part}'.", flag=flag, part=part), where=flag
                )
            key, val = part.split("=", 1)
            out[key.strip()] = val.strip()
    return out


def levels(values: Sequence[str] | None) -> dict[str, int]:
    """``--levels COL=N,...`` -> {column: level}; a level that is not a whole number is named."""
    out = {}
    for col, value in pairs(values, "--levels", comma_separated=True).items():
        try:
            out[col] = int(value)
        except ValueError:
            raise ConfigError(
                _(
                    "--levels {column}={value}: a level is a whole number, 0 for the original values up "
                    "to the height of the hierarchy of '{column}'.",
                    column=col,
                    value=value,
                ),
                hint=_("For example --levels age=2,zip=1."),
                where="--levels",
            ) from None
    return out


def delimiter(value: str | None) -> str | None:
    return None if value is None else DELIMITER_NAMES.get(value, value)


def read(path: str, delimiter_flag: str | None = None) -> Table:
    """A table named on the command line (its delimiter detected unless given)."""
    return read_table(path, ReadOptions(delimiter=delimiter(delimiter_flag)))


def print_keys(summary: dict[str, Any], keys: Sequence[str]) -> None:
    """One line of JSON on stdout with the given keys of a run summary (the output scripts read)."""
    out = {k: summary.get(k) for k in keys}
    if summary.get("persons") is not None:  # under the person role: the persons per class, lost, ...
        out["persons"] = summary["persons"]
    print(dumps(out))


def note_engine(table: TableSource, args: argparse.Namespace | None = None) -> None:
    """Say on stderr which engine reads the rows, and why, when it is not the plain in-memory one (the
    JSON report always names it). The HTML/PDF reports need the rows in memory (risk before and after,
    examples): asked of another engine, they are refused before any work starts."""
    engine = getattr(table, "engine", "memory")
    if engine == "memory":
        return
    if args is not None and (getattr(args, "report_html", None) or getattr(args, "report_pdf", None)):
        raise ConfigError(
            _(
                "The HTML and PDF reports are made from a table held in memory; this run reads {name} with "
                "{engine}.",
                name=table.name(),
                engine=_(table.title),
            ),
            hint=_(
                "Ask for the JSON report (--report), which holds the run's figures, or use --engine memory."
            ),
            where="--report-html",
        )
    print(_("note: engine: {engine}", engine=table.describe()), file=sys.stderr)


def ignored_settings(project: Project, table: Any) -> list[str]:
    """Settings given for this run that it cannot use: said, never silently dropped."""

    out = []
    cls = algorithms().get(project.algorithm)
    cell_level = (
        bool(getattr(cls, "cell_level", False)) or project.algorithm_params.get("suppress") == "cells"
    )
    if project.drop_suppressed and cell_level:
        out.append(
            _(
                "--drop-suppressed has no effect: this run replaces single values by the suppression mark "
                "and keeps every record, so no record is dropped."
            )
        )
    engine = getattr(table, "engine", "memory")
    settings = project.engine
    if engine != "duckdb" and (settings.memory_limit or settings.temp_dir):
        flag = "--memory-limit" if settings.memory_limit else "--temp-dir"
        out.append(
            _(
                "{flag} has no effect: it is a setting of the duckdb engine, and this run uses another.",
                flag=flag,
            )
        )
    if engine != "dask" and (settings.scheduler or settings.workers):
        flag = "--scheduler" if settings.scheduler else "--workers"
        out.append(
            _(
                "{flag} has no effect: it is a setting of the dask engine, and this run uses another.",
                flag=flag,
            )
        )
    return out


def warn(messages: Sequence[str]) -> None:
    for message in messages:
        print(_("warning: {message}", message=message), file=sys.stderr)


def progress_printer(enabled: bool) -> Callable[[float, str], None]:
    """A progress callback printing at most twice a second on stderr (nothing unless ``enabled``), never
    the same line twice in a row (a long DuckDB query is asked every 0.1 s whether to go on)."""
    last = [0.0]
    said = [""]

    def progress(fraction: float, message: str) -> None:
        # the line is built only when it may be printed: a search's message is lazy text whose
        # translation and number formatting cost more than checking a node of a risk model
        now = time.monotonic()
        if not enabled or now - last[0] <= 0.5:
            return
        line = f"  {fraction * 100:5.1f}%  {message}"
        if line != said[0]:
            last[0], said[0] = now, line
            print(line, file=sys.stderr)

    return progress


def add_release_flags(p: argparse.ArgumentParser, release_help: str) -> None:
    """The release a command reads instead of making one: ``--release FILE`` and its delimiter."""
    p.add_argument("--release", metavar="FILE", help=release_help)
    p.add_argument("--release-delimiter", help="field delimiter of --release (detected when omitted)")


# --- outputs of a run ----------------------------------------------------------------------------------
def add_output_flags(p: argparse.ArgumentParser, report_help: str = "write a JSON report") -> None:
    """The files a run writes: the release, its reports, and the effective project."""
    p.add_argument("--output", help="where to write the release (.csv, .tsv, .xlsx, .parquet)")
    p.add_argument("--output-delimiter", help="delimiter of a CSV release (default ',')")
    p.add_argument("--bom", action="store_true", help="write a UTF-8 byte-order mark (for Excel)")
    p.add_argument("--report", metavar="R.json", help=report_help)
    p.add_argument("--report-html", metavar="R.html", help="write the de-identification report as HTML")
    p.add_argument("--report-pdf", metavar="R.pdf", help="write the de-identification report as PDF")
    p.add_argument(
        "--save-project",
        metavar="P.json",
        help="save the project as this run used it (the project file and every flag given), "
        "for the workbench or a later --project",
    )


def check_outputs(args: argparse.Namespace, project: Project | None = None, **kinds: str) -> None:
    """Every output flag checked before any work starts (see :mod:`kanon_engine.release.outputs`)."""
    check_cli_outputs(args, project, kinds or None)


def save_project(args: argparse.Namespace, project: Project) -> None:
    """``--save-project``: the project as this run used it. One read from a sealed project is sealed
    with the same password (it holds the same patient values), and the note says so."""
    if not getattr(args, "save_project", None):
        return

    source = getattr(args, "project", None)
    password = os.environ.get(PASSWORD_VARIABLE) if source and Project.is_protected(Path(source)) else None
    project.save(Path(args.save_project), password=password or None)
    if password:
        print(
            _(
                "note: {name} is sealed with the password of {project}, as the project it comes from.",
                name=Path(args.save_project).name,
                project=Path(str(source)).name,
            ),
            file=sys.stderr,
        )


def export_plan(args: argparse.Namespace, project: Project) -> ExportPlan:
    """What a run writes, from its output flags (the release, the JSON, HTML and PDF reports)."""
    options = ExportOptions(delimiter=delimiter(args.output_delimiter) or ",", bom=bool(args.bom))
    return ExportPlan(
        Path(args.output) if args.output else None,
        options,
        report_json=Path(args.report) if args.report else None,
        report_html=Path(args.report_html) if args.report_html else None,
        report_pdf=Path(args.report_pdf) if args.report_pdf else None,
        project_path=Path(args.project) if args.project else None,
        report_language=project.report_language or SOURCE_LANGUAGE,
    )


def finish_run(
    args: argparse.Namespace,
    table: Table | TableSource,
    project: Project,
    result: AnonymizationResult,
    printed: Sequence[str],
) -> int:
    """Write what a run was asked to write (:func:`write_run`) and print the keys of its summary that the
    command prints."""
    print_keys(write_run(args, table, project, result).summary, printed)
    return EXIT_OK


def write_run(
    args: argparse.Namespace, table: Table | TableSource, project: Project, result: AnonymizationResult
) -> ExportOutcome:
    """Write what a run was asked to write (:func:`kanon_engine.session.export`): its summary's
    ``facts`` are those of the release as written (of the run's release when none is written), counted
    once for the JSON and HTML/PDF reports and whatever the command says about the release."""
    return export(table, project, result, export_plan(args, project))


def notes_on_stderr() -> Callable[[], None]:
    """Show the engine's file notes (stale temporary files removed) as ``note:`` lines on stderr while
    a command runs; returns the function that stops it."""
    log = logging.getLogger("kanon_engine.release.fileio")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(_("note: %(message)s")))
    handler.setLevel(logging.INFO)
    log.addHandler(handler)
    level = log.level
    log.setLevel(logging.INFO)

    def stop() -> None:
        log.removeHandler(handler)
        log.setLevel(level)

    return stop
