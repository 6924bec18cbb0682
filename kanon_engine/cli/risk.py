"""``risk``: re-identification risk, homogeneity, the linkage demo and "why is this record unsafe".

Examples::

    # risk of the raw data (every record is a class of its own QI values)
    python -m kanon_engine risk patients.csv --qi age,sex,zipcode --sensitive disease
    # risk before and after, for a release written earlier
    python -m kanon_engine risk --project p.json --release release.csv
    # anonymize with the project's settings, then assess; report, linkage demo and explanations
    python -m kanon_engine risk --project p.json --anonymize --external voters.csv --explain 17 \\
        --report-html report.html --report-pdf report.pdf

    # with estimates of the share of population uniques (Pitman, Zayatz, SNB, Dankar et al.'s choice)
    python -m kanon_engine risk patients.csv --qi age,sex,zipcode --population-size 100000
    python -m kanon_engine risk patients.csv --qi age,sex,zipcode --population-region germany

Prints one JSON document on stdout (keys: ``before``, ``after``, ``linkage``, ``explanations``,
``definitions``; ``before``/``after`` hold ``population_uniques: {pitman, zayatz, snb, dankar,
dankar_chooses}`` with a population size, null where an estimator has no solution). The project
flags are the shared ones (:mod:`kanon_engine.cli.flags`); errors follow
the CLI's contract: one plain sentence on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

import pandas as pd

from kanon_engine.cli.common import (
    EXIT_OK,
    Subparsers,
    add_output_flags,
    add_release_flags,
    check_outputs,
    dumps,
    export_plan,
    read,
    save_project,
    warn,
)
from kanon_engine.cli.flags import add_project_flags, coerce, project_and_table, project_flags
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.table_check import check_population, check_release_of
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.metrics.explain import RecordExplainer
from kanon_engine.metrics.linkage import LinkageResult, linkage_attack
from kanon_engine.metrics.risk import DEFAULT_THRESHOLD, assess, definitions, with_population_uniques
from kanon_engine.privacy.population_estimates import REGIONS
from kanon_engine.project.project_file import Project
from kanon_engine.project.public_list import join_of, read_public_list
from kanon_engine.project.validation import require_valid
from kanon_engine.release.fileio import atomic_write_text, refuse_input_overwrite
from kanon_engine.result import AnonymizationResult
from kanon_engine.session import export, run_project
from kanon_engine.sources import rows_in_memory


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "risk",
        help="re-identification risk before/after, homogeneity, linkage demo, why a record is unsafe",
        description="Measure re-identification risk (prosecutor, journalist, marketer, sample uniques) and "
        "homogeneity of the sensitive attributes, for the original data and a release.",
    )
    add_project_flags(p)
    add_release_flags(p, release_help="a released table to assess against INPUT")
    p.add_argument(
        "--anonymize", action="store_true", help="run the project's algorithm first and assess its release"
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help="risk above which a record counts as at risk (default 0.2 = 1 in 5)",
    )
    p.add_argument(
        "--population",
        metavar="FILE",
        help="a table of the population the data was drawn from (journalist/marketer risk); "
        "without it the population is the table itself",
    )
    p.add_argument(
        "--population-region",
        choices=sorted(REGIONS),
        metavar="REGION",
        help="with the population estimates: the population is this region, of ARX's size for it ("
        + ", ".join(sorted(REGIONS))
        + "); --population-size gives any other size",
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
    add_output_flags(p, report_help="write the JSON printed on stdout to a file too")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Prints the JSON document, writes the optional files; returns 0."""
    _check_combination(args)
    project, source = project_and_table(args)
    table = rows_in_memory(source, _("The risk assessment"))
    config = project.config(table)
    check_outputs(args, project)
    save_project(args, project)
    common = _assess_options(args)
    before = assess(table, config.quasi_identifiers, config.sensitive, suppressed_marker=None, **common)
    size = _population_size(args)
    if size is not None:
        before = with_population_uniques(before, size)
    out: dict[str, Any] = {"before": before.to_dict()}
    warnings = check_population(before, common["population_name"], table.name()) if args.population else []
    result = None
    if args.anonymize:
        warn([i.message for i in require_valid(project, table)])
        result = run_project(project, table)
    release, more = _release(args, result, table, config)
    warnings += more
    if warnings:
        warn(warnings)
        out["warnings"] = warnings
    if release is not None:
        after = assess(
            release, config.quasi_identifiers, config.sensitive, hierarchies=config.hierarchies, **common
        )
        if size is not None:
            after = with_population_uniques(after, size)
        out["after"] = after.to_dict()
    link = _linkage(project, table, release, config)
    if link is not None:
        out["linkage"] = link.to_dict()
    if args.explain:
        explainer = RecordExplainer(table, config)
        out["explanations"] = [explainer.explain(row - 1, config.k).to_dict() for row in args.explain]
    if args.definitions:
        out["definitions"] = definitions()
    if result is not None:  # the release and its reports (--report is the JSON printed here)
        plan = dataclasses.replace(export_plan(args, project), report_json=None)
        export(table, project, result, plan, linkage=link, threshold=args.threshold)
    _print_and_save(args, table, dumps(out, indent=2))
    return EXIT_OK


def _release(
    args: argparse.Namespace, result: AnonymizationResult | None, table: Table, config: AnonymizationConfig
) -> tuple[Any, list[str]]:
    """The release to assess (the run's, or ``--release`` checked to be of this table) and warnings."""
    if result is not None:
        return result.release, []
    if not args.release:
        return None, []
    release = read(args.release, args.release_delimiter).frame
    return release, check_release_of(table, release, config, Path(args.release).name)


def _check_combination(args: argparse.Namespace) -> None:
    if (args.report_html or args.report_pdf or args.output) and not args.anonymize:
        raise ConfigError(
            _("--output, --report-html and --report-pdf need --anonymize (a run to report on)."),
            where="--anonymize",
        )
    if args.release and args.anonymize:
        raise ConfigError(
            _("Give either --release (assess a file) or --anonymize (make one), not both."), where="--release"
        )


def _population_size(args: argparse.Namespace) -> int | None:
    """The population the estimates of population uniques are for (``--population-size`` or
    ``--population-region``); None: no estimates."""
    if args.population_region:
        if args.population_size not in (None, "none"):
            raise ConfigError(
                _("Give either --population-size or --population-region, not both."),
                where="--population-region",
            )
        return REGIONS[args.population_region]
    if args.population_size in (None, "none"):
        return None
    return int(
        coerce(next(f for f in project_flags() if f.option == "--population-size"), args.population_size)
    )


def _assess_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "threshold": args.threshold,
        "population": read(args.population) if args.population else None,
        "population_name": Path(args.population).name if args.population else _("a population table"),
        "max_examples": args.max_examples,
    }


def _linkage(
    project: Project, table: Table, release: pd.DataFrame | None, config: AnonymizationConfig
) -> LinkageResult | None:
    """The linkage demonstration of the project's public list (``--external`` or the project's), on the
    saved or given join, else on the columns :func:`~kanon_engine.metrics.linkage.suggest_join` proposes."""
    public = project.public_list
    if public is None:
        return None
    list_table = read_public_list(public, project.base_dir)
    join = join_of(public, list_table, config.quasi_identifiers)
    if not join:
        return linkage_attack(list_table, table, release, quasi_identifiers=config.quasi_identifiers)
    return linkage_attack(list_table, table, release, hierarchies=config.hierarchies, join=join)


def _print_and_save(args: argparse.Namespace, table: Table, text: str) -> None:
    if args.report:
        refuse_input_overwrite(Path(args.report), [table.source, args.project, args.release])
        atomic_write_text(Path(args.report), text + "\n")
    print(text)
