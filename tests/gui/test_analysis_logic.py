"""The numeric core of the analysis views that still needs Qt or lives in the views: level words,
histograms and distributions, chart export. (The lattice layout and the class boxes are engine code:
tests/engine/test_geometry.py.)"""

from __future__ import annotations

import datetime as dt
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.present.chart_data import distribution, loss_per_attribute, numeric_bins_for, size_histogram
from kanon_gui.views.chart_export import save_chart
from kanon_gui.views.lattice_view import level_words


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
    assert len(top) == 30 and top.index[-1] == "71 other values" and top.sum() == len(many)


def test_loss_per_attribute_prefers_ncp() -> None:
    kind, values = loss_per_attribute({"ncp:age": 0.25, "intensity:age": 0.5, "dm": 3.0})
    assert kind == "Range left open per quasi-identifier (NCP)" and values == {"age": 0.25}
    kind, values = loss_per_attribute({"intensity:age": 0.5, "intensity:sex": 0.0})
    assert kind.startswith("Generalization per quasi-identifier") and values == {"age": 0.5, "sex": 0.0}


def test_chart_export_of_a_plain_widget(qtbot, tmp_path: Path) -> None:
    w = QWidget()
    QVBoxLayout(w).addWidget(QLabel("class sizes"))
    qtbot.addWidget(w)
    w.resize(300, 200)
    png, svg = save_chart(w, tmp_path / "chart.png")
    assert png.name == "chart.png" and svg.name == "chart.svg"
    assert png.read_bytes()[:4] == b"\x89PNG" and QSvgRenderer(str(svg)).isValid()


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
    # calendar ticks (issue 12, item 16): on the first of a month, in words, never odd ISO dates
    axis = view.plot_item.getAxis("bottom")
    lo, hi = dt.date(2020, 1, 1).toordinal(), dt.date(2021, 11, 30).toordinal()
    ((_, values),) = axis.tickValues(lo, hi, 640)
    texts = axis.tickStrings(values, 1, 1)
    assert all(dt.date.fromordinal(int(v)).day == 1 for v in values) and len(values) >= 4
    assert texts[0] == "Jan 2020" and "Jan 2021" in texts
    months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    assert all(t.split()[0] in months and t.split()[1] in ("2020", "2021") for t in texts)
    ((_, few),) = axis.tickValues(lo, hi, 160)  # a narrow chart: fewer ticks, still on calendar steps
    assert 2 <= len(few) < len(values)
