"""Progress reporting and cancellation.

Engine loops call ``progress(fraction, message)`` at least once per lattice node or Mondrian split.
The caller cancels by making that call raise :class:`~kanon_engine.errors.Cancelled`; nothing else is
needed in the engine to support cancellation.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

ProgressCallback = Callable[[float, str], None]


def no_progress(fraction: float, message: str) -> None:
    """The default callback: ignores progress, never cancels."""


#: How often a wait for work done elsewhere (a DuckDB query, a Dask job) asks the progress callback
#: whether to go on: Cancel takes effect within this, plus the time the engine takes to stop.
POLL_SECONDS = 0.1

_T = TypeVar("_T")


def wait_cancellable(
    work: Callable[[], _T],
    progress: ProgressCallback,
    fraction: float,
    message: str,
    stop: Callable[[], object],
) -> _T:
    """Run ``work`` (one DuckDB query and its fetch, a Dask job) in a helper thread while this thread
    calls ``progress(fraction, message)`` every :data:`POLL_SECONDS`. An engine runs a query in its own
    code, so Cancel, which only makes the next progress call raise, would wait for the query to end; here
    the raise calls ``stop`` (DuckDB's ``interrupt``, Dask's ``cancel``) and is raised again as soon as
    the work has stopped. The callback is only ever called from this thread."""
    if progress is no_progress:
        return work()
    done: list[_T] = []
    failed: list[BaseException] = []

    def target() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            failed.append(exc)

    helper = threading.Thread(target=target, name="kanon-engine-work", daemon=True)
    helper.start()
    cancel: BaseException | None = None
    while helper.is_alive():
        helper.join(POLL_SECONDS)
        if helper.is_alive() and cancel is None:
            try:
                progress(fraction, message)
            except BaseException as exc:  # noqa: BLE001 - Cancelled, or the callback's own failure
                cancel = exc
                stop()
    if cancel is not None:
        raise cancel
    if failed:
        raise failed[0]
    return done[0]
