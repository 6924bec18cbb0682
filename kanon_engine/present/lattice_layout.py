"""The lattice drawn as a Hasse diagram: where every node sits and which edges are drawn, no Qt.

Pure geometry for the lattice view (the view only paints it). Past a node cap only the satisfying
frontier is drawn (every other satisfying node generalizes one of it, by monotonicity), and the view says
how many nodes are hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kanon_engine.core.lattice import SearchRecord, levels_of, satisfying_frontier, strides_of

#: Above this many nodes the lattice view draws only the satisfying frontier. Adult (8 QIs) has 6,480
#: nodes and stays fluid when drawn whole, so the cap sits above it.
DEFAULT_NODE_CAP = 10_000


@dataclass(eq=False)
class LatticeLayout:
    """Where every drawn node sits, and the edges between drawn nodes (positions into ``nodes``)."""

    nodes: np.ndarray  # lattice indices drawn
    levels: np.ndarray  # (n, n_qi)
    heights: np.ndarray
    x: np.ndarray
    y: np.ndarray
    edges: np.ndarray  # (m, 2) positions into nodes
    total: int  # nodes in the lattice
    frontier_only: bool
    row_step: float

    @property
    def hidden(self) -> int:
        return self.total - len(self.nodes)


def build_layout(record: SearchRecord, node_cap: int = DEFAULT_NODE_CAP) -> LatticeLayout:
    """Hasse layout: one row per height, nodes of a row in index order, centred; edges one level up."""
    max_levels = np.asarray(record.max_levels, dtype=np.int64)
    total = int(len(record.status))
    frontier_only = total > node_cap
    if frontier_only:
        nodes = satisfying_frontier(record)
        if len(nodes) > node_cap:  # keep the best by metric, then the lowest
            metric = np.nan_to_num(record.metric[nodes], nan=np.inf)
            keep = np.lexsort((nodes, levels_of(max_levels, nodes).sum(axis=1), metric))[:node_cap]
            if record.optimum is not None and record.optimum in set(nodes.tolist()):
                opt_pos = int(np.flatnonzero(nodes == record.optimum)[0])
                if opt_pos not in set(keep.tolist()):
                    keep[-1] = opt_pos
            nodes = np.sort(nodes[keep])
    else:
        nodes = np.arange(total, dtype=np.int64)
    levels = levels_of(max_levels, nodes)
    heights = levels.sum(axis=1)
    # rank of each node inside its row (rows = heights), nodes of a row in index order
    order = np.lexsort((nodes, heights))
    sorted_h = heights[order]
    row_start = np.searchsorted(sorted_h, sorted_h, side="left")
    rank = np.empty(len(nodes), dtype=np.int64)
    rank[order] = np.arange(len(nodes)) - row_start
    counts = np.bincount(heights, minlength=int(max_levels.sum()) + 1)
    x = rank - (counts[heights] - 1) / 2.0
    n_rows = int(max_levels.sum()) + 1
    widest = int(counts.max()) if len(counts) else 1
    row_step = max(1.0, 0.55 * widest / max(1, n_rows - 1))
    y = heights * row_step
    edges = np.zeros((0, 2), dtype=np.int64)
    if not frontier_only and total > 1:
        strides = strides_of(max_levels)
        parts = []
        for a in range(len(max_levels)):
            src = np.flatnonzero(levels[:, a] < max_levels[a])
            parts.append(np.column_stack([src, src + strides[a]]))
        edges = np.concatenate(parts) if parts else edges
    return LatticeLayout(
        nodes, levels, heights, x.astype(float), y.astype(float), edges, total, frontier_only, row_step
    )
