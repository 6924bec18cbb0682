"""Persons, not rows (issue 33, item 6): the person-level search against the row-level one.

A stay-level table of N stays of P patients (birth year, sex, area are the patient's; admission month and
ward the stay's; 5 stays per patient on average) is anonymized at k = 5 with a 5 % suppression limit,
once counting rows and once counting persons (``person = patient_id``, M = 1), by each algorithm given.
Printed per algorithm and count: the time of the run (wall clock, in this process, one after the other
on the same table), the smallest number of persons in a released class (recomputed here with pandas
from the release), the loss metric and the share of rows suppressed. Targets: person-level time <= 3x
the row-level time of the same algorithm; the optimal search on 1,000,000 stays of 200,000 patients in
<= 10 s.

Run:  python bench/bench_persons.py [--stays 1000000] [--patients 200000] [--algorithms optimal,mondrian]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.config import AnonymizationConfig, build_models  # noqa: E402
from kanon_engine.data.table import Table  # noqa: E402
from kanon_engine.hierarchy import default_hierarchy  # noqa: E402

QI = ("birth_year", "sex", "area", "month")
#: The algorithms that take a suppression limit (the others keep every row or suppress cells)
SUPPRESSING = ("optimal", "heuristic", "samarati", "incognito", "datafly")


def stay_table(stays: int, patients: int, seed: int = 0) -> Table:
    rng = np.random.default_rng(seed)
    pid = np.sort(rng.integers(0, patients, stays))
    birth = rng.integers(1930, 2010, patients)
    sex = rng.choice(np.array(["F", "M"]), patients)
    area = rng.integers(10000, 10400, patients)
    frame = pd.DataFrame(
        {
            "patient_id": pd.Series(pid).map("P{:07d}".format),
            "birth_year": birth[pid].astype(str),
            "sex": sex[pid],
            "area": area[pid].astype(str),
            "month": rng.integers(1, 13, stays).astype(str),
            "ward": rng.choice(np.array(list("ABCDEFGH")), stays),
        }
    )
    return Table(frame)


def run(table: Table, name: str, person: str | None) -> tuple[float, object]:
    hier = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in QI}
    ids = () if person else ("patient_id",)
    cfg = AnonymizationConfig(QI, hier, build_models(5), identifiers=ids, person=person)
    params = {"suppression_limit": 0.05} if name in SUPPRESSING else {}
    start = time.perf_counter()
    result = get_algorithm(name, **params).run(table, cfg)
    return time.perf_counter() - start, result


def smallest_persons(table: Table, result) -> int:
    rel = result.release.reset_index(drop=True)[list(QI)].astype(str)
    rel["person"] = table.frame["patient_id"].to_numpy()[result.release_rows]
    rel = rel[result.row_class[result.release_rows] >= 0]
    return int(rel.groupby(list(QI)).person.nunique().min())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stays", type=int, default=1_000_000)
    ap.add_argument("--patients", type=int, default=200_000)
    ap.add_argument("--algorithms", default="optimal")
    args = ap.parse_args()
    t0 = time.perf_counter()
    table = stay_table(args.stays, args.patients)
    print(
        f"table: {args.stays:,} stays of {args.patients:,} patients, made in {time.perf_counter() - t0:.1f} s"
    )
    for name in args.algorithms.split(","):
        rows_t, rows = run(table, name, None)
        pers_t, pers = run(table, name, "patient_id")
        for label, t, r in (("rows", rows_t, rows), ("persons", pers_t, pers)):
            loss = r.metrics.get("loss")
            print(
                f"{name:18s} {label:8s} {t:7.2f} s  smallest class {smallest_persons(table, r):4d} persons  "
                f"loss {loss if loss is None else round(loss, 4)}  suppressed {r.suppressed / r.records:.2%}"
            )
        print(f"{name:18s} persons/rows time: {pers_t / rows_t:.2f}x (target <= 3x)")


if __name__ == "__main__":
    main()
