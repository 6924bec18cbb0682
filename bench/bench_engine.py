"""Engine benchmark on Adult: load, encode, checks, and the full-domain searches.

Every figure is printed beside a reference measured in the same run on the same machine: a plain-pandas
group-by check of one transformation (generalize the 8 QIs with dict lookups, group, count), so the
ratio holds on a noisy shared machine. ARX 3.9.2 figures quoted from issue 14 (same machine type, same
metric DM and suppression limit): optimal k=5 0% suppression 24 ms (122 checks), 5% suppression 385 ms
(1,639 checks). bench/bench_models.py compares every scenario of that issue.

Run: python bench/bench_engine.py [--shared PATH]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.config import AnonymizationConfig  # noqa: E402
from kanon_engine.core.encoding import encode_table  # noqa: E402
from kanon_engine.core.evaluation import NodeEvaluator  # noqa: E402
from kanon_engine.core.lattice import Lattice  # noqa: E402
from kanon_engine.data.io import read_table  # noqa: E402
from kanon_engine.data.table import Table  # noqa: E402
from kanon_engine.hierarchy import read_arx_csv  # noqa: E402
from kanon_engine.privacy.models import KAnonymity  # noqa: E402

QI = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"]


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def pandas_check(frame: pd.DataFrame, maps: dict[str, dict[str, str]], k: int) -> int:
    """The reference: generalize with dict lookups and count classes with a pandas group-by."""
    gen = pd.DataFrame({q: frame[q].map(m) for q, m in maps.items()})
    sizes = gen.groupby(list(maps), sort=False).size()
    return int(sizes[sizes < k].sum())


def row(name: str, seconds: float, ref: float, note: str = "") -> None:
    print(f"{name:58s} {seconds * 1000:10.2f} ms   {seconds / ref:8.3f} x ref   {note}")


def main() -> None:
    parser = argparse.ArgumentParser()
    default_shared = Path(os.environ.get("KANON_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    parser.add_argument("--shared", type=Path, default=default_shared)
    args = parser.parse_args()
    adult = args.shared / "datasets" / "adult"

    t_load = best_of(lambda: read_table(adult / "adult.csv"), 3)
    table = read_table(adult / "adult.csv")
    hs = {q: read_arx_csv(adult / f"adult_hierarchy_{q}.csv", q) for q in QI}
    config = AnonymizationConfig(tuple(QI), hs, (KAnonymity(5),))
    t_encode = best_of(lambda: encode_table(table, QI, hs), 3)
    enc = encode_table(table, QI, hs)

    node = (1, 1, 1, 1, 0, 0, 0, 1)
    maps = {q: dict(zip(h.matrix[:, 0], h.matrix[:, lv])) for (q, h), lv in zip(hs.items(), node)}
    ref = best_of(lambda: pandas_check(table.frame, maps, 5), 5)
    print(f"reference: plain-pandas group-by check of one transformation = {ref * 1000:.2f} ms\n")
    row("load Adult (read_table + type detection)", t_load, ref)
    row("encode 8 QIs", t_encode, ref)

    fresh = NodeEvaluator(enc, (KAnonymity(5),), 0)
    t_one = best_of(lambda: fresh.frequency_set(node), 20)
    row(
        "check one transformation (roll-up from the bottom frequency set)",
        t_one,
        ref,
        f"bottom frequency set: {fresh.base.size} rows",
    )
    lattice = Lattice(enc.heights)

    def check_all() -> None:
        ev = NodeEvaluator(enc, (KAnonymity(5),), 0)
        for i in lattice.bottom_up_order():
            ev.evaluate(lattice.levels[i])

    t_all = best_of(check_all, 2)
    row(
        f"check all {lattice.size:,} transformations (cached roll-ups)",
        t_all,
        ref,
        f"{t_all / lattice.size * 1e6:.0f} us per check",
    )
    print()

    for name, params, arx in [
        ("optimal", {"suppression_limit": 0.0, "metric": "dm"}, "ARX 24 ms (DM, 122 checks)"),
        ("optimal", {"suppression_limit": 0.05, "metric": "dm"}, "ARX 385 ms (DM, 1,639 checks)"),
        ("datafly", {}, "target < 100 ms"),
        ("samarati", {"suppression_limit": 0.05, "metric": "dm"}, ""),
        ("incognito", {"suppression_limit": 0.05, "metric": "dm"}, ""),
    ]:
        result = get_algorithm(name, **params).run(table, config)
        t = best_of(lambda n=name, p=params: get_algorithm(n, **p).run(table, config), 3)
        row(
            f"{name} {params}",
            t,
            ref,
            f"{result.nodes_checked} checked, DM {result.metrics['discernibility']:,.0f}; {arx}",
        )

    print()
    from kanon_engine.algorithms.search import LatticeSearch
    from kanon_engine.metrics.loss import get_metric

    for limit, arx in ((0.0, "ARX 24 ms (DM, 122 checks)"), (0.05, "ARX 385 ms (DM, 1,639 checks)")):
        allowance = int(limit * enc.n_rows)

        def search_only(a=allowance) -> LatticeSearch:
            s = LatticeSearch(enc, (KAnonymity(5),), a, get_metric("dm"))
            s.descend()
            s.tag_lattice(prune=True)
            s.optimize()
            return s

        checks = search_only().checks
        t = best_of(search_only, 5)
        row(
            f"optimal search only (no encoding, no release), {limit:.0%} suppression",
            t,
            ref,
            f"{checks} checked; {arx}",
        )

    print()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            sys.executable,
            "-m",
            "kanon_engine",
            "anonymize",
            str(adult / "adult.csv"),
            "--qi",
            ",".join(QI),
            "--algorithm",
            "optimal",
            "--k",
            "5",
            "--suppression-limit",
            "0.05",
            "--output",
            str(Path(tmp) / "out.csv"),
        ]
        for q in QI:
            cmd += ["--hierarchy", f"{q}={adult / f'adult_hierarchy_{q}.csv'}"]
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))

        def whole() -> None:
            subprocess.run(cmd, check=True, capture_output=True, env=env)

        t_cli = best_of(whole, 3)
        row("whole `python -m kanon_engine anonymize` process (optimal, 5%)", t_cli, ref, "target < 1.5 s")

    big = Table(pd.concat([table.frame] * 30, ignore_index=True))
    big_enc = encode_table(big, QI, hs)

    def search(e, k: int) -> float:
        t0 = time.perf_counter()
        s = LatticeSearch(e, (KAnonymity(k),), int(0.05 * e.n_rows), get_metric("dm"))
        s.descend()
        s.tag_lattice(prune=True)
        s.optimize()
        return time.perf_counter() - t0

    t_small = min(search(enc, 5) for _ in range(3))
    t_big = min(search(big_enc, 150) for _ in range(3))
    row("optimal search, Adult (k=5, 5%)", t_small, ref)
    row(
        f"optimal search, Adult x30 = {big.n_rows:,} rows (k=150, 5%)",
        t_big,
        ref,
        f"{t_big / t_small:.2f} x Adult's (target within 2x)",
    )
    t_run = best_of(
        lambda: get_algorithm("optimal", suppression_limit=0.05).run(
            big, AnonymizationConfig(tuple(QI), hs, (KAnonymity(150),))
        ),
        2,
    )
    row("whole optimal run on Adult x30 (encode + search + release of 904,860 rows)", t_run, ref)
    print(f"\nnumpy {np.__version__}, pandas {pd.__version__}, python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
