"""What the subcommands share: exit codes, value parsing, JSON output, progress on stderr, and writing
the release and the reports of a run (checked before any work starts, see
:mod:`kanon_engine.release.outputs`)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kanon_engine import __version__
from kanon_engine.data.io import read_table
from kanon_engine.data.table import ReadOptions, Table
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import SOURCE_LANGUAGE, _
from kanon_engine.project.project_file import Project
from kanon_engine.release.export import ExportOptions, ExportSummary, export_release
from kanon_engine.release.fileio import atomic_write_text, refuse_input_overwrite
from kanon_engine.release.outputs import check_cli_outputs
from kanon_engine.release.writer import sha256_file
from kanon_engine.report.document import write_reports
from kanon_engine.result import AnonymizationResult

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_INFEASIBLE, EXIT_CANCELLED = 0, 1, 2, 3, 130

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


def json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(type(o).__name__)


def dumps(data: Any, indent: int | None = None) -> str:
    return json.dumps(data, indent=indent, ensure_ascii=False, default=json_default)


def write_json(path: str | None, data: dict[str, Any]) -> None:
    if path:
        atomic_write_text(Path(path), dumps(data, indent=2) + "\n")


def print_keys(summary: dict[str, Any], keys: Sequence[str]) -> None:
    """One line of JSON on stdout with the given keys of a run summary (the output scripts read)."""
    out = {k: summary.get(k) for k in keys}
    if summary.get("persons") is not None:  # under the person role: the persons per class, lost, ...
        out["persons"] = summary["persons"]
    print(dumps(out))


def note_engine(table: Any, args: argparse.Namespace | None = None) -> None:
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


def warn(messages: Sequence[str]) -> None:
    for message in messages:
        print(_("warning: {message}", message=message), file=sys.stderr)


def progress_printer(enabled: bool) -> Callable[[float, str], None]:
    """A progress callback printing at most twice a second on stderr (nothing unless ``enabled``)."""
    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if enabled and now - last[0] > 0.5:
            last[0] = now
            print(f"  {fraction * 100:5.1f}%  {message}", file=sys.stderr)

    return progress


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
    if getattr(args, "save_project", None):
        project.save(Path(args.save_project))


def write_release(
    args: argparse.Namespace, table: Table, result: AnonymizationResult
) -> ExportSummary | None:
    """Write the release (formula-like cells neutralized); its summary, or None without --output."""
    if not args.output:
        return None
    options = ExportOptions(delimiter=delimiter(args.output_delimiter) or ",", bom=bool(args.bom))
    return export_release(table, result, Path(args.output), options, project_path=args.project)


def write_run_reports(
    args: argparse.Namespace,
    table: Table,
    project: Project,
    result: AnonymizationResult,
    written: ExportSummary | None,
    **extra: Any,
) -> None:
    """The HTML and PDF de-identification reports of a run (``extra``: linkage, threshold); without a
    ``linkage``, the demonstration of the project's public list when it names one."""
    if not (args.report_html or args.report_pdf):
        return
    if "linkage" not in extra:
        from kanon_engine.project.public_list import project_linkage

        extra["linkage"] = project_linkage(project, table, result)
    write_reports(
        table,
        result,
        project,
        Path(args.report_html) if args.report_html else None,
        Path(args.report_pdf) if args.report_pdf else None,
        Path(args.output) if args.output else None,
        release=written.to_dict() if written is not None else None,
        project_path=args.project,
        language=project.report_language or SOURCE_LANGUAGE,
        **extra,
    )


def run_summary(args: argparse.Namespace, table: Table, result: AnonymizationResult) -> dict[str, Any]:
    """The JSON report of a run: the result's summary plus the files it came from and went to."""
    for path in (args.report, args.report_html, args.report_pdf):
        if path:
            refuse_input_overwrite(Path(path), [table.source, args.output])
    summary = result.summary()
    if args.output:
        summary["release_file"] = str(args.output)
        summary["release_sha256"] = sha256_file(args.output)
    summary["input_file"] = str(table.source) if table.source else None
    summary["input_sha256"] = table.sha256
    summary["software"] = f"kanon {__version__}"
    summary["engine"] = {"name": result.engine, "reason": result.engine_reason}
    return summary


def finish_run(
    args: argparse.Namespace,
    table: Table,
    project: Project,
    result: AnonymizationResult,
    printed: Sequence[str],
) -> int:
    """Write what a run was asked to write (release, JSON report, HTML/PDF reports) and print the keys
    of its summary that the command prints."""
    written = write_release(args, table, result)
    summary = run_summary(args, table, result)
    write_json(args.report, summary)
    write_run_reports(args, table, project, result, written)
    print_keys(summary, printed)
    return EXIT_OK


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
