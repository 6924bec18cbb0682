"""Load benchmark: read_table + detect_types on a 1,000,000 x 15 synthetic CSV, beside plain pandas.

Prints the time of kanon's load (read as original strings, types detected) and of ``pandas.read_csv(path)``
with default settings, both measured in this run on this machine; the ratio is the figure to watch. Also
prints pandas read with the same semantics as kanon (all strings, only empty cells missing).
Also loads the Adult data set from shared/ when it is there. Run: ``python bench/bench_load.py [rows]``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kanon_engine.data import detect_types, read_table  # noqa: E402

T = TypeVar("T")
SHARED = Path(os.environ.get("KANON_SHARED", ROOT / ".." / "shared"))


def synthetic(rows: int, seed: int = 7) -> pd.DataFrame:
    """15 columns: 5 integers, 2 decimals, 3 dates, 4 categorical strings, 1 zip code with leading zeros."""
    rng = np.random.default_rng(seed)
    day0 = np.datetime64("1930-01-01")
    dates = day0 + rng.integers(0, 30000, size=(3, rows)).astype("timedelta64[D]")
    words = np.array(["Flu", "Cancer", "Asthma", "Diabetes", "HIV", "Gastritis", "Bronchitis", "Migraine"])
    cities = np.array([f"City{i}" for i in range(500)])
    return pd.DataFrame(
        {
            "id": np.arange(1, rows + 1),
            "age": rng.integers(0, 100, rows),
            "children": rng.integers(0, 8, rows),
            "income": rng.integers(10_000, 200_000, rows),
            "visits": rng.integers(0, 50, rows),
            "weight": np.round(rng.normal(75, 12, rows), 1),
            "height": np.round(rng.normal(1.7, 0.1, rows), 2),
            "birth": pd.Series(dates[0]).dt.strftime("%Y-%m-%d"),
            "admitted": pd.Series(dates[1]).dt.strftime("%d/%m/%Y"),
            "discharged": pd.Series(dates[2]).dt.strftime("%Y-%m-%d"),
            "sex": rng.choice(np.array(["Male", "Female"]), rows),
            "diagnosis": rng.choice(words, rows),
            "city": rng.choice(cities, rows),
            "name": np.char.add("P", rng.integers(0, 10**7, rows).astype(str)),
            "zip": np.char.zfill(rng.integers(0, 99999, rows).astype(str), 5),
        }
    )


def uncoded(frame: pd.DataFrame) -> pd.DataFrame:
    """The same text in new Arrow column objects: the codes kept with a loaded column
    (:mod:`kanon_engine.data.codes`) are not found, so detection is timed as the load pays it."""
    return pd.DataFrame(
        {c: pd.array(pa.chunked_array(frame[c].array._pa_array.chunks), dtype="str") for c in frame.columns}
    )


def timed(fn: Callable[[], T], repeat: int = 2) -> tuple[float, T]:
    """Best wall time of ``repeat`` runs after one warm-up run (file in the OS cache for both sides)."""
    best, out = float("inf"), fn()
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.csv"
        t0 = time.perf_counter()
        synthetic(rows).to_csv(path, index=False)
        size = path.stat().st_size / 2**20
        print(f"generated {rows:,} x 15 CSV ({size:.0f} MiB) in {time.perf_counter() - t0:.1f} s")

        t_pd, _ = timed(lambda: pd.read_csv(path))
        t_pd_str, _ = timed(
            lambda: pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""]), repeat=1
        )
        t_read, table = timed(lambda: read_table(path))
        t_types, _ = timed(lambda: detect_types(uncoded(table.frame)))
        print(f"pandas.read_csv(path) (reference)      {t_pd:6.2f} s")
        print(f"kanon read_table (incl. detect_types)  {t_read:6.2f} s   ratio {t_read / t_pd:.2f}x")
        print(f"  of which detect_types                {t_types:6.2f} s   (codes of each column included)")
        print(
            f"pandas.read_csv(path, dtype=str, keep_default_na=False) (same semantics) {t_pd_str:.2f} s, "
            f"ratio {t_read / t_pd_str:.2f}x"
        )
        kinds = {
            c: t.kind.value + (f" {t.date_format}" if t.date_format else "")
            for c, t in table.column_types.items()
        }
        print("  kinds:", ", ".join(f"{c}={k}" for c, k in kinds.items()))

    adult = SHARED / "datasets" / "adult" / "adult.csv"
    if adult.exists():
        t_pd, _ = timed(lambda: pd.read_csv(adult, sep=";"), repeat=3)
        t_read, table = timed(lambda: read_table(adult), repeat=3)
        print(
            f"Adult ({table.n_rows:,} rows): read_table {t_read * 1000:.0f} ms, "
            f"pandas.read_csv {t_pd * 1000:.0f} ms, ratio {t_read / t_pd:.2f}x"
        )
    else:
        print(f"Adult not found under {SHARED}; skipped")


if __name__ == "__main__":
    main()
