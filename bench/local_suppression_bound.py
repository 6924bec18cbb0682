"""A lower bound of the fewest '*' cells for local suppression on Adult, by mixed-integer programming.

Not part of kanon and not run by CI: it needs the HiGHS solver's Python package (``pip install highspy``),
which kanon does not depend on. It answers one question of issue 19: how far can local suppression on
Adult go? The model (records of a frequency row assigned to classes = a pattern of kept attributes and
their values; a class holds 0 or at least k records):

    minimize   sum over (row r, class c) of stars(c) * x[r, c]
    subject to sum over c of x[r, c] = count(r)                  every record released once
               sum over r of x[r, c] >= k * y[c]                 an open class holds k records or more
               sum over r of x[r, c] <= capacity(c) * y[c]       a closed class holds none
               x integer >= 0, y binary

Each row may use only the patterns whose class over all records holds k (else it could not be released
there) with at most ``--slack`` '*' more than its own fewest (the exact lower bound bench_local prints):
with every pattern allowed the model no longer fits the machine. The bound HiGHS proves is therefore a
bound for solutions in which no record takes more than ``slack`` extra '*'. The solver is started from
the assignment of ``bench/local_alternatives.py``; its best bound and best solution are printed as the
solver's log goes (the last "BestBound" line is the figure).

Not a bound of the whole problem: the valid lower bound (every pattern allowed, nothing pruned) is
``bench/lagrange_bound.py``'s, which also needs no solver.

Run: ``python bench/local_suppression_bound.py --k 3 --slack 3 --seconds 300``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_local import ADULT, QI  # noqa: E402
from bench.local_alternatives import PatternAssignment  # noqa: E402


def build(h, a: PatternAssignment, slack: int):  # noqa: ANN001 (highspy is optional)
    """Columns x (per allowed row and pattern) then y (per class used); the three kinds of rows."""
    import highspy

    allowed = a.feasible & (a.stars[:, None] <= a.lower[None, :] + slack)
    pats, rows = np.nonzero(allowed)
    classes, cidx = np.unique(a.cls[pats, rows], return_inverse=True)
    nx, ny = len(rows), len(classes)
    inf = highspy.kHighsInf
    upper = np.concatenate([a.w[rows].astype(float), np.ones(ny)])
    h.addVars(nx + ny, np.zeros(nx + ny), upper)
    cols = np.arange(nx + ny, dtype=np.int32)
    h.changeColsCost(nx + ny, cols, np.concatenate([a.stars[pats].astype(float), np.zeros(ny)]))
    h.changeColsIntegrality(nx + ny, cols, np.full(nx + ny, highspy.HighsVarType.kInteger))

    def add_rows(group: np.ndarray, col: np.ndarray, val: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        order = np.argsort(group, kind="stable")
        starts = np.searchsorted(group[order], np.arange(len(lo))).astype(np.int32)
        h.addRows(len(lo), lo, hi, len(order), starts, col[order].astype(np.int32), val[order].astype(float))

    xi = np.arange(nx)
    _, ridx = np.unique(rows, return_inverse=True)
    count = np.zeros(ridx.max() + 1)
    count[ridx] = a.w[rows]
    add_rows(ridx, xi, np.ones(nx), count, count)
    capacity = np.bincount(cidx, weights=a.w[rows], minlength=ny)
    group, col = np.concatenate([cidx, np.arange(ny)]), np.concatenate([xi, nx + np.arange(ny)])
    add_rows(group, col, np.concatenate([np.ones(nx), -a.k * np.ones(ny)]), np.zeros(ny), np.full(ny, inf))
    add_rows(group, col, np.concatenate([np.ones(nx), -capacity]), np.full(ny, -inf), np.zeros(ny))
    return pats, rows, classes, nx


def start_from(h, a: PatternAssignment, pats: np.ndarray, rows: np.ndarray, classes: np.ndarray, nx: int):  # noqa: ANN001
    """Hand the solver the heuristic assignment (when every record of it lies within the slack)."""
    import highspy

    index = {(int(p), int(r)): i for i, (p, r) in enumerate(zip(pats, rows))}
    value = np.zeros(nx + len(classes))
    for r, p, n in zip(a.e_row, a.e_pat, a.e_cnt):
        i = index.get((int(p), int(r)))
        if i is None:
            print("the heuristic assignment leaves the slack; solving without it")
            return
        value[i] += n
    used = np.isin(classes, a.cls[a.e_pat, a.e_row][a.e_cnt > 0])
    value[nx:] = used
    sol = highspy.HighsSolution()
    sol.col_value = list(value)
    h.setSolution(sol)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--slack", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=300)
    args = parser.parse_args()
    try:
        import highspy
    except ImportError:
        print("needs the HiGHS solver: pip install highspy (not a dependency of kanon)")
        return
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    a = PatternAssignment(frame, QI, args.k)
    a.construct()
    a.improve()
    print(f"k={args.k}: exact lower bound {int((a.lower * a.w).sum()):,}; heuristic assignment {a.cells:,}")
    h = highspy.Highs()
    h.setOptionValue("time_limit", float(args.seconds))
    h.setOptionValue("threads", 1)
    pats, rows, classes, nx = build(h, a, args.slack)
    start_from(h, a, pats, rows, classes, nx)
    h.run()
    info = h.getInfo()
    print(f"best solution {info.objective_function_value:,.0f}, lower bound {info.mip_dual_bound:,.1f}")


if __name__ == "__main__":
    main()
