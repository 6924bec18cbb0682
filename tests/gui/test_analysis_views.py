"""The analysis views on real Adult results: what is drawn matches the results, and selections sync.

Adult (30,162 records, 8 quasi-identifiers with the ARX hierarchies, 6,480 lattice nodes) is read from
the shared datasets folder; the tests are skipped when it is absent.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from kanon_engine.algorithms import algorithms, get_algorithm
from kanon_engine.algorithms.full_domain import apply_transformation
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.core.lattice import FAILS, INFERRED_SATISFIES, SATISFIES, Lattice
from kanon_engine.core.leaf_order import tree_order
from kanon_engine.data.table import Table
from kanon_engine.hierarchy import read_arx_csv
from kanon_engine.present.boxes import axis_data
from kanon_engine.result import AnonymizationResult, PartitionRecord
from kanon_gui.state import AppState, Run
from kanon_gui.views.analysis import AnalysisPanel
from kanon_gui.views.charts import ChartsView
from kanon_gui.views.compare_view import COLUMNS, CompareView
from kanon_gui.views.lattice_view import OPTIMUM_COLOR, STATUS_COLORS, LatticeView
from kanon_gui.views.partition_view import PartitionView

pytestmark = pytest.mark.gui


def _shared() -> Path:
    env = os.environ.get("KANON_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared"


ADULT = _shared() / "datasets" / "adult"


@dataclasses.dataclass
class Adult:
    table: Table
    config: AnonymizationConfig
    optimal: object
    datafly: object


@pytest.fixture(scope="session")
def adult() -> Adult:
    if not (ADULT / "adult.csv").is_file():
        pytest.skip("the Adult dataset (../shared/datasets/adult) is not available")
    df = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    table = Table.from_frame(df)
    qi = [c for c in df.columns if c != "salary-class"]
    hierarchies = {c: read_arx_csv(ADULT / f"adult_hierarchy_{c}.csv", c) for c in qi}
    config = AnonymizationConfig(tuple(qi), hierarchies, build_models(5), sensitive=("salary-class",))
    optimal = get_algorithm("optimal", suppression_limit=0.05, metric="dm").run(table, config)
    datafly = get_algorithm("datafly", suppression_limit=0.05).run(table, config)
    return Adult(table, config, optimal, datafly)


def _box_record(result, table: Table) -> PartitionRecord:
    """Boxes of a result's classes over every QI, as Mondrian would record them (built independently of
    the view: pandas groupby min/max)."""
    qi = result.config.quasi_identifiers
    kept = result.row_class >= 0
    lows, highs, numeric = [], [], []
    for q in qi:
        a = axis_data(table, result, q)
        g = pd.Series(a.coords[kept]).groupby(result.row_class[kept])
        lows.append(g.min().to_numpy())
        highs.append(g.max().to_numpy())
        numeric.append(a.numeric)
    return PartitionRecord(
        tuple(qi), np.column_stack(lows), np.column_stack(highs), result.class_sizes.copy(), tuple(numeric)
    )


@pytest.fixture(scope="session")
def mondrian_like(adult: Adult):
    """A Mondrian result if the engine has one, else the optimal result recast as partitions."""
    if "mondrian" in algorithms():
        return get_algorithm("mondrian").run(adult.table, adult.config)
    return dataclasses.replace(
        adult.optimal,
        algorithm="mondrian",
        transformation=None,
        lattice=None,
        partitions=_box_record(adult.optimal, adult.table),
    )


def _click(qtbot, plot_widget, view_box, x: float, y: float) -> None:
    """A real left click at plot coordinates (x, y)."""
    from PySide6.QtCore import QPointF

    scene_pos = view_box.mapViewToScene(QPointF(x, y))
    p = plot_widget.mapFromScene(scene_pos)
    qtbot.mouseClick(plot_widget.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(p.x(), p.y()))


def _record(*signals) -> list[tuple[int, tuple]]:
    """Connect to the signals and collect (signal number, args) in emission order."""
    got: list[tuple[int, tuple]] = []
    for i, sig in enumerate(signals):
        sig.connect(lambda *args, i=i: got.append((i, args)))
    return got


# --- lattice -------------------------------------------------------------------------------------------
def test_lattice_draws_every_node_coloured_by_status(qtbot, adult: Adult) -> None:
    view = LatticeView()
    qtbot.addWidget(view)
    view.set_result(adult.optimal)
    rec = adult.optimal.lattice
    lat = Lattice(rec.max_levels, rec.names)
    assert lat.size == 6480
    assert len(view.layout_.nodes) == lat.size
    assert len(view.nodes_item.data) == lat.size  # one item holds every node
    colors = view.node_colors()
    for i in range(lat.size):
        expected = OPTIMUM_COLOR if i == rec.optimum else STATUS_COLORS[int(rec.status[i])]
        assert colors[i].lower() == expected.lower(), i
    # rows are heights, edges are one level up in one attribute (checked against the engine's lattice)
    heights, y = lat.heights, view.layout_.y
    row_y = [np.unique(y[heights == h]) for h in range(int(heights.max()) + 1)]
    assert all(len(r) == 1 for r in row_y)  # one row per height ...
    assert np.all(np.diff([r[0] for r in row_y]) > 0)  # ... higher nodes drawn higher
    assert view.edge_count() == sum(len(lat.successors(i)) for i in range(lat.size))
    assert "6,480" in view.header.text()


def test_lattice_hover_text_uses_hierarchy_labels(qtbot, adult: Adult) -> None:
    view = LatticeView()
    qtbot.addWidget(view)
    view.set_result(adult.optimal)
    rec = adult.optimal.lattice
    lat = Lattice(rec.max_levels, rec.names)
    node = lat.index(tuple(1 if n == "age" else 0 for n in rec.names))
    text = view.describe_node(node)
    age = adult.config.hierarchies["age"]
    labels = set(age.labels(1))
    assert "age: level 1 of 4 (e.g. " in text
    example = text.split("age: level 1 of 4 (e.g. ")[1].split(")")[0]
    assert example in labels
    assert "sex: original values" in text


def test_lattice_click_emits_levels_and_shows_applied_metrics(qtbot, adult: Adult) -> None:
    state, runs = _history([("optimal", adult.optimal)], adult.table)
    panel = AnalysisPanel(state)
    qtbot.addWidget(panel)
    panel.resize(1300, 800)
    panel.show()
    qtbot.waitExposed(panel)
    panel.show_run(runs[0])
    view = panel.lattice_view
    rec = adult.optimal.lattice
    lat = Lattice(rec.max_levels, rec.names)
    target = lat.size - 1  # the top node: alone in its row, easy to hit
    pos = view.node_position(target)
    with qtbot.waitSignal(panel.apply_node_requested, timeout=2000) as blocker:
        _click(qtbot, view.plot, view.plot.getPlotItem().getViewBox(), pos.x(), pos.y())
    assert blocker.args[0] == lat.node(target)
    # the window applies it in a worker; here directly, then hands the result back
    applied = apply_transformation(
        adult.table, adult.config, blocker.args[0], suppression_limit=0.05, search=rec
    )
    panel.show_node_result(applied)
    assert view._current == target
    assert f"groups: {applied.n_classes:,}" in view.shown_label.text()
    assert f"groups: {applied.n_classes:,}" in view.describe_node(target)
    # as a run added to the history, it keeps the lattice on screen with its node marked
    state.add_run(applied, "applied", adult.table)
    panel.show_run(state.runs[1])
    assert view.record is rec and view._current == target


def test_lattice_hover_describes_the_node_under_the_pointer(qtbot, adult: Adult) -> None:
    view = LatticeView()
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    view.set_result(adult.optimal)
    rec = adult.optimal.lattice
    target = 0  # the bottom node (original data), alone in its row
    pos = view.node_position(target)
    vb = view.plot.getPlotItem().getViewBox()
    p = view.plot.mapFromScene(vb.mapViewToScene(pos))
    qtbot.mouseMove(view.plot.viewport(), QPoint(p.x(), p.y()))
    qtbot.waitUntil(lambda: str((0,) * len(rec.names)) in view.hover_label.text(), timeout=2000)
    assert "fails" in view.hover_label.text()  # Adult's original data is not 5-anonymous


def test_lattice_filters(qtbot, adult: Adult) -> None:
    view = LatticeView()
    qtbot.addWidget(view)
    view.set_result(adult.optimal)
    rec = adult.optimal.lattice
    view.set_status_filter({SATISFIES})
    shown = view.displayed_nodes()
    assert len(shown) == int((rec.status == SATISFIES).sum())
    assert np.all(rec.status[shown] == SATISFIES)
    view.set_status_filter({SATISFIES, FAILS, INFERRED_SATISFIES})
    view.set_level_range("age", 1, 2)
    shown = view.displayed_nodes()
    levels = Lattice(rec.max_levels, rec.names).levels[shown]
    assert len(shown) > 0 and np.all((levels[:, 1] >= 1) & (levels[:, 1] <= 2))
    view.reset_filters()
    finite = rec.metric[np.isfinite(rec.metric)]
    lo, hi = float(np.min(finite)), float(np.median(finite))
    view.set_metric_range(lo, hi)
    shown = view.displayed_nodes()
    assert len(shown) == int(((rec.metric >= lo) & (rec.metric <= hi)).sum())
    view.set_metric_range(None)
    assert len(view.displayed_nodes()) == len(rec.status)


def test_lattice_past_cap_shows_satisfying_frontier(qtbot, adult: Adult) -> None:
    view = LatticeView(node_cap=1000)
    qtbot.addWidget(view)
    view.set_result(adult.optimal)
    rec = adult.optimal.lattice
    lat = Lattice(rec.max_levels, rec.names)
    sat = (rec.status == SATISFIES) | (rec.status == INFERRED_SATISFIES)
    minimal = {i for i in np.flatnonzero(sat) if not any(sat[p] for p in lat.predecessors(int(i)))}
    minimal.add(rec.optimum)
    assert set(view.layout_.nodes.tolist()) == minimal
    assert view.layout_.frontier_only
    assert f"{lat.size - len(minimal):,} nodes hidden" in view.header.text()


def test_lattice_shows_message_for_mondrian(qtbot, mondrian_like) -> None:
    view = LatticeView()
    qtbot.addWidget(view)
    view.set_result(mondrian_like)
    assert view.stack.currentIndex() == 0
    assert "Partitions" in view.message.text()


# --- partitions -----------------------------------------------------------------------------------------
def test_partition_boxes_match_classes_and_click_selects_rows(qtbot, adult: Adult) -> None:
    view = PartitionView()
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    res = adult.optimal
    view.set_result(res, adult.table)
    view.set_axes("age", "education")
    assert view.box_count() == res.n_classes
    b = view.boxes
    # every record of a class lies inside its box (original values; categories in Mondrian's tree order)
    age = pd.to_numeric(adult.table.frame["age"]).to_numpy()
    h = adult.config.hierarchies["education"]
    position = np.argsort(tree_order(h))
    edu = position[h.encode(adult.table.frame["education"])]
    kept = res.row_class >= 0
    c = res.row_class[kept]
    assert np.all((b.x0[c] <= age[kept]) & (age[kept] <= b.x1[c]))
    assert np.all((b.y0[c] <= edu[kept]) & (edu[kept] <= b.y1[c]))
    target = int(np.argmax(res.class_sizes))
    x, y = (b.x0[target] + b.x1[target]) / 2, (b.y0[target] + b.y1[target]) / 2
    vb = view.plot_item.getViewBox()
    got = _record(view.class_selected, view.rows_selected)
    _click(qtbot, view.glw, vb, x, y)
    assert len(got) == 2
    (_, (cid,)), (_, (rows,)) = got
    assert b.contains(x, y)[cid]
    assert np.array_equal(rows, np.flatnonzero(res.row_class == cid))
    assert len(rows) == res.class_sizes[cid]


def test_partition_view_uses_mondrian_partitions(qtbot, adult: Adult, mondrian_like) -> None:
    view = PartitionView()
    qtbot.addWidget(view)
    view.set_result(mondrian_like, adult.table)
    view.set_axes("age", "marital-status")
    part = mondrian_like.partitions
    assert view.boxes.source == "partitions"
    assert view.box_count() == len(part.sizes)  # one box per partition ...
    assert set(view.boxes.cls.tolist()) == set(range(mondrian_like.n_classes))  # ... covering every class
    assert np.array_equal(
        np.bincount(view.boxes.cls, weights=part.sizes).astype(int), mondrian_like.class_sizes
    )
    j = part.qi.index("age")
    assert np.allclose(view.boxes.x0, part.lower[:, j] - 0.5)
    assert np.allclose(view.boxes.x1, part.upper[:, j] + 0.5)
    # every record lies in one of its class's boxes (age is numeric: its value; marital-status: tree order)
    age = pd.to_numeric(adult.table.frame["age"]).to_numpy()
    b, rc = view.boxes, mondrian_like.row_class
    ms = view._axis("marital-status").coords
    inside = np.zeros(len(rc), dtype=bool)
    for box in range(len(b)):  # a test may loop; the view never does
        rows = rc == b.cls[box]
        inside[rows] |= (
            (b.x0[box] <= age[rows])
            & (age[rows] <= b.x1[box])
            & (b.y0[box] <= ms[rows])
            & (ms[rows] <= b.y1[box])
        )
    assert inside.all()
    # a click selects the class of the box and all of its rows
    got = _record(view.class_selected, view.rows_selected)
    target = int(np.argmax(part.sizes))
    cid = view.click_at((b.x0[target] + b.x1[target]) / 2, (b.y0[target] + b.y1[target]) / 2)
    assert got[0][1] == (cid,) and np.array_equal(got[1][1][0], np.flatnonzero(rc == cid))


def test_partition_select_class_slot_does_not_echo(qtbot, adult: Adult) -> None:
    view = PartitionView()
    qtbot.addWidget(view)
    view.set_result(adult.optimal, adult.table)
    with qtbot.assertNotEmitted(view.class_selected), qtbot.assertNotEmitted(view.rows_selected):
        view.select_class(7)
    assert view.selected_class == 7
    in_sample = adult.optimal.row_class[view.sample] == 7
    assert len(view.selected_points.data) == int(in_sample.sum())


def test_partition_downsamples_display_only(qtbot, adult: Adult) -> None:
    view = PartitionView(max_points=2000)
    qtbot.addWidget(view)
    view.set_result(adult.optimal, adult.table)
    assert len(view.sample) == 2000
    assert len(view.points_item.data) + len(view.suppressed_item.data) == 2000
    assert view.box_count() == adult.optimal.n_classes  # boxes still from all records
    assert len(view.rows_of(0)) == adult.optimal.class_sizes[0]
    assert "A uniform sample of 2,000 of the 30,162 records" in view.info.text()


def test_partition_colour_by_distinct_sensitive_values(qtbot, adult: Adult) -> None:
    view = PartitionView()
    qtbot.addWidget(view)
    res = adult.optimal
    view.set_result(res, adult.table)
    assert np.array_equal(view.box_colors(), res.class_sizes)
    view.set_color_by("distinct:salary-class")
    kept = res.row_class >= 0
    expected = (
        pd.Series(adult.table.frame["salary-class"].to_numpy()[kept])
        .groupby(res.row_class[kept])
        .nunique()
        .to_numpy()
    )
    assert np.array_equal(view.box_colors(), expected)


def test_partition_highlights_classes_below_k(qtbot, adult: Adult) -> None:
    res = adult.optimal
    sizes = res.class_sizes.copy()
    sizes[:3] = 2  # pretend three classes are too small
    fake = dataclasses.replace(res, class_sizes=sizes)
    view = PartitionView()
    qtbot.addWidget(view)
    view.set_result(fake, adult.table)
    assert "3 groups are smaller than k = 5" in view.info.text()


def _render_svg(path: Path, size) -> QImage:
    image = QImage(size, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    QSvgRenderer(str(path)).render(painter)
    painter.end()
    return image


def _ink(image: QImage) -> np.ndarray:
    """Mask of the clearly non-white pixels of an image."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    arr = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    arr = arr.reshape(h, image.bytesPerLine())[:, : w * 4].reshape(h, w, 4)[:, :, :3]
    return arr.min(axis=2) < 200


# --- charts and export ----------------------------------------------------------------------------------
def test_charts_draw_the_result_and_save_png_svg(qtbot, adult: Adult, tmp_path: Path) -> None:
    view = ChartsView()
    qtbot.addWidget(view)
    view.resize(1200, 800)
    res = adult.optimal
    view.set_result(res, adult.table)
    bars = [it for it in view.sizes_plot.getPlotItem().items if type(it).__name__ == "BarGraphItem"]
    assert len(bars) == 1 and int(np.sum(bars[0].opts["height"])) == res.n_classes
    title = view.sizes_plot.getPlotItem().titleLabel.text.replace("<br>", " ")  # long titles wrap
    assert title.startswith(f"Group sizes: {res.n_classes:,} groups, {res.suppressed:,} records suppressed (")
    loss = [it for it in view.loss_plot.getPlotItem().items if type(it).__name__ == "BarGraphItem"][0]
    # full-domain results carry NCP per attribute too (suppressed records count 1), so every model's
    # loss is drawn on the same scale
    expected = [res.metrics[f"ncp:{q}"] for q in res.config.quasi_identifiers]
    assert np.allclose(loss.opts["width"], expected)
    view.set_distribution_column("age")
    orig_bar = [it for it in view.orig_plot.items if type(it).__name__ == "BarGraphItem"][0]
    rel_bar = [it for it in view.rel_plot.items if type(it).__name__ == "BarGraphItem"][0]
    assert int(np.sum(orig_bar.opts["width"])) == res.records
    assert int(np.sum(rel_bar.opts["width"])) == len(res.release)
    paths = view.save_all(tmp_path)
    assert sorted(p.name for p in paths) == sorted(
        [
            "class_sizes.png",
            "class_sizes.svg",
            "information_loss.png",
            "information_loss.svg",
            "distribution_age.png",
            "distribution_age.svg",
        ]
    )
    for p in paths:
        data = p.read_bytes()
        assert len(data) > 1000
        if p.suffix == ".png":
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
        else:
            assert b"<svg" in data and QSvgRenderer(str(p)).isValid()
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temporary files
    # the SVG draws what the widget shows (QPicture-cached bars once drifted from the axes in SVG)
    for stem, widget in view.charts():
        drawn = _ink(widget.grab().toImage())
        svg = _ink(_render_svg(tmp_path / f"{stem}.svg", widget.size()))
        overlap = (drawn & svg).sum() / max((drawn | svg).sum(), 1)
        assert overlap > 0.6, (stem, overlap)


# --- compare --------------------------------------------------------------------------------------------
def test_compare_runs_table_sorts_and_pairs(qtbot, adult: Adult) -> None:
    view = CompareView()
    qtbot.addWidget(view)
    runs = [("optimal", adult.optimal), ("datafly", adult.datafly)]
    view.set_runs(runs)
    assert view.row_count() == 2
    dm_col = [h for h, _ in COLUMNS].index("Discernibility (DM)")
    view.table.sortByColumn(dm_col, Qt.SortOrder.DescendingOrder)
    shown = [view.proxy.index(r, 1).data() for r in range(2)]
    by_dm = sorted(runs, key=lambda nr: -nr[1].metrics["discernibility"])
    assert shown == [name for name, _ in by_dm]
    view.set_pair(0, 1)
    t = view.metrics_table
    rows = {t.item(i, 0).text(): i for i in range(t.rowCount())}
    i = rows["Discernibility (DM)"]
    assert t.item(i, 1).text() == f"{int(adult.optimal.metrics['discernibility']):,}"
    assert t.item(i, 2).text() == f"{int(adult.datafly.metrics['discernibility']):,}"
    assert t.item(rows["Suppressed records"], 1).text() == f"{adult.optimal.suppressed:,}"
    assert t.item(rows["Groups"], 2).text() == f"{adult.datafly.n_classes:,}"


def _history(results: list[tuple[str, AnonymizationResult]], table: Table) -> tuple[AppState, list[Run]]:
    """An app state whose run history holds ``results`` (as the window's would)."""
    state = AppState()
    for label, result in results:
        state.add_run(result, label, table)
    return state, state.runs


# --- the panel the window embeds ------------------------------------------------------------------------
def test_analysis_panel_contract(qtbot, adult: Adult, mondrian_like) -> None:
    state, runs = _history([("optimal", adult.optimal), ("mondrian", mondrian_like)], adult.table)
    panel = AnalysisPanel(state)
    qtbot.addWidget(panel)
    panel.resize(1300, 850)
    panel.show_run(runs[1])
    assert panel.run is runs[1] and panel.current_result() is mondrian_like
    names = [n for n, _ in panel.views()]
    assert names == ["lattice", "partitions", "charts", "compare"]
    assert panel.lattice_view.stack.currentIndex() == 0  # Mondrian: message
    panel.show_run(runs[0])
    panel.show_view("lattice")
    assert panel.lattice_view.record is adult.optimal.lattice
    panel.show_view("partitions")
    assert panel.partition_view.box_count() == adult.optimal.n_classes
    got = _record(panel.class_selected, panel.rows_selected)
    b = panel.partition_view.boxes
    panel.partition_view.click_at((b.x0[3] + b.x1[3]) / 2, (b.y0[3] + b.y1[3]) / 2)
    (_, (cid,)), (_, (rows,)) = got
    assert np.array_equal(rows, np.flatnonzero(adult.optimal.row_class == cid))
    with qtbot.assertNotEmitted(panel.class_selected):
        panel.select_class(11)
    assert panel.partition_view.selected_class == 11
    with qtbot.waitSignal(panel.apply_node_requested, timeout=1000) as blocker:
        panel.lattice_view.click_node(0)
    assert blocker.args[0] == (0,) * len(adult.config.quasi_identifiers)
    assert panel.compare_view.row_count() == 2
    panel.show_run(None)
    assert panel.run is None and panel.partition_view.box_count() == 0  # the visible tab at once
    assert panel.lattice_view.record is adult.optimal.lattice
    panel.views()  # the others when asked for
    assert panel.lattice_view.stack.currentIndex() == 0 and panel.lattice_view.record is None
    assert panel.compare_view.row_count() == len(state.runs)  # the history, from the app state


def test_every_analysis_view_implements_the_contract(qtbot, adult: Adult) -> None:
    """Adding a view is one module plus one line in VIEWS: each entry builds a widget with show_run."""
    from kanon_gui.views.analysis import VIEWS

    state, runs = _history([("optimal", adult.optimal)], adult.table)
    for entry in VIEWS:
        view = entry.make(state)
        qtbot.addWidget(view)
        view.show_run(runs[0])
        view.show_run(None)


def test_screenshots_of_every_view(qtbot, adult: Adult, mondrian_like, tmp_path: Path) -> None:
    """Each view renders to a non-empty PNG (KANON_SHOTS_DIR keeps them for a look)."""
    out = Path(os.environ.get("KANON_SHOTS_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    state, runs = _history(
        [("optimal k=5", adult.optimal), ("datafly k=5", adult.datafly), ("mondrian-like", mondrian_like)],
        adult.table,
    )
    panel = AnalysisPanel(state)
    qtbot.addWidget(panel)
    panel.resize(1400, 900)
    panel.show()
    qtbot.waitExposed(panel)
    panel.show_run(runs[0])
    for name, widget in panel.views():
        panel.show_view(name)
        qtbot.wait(20)
        path = out / f"analysis_{name}.png"
        assert widget.grab().save(str(path))
        assert path.stat().st_size > 5000
    panel.show_run(runs[2])
    panel.show_view("partitions")
    path = out / "analysis_partitions_mondrian.png"
    assert panel.partition_view.grab().save(str(path))
