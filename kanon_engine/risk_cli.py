"""``python -m kanon_engine risk``: re-identification risk, homogeneity, linkage demo and "why unsafe".

Wired into :mod:`kanon_engine.cli` by :func:`add_risk_subcommand`. Examples::

    # risk of the raw data (every record is a class of its own QI values)
    python -m kanon_engine risk patients.csv --qi age,sex,zipcode --sensitive disease
    # risk before and after, for a release written earlier
    python -m kanon_engine risk --project p.json --release release.csv
    # anonymize with the project's settings, then assess; report, linkage demo and explanations
    python -m kanon_engine risk --project p.json --anonymize --external voters.csv --explain 17 \\
        --report-html report.html --report-pdf report.pdf

Prints one JSON document on stdout (keys: ``before``, ``after``, ``linkage``, ``explanations``,
``definitions``). Errors follow the CLI's contract: one plain sentence on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kanon_engine.errors import ConfigError


def add_risk_subcommand(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``risk`` subcommand to the CLI's subparsers; returns its parser."""
    p = subparsers.add_parser(
        "risk",
        help="re-identification risk before/after, homogeneity, linkage demo, why a record is unsafe",
        description="Measure re-identification risk (prosecutor, journalist, marketer, sample uniques) and "
        "homogeneity of the sensitive attributes, for the original data and a release.",
    )
    p.add_argument("input", nargs="?", metavar="INPUT", help="the original table (or give --project)")
    p.add_argument("--delimiter", help="field delimiter of INPUT (detected when omitted)")
    p.add_argument("--project", help="a kanon project file with roles, hierarchies and settings")
    p.add_argument("--qi", help="quasi-identifiers, comma-separated")
    p.add_argument("--sensitive", help="sensitive attributes, comma-separated")
    p.add_argument("--identifier", help="identifier columns, comma-separated")
    p.add_argument("--hierarchy", action="append", metavar="COL=FILE", help="ARX hierarchy CSV (repeatable)")
    p.add_argument("--release", metavar="FILE", help="a released table to assess against INPUT")
    p.add_argument("--release-delimiter", help="field delimiter of --release (detected when omitted)")
    p.add_argument(
        "--anonymize", action="store_true", help="run the project's algorithm first and assess its release"
    )
    p.add_argument("--algorithm", help="algorithm for --anonymize (default: the project's)")
    p.add_argument("--k", type=int, help="k (for --anonymize and for --explain)")
    p.add_argument("--suppression-limit", type=float, metavar="FRACTION", help="for --anonymize")
    p.add_argument(
        "--threshold",
        type=float,
        default=0.2,
        help="risk above which a record counts as at risk (default 0.2 = 1 in 5)",
    )
    p.add_argument(
        "--population",
        metavar="FILE",
        help="a table of the population the data was drawn from (journalist/marketer risk); "
        "without it the population is the table itself",
    )
    p.add_argument(
        "--external",
        metavar="FILE",
        help="an outside list (e.g. a voter register) to join on shared quasi-identifiers",
    )
    p.add_argument(
        "--explain",
        type=int,
        action="append",
        metavar="ROW",
        help="explain why record ROW (1 = first data row) is unsafe (repeatable)",
    )
    p.add_argument("--max-examples", type=int, default=5, help="homogeneous groups listed per attribute")
    p.add_argument("--definitions", action="store_true", help="include the definitions of every figure")
    p.add_argument("--output", help="with --anonymize: write the release (.csv, .xlsx, .parquet)")
    p.add_argument("--report", metavar="R.json", help="write the JSON printed on stdout to a file too")
    p.add_argument("--report-html", metavar="R.html", help="with --anonymize: write the HTML report")
    p.add_argument("--report-pdf", metavar="R.pdf", help="with --anonymize: write the PDF report")
    p.set_defaults(func=cmd_risk)
    return p


def _read(path: str, delimiter: str | None):
    from kanon_engine.cli import _read as cli_read

    return cli_read(path, delimiter)


def _config(args: argparse.Namespace):
    """Project, table and configuration from the shared CLI flags."""
    from kanon_engine.cli import _project_and_table

    for name in ("qi", "sensitive", "identifier", "hierarchy"):
        if not hasattr(args, name):
            setattr(args, name, None)
    project, table = _project_and_table(args)
    if args.k is not None:
        from kanon_engine.cli import _models

        args.l = args.t = None  # risk has no l/t flags
        project = project.with_changes(models=_models(args, project))
    return project, table, project.config(table)


def _anonymize(args: argparse.Namespace, project, table, config):
    from kanon_engine.algorithms import algorithms, get_algorithm

    name = args.algorithm or project.algorithm
    params = dict(project.algorithm_params) if name == project.algorithm else {}
    if args.suppression_limit is not None:
        params["suppression_limit"] = args.suppression_limit
    known = algorithms()
    if name in known:
        accepted = {p.name for p in known[name].params}
        params = {k: v for k, v in params.items() if k in accepted}
    return get_algorithm(name, **params).run(table, config)


def cmd_risk(args: argparse.Namespace) -> int:
    """Handler of ``risk``: prints the JSON document, writes the optional files; returns 0."""
    from kanon_engine.explain import RecordExplainer
    from kanon_engine.linkage import linkage_attack
    from kanon_engine.metrics.risk import assess, definitions

    wants_report = args.report_html or args.report_pdf or args.output
    if wants_report and not args.anonymize:
        raise ConfigError(
            "--output, --report-html and --report-pdf need --anonymize (a run to report on).",
            where="--anonymize",
        )
    if args.release and args.anonymize:
        raise ConfigError(
            "Give either --release (assess a file) or --anonymize (make one), not both.", where="--release"
        )
    project, table, config = _config(args)
    from kanon_engine.outputs import check_cli_outputs

    check_cli_outputs(args, project)
    population = _read(args.population, None) if args.population else None
    pop_name = Path(args.population).name if args.population else "a population table"
    common = {
        "threshold": args.threshold,
        "population": population,
        "population_name": pop_name,
        "max_examples": args.max_examples,
    }
    out: dict[str, Any] = {}
    before = assess(table, config.quasi_identifiers, config.sensitive, suppressed_marker=None, **common)
    out["before"] = before.to_dict()
    result = None
    release_frame = None
    if args.anonymize:
        result = _anonymize(args, project, table, config)
        release_frame = result.release
    elif args.release:
        release_frame = _read(args.release, args.release_delimiter).frame
    if release_frame is not None:
        after = assess(
            release_frame,
            config.quasi_identifiers,
            config.sensitive,
            hierarchies=config.hierarchies,
            **common,
        )
        out["after"] = after.to_dict()
    link = None
    if args.external:
        external = _read(args.external, None)
        link = linkage_attack(
            external,
            table,
            release_frame,
            quasi_identifiers=config.quasi_identifiers,
            hierarchies=config.hierarchies,
        )
        out["linkage"] = link.to_dict()
    if args.explain:
        explainer = RecordExplainer(table, config)
        out["explanations"] = [explainer.explain(row - 1, args.k).to_dict() for row in args.explain]
    if args.definitions:
        out["definitions"] = definitions()
    if result is not None:
        _write_outputs(args, table, project, result, link)
    text = json.dumps(out, indent=2, ensure_ascii=False, default=_json_default)
    if args.report:
        from kanon_engine.fileio import atomic_write_text, refuse_input_overwrite

        refuse_input_overwrite(Path(args.report), [table.source, args.project, args.release])
        atomic_write_text(Path(args.report), text + "\n")
    print(text)
    return 0


def _write_outputs(args: argparse.Namespace, table, project, result, link) -> None:
    from kanon_engine.export import export_release
    from kanon_engine.report import write_reports

    release = None
    if args.output:
        release = export_release(table, result, Path(args.output), project_path=args.project).to_dict()
    if args.report_html or args.report_pdf:
        write_reports(
            table,
            result,
            project,
            Path(args.report_html) if args.report_html else None,
            Path(args.report_pdf) if args.report_pdf else None,
            Path(args.output) if args.output else None,
            release=release,
            linkage=link,
            threshold=args.threshold,
            project_path=args.project,
        )


def _json_default(o: Any) -> Any:
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(type(o).__name__)
