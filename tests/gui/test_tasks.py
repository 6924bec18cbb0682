"""TaskRunner: results on the GUI thread, cancellation through the progress callback, superseded tasks
dropped, progress throttled, errors delivered (never lost)."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QThread

from kanon_engine.errors import ConfigError
from kanon_gui.tasks import PROGRESS_INTERVAL, TaskRunner

pytestmark = pytest.mark.gui


@pytest.fixture
def runner(qtbot):
    r = TaskRunner()
    yield r
    r.shutdown()


def _endless(progress, started: threading.Event | None = None):
    """A job that only stops when its progress callback raises (like an engine loop)."""
    i = 0
    while True:
        i += 1
        progress(0.5, f"step {i}")
        if started is not None:
            started.set()
        time.sleep(0.001)


def test_result_arrives_on_the_gui_thread(qtbot, runner):
    seen = {}

    def work(progress):
        seen["worker_thread"] = threading.get_ident()
        progress(1.0, "done")
        return 42

    def done(value):
        seen["value"] = value
        seen["on_gui_thread"] = QThread.currentThread() is qtbot_app_thread()

    with qtbot.waitSignal(runner.finished, timeout=5000) as blocker:
        runner.submit(work, channel="t", on_done=done)
    assert blocker.args[2] == 42
    assert seen["value"] == 42
    assert seen["on_gui_thread"]
    assert seen["worker_thread"] != threading.get_ident()
    assert not runner.is_busy()


def qtbot_app_thread():
    from PySide6.QtWidgets import QApplication

    return QApplication.instance().thread()


def test_cancel_stops_a_running_task(qtbot, runner):
    started = threading.Event()
    done = []
    runner.submit(lambda p: _endless(p, started), channel="run", on_done=done.append)
    assert started.wait(5)
    t0 = time.perf_counter()
    with qtbot.waitSignal(runner.cancelled, timeout=5000):
        runner.cancel("run")
    elapsed = time.perf_counter() - t0
    print(f"cancel took {elapsed * 1000:.1f} ms")
    assert done == []
    assert not runner.is_busy()
    assert runner.active() == []


def test_superseded_result_is_dropped(qtbot, runner):
    gate = threading.Event()
    results = []

    def slow(progress):
        gate.wait(5)
        return "old"

    runner.submit(slow, channel="run", on_done=results.append)
    with qtbot.waitSignal(runner.finished, timeout=5000) as blocker:
        runner.submit(lambda p: "new", channel="run", on_done=results.append)
        gate.set()
    assert blocker.args[2] == "new"
    qtbot.waitUntil(lambda: runner.active() == [], timeout=5000)
    qtbot.wait(50)
    assert results == ["new"]


def test_errors_are_delivered_not_swallowed(qtbot, runner):
    def bad(progress):
        raise ConfigError("k must be an integer of at least 2; got 1.")

    with qtbot.waitSignal(runner.failed, timeout=5000) as blocker:
        runner.submit(bad, channel="run")
    exc = blocker.args[2]
    assert isinstance(exc, ConfigError)
    assert "k must be an integer" in str(exc)


def test_progress_signals_are_throttled(qtbot, runner):
    received = []
    runner.progress.connect(lambda tid, ch, f, m: received.append(f))

    def chatty(progress):
        t_end = time.perf_counter() + 0.3
        n = 0
        while time.perf_counter() < t_end:
            n += 1
            progress(0.5, "x")
        progress(1.0, "end")
        return n

    with qtbot.waitSignal(runner.finished, timeout=5000) as blocker:
        runner.submit(chatty, channel="p")
    calls = blocker.args[2]
    qtbot.wait(20)
    # 0.3 s of calls at most one per interval, plus the first and the final one
    assert calls > 1000
    assert len(received) <= 0.3 / PROGRESS_INTERVAL + 3
    assert received[-1] == 1.0


def test_shutdown_cancels_and_waits(qtbot, runner):
    started = threading.Event()
    runner.submit(lambda p: _endless(p, started), channel="run")
    assert started.wait(5)
    assert runner.shutdown(5000)
    assert runner.active() == []
