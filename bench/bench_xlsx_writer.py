"""XLSX releases with text cells: kanon's writer (openpyxl write-only, text cells in columns of Excel's
Text format, issue 27) beside pandas' ``to_excel`` (what kanon used before, cells in the General format),
on the same table in the same run. CPU time of this process, median of ``--repeat`` runs.

Run:  python bench/bench_xlsx_writer.py [--rows 50000] [--columns 8] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kanon_engine.release.fileio import _xlsx_workbook  # noqa: E402


def _table(rows: int, columns: int) -> pd.DataFrame:
    """Postcode-like strings with leading zeros, some generalized, a few missing."""
    rng = np.random.default_rng(0)
    codes = np.array([f"0{v:04d}" for v in rng.integers(0, 9999, rows)], dtype=object)
    frame = pd.DataFrame({f"c{i}": codes.copy() for i in range(columns)})
    frame.iloc[::97, 0] = None
    frame.iloc[::5, 1] = "0****"
    return frame


def _cpu(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--columns", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    frame = _table(args.rows, args.columns)

    def kanon() -> None:
        _xlsx_workbook(frame).save(io.BytesIO())

    def pandas() -> None:
        frame.to_excel(io.BytesIO(), index=False, engine="openpyxl")

    ours, reference = _cpu(kanon, args.repeat), _cpu(pandas, args.repeat)
    cells = args.rows * args.columns
    print(f"{args.rows:,} rows x {args.columns} columns ({cells:,} cells), median of {args.repeat}:")
    print(f"  kanon (write-only, Text columns):{ours:6.2f} s CPU ({cells / ours:,.0f} cells/s)")
    print(f"  pandas to_excel (General):       {reference:6.2f} s CPU ({cells / reference:,.0f} cells/s)")


if __name__ == "__main__":
    main()
