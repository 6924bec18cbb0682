"""Workload-driven quality on Adult (issue 13): how well each algorithm's release answers aggregate queries.

Prints, per algorithm and k (5 and 10), for two workloads -- a generated one (100 random range COUNT
queries over all 8 quasi-identifiers, selectivity 0.1, seed 1) and 50 range queries over age and
education (seed 7) -- the weighted mean and median relative error and the share of queries the release
matches (the seed's Mondrian paper, section 2.4). Workload-aware Mondrian is given the age/education
workload. Then the figures of the seed-semantics fixes: relaxed vs strict Mondrian (GCP, DM) and the
heights Samarati's binary search probes without and with the Datafly / per-attribute bounds. Finally the
CPU time of one workload evaluation beside a plain-pandas computation of the same exact answers, on
Adult and on Adult x30 (904,860 records, read from a CSV as the CLI reads it; the release of optimal
k=150, 5%, DM, measured with the generated workload ``anonymize`` always measures). The workload is
measured on frequency sets (distinct rows with counts): target under 0.2 s on x30.

    .venv/bin/python bench/bench_workload.py [--shared ../shared] [--only-timing]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.table_check import check_table
from kanon_engine.data import codes
from kanon_engine.data.io import read_table
from kanon_engine.data.table import Table
from kanon_engine.hierarchy import read_arx_csv
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.workload import evaluate_result, generate_workload
from kanon_engine.workload.exact import exact_answers
from kanon_engine.workload.generate import default_workload

QI = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"]
LIMIT = 0.05  # suppression limit of the full-domain algorithms
RUNS = [
    ("optimal", "optimal", {"suppression_limit": LIMIT}),
    ("datafly", "datafly", {"suppression_limit": LIMIT}),
    ("samarati", "samarati", {"suppression_limit": LIMIT}),
    ("mondrian", "mondrian", {}),
    ("mondrian-relaxed", "mondrian-relaxed", {}),
    ("mondrian, workload-aware", "mondrian", {"workload_aware": True}),
]


def load(shared: Path) -> tuple[Table, AnonymizationConfig]:
    d = shared / "datasets" / "adult"
    frame = pd.read_csv(d / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    hs = {q: read_arx_csv(d / f"adult_hierarchy_{q}.csv", q) for q in QI}
    return Table.from_frame(frame), AnonymizationConfig(tuple(QI), hs, (KAnonymity(5),))


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:6.2f} %"


def quality_table(table: Table, config: AnonymizationConfig) -> None:
    generated = generate_workload(table, config, 100, 0.1, seed=1)
    age_edu = generate_workload(table, config, 50, 0.1, attributes=["age", "education"], seed=7)
    print("Workload error on Adult (30,162 records, 8 QIs); full-domain algorithms with 5% suppression")
    print("generated: 100 COUNT queries over the QIs (2 each), selectivity 0.1; age/edu: 50 range queries")
    head = f"{'algorithm':26s} {'k':>3s} | {'generated: mean':>15s} {'median':>9s} {'match':>9s} |"
    print(head + f" {'age/edu: mean':>13s} {'median':>9s} {'match':>9s} | k-anon")
    print("-" * len(head) * 2)
    for k in (5, 10):
        cfg = config.with_changes(models=(KAnonymity(k),), workload=age_edu)
        for label, name, params in RUNS:
            result = get_algorithm(name, **params).run(table, cfg)
            g, a = evaluate_result(generated, table, result), evaluate_result(age_edu, table, result)
            safe = check_table(result.release, QI, k).k_anonymous
            print(
                f"{label:26s} {k:3d} | {pct(g.mean_error):>15s} {pct(g.median_error):>9s} "
                f"{pct(g.match_share):>9s} | {pct(a.mean_error):>13s} {pct(a.median_error):>9s} "
                f"{pct(a.match_share):>9s} | {'yes' if safe else 'NO'}"
            )
    print()


def relaxed_vs_strict(table: Table, config: AnonymizationConfig) -> None:
    print("Relaxed vs strict Mondrian on Adult (lower is better)")
    for k in (5, 10):
        cfg = config.with_changes(models=(KAnonymity(k),))
        for name in ("mondrian", "mondrian-relaxed"):
            m = get_algorithm(name).run(table, cfg).metrics
            print(f"  k={k:<3d} {name:17s} GCP {m['gcp']:.4f}  DM {m['discernibility']:>12,.0f}")
    print()


def samarati_heights(table: Table, config: AnonymizationConfig) -> None:
    print("Samarati's binary search on Adult: heights probed without / with the bounds")
    for k, limit in ((2, 0.0), (5, 0.0), (5, 0.05), (10, 0.02), (50, 0.0)):
        cfg = config.with_changes(models=(KAnonymity(k),))
        out = []
        for bounded in (False, True):
            algo = get_algorithm("samarati", suppression_limit=limit, bounded=bounded)
            result = algo.run(table, cfg)
            out.append((algo.probed, algo.bounds, result.nodes_checked, sum(result.transformation.values())))
        (p0, b0, c0, h0), (p1, b1, c1, h1) = out
        assert h0 == h1
        print(
            f"  k={k:<3d} limit {limit:4.2f}: height {h1:2d}; without bounds {len(p0)} heights {p0} "
            f"({c0} nodes checked); bounds {b1}: {len(p1)} heights {p1} ({c1} nodes checked)"
        )
    print()


def pandas_counts(frame: pd.DataFrame, workload) -> np.ndarray:
    """Reference: the same COUNT answers with plain pandas boolean masks, one query at a time."""
    age = pd.to_numeric(frame["age"])
    out = []
    for q in workload:
        mask = pd.Series(True, index=frame.index)
        for p in q.predicates:
            if hasattr(p, "low"):
                mask &= age.between(float(p.low.value), float(p.high.value))
            elif hasattr(p, "values"):
                mask &= frame[p.column].isin([v.text for v in p.values])
            elif p.column == "age":
                mask &= age == float(p.value.value)
            else:
                mask &= frame[p.column] == p.value.text
        out.append(float(mask.sum()))
    return np.array(out)


def timing(table: Table, config: AnonymizationConfig, repeat: int = 5) -> None:
    workload = generate_workload(table, config, 100, 0.1, seed=1)
    result = get_algorithm("mondrian").run(table, config)
    assert np.array_equal(exact_answers(workload, table), pandas_counts(table.frame, workload))
    ours, ref, exact = [], [], []
    for _ in range(repeat):
        t0 = time.process_time()
        evaluate_result(workload, table, result)
        t1 = time.process_time()
        exact_answers(workload, table)
        t2 = time.process_time()
        pandas_counts(table.frame, workload)
        t3 = time.process_time()
        ours.append(t1 - t0)
        exact.append(t2 - t1)
        ref.append(t3 - t2)
    print("CPU time, 100 queries on Adult (median of 5)")
    print(f"  kanon evaluation (exact answers + estimates from the release): {statistics.median(ours):.3f} s")
    print(
        f"  kanon exact answers alone:                                      {statistics.median(exact):.3f} s"
    )
    print(f"  plain pandas exact answers (reference):                         {statistics.median(ref):.3f} s")


def x30_timing(shared: Path, repeat: int = 5) -> None:
    """The workload measurement of ``anonymize`` on Adult x30, beside plain pandas's exact answers alone."""
    _, config = load(shared)
    config = config.with_changes(models=(KAnonymity(150),))
    text = (shared / "datasets" / "adult" / "adult.csv").read_text(encoding="utf-8")
    header, body = text.split("\n", 1)
    body = body if body.endswith("\n") else body + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "adult_x30.csv"
        path.write_text(header + "\n" + body * 30, encoding="utf-8")
        table = read_table(path)
    result = get_algorithm("optimal", suppression_limit=LIMIT, metric="dm").run(table, config)
    workload = default_workload(table, config)
    assert np.array_equal(exact_answers(workload, table), pandas_counts(table.frame, workload))
    gen, ev, ref = [], [], []
    for _ in range(repeat):
        t0 = time.process_time()
        default_workload(table, config)
        t1 = time.process_time()
        evaluate_result(workload, table, result)
        t2 = time.process_time()
        pandas_counts(table.frame, workload)
        t3 = time.process_time()
        gen.append(t1 - t0)
        ev.append(t2 - t1)
        ref.append(t3 - t2)
    g, e, r = (statistics.median(x) for x in (gen, ev, ref))
    codes._KEPT.clear()  # once more with the columns coded afresh (reading codes them for type detection)
    t0 = time.process_time()
    evaluate_result(default_workload(table, config), table, result)
    cold = time.process_time() - t0
    print(
        f"CPU time, Adult x30 ({table.n_rows:,} records), release of optimal k=150 5% DM (median of {repeat})"
    )
    rows = [
        ("generating the 100-query workload", g),
        ("evaluation (exact answers + estimates from the release)", e),
        ("kanon workload measurement in all (target under 0.2 s)", g + e),
        ("the same with the 8 columns coded afresh (not shared at reading)", cold),
        ("plain pandas exact answers alone, record by record (reference)", r),
    ]
    for label, seconds in rows:
        print(f"  {label + ':':66s} {seconds:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared"))
    parser.add_argument("--only-timing", action="store_true", help="only the CPU times (Adult and x30)")
    args = parser.parse_args()
    table, config = load(Path(args.shared))
    if not args.only_timing:
        quality_table(table, config)
        relaxed_vs_strict(table, config)
        samarati_heights(table, config)
    timing(table, config)
    x30_timing(Path(args.shared))


if __name__ == "__main__":
    main()
