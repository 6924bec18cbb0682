"""``workload``: how well a release answers the analyses it is meant for (the seed's Mondrian paper,
section 2.4): each query's true answer on the original table beside the estimate from the release.

Examples::

    # a release written earlier, against the analyst's workload file
    python -m kanon_engine workload patients.csv --project p.json --release release.csv --workload w.txt
    # anonymize with the project's settings, then evaluate; with no workload, a generated one is used
    python -m kanon_engine workload --project p.json --anonymize --queries 200 --selectivity 0.05
    # write the generated workload to a file, to read and edit it
    python -m kanon_engine workload --project p.json --anonymize --write-workload generated.txt

Prints one JSON document on stdout (see :meth:`WorkloadEvaluation.to_dict
<kanon_engine.workload.evaluate.WorkloadEvaluation.to_dict>`). Errors follow the CLI's contract: one
plain sentence on stderr, exit 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kanon_engine.cli.common import EXIT_OK, Subparsers, add_release_flags, dumps, read, save_project, warn
from kanon_engine.cli.flags import add_project_flags, project_and_table
from kanon_engine.cli.workload_flags import add_generator_flags, choose_workload, write_workload
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.project.validation import require_valid
from kanon_engine.release.fileio import atomic_write_text
from kanon_engine.session import run_project
from kanon_engine.sources import rows_in_memory
from kanon_engine.workload import evaluate_release


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "workload",
        help="how well a release answers a workload of aggregate queries (errors, match share)",
        description="Compare the exact answers of aggregate queries on the original table with the "
        "estimates an analyst gets from the release (relative error, match share).",
    )
    add_project_flags(p)
    add_release_flags(p, release_help="a released table to evaluate")
    p.add_argument("--anonymize", action="store_true", help="run the project's algorithm and evaluate it")
    add_generator_flags(p)
    p.add_argument("--report", metavar="R.json", help="write the JSON printed on stdout to a file too")
    p.add_argument("--save-project", metavar="P.json", help="save the project as this command understood it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Prints the JSON document; returns 0."""
    if bool(args.release) == bool(args.anonymize):
        raise ConfigError(
            _("Give either --release (evaluate a file) or --anonymize (make a release), one of the two."),
            where="--release",
        )
    project, source = project_and_table(args)
    table = rows_in_memory(source, _("The workload's evaluation"))
    save_project(args, project)
    config = project.config(table)
    workload = choose_workload(args, table, config)
    write_workload(args, workload)
    if args.anonymize:
        warn([i.message for i in require_valid(project, table)])
        result = run_project(project, table)
        release, config = result.release, result.config
    else:
        release = read(args.release, args.release_delimiter).frame
    text = dumps(evaluate_release(workload, table, release, config).to_dict(), indent=2)
    if args.report:
        atomic_write_text(Path(args.report), text + "\n")
    print(text)
    return EXIT_OK
