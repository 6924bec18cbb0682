"""``python -m kanon_engine workload``: how well a release answers the analyses it is meant for.

Wired into :mod:`kanon_engine.cli` by :func:`add_workload_subcommand`; :func:`run_workload` is also what
``anonymize`` calls to put the figures under the report's ``workload`` key. Examples::

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
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from kanon_engine.errors import ConfigError
from kanon_engine.workload.generate import (
    DEFAULT_PER_QUERY,
    DEFAULT_QUERIES,
    DEFAULT_SEED,
    DEFAULT_SELECTIVITY,
)


def add_generator_flags(p: argparse.ArgumentParser) -> None:
    """Flags of the generated workload (used when no workload file is given)."""
    g = p.add_argument_group("generated workload (when no --workload is given)")
    g.add_argument("--queries", type=int, default=DEFAULT_QUERIES, help="number of queries (default 100)")
    g.add_argument(
        "--selectivity",
        type=float,
        default=DEFAULT_SELECTIVITY,
        help="share of the records a query selects, about (default 0.1)",
    )
    g.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default 0)")
    g.add_argument("--attributes", help="columns the queries use, comma-separated (default: the QIs)")
    g.add_argument(
        "--per-query", type=int, default=DEFAULT_PER_QUERY, help="range predicates per query (default 2)"
    )
    g.add_argument("--write-workload", metavar="FILE", help="write the workload used to FILE")


def add_workload_subcommand(
    subparsers: Any, configure: Callable, anonymize: Callable, read: Callable
) -> argparse.ArgumentParser:
    """Add the ``workload`` subcommand to the CLI's subparsers; returns its parser.

    The CLI hands over its helpers (so this module imports no CLI module): ``configure(args)`` ->
    (project, table, config) from the shared flags, ``anonymize(args, project, table, config)`` -> a
    result, ``read(path, delimiter)`` -> a table.
    """
    p = subparsers.add_parser(
        "workload",
        help="how well a release answers a workload of aggregate queries (errors, match share)",
        description="Compare the exact answers of aggregate queries on the original table with the "
        "estimates an analyst gets from the release (relative error, match share).",
    )
    p.add_argument("input", nargs="?", metavar="INPUT", help="the original table (or give --project)")
    p.add_argument("--delimiter", help="field delimiter of INPUT (detected when omitted)")
    p.add_argument("--project", help="a kanon project file with roles, hierarchies and settings")
    p.add_argument("--qi", help="quasi-identifiers, comma-separated")
    p.add_argument("--identifier", help="identifier columns, comma-separated")
    p.add_argument("--hierarchy", action="append", metavar="COL=FILE", help="ARX hierarchy CSV (repeatable)")
    p.add_argument("--release", metavar="FILE", help="a released table to evaluate")
    p.add_argument("--release-delimiter", help="field delimiter of --release (detected when omitted)")
    p.add_argument("--anonymize", action="store_true", help="run the project's algorithm and evaluate it")
    p.add_argument("--algorithm", help="algorithm for --anonymize (default: the project's)")
    p.add_argument("--k", type=int, help="k for --anonymize")
    p.add_argument("--suppression-limit", type=float, metavar="FRACTION", help="for --anonymize")
    p.add_argument("--workload", metavar="FILE", help="the workload file (one query per line)")
    add_generator_flags(p)
    p.add_argument("--report", metavar="R.json", help="write the JSON printed on stdout to a file too")
    p.set_defaults(func=partial(cmd_workload, configure=configure, anonymize=anonymize, read=read))
    return p


def choose_workload(args: argparse.Namespace, table, config):
    """The workload of a run: ``--workload FILE``, else the project's, else a generated one."""
    from kanon_engine.workload import generate_workload, read_workload

    if getattr(args, "workload", None):
        return read_workload(args.workload)
    if config.workload is not None:
        return config.workload
    attributes = [a.strip() for a in (getattr(args, "attributes", None) or "").split(",") if a.strip()]
    return generate_workload(
        table,
        config,
        n_queries=getattr(args, "queries", DEFAULT_QUERIES),
        selectivity=getattr(args, "selectivity", DEFAULT_SELECTIVITY),
        attributes=attributes or None,
        per_query=getattr(args, "per_query", DEFAULT_PER_QUERY),
        seed=getattr(args, "seed", DEFAULT_SEED),
    )


def run_workload(args: argparse.Namespace, table, workload, result=None, release=None, config=None):
    """Evaluate a run's release (or a release frame) and write ``--write-workload`` when asked."""
    from kanon_engine.fileio import atomic_write_text, refuse_input_overwrite
    from kanon_engine.workload import evaluate_release

    target = getattr(args, "write_workload", None)
    if target:
        refuse_input_overwrite(Path(target), [table.source, getattr(args, "project", None)])
        header = f"# {workload.source}\n" if workload.source.startswith("generated") else ""
        atomic_write_text(Path(target), header + workload.to_text())
    if result is not None:
        return evaluate_release(workload, table, result.release, result.config)
    return evaluate_release(workload, table, release, config)


def cmd_workload(args: argparse.Namespace, configure: Callable, anonymize: Callable, read: Callable) -> int:
    """Handler of ``workload``: prints the JSON document; returns 0."""
    if bool(args.release) == bool(args.anonymize):
        raise ConfigError(
            "Give either --release (evaluate a file) or --anonymize (make a release), one of the two.",
            where="--release",
        )
    args.sensitive = None
    project, table, config = configure(args)
    workload = choose_workload(args, table, config)
    if args.anonymize:
        result = anonymize(args, project, table, config.with_changes(workload=workload))
        evaluation = run_workload(args, table, workload, result=result)
    else:
        release = read(args.release, args.release_delimiter).frame
        evaluation = run_workload(args, table, workload, release=release, config=config)
    text = json.dumps(evaluation.to_dict(), indent=2, ensure_ascii=False)
    if args.report:
        from kanon_engine.fileio import atomic_write_text, refuse_input_overwrite

        refuse_input_overwrite(Path(args.report), [table.source, args.project, args.release, args.workload])
        atomic_write_text(Path(args.report), text + "\n")
    print(text)
    return 0
