"""The cut tree that finds a row's Mondrian partition from its keys
(:mod:`kanon_engine.sources.plan.key_tree`),
checked against a brute-force search of every partition's bounds."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms.mondrian.algorithm import _CutChecker, make_axes, partition
from kanon_engine.core.encoding import encode_table
from kanon_engine.data.table import Table
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.sources.plan.key_tree import KeyTree
from tests.conftest import ADULT_QI


def _guillotine(points: np.ndarray, rng: np.random.Generator, most: int) -> list[np.ndarray]:
    """Random guillotine cuts of the points (attributes, points) until each part holds at most ``most``:
    the index sets of the parts (what strict Mondrian makes, with random rather than median cuts)."""
    parts, todo = [], [np.arange(points.shape[1])]
    while todo:
        idx = todo.pop()
        if len(idx) <= most:
            parts.append(idx)
            continue
        spread = [q for q in range(points.shape[0]) if np.ptp(points[q, idx]) > 0]
        if not spread:
            parts.append(idx)
            continue
        q = rng.choice(spread)
        values = np.unique(points[q, idx])
        t = rng.choice(values[:-1])
        todo += [idx[points[q, idx] <= t], idx[points[q, idx] > t]]
    return parts


def _brute(lower: np.ndarray, upper: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The partition holding every row (-1: none), comparing the row with every partition."""
    inside = ((keys.T[:, None, :] >= lower[None]) & (keys.T[:, None, :] <= upper[None])).all(axis=2)
    return np.where(inside.any(axis=1), inside.argmax(axis=1), -1)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 400),
    d=st.integers(1, 5),
    span=st.sampled_from([2, 7, 300, 70_000]),
    most=st.integers(1, 12),
)
def test_lookup_equals_brute_force_on_random_guillotine_partitions(seed, n, d, span, most):
    rng = np.random.default_rng(seed)
    points = rng.integers(0, span, size=(d, n))
    parts = _guillotine(points, rng, most)
    lower = np.stack([points[:, p].min(axis=1) for p in parts])
    upper = np.stack([points[:, p].max(axis=1) for p in parts])
    tree = KeyTree.build(lower, upper)
    assert tree is not None
    expected = np.empty(n, dtype=np.int64)
    for i, p in enumerate(parts):
        expected[p] = i
    assert np.array_equal(tree.lookup(points), expected)
    # rows anywhere in the key space: in a partition's bounds exactly where brute force finds one
    probe = rng.integers(0, span + 2, size=(d, 500))
    assert np.array_equal(tree.lookup(probe), _brute(lower, upper, probe))


def test_mondrian_partitions_of_adult_are_found_by_their_keys(adult_frame, adult_hierarchies):
    """The tight bounds of strict Mondrian's own partitions on Adult: every point is found in its
    partition, and the tree is about as deep as the run's cuts (log2 of the partitions, plus a few)."""
    table = Table(adult_frame.copy())
    enc = encode_table(table, ADULT_QI, adult_hierarchies)
    axes = make_axes(table, enc)
    keys = np.stack([ax.key_of_leaf[enc.codes[q]] for q, ax in enumerate(axes)])
    weights = np.ones(enc.n_points, dtype=np.int64)
    parts = partition(keys, weights, axes, True, _CutChecker(enc, (KAnonymity(5),)), lambda f, m: None)
    tree = KeyTree.build(parts.lower, parts.upper)
    assert tree is not None
    found = tree.lookup(keys)
    expected = np.empty(enc.n_points, dtype=np.int64)
    expected[parts.point] = parts.partition
    assert np.array_equal(found, expected)
    assert tree.n_partitions == len(parts.sizes) and len(tree.dim) == len(parts.sizes) - 1
    depth = _depth(tree)
    assert depth <= 2 * np.log2(len(parts.sizes)) + 4
    # the tree is small beside the points it replaces (12 bytes a point: key and class)
    assert tree.node_bytes < 12 * enc.n_points / 5


def _depth(tree: KeyTree) -> int:
    """The longest root-to-leaf path."""
    depth, level = 0, np.zeros(1, dtype=np.int64)
    while len(level):
        depth += 1
        nxt = np.concatenate([tree.left[level], tree.right[level]])
        level = nxt[nxt >= 0]
    return depth


def test_overlapping_partitions_have_no_tree():
    """Relaxed Mondrian divides a point's records between partitions: their bounds overlap, and no
    guillotine cut separates them (the caller then keeps the points)."""
    lower = np.array([[0, 0], [0, 0], [3, 0]])
    upper = np.array([[2, 1], [2, 1], [4, 1]])
    assert KeyTree.build(lower, upper) is None
    # a pinwheel: disjoint boxes no straight cut separates
    lower = np.array([[0, 0], [2, 0], [1, 1], [0, 1], [1, 2]])
    upper = np.array([[1, 0], [2, 1], [1, 1], [0, 2], [2, 2]])
    assert KeyTree.build(lower, upper) is None


def test_one_partition_and_rows_outside():
    tree = KeyTree.build(np.array([[3, 5]]), np.array([[4, 9]]))
    assert tree is not None
    keys = np.array([[3, 4, 2, 4], [5, 9, 6, 10]])
    assert tree.lookup(keys).tolist() == [0, 0, -1, -1]
