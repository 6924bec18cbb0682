"""What ``anonymize`` and ``workload`` share about workloads: the generated workload's flags, the choice
of the workload a run is measured with, and the measuring itself."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table, TableLike, loaded
from kanon_engine.release.fileio import atomic_write_text
from kanon_engine.result import AnonymizationResult
from kanon_engine.session import measure
from kanon_engine.workload import Workload, generate_workload
from kanon_engine.workload.generate import (
    DEFAULT_PER_QUERY,
    DEFAULT_QUERIES,
    DEFAULT_SEED,
    DEFAULT_SELECTIVITY,
)


def add_generator_flags(p: argparse.ArgumentParser) -> None:
    """Flags of the generated workload (used when neither --workload nor the project gives one)."""
    g = p.add_argument_group("generated workload (when neither --workload nor the project gives one)")
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
        "--per-query", type=int, default=DEFAULT_PER_QUERY, help="range conditions per query (default 2)"
    )
    g.add_argument("--write-workload", metavar="FILE", help="write the workload used to FILE")


def choose_workload(args: argparse.Namespace, table: Table, config: AnonymizationConfig) -> Workload:
    """The workload of a run: the project's (``--workload`` sets it), else a generated one."""
    if config.workload is not None:
        return config.workload
    attributes = [a.strip() for a in (args.attributes or "").split(",") if a.strip()]
    return generate_workload(
        table,
        config,
        n_queries=args.queries,
        selectivity=args.selectivity,
        attributes=attributes or None,
        per_query=args.per_query,
        seed=args.seed,
    )


def write_workload(args: argparse.Namespace, workload: Workload) -> None:
    """``--write-workload FILE``: the workload used, in the file format (through the guarded writer, which
    refuses every file the command reads)."""
    if args.write_workload:
        header = f"# {workload.source}\n" if workload.source.startswith("generated") else ""
        atomic_write_text(Path(args.write_workload), header + workload.to_text())


def measured(args: argparse.Namespace, table: TableLike, result: AnonymizationResult) -> AnonymizationResult:
    """The run's result with its workload figures (``result.workload``). A run that holds no release (a
    larger-than-memory engine) has none: the workload is answered on rows held in memory."""
    if not result.in_memory:
        if result.config.workload is not None:
            print(
                "warning: the workload's figures need the table in memory; this run's engine streams it, "
                "so the reports have none.",
                file=sys.stderr,
            )
        return result
    workload = choose_workload(args, loaded(table), result.config)
    write_workload(args, workload)
    return measure(result, table, workload, count_facts=False)  # counted from the file it writes
