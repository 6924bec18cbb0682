"""Issue 30 item 4: ``--suppress cells`` at most 3x whole-record suppression, same run, same machine.

Adult (8 quasi-identifiers, the shared ARX hierarchies), the optimal search, k=5, 5 % suppression,
precision (the issue's scenario; ``--only`` picks others of the table below). Each scenario is run warm
in this process with whole records and with single cells (``--warmups`` then ``--runs`` times, medians of
CPU and wall time, what the CLI reports as the engine's run), beside a plain pandas group-by of the same
columns measured right before (the reference of ``bench_adult.py``). Printed: both times, the ratio
cells / records (the target is at most 3) and each one's ratio to the reference, the optimum of each and
the nodes checked.

    python bench/bench_cells.py [--shared PATH] [--warmups 2] [--runs 5] [--only k5_prec,...]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from bench_adult import QI, Adult, Scenario, timed  # noqa: E402

SCENARIOS = (
    Scenario("k5_prec", "k=5, 5 %, precision", 5, 0.05, "precision"),
    Scenario("k2_prec", "k=2, 5 %, precision", 2, 0.05, "precision"),
    Scenario("k10_prec", "k=10, 4 %, precision", 10, 0.04, "precision"),
    Scenario("l3_prec", "k=5 + distinct 3-diversity, 5 %, precision", 5, 0.05, "precision", ell=3),
)


def run_pair(adult: Adult, scenario: Scenario, warmups: int, runs: int) -> dict:
    """Reference, whole records and cells of one scenario, in that order, in this process."""
    ref_cpu, _ref_wall, _ = timed(adult.reference, max(1, warmups), runs)
    config = scenario.config(adult.hierarchies)
    out = {"ref": ref_cpu}
    for suppress in ("records", "cells"):
        kind = Scenario(**{**scenario.__dict__, "suppress": suppress})
        algorithm = kind.algorithm_instance()
        cpu, wall, result = timed(lambda a=algorithm: a.run(adult.table, config), warmups, runs)
        levels = [int(result.transformation[q]) for q in QI]
        out[suppress] = (cpu, wall, result.nodes_checked, levels, result.metrics.get("precision"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_shared = Path(os.environ.get("KANON_SHARED", REPO.parent / "shared"))
    parser.add_argument("--shared", type=Path, default=default_shared)
    parser.add_argument("--warmups", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="k5_prec", help="comma-separated scenario names, or 'all'")
    args = parser.parse_args()
    adult = Adult.load(args.shared)
    chosen = [s for s in SCENARIOS if args.only == "all" or s.name in args.only.split(",")]
    print(
        f"Adult, 8 quasi-identifiers, optimal: CPU medians of {args.runs} warm runs after {args.warmups};"
        " ref: a pandas group-by of the same columns"
    )
    for scenario in chosen:
        row = run_pair(adult, scenario, args.warmups, args.runs)
        ref = row["ref"]
        rec, cel = row["records"], row["cells"]
        print(
            f"{scenario.label:44s} ref {ref * 1000:6.1f} ms"
            f" | records {rec[0] * 1000:7.1f} ms (x{rec[0] / ref:5.1f},"
            f" {rec[2]} checked, {rec[3]}) | cells {cel[0] * 1000:7.1f} ms (x{cel[0] / ref:5.1f},"
            f" {cel[2]} checked, {cel[3]}) | cells/records {cel[0] / rec[0]:5.2f}",
            flush=True,
        )
    load = os.getloadavg()
    print(f"load: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
