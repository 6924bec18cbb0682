"""Typed errors. Every message is one plain sentence that names the file, row, column or value
concerned, followed by what to do about it, so the GUI and the CLI can show it as it is."""

from __future__ import annotations

from typing import Any

from kanon_engine.i18n import _, formats

_CONTROL = {c: f"\\x{c:02x}" for c in (*range(32), 127)}


def visible(text: str) -> str:
    """``text`` with control characters written as ``\\x00`` escapes: a value quoted in a message (a NUL
    byte, a line break inside a cell) must show, not vanish or break the one line a message is."""
    return text.translate(_CONTROL) if any(ord(ch) < 32 or ord(ch) == 127 for ch in text) else text


def shown_value(value: Any) -> str:
    """A value quoted in a message: a number in the language's format (3,5 in German, not 3.5; 3, not
    3.0), anything else as typed, in quotes."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return formats.decimal(value, 6)
    return repr(visible(str(value)))


class KanonError(Exception):
    """Base of every error the engine raises on purpose.

    ``hint`` says what the user can do; ``where`` names the file/column/value concerned (for the GUI,
    which shows the message next to the place it concerns).
    """

    kind = "error"

    def __init__(self, message: str, *, hint: str = "", where: str = "") -> None:
        message = visible(message)
        super().__init__(message)
        self.message = message
        self.hint = visible(hint)
        self.where = where

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()


class DataError(KanonError):
    """The input table cannot be read or does not fit what was asked (columns, values, types)."""

    kind = "data"


class HierarchyError(KanonError):
    """A generalization hierarchy is malformed or does not cover the data."""

    kind = "hierarchy"


class ConfigError(KanonError):
    """A parameter or role assignment is invalid (``k must be an integer >= 2; got 1``)."""

    kind = "config"


class InfeasibleError(KanonError):
    """No transformation satisfies the privacy model within the limits, or the search is too large."""

    kind = "infeasible"


class Cancelled(KanonError):
    """The user cancelled a running computation (raised from the progress callback)."""

    kind = "cancelled"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or _("The computation was cancelled."))
