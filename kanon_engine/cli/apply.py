"""``apply``: apply generalization levels the user chose and write the release.

With any privacy-model flag (``--k``, ``--l``, ``--t``, ...), the classes that fail the models are
suppressed within the suppression limit (default: as many as needed; ``--suppress cells``: only single
values of their records, the limit counting cells); without one the levels are applied
as they are and no model is claimed. The suppression limit and the metric come from their flags, else
from the project's algorithm when it has them.
"""

from __future__ import annotations

import argparse
from typing import Any

from kanon_engine.cli.common import (
    Subparsers,
    add_output_flags,
    finish_run,
    levels,
    save_project,
)
from kanon_engine.cli.flags import add_project_flags, given, run_inputs
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.session import apply_levels

#: What ``apply`` prints on stdout (one JSON line; a contract).
PRINTED = ("records", "suppressed", "classes", "min_class_size", "transformation")


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("apply", help="apply given generalization levels and write the release")
    add_project_flags(p, algorithm_choice=False)
    p.add_argument("--levels", action="append", metavar="COL=N,...", help="level per quasi-identifier")
    add_output_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with run_inputs(args) as (project, table):
        values = given(args, args.flags)
        enforce = any(field.startswith("models.") for field in values)
        params = project.algorithm_params
        limit = _setting(values, params, "suppression_limit", 1.0)
        metric = _setting(values, params, "metric", "dm")
        suppress = _setting(values, params, "suppress", "records")
        importance = _setting(values, params, "importance", None)
        save_project(args, project)
        # without a model flag no model is claimed (k = 2 only makes the configuration complete)
        config = (project if enforce else project.with_changes(models=(KAnonymity(2),))).config(table)
        result = apply_levels(
            table,
            config,
            levels(args.levels),
            suppression_limit=limit,
            metric=metric,
            enforce=enforce,
            suppress=suppress,
            importance=importance,
        )
        return finish_run(args, table, project, result, PRINTED)


def _setting(values: dict[str, Any], params: dict[str, Any], name: str, default: Any) -> Any:
    """A parameter of ``apply``: its flag, else the project's algorithm's, else ``default``."""
    field = f"algorithm.{name}"
    if field in values and values[field][1] is not None:
        return values[field][1]
    return params.get(name) if params.get(name) is not None else default
