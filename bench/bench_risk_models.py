"""Risk-based privacy models (issue 31) on Adult: kanon's optimum beside ARX 3.9.2's, and the time of each
search beside the plain k = 5 search run in the same process.

Each model runs through the command line as a user runs it (``kanon anonymize adult.csv --qi ... --metric
dm --suppression-limit S`` with the model's flags, Optimal), 8 quasi-identifiers with the shared ARX
hierarchies, occupation sensitive where a model needs it. ARX's optima (levels, DM) are the figures its
own Flash search printed (tests/engine/arx_risk_optima.py says how); ARX is not run here. The time ratio
divides the search's ``runtime_seconds`` by that of ``--k 5 --suppression-limit 0.05`` measured at the
start of this run (the median of --reps runs each).

Run: python bench/bench_risk_models.py [--shared PATH] [--reps 1] [--only TEXT]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kanon_engine.cli import main as kanon  # noqa: E402
from tests.engine.arx_risk_optima import ARX_OPTIMA, QI, ArxOptimum  # noqa: E402

HIERARCHIES = (*QI, "occupation")


def run(adult: Path, case: ArxOptimum, out: Path) -> dict:
    """One search through the CLI; its JSON report."""
    hier = [f"--hierarchy={q}={adult}/adult_hierarchy_{q}.csv" for q in HIERARCHIES]
    args = [
        "anonymize",
        str(adult / "adult.csv"),
        "--qi",
        ",".join(QI),
        *hier,
        "--algorithm",
        "optimal",
        "--metric",
        "dm",
        "--suppression-limit",
        str(case.suppression),
        *case.flags,
        "--output",
        str(out / "release.csv"),
        "--report",
        str(out / "report.json"),
    ]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = kanon(args)
    if code != 0:
        raise SystemExit(f"{case.name}: exit {code}: {err.getvalue().strip()}")
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


def timed(adult: Path, case: ArxOptimum, out: Path, reps: int) -> tuple[dict, float]:
    reports = [run(adult, case, out) for _ in range(reps)]
    return reports[-1], statistics.median(r["runtime_seconds"] for r in reports)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.environ.get("KANON_SHARED", "/work/shared"))
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--only", default="", help="run only the models whose ARX spec contains this text")
    args = ap.parse_args()
    adult = Path(args.shared) / "datasets" / "adult"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        _report, base = timed(adult, ARX_OPTIMA[0], out, args.reps)
        print(f"plain k = 5 search (suppression 5 %): {base:.2f} s")
        head = f"{'model (ARX spec)':<26} {'ARX levels':<16} {'ARX DM':>12} "
        print(head + f"{'kanon levels':<16} {'kanon DM':>12} {'same':>5} {'time s':>7} {'x k=5':>6}")
        for case in ARX_OPTIMA:
            if args.only not in case.name:
                continue
            report, seconds = timed(adult, case, out, args.reps)
            levels = tuple(int(report["transformation"][q]) for q in QI)
            dm = int(round(report["discernibility"]))
            same = "yes" if levels == case.levels and dm == case.dm else "NO"
            print(
                f"{case.name:<26} {','.join(map(str, case.levels)):<16} {case.dm:>12,} "
                f"{','.join(map(str, levels)):<16} {dm:>12,} {same:>5} {seconds:>7.2f} {seconds / base:>6.1f}"
            )


if __name__ == "__main__":
    main()
