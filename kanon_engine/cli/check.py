"""``check``: is a table k-anonymous on the given quasi-identifiers? Exit 0 yes, 1 no, 2 bad input.

Counts the classes of the table as it is (a release or raw data); rows whose quasi-identifiers are all
``*`` are suppressed records and are counted apart (:func:`kanon_engine.core.table_check.check_table`).
"""

from __future__ import annotations

import argparse

from kanon_engine.cli.common import EXIT_FAIL, EXIT_OK, Subparsers, dumps, read, split_list
from kanon_engine.config import require_k_fits
from kanon_engine.core.table_check import check_table
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.privacy.k_anonymity import K


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("check", help="is a table k-anonymous? (exit 0 yes, 1 no, 2 bad input)")
    p.add_argument("input", metavar="INPUT", help="the table (CSV/TSV/XLSX/Parquet)")
    p.add_argument("--delimiter", help="field delimiter of INPUT (detected when omitted; 'tab' for TSV)")
    p.add_argument("--qi", required=True, metavar="COLS", help="quasi-identifiers, comma-separated")
    p.add_argument("--k", required=True, metavar="N", help=f"k to check: {K.help}")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    k = K.coerce(args.k)
    table = read(args.input, args.delimiter)
    qi = split_list(args.qi)
    if not qi:
        raise ConfigError(_("--qi needs at least one column."), where="--qi")
    table.require_columns(qi, "quasi-identifier")
    require_k_fits(k, table.n_rows)
    result = check_table(table.frame, qi, k)
    print(dumps(result.to_dict(), indent=2))
    return EXIT_OK if result.k_anonymous else EXIT_FAIL
