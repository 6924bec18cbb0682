"""``hierarchy``: build a generalization hierarchy for a column (the workbench wizard's builders), or
check an ARX hierarchy file against the column (exit 1 when it has errors)."""

from __future__ import annotations

import argparse
from pathlib import Path

from kanon_engine.cli.common import EXIT_FAIL, EXIT_OK, Subparsers, check_outputs, dumps, read, split_list
from kanon_engine.data.dates import date_fit, describe_misfits, suggested_format
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.hierarchy import (
    date_hierarchy,
    default_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    read_arx_csv,
    validate_hierarchy,
    write_arx_csv,
)
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.i18n import _


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("hierarchy", help="build a generalization hierarchy for a column, or check one")
    p.add_argument("input", metavar="INPUT", help="the table (CSV/TSV/XLSX/Parquet)")
    p.add_argument("--delimiter", help="field delimiter of INPUT (detected when omitted; 'tab' for TSV)")
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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_outputs(args, output="hierarchy")
    table = read(args.input, args.delimiter)
    series = table.column(args.column)
    if args.check:
        issues = validate_hierarchy(read_arx_csv(args.check, args.column), series)
        print(dumps([{"severity": i.severity, "message": i.message} for i in issues], indent=2))
        return EXIT_FAIL if any(i.severity == "error" for i in issues) else EXIT_OK
    h = _build(args, table)
    if not args.output:
        raise ConfigError(
            _("--output is needed to write the hierarchy (or use --check FILE)."), where="--output"
        )
    write_arx_csv(h, Path(args.output))
    levels = [h.distinct_at(j) for j in range(h.depth)]
    print(
        dumps(
            {"column": args.column, "levels": h.height, "values": len(h.values), "distinct_per_level": levels}
        )
    )
    return EXIT_OK


def _build(args: argparse.Namespace, table: Table) -> Hierarchy:
    series = table.column(args.column)
    values = series.dropna().astype(str).unique()
    if args.intervals:
        try:
            widths = [float(w) for w in split_list(args.intervals)]
        except ValueError:
            raise ConfigError(
                _("--intervals expects widths such as 5,10,20; got '{intervals}'.", intervals=args.intervals),
                where="--intervals",
            ) from None
        return interval_hierarchy(args.column, values, widths, bottom=args.bottom, top=args.top)
    if args.dates:
        _check_one_date_format(table, args.column, args.date_format)
        return date_hierarchy(args.column, values, args.date_format, split_list(args.dates))
    if args.masking:
        return masking_hierarchy(args.column, values)
    return default_hierarchy(args.column, series, table.column_types.get(args.column))


def _check_one_date_format(table: Table, column: str, fmt: str | None) -> None:
    """Every value of the column fits one date format (``--date-format`` or the most common one)."""
    fit = date_fit(table.frame[column], fmt, column)
    if fit.misfits:
        raise DataError(
            describe_misfits(fit, table),
            hint=_(
                "kanon reads a column with one date format. Fix these values in the file, give the format "
                "with --date-format (e.g. {suggested_format}), or build another kind of hierarchy "
                "(--masking, or none of --dates/--intervals for the default).",
                suggested_format=suggested_format(fit),
            ),
            where=column,
        )
