"""The command line's parser: argparse's own refusals (an unknown option, an option without its value, a
value not among its choices) said as every other bad input is, in the user's language and in one plain
sentence after ``error:``, exit code 2. argparse words them in English whatever the language (its
messages use the standard library's gettext domain, which kanon's catalogs do not fill), and prints its
usage lines before them; :func:`plain_words` reads its message and says it in kanon's words instead."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import NoReturn

from kanon_engine.cli.common import EXIT_INPUT
from kanon_engine.i18n import _

_Words = Callable[[re.Match[str], str], str]


def _unknown(m: re.Match[str], _prog: str) -> str:
    # (argparse's top parser says it, which does not know the command: its --help lists the commands)
    return _(
        "Unknown option or value: {given}; '--help' after the command lists its options.", given=m["given"]
    )


def _required(m: re.Match[str], prog: str) -> str:
    return _(
        "Missing: {arguments}. '{command} --help' says what is needed.", arguments=m["what"], command=prog
    )


def _one_of(m: re.Match[str], _prog: str) -> str:
    return _("One of {arguments} is needed.", arguments=m["what"])


def _ambiguous(m: re.Match[str], _prog: str) -> str:
    return _(
        "{option} could be any of {matches}: write the option in full.",
        option=m["option"],
        matches=m["matches"],
    )


#: argparse's messages (Python 3.11 and later) that are not about one argument, and kanon's words for them
_MESSAGES: tuple[tuple[re.Pattern[str], _Words], ...] = (
    (re.compile(r"unrecognized arguments: (?P<given>.*)", re.S), _unknown),
    (re.compile(r"the following arguments are required: (?P<what>.*)", re.S), _required),
    (re.compile(r"one of the arguments (?P<what>.*) is required", re.S), _one_of),
    (re.compile(r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)", re.S), _ambiguous),
)

_ARGUMENT = re.compile(r"argument (?P<flag>[^:]+): (?P<rest>.*)", re.S)
_CHOICE = re.compile(r"invalid choice: '(?P<value>.*)' \(choose from (?P<choices>.*)\)", re.S)
_TYPED = re.compile(r"invalid (?P<type>\w+) value: '(?P<value>.*)'", re.S)
_COUNT = re.compile(r"expected (?P<n>\d+) arguments?")


def _about_argument(flag: str, rest: str) -> str:
    """kanon's words for argparse's refusal of one argument (``flag``: the option, or ``command``)."""
    if rest == "expected one argument":
        return _("{flag} needs a value.", flag=flag)
    if rest == "expected at least one argument":
        return _("{flag} needs at least one value.", flag=flag)
    if rest == "expected at most one argument":
        return _("{flag} takes at most one value.", flag=flag)
    count = _COUNT.fullmatch(rest)
    if count:
        return _("{flag} needs {n} values.", flag=flag, n=count["n"])
    choice = _CHOICE.fullmatch(rest)
    if choice and flag == "command":
        return _(
            "'{value}' is not a command; the commands are {choices}.",
            value=choice["value"],
            choices=choice["choices"].replace("'", ""),
        )
    if choice:
        return _(
            "{flag}: '{value}' is not one of {choices}.",
            flag=flag,
            value=choice["value"],
            choices=choice["choices"].replace("'", ""),
        )
    typed = _TYPED.fullmatch(rest)
    if typed and typed["type"] == "int":
        return _("{flag} takes a whole number; got '{value}'.", flag=flag, value=typed["value"])
    if typed and typed["type"] == "float":
        return _("{flag} takes a number; got '{value}'.", flag=flag, value=typed["value"])
    if typed:  # (a type named by its function: an internal name, not said)
        return _("{flag}: '{value}' cannot be read.", flag=flag, value=typed["value"])
    other = re.fullmatch(r"not allowed with argument (?P<other>.*)", rest)
    if other:
        return _("{flag} cannot be used together with {other}.", flag=flag, other=other["other"])
    return f"{flag}: {rest}"  # (a refusal a flag's own type gave: already in kanon's words)


def plain_words(message: str, prog: str) -> str:
    """argparse's ``message`` in kanon's words (unchanged when it is none argparse words)."""
    for pattern, words in _MESSAGES:
        m = pattern.fullmatch(message)
        if m:
            return words(m, prog)
    argument = _ARGUMENT.fullmatch(message)
    if argument:
        return _about_argument(argument["flag"], argument["rest"])
    return message


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose refusals read like kanon's (its subcommands' parsers are of this class
    too: argparse makes them with the class of the parser they belong to)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(_("error: {message}", message=plain_words(message, self.prog)) + "\n")
        sys.exit(EXIT_INPUT)
