"""Command line: ``python -m kanon_engine check | apply | anonymize | hierarchy | risk | algorithms``.

Flags and file formats here are a contract (scripts use them). Exit codes: 0 success (``check``: the table
is k-anonymous), 1 ``check``: not k-anonymous, 2 bad input (one plain sentence on stderr naming the
file, column or value), 3 no solution (infeasible), 130 cancelled.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kanon_engine import __version__
from kanon_engine.errors import Cancelled, ConfigError, InfeasibleError, KanonError

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_INFEASIBLE, EXIT_CANCELLED = 0, 1, 2, 3, 130


def _check_outputs(args: argparse.Namespace, project: Any = None, kinds: dict[str, str] | None = None):
    """Every output flag checked before any work starts (see :mod:`kanon_engine.outputs`)."""
    from kanon_engine.outputs import check_cli_outputs as check

    check(args, project, kinds)


def _list(value: str | None) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


def _pairs(values: Sequence[str] | None, flag: str) -> dict[str, str]:
    """``COL=VALUE`` items (repeatable flag, or comma-separated) -> dict."""
    out: dict[str, str] = {}
    for item in values or []:
        for part in item.split(",") if flag == "--levels" else [item]:
            if "=" not in part:
                raise ConfigError(f"{flag} expects COLUMN=VALUE; got '{part}'.", where=flag)
            key, val = part.split("=", 1)
            out[key.strip()] = val.strip()
    return out


def _delimiter(value: str | None) -> str | None:
    if value is None:
        return None
    return {"\\t": "\t", "tab": "\t", "TAB": "\t", "semicolon": ";", "comma": ",", "pipe": "|"}.get(
        value, value
    )


def _read(path: str, delimiter: str | None):
    from kanon_engine.data.io import read_table
    from kanon_engine.data.table import ReadOptions

    return read_table(path, ReadOptions(delimiter=_delimiter(delimiter)))


def _write_json(path: str | None, data: dict[str, Any]) -> None:
    if path:
        from kanon_engine.fileio import atomic_write_text

        atomic_write_text(
            Path(path), json.dumps(data, indent=2, ensure_ascii=False, default=_json_default) + "\n"
        )


def _json_default(o: Any) -> Any:
    import numpy as np

    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(type(o).__name__)


# --- check ---------------------------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace) -> int:
    from kanon_engine.checks import check_table
    from kanon_engine.config import MODEL_PARAMS, require_k_fits

    k = next(p for p in MODEL_PARAMS if p.name == "k").coerce(args.k)
    table = _read(args.input, args.delimiter)
    qi = _list(args.qi)
    if not qi:
        raise ConfigError("--qi needs at least one column.", where="--qi")
    table.require_columns(qi, "quasi-identifier")
    require_k_fits(k, table.n_rows)
    result = check_table(table.frame, qi, k)
    print(json.dumps(result.to_dict(), indent=2))
    return EXIT_OK if result.k_anonymous else EXIT_FAIL


# --- shared configuration of apply / anonymize ---------------------------------------------------------
def _project_and_table(args: argparse.Namespace):
    """The project (from --project, overridden by flags) and its table."""
    from kanon_engine.data.roles import Role
    from kanon_engine.hierarchy import read_arx_csv
    from kanon_engine.project import Project

    project = Project.load(Path(args.project)) if getattr(args, "project", None) else Project()
    warnings: list[str] = []
    if args.input:
        table = _read(args.input, args.delimiter)
        project = project.with_changes(
            data_path=Path(args.input), data_sha256=table.sha256, read_options=table.options
        )
    elif project.data_path is not None:
        table, warnings = project.load_table()
    else:
        raise ConfigError("No input table: give INPUT or a --project that names one.", where="INPUT")
    roles = dict(project.roles)
    flags = (
        (Role.IDENTIFIER, args.identifier),
        (Role.QUASI_IDENTIFIER, args.qi),
        (Role.SENSITIVE, getattr(args, "sensitive", None)),
    )
    if any(v for _, v in flags):
        # flags replace the project's roles of that kind
        for role, value in flags:
            if value is not None:
                roles = {c: r for c, r in roles.items() if r != role}
                for col in _list(value):
                    roles[col] = role
    what = {
        Role.IDENTIFIER: "identifier column",
        Role.QUASI_IDENTIFIER: "quasi-identifier",
        Role.SENSITIVE: "sensitive attribute",
        Role.INSENSITIVE: "column",
    }
    for col, role in roles.items():
        table.require_columns([col], what[role])
    hierarchies = dict(project.hierarchies)
    files = dict(project.hierarchy_files)
    for col, file in _pairs(args.hierarchy, "--hierarchy").items():
        hierarchies[col] = read_arx_csv(file, col)
        files[col] = os.path.abspath(file)
    project = project.with_changes(roles=roles, hierarchies=hierarchies, hierarchy_files=files)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    return project, table


def _models(args: argparse.Namespace, project) -> tuple:
    from kanon_engine.config import MODEL_PARAMS, build_models
    from kanon_engine.data.roles import Role
    from kanon_engine.privacy.models import KAnonymity

    spec = {p.name: p for p in MODEL_PARAMS}
    if args.k is None and getattr(args, "l", None) is None and getattr(args, "t", None) is None:
        return project.models
    k = spec["k"].coerce(
        args.k if args.k is not None else next((m.k for m in project.models if isinstance(m, KAnonymity)), 5)
    )
    sensitive = project.columns_with(Role.SENSITIVE)
    target = getattr(args, "l_sensitive", None) or (sensitive[0] if sensitive else None)
    if (
        (getattr(args, "l", None) is not None or getattr(args, "t", None) is not None)
        and len(sensitive) > 1
        and not getattr(args, "l_sensitive", None)
    ):
        raise ConfigError(
            "Several sensitive attributes were given; name the one to protect with --protect COLUMN.",
            where="--sensitive",
        )
    return build_models(
        k,
        target,
        getattr(args, "l", None),
        getattr(args, "l_variant", "distinct"),
        getattr(args, "c", 2.0),
        getattr(args, "t", None),
        getattr(args, "t_distance", "equal"),
    )


def _output_options(args: argparse.Namespace, project):
    changes = {}
    if args.drop_suppressed:
        changes["drop_suppressed"] = True
    if getattr(args, "shuffle", None) is not None:
        changes["shuffle_seed"] = int(args.shuffle)
    if getattr(args, "allow_small_suppressed_group", False):
        changes["protect_suppressed_group"] = False
    return project.with_changes(**changes) if changes else project


def _write_release(args: argparse.Namespace, table, result):
    """Write the release (formula-like cells neutralized); the export summary, or None without --output."""
    from kanon_engine.export import ExportOptions, export_release

    if not args.output:
        return None
    options = ExportOptions(
        delimiter=_delimiter(args.output_delimiter) or ",", bom=bool(getattr(args, "bom", False))
    )
    return export_release(
        table, result, Path(args.output), options, project_path=getattr(args, "project", None)
    )


def _reports(
    args: argparse.Namespace, table, project, result, summary: dict[str, Any], written=None, workload=None
) -> None:
    from kanon_engine.fileio import refuse_input_overwrite

    for path in (args.report, getattr(args, "report_html", None), getattr(args, "report_pdf", None)):
        if path:
            refuse_input_overwrite(Path(path), [table.source, args.output])
    if args.output:
        import hashlib

        summary["release_file"] = str(args.output)
        summary["release_sha256"] = hashlib.sha256(Path(args.output).read_bytes()).hexdigest()
    summary["input_file"] = str(table.source) if table.source else None
    summary["input_sha256"] = table.sha256
    summary["software"] = f"kanon {__version__}"
    _write_json(args.report, summary)
    html, pdf = getattr(args, "report_html", None), getattr(args, "report_pdf", None)
    if html or pdf:
        from kanon_engine.report import write_reports

        write_reports(
            table,
            result,
            project,
            Path(html) if html else None,
            Path(pdf) if pdf else None,
            Path(args.output) if args.output else None,
            release=written.to_dict() if written is not None else None,
            project_path=getattr(args, "project", None),
            workload=workload,
        )


def _progress_printer(enabled: bool):
    import time

    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if enabled and now - last[0] > 0.5:
            last[0] = now
            print(f"  {fraction * 100:5.1f}%  {message}", file=sys.stderr)

    return progress


# --- apply ---------------------------------------------------------------------------------------------
def cmd_apply(args: argparse.Namespace) -> int:
    """Apply the given levels. With --k, classes failing the models are suppressed (within
    --suppression-limit, default: as many as needed); without --k the levels are applied as they are."""
    from kanon_engine.algorithms.full_domain import apply_transformation
    from kanon_engine.privacy.models import KAnonymity

    project, table = _project_and_table(args)
    _check_outputs(args, project)
    project = _output_options(args, project)
    enforce = args.k is not None
    project = project.with_changes(models=_models(args, project) if enforce else (KAnonymity(2),))
    config = project.config(table)
    levels = {c: int(v) for c, v in _pairs(args.levels, "--levels").items()} if args.levels else {}
    limit = 1.0 if args.suppression_limit is None else args.suppression_limit
    result = apply_transformation(
        table, config, levels, suppression_limit=limit, metric=args.metric or "dm", enforce=enforce
    )
    written = _write_release(args, table, result)
    summary = result.summary()
    _reports(args, table, project, result, summary, written)
    print(
        json.dumps(
            {k: summary[k] for k in ("records", "suppressed", "classes", "min_class_size", "transformation")},
            default=_json_default,
        )
    )
    return EXIT_OK


# --- anonymize -----------------------------------------------------------------------------------------
def cmd_anonymize(args: argparse.Namespace) -> int:
    from kanon_engine.algorithms import get_algorithm

    project, table = _project_and_table(args)
    _check_outputs(args, project)
    project = _output_options(args, project)
    project = project.with_changes(models=_models(args, project))
    name = args.algorithm or project.algorithm
    params = dict(project.algorithm_params)
    if name != project.algorithm:
        params = {}
    if args.suppression_limit is not None:
        params["suppression_limit"] = args.suppression_limit
    if args.metric is not None:
        params["metric"] = args.metric
    for key, value in _pairs(args.param, "--param").items():
        params[key.replace("-", "_")] = value
    from kanon_engine.algorithms import algorithms

    known = algorithms()
    if name in known:
        accepted = {p.name for p in known[name].params}
        params = {k: v for k, v in params.items() if k in accepted or k in _pairs(args.param, "--param")}
    algorithm = get_algorithm(name, **params)
    config = project.config(table)
    from kanon_engine.workload_cli import choose_workload, run_workload

    workload = choose_workload(args, table, config)
    config = config.with_changes(workload=workload)
    result = algorithm.run(table, config, progress=_progress_printer(args.verbose))
    written = _write_release(args, table, result)
    evaluation = run_workload(args, table, workload, result=result)
    result = replace(result, workload=evaluation)
    summary = result.summary()
    _reports(args, table, project, result, summary, written, evaluation)
    print(
        json.dumps(
            {
                k: summary.get(k)
                for k in (
                    "algorithm",
                    "records",
                    "suppressed",
                    "classes",
                    "min_class_size",
                    "discernibility",
                    "cavg",
                    "transformation",
                    "runtime_seconds",
                )
            },
            default=_json_default,
        )
    )
    return EXIT_OK


def cmd_hierarchy(args: argparse.Namespace) -> int:
    """Build a hierarchy for a column (the GUI wizard's builders) or check one against the data."""
    from kanon_engine.hierarchy import (
        date_hierarchy,
        default_hierarchy,
        interval_hierarchy,
        masking_hierarchy,
        read_arx_csv,
        validate_hierarchy,
        write_arx_csv,
    )

    _check_outputs(args, kinds={"output": "hierarchy"})
    table = _read(args.input, args.delimiter)
    series = table.column(args.column)
    if args.check:
        issues = validate_hierarchy(read_arx_csv(args.check, args.column), series)
        print(json.dumps([{"severity": i.severity, "message": i.message} for i in issues], indent=2))
        return EXIT_FAIL if any(i.severity == "error" for i in issues) else EXIT_OK
    values = series.dropna().astype(str).unique()
    if args.intervals:
        try:
            widths = [float(w) for w in _list(args.intervals)]
        except ValueError:
            raise ConfigError(
                f"--intervals expects widths such as 5,10,20; got '{args.intervals}'.", where="--intervals"
            ) from None
        h = interval_hierarchy(args.column, values, widths, bottom=args.bottom, top=args.top)
    elif args.dates:
        h = date_hierarchy(args.column, values, args.date_format, _list(args.dates))
    elif args.masking:
        h = masking_hierarchy(args.column, values)
    else:
        h = default_hierarchy(args.column, series, table.column_types.get(args.column))
    if not args.output:
        raise ConfigError(
            "--output is needed to write the hierarchy (or use --check FILE).", where="--output"
        )
    write_arx_csv(h, Path(args.output))
    print(
        json.dumps(
            {
                "column": args.column,
                "levels": h.height,
                "values": len(h.values),
                "distinct_per_level": [h.distinct_at(j) for j in range(h.depth)],
            }
        )
    )
    return EXIT_OK


def cmd_algorithms(args: argparse.Namespace) -> int:
    from kanon_engine.algorithms import algorithms

    for name, cls in algorithms().items():
        print(f"{name:18s} {cls.title}")
        if args.verbose:
            print(f"    {cls.description}")
            for p in cls.params:
                print(f"    --{p.name.replace('_', '-')}: {p.help}")
    if args.verbose:
        from kanon_engine.algorithms import HARDNESS_NOTE

        print()
        print(HARDNESS_NOTE)
    return EXIT_OK


# --- parser --------------------------------------------------------------------------------------------
def _add_table_flags(p: argparse.ArgumentParser, input_required: bool) -> None:
    p.add_argument(
        "input",
        nargs=None if input_required else "?",
        metavar="INPUT",
        help="the table (CSV/TSV/XLSX/Parquet)",
    )
    p.add_argument("--delimiter", help="field delimiter of INPUT (detected when omitted; 'tab' for TSV)")


def _add_config_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project", help="a kanon project file (JSON) with roles, hierarchies and settings")
    p.add_argument("--qi", help="quasi-identifiers, comma-separated")
    p.add_argument("--sensitive", help="sensitive attributes, comma-separated")
    p.add_argument("--identifier", help="identifier columns (removed from the release), comma-separated")
    p.add_argument(
        "--hierarchy",
        action="append",
        metavar="COL=FILE",
        help="ARX hierarchy CSV for a quasi-identifier (repeatable)",
    )
    p.add_argument("--k", type=int, help="k of k-anonymity")
    p.add_argument(
        "--suppression-limit",
        type=float,
        metavar="FRACTION",
        help="largest share of records that may be suppressed, 0 to 1",
    )
    p.add_argument("--metric", help="dm, dm-star, cavg, precision, height or entropy")
    p.add_argument("--output", help="where to write the release (.csv, .tsv, .xlsx, .parquet)")
    p.add_argument("--output-delimiter", help="delimiter of a CSV release (default ',')")
    p.add_argument("--bom", action="store_true", help="write a UTF-8 byte-order mark (for Excel)")
    p.add_argument("--report", metavar="R.json", help="write a JSON report")
    p.add_argument("--report-html", metavar="R.html", help="write the de-identification report as HTML")
    p.add_argument("--report-pdf", metavar="R.pdf", help="write the de-identification report as PDF")
    p.add_argument(
        "--drop-suppressed",
        action="store_true",
        help="drop suppressed records instead of masking their quasi-identifiers with *",
    )
    p.add_argument("--shuffle", type=int, metavar="SEED", help="shuffle the release's rows with this seed")
    p.add_argument(
        "--allow-small-suppressed-group",
        action="store_true",
        help="let the suppressed records kept in the release (all quasi-identifiers *) form a group "
        "smaller than k (by default it holds 0 or at least k records: Datafly's step 4)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m kanon_engine",
        description="k-anonymity by generalization and suppression (kanon engine).",
    )
    parser.add_argument("--version", action="version", version=f"kanon {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="is a table k-anonymous? (exit 0 yes, 1 no, 2 bad input)")
    _add_table_flags(p, True)
    p.add_argument("--qi", required=True, help="quasi-identifiers, comma-separated")
    p.add_argument("--k", required=True, help="k to check")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("apply", help="apply given generalization levels and write the release")
    _add_table_flags(p, False)
    _add_config_flags(p)
    p.add_argument("--levels", action="append", metavar="COL=N,...", help="level per quasi-identifier")
    p.set_defaults(func=cmd_apply)

    p = sub.add_parser("anonymize", help="search for a release that satisfies the privacy models")
    _add_table_flags(p, False)
    _add_config_flags(p)
    p.add_argument("--algorithm", help="datafly, samarati, incognito, optimal, mondrian, mondrian-relaxed")
    p.add_argument("--l", type=float, help="l of l-diversity (on the sensitive attribute)")
    p.add_argument("--l-variant", default="distinct", choices=("distinct", "entropy", "recursive"))
    p.add_argument("--c", type=float, default=2.0, help="c of recursive (c,l)-diversity")
    p.add_argument("--t", type=float, help="t of t-closeness (on the sensitive attribute)")
    p.add_argument("--t-distance", default="equal", choices=("equal", "ordered", "hierarchical"))
    p.add_argument(
        "--protect",
        dest="l_sensitive",
        metavar="COLUMN",
        help="the sensitive attribute l-diversity / t-closeness protect (when several are sensitive)",
    )
    p.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="an algorithm-specific parameter (e.g. summary=mean for Mondrian)",
    )
    p.add_argument("--verbose", "-v", action="store_true", help="print progress on stderr")
    p.add_argument(
        "--workload",
        metavar="FILE",
        help="the analyses the release is meant for (one aggregate query per line); the report's "
        "'workload' figures use it, and so does --param workload_aware=true (Mondrian)",
    )
    from kanon_engine.workload_cli import add_generator_flags, add_workload_subcommand

    add_generator_flags(p)
    p.set_defaults(func=cmd_anonymize)

    p = sub.add_parser("hierarchy", help="build a generalization hierarchy for a column, or check one")
    _add_table_flags(p, True)
    p.add_argument("--column", required=True, help="the column")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument(
        "--intervals", metavar="W1,W2,...", help="numeric intervals of nested widths, e.g. 5,10,20"
    )
    kind.add_argument("--dates", metavar="LEVELS", help="date levels, finest first, e.g. month,year,decade")
    kind.add_argument("--masking", action="store_true", help="mask characters right to left (ZIP codes, IDs)")
    kind.add_argument("--check", metavar="FILE", help="validate an ARX hierarchy file against the column")
    p.add_argument("--bottom", type=float, help="with --intervals: values below are coded '<bottom'")
    p.add_argument("--top", type=float, help="with --intervals: values from here on are coded '>=top'")
    p.add_argument("--date-format", help="with --dates: strftime format of the values (detected otherwise)")
    p.add_argument("--output", help="where to write the hierarchy (ARX CSV, ';'-separated)")
    p.set_defaults(func=cmd_hierarchy)

    p = sub.add_parser("algorithms", help="list the algorithms and their parameters")
    p.add_argument("--verbose", "-v", action="store_true")
    p.set_defaults(func=cmd_algorithms)

    try:
        from kanon_engine.risk_cli import add_risk_subcommand
    except ImportError:
        pass
    else:
        add_risk_subcommand(sub)
    from kanon_engine.risk_cli import _anonymize, _config

    add_workload_subcommand(sub, _config, _anonymize, _read)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from kanon_engine.fileio import InputGuard

    notes = _notes_on_stderr()
    try:
        with InputGuard() as args.guard:  # every file the command reads is protected from its writes
            return int(args.func(args))
    except Cancelled:
        print("Cancelled.", file=sys.stderr)
        return EXIT_CANCELLED
    except InfeasibleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INFEASIBLE
    except KanonError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("Cancelled.", file=sys.stderr)
        return EXIT_CANCELLED
    finally:
        notes()


def _notes_on_stderr():
    """Show the engine's file notes (stale temporary files removed) as ``note:`` lines on stderr while
    a command runs; returns the function that stops it."""
    import logging

    log = logging.getLogger("kanon_engine.fileio")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("note: %(message)s"))
    handler.setLevel(logging.INFO)
    log.addHandler(handler)
    level = log.level
    log.setLevel(logging.INFO)

    def stop() -> None:
        log.removeHandler(handler)
        log.setLevel(level)

    return stop
