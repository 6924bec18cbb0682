"""Command line: ``python -m kanon_engine check | apply | anonymize | hierarchy | risk | workload |
utility | algorithms``.

Flags and file formats are a contract (scripts use them). Exit codes: 0 success (``check``: the table
is k-anonymous), 1 ``check``: not k-anonymous / ``hierarchy --check``: errors found, 2 bad input (one
plain sentence on stderr naming the file, column or value), 3 no solution (infeasible), 130 cancelled.

argparse's own refusals (an unknown option, a missing value) are said in the same words and language as
every other bad input (:mod:`kanon_engine.cli.parser`).

One module per subcommand, each with ``register(subparsers)`` (its flags, ``func`` = what it runs);
adding a subcommand is a module plus one line in :data:`SUBCOMMANDS`. The flags that set what a project
file holds, and the one table mapping each of them to its project-file field, are in
:mod:`kanon_engine.cli.flags`; what the subcommands share otherwise is in :mod:`kanon_engine.cli.common`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from kanon_engine import __version__, i18n
from kanon_engine.cli import algorithms, anonymize, apply, check, hierarchy, risk, utility, workload
from kanon_engine.cli.common import EXIT_CANCELLED, EXIT_INFEASIBLE, EXIT_INPUT, EXIT_OK, notes_on_stderr
from kanon_engine.cli.flags import join_words
from kanon_engine.cli.parser import Parser
from kanon_engine.errors import Cancelled, InfeasibleError, KanonError
from kanon_engine.i18n.language import normalize, resolve_language
from kanon_engine.release.fileio import InputGuard

#: The subcommands, in the order ``--help`` lists them.
SUBCOMMANDS = (check, apply, anonymize, hierarchy, algorithms, risk, workload, utility)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="python -m kanon_engine",
        description="k-anonymity by generalization and suppression (kanon engine).",
    )
    parser.add_argument("--version", action="version", version=f"kanon {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in SUBCOMMANDS:
        command.register(sub)
    return parser


def message_language(argv: Sequence[str]) -> str:
    """The language of the command's messages, by the workbench's rule
    (:func:`kanon_engine.i18n.language.resolve_language`) with ``--language`` first: ``--language``,
    else ``KANON_LANG``, else the system's language, else English (a script that must read English
    sets ``KANON_LANG=en``). Read from the arguments before they are parsed, so even a bad argument is
    answered in that language."""

    args = list(argv)
    for i, arg in enumerate(args):
        value = None
        if arg == "--language" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--language="):
            value = arg.split("=", 1)[1]
        if value is not None and normalize(value) in i18n.available_languages():
            return str(normalize(value))
    return resolve_language()


def main(argv: Sequence[str] | None = None) -> int:
    # the messages speak the user's language (--language, KANON_LANG, the system's); the report's
    # language is the project's or --language (see session.export)
    i18n.install(message_language(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(join_words(list(sys.argv[1:] if argv is None else argv)))
    notes = notes_on_stderr()
    try:
        with InputGuard() as args.guard:  # every file the command reads is protected from its writes
            return int(args.func(args))
    except Cancelled:
        print(i18n._("Cancelled."), file=sys.stderr)
        return EXIT_CANCELLED
    except InfeasibleError as exc:
        print(i18n._("error: {message}", message=str(exc)), file=sys.stderr)
        return EXIT_INFEASIBLE
    except KanonError as exc:
        print(i18n._("error: {message}", message=str(exc)), file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print(i18n._("Cancelled."), file=sys.stderr)
        return EXIT_CANCELLED
    except BrokenPipeError:  # the reader of stdout stopped early (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    finally:
        notes()
