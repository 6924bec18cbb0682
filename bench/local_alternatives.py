"""What was tried for local recoding besides cost-ordered peeling, kept to measure (not shipped), and the
exhaustive search for the fewest '*' on small tables. Used by ``bench/bench_local.py``.

- *ARX-style rounds*: like ARX's iterative local recoding (Prasser et al. 2018), each round applies the
  full-domain transformation with the least NCP for the records still open, counting a record in a class
  smaller than k as fully suppressed (NCP 1 per cell); the records kept are released at that node and
  the others go to the next round; what is left goes to the top.
- *Top-down split*: Mondrian-style (LeFevre et al. 2006) but on hierarchy nodes: a partition starts at the
  root of every attribute; it is split on the attribute whose children save the most NCP, children with k
  records or more become partitions, the others stay together at the parent (topped up from the largest
  child when fewer than k), and that remainder may still split on other attributes.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from kanon_engine.core.encoding import EncodedTable, encode_table
from kanon_engine.core.frequency import group_columns
from kanon_engine.core.lattice import Lattice
from kanon_engine.data.table import Table
from kanon_engine.metrics.partition import hierarchy_ncp


def _ncp(enc: EncodedTable, node_of: np.ndarray) -> float:
    tables = [hierarchy_ncp(h) for h in enc.hierarchies]
    return float(np.mean([tables[q][enc.codes[q], node_of[:, q]].mean() for q in range(enc.n_qi)]))


def arx_style_rounds(enc: EncodedTable, k: int) -> np.ndarray:
    """The node of every record after rounds of the globally best transformation."""
    lat = Lattice(enc.heights)
    tables = [hierarchy_ncp(h) for h in enc.hierarchies]
    node_of = np.tile(enc.heights, (enc.n_rows, 1))
    open_rows = np.arange(enc.n_rows)
    while len(open_rows) >= k:
        best = None
        for levels in lat.levels:
            cols = [enc.level_maps[q][lv][enc.codes[q, open_rows]] for q, lv in enumerate(levels)]
            ids, n = group_columns(cols, [enc.level_sizes[q][lv] for q, lv in enumerate(levels)])
            kept = np.bincount(ids, minlength=n)[ids] >= k
            cost = sum(tables[q][enc.codes[q, open_rows], lv] for q, lv in enumerate(levels))
            total = float(cost[kept].sum()) + enc.n_qi * float((~kept).sum())
            if kept.any() and (best is None or total < best[0]):
                best = (total, levels, kept)
        if best is None:
            break
        node_of[open_rows[best[2]]] = best[1]
        open_rows = open_rows[~best[2]]
    return node_of


def top_down_split(enc: EncodedTable, k: int) -> np.ndarray:
    """The node of every record after the top-down split on hierarchy nodes (see the docstring)."""
    node_ncp = []
    for h in enc.hierarchies:
        n = len(h.values)
        node_ncp.append(
            [(np.bincount(c, minlength=len(lab)) - 1) / max(n - 1, 1) for c, lab in h.level_codes]
        )
    node_of = np.zeros((enc.n_rows, enc.n_qi), dtype=np.int64)
    stack = [(np.arange(enc.n_rows), enc.heights.copy(), np.zeros(enc.n_qi, dtype=bool))]
    while stack:
        rows, lv, frozen = stack.pop()
        best = None
        for a in range(enc.n_qi):
            if lv[a] == 0 or frozen[a]:
                continue
            child = enc.level_maps[a][lv[a] - 1][enc.codes[a, rows]]
            uniq, inv, cnt = np.unique(child, return_inverse=True, return_counts=True)
            good = cnt >= k
            left = int(cnt[~good].sum())
            if not good.any() or (0 < left < k and (cnt[good] - k).max() < k - left):
                continue
            parent = node_ncp[a][lv[a]][enc.level_maps[a][lv[a]][enc.codes[a, rows[0]]]]
            gain = float(((parent - node_ncp[a][lv[a] - 1][uniq]) * cnt * good).sum())
            if best is None or gain > best[0]:
                best = (gain, a, inv, cnt, good, left)
        if best is None:
            node_of[rows] = lv
            continue
        _, a, inv, cnt, good, left = best
        rest = ~good[inv]
        if 0 < left < k:
            donor = np.flatnonzero(good)[np.argmax(cnt[good])]
            rest[np.flatnonzero(inv == donor)[: k - left]] = True
        down = lv.copy()
        down[a] -= 1
        for c in np.flatnonzero(good):
            stack.append((rows[(inv == c) & ~rest], down, frozen.copy()))
        if rest.any():
            still = frozen.copy()
            still[a] = True
            stack.append((rows[rest], lv, still))
    return node_of


def run_alternatives(frame: pd.DataFrame, hs: dict, qi: list[str]) -> None:
    enc = encode_table(Table.from_frame(frame), qi, hs)
    print("\nLocal recoding on Adult, the algorithms tried (NCP, CPU seconds of one run)")
    for name, fn in (("ARX-style rounds", arx_style_rounds), ("top-down split", top_down_split)):
        for k in (5, 10):
            t0 = time.process_time()
            node_of = fn(enc, k)
            secs = time.process_time() - t0
            print(f"  {name:18s} k={k:<3d} NCP {_ncp(enc, node_of):.4f}  {secs:6.2f} s")


def exhaustive_gap(tables: int = 300, seed: int = 19) -> None:
    """Local suppression against the exhaustive minimum of '*' on small random tables."""
    from kanon_engine.algorithms import get_algorithm
    from kanon_engine.config import AnonymizationConfig
    from kanon_engine.hierarchy.model import Hierarchy
    from kanon_engine.privacy.models import KAnonymity
    from tests.engine.reference import min_suppressed_cells

    rng = np.random.default_rng(seed)
    got_total = best_total = optimal = 0
    worst = (0, 0)
    for _ in range(tables):
        d, n, k = int(rng.integers(2, 5)), int(rng.integers(5, 11)), int(rng.integers(2, 4))
        frame = pd.DataFrame(
            {f"q{j}": [f"v{int(x)}" for x in rng.integers(0, 3, n)] for j in range(d)}, dtype=object
        )
        qi = tuple(frame.columns)
        config = AnonymizationConfig(
            qi, {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in qi}, (KAnonymity(k),)
        )
        got = (
            get_algorithm("local-suppression").run(Table.from_frame(frame), config).recoding.suppressed_cells
        )
        best = min_suppressed_cells(frame, list(qi), k, upper=got)
        got_total, best_total, optimal = got_total + got, best_total + best, optimal + (got == best)
        if (got + 1) / (best + 1) > (worst[0] + 1) / (worst[1] + 1):
            worst = (got, best)
    print(
        f"\nLocal suppression vs the exhaustive minimum on {tables} random tables (5-10 rows, 2-4 QIs, "
        f"k 2-3): optimal on {optimal}, {100 * (got_total / best_total - 1):.1f} % more '*' in all, "
        f"worst {worst[0]} for {worst[1]}"
    )


# --- local suppression: construction guided by the exact lower bound, then local search -----------------
class PatternAssignment:
    """Local suppression as an assignment of records to classes (a pattern of kept attributes and their
    values), a class released only with 0 or >= k records. Tried against cost-ordered peeling (not
    shipped: it measured within 0.3 % of peeling, see ``run_suppression_alternatives``).

    1. every frequency row gets the class of every pattern (``cls[p, r]``), and its lower bound: the
       fewest '*' of a pattern whose class over *all* records holds k (the bound bench_local prints);
    2. level by level (number of '*'), the rows whose bound is at most the level are grouped pattern by
       pattern (least important attributes starred first); classes reaching k are released; a class short
       of k takes records from released classes larger than k (same level: free; lower: they pay the
       difference) when that costs less than its own records climbing a level; the rest climb;
    3. local search: records of classes larger than k (and climbers) move to a class with fewer '*' that
       is released or that they can open with others (at least k records, the gain positive).
    """

    def __init__(self, frame: pd.DataFrame, qi: list[str], k: int) -> None:
        codes = np.stack([pd.factorize(frame[q])[0] for q in qi])
        row, n_rows = group_columns(list(codes), [int(c.max()) + 1 for c in codes])
        rep = np.empty(n_rows, dtype=np.int64)
        rep[row] = np.arange(len(row))
        self.codes, self.w, self.k, d = codes[:, rep], np.bincount(row), k, len(qi)
        distinct = [len(np.unique(c)) for c in codes]
        order = sorted(range(d), key=lambda q: (distinct[q], q))  # most important first (kanon's rule)
        bit = np.array([[(p >> q) & 1 for q in range(d)] for p in range(1 << d)])
        self.stars = bit.sum(axis=1)
        tie = np.array([2.0 ** (d - 1 - order.index(q)) for q in range(d)]) * 1e-3 / 2.0**d
        self.pcost = self.stars + bit @ tie
        cls, sizes, off = [], [], 0
        for p in range(1 << d):
            kept = [self.codes[q] for q in range(d) if not bit[p, q]]
            ids, n = (
                group_columns(kept, [int(c.max()) + 1 for c in kept])
                if kept
                else (
                    np.zeros(n_rows, dtype=np.int64),
                    1,
                )
            )
            cls.append(ids + off)
            sizes.append(np.bincount(ids, weights=self.w, minlength=n))
            off += n
        self.cls, self.pat_of = np.stack(cls), np.repeat(np.arange(1 << d), [len(s) for s in sizes])
        self.feasible = np.concatenate(sizes)[self.cls] >= k
        self.lower = np.where(self.feasible, self.stars[:, None], d + 1).min(axis=0)
        self.e_row = self.e_pat = self.e_cnt = np.zeros(0, dtype=np.int64)
        self.cnt = np.zeros(off, dtype=np.int64)

    @property
    def cells(self) -> int:
        return int((self.stars[self.e_pat] * self.e_cnt).sum())

    def _add(self, rows: np.ndarray, pats: np.ndarray, counts: np.ndarray) -> None:
        self.e_row = np.concatenate([self.e_row, rows])
        self.e_pat = np.concatenate([self.e_pat, pats])
        self.e_cnt = np.concatenate([self.e_cnt, counts])
        np.add.at(self.cnt, self.cls[pats, rows], counts)

    def _move(self, entries: np.ndarray, pats: np.ndarray, counts: np.ndarray) -> None:
        np.subtract.at(self.cnt, self.cls[self.e_pat[entries], self.e_row[entries]], counts)
        np.subtract.at(self.e_cnt, entries, counts)
        self._add(self.e_row[entries], pats, counts)

    def construct(self, rows: np.ndarray | None = None, counts: np.ndarray | None = None) -> None:
        """Place ``counts`` records of frequency rows ``rows`` (default: every record), joining the
        classes already released when they can."""
        if rows is None or counts is None:
            rows, counts = np.arange(len(self.w)), self.w.copy()
        for level in range(int(self.stars.max()) + 1):
            now = self.lower[rows] <= level
            if level == self.stars.max():  # the last level takes everyone left
                now[:] = True
            mine, left = rows[now], counts[now]
            placed = self._level(level, mine, left)
            rows = np.concatenate([rows[~now], mine[~placed]])
            counts = np.concatenate([counts[~now], left[~placed]])
        if len(rows):  # the all-'*' class short of k: spare records join it
            self._add(rows, np.full(len(rows), len(self.stars) - 1), counts)
            top = np.array([self.cls[-1, 0]])
            self._fill(top, self.cnt[top], np.inf)

    def _level(self, level: int, rows: np.ndarray, counts: np.ndarray) -> np.ndarray:
        pick, todo = np.full(len(rows), -1), np.ones(len(rows), dtype=bool)
        pats = np.flatnonzero(self.stars == level)
        for p in pats[np.argsort(self.pcost[pats])]:
            m = todo & self.feasible[p, rows]
            c = self.cls[p, rows[m]]
            total = self.cnt[c] + np.bincount(c, weights=counts[m], minlength=len(self.cnt))[c]
            idx = np.flatnonzero(m)
            pick[idx[pick[idx] < 0]] = p  # a record no class takes waits at its first pattern
            done = idx[total >= self.k]
            pick[done], todo[done] = p, False
        ok = pick >= 0
        c = self.cls[np.maximum(pick, 0), rows]
        total = self.cnt + np.bincount(c[ok], weights=counts[ok], minlength=len(self.cnt)).astype(np.int64)
        ok &= total[c] >= self.k
        self._add(rows[ok], pick[ok], counts[ok])
        for _ in range(3):  # a fill frees nothing, but a later one may use records that just arrived
            short = np.unique(c[(pick >= 0) & ~ok])
            members = total[short]
            filled = self._fill(short, members, members.astype(float)) if len(short) and level else short[:0]
            again = (pick >= 0) & ~ok & np.isin(c, filled)
            self._add(rows[again], pick[again], counts[again])
            ok |= again
            if not again.any():
                break
        return ok

    def _fill(self, short: np.ndarray, members: np.ndarray, budget: np.ndarray | float) -> np.ndarray:
        """Classes in ``short`` (holding ``members`` records) completed with spare records of released
        classes when that costs less than ``budget`` (their records would each climb a level); the ones
        filled."""
        from kanon_engine.algorithms.peeling import _allocate

        need = np.zeros(len(self.cnt), dtype=np.int64)
        need[short] = self.k - members
        live = np.flatnonzero((self.e_cnt > 0) & (self.cnt[self.cls[self.e_pat, self.e_row]] > self.k))
        pe, pc = [], []
        for p in np.unique(self.pat_of[short]):
            target = self.cls[p, self.e_row[live]]
            m = (need[target] > 0) & (self.e_pat[live] != p)
            pe.append(live[m])
            pc.append(target[m])
        pe, pc = np.concatenate(pe), np.concatenate(pc)
        pe, first = np.unique(pe, return_index=True)  # one class per giving entry
        pc = pc[first]
        if not len(pe):
            return short[:0]
        delta = (self.stars[self.pat_of[pc]] - self.stars[self.e_pat[pe]]).astype(float)
        src = self.cls[self.e_pat[pe], self.e_row[pe]]
        take = _allocate(pe, src, pc, delta, self.e_cnt[pe], np.maximum(self.cnt - self.k, 0), need)
        got = np.bincount(pc, weights=take, minlength=len(self.cnt))
        cost = np.bincount(pc, weights=take * delta, minlength=len(self.cnt))
        ok = np.zeros(len(self.cnt), dtype=bool)
        ok[short] = (got[short] >= need[short]) & (cost[short] < np.asarray(budget) - 1e-9)
        go = ok[pc] & (take > 0)
        self._move(pe[go], self.pat_of[pc[go]], take[go])
        return short[ok[short]]

    def improve(self, rounds: int = 10) -> None:
        """Local search (see the class docstring), a round at a time while the '*' count drops."""
        for _ in range(rounds):
            keep = self.e_cnt > 0
            self.e_row, self.e_pat, self.e_cnt = self.e_row[keep], self.e_pat[keep], self.e_cnt[keep]
            if not self._open_cheaper():
                return

    def _open_cheaper(self) -> bool:
        e_cls = self.cls[self.e_pat, self.e_row]
        es = self.stars[self.e_pat]
        movers = np.flatnonzero(es > self.lower[self.e_row])
        mp, mi = np.nonzero(self.feasible[:, self.e_row[movers]] & (self.stars[:, None] < es[movers]))
        target = np.unique(self.cls[mp, self.e_row[movers[mi]]])
        is_t = np.zeros(len(self.cnt), dtype=bool)
        is_t[target] = True
        pe, pc = [], []
        for p in np.unique(self.pat_of[target]):
            t = self.cls[p, self.e_row]
            m = is_t[t] & (t != e_cls)
            pe.append(np.flatnonzero(m))
            pc.append(t[m])
        pe, pc = np.concatenate(pe), np.concatenate(pc)
        delta = self.stars[self.pat_of[pc]] - es[pe]
        order = np.lexsort((delta, pc))
        pe, pc, delta = pe[order], pc[order], delta[order]
        bounds = np.searchsorted(pc, target), np.searchsorted(pc, target, side="right")
        spare, left, moves = self.cnt - self.k, self.e_cnt.copy(), []
        for c, a, b in zip(target, *bounds):  # one candidate class at a time (bench code)
            need, got, gain, chosen, used = max(self.k - self.cnt[c], 0), 0, 0, [], {}
            for e, dl in zip(pe[a:b], delta[a:b]):
                avail = min(left[e], spare[e_cls[e]] - used.get(e_cls[e], 0))
                if avail <= 0 or (dl >= 0 and got >= need):
                    continue
                take = avail if dl < 0 else min(avail, need - got)
                chosen.append((e, take))
                used[e_cls[e]] = used.get(e_cls[e], 0) + take
                got, gain = got + take, gain - dl * take
            if got >= need and gain > 0:
                for e, take in chosen:
                    left[e] -= take
                    spare[e_cls[e]] -= take
                    moves.append((e, self.pat_of[c], take))
                self.cnt[c] += got  # counted for the next candidates; recomputed by _move
        if not moves:
            return False
        # the running counts above included arrivals; back to the entries' counts before moving
        self.cnt = np.bincount(e_cls, weights=self.e_cnt, minlength=len(self.cnt)).astype(np.int64)
        e, p, take = (np.array(x) for x in zip(*moves))
        self._move(e, p, take)
        return True


def run_suppression_alternatives(frame: pd.DataFrame, qi: list[str]) -> None:
    """The lower-bound-guided assignment beside the shipped local suppression, on Adult."""
    from kanon_engine.algorithms import get_algorithm
    from kanon_engine.config import AnonymizationConfig
    from kanon_engine.hierarchy.model import Hierarchy
    from kanon_engine.privacy.models import KAnonymity

    print("\nLocal suppression on Adult, the assignment tried ('*' cells, CPU seconds of one run)")
    table = Table.from_frame(frame)
    flat = {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in qi}
    for k in (3, 5):
        t0 = time.process_time()
        a = PatternAssignment(frame, qi, k)
        a.construct()
        built = a.cells
        a.improve()
        secs = time.process_time() - t0
        sizes = np.bincount(a.cls[a.e_pat, a.e_row], weights=a.e_cnt)
        assert sizes[sizes > 0].min() >= k and a.e_cnt.sum() == len(frame)
        shipped = get_algorithm("local-suppression").run(
            table, AnonymizationConfig(tuple(qi), flat, (KAnonymity(k),))
        )
        print(
            f"  k={k}: lower bound {int((a.lower * a.w).sum()):,}; assignment {built:,} built, {a.cells:,} "
            f"after local search ({secs:.2f} s); shipped peeling {shipped.recoding.suppressed_cells:,}"
        )
        t0 = time.process_time()
        post = after_peeling(frame, qi, k, shipped.release)
        print(f"       the same local search as a post-pass on the shipped release: {post:,} ", end="")
        print(f"({time.process_time() - t0:.2f} s more)")


def after_peeling(frame: pd.DataFrame, qi: list[str], k: int, release: pd.DataFrame) -> int:
    """The '*' cells left when the local search (records move to a class with fewer '*', or open one
    with k records or more, while every class they leave keeps k) runs on a finished release."""
    a = PatternAssignment(frame, qi, k)
    codes = np.stack([pd.factorize(frame[q])[0] for q in qi])
    row, _ = group_columns(list(codes), [int(c.max()) + 1 for c in codes])
    pat = sum((release[q].to_numpy() == "*").astype(np.int64) << i for i, q in enumerate(qi))
    key, count = np.unique(row * (1 << len(qi)) + pat, return_counts=True)
    a._add(key >> len(qi), key & ((1 << len(qi)) - 1), count)
    a.improve(rounds=50)
    sizes = np.bincount(a.cls[a.e_pat, a.e_row], weights=a.e_cnt)
    assert sizes[sizes > 0].min() >= k and a.e_cnt.sum() == len(frame)
    return a.cells
