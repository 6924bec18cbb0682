"""The numeric core of the analysis views on small inputs, checked by brute force: lattice layout and
frontier, partition-to-class mapping, class boxes, histograms and distributions, chart export."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.lattice import (
    FAILS,
    INFERRED_FAILS,
    INFERRED_SATISFIES,
    SATISFIES,
    Lattice,
    SearchRecord,
)
from kanon_engine.result import PartitionRecord
from kanon_gui.views.chart_export import save_chart
from kanon_gui.views.charts import distribution, loss_per_attribute, numeric_bins_for, size_histogram
from kanon_gui.views.lattice_view import build_layout, level_words, levels_of, satisfying_frontier
from kanon_gui.views.partition_view import distinct_per_class, partition_classes


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


def test_level_words() -> None:
    h = Hierarchy.from_rows(
        "age", [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 40)]
    )
    assert level_words("age", 0, h).startswith("age: original values (e.g. ")
    text = level_words("age", 1, h)
    assert text.startswith("age: level 1 of 2 (e.g. ") and text[len("age: level 1 of 2 (e.g. ") : -1] in {
        "20-29",
        "30-39",
    }
    assert level_words("age", 2, h) == "age: level 2 of 2 (fully generalized, *)"
    assert level_words("zip", 1, None) == "zip: level 1"


def test_partition_classes_from_running_totals() -> None:
    # partitions grouped by class in class order: class 0 = parts 0,1; class 1 = part 2; class 2 = parts 3,4
    part = PartitionRecord(("a",), np.zeros((5, 1)), np.zeros((5, 1)), np.array([3, 2, 4, 5, 6]), (True,))
    assert partition_classes(part, np.array([5, 4, 11])).tolist() == [0, 0, 1, 2, 2]
    assert partition_classes(part, np.array([4, 5, 11])) is None  # does not line up
    assert partition_classes(part, np.array([5, 4, 10])) is None  # different totals


def test_distinct_per_class() -> None:
    row_class = np.array([0, 0, 1, 1, 1, -1, 2])
    values = pd.Series(["a", "b", "a", "a", np.nan, "c", "z"], dtype=object)
    assert distinct_per_class(row_class, values, 3).tolist() == [2, 2, 1]


def test_size_histogram_counts_every_class() -> None:
    small = np.array([5, 5, 6, 9, 9, 9])
    edges, counts, log = size_histogram(small)
    assert not log and counts.sum() == len(small) and counts[0] == 2 and counts[-1] == 3
    big = np.r_[np.full(50, 5), np.arange(6, 3000, 7)]
    edges, counts, log = size_histogram(big)
    assert log and counts.sum() == len(big) and edges[0] <= 5 and edges[-1] > big.max()
    # a forced span bins two runs alike
    e1, _, l1 = size_histogram(small, span=(5, 3000))
    e2, _, l2 = size_histogram(big, span=(5, 3000))
    assert l1 and l2 and np.array_equal(e1, e2)


def test_distribution_orders_and_bins() -> None:
    h = Hierarchy.from_rows("edu", [["BSc", "Higher", "*"], ["MSc", "Higher", "*"], ["9th", "School", "*"]])
    released = pd.Series(["School", "Higher", "Higher", "*", "School"], dtype=object)
    d = distribution(released, h)
    assert list(d.index) == ["Higher", "School", "*"] and d.tolist() == [2, 2, 1]
    ages = pd.Series([str(a) for a in range(17, 91)] * 3, dtype=object)
    bins = numeric_bins_for(ages)
    assert bins is not None
    orig = distribution(ages, None, bins)
    assert orig.sum() == len(ages)
    with_star = ages.copy()
    with_star.iloc[:4] = "*"
    rel = distribution(with_star, None, bins)
    assert rel["*"] == 4 and rel.sum() == len(ages) and list(rel.index[:-1]) == list(orig.index)
    many = pd.Series([f"v{i:03d}" for i in range(100)] + ["v000"] * 5, dtype=object)
    top = distribution(many)
    assert len(top) == 30 and top.index[-1].startswith("other (") and top.sum() == len(many)


def test_loss_per_attribute_prefers_ncp() -> None:
    kind, values = loss_per_attribute({"ncp:age": 0.25, "intensity:age": 0.5, "dm": 3.0})
    assert kind.startswith("NCP") and values == {"age": 0.25}
    kind, values = loss_per_attribute({"intensity:age": 0.5, "intensity:sex": 0.0})
    assert kind.startswith("generalization intensity") and values == {"age": 0.5, "sex": 0.0}


def test_chart_export_of_a_plain_widget(qtbot, tmp_path: Path) -> None:
    w = QWidget()
    QVBoxLayout(w).addWidget(QLabel("class sizes"))
    qtbot.addWidget(w)
    w.resize(300, 200)
    png, svg = save_chart(w, tmp_path / "chart.png")
    assert png.name == "chart.png" and svg.name == "chart.svg"
    assert png.read_bytes()[:4] == b"\x89PNG" and QSvgRenderer(str(svg)).isValid()


@pytest.mark.parametrize("levels", list(itertools.product(range(3), range(2))))
def test_levels_roundtrip(levels: tuple[int, int]) -> None:
    lat = Lattice([2, 1])
    assert tuple(levels_of(lat.max_levels, np.array([lat.index(levels)]))[0]) == levels


def test_partition_view_draws_dates_on_their_scale(qtbot) -> None:
    """A date quasi-identifier is drawn in ordinal days, as Mondrian records its boxes."""
    from kanon_engine.algorithms import algorithms, get_algorithm
    from kanon_engine.config import AnonymizationConfig, build_models
    from kanon_engine.data.table import Table
    from kanon_engine.hierarchy import default_hierarchy
    from kanon_gui.views.partition_view import PartitionView

    if "mondrian" not in algorithms():
        pytest.skip("Mondrian is not available")
    rng = np.random.default_rng(0)
    n = 300
    days = pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 700, n), unit="D")
    frame = pd.DataFrame({"admit": days.strftime("%Y-%m-%d"), "sex": rng.choice(["F", "M"], n)})
    table = Table.from_frame(frame)
    hierarchies = {c: default_hierarchy(c, table.frame[c], table.column_types[c]) for c in ("admit", "sex")}
    config = AnonymizationConfig(("admit", "sex"), hierarchies, build_models(5))
    result = get_algorithm("mondrian").run(table, config)
    view = PartitionView()
    qtbot.addWidget(view)
    view.set_result(result, table)
    view.set_axes("admit", "sex")
    assert view.boxes.source == "partitions" and view.box_count() == len(result.partitions.sizes)
    ordinal = np.array([d.toordinal() for d in days.date], dtype=float)
    assert np.allclose(view._axis("admit").coords, ordinal)
    inside = np.zeros(n, dtype=bool)
    b = view.boxes
    for i in range(len(b)):
        rows = result.row_class == b.cls[i]
        inside[rows] |= (b.x0[i] <= ordinal[rows]) & (ordinal[rows] <= b.x1[i])
    assert inside.all()
    assert view.plot_item.getAxis("bottom").tickStrings([737_800.0], 1, 1) == ["2021-01-10"]
