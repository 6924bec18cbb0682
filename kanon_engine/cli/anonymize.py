"""``anonymize``: search for a release that satisfies the privacy models, and write it with its reports.

Runs what the workbench runs: the project (``--project``, every flag overriding it) is checked by
:func:`kanon_engine.project.validation.validate` first, so a project the workbench would refuse to run is
refused
here with the same sentence, before any file is read twice or written.
"""

from __future__ import annotations

import argparse
from typing import Any

from kanon_engine.algorithms import get_algorithm
from kanon_engine.cli.common import (
    add_output_flags,
    check_outputs,
    finish_run,
    ignored_settings,
    note_engine,
    progress_printer,
    save_project,
    warn,
)
from kanon_engine.cli.flags import add_project_flags, project_and_table
from kanon_engine.cli.workload_flags import add_generator_flags, measured
from kanon_engine.data.table import Table
from kanon_engine.project.project_file import Project
from kanon_engine.project.validation import require_valid, result_warnings
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources import TableSource

#: What ``anonymize`` prints on stdout (one JSON line; a contract).
PRINTED = (
    "algorithm",
    "records",
    "suppressed",
    "classes",
    "min_class_size",
    "discernibility",
    "cavg",
    "transformation",
    "runtime_seconds",
    "model",
    "suppressed_cells",
    "records_touched",
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("anonymize", help="search for a release that satisfies the privacy models")
    add_project_flags(p)
    add_output_flags(p)
    p.add_argument("--verbose", "-v", action="store_true", help="print progress on stderr")
    add_generator_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project, table = project_and_table(args)
    with table:  # a larger-than-memory engine removes its temporary files when done
        check_outputs(args, project)
        note_engine(table, args)
        warn([i.message for i in require_valid(project, table)])
        warn(ignored_settings(project, table))
        save_project(args, project)  # the project as this run understood it, even if no release comes of it
        result = measured(args, table, run_project(project, table, verbose=args.verbose))
        warn([i.message for i in result_warnings(result)])  # a release of little use is said, not hidden
        return finish_run(args, table, project, result, PRINTED)


def run_project(project: Project, table: Table | TableSource, verbose: bool = False) -> AnonymizationResult:
    """Run the project's algorithm on ``table`` (validated first with :func:`require_valid`)."""
    algorithm = get_algorithm(project.algorithm, **project.algorithm_params)
    return algorithm.run(table, project.config(table), progress=progress_printer(verbose))
