"""Issue 30's scenarios on Adult: kanon's warm engine time beside a plain pandas group-by in the same run.

Every row of issue 30's table (Adult, 8 quasi-identifiers, the shared ARX hierarchies, the optimal search):
k=5 with 0 % and 5 % suppression under DM, DM*, k=2/10/50, distinct 3-diversity and equal-distance
0.2-closeness on occupation, precision and height. For each it runs kanon's whole engine run (counting the
points, the search, the plan of the release: what the CLI reports as ``runtime_seconds``) warm in this
process, ``--warmups`` times and then ``--runs`` times, and takes the medians of CPU time (this process's,
every thread counted) and wall time; right before, the same number of runs of the reference, a plain
``DataFrame.groupby(<the 8 columns>).size()`` of the loaded table. A busy machine slows both alike, so
the *ratio* kanon / reference is the figure to compare across runs and machines; ARX's figures (from
``--arx FILE``: lines ``ARX <scenario> wall_ms=... cpu_ms=...`` as printed by a driver measuring ARX warm
in its JVM) are shown beside the same reference.

Run in the default environment (no thread variables): a user's run has BLAS thread pools too.

    python bench/bench_adult.py [--shared PATH] [--warmups 3] [--runs 7] [--only k5_0_dm,...] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.config import AnonymizationConfig, build_models  # noqa: E402
from kanon_engine.data.io import read_table  # noqa: E402
from kanon_engine.hierarchy import read_arx_csv  # noqa: E402

QI = ("age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass")
SENSITIVE = "occupation"


@dataclass(frozen=True)
class Scenario:
    """One row of issue 30's table."""

    name: str  # also the ARX driver's name of it
    label: str
    k: int
    limit: float
    metric: str
    ell: float | None = None
    t: float | None = None
    algorithm: str = "optimal"
    suppress: str = "records"

    def config(self, hierarchies: dict) -> AnonymizationConfig:
        protected = self.ell is not None or self.t is not None
        models = build_models(self.k, SENSITIVE if protected else None, self.ell, "distinct", 2.0, self.t)
        return AnonymizationConfig(
            QI, {q: hierarchies[q] for q in QI}, models, sensitive=(SENSITIVE,) if protected else ()
        )

    def algorithm_instance(self):
        params = {"suppression_limit": self.limit, "metric": self.metric}
        if self.suppress != "records":
            params["suppress"] = self.suppress
        return get_algorithm(self.algorithm, **params)


SCENARIOS = (
    Scenario("k5_0_dm", "k=5, 0 %, DM", 5, 0.0, "dm"),
    Scenario("k5_5_dm", "k=5, 5 %, DM", 5, 0.05, "dm"),
    Scenario("k5_5_dmstar", "k=5, 5 %, DM*", 5, 0.05, "dm-star"),
    Scenario("k2_5_dm", "k=2, 5 %, DM", 2, 0.05, "dm"),
    Scenario("k10_5_dm", "k=10, 5 %, DM", 10, 0.05, "dm"),
    Scenario("k50_5_dm", "k=50, 5 %, DM", 50, 0.05, "dm"),
    Scenario("l3_5_dm", "k=5 + distinct 3-diversity, 5 %, DM", 5, 0.05, "dm", ell=3),
    Scenario("t02_5_dm", "k=5 + equal-distance 0.2-closeness, 5 %, DM", 5, 0.05, "dm", t=0.2),
    Scenario("k5_5_precision", "k=5, 5 %, precision", 5, 0.05, "precision"),
    Scenario("k5_5_height", "k=5, 5 %, height", 5, 0.05, "height"),
)


@dataclass
class Adult:
    """The table, its hierarchies and the reference frame (plain strings, as pandas reads them)."""

    table: object
    hierarchies: dict
    frame: pd.DataFrame

    @classmethod
    def load(cls, shared: Path) -> Adult:
        folder = shared / "datasets" / "adult"
        hs = {q: read_arx_csv(folder / f"adult_hierarchy_{q}.csv", q) for q in (*QI, SENSITIVE)}
        frame = pd.read_csv(folder / "adult.csv", sep=";", dtype=str, keep_default_na=False)
        return cls(read_table(folder / "adult.csv"), hs, frame)

    def reference(self) -> object:
        """The plain reference pass: one pandas group-by of the same 8 columns."""
        return self.frame.groupby(list(QI), sort=False).size()


def timed(fn: Callable[[], object], warmups: int, runs: int) -> tuple[float, float, object]:
    """(median CPU seconds, median wall seconds, last result) of ``runs`` calls after ``warmups``."""
    result = None
    for _ in range(warmups):
        result = fn()
    cpu, wall = [], []
    for _ in range(runs):
        c0, w0 = time.process_time(), time.perf_counter()
        result = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall), result


def measure(adult: Adult, scenario: Scenario, warmups: int, runs: int) -> dict:
    """One scenario, its reference measured just before it: figures, the work done and the optimum."""
    ref_cpu, ref_wall, _ = timed(adult.reference, max(1, warmups), runs)
    config = scenario.config(adult.hierarchies)
    algorithm = scenario.algorithm_instance()
    cpu, wall, result = timed(lambda: algorithm.run(adult.table, config), warmups, runs)
    metric_key = {"dm": "discernibility", "dm-star": "discernibility_star"}.get(
        scenario.metric, scenario.metric
    )
    return {
        "scenario": scenario.name,
        "cpu_ms": cpu * 1000,
        "wall_ms": wall * 1000,
        "ref_cpu_ms": ref_cpu * 1000,
        "ref_wall_ms": ref_wall * 1000,
        "ratio_cpu": cpu / ref_cpu,
        "ratio_wall": wall / ref_wall,
        "checked": result.nodes_checked,
        "levels": [int(result.transformation[q]) for q in QI],
        "value": result.metrics.get(metric_key),
    }


def arx_figures(path: Path | None) -> dict[str, dict[str, str]]:
    """ARX's lines from a driver's output: scenario -> its fields."""
    if path is None:
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[0] == "ARX":
            out[parts[1]] = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
    return out


def print_row(label: str, row: dict, arx: dict[str, str] | None) -> None:
    text = (
        f"{label:44s} CPU {row['cpu_ms']:7.1f} ms  wall {row['wall_ms']:7.1f} ms"
        f"  ref {row['ref_cpu_ms']:5.1f} ms  x{row['ratio_cpu']:5.1f}"
        f"  {row['checked']:5d} checked  {row['levels']}"
    )
    if arx:
        arx_ms = float(arx["cpu_ms"])
        text += f"  | ARX {arx_ms:7.1f} ms x{arx_ms / row['ref_cpu_ms']:5.1f}"
        text += f"  kanon/ARX {row['cpu_ms'] / arx_ms:4.2f}"
        if arx.get("levels") != ",".join(map(str, row["levels"])):
            text += f"  OPTIMUM DIFFERS: ARX {arx.get('levels')}"
    print(text, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_shared = Path(os.environ.get("KANON_SHARED", REPO.parent / "shared"))
    parser.add_argument("--shared", type=Path, default=default_shared)
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", help="comma-separated scenario names")
    parser.add_argument("--arx", type=Path, help="ARX driver output measured in the same time window")
    parser.add_argument("--json", action="store_true", help="one JSON object per scenario")
    args = parser.parse_args()
    adult = Adult.load(args.shared)
    chosen = [s for s in SCENARIOS if not args.only or s.name in args.only.split(",")]
    arx = arx_figures(args.arx)
    if not args.json:
        print(
            f"Adult, 8 quasi-identifiers: warm medians of {args.runs} runs after {args.warmups};"
            " ref: a pandas group-by of the same columns"
        )
    for scenario in chosen:
        row = measure(adult, scenario, args.warmups, args.runs)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print_row(scenario.label, row, arx.get(scenario.name))
    if not args.json:
        print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()
