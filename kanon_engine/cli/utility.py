"""``utility``: does a release still answer the study's questions? (the researcher's view,
:mod:`kanon_engine.utility`).

Examples::

    # classifiers for salary-class on the original and on a release, every other column a feature
    python -m kanon_engine utility adult.csv --release release.csv --target salary-class
    # chosen features, the JSON written to a file too, and a contingency table of two attributes
    python -m kanon_engine utility adult.csv --release release.csv --target salary-class \\
        --features age,education,sex --contingency age,sex --report utility.json
    # the data file, its read options and the identifiers from a project
    python -m kanon_engine utility --project p.json --release release.csv --target diagnosis

Prints one JSON document on stdout: ``classification`` (the majority baseline, and per classifier its
accuracy, AUC for a two-valued target and Brier score on the original and on the release, with ARX's
relative accuracy), ``summary`` (per attribute, original against release) and ``moved_most``. Errors follow
the CLI's contract: one plain sentence on stderr, exit 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kanon_engine.cli.common import EXIT_OK, dumps, read
from kanon_engine.cli.flags import add_project_flags, project_and_table
from kanon_engine.data.roles import Role
from kanon_engine.data.table import loaded
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.release.fileio import atomic_write_text
from kanon_engine.utility.contingency import contingency
from kanon_engine.utility.study import fitness
from kanon_engine.utility.values import SUPPRESSED


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "utility",
        help="classifiers, summaries and contingency tables on the original and on a release",
        description="Train logistic regression, naive Bayes and a random forest on the original table and "
        "on a release (5-fold cross-validation) and compare them with the majority baseline; summarize "
        "every attribute before and after.",
    )
    add_project_flags(p, algorithm_choice=False)
    p.add_argument("--release", metavar="FILE", required=True, help="the released table to evaluate")
    p.add_argument("--release-delimiter", help="field delimiter of --release (detected when omitted)")
    p.add_argument("--features", metavar="COLS", help="the attributes to predict from (default: all others)")
    p.add_argument("--contingency", metavar="A,B", help="cross-tabulate two attributes before and after")
    p.add_argument("--report", metavar="R.json", help="write the JSON printed on stdout to a file too")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Prints the JSON document; returns 0."""
    project, table = project_and_table(args)
    target = project.algorithm_params.get("target")
    if not target:
        raise ConfigError(_("Name the attribute the study will predict with --target."), where="--target")
    if not table.in_memory:
        raise ConfigError(
            _(
                "The classifiers train on the records, so the study needs the table in memory; choose the "
                "in-memory engine (--engine memory)."
            ),
            where="--engine",
        )
    original = loaded(table).frame
    release = read(args.release, args.release_delimiter).frame
    mark = SUPPRESSED
    features = [c.strip() for c in args.features.split(",") if c.strip()] if args.features else None
    identifiers = project.columns_with(Role.IDENTIFIER)
    out = fitness(original, release, str(target), features, identifiers, mark)
    if args.contingency:
        pair = [c.strip() for c in args.contingency.split(",") if c.strip()]
        if len(pair) != 2 or any(c not in release.columns for c in pair):
            raise ConfigError(
                _(
                    "--contingency takes two columns of the release, separated by a comma; got '{value}'.",
                    value=args.contingency,
                ),
                where="--contingency",
            )
        out["contingency"] = contingency(original, release, pair[0], pair[1], mark)
    text = dumps(out, indent=2)
    if args.report:
        atomic_write_text(Path(args.report), text + "\n")
    print(text)
    return EXIT_OK
