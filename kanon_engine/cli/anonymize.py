"""``anonymize``: search for a release that satisfies the privacy models, and write it with its reports.

Runs what the workbench runs: the project (``--project``, every flag overriding it) is checked by
:func:`kanon_engine.project.validation.validate` first, so a project the workbench would refuse to run is
refused
here with the same sentence, before any file is read twice or written.
"""

from __future__ import annotations

import argparse

from kanon_engine.cli.common import (
    EXIT_OK,
    Subparsers,
    add_output_flags,
    ignored_settings,
    print_keys,
    progress_printer,
    save_project,
    warn,
    write_run,
)
from kanon_engine.cli.flags import add_project_flags, run_inputs
from kanon_engine.cli.workload_flags import add_generator_flags, measured
from kanon_engine.project.validation import require_valid, result_warnings
from kanon_engine.session import run_project

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


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("anonymize", help="search for a release that satisfies the privacy models")
    add_project_flags(p)
    add_output_flags(p)
    p.add_argument("--verbose", "-v", action="store_true", help="print progress on stderr")
    add_generator_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with run_inputs(args) as (project, table):
        warn([i.message for i in require_valid(project, table)])
        warn(ignored_settings(project, table))
        save_project(args, project)  # the project as this run understood it, even if no release comes of it
        result = measured(args, table, run_project(project, table, progress_printer(args.verbose)))
        outcome = write_run(args, table, project, result)
        # a release of little use is said, not hidden: its groups and suppressed records as the written
        # file's facts count them, the one count the reports state too
        warn([i.message for i in result_warnings(result, outcome.summary["facts"])])
        print_keys(outcome.summary, PRINTED)
        return EXIT_OK
