"""Side by side with ARX: every row of issue 14's table, plus the hospital tables of many quasi-identifiers.

For each row it prints kanon's CPU time (this process's, median of repeats after a warm-up) and wall
time, the number of transformations checked, the optimum found (to show it is ARX's), the figure ARX
3.9.2 reached on the same machine type as quoted in the issue (ARX itself is not installed here: those
are the issue's numbers, not measured in this run), and a plain-pandas reference measured in this run,
so that a busy machine slows both sides alike:

- searches: one pandas check of the optimum's transformation (generalize with dict lookups, group-by,
  the same privacy models), and how many such checks kanon's whole run costs;
- Adult x30: pandas reading the same CSV as text and writing it back (``read_csv(dtype=str)`` +
  ``to_csv``) in a fresh process, beside kanon's whole ``python -m kanon_engine anonymize`` process.

Run: python bench/bench_models.py [--shared PATH] [--quick] [--scaling]
     (--quick: fewer repeats; --scaling: also the exact search on growing lattices of 7**m nodes)
The script uses the kanon checkout it lives in, so a copy in an older checkout measures that one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from kanon_engine.algorithms import algorithms, get_algorithm  # noqa: E402
from kanon_engine.config import AnonymizationConfig, build_models  # noqa: E402
from kanon_engine.data.io import read_table  # noqa: E402
from kanon_engine.hierarchy import read_arx_csv  # noqa: E402
from kanon_engine.privacy.models import KAnonymity  # noqa: E402

QI = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"]


# --- measuring ------------------------------------------------------------------------------------------
def measure(fn, repeat: int):
    """(median CPU seconds, median wall seconds, last result) of ``fn`` after one warm-up call."""
    result = fn()
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        result = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall), result


def child_process(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak RSS in GB) of a child process."""
    w0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - w0
    if status != 0:
        raise RuntimeError(f"{cmd[:4]} failed: {proc.stderr.read().decode()[-500:]}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / (1 << 20)


# --- the plain-pandas reference ---------------------------------------------------------------------------
def pandas_check(
    frame: pd.DataFrame, hs: dict, levels: dict, k: int, sensitive=None, ell=None, t=None
) -> int:
    """One transformation checked with pandas: records in classes failing the models."""
    gen = pd.DataFrame(
        {q: frame[q].map(dict(zip(hs[q].matrix[:, 0], hs[q].matrix[:, lv]))) for q, lv in levels.items()}
    )
    keys = list(levels)
    if sensitive is None:
        sizes = gen.groupby(keys, sort=False).size()
        return int(sizes[sizes < k].sum())
    gen["_s"] = frame[sensitive].to_numpy()
    grouped = gen.groupby(keys, sort=False)["_s"]
    sizes = grouped.size()
    ok = sizes >= k
    if ell is not None:
        ok &= grouped.nunique() >= ell
    if t is not None:
        q = frame[sensitive].value_counts(normalize=True)
        p = gen.groupby(keys, sort=False)["_s"].value_counts(normalize=True).unstack(fill_value=0.0)
        p = p.reindex(columns=q.index, fill_value=0.0)
        ok &= (0.5 * (p - q).abs().sum(axis=1)).reindex(sizes.index) <= t + 1e-9
    return int(sizes[~ok].sum())


def row(label: str, cpu: float, wall: float, arx: str, ref: float | None, note: str = "") -> None:
    ratio = f"{cpu / ref:7.1f} pandas checks" if ref else " " * 20
    print(
        f"{label:44s} CPU {cpu * 1000:8.1f} ms  wall {wall * 1000:8.1f} ms  {ratio}  | ARX {arx:22s} {note}"
    )


# --- Adult scenarios ---------------------------------------------------------------------------------------
def adult_rows(adult: Path, repeat: int) -> None:
    table = read_table(adult / "adult.csv")
    hs = {q: read_arx_csv(adult / f"adult_hierarchy_{q}.csv", q) for q in [*QI, "occupation"]}
    frame = table.frame
    k_only = (KAnonymity(5),)
    l3 = build_models(5, "occupation", 3, "distinct")
    t02 = build_models(5, "occupation", None, "distinct", 2.0, 0.2, "equal")
    scenarios = [
        ("k=5, 0%, DM", k_only, 0.0, "dm", "24 ms (122 checks)", {}),
        ("k=5, 5%, DM", k_only, 0.05, "dm", "385 ms (1,639)", {}),
        ("k=5, 5%, DM*", k_only, 0.05, "dm-star", "342 ms (1,040)", {}),
        ("k=5 + distinct 3-diversity, 5%, DM", l3, 0.05, "dm", "758 ms (1,585)", {"ell": 3}),
        ("k=5 + equal-distance 0.2-closeness, 5%, DM", t02, 0.05, "dm", "1,025 ms (3,046)", {"t": 0.2}),
    ]
    print("Adult (30,162 records, 8 quasi-identifiers, 4,320 transformations); optimal search, whole run")
    print(
        "(encoding, search, release); 'pandas checks': kanon's CPU time / one pandas check of the optimum\n"
    )
    for label, models, limit, metric, arx, extra in scenarios:
        sensitive = ("occupation",) if extra else ()
        config = AnonymizationConfig(tuple(QI), {q: hs[q] for q in QI}, models, sensitive=sensitive)

        def run(m=metric, s=limit, c=config):
            return get_algorithm("optimal", suppression_limit=s, metric=m).run(table, c)

        cpu, wall, result = measure(run, repeat)
        levels = dict(result.transformation)
        target = sensitive[0] if sensitive else None
        ref, _, _ = measure(lambda lv=levels, e=extra, s=target: pandas_check(frame, hs, lv, 5, s, **e), 3)
        dm = result.metrics["discernibility"]
        note = f"{result.nodes_checked:,} checked, DM {dm:,.0f}, {tuple(levels.values())}"
        row(label, cpu, wall, arx, ref, note)
    print()


def x30_rows(adult: Path, quick: bool) -> None:
    """Adult x30: the whole CLI process, the write alone, peak memory."""
    from kanon_engine.release.export import export_release

    with tempfile.TemporaryDirectory() as tmp:
        text = (adult / "adult.csv").read_text(encoding="utf-8")
        header, body = text.split("\n", 1)
        body = body if body.endswith("\n") else body + "\n"
        big = Path(tmp) / "adult_x30.csv"
        big.write_text(header + "\n" + body * 30, encoding="utf-8")
        out = Path(tmp) / "release.csv"
        cmd = [sys.executable, "-m", "kanon_engine", "anonymize", str(big), "--qi", ",".join(QI)]
        cmd += ["--algorithm", "optimal", "--k", "150", "--suppression-limit", "0.05", "--metric", "dm"]
        cmd += ["--output", str(out)]
        for q in QI:
            cmd += ["--hierarchy", f"{q}={adult / f'adult_hierarchy_{q}.csv'}"]
        env = dict(os.environ, PYTHONPATH=str(REPO))
        ref_cmd = [
            sys.executable,
            "-c",
            f"import pandas as pd; pd.read_csv({str(big)!r}, sep=';', dtype=str, keep_default_na=False)"
            f".to_csv({str(Path(tmp) / 'pandas.csv')!r}, sep=';', index=False)",
        ]
        runs = 1 if quick else 3
        kanon = [child_process(cmd, env) for _ in range(runs)]
        pandas = [child_process(ref_cmd, env) for _ in range(runs)]
        cpu, wall, rss = (statistics.median(x) for x in zip(*kanon))
        pcpu, pwall, prss = (statistics.median(x) for x in zip(*pandas))
        print(
            "Adult x30 (904,860 records), optimal k=150, 5%, DM: the whole `python -m kanon_engine anonymize`"
        )
        print("process (since issue 13 it also measures a generated 100-query workload), then its parts")
        print(
            f"{'load + search + write (whole process)':44s} CPU {cpu:8.2f} s   wall {wall:8.2f} s | ARX 2.4 s"
        )
        print(f"{'  reference: pandas read_csv + to_csv':44s} CPU {pcpu:8.2f} s   wall {pwall:8.2f} s")
        print(f"{'peak memory (whole process)':44s} {rss:8.2f} GB | ARX 0.80 GB (pandas: {prss:.2f} GB)")
        hs = {q: read_arx_csv(adult / f"adult_hierarchy_{q}.csv", q) for q in QI}
        config = AnonymizationConfig(tuple(QI), hs, (KAnonymity(150),))

        def load_search_write():
            table = read_table(big)
            result = get_algorithm("optimal", suppression_limit=0.05, metric="dm").run(table, config)
            export_release(table, result, out)
            return table, result

        lcpu, lwall, (table, result) = measure(load_search_write, runs)
        print(f"{'  in one process: read + search + write':44s} CPU {lcpu:8.2f} s   wall {lwall:8.2f} s")
        wcpu, wwall, _ = measure(lambda: export_release(table, result, out), runs)
        release = result.release
        rcpu, rwall, _ = measure(
            lambda: release.to_csv(Path(tmp) / "pandas_release.csv", sep=",", index=False), runs
        )
        print(
            f"{'  of which writing the release':44s} CPU {wcpu:8.2f} s   wall {wwall:8.2f} s   | ARX 0.58 s"
        )
        print(f"{'  reference: pandas DataFrame.to_csv':44s} CPU {rcpu:8.2f} s   wall {rwall:8.2f} s")
    print()


# --- hospital tables ----------------------------------------------------------------------------------------
def hospital_rows(quick: bool) -> None:
    from wide_tables import hospital_7qi, hospital_10qi, lattice_size

    table, hs, qi = hospital_7qi()
    models = build_models(5, "diagnosis", 3, "distinct", 2.0, 0.15, "equal")
    config = AnonymizationConfig(tuple(qi), hs, models, sensitive=("diagnosis",))
    print(
        f"Hospital, 7 quasi-identifiers, {table.n_rows:,} records, {lattice_size(hs, qi):,} transformations:"
    )
    print("k=5, distinct 3-diversity and equal-distance 0.15-closeness on diagnosis, 5% (113 s before)")
    for metric in ("precision", "dm"):
        cpu, wall, result = measure(
            lambda m=metric: get_algorithm("optimal", suppression_limit=0.05, metric=m).run(table, config),
            1 if quick else 3,
        )
        ref, _, _ = measure(
            lambda lv=dict(result.transformation): pandas_check(
                table.frame, hs, lv, 5, "diagnosis", ell=3, t=0.15
            ),
            3,
        )
        note = f"{result.nodes_checked:,} checked, {tuple(result.transformation.values())}"
        row(f"optimal, {metric}", cpu, wall, "(target < 5 s)", ref, note)
    print()

    if "heuristic" not in algorithms():
        print("(this checkout has no heuristic search)\n")
        return
    table, hs, qi = hospital_10qi()
    config = AnonymizationConfig(tuple(qi), hs, (KAnonymity(5),))
    size = lattice_size(hs, qi)
    print(f"Hospital, 10 quasi-identifiers, {table.n_rows:,} records, {size:,} transformations: k=5, 5%;")
    print("the heuristic search with a 10 s time limit against Datafly (higher precision, lower DM: better)")
    for name, params in (
        ("datafly", {}),
        ("heuristic", {"metric": "dm", "time_limit": 10}),
        ("heuristic", {"metric": "precision", "time_limit": 10}),
    ):
        c0, w0 = time.process_time(), time.perf_counter()
        result = get_algorithm(name, suppression_limit=0.05, **params).run(table, config)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        label = f"{name} {params.get('metric', '')}".strip()
        note = (
            f"DM {result.metrics['discernibility']:,.0f}, precision {result.metrics['precision']:.4f}, "
            f"{result.nodes_checked:,} checked"
        )
        row(label, cpu, wall, "", None, note)
        if result.notes:
            print(f"{'':44s} {result.notes[0]}")
    print()


def scaling_rows() -> None:
    """How far the exact search goes: the first m quasi-identifiers of the 10-QI table (7**m nodes)."""
    from wide_tables import hospital_10qi

    from kanon_engine.algorithms.search import LatticeSearch
    from kanon_engine.core.encoding import encode_table
    from kanon_engine.metrics.loss import get_metric

    table, hs, qi = hospital_10qi()
    print("Exact search (optimal) on growing lattices: the first m quasi-identifiers of the 10-QI table, k=5")
    for metric, sizes in (("dm", (5, 6, 7, 8)), ("precision", (5, 6))):
        for m in sizes:
            enc = encode_table(table, qi[:m], hs)
            c0, w0 = time.process_time(), time.perf_counter()
            search = LatticeSearch(enc, (KAnonymity(5),), int(0.05 * enc.n_rows), get_metric(metric))
            search.descend()
            search.tag_lattice(prune=True)
            search.optimize()
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            row(
                f"{search.lattice.size:,} transformations, {metric}",
                cpu,
                wall,
                "",
                None,
                f"{search.checks:,} checked",
            )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_shared = Path(os.environ.get("KANON_SHARED", REPO.parent / "shared"))
    parser.add_argument("--shared", type=Path, default=default_shared)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--scaling", action="store_true", help="also the exact search on growing lattices")
    parser.add_argument("--only", choices=("adult", "x30", "hospital"), help="one group of rows")
    args = parser.parse_args()
    adult = args.shared / "datasets" / "adult"
    repeat = 3 if args.quick else 9
    if args.only in (None, "adult"):
        adult_rows(adult, repeat)
    if args.only in (None, "x30"):
        x30_rows(adult, args.quick)
    if args.only in (None, "hospital"):
        hospital_rows(args.quick)
    if args.scaling:
        scaling_rows()
    print(
        f"kanon at {REPO}; numpy {np.__version__}, pandas {pd.__version__}, python {sys.version.split()[0]}"
    )


if __name__ == "__main__":
    main()
