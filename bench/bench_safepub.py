"""SafePub (issue 32): speed beside the plain k = 5 search in the same run, 1,000,000 rows, and the
utility of 20 differentially private releases of Adult at (epsilon, delta) = (1, 1e-5) beside
k-anonymity at the derived k (ARX's SafePub is not run here).

Speed: wall time of ``SafePub().run`` on Adult (8 quasi-identifiers, ARX hierarchies; the whole lattice
is scored) and of ``Optimal(suppression_limit=0.05).run`` at k = 5 on the same table, in this process;
then SafePub on Adult repeated to 1,000,000 rows (targets: at most 5x the k = 5 search; <= 10 s).

Utility: per run, the loss of the release measured against the table given (gcp, Xu et al. 2006's NCP
averaged over the quasi-identifiers; a record left out by the sampling or suppressed counts as fully
lost), its classes and its records; beside the optimal k-anonymous release at the derived k (loss
metric, suppression up to 100 %, the same suppression SafePub applies: classes < k removed).

Run: python bench/bench_safepub.py [--shared PATH] [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.config import AnonymizationConfig  # noqa: E402
from kanon_engine.data.table import Table  # noqa: E402
from kanon_engine.hierarchy import read_arx_csv  # noqa: E402
from kanon_engine.privacy import DifferentialPrivacy, KAnonymity  # noqa: E402

QI = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"]


def _loss_against_input(result, n_input: int) -> float:
    """gcp of the release over the table given: a record not released counts 1 (fully lost)."""
    n_sample = (
        result.records
        if result.differential_privacy is None
        else result.differential_privacy["records_sampled"]
    )
    return (result.metrics["gcp"] * n_sample + (n_input - n_sample)) / n_input


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.environ.get("KANON_SHARED", "/work/shared"))
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    adult = Path(args.shared) / "datasets" / "adult"
    frame = pd.read_csv(adult / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    table = Table.from_frame(frame)
    hs = {q: read_arx_csv(adult / f"adult_hierarchy_{q}.csv", q) for q in QI}
    dp = DifferentialPrivacy(1.0, 1e-5, 0.1)
    dp_config = AnonymizationConfig(tuple(QI), hs, (KAnonymity(5), dp))
    k5_config = AnonymizationConfig(tuple(QI), hs, (KAnonymity(5),))
    print(f"uptime: {os.popen('uptime').read().strip()}")
    print(f"derived at (1, 1e-5, 0.1): beta = {dp.derived.beta:.12f}, k = {dp.derived.k}")

    safepub = get_algorithm("safepub")
    get_algorithm("optimal", suppression_limit=0.05).run(table, k5_config)  # warm-up
    _r, t_k5 = _timed(lambda: get_algorithm("optimal", suppression_limit=0.05).run(table, k5_config))
    dp_runs, dp_times = [], []
    for _ in range(args.runs):
        r, t = _timed(lambda: safepub.run(table, dp_config))
        dp_runs.append(r)
        dp_times.append(t)
    t_dp = statistics.median(dp_times)
    print(
        f"Adult {table.n_rows} rows: optimal k=5 (5 % suppression) {t_k5:.2f} s; SafePub median {t_dp:.2f} s "
        f"= {t_dp / t_k5:.2f}x (target <= 5x)"
    )

    big = Table.from_frame(
        pd.concat([frame] * (1_000_000 // len(frame) + 1), ignore_index=True).iloc[:1_000_000]
    )
    _r, t_big = _timed(lambda: safepub.run(big, dp_config))
    print(f"SafePub on {big.n_rows:,} rows: {t_big:.2f} s (target <= 10 s)")

    k = dp.derived.k
    ka = get_algorithm("optimal", suppression_limit=1.0, metric="loss").run(
        table, AnonymizationConfig(tuple(QI), hs, (KAnonymity(k),))
    )
    losses = sorted(_loss_against_input(r, table.n_rows) for r in dp_runs)
    released = [r.released_records for r in dp_runs]
    q = statistics.quantiles(losses, n=4)
    print(f"SafePub (1, 1e-5), {args.runs} runs, loss against the input (gcp, 0 = nothing lost, 1 = all):")
    print(f"  min {losses[0]:.3f}  Q1 {q[0]:.3f}  median {q[1]:.3f}  Q3 {q[2]:.3f}  max {losses[-1]:.3f}")
    print(f"  records released: median {statistics.median(released):.0f} of {table.n_rows}")
    print(f"  transformations drawn: {sorted({tuple(r.transformation.values()) for r in dp_runs})}")
    print(
        f"k-anonymity at k = {k} (optimal, loss metric, suppression up to 100 %): loss "
        f"{_loss_against_input(ka, table.n_rows):.3f}, records released {ka.released_records}, "
        f"transformation {tuple(ka.transformation.values())}"
    )


if __name__ == "__main__":
    main()
