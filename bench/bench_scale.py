"""Beyond one machine: time and peak memory of whole runs per engine, per phase (count, search, write).

Data from ``bench/make_hospital.py`` (a folder holding ``hospital.parquet`` / ``hospital.csv``, the
hierarchies and ``project_parquet.json`` / ``project_csv.json``: k = 10, 2 % suppression). Every run goes
in a fresh process (its peak RSS is that run's alone; Dask workers report theirs) and prints the wall
time of each phase:

- count: the value counts, the encoding of every row and the points (or the floor's points);
- search: the algorithm on the points (plus the engine's checks of nodes below a floor);
- write: the release streamed from the file through the plan into the CSV writer.

A reference measured in the same run is printed first: one pass of pyarrow reading the quasi-identifier
columns of the same file (the least any engine must do per pass), so machine load affects both alike.

    python bench/bench_scale.py --data /data/h10m --engines memory,duckdb,dask --algorithms optimal
    python bench/bench_scale.py --data /data/h100m --engines duckdb --algorithms optimal,datafly,mondrian
    python bench/bench_scale.py --data /data/h10m --engines dask --workers 1,2   # 1 vs 2 workers
    sudo python bench/bench_scale.py --data /data/h100m --engines duckdb --cap 4GB  # confined to 4 GB
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QI = ("age", "sex", "zip", "admission_date", "ethnicity", "ward", "insurance", "marital_status")


def child(args: argparse.Namespace) -> None:
    """One run, in this process: prints one JSON line with the phases' times and the peak memory."""
    from kanon_engine.algorithms import get_algorithm
    from kanon_engine.project.project_file import Project
    from kanon_engine.release.export import ExportOptions, export_release
    from kanon_engine.sources.backends.settings import EngineSettings
    from kanon_engine.sources.plan.counting import count_points
    from kanon_engine.sources.plan.finish import finish_result

    project = Project.load(Path(args.project))
    settings = EngineSettings(
        args.engine, memory_limit=args.memory_limit, temp_dir=args.temp_dir, workers=args.one_workers
    )
    project = project.with_changes(engine=settings)
    t0, c0 = time.perf_counter(), _cpu()
    source, _ = project.open_data()
    config = project.config(source)
    params = {"suppression_limit": 0.02} if args.algorithm in ("optimal", "datafly", "samarati") else {}
    algo = get_algorithm(args.algorithm, **params)
    if args.budget:
        from kanon_engine.sources.plan import points

        points.POINT_BUDGET = args.budget
    start = time.perf_counter()
    phases: dict[str, float] = {}
    if args.algorithm.startswith("mondrian"):  # its own count: past the budget, the first cuts by the engine
        result = algo.run(source, config, progress=_phase_clock(phases, start))
        counted = result.plan.counted
        t_count, c_count = start + phases.get("count_s", 0.0), float("nan")
    else:
        counted = count_points(source, config)
        t_count, c_count = time.perf_counter(), _cpu()
        result = algo._run(source, config, counted.enc, lambda f, m: None, start)
        result = finish_result(source, counted, result, start)
    t_search, c_search = time.perf_counter(), _cpu()
    out = Path(args.out)
    written = export_release(source, result, out, ExportOptions()) if not args.no_write else None
    t_write, c_write = time.perf_counter(), _cpu()
    floor = getattr(counted.enc.below, "floor", None)
    engine_checks = getattr(counted.enc.below, "engine_checks", 0)
    workers_rss = source.worker_peak_rss() if hasattr(source, "worker_peak_rss") else []
    source.close()
    print(
        json.dumps(
            {
                "engine": args.engine,
                "algorithm": args.algorithm,
                "records": result.records,
                "points": sum(p.counted.enc.n_points for p in getattr(result.plan, "parts", [result.plan])),
                "floor": floor,
                "engine_checks": engine_checks,
                "open_s": round(start - t0, 1),
                "count_s": round(t_count - start, 1),
                "search_s": round(t_search - t_count, 1),
                "write_s": round(t_write - t_search, 1),
                "total_s": round(t_write - t0, 1),
                "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20), 2),
                "cpu_s": round(c_write - c0, 1),
                # CPU seconds of every thread of the process (DuckDB's too) per phase: on a shared
                # machine they say more than wall times
                "cpu_count_s": round(c_count - c0, 1),
                "cpu_search_s": round(c_search - c_count, 1),
                "cpu_write_s": round(c_write - c_search, 1),
                "workers_peak_rss_gb": [round(x / (1 << 30), 2) for x in workers_rss],
                "suppressed": result.suppressed,
                "classes": result.n_classes,
                "transformation": result.transformation,
                "discernibility": result.metrics.get("discernibility"),
                "release_sha256": written.sha256 if written else None,
                "nodes_checked": result.nodes_checked,
                "gcp": result.metrics.get("gcp"),
                "budget": args.budget,
                **{k: round(v, 1) for k, v in phases.items()},
            }
        ),
        flush=True,
    )
    if written is not None and not args.keep:
        out.unlink()


def _phase_clock(phases: dict[str, float], start: float):
    """A progress callback noting when Mondrian's phases begin (seconds since ``start``): the points
    counted (or the engine's first cuts begun), the boxes counted and cut in memory, the release plan."""
    marks = {"Mondrian in memory": "memory_from_s", "building the release": "plan_from_s"}

    def progress(_fraction: float, message: str) -> None:
        now = time.perf_counter() - start
        name = next((n for prefix, n in marks.items() if message.startswith(prefix)), None)
        if message.startswith("Mondrian level"):  # the points counted, or the engine's cuts begun
            name = "engine_cuts_from_s" if "while reading" in message else "count_s"
        if name and name not in phases:
            phases[name] = now

    return progress


def _cpu() -> float:
    """CPU seconds of this process so far (all its threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def reference_pass(path: Path) -> float:
    """Seconds for pyarrow to read the quasi-identifier columns once (the least work of a pass)."""
    from kanon_engine.data.stream import inspect_file, text_batches

    f = inspect_file(path)
    t = time.perf_counter()
    for _ in text_batches(f, list(QI)):
        pass
    return time.perf_counter() - t


class MemoryCap:
    """A Linux memory cgroup (v2 ``memory.max`` or v1 ``memory.limit_in_bytes``; needs root) holding
    the child run: the kernel reclaims the page cache or ends the run past ``limit`` bytes, so a run that
    finishes under it shows the data needed no more memory than that, whatever the machine has."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        v2 = Path("/sys/fs/cgroup/cgroup.controllers").is_file()
        root = Path("/sys/fs/cgroup") if v2 else Path("/sys/fs/cgroup/memory")
        self.dir = root / f"kanon-bench-{os.getpid()}"
        self.dir.mkdir()
        (self.dir / ("memory.max" if v2 else "memory.limit_in_bytes")).write_text(str(limit))
        self.v2 = v2

    def enter(self) -> None:
        """Move the calling process (the child, before it runs) into the group."""
        (self.dir / "cgroup.procs").write_text(str(os.getpid()))

    def report(self) -> dict:
        """The group's peak memory (v1; v2 since Linux 5.19) and how often it hit the cap / ran out."""
        out: dict = {"memory_cap_gb": round(self.limit / (1 << 30), 2)}
        if self.v2:
            events = dict(line.split() for line in (self.dir / "memory.events").read_text().splitlines())
            out["cap_reached"], out["oom_kills"] = int(events.get("max", 0)), int(events.get("oom_kill", 0))
            peak = self.dir / "memory.peak"
        else:
            out["cap_reached"] = int((self.dir / "memory.failcnt").read_text())
            oom = dict(line.split() for line in (self.dir / "memory.oom_control").read_text().splitlines())
            out["oom_kills"] = int(oom.get("oom_kill", 0))
            peak = self.dir / "memory.max_usage_in_bytes"
        if peak.is_file():  # page cache included: the kernel keeps file pages while under the cap
            out["group_peak_gb"] = round(int(peak.read_text()) / (1 << 30), 2)
        return out

    def close(self) -> None:
        try:
            self.dir.rmdir()
        except OSError:
            pass


def _bytes(text: str) -> int:
    """'4GB' / '1500MB' -> bytes (powers of 1024, as DuckDB reads them)."""
    units = {"GB": 1 << 30, "MB": 1 << 20}
    for unit, size in units.items():
        if text.upper().endswith(unit):
            return int(float(text[: -len(unit)]) * size)
    return int(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, help="folder written by make_hospital.py")
    ap.add_argument("--format", default="parquet", choices=("parquet", "csv"))
    ap.add_argument("--engines", default="memory,duckdb,dask")
    ap.add_argument("--algorithms", default="optimal,datafly,mondrian")
    ap.add_argument("--workers", default="2", help="Dask LocalCluster workers, e.g. 1,2")
    ap.add_argument("--memory-limit", default=None, help="DuckDB's memory limit (e.g. 2GB)")
    ap.add_argument("--temp-dir", default=None)
    ap.add_argument("--out", default=None, help="release file (default: in --data, removed after)")
    ap.add_argument("--keep", action="store_true", help="keep the release files")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--budget", type=int, default=None, help="points held in memory (forces engine cuts)")
    ap.add_argument("--cap", default=None, help="each child in a memory cgroup of this size (Linux, root)")
    # one run in this process (used by the parent)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--project", help=argparse.SUPPRESS)
    ap.add_argument("--engine", help=argparse.SUPPRESS)
    ap.add_argument("--algorithm", help=argparse.SUPPRESS)
    ap.add_argument("--one-workers", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    data = args.data
    path = data / f"hospital.{args.format}"
    project = data / f"project_{args.format}.json"
    print(f"data: {path} ({path.stat().st_size / 1e9:.2f} GB)", flush=True)
    print(
        f"reference: one pyarrow pass over the {len(QI)} quasi-identifiers: {reference_pass(path):.1f} s",
        flush=True,
    )
    hashes: dict[str, set] = {}
    for engine in args.engines.split(","):
        for workers in args.workers.split(",") if engine == "dask" else [None]:
            for algorithm in args.algorithms.split(","):
                out = args.out or str(data / f"release_{engine}_{algorithm}.csv")
                cmd = [sys.executable, __file__, "--child", "--project", str(project), "--engine", engine,
                       "--algorithm", algorithm, "--out", out]  # fmt: skip
                if workers:
                    cmd += ["--one-workers", workers]
                for flag in ("memory_limit", "temp_dir"):
                    if getattr(args, flag):
                        cmd += [f"--{flag.replace('_', '-')}", getattr(args, flag)]
                if args.keep:
                    cmd.append("--keep")
                if args.no_write:
                    cmd.append("--no-write")
                if args.budget:
                    cmd += ["--budget", str(args.budget)]
                t = time.perf_counter()
                cap = MemoryCap(_bytes(args.cap)) if args.cap else None
                try:
                    proc = subprocess.run(
                        cmd, capture_output=True, text=True, env={**os.environ}, preexec_fn=cap and cap.enter
                    )
                    capped = cap.report() if cap else {}
                finally:
                    if cap:
                        cap.close()
                if proc.returncode != 0:
                    print(
                        f"{engine} {algorithm}: failed after {time.perf_counter() - t:.0f} s "
                        f"(exit {proc.returncode}) {json.dumps(capped)}\n" + proc.stderr[-3000:]
                    )
                    continue
                line = [x for x in proc.stdout.splitlines() if x.startswith("{")][-1]
                row = {**json.loads(line), **capped}
                if workers:
                    row["workers"] = int(workers)
                print(json.dumps(row), flush=True)
                hashes.setdefault(algorithm, set()).add(row["release_sha256"])
    for algorithm, found in hashes.items():  # the same release from every engine (written releases only)
        if None not in found:
            same = "the same release" if len(found) == 1 else f"{len(found)} DIFFERENT releases"
            print(f"{algorithm}: {same} from every run (SHA-256)", flush=True)


if __name__ == "__main__":
    main()
