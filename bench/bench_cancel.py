"""How fast Cancel stops a DuckDB count (issue 28): target within 1 second on a 10-million-row count.

Cancel makes the next progress call raise :class:`kanon_engine.errors.Cancelled`. A DuckDB query runs in
DuckDB's own code, so the source waits for it in :func:`kanon_engine.progress.wait_cancellable`, which
asks the progress callback every 0.1 s and interrupts the query (``connection.interrupt()``) when it
raises. This writes a Parquet file of N rows (four integer quasi-identifiers: age, sex, a 5-digit zip,
a day), counts it once to the end on a fresh DuckDB source (the reference: encoding the rows, then the
GROUP BY), then again on fresh sources with Cancel pressed after each of the given delays, and prints
how long after the press the count stopped.

Run:  python bench/bench_cancel.py [--rows 10000000] [--delays 0.5,2,5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kanon_engine.errors import Cancelled  # noqa: E402
from kanon_engine.sources.backends.base import ColumnCoding, CountRequest  # noqa: E402
from kanon_engine.sources.backends.duckdb_source import DuckDBSource  # noqa: E402

#: Column -> number of distinct values (codes 0 .. n-1, written as integers).
COLUMNS = {"age": 90, "sex": 2, "zip": 40_000, "day": 3_000}


def write_table(path: Path, rows: int) -> None:
    rng = np.random.default_rng(0)
    data = {name: rng.integers(0, n, rows).astype(np.int32) for name, n in COLUMNS.items()}
    pq.write_table(pa.table(data), path, row_group_size=1 << 20)


def request() -> CountRequest:
    codings = tuple(
        ColumnCoding(name, tuple(str(v) for v in range(n)), np.arange(n, dtype=np.int32), -1, n)
        for name, n in COLUMNS.items()
    )
    return CountRequest(codings)


def full_count(path: Path, folder: Path) -> tuple[float, int]:
    with DuckDBSource(path, temp_dir=folder) as source:
        start = time.perf_counter()
        points = source.count(request(), lambda f, m: None)
        return time.perf_counter() - start, points.n_points


def cancelled_count(path: Path, folder: Path, delay: float) -> tuple[float, str]:
    """Seconds from the press of Cancel to the count's end, and how it ended."""
    pressed = threading.Event()

    def progress(fraction: float, message: str) -> None:
        if pressed.is_set():
            raise Cancelled()

    with DuckDBSource(path, temp_dir=folder) as source:
        outcome: list[str] = []
        ended = threading.Event()

        def count() -> None:
            try:
                source.count(request(), progress)
                outcome.append("finished")
            except Cancelled:
                outcome.append("cancelled")
            finally:
                ended.set()

        worker = threading.Thread(target=count)
        worker.start()
        time.sleep(delay)
        at = time.perf_counter()
        pressed.set()
        ended.wait()
        latency = time.perf_counter() - at
        worker.join()
        return latency, outcome[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--delays", default="0.5,2,5", help="seconds after the start to press Cancel")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kanon-bench-cancel-") as tmp:
        folder = Path(tmp)
        path = folder / "rows.parquet"
        write_table(path, args.rows)
        seconds, points = full_count(path, folder)
        print(f"reference: the whole count of {args.rows:,} rows took {seconds:.2f} s ({points:,} points)")
        worst = 0.0
        for delay in (float(d) for d in args.delays.split(",")):
            latency, how = cancelled_count(path, folder, delay)
            worst = max(worst, latency) if how == "cancelled" else worst
            print(f"Cancel pressed {delay:.1f} s in: the count {how} {latency * 1000:.0f} ms later")
        print(f"slowest stop: {worst * 1000:.0f} ms (target: under 1000 ms)")


if __name__ == "__main__":
    main()
