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

import threading
from collections.abc import Callable
from typing import Any, TypeVar

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
