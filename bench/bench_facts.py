"""What counting a release's facts costs (issue 27): the facts of a written release beside the write
itself, measured in the same run, on a 1,000,000-row release of 4 quasi-identifiers and a sensitive
attribute (in memory: one frame; streamed: the same rows fed in batches of 100,000, as the DuckDB and
Dask writers do).

The reference is writing the same frame as CSV with kanon's release writer: the facts should cost a
fraction of it.

Run:  python bench/bench_facts.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kanon_engine.release.writer import write_csv  # noqa: E402
from kanon_engine.report.facts import FactsTally, release_facts  # noqa: E402

QI = ["age", "zip", "sex", "admitted"]


def release(n: int, seed: int = 0) -> pd.DataFrame:
    """A generalized release: age bands, masked postcodes, sexes, admission months; a few all-'*' rows."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": pd.Categorical.from_codes(
                rng.integers(0, 10, n), [f"{10 * i}-{10 * i + 9}" for i in range(10)]
            ),
            "zip": pd.Categorical.from_codes(rng.integers(0, 50, n), [f"{i:03d}**" for i in range(50)]),
            "sex": pd.Categorical.from_codes(rng.integers(0, 3, n), ["F", "M", "*"]),
            "admitted": pd.Categorical.from_codes(
                rng.integers(0, 12, n), [f"2023-{m:02d}" for m in range(1, 13)]
            ),
            "diagnosis": pd.Categorical.from_codes(
                rng.integers(0, 200, n), [f"D{i:03d}" for i in range(200)]
            ),
        }
    )
    star = rng.random(n) < 0.01
    for q in QI:
        frame[q] = frame[q].cat.add_categories(["*"]) if "*" not in frame[q].cat.categories else frame[q]
        frame.loc[star, q] = "*"
    return frame


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    frame = release(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        write = timed(lambda: write_csv(Path(tmp) / "r.csv", frame))
    whole = timed(lambda: release_facts(frame, QI, ["diagnosis"], input_records=args.rows))

    def streamed() -> None:
        tally = FactsTally(QI, ["diagnosis"], input_records=args.rows)
        for start in range(0, args.rows, 100_000):
            tally.add(frame.iloc[start : start + 100_000].reset_index(drop=True))
        tally.facts()

    batches = timed(streamed)
    print(f"rows: {args.rows:,}; quasi-identifiers: {len(QI)}; one sensitive attribute")
    print(f"  write the release as CSV (reference): {write:6.2f} s")
    print(f"  facts of the release, one frame:      {whole:6.2f} s  ({whole / write:.2f} x the write)")
    print(f"  facts in batches of 100,000 rows:     {batches:6.2f} s  ({batches / write:.2f} x the write)")


if __name__ == "__main__":
    main()
