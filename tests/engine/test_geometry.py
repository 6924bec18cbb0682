"""Drawing geometry computed by the engine and tested without Qt (napari's split of components and
their ``_qt`` views): the lattice's Hasse layout and frontier (:mod:`kanon_engine.core.lattice`), the class
boxes and axes of the partition view (:mod:`kanon_engine.present.boxes`), checked by brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.core.lattice import (
    FAILS,
    INFERRED_FAILS,
    INFERRED_SATISFIES,
    SATISFIES,
    Lattice,
    SearchRecord,
    levels_of,
    satisfying_frontier,
)
from kanon_engine.data.table import Table
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.present.boxes import axis_data, class_boxes, distinct_per_class
from kanon_engine.present.lattice_layout import build_layout


def _monotone_record(max_levels: list[int], threshold: int, seed: int) -> SearchRecord:
    """A record where a node satisfies iff a weighted sum of its levels reaches ``threshold``
    (monotone under generalization), with some statuses marked as inferred."""
    lat = Lattice(max_levels)
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 4, len(max_levels))
    sat = lat.levels @ w >= threshold
    inferred = rng.random(lat.size) < 0.5
    status = np.where(
        sat, np.where(inferred, INFERRED_SATISFIES, SATISFIES), np.where(inferred, INFERRED_FAILS, FAILS)
    ).astype(np.int8)
    metric = np.where(sat & ~inferred, lat.levels.sum(axis=1).astype(float), np.nan)
    optimum = int(np.flatnonzero(sat)[0]) if sat.any() else None
    return SearchRecord(
        tuple(f"q{i}" for i in range(len(max_levels))),
        np.array(max_levels),
        status,
        metric,
        optimum,
        "height",
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=4), st.integers(0, 12), st.integers(0, 10_000))
def test_frontier_is_the_minimal_satisfying_nodes(max_levels: list[int], threshold: int, seed: int) -> None:
    rec = _monotone_record(max_levels, threshold, seed)
    lat = Lattice(max_levels)
    sat = np.isin(rec.status, (SATISFIES, INFERRED_SATISFIES))
    brute = {i for i in range(lat.size) if sat[i] and not any(sat[p] for p in lat.predecessors(i))}
    if rec.optimum is not None:
        brute.add(rec.optimum)
    assert set(satisfying_frontier(rec).tolist()) == brute


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_layout_rows_and_edges(max_levels: list[int]) -> None:
    rec = _monotone_record(max_levels, 3, 1)
    lay = build_layout(rec, node_cap=10_000)
    lat = Lattice(max_levels)
    assert np.array_equal(lay.nodes, np.arange(lat.size))
    assert np.array_equal(lay.levels, lat.levels)
    # one row per height, nodes of a row at distinct x, centred on 0
    for h in np.unique(lat.heights):
        row = lat.heights == h
        assert len(np.unique(lay.y[row])) == 1
        assert len(np.unique(lay.x[row])) == row.sum()
        assert abs(lay.x[row].mean()) < 1e-9
    # edges are exactly the covering pairs (one level up in one attribute)
    brute = {(i, j) for i in range(lat.size) for j in lat.successors(i)}
    assert {tuple(e) for e in lay.edges.tolist()} == brute


def test_layout_past_the_cap_keeps_the_optimum() -> None:
    rec = _monotone_record([3, 3, 3, 2], 5, 7)
    full = satisfying_frontier(rec)
    lay = build_layout(rec, node_cap=3)
    assert lay.frontier_only and len(lay.nodes) == 3 and len(lay.edges) == 0
    assert rec.optimum in lay.nodes and set(lay.nodes.tolist()) <= set(full.tolist())
    assert lay.hidden == len(rec.status) - 3


def test_levels_of_matches_the_engine_lattice() -> None:
    lat = Lattice([2, 0, 3, 1])
    idx = np.arange(lat.size)
    assert np.array_equal(levels_of(lat.max_levels, idx), lat.levels)


@pytest.mark.parametrize("levels", list(itertools.product(range(3), range(2))))
def test_levels_roundtrip(levels: tuple[int, int]) -> None:
    lat = Lattice([2, 1])
    assert tuple(levels_of(lat.max_levels, np.array([lat.index(levels)]))[0]) == levels


def test_distinct_per_class() -> None:
    row_class = np.array([0, 0, 1, 1, 1, -1, 2])
    values = pd.Series(["a", "b", "a", "a", np.nan, "c", "z"], dtype=object)
    assert distinct_per_class(row_class, values, 3).tolist() == [2, 2, 1]


def _mondrian_on_dates(name: str = "mondrian"):
    rng = np.random.default_rng(0)
    n = 300
    days = pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 700, n), unit="D")
    frame = pd.DataFrame(
        {
            "admit": days.strftime("%Y-%m-%d"),
            "sex": rng.choice(["F", "M"], n),
            "age": rng.integers(20, 60, n).astype(str),
        }
    )
    table = Table.from_frame(frame)
    qi = ("admit", "sex", "age")
    hierarchies = {c: default_hierarchy(c, table.frame[c], table.column_types[c]) for c in qi}
    config = AnonymizationConfig(qi, hierarchies, build_models(5))
    return table, get_algorithm(name).run(table, config), days


@pytest.mark.parametrize("name", ["mondrian", "mondrian-relaxed"])
def test_mondrian_records_the_class_of_every_partition(name: str) -> None:
    """Every partition's records all belong to the class it names, and every class's records are the
    union of its partitions (brute force over the rows)."""
    table, result, _ = _mondrian_on_dates(name)
    part = result.partitions
    assert part.classes is not None and len(part.classes) == len(part.sizes)
    assert np.bincount(part.classes, weights=part.sizes, minlength=result.n_classes).tolist() == (
        result.class_sizes.tolist()
    )
    ages = table.numeric("age")
    for j in range(len(part.sizes)):
        rows = result.row_class == part.classes[j]
        lo, hi = part.lower[j, 2], part.upper[j, 2]
        assert ((ages[rows] >= lo) & (ages[rows] <= hi)).sum() >= part.sizes[j]


def test_class_boxes_hold_their_records_on_every_axis_kind() -> None:
    """Dates on ordinal days, numbers on their scale, categories in tree order: every record lies in
    a box of its class (Mondrian's boxes), and a full-domain grid's boxes are its classes' extents."""
    table, result, days = _mondrian_on_dates()
    ordinal = np.array([d.toordinal() for d in days.date], dtype=float)
    ax, ay = axis_data(table, result, "admit"), axis_data(table, result, "age")
    assert ax.date and np.allclose(ax.coords, ordinal)
    boxes = class_boxes(result, ax, ay)
    assert boxes.source == "partitions" and len(boxes) == len(result.partitions.sizes)
    inside = np.zeros(table.n_rows, dtype=bool)
    for i in range(len(boxes)):
        rows = result.row_class == boxes.cls[i]
        inside[rows] |= (
            (boxes.x0[i] <= ax.coords[rows])
            & (ax.coords[rows] <= boxes.x1[i])
            & (boxes.y0[i] <= ay.coords[rows])
            & (ay.coords[rows] <= boxes.y1[i])
        )
    assert inside.all()
    sex = axis_data(table, result, "sex")
    assert not sex.numeric and [t[1] for t in sex.ticks] == ["F", "M"]
    config = result.config
    grid = get_algorithm("datafly").run(table, config)
    boxes = class_boxes(grid, ax, sex)
    assert boxes.source == "data" and len(boxes) == grid.n_classes
    for c in range(grid.n_classes):
        rows = grid.row_class == c
        assert boxes.x0[c] <= ax.coords[rows].min() and ax.coords[rows].max() <= boxes.x1[c]
