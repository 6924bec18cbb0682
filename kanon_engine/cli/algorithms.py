"""``algorithms``: the registered algorithms, and with ``-v`` their descriptions and flags, and why there is
no exact answer for big lattices."""

from __future__ import annotations

import argparse

from kanon_engine.algorithms import algorithms, hardness_note
from kanon_engine.cli.common import EXIT_OK, Subparsers
from kanon_engine.i18n import _


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("algorithms", help="list the algorithms and their parameters")
    p.add_argument("--verbose", "-v", action="store_true", help="describe each one and list its flags")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for name, cls in algorithms().items():
        print(f"{name:18s} {_(cls.title)}")
        if args.verbose:
            print(f"    {_(cls.description)}")
            for p in cls.params:
                print(f"    --{p.name.replace('_', '-')}: {p.shown_help}")
    if args.verbose:
        print()
        print(hardness_note())
    return EXIT_OK
