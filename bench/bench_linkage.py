"""Linkage attack demonstration on Adult (the workbench's Risk tab, ``risk --external``): how long the join
of a public list with the original data and with a release takes.

The public list is Adult itself with its columns renamed (the worst case: 30,162 people, every one of them
in the data), joined on the 8 quasi-identifiers with the original data (a hash join) and with the
5-anonymous release of the optimal search (labels matched through the hierarchies), then the 20 examples
the workbench lists. The reference, measured in the same run, is a plain-pandas count of the same join on
the original data: ``merge`` on the 8 columns, then the matches per person with a group-by. Figures are
CPU seconds (``time.process_time``), medians of 5 runs, so a busy shared machine affects both alike.

Run: python bench/bench_linkage.py [--shared PATH]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_local import cpu_median  # noqa: E402  (median CPU seconds of repeated calls)

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.config import AnonymizationConfig, build_models  # noqa: E402
from kanon_engine.data.io import read_table  # noqa: E402
from kanon_engine.hierarchy import read_arx_csv  # noqa: E402
from kanon_engine.metrics.linkage import linkage_attack, linkage_examples  # noqa: E402

QI = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"]


def pandas_singled_out(public: pd.DataFrame, original: pd.DataFrame) -> int:
    """The reference: people of the list matching exactly one record, by merge and group-by."""
    counts = original.groupby(QI, sort=False).size().rename("n").reset_index()
    joined = public.merge(counts, on=QI, how="left")
    return int((joined["n"] == 1).sum())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    folder = parser.parse_args().shared / "datasets" / "adult"
    table = read_table(folder / "adult.csv")
    hierarchies = {q: read_arx_csv(folder / f"adult_hierarchy_{q}.csv", q) for q in QI}
    config = AnonymizationConfig(tuple(QI), hierarchies, build_models(5))
    release = get_algorithm("optimal", suppression_limit=0.0).run(table, config).release
    renamed = {q: q.upper() for q in QI}
    public = table.frame.rename(columns=renamed)
    join = {q: renamed[q] for q in QI}

    ref, ref_value = cpu_median(lambda: pandas_singled_out(table.frame, table.frame), 5)
    before, link_before = cpu_median(lambda: linkage_attack(public, table, join=join), 5)
    both, link = cpu_median(
        lambda: linkage_attack(public, table, release, hierarchies=hierarchies, join=join), 5
    )
    examples, _ = cpu_median(lambda: linkage_examples(link, public, release, hierarchies, ["occupation"]), 5)
    assert link_before.before.singled_out == ref_value, "the join disagrees with the pandas reference"
    print(f"Adult: {table.n_rows:,} records; public list of {len(public):,} people; 8 join columns")
    before_n, after_n = link.before.singled_out, link.after.singled_out
    print(f"singled out: {before_n:,} by the original data, {after_n:,} by the release")
    print(f"{'plain pandas: merge + group-by (original only)':58s} {ref * 1000:9.1f} ms CPU   1.00 x ref")
    for name, seconds in (
        ("kanon: join with the original data", before),
        ("kanon: join with the original and the 5-anonymous release", both),
        ("kanon: the 20 examples (with the released values)", examples),
    ):
        print(f"{name:58s} {seconds * 1000:9.1f} ms CPU {seconds / ref:6.2f} x ref")


if __name__ == "__main__":
    main()
