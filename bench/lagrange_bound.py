"""A valid lower bound of the fewest '*' cells for local suppression (strict reading), by Lagrangian
relaxation of the full model; numpy only, no solver.

The full model (records aggregated by distinct tuple t with m_t records; a class c is a pattern S of kept
attributes with the values of its tuples, s_c = number of '*' of S; only classes whose tuples hold k
records or more over the original table can ever be released, every other class stays empty):

    minimize   sum_{t,c} s_c x[t,c]
    subject to sum_c x[t,c] = m_t                          every record released exactly once
               x[t,c] in {0..m_t}, sum_t x[t,c] in {0} U [k, inf)   a class holds 0 or >= k records

Relaxing the first constraint with any multipliers u (one per tuple, any sign) gives, for EVERY u,

    L(u) = sum_t u_t m_t + sum_c min(0, best_c(u)),
    best_c(u) = the least sum_t (s_c - u_t) x[t,c] over 0 <= x[t,c] <= m_t, sum_t x[t,c] >= k

a lower bound of the optimum (weak duality: any feasible release has the same objective in the Lagrangian,
and the per-class minimum can only be lower). best_c is exact and cheap: take every record of the tuples
with s_c - u_t < 0, and if they are fewer than k, complete with the cheapest other records of the class.
Nothing is pruned: every class of every one of the 2^d patterns is in the model (the classes with fewer
than k records in the original data are exactly the ones that must stay empty). The multipliers are
improved by subgradient steps (Polyak's step towards a known release's '*' count); the bound reported is
the largest L(u) met, rounded up to an integer (the optimum is an integer; the floating-point error of a
sum of ~10^4 terms of size <= d is below 1e-9, far from the 1e-6 margin kept before rounding up).

Start u_t = f(t) (the fewest '*' of a pattern whose class over the original data holds k) gives
L = sum_t m_t f(t), the trivial bound; the subgradient steps only raise it. The Lagrangian dual equals the
linear relaxation over the convex hull of each class's feasible set, so it is at least as strong as the
model's LP relaxation with x[t,c] <= m_t y_c.

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

from kanon_engine.core.frequency import group_columns  # noqa: E402


class FullModel:
    """Distinct tuples (``codes``, ``m``) and, per pattern, the eligible (tuple, class) entries."""

    def __init__(self, codes: np.ndarray, k: int) -> None:
        row, n = group_columns(list(codes), [int(c.max()) + 1 for c in codes])
        rep = np.empty(n, dtype=np.int64)
        rep[row] = np.arange(len(row))
        self.codes, self.m, self.k = codes[:, rep], np.bincount(row).astype(float), k
        d, n_t = codes.shape[0], n
        tup, cls, star, pat, off = [], [], [], [], 0
        self.f = np.full(n_t, d, dtype=np.int64)
        for p in range(1 << d):  # bit q set: attribute q starred
            kept = [self.codes[q] for q in range(d) if not (p >> q) & 1]
            ids, nc = (
                group_columns(kept, [int(c.max()) + 1 for c in kept])
                if kept
                else (np.zeros(n_t, np.int64), 1)
            )
            ok = np.bincount(ids, weights=self.m, minlength=nc)[ids] >= k
            s = bin(p).count("1")
            self.f[ok] = np.minimum(self.f[ok], s)
            t = np.flatnonzero(ok)
            tup.append(t)
            cls.append(ids[ok] + off)
            star.append(np.full(len(t), s, dtype=float))
            pat.append(np.full(len(t), p, dtype=np.int64))
            off += nc
        self.tup, self.cls, self.s = np.concatenate(tup), np.concatenate(cls), np.concatenate(star)
        self.pat = np.concatenate(pat)  # the pattern of every entry (bit q set: attribute q starred)
        self.n_cls = off

    def relaxed(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The per-class minima at ``u``: records x of every entry, and which classes open (best_c < 0)."""
        k, m = self.k, self.m
        val = self.s - u[self.tup]  # per-record cost of an entry
        w = m[self.tup]
        neg = val < 0
        part = np.bincount(self.cls, weights=np.where(neg, val * w, 0.0), minlength=self.n_cls)
        have = np.bincount(self.cls, weights=np.where(neg, w, 0.0), minlength=self.n_cls)
        x = np.where(neg, w, 0.0)
        short = (have > 0) & (have < k)
        if short.any():
            e = np.flatnonzero(short[self.cls] & ~neg)
            e = e[np.lexsort((val[e], self.cls[e]))]
            c = self.cls[e]
            cum = np.cumsum(w[e])
            start = np.searchsorted(c, c)  # first entry of each class among e
            before = cum - w[e] - np.concatenate([[0.0], cum])[start]
            take = np.clip(k - have[c] - before, 0.0, w[e])
            np.add.at(part, c, take * val[e])
            x[e] = take
            full = np.bincount(c, weights=take, minlength=self.n_cls)
            part[short & (have + full < k - 1e-9)] = np.inf  # cannot reach k: never opened
        self._part = part
        return x, part < 0

    def evaluate(self, u: np.ndarray) -> tuple[float, np.ndarray]:
        """L(u) and a subgradient (m_t minus the records of t the per-class minima use)."""
        x, opened = self.relaxed(u)
        bound = float(u @ self.m + self._part[opened].sum())
        used = np.bincount(self.tup, weights=np.where(opened[self.cls], x, 0.0), minlength=len(self.m))
        return bound, self.m - used


@dataclass(frozen=True)
class Bound:
    """The bound proved (an integer), the best L(u) met, the iterations run and why they stopped."""

    cells: int
    value: float
    trivial: int
    iterations: int
    status: str
    u: np.ndarray  # the multipliers of the best bound
    model: FullModel


def lagrange_bound(codes: np.ndarray, k: int, upper: float, iterations: int, log_every: int = 0) -> Bound:
    """Subgradient ascent on L(u) from u = f (Polyak's step towards ``upper``, halved after 25 steps
    without a better bound, from the best multipliers met); every L(u) evaluated is a valid bound."""
    model = FullModel(codes, k)
    u = model.f.astype(float)
    best, best_u, lam, stall = -np.inf, u.copy(), 1.0, 0
    status, it = f"iteration limit ({iterations})", 0
    t0 = time.process_time()
    for it in range(1, iterations + 1):
        value, g = model.evaluate(u)
        if value > best + 1e-9:
            best, best_u, stall = value, u.copy(), 0
        else:
            stall += 1
            if stall >= 25:
                lam, stall, u = lam / 2, 0, best_u.copy()
                if lam < 1e-5:
                    status = "converged (step below 1e-5)"
                    break
                continue
        norm = float(g @ g)
        if norm == 0:
            status = "optimal (the relaxed solution releases every record once)"
            break
        if value >= upper - 1e-6:
            status = "met the known release: it is optimal"
            break
        u = u + lam * (upper - value) / norm * g
        if log_every and it % log_every == 0:
            secs = time.process_time() - t0
            print(f"  it {it:5d}  L {value:10.2f}  best {best:10.2f}  step {lam:.3g}  {secs:.0f} s CPU")
    trivial = int((model.f * model.m).sum())
    return Bound(int(np.ceil(best - 1e-6)), float(best), trivial, it, status, best_u, model)


def lagrangian_repair(frame: pd.DataFrame, qi: list[str], b: Bound) -> tuple[int, int]:
    """A release guided by the multipliers (a Lagrangian heuristic, not shipped: it needs the bound's
    hundreds of steps): the classes the relaxed solution opens whose tuples it covers exactly once are
    kept, the other records are placed level by level and improved by ``PatternAssignment`` (bench/
    local_alternatives.py). Returns its '*' cells before and after the local search (checked: every
    record once, every class >= k)."""
    from bench.local_alternatives import PatternAssignment

    model, k = b.model, b.model.k
    x, opened = model.relaxed(b.u)
    xe = np.where(opened[model.cls], x, 0.0)
    exact = np.bincount(model.tup, weights=xe, minlength=len(model.m)) == model.m
    ent = np.flatnonzero(xe > 0)
    mixed = np.zeros(model.n_cls, dtype=bool)
    mixed[model.cls[ent[~exact[model.tup[ent]]]]] = True
    keep = ent[~mixed[model.cls[ent]]]
    a = PatternAssignment(frame, qi, k)
    assert (a.w == model.m).all()  # the same distinct tuples in the same order
    a._add(model.tup[keep], model.pat[keep], xe[keep].astype(np.int64))
    left = model.m.astype(np.int64)
    np.subtract.at(left, model.tup[keep], xe[keep].astype(np.int64))
    a.construct(np.flatnonzero(left > 0), left[left > 0])
    built = a.cells
    a.improve()
    sizes = np.bincount(a.cls[a.e_pat, a.e_row], weights=a.e_cnt)
    assert sizes[sizes > 0].min() >= k and a.e_cnt.sum() == model.m.sum()
    return built, a.cells


def main() -> None:
    from bench.bench_local import ADULT, QI

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--upper", type=float, default=None, help="a known release's '*' count")
    parser.add_argument("--repair", action="store_true", help="also the release the multipliers guide")
    args = parser.parse_args()
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    codes = np.stack([pd.factorize(frame[q])[0] for q in QI])
    upper = args.upper or {3: 15_084, 5: 20_236}.get(args.k, len(frame) * len(QI))
    b = lagrange_bound(codes, args.k, upper, args.iterations, log_every=100)
    print(
        f"k={args.k}: trivial bound {b.trivial:,}; Lagrangian bound {b.value:,.2f}, so at least {b.cells:,} "
        f"'*' in any release ({b.iterations} subgradient steps, {b.status})"
    )
    if args.repair:
        built, improved = lagrangian_repair(frame, QI, b)
        print(f"  a release guided by the multipliers: {built:,} '*' built, {improved:,} after local search")


if __name__ == "__main__":
    main()
