"""Cancel stops a running DuckDB query or Dask job, not only the engine's next step (issue 28).

Cancel makes the next progress call raise. A DuckDB source waits for its queries (and a Dask source for
its jobs) in :func:`kanon_engine.progress.wait_cancellable`, which asks the callback every 0.1 s and
interrupts the query (``connection.interrupt()``) or cancels the futures when it raises. Before, Cancel
waited for the whole GROUP BY. The 10-million-row figure is measured by ``bench/bench_cancel.py``.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kanon_engine.errors import Cancelled
from kanon_engine.i18n import _
from kanon_engine.progress import ProgressCallback, no_progress, wait_cancellable
from kanon_engine.sources.backends.base import ColumnCoding, CountRequest
from kanon_engine.sources.backends.duckdb_source import COUNTING, DuckDBSource

COLUMNS = {"age": 90, "sex": 2, "zip": 40_000, "day": 3_000}


def _request() -> CountRequest:
    return CountRequest(
        tuple(
            ColumnCoding(name, tuple(str(v) for v in range(n)), np.arange(n, dtype=np.int32), -1, n)
            for name, n in COLUMNS.items()
        )
    )


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    path = tmp_path_factory.mktemp("cancel") / "rows.parquet"
    rng = np.random.default_rng(0)
    n = 1_500_000
    pq.write_table(pa.table({c: rng.integers(0, k, n).astype(np.int32) for c, k in COLUMNS.items()}), path)
    return path


def _cancel_after(seconds: float, once: str | None = None) -> tuple[ProgressCallback, list[float]]:
    """A progress callback that raises Cancelled ``seconds`` after the start (or after it first hears
    ``once``), and the moment Cancel was thus pressed."""
    start, pressed = [None if once else time.perf_counter()], []

    def progress(fraction: float, message: str) -> None:
        if start[0] is None and message == once:
            start[0] = time.perf_counter()
        if start[0] is not None and time.perf_counter() - start[0] >= seconds:
            if not pressed:
                pressed.append(start[0] + seconds)
            raise Cancelled()

    return progress, pressed


@pytest.mark.slow
def test_cancel_stops_a_duckdb_count_mid_query(rows, tmp_path):
    """Cancel pressed while DuckDB groups the rows (it said so, then runs one long GROUP BY, with no
    step of the engine in between): the query is interrupted within a second, and the source still
    counts afterwards. Before, the GROUP BY ran to its end and the count returned."""
    with DuckDBSource(rows, temp_dir=tmp_path) as source:
        full = source.count(_request(), no_progress)
    with DuckDBSource(rows, temp_dir=tmp_path) as source:
        progress, pressed = _cancel_after(0.05, once=_(COUNTING))
        with pytest.raises(Cancelled):
            source.count(_request(), progress)
        assert time.perf_counter() - pressed[0] < 1.0
        assert source.count(_request(), no_progress).n_points == full.n_points


def test_a_wait_runs_the_work_and_hands_its_error_back():
    assert wait_cancellable(lambda: 7, no_progress, 0.5, "", lambda: None) == 7
    assert wait_cancellable(lambda: 8, lambda f, m: None, 0.5, "", lambda: None) == 8
    with pytest.raises(ZeroDivisionError):
        wait_cancellable(lambda: 1 / 0, lambda f, m: None, 0.5, "", lambda: None)


def test_a_wait_stops_the_work_when_the_callback_raises():
    stopped = threading.Event()
    calls: list[tuple[float, str]] = []

    def work() -> str:
        stopped.wait(5)
        raise InterruptedError("stopped from outside")

    def progress(fraction: float, message: str) -> None:
        calls.append((fraction, message))
        if len(calls) == 2:
            raise Cancelled()

    start = time.perf_counter()
    with pytest.raises(Cancelled):
        wait_cancellable(work, progress, 0.5, "counting", stopped.set)
    assert time.perf_counter() - start < 1.0
    assert calls == [(0.5, "counting"), (0.5, "counting")]


@pytest.mark.slow
def test_cancel_cancels_the_dask_futures(tmp_path):
    pytest.importorskip("distributed")
    from kanon_engine.sources.backends.dask_source import DaskSource

    path = tmp_path / "rows.csv"
    rng = np.random.default_rng(1)
    n = 400_000
    lines = "\n".join(f"{a},{z}" for a, z in zip(rng.integers(0, 90, n), rng.integers(0, 40_000, n)))
    path.write_text("age,zip\n" + lines + "\n", encoding="utf-8")
    request = CountRequest(
        tuple(
            ColumnCoding(c, tuple(str(v) for v in range(k)), np.arange(k, dtype=np.int32), -1, k)
            for c, k in (("age", 90), ("zip", 40_000))
        )
    )
    with DaskSource(path, workers=1) as source:
        progress, pressed = _cancel_after(0.05)
        with pytest.raises(Cancelled):
            source.count(request, progress)
        assert time.perf_counter() - pressed[0] < 1.0
        assert source.count(request, no_progress).n_points > 0  # cancelled pieces are made again
