"""Records and equivalence classes on any two quasi-identifiers: Mondrian's boxes, or a full-domain grid.

The geometry (axes, boxes, the class of every box) is engine code, :mod:`kanon_engine.present.boxes`, tested
without Qt; this module draws it. Categorical axes get jitter for overlapping points.

Why it stays fast: all boxes are ONE item replayed from a cached QPicture (see :class:`BoxesItem`), all
records one ScatterPlotItem (a uniform sample past ``MAX_POINTS`` for display, never for the data), and
a click is a vectorized point-in-box test.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPicture
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from kanon_engine.data.table import ColumnKind, Table
from kanon_engine.i18n import N_, _, formats, text_of
from kanon_engine.present.boxes import AxisData, BoxSet, axis_data, class_boxes, distinct_per_class
from kanon_engine.present.chart_data import log_labels
from kanon_engine.result import AnonymizationResult
from kanon_engine.session.engines import needs_rows_text
from kanon_gui.state import Run
from kanon_gui.views.charts import LabelAxis
from kanon_gui.views.plot_menu import add_plot_menu

#: Records drawn at most (a uniform sample beyond; the data itself is never reduced).
MAX_POINTS = 50_000
#: Colour steps of the box fill.
COLOR_STEPS = 48
BOX_TINT = 0.45
#: Boxes are drawn in tiers of halving area (larger first, so nested boxes show).
AREA_TIERS = 12
BELOW_K_COLOR = "#d7191c"
SELECTED_COLOR = "#005ab5"
POINT_COLOR = (35, 35, 35, 110)
SUPPRESSED_COLOR = (215, 25, 28, 170)


def _rects(x0: np.ndarray, x1: np.ndarray, y0: np.ndarray, y1: np.ndarray) -> list[QRectF]:
    """QRectF objects for QPainter.drawRects (built once per redraw, not per paint)."""
    return [
        QRectF(a, b, w, h)
        for a, b, w, h in zip(x0.tolist(), y0.tolist(), (x1 - x0).tolist(), (y1 - y0).tolist())
    ]


#: The view's sentences, whole, with named placeholders (one place, ready for translation).
TEXT = {
    "below_k": N_("highlight groups smaller than k"),
    "empty": N_("Run an algorithm to see its groups of records on two quasi-identifiers."),
    "other_data": N_("This run was computed on other data than the table now loaded."),
    "color_size": N_("group size"),
    "color_distinct": N_("distinct values of {column} (l-diversity)"),
    "bar_size": N_("records in the group"),
    "bar_distinct": N_("distinct values of {column} in the group"),
    "log": N_("{label} (log scale)"),
    "boxes_partitions": (
        N_(
            "{groups} groups of records drawn as {boxes} boxes, as Mondrian cut them (partitions with the "
            "same released values form one group; where boxes overlap, their colours mix)."
        )
    ),
    "boxes_data": (
        N_(
            "{groups} groups of records, each drawn as a box from the smallest to the largest value of its "
            "records on these two axes (where boxes overlap, their colours mix)."
        )
    ),
    "records_all": (
        N_(
            "Every record is a point; {suppressed} suppressed records are a red x; {below} groups are "
            "smaller than k = {k} (red outline)."
        )
    ),
    "records_sample": (
        N_(
            "A uniform sample of {drawn} of the {records} records is drawn as points; {suppressed} "
            "suppressed records are a red x; {below} groups are smaller than k = {k} (red outline)."
        )
    ),
    "records_all_cells": (
        N_(
            "Every record is a point, and every record is kept: {cells} values were replaced by * (a group "
            "showing * on an axis spans its records' values there); {below} groups are smaller than k = {k} "
            "(red outline)."
        )
    ),
    "records_sample_cells": (
        N_(
            "A uniform sample of {drawn} of the {records} records is drawn as points; every record is kept: "
            "{cells} values were replaced by * (a group showing * on an axis spans its records' values "
            "there); {below} groups are smaller than k = {k} (red outline)."
        )
    ),
    "selected": N_("Selected: group {group}, {size} records."),
    "selected_overlap": (
        N_(
            "Selected: group {group}, {size} records, one of {hits} groups overlapping here (click again "
            "for the next)."
        )
    ),
    "click": N_("Click a box to select its group and its records."),
}


class BoxesItem(pg.GraphicsObject):
    """Every class box as one graphics item, replayed from a cached QPicture.

    Why it is drawn this way: projected on two axes, thousands of boxes overlap (Adult's Mondrian
    release has 4,057 boxes, about 27 per cell on age x sex), so replaying the picture costs pixel
    overdraw. Boxes that coincide are drawn once, coloured by the mean of their values; fills are opaque
    (a pale tint instead of transparency: no blending) with one ``drawRects`` per area tier and colour,
    larger boxes first so nested ones stay visible; the outlines of every box go on top, classes below k
    in red. Measured on Adult: a pan or zoom repaint went from about 300 ms (translucent paths) to under
    20 ms.
    """

    def __init__(self) -> None:
        super().__init__()
        self._picture = QPicture()
        self._bounds = QRectF()
        self.drawn = 0  # distinct rectangles in the picture

    def set_boxes(
        self, boxes: BoxSet, norm: np.ndarray, palette: list[QColor], highlight: np.ndarray | None = None
    ) -> None:
        """Fill box ``i`` with the palette colour of ``norm[i]`` (0..1); outline every box thinly and the
        ``highlight`` boxes in red."""
        self.prepareGeometryChange()
        rects = np.column_stack([boxes.x0, boxes.x1, boxes.y0, boxes.y1]) if len(boxes) else np.zeros((0, 4))
        uniq, inverse = np.unique(rects, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        counts = np.bincount(inverse, minlength=len(uniq))
        mean = np.bincount(inverse, weights=np.asarray(norm, dtype=float), minlength=len(uniq)) / np.maximum(
            counts, 1
        )
        step = np.clip(np.round(mean * (len(palette) - 1)).astype(np.int64), 0, len(palette) - 1)
        hi = np.zeros(len(uniq), dtype=bool)
        if highlight is not None:
            np.logical_or.at(hi, inverse, highlight)
        x0, x1, y0, y1 = (uniq[:, i] for i in range(4))
        # larger boxes first, so nested ones stay visible: tiers of area, one drawRects per tier and colour
        # (a bounded number of painter calls: each one costs a Python-to-Qt round trip)
        log_area = np.log2(np.maximum((x1 - x0) * (y1 - y0), 1e-12))
        tier = (
            np.floor(log_area.max() - log_area).astype(np.int64) if len(uniq) else log_area.astype(np.int64)
        )
        tier = np.minimum(tier, AREA_TIERS - 1)
        pic = QPicture()
        p = QPainter(pic)
        try:
            p.setPen(Qt.PenStyle.NoPen)
            for t in np.unique(tier):
                in_tier = tier == t
                for s_ in np.unique(step[in_tier]):
                    sel = np.flatnonzero(in_tier & (step == s_))
                    p.setBrush(palette[int(s_)])
                    p.drawRects(_rects(x0[sel], x1[sel], y0[sel], y1[sel]))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(pg.mkPen((70, 70, 70, 160), width=1))
            p.drawRects(_rects(x0, x1, y0, y1))
            if hi.any():
                p.setPen(pg.mkPen(BELOW_K_COLOR, width=2.5))
                p.drawRects(_rects(x0[hi], x1[hi], y0[hi], y1[hi]))
        finally:
            p.end()
        self._picture = pic
        self.drawn = len(uniq)
        if len(uniq):
            x_lo, y_lo = float(x0.min()), float(y0.min())
            self._bounds = QRectF(x_lo, y_lo, float(x1.max()) - x_lo, float(y1.max()) - y_lo)
        else:
            self._bounds = QRectF()
        self.update()

    def paint(self, painter: QPainter, *args: object) -> None:
        self._picture.play(painter)

    def boundingRect(self) -> QRectF:
        return self._bounds


# --- the widget ------------------------------------------------------------------------------------------
class PartitionView(QWidget):
    """Two QIs as axes, records as points, classes as boxes; click a box to select its class and rows."""

    class_selected = Signal(int)
    rows_selected = Signal(object)  # np.ndarray of input row indices

    def __init__(self, parent: QWidget | None = None, max_points: int = MAX_POINTS) -> None:
        super().__init__(parent)
        self.setObjectName("partition_view")
        self.max_points = int(max_points)
        self.result: AnonymizationResult | None = None
        self.table: Table | None = None
        self.boxes: BoxSet | None = None
        self.sample: np.ndarray = np.zeros(0, dtype=np.int64)
        self.selected_class: int | None = None
        self._axes: dict[str, AxisData] = {}
        self._hits: tuple[int, ...] = ()
        self._hit_pos = 0
        self._jitter: dict[str, np.ndarray] = {}
        self._values = np.zeros(0)
        self._build_ui()
        self.set_result(None, None)

    def _build_ui(self) -> None:
        col = QVBoxLayout(self)
        col.setContentsMargins(4, 4, 4, 4)
        bar = QHBoxLayout()
        self.x_combo = QComboBox()
        self.y_combo = QComboBox()
        self.color_combo = QComboBox()
        self.below_k_check = QCheckBox(text_of(TEXT, "below_k"))
        self.below_k_check.setChecked(True)
        self.points_check = QCheckBox(_("records"))
        self.points_check.setChecked(True)
        self.points_check.setToolTip(_("Show the records as points (a sample when there are many)."))
        for combo in (self.x_combo, self.y_combo, self.color_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        # two rows: the axes (column names as long as the data's, "Date de réception") never share
        # their room with the colour choice and the check boxes (one row cut "Vertical: Besuchsc")
        second = QHBoxLayout()
        for row, label, w in (
            (bar, _("Horizontal:"), self.x_combo),
            (bar, _("Vertical:"), self.y_combo),
            (second, _("Colour by:"), self.color_combo),
        ):
            row.addWidget(QLabel(label))
            row.addWidget(w)
        second.addWidget(self.below_k_check)
        second.addWidget(self.points_check)
        bar.addStretch(1)
        second.addStretch(1)
        col.addLayout(bar)
        col.addLayout(second)
        self.info = QLabel()
        self.info.setWordWrap(True)
        col.addWidget(self.info)

        self.glw = pg.GraphicsLayoutWidget()
        add_plot_menu(self.glw)
        self.glw.setBackground("w")
        self.plot_item = self.glw.addPlot(
            axisItems={"bottom": LabelAxis("bottom"), "left": LabelAxis("left")}
        )
        self.plot_item.setMenuEnabled(False)
        self.plot_item.hideButtons()
        for name in ("left", "bottom"):
            ax = self.plot_item.getAxis(name)
            ax.setPen(pg.mkPen("#606060"))
            ax.setTextPen(pg.mkPen("#303030"))
        self.boxes_item = BoxesItem()
        self.points_item = pg.ScatterPlotItem(pxMode=True, size=3, pen=None, brush=pg.mkBrush(POINT_COLOR))
        self.suppressed_item = pg.ScatterPlotItem(
            pxMode=True, size=6, symbol="x", pen=None, brush=pg.mkBrush(SUPPRESSED_COLOR)
        )
        self.selected_points = pg.ScatterPlotItem(
            pxMode=True, size=5, pen=None, brush=pg.mkBrush(SELECTED_COLOR)
        )
        self.selected_box = pg.PlotCurveItem(pen=pg.mkPen(SELECTED_COLOR, width=3), connect="finite")
        for z, it in enumerate(
            (self.boxes_item, self.points_item, self.suppressed_item, self.selected_box, self.selected_points)
        ):
            it.setZValue(z)
            self.plot_item.addItem(it)
        self.cmap = pg.colormap.get("viridis")
        # opaque pale tints of viridis (what the colour would look like at 37% opacity over white)
        rgb = self.cmap.map(np.linspace(0.0, 1.0, COLOR_STEPS), mode="float")[:, :3]
        tint = 255 * (1 - BOX_TINT + BOX_TINT * rgb)
        self.palette = [QColor(int(r), int(g), int(b)) for r, g, b in tint]
        tinted = pg.ColorMap(np.linspace(0.0, 1.0, COLOR_STEPS), tint.astype(np.ubyte))
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=tinted, interactive=False, width=14)
        LabelAxis.adopt(self.colorbar.axis)
        self.glw.addItem(self.colorbar)
        self.glw.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        col.addWidget(self.glw, 1)

        self.x_combo.currentTextChanged.connect(self._redraw)
        self.y_combo.currentTextChanged.connect(self._redraw)
        self.color_combo.currentIndexChanged.connect(self._recolor)
        self.below_k_check.toggled.connect(self._recolor)
        self.points_check.toggled.connect(self._toggle_points)

    # --- data --------------------------------------------------------------------------------------
    def show_run(self, run: Run | None) -> None:
        """The view contract (see :mod:`kanon_gui.views.analysis`): ``run``'s groups on two axes."""
        self.set_result(*((run.result, run.table) if run is not None else (None, None)))

    def set_result(self, result: AnonymizationResult | None, table: Table | None) -> None:
        """Show ``result`` over ``table`` (the input the result was computed from)."""
        self.result, self.table = result, table
        self._axes = {}
        self._jitter = {}
        self.selected_class = None
        for combo in (self.x_combo, self.y_combo, self.color_combo):
            combo.blockSignals(True)
            combo.clear()
        if result is not None and not result.in_memory:  # a streamed run: no rows to draw
            for combo in (self.x_combo, self.y_combo, self.color_combo):
                combo.blockSignals(False)
            self._clear_plot()
            self.info.setText(needs_rows_text(result))
            return
        if result is None or table is None or len(result.row_class) != table.n_rows:
            for combo in (self.x_combo, self.y_combo, self.color_combo):
                combo.blockSignals(False)
            self._clear_plot()
            self.info.setText(
                text_of(TEXT, "empty") if result is None or table is None else text_of(TEXT, "other_data")
            )
            return
        qi = list(result.config.quasi_identifiers)
        self.x_combo.addItems(qi)
        self.y_combo.addItems(qi)
        x_name, y_name = self._default_axes(result, table)
        self.x_combo.setCurrentText(x_name)
        self.y_combo.setCurrentText(y_name)
        self.color_combo.addItem(text_of(TEXT, "color_size"), "size")
        for s in result.config.sensitive:
            if s in table.frame.columns:
                self.color_combo.addItem(text_of(TEXT, "color_distinct", column=s), f"distinct:{s}")
        for combo in (self.x_combo, self.y_combo, self.color_combo):
            combo.blockSignals(False)
        n = table.n_rows
        rng = np.random.default_rng(0)
        self.sample = (
            np.sort(rng.choice(n, self.max_points, replace=False)) if n > self.max_points else np.arange(n)
        )
        self._redraw()

    def _default_axes(self, result: AnonymizationResult, table: Table) -> tuple[str, str]:
        """Two QIs worth looking at: numeric ones first, then the most finely released."""
        qi = list(result.config.quasi_identifiers)
        if len(qi) == 1:
            return qi[0], qi[0]
        levels = result.transformation or {}

        def key(q: str) -> tuple:
            numeric = table.kind(q) in (ColumnKind.INTEGER, ColumnKind.DECIMAL)
            h = result.config.hierarchies.get(q)
            rel = levels.get(q, 0) / max(h.height, 1) if h is not None else 0.0
            return (not numeric, rel, qi.index(q))

        ranked = sorted(qi, key=key)
        return ranked[0], ranked[1]

    def set_axes(self, x: str, y: str) -> None:
        """Choose the two quasi-identifiers shown."""
        self.x_combo.blockSignals(True)
        self.x_combo.setCurrentText(x)
        self.x_combo.blockSignals(False)
        self.y_combo.setCurrentText(y)
        self._redraw()

    def set_color_by(self, mode: str) -> None:
        """``"size"`` or ``"distinct:<sensitive column>"``."""
        i = self.color_combo.findData(mode)
        if i >= 0:
            self.color_combo.setCurrentIndex(i)

    def _axis(self, name: str) -> AxisData:
        if name not in self._axes:
            self._axes[name] = axis_data(self.table, self.result, name)
        return self._axes[name]

    def _jittered(self, a: AxisData) -> np.ndarray:
        """Display coordinates of the sampled records (discrete axes jittered within +-0.3)."""
        if a.name not in self._jitter:
            c = a.coords[self.sample]
            if a.pad:
                rng = np.random.default_rng(abs(hash(a.name)) % (2**32))
                c = c + rng.uniform(-0.3, 0.3, len(c))
            self._jitter[a.name] = c
        return self._jitter[a.name]

    def _clear_plot(self) -> None:
        self.boxes = None
        empty = np.zeros(0)
        self.boxes_item.set_boxes(
            BoxSet(empty, empty, empty, empty, np.zeros(0, dtype=np.int64), "data"), empty, self.palette
        )
        for it in (self.points_item, self.suppressed_item, self.selected_points):
            it.clear()
        self.selected_box.setData([], [])

    def _redraw(self, *_args: object) -> None:
        res = self.result
        if res is None or self.table is None:
            return
        ax, ay = self._axis(self.x_combo.currentText()), self._axis(self.y_combo.currentText())
        self.boxes = class_boxes(res, ax, ay)
        px, py = self._jittered(ax), self._jittered(ay)
        supp = res.row_class[self.sample] < 0
        self.points_item.setData(x=px[~supp], y=py[~supp])
        self.suppressed_item.setData(x=px[supp], y=py[supp])
        for a, side in ((ax, "bottom"), (ay, "left")):
            axis = self.plot_item.getAxis(side)
            axis.date_mode = a.date
            axis.set_labels(a.ticks)
            self.plot_item.setLabel(side, a.name)
        self._toggle_points()
        self._recolor()
        if self.selected_class is not None:
            self.select_class(self.selected_class)
        else:
            self._clear_selection()
        (x_lo, x_hi), (y_lo, y_hi) = ax.extent, ay.extent
        self.plot_item.getViewBox().setRange(xRange=(x_lo, x_hi), yRange=(y_lo, y_hi), padding=0.02)

    def _toggle_points(self, *_args: object) -> None:
        on = self.points_check.isChecked()
        self.points_item.setVisible(on)
        self.suppressed_item.setVisible(on)

    def _recolor(self, *_args: object) -> None:
        res, boxes = self.result, self.boxes
        if res is None or boxes is None or self.table is None:
            return
        mode = self.color_combo.currentData() or "size"
        if mode == "size":
            values = res.class_sizes.astype(float)
            label = text_of(TEXT, "bar_size")
        else:
            column = mode.split(":", 1)[1]
            values = distinct_per_class(res.row_class, self.table.frame[column], res.n_classes).astype(float)
            label = text_of(TEXT, "bar_distinct", column=column)
        self._values = values
        lo, hi = (float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
        use_log = mode == "size" and lo > 0 and hi / max(lo, 1) > 20
        t = np.log10(values) if use_log else values
        t_lo, t_hi = (np.log10(lo), np.log10(hi)) if use_log else (lo, hi)
        norm = (t - t_lo) / (t_hi - t_lo) if t_hi > t_lo else np.zeros(len(values))
        below = (res.class_sizes < res.config.k)[boxes.cls]
        highlight = below if self.below_k_check.isChecked() else None
        self.boxes_item.set_boxes(boxes, norm[boxes.cls], self.palette, highlight)
        self._set_colorbar(t_lo, t_hi, use_log, label)
        self._update_info()

    def _set_colorbar(self, lo: float, hi: float, use_log: bool, label: str) -> None:
        hi = hi if hi > lo else lo + 1
        self.colorbar.setLevels((lo, hi))
        axis = self.colorbar.axis
        axis.setLabel(text_of(TEXT, "log", label=label) if use_log else label)
        axis.set_labels(log_labels(10**lo, 10**hi) if use_log else None)

    def _update_info(self) -> None:
        """What the view shows, in whole sentences: the boxes, the records, and the selection."""
        res, boxes = self.result, self.boxes
        if res is None or boxes is None:
            return
        words = {
            "groups": formats.count(res.n_classes),
            "boxes": formats.count(len(boxes)),
            "records": formats.count(res.records),
            "drawn": formats.count(len(self.sample)),
            "suppressed": formats.count(res.suppressed),
            "cells": formats.count(res.recoding.suppressed_cells) if res.recoding is not None else "",
            "below": formats.count(int((res.class_sizes < res.config.k).sum())),
            "k": res.config.k,
        }
        records = "records_sample" if len(self.sample) < res.records else "records_all"
        sentences = [
            text_of(TEXT, "boxes_partitions" if boxes.source == "partitions" else "boxes_data", **words),
            text_of(TEXT, records + ("_cells" if res.recoding is not None else ""), **words),
        ]
        if self.selected_class is not None:
            selected = {
                "group": formats.count(self.selected_class + 1),
                "size": formats.count(int(res.class_sizes[self.selected_class])),
                "hits": formats.count(len(self._hits)),
            }
            sentences.append(
                text_of(TEXT, "selected_overlap" if len(self._hits) > 1 else "selected", **selected)
            )
        else:
            sentences.append(text_of(TEXT, "click"))
        self.info.setText(" ".join(sentences))

    # --- selection ---------------------------------------------------------------------------------
    def box_count(self) -> int:
        return 0 if self.boxes is None else len(self.boxes)

    def classes_at(self, x: float, y: float) -> np.ndarray:
        """Classes with a box containing (x, y), smallest box first (each class once)."""
        if self.boxes is None:
            return np.zeros(0, dtype=np.int64)
        hits = np.flatnonzero(self.boxes.contains(x, y))
        cls = self.boxes.cls[hits[np.lexsort((hits, self.boxes.area[hits]))]]
        _unused, first = np.unique(cls, return_index=True)
        return cls[np.sort(first)]

    def click_at(self, x: float, y: float) -> int | None:
        """Select the class whose box is under (x, y) (repeated clicks cycle through overlapping boxes);
        emits ``class_selected`` and ``rows_selected``."""
        hits = tuple(int(h) for h in self.classes_at(x, y))
        if not hits:
            return None
        if hits == self._hits:
            self._hit_pos = (self._hit_pos + 1) % len(hits)
        else:
            self._hits, self._hit_pos = hits, 0
        cid = hits[self._hit_pos]
        self._select(cid)
        self.class_selected.emit(cid)
        self.rows_selected.emit(self.rows_of(cid))
        return cid

    def rows_of(self, class_id: int) -> np.ndarray:
        """Input row indices of a class."""
        if self.result is None:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.result.row_class == class_id)

    def select_class(self, class_id: int) -> None:
        """Highlight a class chosen elsewhere (class table); emits nothing, so views do not loop."""
        if self.result is None or class_id is None or not 0 <= int(class_id) < self.result.n_classes:
            self._clear_selection()
            return
        if int(class_id) not in self._hits:
            self._hits, self._hit_pos = (), 0
        self._select(int(class_id))

    def _select(self, cid: int) -> None:
        self.selected_class = cid
        b = self.boxes
        if b is None:
            return
        mine = np.flatnonzero(b.cls == cid)
        nan = np.full(len(mine), np.nan)
        self.selected_box.setData(
            x=np.column_stack([b.x0[mine], b.x1[mine], b.x1[mine], b.x0[mine], b.x0[mine], nan]).ravel(),
            y=np.column_stack([b.y0[mine], b.y0[mine], b.y1[mine], b.y1[mine], b.y0[mine], nan]).ravel(),
        )
        in_sample = self.result.row_class[self.sample] == cid
        ax, ay = self._axis(self.x_combo.currentText()), self._axis(self.y_combo.currentText())
        self.selected_points.setData(x=self._jittered(ax)[in_sample], y=self._jittered(ay)[in_sample])
        self._update_info()

    def _clear_selection(self) -> None:
        self.selected_class = None
        self._hits, self._hit_pos = (), 0
        self.selected_box.setData([], [])
        self.selected_points.clear()
        self._update_info()

    def _on_mouse_clicked(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or ev.double():
            return
        vb = self.plot_item.getViewBox()
        pos: QPointF = ev.scenePos()
        if not vb.sceneBoundingRect().contains(pos):
            return
        p = vb.mapSceneToView(pos)
        if self.click_at(p.x(), p.y()) is not None:
            ev.accept()

    def box_colors(self) -> np.ndarray:
        """The value each class is coloured by (class size or distinct sensitive values)."""
        return self._values
