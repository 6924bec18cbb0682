"""Performance guard (issue 30): fails when kanon's engine time grows against a reference measured in the
same run.

CI has no shared datasets, so the guard builds its own table: 30,000 seeded Adult-like records (8
quasi-identifiers, hierarchies of 2-5 levels: a lattice of a few thousand transformations, as Adult's),
and a 12-quasi-identifier table whose domains multiply past 2**63 (issue 30's item 3: it must answer at
all). For every scenario it takes the median CPU time of kanon's whole engine run (warm, in this process) and
the median CPU time of the reference right before it, a plain pandas group-by of the Adult-like table's
quasi-identifiers, and compares the ratio with the one recorded in ``bench/perf_guard.json``. It fails
(exit 1) when a ratio exceeds ``MARGIN`` times its recorded value.

Why it is not flaky: a busy or slow machine slows kanon and pandas alike, so the ratio moves far less
than the times (on this 2-core machine shared by up to 8 jobs, issue 30's ratios moved by at most 1.6x
between quiet and loaded rounds); both are CPU times of this process (time waiting for a core is not
counted); each is a median of several runs after warm-ups; the recorded ratio is the higher of two
measurements; and a scenario over the margin is measured a second time and only fails if it is over
again. The margin, 3x over that top, is above the noise measured here (five runs of the guard at load
4.6-7.4 on 2 cores: a scenario's ratio moved by at most 2.1x between runs, most by 1.1-1.7x) and catches
the gross regressions: a table refused (the wide table before issue 30: an error, no answer), a thread
pool or a per-check message costing a multiple of the search. It does not catch a slow drift of less than
3x (issue 30's tree before its first speed pass was 1.5-1.8x slower on these scenarios):
bench/bench_adult.py measures that, beside ARX. On another machine the ratios may differ (a different CPU
favours numpy or pandas differently): record them there once with --record.

    python bench/perf_guard.py            # check (30-50 s); exit 1 on a regression
    python bench/perf_guard.py --record   # write the current ratios as the recorded ones (twice as long)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_adult import timed  # noqa: E402

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.config import AnonymizationConfig  # noqa: E402
from kanon_engine.data.io import read_table  # noqa: E402
from kanon_engine.hierarchy import interval_hierarchy  # noqa: E402
from kanon_engine.hierarchy.model import Hierarchy  # noqa: E402
from kanon_engine.privacy.models import KAnonymity  # noqa: E402

RECORDED = REPO / "bench" / "perf_guard.json"
#: A ratio fails when it exceeds this many times its recorded value (see the module's docstring).
MARGIN = 3.0
ROWS, WIDE_ROWS, WIDE_QI, WIDE_LEAVES = 30_000, 2_000, 12, 4_000


@dataclass
class Table:
    """A generated table: the engine's view, its hierarchies and the reference frame."""

    table: object
    hierarchies: dict[str, Hierarchy]
    frame: pd.DataFrame

    def reference(self) -> object:
        """The plain reference pass: one pandas group-by of the quasi-identifiers."""
        return self.frame.groupby(list(self.hierarchies), sort=False).size()


def _grouped(name: str, values: list[str], fanouts: tuple[int, ...]) -> Hierarchy:
    """Categorical hierarchy: values grouped by ``fanouts`` (innermost first), then ``*``."""
    rows = []
    for i, v in enumerate(values):
        row, width = [v], 1
        for f in fanouts:
            width *= f
            row.append(f"{name}{i // width}")
        rows.append([*row, "*"])
    return Hierarchy.from_rows(name, rows)


def adult_like(folder: Path) -> Table:
    """30,000 skewed Adult-like records over 8 quasi-identifiers (seeded: the same table every run)."""
    rng = np.random.default_rng(30)
    cards = {"a": 74, "b": 16, "c": 7, "d": 41, "e": 5, "f": 2, "g": 2, "h": 8}
    frame = pd.DataFrame(
        {
            q: (rng.zipf(1.6, ROWS) % n if q != "a" else rng.integers(17, 17 + n, ROWS)).astype(str)
            for q, n in cards.items()
        }
    )
    ages = [str(v) for v in range(17, 17 + cards["a"])]
    hs = {"a": interval_hierarchy("a", ages, (5, 10, 20))}
    fanouts = {"b": (2, 4), "c": (3,), "d": (4, 3), "e": (2,), "f": (), "g": (), "h": (2, 2)}
    for q, f in fanouts.items():
        hs[q] = _grouped(q, [str(v) for v in range(cards[q])], f)
    path = folder / "adult_like.csv"
    frame.to_csv(path, index=False)
    return Table(read_table(path), hs, pd.read_csv(path, dtype=str, keep_default_na=False))


def wide(folder: Path) -> Table:
    """12 quasi-identifiers of 4,000 values each (4000**12 > 2**63), 2,000 records from 150 patterns."""
    rng = np.random.default_rng(63)
    names = [f"w{i}" for i in range(WIDE_QI)]
    patterns = rng.integers(0, WIDE_LEAVES, size=(150, WIDE_QI))
    rows = patterns[rng.integers(0, len(patterns), WIDE_ROWS)]
    frame = pd.DataFrame({q: rows[:, i].astype(str) for i, q in enumerate(names)})
    path = folder / "wide.csv"
    frame.to_csv(path, index=False)
    leaves = [str(v) for v in range(WIDE_LEAVES)]
    hs = {q: interval_hierarchy(q, leaves, (100, 1000)) for q in names}
    return Table(read_table(path), hs, pd.read_csv(path, dtype=str, keep_default_na=False))


@dataclass(frozen=True)
class Scenario:
    name: str
    table: str  # "adult_like" or "wide"
    algorithm: str
    params: tuple[tuple[str, object], ...]
    k: int = 5


SCENARIOS = (
    Scenario("optimal_k5_0_dm", "adult_like", "optimal", (("suppression_limit", 0.0), ("metric", "dm"))),
    Scenario("optimal_k5_5_dm", "adult_like", "optimal", (("suppression_limit", 0.05), ("metric", "dm"))),
    Scenario(
        "optimal_k5_5_precision",
        "adult_like",
        "optimal",
        (("suppression_limit", 0.05), ("metric", "precision")),
    ),
    Scenario("mondrian_k5", "adult_like", "mondrian", ()),
    Scenario("wide_datafly_k4", "wide", "datafly", (("suppression_limit", 0.05),), k=4),
    Scenario("wide_mondrian_k4", "wide", "mondrian", (), k=4),
)


def ratio(tables: dict[str, Table], scenario: Scenario, warmups: int, runs: int) -> dict:
    """kanon's median CPU time over the reference's, measured right after it."""
    t = tables[scenario.table]
    config = AnonymizationConfig(tuple(t.hierarchies), t.hierarchies, (KAnonymity(scenario.k),))
    algorithm = get_algorithm(scenario.algorithm, **dict(scenario.params))
    run: Callable[[], object] = lambda: algorithm.run(t.table, config)  # noqa: E731
    # one reference for every scenario: the group-by of the Adult-like table (about 10 ms, long enough
    # to time steadily; the wide table's takes 2-4 ms)
    ref_cpu, _w, _r = timed(tables["adult_like"].reference, max(1, warmups), runs)
    try:
        cpu, _w, _r = timed(run, warmups, runs)
    except Exception as exc:  # a refused table is the worst regression: report it, do not stop the guard
        print(f"{scenario.name}: no answer: {exc}", flush=True)
        cpu = float("inf")
    return {"scenario": scenario.name, "cpu_ms": cpu * 1000, "ref_ms": ref_cpu * 1000, "ratio": cpu / ref_cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write the ratios measured as recorded")
    parser.add_argument("--warmups", type=int, default=2)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    recorded = {} if args.record else json.loads(RECORDED.read_text(encoding="utf-8"))["ratios"]
    with tempfile.TemporaryDirectory() as tmp:
        tables = {"adult_like": adult_like(Path(tmp)), "wide": wide(Path(tmp))}
        measured, failed = {}, []
        for scenario in SCENARIOS:
            row = ratio(tables, scenario, args.warmups, args.runs)
            limit = MARGIN * recorded[scenario.name] if recorded else None
            if args.record or (limit is not None and row["ratio"] > limit):
                # recording keeps the higher of two measurements (the top of the noise); checking
                # measures once more before failing
                again = ratio(tables, scenario, args.warmups, args.runs)
                row = max(row, again, key=lambda r: r["ratio"]) if args.record else again
            measured[scenario.name] = round(row["ratio"], 2)
            over = limit is not None and row["ratio"] > limit
            failed += [scenario.name] if over else []
            print(
                f"{scenario.name:24s} kanon {row['cpu_ms']:8.1f} ms  ref {row['ref_ms']:6.1f} ms"
                f"  ratio {row['ratio']:6.2f}"
                + (f"  (limit {limit:6.2f}{'  REGRESSION' if over else ''})" if limit else ""),
                flush=True,
            )
    if args.record:
        note = "CPU-time ratio kanon / pandas group-by, measured by bench/perf_guard.py --record"
        RECORDED.write_text(json.dumps({"note": note, "ratios": measured}, indent=2) + "\n", encoding="utf-8")
        print(f"recorded in {RECORDED}")
        return 0
    if failed:
        print(f"Performance guard: {len(failed)} scenario(s) past {MARGIN:g}x their recorded ratio: {failed}")
        return 1
    print(f"Performance guard: every ratio within {MARGIN:g}x its recorded value.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
