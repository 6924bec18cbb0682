"""Progress reporting and cancellation.

Engine loops call ``progress(fraction, message)`` at least once per lattice node or Mondrian split.
The caller cancels by making that call raise :class:`~kanon_engine.errors.Cancelled`; nothing else is
needed in the engine to support cancellation.

A loop that reports thousands of times a second passes a :class:`LazyText` as the message: its words
(translated, numbers formatted for the language, ~30 µs with Babel, more than a check of a node on
Adult) are built only when a callback shows them, which the workbench and the CLI do a few times a
second. A callback that shows the message calls ``str(message)`` (or formats it) while it is called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ProgressCallback = Callable[[float, Any], None]


def no_progress(fraction: float, message: Any) -> None:
    """The default callback: ignores progress, never cancels."""


class LazyText:
    """Progress words built on first use (``str()``, formatting, or any ``str`` method), then kept.

    ``build`` returns the words, usually ``lambda: _("checking node {node}", node=n)``: the message
    stays a literal ``_()`` call, so the catalog extractor finds it.
    """

    __slots__ = ("_build", "_text")

    def __init__(self, build: Callable[[], str]) -> None:
        self._build: Callable[[], str] | None = build
        self._text = ""

    def __str__(self) -> str:
        if self._build is not None:
            self._text = self._build()
            self._build = None
        return self._text

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return repr(str(self))

    def __eq__(self, other: object) -> bool:
        return str(self) == (str(other) if isinstance(other, LazyText) else other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __contains__(self, part: str) -> bool:
        return part in str(self)

    def __getitem__(self, index: int | slice) -> str:
        return str(self)[index]

    def __len__(self) -> int:
        return len(str(self))

    def __add__(self, other: str) -> str:
        return str(self) + other

    def __radd__(self, other: str) -> str:
        return other + str(self)

    def __getattr__(self, name: str) -> Any:
        """Any other ``str`` method (``startswith``, ``split``...) on the words."""
        return getattr(str(self), name)
