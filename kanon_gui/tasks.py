"""Background execution of engine calls: one task runner (a QThreadPool) for the whole window.

The pattern follows Orange3's and napari's workers: the engine function runs in a pool thread and
reports progress through the engine's callback; results come back as Qt signals, which Qt delivers on
the GUI thread (queued connection, since the emitting thread is not the receiver's). Rules:

- A worker never touches a widget or :class:`~kanon_gui.state.AppState`: it gets a frozen snapshot
  (table, config, algorithm) and returns a frozen result.
- Cancel = the next ``progress(...)`` call raises :class:`kanon_engine.errors.Cancelled` (engine loops
  call it at least once per lattice node or Mondrian split, so a cancel takes effect within a second).
- Tasks are grouped in *channels* ("run", "load", ...): submitting a task supersedes the channel's
  previous task, which is cancelled and whose late result is dropped.
- Progress signals are throttled (at most one every ``PROGRESS_INTERVAL`` seconds per task), so a fast
  loop cannot flood the GUI thread's event queue.
- Closing the window calls :meth:`TaskRunner.shutdown`: cancel everything and wait.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from kanon_engine.errors import Cancelled, KanonError
from kanon_engine.progress import ProgressCallback

LOG = logging.getLogger("kanon_gui.tasks")

#: Minimum seconds between two progress signals of one task.
PROGRESS_INTERVAL = 0.05

TaskFunction = Callable[[ProgressCallback], Any]


class _WorkerSignals(QObject):
    """One per runner, living in the GUI thread; workers emit through it, so delivery is queued to the
    GUI thread. Only plain values cross threads (task id, fraction, message): results and exceptions
    stay on the task object and are read on the GUI thread, so no Python object is handed to Qt's
    queued-event machinery from a worker thread (whose reference counting is not safe everywhere)."""

    progress = Signal(int, float, str)
    ended = Signal(int)


@dataclass
class _Task:
    task_id: int
    channel: str
    label: str
    cancel_event: threading.Event = field(default_factory=threading.Event)
    superseded: bool = False
    finished: bool = False
    started_at: float = field(default_factory=time.perf_counter)
    outcome: str = ""  # "done", "error" or "cancelled", set by the worker before it emits ``ended``
    value: Any = None  # the result, or the exception


class _Worker(QRunnable):
    """Runs one task function in a pool thread; touches nothing but its task and the runner's signals."""

    def __init__(self, task: _Task, fn: TaskFunction, signals: _WorkerSignals) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self.task = task
        self.fn = fn
        self.signals = signals
        self._last_emit = 0.0

    def _progress(self, fraction: float, message: str) -> None:
        if self.task.cancel_event.is_set():
            raise Cancelled()
        now = time.perf_counter()
        if now - self._last_emit >= PROGRESS_INTERVAL or fraction >= 1.0:
            self._last_emit = now
            self.signals.progress.emit(self.task.task_id, float(fraction), str(message))

    def run(self) -> None:
        task = self.task
        try:
            if task.cancel_event.is_set():
                raise Cancelled()
            result = self.fn(self._progress)
            if task.cancel_event.is_set():
                raise Cancelled()
        except Cancelled:
            task.outcome, task.value = "cancelled", None
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the GUI, never vanish
            task.outcome, task.value = "error", exc
        else:
            task.outcome, task.value = "done", result
        finally:
            self.fn = None
        self.signals.ended.emit(task.task_id)


class TaskRunner(QObject):
    """Submits engine calls to a thread pool; re-emits their outcome on the GUI thread.

    Signals carry the task id and channel so the caller can tell its tasks apart:
    ``started(id, channel, label)``, ``progress(id, channel, fraction, message)``,
    ``finished(id, channel, result)``, ``failed(id, channel, exception)``, ``cancelled(id, channel)``,
    ``busy_changed(bool)``. Superseded tasks emit nothing after being superseded.
    """

    started = Signal(int, str, str)
    progress = Signal(int, str, float, str)
    finished = Signal(int, str, object)
    failed = Signal(int, str, object)
    cancelled = Signal(int, str)
    busy_changed = Signal(bool)

    _live: weakref.WeakSet[TaskRunner] = weakref.WeakSet()

    def __init__(self, parent: QObject | None = None, max_threads: int = 2) -> None:
        super().__init__(parent)
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(max_threads)
        self._next_id = 1
        self._tasks: dict[int, _Task] = {}
        self._current: dict[str, int] = {}  # channel -> newest task id
        self._signals = _WorkerSignals(self)
        self._signals.progress.connect(self._on_progress)
        self._signals.ended.connect(self._on_ended)
        self._callbacks: dict[int, tuple[Callable | None, Callable | None, Callable | None]] = {}
        TaskRunner._live.add(self)

    # --- queries ---------------------------------------------------------------------------------------
    @classmethod
    def live_runners(cls) -> list[TaskRunner]:
        """Every runner still alive (the test suite checks none has a task left running)."""
        return list(cls._live)

    def active(self) -> list[tuple[int, str, str]]:
        """(id, channel, label) of every task still running (superseded ones included)."""
        return [(t.task_id, t.channel, t.label) for t in self._tasks.values() if not t.finished]

    def is_busy(self, channel: str | None = None) -> bool:
        """Whether a (non-superseded) task runs, on ``channel`` or on any channel."""
        return any(
            not t.finished and not t.superseded and (channel is None or t.channel == channel)
            for t in self._tasks.values()
        )

    def current(self, channel: str) -> int | None:
        tid = self._current.get(channel)
        return tid if tid is not None and tid in self._tasks and not self._tasks[tid].finished else None

    # --- control ---------------------------------------------------------------------------------------
    def submit(
        self,
        fn: TaskFunction,
        *,
        channel: str = "run",
        label: str = "",
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
    ) -> int:
        """Run ``fn(progress)`` in the pool; returns the task id.

        ``on_done(result)`` / ``on_error(exc)`` (optional) are called on the GUI thread, like the
        ``finished``/``failed`` signals, unless the task was superseded or cancelled meanwhile;
        ``on_cancel()`` when the user cancelled it (not when a newer task superseded it).
        """
        was_busy = self.is_busy()
        old = self._current.get(channel)
        if old is not None and old in self._tasks and not self._tasks[old].finished:
            self._tasks[old].superseded = True
            self._tasks[old].cancel_event.set()
        tid = self._next_id
        self._next_id += 1
        task = _Task(tid, channel, label)
        self._tasks[tid] = task
        self._current[channel] = tid
        self._callbacks[tid] = (on_done, on_error, on_cancel)
        LOG.info("task %d (%s) started: %s", tid, channel, label)
        self.pool.start(_Worker(task, fn, self._signals))
        self.started.emit(tid, channel, label)
        if not was_busy:
            self.busy_changed.emit(True)
        return tid

    def cancel(self, channel: str | None = None) -> None:
        """Ask the task of ``channel`` (or every task) to stop; it ends at its next progress call."""
        for t in self._tasks.values():
            if not t.finished and (channel is None or t.channel == channel):
                t.cancel_event.set()

    def wait(self, timeout_ms: int = -1) -> bool:
        """Block until every task has ended (True) or the timeout passed (False)."""
        return bool(self.pool.waitForDone(timeout_ms))

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel everything and wait (closing the window). Late results are then dropped."""
        for t in self._tasks.values():
            t.superseded = True
        self.cancel()
        ok = self.wait(timeout_ms)
        if ok:
            for t in self._tasks.values():
                t.finished = True
            self._tasks.clear()
            self._callbacks.clear()
        return ok

    # --- worker outcome (GUI thread) -------------------------------------------------------------------
    def _end(self, tid: int) -> _Task | None:
        task = self._tasks.pop(tid, None)
        if task is None:
            return None
        task.finished = True
        LOG.info("task %d (%s) ended after %.2f s", tid, task.channel, time.perf_counter() - task.started_at)
        return task

    def _after(self) -> None:
        if not self.is_busy():
            self.busy_changed.emit(False)

    @Slot(int, float, str)
    def _on_progress(self, tid: int, fraction: float, message: str) -> None:
        task = self._tasks.get(tid)
        if task is not None and not task.superseded and not task.cancel_event.is_set():
            self.progress.emit(tid, task.channel, fraction, message)

    @Slot(int)
    def _on_ended(self, tid: int) -> None:
        task = self._end(tid)
        on_done, on_error, on_cancel = self._callbacks.pop(tid, (None, None, None))
        if task is not None:
            outcome, value = task.outcome, task.value
            task.value = None
            if task.superseded:
                pass
            elif outcome == "done" and not task.cancel_event.is_set():
                self.finished.emit(tid, task.channel, value)
                if on_done is not None:
                    on_done(value)
            elif outcome == "error":
                self.failed.emit(tid, task.channel, value)
                if on_error is not None:
                    on_error(value)
            else:
                self.cancelled.emit(tid, task.channel)
                if on_cancel is not None:
                    on_cancel()
        self._after()


def run_or_submit(
    runner: TaskRunner | None,
    fn: Callable[[], Any],
    *,
    on_done: Callable[[Any], None],
    on_error: Callable[[BaseException], None],
    **submit: Any,
) -> None:
    """``fn`` in ``runner``'s pool (``submit`` says its channel, label and ``on_cancel``), or at once on
    this thread when there is no runner (a view driven by a test); a KanonError goes to ``on_error``
    either way."""
    if runner is None:
        try:
            on_done(fn())
        except KanonError as exc:
            on_error(exc)
        return
    runner.submit(fn, on_done=on_done, on_error=on_error, **submit)
