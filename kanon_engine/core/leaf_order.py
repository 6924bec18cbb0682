"""The leaf order of a hierarchy in which every node's leaves are contiguous.

Mondrian cuts a categorical attribute along its hierarchy (LeFevre, DeWitt & Ramakrishnan 2006): its
leaves are put in *tree order*, so a partition is a run of keys and a cut a threshold on a child
boundary. The partition view draws boxes and the workload generator draws value ranges in the same order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kanon_engine.core.frequency import group_columns
from kanon_engine.hierarchy.model import Hierarchy


def tree_order(hierarchy: Hierarchy) -> np.ndarray:
    """Leaf indices in the order Mondrian and its boxes use for a categorical attribute.

    Every hierarchy node's leaves are contiguous; siblings keep the order in which the hierarchy first
    lists them; leaves under one parent keep hierarchy order. For hierarchies that list the members of
    each group together (the builders' and ARX's usual layout) this is the hierarchy order itself.
    """
    paths = node_paths(hierarchy)
    n = len(hierarchy.values)
    leaf = np.arange(n)
    keys = [leaf]
    for j in range(1, hierarchy.depth):
        first = np.full(int(paths[j].max()) + 1, n, dtype=np.int64)
        np.minimum.at(first, paths[j], leaf)
        keys.append(first[paths[j]])
    return np.lexsort(keys)


def node_paths(hierarchy: Hierarchy) -> list[np.ndarray]:
    """Per level, the node id of every leaf, a node being its label *and* its path to the top (so a
    hierarchy whose labels repeat under different parents still forms a tree)."""
    depth = hierarchy.depth
    paths: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * depth
    n_up = 1
    for j in range(depth - 1, -1, -1):
        codes, labels = pd.factorize(hierarchy.matrix[:, j])
        if j == depth - 1:
            paths[j], n_up = codes.astype(np.int64), len(labels)
        else:
            paths[j], n_up = group_columns([paths[j + 1], codes.astype(np.int64)], [n_up, len(labels)])
    return paths
