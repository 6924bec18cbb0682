"""The Lagrangian lower bound of the fewest '*' for local suppression, run for many price steps.

The bound itself lives in the engine (:mod:`kanon_engine.algorithms.local_bound`: the model, the exact
evaluation in integer ticks, the volume-algorithm ascent); every local-suppression release gets it with
a few steps (its certificate). This script runs the ascent for as many steps as asked, to see how far
the bound goes (on Adult it approaches 14,777 at k=3 and 19,857 at k=5, the values an exact rational
recomputation of the converged prices gave in the audit of issue 35). Used by ``bench_local.py --bound``.

Run: ``python bench/lagrange_bound.py --k 3 --iterations 2000``
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kanon_engine.algorithms.local_bound import Ascent, SuppressionModel, bound_of, distinct_tuples  # noqa: E402


@dataclass(frozen=True)
class Bound:
    """The bound proved (an integer), the best L(u) met, the trivial bound, the steps and why they
    stopped."""

    cells: int
    value: float
    trivial: int
    iterations: int
    status: str


def lagrange_bound(codes: np.ndarray, k: int, upper: float, iterations: int, log_every: int = 0) -> Bound:
    """The engine's ascent from the records' own fewest '*' (the trivial bound), ``iterations`` steps
    at most, stopping early when the averaged relaxed solution releases every record once."""
    tuples, m, _row = distinct_tuples(codes)
    model = SuppressionModel(tuples, m, k)
    ascent = Ascent(model, model.fewest.astype(float), upper)
    status, t0 = f"iteration limit ({iterations})", time.process_time()
    while ascent.steps < iterations:
        ascent.step()
        if ascent.solved:
            status = "the averaged relaxed solution releases every record once"
            break
        if log_every and ascent.steps % log_every == 0:
            print(f"  step {ascent.steps:5d}  bound {ascent.bound:,}  {time.process_time() - t0:.0f} s CPU")
    value = ascent.best_value / float(1 << model.bits)
    trivial = int((model.fewest * model.m).sum())
    return Bound(bound_of(model, ascent.best_value), value, trivial, ascent.steps, status)


def main() -> None:
    from bench.bench_local import ADULT, QI

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--upper", type=float, default=None, help="a known release's '*' count")
    args = parser.parse_args()
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    codes = np.stack([pd.factorize(frame[q])[0] for q in QI])
    upper = args.upper or {3: 15_084, 5: 20_193}.get(args.k, len(frame) * len(QI))
    b = lagrange_bound(codes, args.k, upper, args.iterations, log_every=100)
    print(
        f"k={args.k}: trivial bound {b.trivial:,}; Lagrangian bound {b.value:,.2f}, so at least {b.cells:,} "
        f"'*' in any release ({b.iterations} steps, {b.status})"
    )


if __name__ == "__main__":
    main()
