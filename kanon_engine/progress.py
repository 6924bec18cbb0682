"""Progress reporting and cancellation.

Engine loops call ``progress(fraction, message)`` at least once per lattice node or Mondrian split.
The caller cancels by making that call raise :class:`~kanon_engine.errors.Cancelled`; nothing else is
needed in the engine to support cancellation.
"""

from __future__ import annotations

from collections.abc import Callable

ProgressCallback = Callable[[float, str], None]


def no_progress(fraction: float, message: str) -> None:
    """The default callback: ignores progress, never cancels."""
