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


def sub_progress(progress: ProgressCallback, start: float, end: float) -> ProgressCallback:
    """Map a phase's own 0..1 progress onto ``start..end`` of the parent's range."""
    span = end - start

    def report(fraction: float, message: str) -> None:
        progress(start + span * min(max(fraction, 0.0), 1.0), message)

    return report
