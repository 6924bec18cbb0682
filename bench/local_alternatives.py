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

from kanon_engine.data.table import Table
from kanon_engine.encoding import EncodedTable, encode_table
from kanon_engine.frequency import group_columns
from kanon_engine.lattice import Lattice
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
