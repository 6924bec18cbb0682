"""The generalization lattice of a full-domain run as a Hasse diagram, coloured by what the search learned;
for a run that recodes records one by one (local recoding, local suppression), the transformations its
classes use and how many records each.

One row per height (sum of levels), nodes are level vectors, an edge goes one level up in one attribute
(Samarati 2001; LeFevre, DeWitt & Ramakrishnan 2005, "Incognito"). The colours show the search's record:
checked and satisfying, checked and failing, inferred by monotonicity (not checked: a specialization
satisfies / a generalization fails), pruned by the metric bound (Flash/OLA branch and bound), not
evaluated; the optimum and the node now shown are marked apart.

Why one item per layer: all nodes are ONE ScatterPlotItem and all edges ONE PlotCurveItem (``connect=
"pairs"``), so Adult's 6,480 nodes pan and zoom smoothly; hover and click are a vectorized nearest-node
search over numpy arrays, not thousands of QGraphicsItems. Past ``node_cap`` nodes only the satisfying
frontier (the minimal satisfying nodes and the optimum) is drawn, and the view says how many are hidden.
"""

from __future__ import annotations

import functools
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.core.lattice import (
    FAILS,
    INFERRED_FAILS,
    INFERRED_SATISFIES,
    NOT_EVALUATED,
    PRUNED,
    SATISFIES,
    STATUS_NAMES,
    SearchRecord,
    levels_of,
    strides_of,
)
from kanon_engine.hierarchy.model import MISSING, ROOT, Hierarchy
from kanon_engine.i18n import N_, _, formats, text_of
from kanon_engine.metrics.labels import decimals_to_tell_apart, metric_label, objective_value_label
from kanon_engine.present.lattice_layout import DEFAULT_NODE_CAP, LatticeLayout, build_layout
from kanon_engine.report.describe import algorithm_name
from kanon_engine.result import AnonymizationResult, model_label
from kanon_gui.state import Run
from kanon_gui.views.charts import LabelAxis
from kanon_gui.views.plot_menu import add_plot_menu

#: Status -> colour (colour-blind-safe ColorBrewer RdYlGn/PuOr picks, grey for "nothing known").
STATUS_COLORS: dict[int, str] = {
    SATISFIES: "#1a9850",
    INFERRED_SATISFIES: "#a6d96a",
    FAILS: "#d73027",
    INFERRED_FAILS: "#fdae61",
    PRUNED: "#8073ac",
    NOT_EVALUATED: "#d0d0d0",
}
STATUS_ORDER = (SATISFIES, INFERRED_SATISFIES, FAILS, INFERRED_FAILS, PRUNED, NOT_EVALUATED)
OPTIMUM_COLOR = "#ffc20a"
CURRENT_COLOR = "#005ab5"
EDGE_COLOR = (110, 110, 110, 28)
NODE_SIZE = 8
OPTIMUM_SIZE = 16
HOVER_TOLERANCE_PX = 7.0
#: Largest lattice whose edges the diagram of a local result draws: past it they only darken the middle.
USED_EDGES_CAP = 600


#: The view's words, whole sentences and phrases with named placeholders (one place, for translation).
TEXT = {
    "no_run": (
        N_(
            "Run a full-domain algorithm (Optimal, Samarati, Incognito, Datafly) to see the lattice of "
            "generalizations it explored."
        )
    ),
    "partitions": (
        N_(
            "{algorithm} partitions the records instead of generalizing whole columns, so it has no lattice "
            "of transformations. See the Partitions tab."
        )
    ),
    "no_record": N_("This run of {algorithm} kept no record of the lattice search."),
    "restored": (
        N_(
            "Run {run} was restored from the project file: the file keeps the transformation it chose, so "
            "the release, the groups and the risk are shown again, but not the search through the "
            "lattice. Run it again to see the lattice of transformations the search explored."
        )
    ),
    "transformations": (
        N_(
            "This release recodes records one by one ({model}): its {groups} groups use {count} "
            "transformations. {diagram}Each row of the table gives the level of every quasi-identifier (0 = "
            "original value, * = value replaced by *) and how many records and groups use it, the most used "
            "first. Point at a level to see it in words."
        )
    ),
    "diagram": N_(
        "The diagram marks them on the lattice (one row per number of {rows}): a blue circle per "
        "transformation used, larger for more records (point at one to see it in words, click it to find "
        "its row); grey dots are transformations no group uses. "
    ),
    "diagram_too_large": N_("The lattice is too large to draw here. "),
    "used_tip": N_("{records} records ({share}), {groups} groups"),
    "rows_stars": N_("values replaced by *"),
    "rows_steps": N_("generalization steps"),
    "axis_stars": N_("values replaced by *"),
    "axis_steps": N_("height (generalization steps)"),
    "rerun": N_("Run again"),
    "rerun_tip": N_("Run the algorithm again with the project's settings (the same as this run's)."),
    "metric": N_("Metric"),
    "metric_between": N_("only nodes with a value between"),
    "and": N_("and"),
    "metric_tip": N_(
        "Nodes whose metric was not computed (inferred, pruned) are hidden while this is ticked."
    ),
    "node_levels": N_("<b>{levels}</b> &nbsp;height {height}"),
    "node_status": N_("status: {status}"),
    "node_metric": N_("{name}: {value}"),
    "not_computed": N_("not computed"),
    "node_applied": N_("groups: {groups}; suppressed records: {suppressed}"),
    "node_fails": N_("<i>fails the privacy models within the suppression limit</i>"),
    "tag_optimum": N_("<b>optimum</b>"),
    "tag_shown": N_("shown"),
    "shown_levels": N_("<b>{levels}</b> ({algorithm})"),
    "shown_groups": N_("groups: {groups} (smallest {smallest})"),
    "shown_suppressed": N_("suppressed records: {suppressed} of {records}"),
}
#: The side panel's width in pixels: at least, usually at most, and at most when its words need more.
SIDE_WIDTH = (290, 340, 440)


def level_words(name: str, level: int, hierarchy: Hierarchy | None) -> str:
    """'age: level 2 of 4 (e.g. 20-39)': a level in words with an example label from the hierarchy."""
    if hierarchy is None:
        return _("{name}: level {level}", name=name, level=level)
    height = hierarchy.height
    labels = [x for x in hierarchy.level_codes[level][1] if x != MISSING]
    example = labels[len(labels) // 2] if labels else ""
    if level == 0:
        return _("{name}: original values (e.g. {example})", name=name, example=example)
    if level == height and (not labels or labels == [ROOT]):
        return _(
            "{name}: level {level} of {height} (fully generalized, {root})",
            name=name,
            level=level,
            height=height,
            root=ROOT,
        )
    return _(
        "{name}: level {level} of {height} (e.g. {example})",
        name=name,
        level=level,
        height=height,
        example=example,
    )


def _swatch(color: str, ring: bool = False, star: bool = False) -> QIcon:
    pix = QPixmap(14, 14)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    if ring:
        p.setPen(pg.mkPen(color, width=2.5))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawEllipse(2, 2, 10, 10)
    else:
        p.setPen(pg.mkPen("#404040", width=1) if star else Qt.PenStyle.NoPen)
        p.setBrush(QColor(color))
        if star:
            from PySide6.QtGui import QPolygonF

            pts = []
            for i in range(10):
                r = 6.5 if i % 2 == 0 else 2.8
                ang = np.pi / 2 + i * np.pi / 5
                pts.append(QPointF(7 + r * np.cos(ang), 7 - r * np.sin(ang)))
            p.drawPolygon(QPolygonF(pts))
        else:
            p.drawEllipse(2, 2, 10, 10)
    p.end()
    return QIcon(pix)


# --- the widget ------------------------------------------------------------------------------------------
class LatticeView(QWidget):
    """Hasse diagram of the search record of a full-domain result, with a legend, filters and node info.

    Emits ``node_clicked(levels)`` (a tuple of ints) when a node is clicked; the window applies that
    transformation in a worker and hands the result back through :meth:`show_node_result`.
    """

    node_clicked = Signal(object)
    #: the user asks to run again (a result restored from the project file has no lattice to show)
    rerun_requested = Signal()

    def __init__(self, parent: QWidget | None = None, node_cap: int = DEFAULT_NODE_CAP) -> None:
        super().__init__(parent)
        self.setObjectName("lattice_view")
        self.node_cap = int(node_cap)
        self.record: SearchRecord | None = None
        self.layout_: LatticeLayout | None = None
        self.hierarchies: dict[str, Hierarchy] = {}
        self._status = np.zeros(0, dtype=np.int8)
        self._metric = np.zeros(0)
        self._visible = np.zeros(0, dtype=bool)
        self._is_optimum = np.zeros(0, dtype=bool)
        self._pos_of: dict[int, int] = {}
        self._current: int | None = None
        self._pending: int | None = None
        self._applied: dict[int, dict[str, float]] = {}
        self._build_ui()
        self.set_result(None)

    # --- construction ------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.stack = QStackedWidget()
        self.message = QLabel()
        self.message.setObjectName("lattice_message")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.message.setMargin(24)
        self.rerun_button = QPushButton(text_of(TEXT, "rerun"))
        self.rerun_button.setToolTip(text_of(TEXT, "rerun_tip"))
        self.rerun_button.clicked.connect(self.rerun_requested)
        self.rerun_button.hide()
        message_page = QWidget()
        mp = QVBoxLayout(message_page)
        mp.addStretch(1)
        mp.addWidget(self.message)
        mp.addWidget(self.rerun_button, 0, Qt.AlignmentFlag.AlignHCenter)
        mp.addStretch(1)
        self.stack.addWidget(message_page)
        self.stack.addWidget(self._build_plot_page())
        self.stack.addWidget(self._build_transformations_page())
        outer.addWidget(self.stack, 1)

        side = QWidget()
        side_col = QVBoxLayout(side)
        side_col.setContentsMargins(4, 4, 4, 4)
        side_col.addWidget(self._build_legend())
        self._build_filters(side_col)
        self._build_node_boxes(side_col)
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(SIDE_WIDTH[0])
        scroll.setMaximumWidth(SIDE_WIDTH[1])
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(scroll)
        self.side_panel = scroll

    def _build_plot_page(self) -> QWidget:
        """The header line and the plot: edges, nodes, optimum and shown node, one item each."""
        page = QWidget()
        col = QVBoxLayout(page)
        col.setContentsMargins(4, 4, 4, 4)
        self.header = QLabel()
        self.header.setWordWrap(True)
        col.addWidget(self.header)
        self.plot = pg.PlotWidget(background="w", axisItems={"left": LabelAxis("left")})
        add_plot_menu(self.plot)
        self.plot.setAntialiasing(False)
        item = self.plot.getPlotItem()
        item.hideAxis("bottom")
        item.setLabel("left", _("height (generalization steps)"))
        item.setMenuEnabled(False)
        item.hideButtons()
        for name in ("left", "bottom"):
            ax = item.getAxis(name)
            ax.setPen(pg.mkPen("#606060"))
            ax.setTextPen(pg.mkPen("#303030"))
        self.edges_item = pg.PlotCurveItem(
            pen=pg.mkPen(EDGE_COLOR, width=1), connect="pairs", skipFiniteCheck=True
        )
        self.nodes_item = pg.ScatterPlotItem(pxMode=True)
        self.current_item = pg.ScatterPlotItem(
            pxMode=True, symbol="o", size=OPTIMUM_SIZE + 4, pen=pg.mkPen(CURRENT_COLOR, width=3), brush=None
        )
        # the optimum is also drawn on top of its neighbours (in the main item it may be overdrawn)
        self.optimum_item = pg.ScatterPlotItem(
            pxMode=True,
            symbol="star",
            size=OPTIMUM_SIZE,
            pen=pg.mkPen("#303030", width=1),
            brush=pg.mkBrush(OPTIMUM_COLOR),
        )
        self.nodes_item.setZValue(1)
        self.optimum_item.setZValue(2)
        self.current_item.setZValue(3)
        for it in (self.edges_item, self.nodes_item, self.optimum_item, self.current_item):
            self.plot.addItem(it)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.plot.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        col.addWidget(self.plot, 1)
        return page

    def _build_transformations_page(self) -> QWidget:
        """For a result that recodes records one by one: the transformations its classes use, marked on
        the lattice diagram (a circle per transformation used, its area growing with its records) above
        the table that lists them."""
        page = QWidget()
        col = QVBoxLayout(page)
        col.setContentsMargins(4, 4, 4, 4)
        self.used_header = QLabel()
        self.used_header.setWordWrap(True)
        col.addWidget(self.used_header)
        self.used_plot = pg.PlotWidget(background="w", axisItems={"left": LabelAxis("left")})
        self.used_plot.setObjectName("TransformationsDiagram")
        item = self.used_plot.getPlotItem()
        item.hideAxis("bottom")
        item.setLabel("left", text_of(TEXT, "axis_steps"))
        item.setMenuEnabled(False)
        item.hideButtons()
        self.used_edges = pg.PlotCurveItem(pen=pg.mkPen(EDGE_COLOR, width=1), connect="pairs")
        self.used_grid = pg.ScatterPlotItem(
            pxMode=True, size=5, pen=pg.mkPen(None), brush=pg.mkBrush(STATUS_COLORS[NOT_EVALUATED])
        )
        self._used_tips: list[str] = []  # filled in place: the tooltip function holds this list
        self.used_nodes = pg.ScatterPlotItem(
            pxMode=True,
            pen=pg.mkPen(CURRENT_COLOR, width=1.5),
            brush=pg.mkBrush(0, 90, 181, 110),
            hoverable=True,
            # the tooltip reads the list of tips, never the view: a bound method here would tie the view
            # and its plot items into a reference cycle, and collecting that cycle while pyqtgraph draws
            # another plot crashed the process (PySide6 wrappers of deleted items)
            tip=functools.partial(_used_tip, self._used_tips),
        )
        self.used_nodes.setZValue(2)
        self.used_nodes.sigClicked.connect(self._used_clicked)
        for it in (self.used_edges, self.used_grid, self.used_nodes):
            self.used_plot.addItem(it)
        self.used_table = QTableWidget()
        self.used_table.setObjectName("TransformationsUsed")
        self.used_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.used_table.verticalHeader().setVisible(False)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.used_plot)
        split.addWidget(self.used_table)
        split.setSizes([320, 280])
        col.addWidget(split, 1)
        return page

    def _draw_used(self, result: AnonymizationResult, used: list[dict]) -> bool:
        """Mark the transformations ``used`` on the lattice of the result's model (levels 0..height of
        each hierarchy; local suppression: kept or ``*``). False when that lattice is too large to draw."""
        rec = result.recoding
        assert rec is not None
        if result.model == "CS":
            max_levels = np.ones(len(rec.qi), dtype=np.int64)
        else:
            hs = result.config.hierarchies
            max_levels = np.array([hs[q].height if q in hs else 1 for q in rec.qi], dtype=np.int64)
        size = int(np.prod(max_levels + 1))
        self.used_plot.setVisible(size <= self.node_cap)
        if size > self.node_cap:
            return False
        levels = np.array(
            [
                [int(m) if t["levels"][q] == "*" else int(t["levels"][q]) for q, m in zip(rec.qi, max_levels)]
                for t in used
            ],
            dtype=np.int64,
        ).reshape(len(used), len(rec.qi))
        records = np.bincount(
            levels @ strides_of(max_levels), weights=[t["records"] for t in used], minlength=size
        )
        status = np.full(size, NOT_EVALUATED, dtype=np.int8)
        lay = build_layout(SearchRecord(tuple(rec.qi), max_levels, status, np.full(size, np.nan)), size)
        e = lay.edges if size <= USED_EDGES_CAP else lay.edges[:0]
        self.used_edges.setData(x=lay.x[e].ravel(), y=lay.y[e].ravel())
        self.used_grid.setData(x=lay.x, y=lay.y)
        on = np.flatnonzero(records[lay.nodes] > 0)
        share = records[lay.nodes][on] / max(float(records.sum()), 1.0)
        row_of = {int(n): row for row, n in enumerate(levels @ strides_of(max_levels))}
        rows_on = [row_of[int(n)] for n in lay.nodes[on]]  # the table row of each circle
        self.used_nodes.setData(x=lay.x[on], y=lay.y[on], size=8 + 40 * np.sqrt(share), data=rows_on)
        self.used_plot.setProperty("row_step", float(lay.row_step))
        axis = text_of(TEXT, "axis_stars" if result.model == "CS" else "axis_steps")
        self.used_plot.getPlotItem().setLabel("left", axis)
        left = self.used_plot.getPlotItem().getAxis("left")
        rows = int(max_levels.sum()) + 1
        left.set_labels([(h * lay.row_step, str(h)) for h in range(0, rows, max(1, rows // 12))])
        self.used_plot.getPlotItem().getViewBox().autoRange(padding=0.06)
        return True

    def _used_clicked(self, _item: object, points: list, *_: object) -> None:
        """A click on a circle selects its row in the table below (and scrolls to it)."""
        if len(points):
            row = int(points[0].data())
            self.used_table.selectRow(row)
            self.used_table.scrollToItem(self.used_table.item(row, 0))

    def used_marks(self) -> np.ndarray:
        """Heights (generalization steps) of the transformations the diagram marks (tests)."""
        if self.used_plot.isHidden():
            return np.zeros(0, dtype=np.int64)
        step = self.used_plot.property("row_step") or 1.0
        return np.rint(np.asarray(self.used_nodes.data["y"], dtype=float) / step).astype(np.int64)

    def _show_transformations(self, result: AnonymizationResult) -> None:
        """Fill the transformations page: one row per transformation (a level per quasi-identifier, *
        for a suppressed value), with its records, groups and share, most used first."""
        self._clear("")
        rec = result.recoding
        assert rec is not None
        used = rec.transformations(result.row_class)
        hierarchies = result.config.hierarchies
        n = max(result.records, 1)
        words = [
            [
                _("value replaced by *")
                if t["levels"][q] == "*"
                else level_words(q, t["levels"][q], hierarchies.get(q))
                for q in rec.qi
            ]
            for t in used
        ]
        self._used_tips[:] = [
            "\n".join(
                [
                    *w,
                    text_of(
                        TEXT,
                        "used_tip",
                        records=int(t["records"]),
                        share=formats.percent(t["records"] / n, 1),
                        groups=int(t.get("classes", 0)),
                    ),
                ]
            )
            for w, t in zip(words, used)
        ]
        drawn = self._draw_used(result, used)
        rows = text_of(TEXT, "rows_stars" if result.model == "CS" else "rows_steps")
        diagram = text_of(TEXT, "diagram", rows=rows) if drawn else text_of(TEXT, "diagram_too_large")
        self.used_header.setText(
            text_of(
                TEXT,
                "transformations",
                model=model_label(result.model),
                groups=formats.count(result.n_classes),
                count=formats.count(len(used)),
                diagram=diagram,
            )
        )
        heads = [*rec.qi, _("Records"), _("Share"), _("Groups")]
        table = self.used_table
        table.clear()
        table.setColumnCount(len(heads))
        table.setHorizontalHeaderLabels(heads)
        table.setRowCount(len(used))
        for row, t in enumerate(used):
            for col, q in enumerate(rec.qi):
                item = QTableWidgetItem(str(t["levels"][q]))
                item.setToolTip(words[row][col])
                table.setItem(row, col, item)
            for col, text in enumerate(
                (
                    formats.count(t["records"]),
                    formats.percent(t["records"] / n, 1),
                    formats.count(t.get("classes", 0)),
                ),
                start=len(rec.qi),
            ):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(row, col, item)
        table.resizeColumnsToContents()
        self.stack.setCurrentIndex(2)
        self.side_panel.setVisible(False)  # the search's legend and filters do not apply here

    def _build_legend(self) -> QGroupBox:
        """The status colours, each a check box that shows or hides its nodes."""
        legend = QGroupBox(_("Status (tick to show)"))
        legend.setToolTip(_("What the search learned about each transformation. Untick a status to hide it."))
        lg = QVBoxLayout(legend)
        self.status_boxes: dict[int, QCheckBox] = {}
        for s in STATUS_ORDER:
            box = QCheckBox(_(STATUS_NAMES[s]))
            box.setIcon(_swatch(STATUS_COLORS[s]))
            box.setChecked(True)
            box.toggled.connect(self._apply_filters)
            lg.addWidget(box)
            self.status_boxes[s] = box
        opt = QLabel()
        opt.setPixmap(_swatch(OPTIMUM_COLOR, star=True).pixmap(14, 14))
        cur = QLabel()
        cur.setPixmap(_swatch(CURRENT_COLOR, ring=True).pixmap(14, 14))
        for icon_label, text in ((opt, _("optimum (best satisfying node)")), (cur, _("node now shown"))):
            row = QHBoxLayout()
            row.addWidget(icon_label)
            row.addWidget(QLabel(text), 1)
            lg.addLayout(row)
        return legend

    def _build_filters(self, side_col: QVBoxLayout) -> None:
        """Filters by level ranges and by metric value, and the button that clears them."""
        self.levels_box = QGroupBox(_("Levels"))
        self.levels_box.setToolTip(_("Show only nodes whose level of each attribute is in the range."))
        self.levels_grid = QGridLayout(self.levels_box)
        self.level_spins: list[tuple[QSpinBox, QSpinBox]] = []
        side_col.addWidget(self.levels_box)

        self.metric_box = QGroupBox(text_of(TEXT, "metric"))
        mg = QGridLayout(self.metric_box)
        self.metric_check = QCheckBox(text_of(TEXT, "metric_between"))
        self.metric_check.setToolTip(text_of(TEXT, "metric_tip"))
        self.metric_min = QDoubleSpinBox()
        self.metric_max = QDoubleSpinBox()
        for spin in (self.metric_min, self.metric_max):
            spin.setMaximumWidth(120)
        for spin in (self.metric_min, self.metric_max):
            spin.setDecimals(3)
            spin.setRange(-1e18, 1e18)
            spin.setGroupSeparatorShown(True)
            spin.valueChanged.connect(self._metric_edited)
        self.metric_check.toggled.connect(self._apply_filters)
        mg.addWidget(self.metric_check, 0, 0, 1, 3)
        mg.addWidget(self.metric_min, 1, 0)
        mg.addWidget(QLabel(text_of(TEXT, "and")), 1, 1)
        mg.addWidget(self.metric_max, 1, 2)
        side_col.addWidget(self.metric_box)
        #: the metric range filtered on, in the metric's own units (the spin boxes show it rounded)
        self._metric_range = (-np.inf, np.inf)
        self._metric_scale = 1.0

        reset = QPushButton(_("Show all nodes"))
        reset.clicked.connect(self.reset_filters)
        side_col.addWidget(reset)

    def _build_node_boxes(self, side_col: QVBoxLayout) -> None:
        """What the node under the pointer and the node shown are."""
        hover_box = QGroupBox(_("Node under the pointer"))
        hv = QVBoxLayout(hover_box)
        self.hover_label = QLabel(_("Point at a node to see its levels; click it to apply it."))
        self.hover_label.setWordWrap(True)
        self.hover_label.setTextFormat(Qt.TextFormat.RichText)
        hv.addWidget(self.hover_label)
        side_col.addWidget(hover_box)

        shown_box = QGroupBox(_("Node shown"))
        sv = QVBoxLayout(shown_box)
        self.shown_label = QLabel("")
        self.shown_label.setWordWrap(True)
        self.shown_label.setTextFormat(Qt.TextFormat.RichText)
        sv.addWidget(self.shown_label)
        side_col.addWidget(shown_box)
        side_col.addStretch(1)

    # --- data --------------------------------------------------------------------------------------
    def show_run(self, run: Run | None) -> None:
        """The view contract (see :mod:`kanon_gui.views.analysis`): the lattice of ``run``'s result. A run
        rebuilt from the project file has no record of the search: the view says so and offers to run
        again."""
        restored = run is not None and run.restored and run.result.lattice is None
        if restored and not self._same_lattice(run.result):
            self._clear(text_of(TEXT, "restored", run=run.label), rerun=True)
            return
        self.set_result(run.result if run is not None else None)

    def set_result(self, result: AnonymizationResult | None) -> None:
        """Show the lattice of ``result`` (a plain message for Mondrian or no result).

        A result without a record but with a transformation on the same lattice (a node applied from
        this view) keeps the record on screen and marks that node as the one shown.
        """
        if result is None:
            self._clear(text_of(TEXT, "no_run"))
            return
        record = result.lattice
        if record is None and result.transformation is not None and self._same_lattice(result):
            record = self.record
        if record is None:
            if result.recoding is not None and result.transformation is None:
                self._show_transformations(result)
            elif result.transformation is None:
                self._clear(text_of(TEXT, "partitions", algorithm=algorithm_name(result.algorithm)))
            else:
                self._clear(text_of(TEXT, "no_record", algorithm=algorithm_name(result.algorithm)))
            return
        self.hierarchies = dict(result.config.hierarchies)
        if record is not self.record:
            self._set_record(record)
        self._mark_current(self._index_of(result))
        self._show_result_metrics(result)

    def _same_lattice(self, result: AnonymizationResult) -> bool:
        rec = self.record
        return (
            rec is not None
            and result.transformation is not None
            and tuple(rec.names) == tuple(result.transformation)
            and all(0 <= result.transformation[n] <= int(m) for n, m in zip(rec.names, rec.max_levels))
        )

    def _index_of(self, result: AnonymizationResult) -> int | None:
        if self.record is None or result.transformation is None:
            return None
        try:
            levels = np.array([result.transformation[n] for n in self.record.names], dtype=np.int64)
        except KeyError:
            return None
        return int(levels @ strides_of(self.record.max_levels))

    def _clear(self, message: str, rerun: bool = False) -> None:
        """The message page instead of the diagram (``rerun``: with the button that runs again)."""
        self.rerun_button.setVisible(rerun)
        self.record = None
        self.layout_ = None
        self._status = np.zeros(0, dtype=np.int8)
        self._visible = np.zeros(0, dtype=bool)
        self._is_optimum = np.zeros(0, dtype=bool)
        self._pos_of = {}
        self._current = None
        self._applied = {}
        self.nodes_item.clear()
        self.edges_item.setData([], [])
        self.current_item.clear()
        self.optimum_item.clear()
        self.message.setText(message)
        self.stack.setCurrentIndex(0)
        self.side_panel.setEnabled(False)
        self.side_panel.setVisible(True)

    def _set_record(self, record: SearchRecord) -> None:
        self.record = record
        self._applied = {}
        lay = build_layout(record, self.node_cap)
        self.layout_ = lay
        self._status = np.asarray(record.status, dtype=np.int8)[lay.nodes]
        self._metric = np.asarray(record.metric, dtype=float)[lay.nodes]
        self._pos_of = {int(n): i for i, n in enumerate(lay.nodes)} if lay.frontier_only else {}
        self._is_optimum = lay.nodes == (record.optimum if record.optimum is not None else -1)
        # one brush/pen object per status, shared by every spot (pyqtgraph caches one sprite each)
        brushes = {s: pg.mkBrush(c) for s, c in STATUS_COLORS.items()}
        opt_brush = pg.mkBrush(OPTIMUM_COLOR)
        node_pen = pg.mkPen(None)
        opt_pen = pg.mkPen("#303030", width=1)
        brush = np.empty(len(lay.nodes), dtype=object)
        for s, b in brushes.items():
            brush[self._status == s] = b
        brush[self._is_optimum] = opt_brush
        pens = np.full(len(lay.nodes), node_pen, dtype=object)
        pens[self._is_optimum] = opt_pen
        symbols = np.where(self._is_optimum, "star", "o").astype(object)
        sizes = np.where(self._is_optimum, OPTIMUM_SIZE, NODE_SIZE)
        self.nodes_item.setData(
            x=lay.x,
            y=lay.y,
            brush=list(brush),
            pen=list(pens),
            symbol=list(symbols),
            size=sizes,
            data=np.arange(len(lay.nodes)),
        )
        self._visible = np.ones(len(lay.nodes), dtype=bool)
        self._set_edges(self._visible)
        self._update_optimum_marker()
        self._setup_filters(record)
        self._update_header()
        left = self.plot.getPlotItem().getAxis("left")
        rows = int(np.asarray(record.max_levels).sum()) + 1
        step = max(1, rows // 12)
        left.set_labels([(h * lay.row_step, str(h)) for h in range(0, rows, step)])
        self.plot.getPlotItem().getViewBox().autoRange(padding=0.04)
        self.stack.setCurrentIndex(1)
        self.side_panel.setEnabled(True)
        self.side_panel.setVisible(True)
        self._current = None
        self.current_item.clear()

    def _setup_filters(self, record: SearchRecord) -> None:
        for s, box in self.status_boxes.items():
            box.blockSignals(True)
            box.setChecked(True)
            count = int((record.status == s).sum())
            box.setText(f"{_(STATUS_NAMES[s])} ({formats.count(count)})")
            box.blockSignals(False)
        while self.levels_grid.count():
            w = self.levels_grid.takeAt(0).widget()
            if w is not None:
                w.deleteLater()
        self.level_spins = []
        for a, (name, top) in enumerate(zip(record.names, record.max_levels)):
            lo, hi = QSpinBox(), QSpinBox()
            for spin, value in ((lo, 0), (hi, int(top))):
                spin.setMaximumWidth(64)  # a level is one or two digits: leave the width to the words
                spin.setRange(0, int(top))
                spin.setValue(value)
                spin.valueChanged.connect(self._apply_filters)
            label = QLabel(name)
            label.setToolTip(name)
            self.levels_grid.addWidget(label, a, 0)
            self.levels_grid.addWidget(lo, a, 1)
            self.levels_grid.addWidget(QLabel(_("to")), a, 2)
            self.levels_grid.addWidget(hi, a, 3)
            self.level_spins.append((lo, hi))
        label = objective_value_label(record.metric_name)
        self.metric_box.setTitle(label.name)
        self.metric_box.setToolTip(label.meaning)
        finite = self._metric[np.isfinite(self._metric)]
        self._metric_scale = 100.0 if label.share else 1.0
        decimals = decimals_to_tell_apart(finite, label.share)
        for spin in (self.metric_min, self.metric_max):
            spin.blockSignals(True)
            spin.setDecimals(decimals)
            spin.setSuffix(" %" if label.share else "")
            spin.setRange(*((0.0, 100.0) if label.share else (-1e18, 1e18)))
            spin.blockSignals(False)
        lo, hi = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 0.0)
        self._show_metric_range(lo, hi)
        self._metric_range = (-np.inf, np.inf)
        self.metric_check.blockSignals(True)
        self.metric_check.setChecked(False)
        self.metric_check.blockSignals(False)
        self._fit_side_panel()

    def _fit_side_panel(self) -> None:
        """Widen the side panel to what its words need (German titles run a third longer than English;
        the panel does not scroll sideways, so anything wider would be cut off), within bounds."""
        scroll = self.side_panel
        side = scroll.widget()
        side.adjustSize()
        need = side.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width()
        need += 2 * scroll.frameWidth()
        scroll.setMinimumWidth(max(SIDE_WIDTH[0], min(need, SIDE_WIDTH[2])))
        scroll.setMaximumWidth(max(SIDE_WIDTH[1], min(need, SIDE_WIDTH[2])))

    def _update_header(self) -> None:
        lay, rec = self.layout_, self.record
        if lay is None or rec is None:
            return
        shown = int(self._visible.sum())
        what = _(
            "Lattice of {total} transformations of {n} quasi-identifiers; {sum} checked by the search.",
            total=lay.total,
            n=len(rec.names),
            sum=int(np.isin(rec.status, (SATISFIES, FAILS)).sum()),
        )
        if lay.frontier_only:
            what += _(
                " Too many to draw: showing the satisfying frontier ({n} nodes: the minimal satisfying "
                "ones and the optimum); {hidden} nodes hidden.",
                n=len(lay.nodes),
                hidden=lay.hidden,
            )
        if shown < len(lay.nodes):
            what += _(" Filters hide {n} of the drawn nodes.", n=len(lay.nodes) - shown)
        self.header.setText(what + " " + _("Click a node to apply it."))

    # --- filters -----------------------------------------------------------------------------------
    def reset_filters(self) -> None:
        """Show every drawn node again."""
        if self.record is None:
            return
        self._setup_filters(self.record)
        self._apply_filters()

    def set_status_filter(self, statuses: set[int] | list[int] | tuple[int, ...]) -> None:
        """Show only nodes with these statuses."""
        for s, box in self.status_boxes.items():
            box.blockSignals(True)
            box.setChecked(s in set(statuses))
            box.blockSignals(False)
        self._apply_filters()

    def set_level_range(self, attribute: int | str, low: int, high: int) -> None:
        """Show only nodes whose level of ``attribute`` lies in [low, high]."""
        if self.record is None:
            return
        a = self.record.names.index(attribute) if isinstance(attribute, str) else int(attribute)
        lo, hi = self.level_spins[a]
        for spin, value in ((lo, low), (hi, high)):
            spin.blockSignals(True)
            spin.setValue(int(value))
            spin.blockSignals(False)
        self._apply_filters()

    def set_metric_range(self, low: float | None, high: float | None = None) -> None:
        """Show only nodes whose metric lies in [low, high] (the metric's own units: a share from 0 to 1,
        shown in percent); ``None`` switches the metric filter off."""
        self.metric_check.blockSignals(True)
        self.metric_check.setChecked(low is not None)
        self.metric_check.blockSignals(False)
        if low is not None:
            hi = float(high) if high is not None else np.inf
            self._show_metric_range(float(low), hi)
            self._metric_range = (float(low), hi)
        self._apply_filters()

    def _show_metric_range(self, low: float, high: float) -> None:
        """Put a range into the spin boxes (percent for a share), rounded outwards so that the nodes at
        either end still pass the filter the boxes show."""
        step = 10.0 ** -self.metric_min.decimals()
        for spin, value, rnd in ((self.metric_min, low, np.floor), (self.metric_max, high, np.ceil)):
            shown = value * self._metric_scale
            spin.blockSignals(True)
            spin.setValue(float(rnd(shown / step) * step) if np.isfinite(shown) else spin.maximum())
            spin.blockSignals(False)

    def _metric_edited(self, *_: object) -> None:
        """The user typed a bound: filter on what the boxes show (each bound counts to its last digit)."""
        half = 0.5 * 10.0 ** -self.metric_min.decimals()
        self._metric_range = (
            (self.metric_min.value() - half) / self._metric_scale,
            (self.metric_max.value() + half) / self._metric_scale,
        )
        self._apply_filters()

    def filter_mask(self) -> np.ndarray:
        """Which drawn nodes pass the status, level and metric filters."""
        lay = self.layout_
        if lay is None:
            return np.zeros(0, dtype=bool)
        shown = [s for s, box in self.status_boxes.items() if box.isChecked()]
        mask = np.isin(self._status, shown)
        for a, (lo, hi) in enumerate(self.level_spins):
            mask &= (lay.levels[:, a] >= lo.value()) & (lay.levels[:, a] <= hi.value())
        if self.metric_check.isChecked():
            m = self._metric
            lo, hi = self._metric_range
            with np.errstate(invalid="ignore"):
                mask &= np.isfinite(m) & (m >= lo) & (m <= hi)
        return mask

    def _apply_filters(self, *_args: object) -> None:
        if self.layout_ is None:
            return
        mask = self.filter_mask()
        self._visible = mask
        self.nodes_item.setPointsVisible(mask)
        self._set_edges(mask)
        self._update_optimum_marker()
        self._update_header()

    def _update_optimum_marker(self) -> None:
        opt = np.flatnonzero(self._is_optimum & self._visible) if self.layout_ is not None else []
        if len(opt) == 0:
            self.optimum_item.clear()
            return
        self.optimum_item.setData(x=self.layout_.x[opt], y=self.layout_.y[opt])

    def _set_edges(self, mask: np.ndarray) -> None:
        lay = self.layout_
        if lay is None or len(lay.edges) == 0:
            self.edges_item.setData([], [])
            return
        e = lay.edges[mask[lay.edges[:, 0]] & mask[lay.edges[:, 1]]]
        self.edges_item.setData(x=lay.x[e].ravel(), y=lay.y[e].ravel())

    # --- inspection (tests, screenshots) ------------------------------------------------------------
    def displayed_nodes(self) -> np.ndarray:
        """Lattice indices of the nodes drawn and not hidden by a filter."""
        if self.layout_ is None:
            return np.zeros(0, dtype=np.int64)
        return self.layout_.nodes[self._visible]

    def node_colors(self) -> list[str]:
        """Fill colour (#rrggbb) of every drawn node, in the order of ``layout_.nodes``."""
        return [b.color().name() for b in self.nodes_item.data["brush"]]

    def edge_count(self) -> int:
        x = self.edges_item.xData
        return 0 if x is None else len(x) // 2

    def node_position(self, index: int) -> QPointF:
        """The node's position in plot coordinates."""
        pos = self._position(index)
        if pos is None:
            raise KeyError(f"node {index} is not drawn")
        return QPointF(float(self.layout_.x[pos]), float(self.layout_.y[pos]))

    def _position(self, index: int) -> int | None:
        lay = self.layout_
        if lay is None:
            return None
        if not lay.frontier_only:
            return int(index) if 0 <= index < len(lay.nodes) else None
        return self._pos_of.get(int(index))

    def node_at(self, x: float, y: float, tolerance_px: float = HOVER_TOLERANCE_PX) -> int | None:
        """The visible node nearest to plot point (x, y) within ``tolerance_px`` pixels, else None."""
        lay = self.layout_
        if lay is None or not self._visible.any():
            return None
        vb = self.plot.getPlotItem().getViewBox()
        pw, ph = vb.viewPixelSize()
        pw, ph = max(pw, 1e-12), max(ph, 1e-12)
        d2 = ((lay.x - x) / pw) ** 2 + ((lay.y - y) / ph) ** 2
        d2[~self._visible] = np.inf
        best = int(np.argmin(d2))
        if d2[best] > tolerance_px**2:
            return None
        return int(lay.nodes[best])

    def levels_of_node(self, index: int) -> tuple[int, ...]:
        assert self.record is not None
        return tuple(int(v) for v in levels_of(self.record.max_levels, np.array([index]))[0])

    def describe_node(self, index: int) -> str:
        """Rich-text description of a node: levels in words, status, metric, classes if applied."""
        rec = self.record
        if rec is None:
            return ""
        levels = self.levels_of_node(index)
        status = int(rec.status[index])
        tags = [_(STATUS_NAMES[status]) if status in STATUS_NAMES else "?"]
        if rec.optimum is not None and index == rec.optimum:
            tags.append(text_of(TEXT, "tag_optimum"))
        if self._current is not None and index == self._current:
            tags.append(text_of(TEXT, "tag_shown"))
        label = objective_value_label(rec.metric_name)
        value = float(rec.metric[index])
        lines = [
            text_of(TEXT, "node_levels", levels=escape(str(levels)), height=sum(levels)),
            text_of(TEXT, "node_status", status=", ".join(tags)),
            text_of(
                TEXT,
                "node_metric",
                name=escape(label.name),
                value=label.show(value) if np.isfinite(value) else text_of(TEXT, "not_computed"),
            ),
        ]
        lines += [escape(level_words(n, lv, self.hierarchies.get(n))) for n, lv in zip(rec.names, levels)]
        applied = self._applied.get(index)
        if applied:
            lines.append(
                text_of(
                    TEXT,
                    "node_applied",
                    groups=formats.count(int(applied["classes"])),
                    suppressed=formats.count(int(applied["suppressed"])),
                )
            )
        elif status in (FAILS, INFERRED_FAILS):
            lines.append(text_of(TEXT, "node_fails"))
        return "<br>".join(lines)

    # --- interaction -------------------------------------------------------------------------------
    def _scene_to_view(self, scene_pos: QPointF) -> QPointF | None:
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        return vb.mapSceneToView(scene_pos)

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        p = self._scene_to_view(scene_pos)
        node = None if p is None else self.node_at(p.x(), p.y())
        if node is None:
            self.plot.setToolTip("")
            return
        text = self.describe_node(node)
        self.hover_label.setText(text)
        self.plot.setToolTip(text)

    def _on_mouse_clicked(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or ev.double():
            return
        p = self._scene_to_view(ev.scenePos())
        node = None if p is None else self.node_at(p.x(), p.y())
        if node is not None:
            ev.accept()
            self.click_node(node)

    def click_node(self, index: int) -> None:
        """What a click on a node does: ask the window to apply it (answer in show_node_result)."""
        levels = self.levels_of_node(index)
        self._pending = index
        self.shown_label.setText(_("Applying {levels}…", levels=escape(str(levels))))
        self.node_clicked.emit(levels)

    def show_node_result(self, result: AnonymizationResult) -> None:
        """Mark the node of ``result`` (the applied transformation) and show its metrics."""
        if self.record is None:
            self.set_result(result)
            return
        if result.lattice is not None and result.lattice is not self.record:
            self.set_result(result)
            return
        self._mark_current(self._index_of(result))
        self._show_result_metrics(result)

    def _mark_current(self, index: int | None) -> None:
        self._current = index
        pos = None if index is None else self._position(index)
        if pos is None:
            self.current_item.clear()
            return
        self.current_item.setData(x=[self.layout_.x[pos]], y=[self.layout_.y[pos]])

    def _show_result_metrics(self, result: AnonymizationResult) -> None:
        index = self._index_of(result)
        m = result.metrics
        if index is not None:
            self._applied[index] = {"classes": result.n_classes, "suppressed": result.suppressed}
        self._pending = None
        if index is None:
            self.shown_label.setText("")
            return
        levels = self.levels_of_node(index)
        rows = [
            text_of(
                TEXT,
                "shown_levels",
                levels=escape(str(levels)),
                algorithm=escape(algorithm_name(result.algorithm)),
            ),
            text_of(
                TEXT,
                "shown_groups",
                groups=formats.count(result.n_classes),
                smallest=formats.count(result.min_class_size),
            ),
            text_of(
                TEXT,
                "shown_suppressed",
                suppressed=formats.count(result.suppressed),
                records=formats.count(result.records),
            ),
        ]
        for key in ("loss", "precision", "discernibility", "cavg", "entropy"):
            if key in m:
                label = metric_label(key)
                rows.append(text_of(TEXT, "node_metric", name=escape(label.name), value=label.show(m[key])))
        self.shown_label.setText("<br>".join(rows))


def _used_tip(tips: list[str], x: float, y: float, data: object) -> str:
    """The tooltip of a circle of the transformations diagram: its transformation in words, its records
    and groups (``tips`` is the view's list, one entry per table row)."""
    row = int(data) if isinstance(data, (int, np.integer)) else -1
    return tips[row] if 0 <= row < len(tips) else ""
