"""Charts of one run: class sizes (with the k line), information loss per attribute, and the distribution
of any column before and after anonymization. Every chart saves as PNG and SVG (:mod:`.chart_export`).

Why these three: the class-size histogram shows how far above k the release is (the cost of too much
generalization; C_AVG in LeFevre et al. 2006 summarizes it in one number), the per-attribute loss shows
which quasi-identifier paid for it (generalization intensity level/height, or NCP when the algorithm
reports it: Xu et al. 2006, "Utility-based anonymization using local recoding"), and the distributions
show what an analyst of the release will still see.
"""

from __future__ import annotations

import re
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data.table import ColumnKind, Table
from kanon_engine.i18n import N_, _, formats, ngettext, text_of
from kanon_engine.present.calendar_steps import calendar_ticks
from kanon_engine.present.chart_data import (
    MAX_CATEGORIES,
    MISSING_LABEL,
    TITLE_CHARACTERS,
    date_distributions,
    distribution,
    local_tick_strings,
    log_labels,
    loss_per_attribute,
    numeric_bins_for,
    size_histogram,
    wrap_title,
)
from kanon_engine.report.charts import sizes_of
from kanon_engine.report.describe import algorithm_name
from kanon_engine.report.facts import kept_star_cells, result_facts
from kanon_engine.result import AnonymizationResult
from kanon_engine.session.engines import engine_title
from kanon_gui.state import Run
from kanon_gui.views.chart_export import save_chart
from kanon_gui.views.plot_menu import add_plot_menu

BAR_COLOR = "#4575b4"
RELEASED_COLOR = "#91bfdb"
K_LINE_COLOR = "#d7191c"


class LabelAxis(pg.AxisItem):
    """An axis with fixed labelled ticks (categories, log-scale values) or dates, thinned to fit.

    Why not ``AxisItem.setTicks``: with pyqtgraph 0.14 on PySide6 6.12, grabbing a widget (``grab()``,
    as screenshots and chart export do) whose axis has ticks set by ``setTicks`` makes the process
    crash at exit (a segfault / "deallocating None" during garbage collection, reproduced with a bare
    PlotItem). Overriding ``tickValues``/``tickStrings`` draws the same labels without that path.
    """

    def __init__(self, orientation: str, **kwargs: object) -> None:
        super().__init__(orientation, **kwargs)
        self._values: np.ndarray | None = None
        self._texts: dict[float, str] = {}
        self._extent = 16.0
        self.date_mode = False  # values are ordinal days (date.toordinal)

    def set_labels(self, pairs: list[tuple[float, str]] | None) -> None:
        """Label exactly these positions (every n-th one when they do not fit); None for automatic ticks."""
        if pairs:
            self._values = np.array([float(v) for v, _unused in pairs])
            self._texts = {float(v): str(t) for v, t in pairs}
            longest = max(len(t) for t in self._texts.values())
            vertical = self.orientation in ("left", "right")
            self._extent = label_height() if vertical else 7.0 * longest + 14.0
        else:
            self._values, self._texts = None, {}
        self.picture = None
        self.update()

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802, N803
        if self._values is None and self.date_mode:
            # calendar ticks (years, months, weeks, days) for the visible range, as many as fit
            fit = max(2, int(float(size) // (DATE_TICK_PX if self.orientation in ("top", "bottom") else 28)))
            ticks = calendar_ticks(min(minVal, maxVal), max(minVal, maxVal), fit)
            self._date_texts = dict(ticks)
            return [(1.0, [v for v, _label in ticks])]
        if self._values is None:
            return pg.AxisItem.tickValues(self, minVal, maxVal, size)
        lo, hi = min(minVal, maxVal), max(minVal, maxVal)
        shown = self._values[(self._values >= lo) & (self._values <= hi)]
        step = max(1, int(np.ceil(len(shown) * self._extent / max(float(size), 1.0))))
        return [(float(step), shown[::step].tolist())]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        if self._values is not None:
            return [self._texts.get(float(v), "") for v in values]
        if self.date_mode:
            texts = getattr(self, "_date_texts", {})
            return [texts.get(float(v), "") for v in values]
        return local_tick_strings(values, scale, spacing)

    @classmethod
    def adopt(cls, axis: pg.AxisItem) -> pg.AxisItem:
        """Give an axis made elsewhere (e.g. a ColorBarItem's) the labelling of this class."""
        axis._values, axis._texts, axis._extent, axis.date_mode = None, {}, 16.0, False
        for name in ("set_labels", "tickValues", "tickStrings"):
            setattr(axis, name, types.MethodType(getattr(cls, name), axis))
        return axis


#: Room a date tick label needs along a horizontal axis ("Jan 2022" and a gap), in pixels.
DATE_TICK_PX = 78


def label_height() -> float:
    """Height one category label needs on a vertical axis: the font's line height and a small gap."""
    return float(QFontMetrics(QFont()).height() + 2)


def rows_that_fit(height: float, reserved: float = 70.0) -> int:
    """How many labelled bars fit one above the other in a chart ``height`` pixels tall (title and
    axis take ``reserved``), so that every bar keeps its label: between 6 and MAX_CATEGORIES."""
    return int(max(6, min(MAX_CATEGORIES, (height - reserved) // label_height())))


def _localize_axis(axis: pg.AxisItem) -> None:
    if not isinstance(axis, LabelAxis):  # LabelAxis falls back to local_tick_strings itself
        axis.tickStrings = local_tick_strings  # the instance's own, in place of pyqtgraph's


def style_plot(item: pg.PlotItem, title: str = "", title_chars: int | None = None) -> None:
    """Dark axes and text on a white background; no context menu (its SVG export is broken).
    ``title_chars``: the most characters a title line may hold (narrow charts hold fewer)."""
    item.setMenuEnabled(False)
    item.hideButtons()
    for name in ("left", "bottom"):
        ax = item.getAxis(name)
        ax.setPen(pg.mkPen("#606060"))
        ax.setTextPen(pg.mkPen("#303030"))
        _localize_axis(ax)
    if title:
        item.setTitle(wrap_title(title, title_chars or TITLE_CHARACTERS), color="#202020", size="10.5pt")
        # pyqtgraph gives the title row 30 pixels: a two- or three-line title was centred in them and
        # lost its top, the accent of "Étendue" with it; the row is made as tall as the title
        label = item.titleLabel
        height = max(30, int(np.ceil(label.itemRect().height())) + 2)
        label.setMaximumHeight(height)
        item.layout.setRowFixedHeight(0, height)


#: The charts' words: whole sentences and titles with named placeholders (one place, for translation).
TEXT = {
    "sizes_title": N_("Group sizes: {groups} groups, {kept} ({share})"),
    "sizes_title_of": N_("{title}: {groups} groups, {kept} ({share})"),
    "sizes_cells_title": N_("Group sizes: {groups} groups, {cells} values shown as * (no record removed)"),
    "sizes_cells_title_of": N_("{title}: {groups} groups, {cells} values shown as * (no record removed)"),
    "sizes_x": N_("records in the group"),
    "sizes_x_log": N_("records in the group (log scale)"),
    "sizes_y": N_("groups"),
    "loss_none": N_("Information loss per quasi-identifier"),
    "loss_x": N_("0 % keeps the values, 100 % generalizes them to *"),
    "status": N_("{algorithm}, k = {k}: {records} records."),
    "empty": N_("Run an algorithm to see the charts of its release."),
    "original": N_("Original {column}"),
    "released": N_("Released {column}"),
    "original_dates": N_("Original {column}, records per {unit}"),
    "released_dates": N_("Released {column}, records per {unit}"),
    "not_loaded": N_("Original {column}: not in the loaded table"),
    "records": N_("records"),
}


# --- drawing helpers shared with the compare view ---------------------------------------------------------
def draw_class_sizes(
    item: pg.PlotItem,
    sizes: np.ndarray,
    k: int,
    suppressed: int,
    records: int,
    title: str | None = None,
    brush: str = BAR_COLOR,
    span: tuple[int, int] | None = None,
    cells: int | None = None,
    title_chars: int | None = None,
) -> None:
    """Class-size histogram with the k line; the title says how many classes and suppressed records
    (or, for a release that keeps every record, how many values were replaced by *: ``cells``).
    ``span`` forces the binning (see :func:`size_histogram`); ``title_chars`` as in :func:`style_plot`."""
    item.clear()
    edges, counts, log = size_histogram(sizes, span=span)
    x0, x1 = (np.log10(edges[:-1]), np.log10(edges[1:])) if log else (edges[:-1], edges[1:])
    item.addItem(
        pg.BarGraphItem(x0=x0, x1=x1, height=counts, brush=brush, pen=pg.mkPen("#ffffff", width=0.5))
    )
    k_pos = np.log10(k) if log else float(k)
    item.addItem(
        pg.InfiniteLine(
            pos=k_pos,
            angle=90,
            pen=pg.mkPen(K_LINE_COLOR, width=2, style=Qt.PenStyle.DashLine),
            label=f"k = {k}",
            # the label hangs below the top of the line: centred on it, a short chart cut its top half
            labelOpts={"position": 0.97, "color": K_LINE_COLOR, "anchors": [(0, 0), (0, 0)]},
        )
    )
    bottom = item.getAxis("bottom")
    if log:
        if isinstance(bottom, LabelAxis):
            bottom.set_labels(log_labels(edges[0], edges[-1], (k,)))
        item.setLabel("bottom", text_of(TEXT, "sizes_x_log"))
    else:
        if isinstance(bottom, LabelAxis):
            bottom.set_labels(None)
        item.setLabel("bottom", text_of(TEXT, "sizes_x"))
    item.setLabel("left", text_of(TEXT, "sizes_y"))
    words = {
        "title": title or "",
        "groups": len(sizes),
        "kept": ngettext("{n} record suppressed", "{n} records suppressed", suppressed),
        "share": formats.percent(suppressed / records if records else 0.0, 1),
        "cells": cells if cells is not None else "",
    }
    key = ("sizes_cells" if cells is not None else "sizes") + ("_title_of" if title else "_title")
    style_plot(item, text_of(TEXT, key, **words), title_chars)
    item.getViewBox().autoRange(padding=0.05)
    x_lo = min(float(x0.min()) if len(x0) else 0.0, k_pos)
    item.setXRange(x_lo - (0.05 if log else 1.0), float(x1.max()) if len(x1) else k_pos + 1, padding=0.03)


def draw_release_sizes(
    item: pg.PlotItem,
    result: AnonymizationResult,
    facts: dict,
    title: str | None = None,
    brush: str = BAR_COLOR,
    span: tuple[int, int] | None = None,
    title_chars: int | None = None,
) -> None:
    """The group-size histogram of a run's release from its facts (:mod:`kanon_engine.report.facts`):
    its groups (suppressed records in none), its suppressed records, and for a release that keeps
    every record the values it shows as * (``title_chars`` as in :func:`style_plot`)."""
    rel = facts["release"]
    cells = kept_star_cells(facts)[0] if result.recoding is not None else None
    records = int(rel["records"]) + int(rel["records_dropped"])
    sizes = sizes_of(rel.get("class_sizes"))
    draw_class_sizes(
        item,
        sizes,
        result.config.k,
        int(rel["records_suppressed"]),
        records,
        title,
        brush,
        span,
        cells,
        title_chars,
    )


def draw_hbars(
    item: pg.PlotItem, counts: pd.Series, title: str, color: str, xlabel: str | None = None
) -> None:
    """Horizontal bars, first category on top, labels on the left axis."""
    item.clear()
    n = len(counts)
    y = np.arange(n)[::-1].astype(float)
    values = counts.to_numpy(dtype=float)
    if n:
        item.addItem(
            pg.BarGraphItem(
                x0=np.zeros(n),
                y=y,
                height=0.72,
                width=values,
                brush=color,
                pen=pg.mkPen("#ffffff", width=0.5),
            )
        )
    shown = [_(MISSING_LABEL) if lab == MISSING_LABEL else str(lab) for lab in counts.index]
    labels = [lab if len(lab) <= 28 else lab[:27] + "…" for lab in shown]
    left = item.getAxis("left")
    if isinstance(left, LabelAxis):
        left.set_labels(list(zip(y.tolist(), labels)))
    # pyqtgraph drops tick labels wider than the axis: size the axis to the longest label
    metrics = QFontMetrics(left.style.get("tickFont") or QFont())
    left.setWidth(max((metrics.horizontalAdvance(lab) for lab in labels), default=20) + 16)
    item.setLabel("bottom", xlabel if xlabel is not None else text_of(TEXT, "records"))
    style_plot(item, title)
    item.setYRange(-0.7, max(n, 1) - 0.3, padding=0)
    item.setXRange(0, float(values.max()) if n and values.max() > 0 else 1.0, padding=0.04)


class ChartsView(QWidget):
    """The charts of the current run, each savable as PNG and SVG."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("charts_view")
        self.result: AnonymizationResult | None = None
        self.table: Table | None = None
        self._build_ui()
        self.set_result(None, None)

    def _build_ui(self) -> None:
        col = QVBoxLayout(self)
        col.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        self.status = QLabel()
        top.addWidget(self.status, 1)
        self.save_button = QPushButton(_("Save charts as PNG and SVG…"))
        self.save_button.setToolTip(_("Write every chart as a PNG image and an SVG drawing into a folder."))
        self.save_button.clicked.connect(self._ask_save)
        top.addWidget(self.save_button)
        col.addLayout(top)
        grid = QGridLayout()
        self.sizes_plot = pg.PlotWidget(background="w", axisItems={"bottom": LabelAxis("bottom")})
        self.sizes_plot.setObjectName("class_sizes")
        self.loss_plot = pg.PlotWidget(
            background="w", axisItems={"left": LabelAxis("left"), "bottom": LabelAxis("bottom")}
        )
        self.loss_plot.setObjectName("information_loss")
        grid.addWidget(self.sizes_plot, 0, 0)
        grid.addWidget(self.loss_plot, 0, 1)
        bar = QHBoxLayout()
        bar.addWidget(QLabel(_("Distribution of column:")))
        self.column_combo = QComboBox()
        self.column_combo.setMinimumContentsLength(18)
        self.column_combo.currentTextChanged.connect(self._draw_distribution)
        bar.addWidget(self.column_combo)
        bar.addStretch(1)
        grid.addLayout(bar, 1, 0, 1, 2)
        self.dist_widget = pg.GraphicsLayoutWidget()
        self.dist_widget.setBackground("w")
        self.dist_widget.setObjectName("distribution")
        for view in (self.sizes_plot, self.loss_plot, self.dist_widget):
            add_plot_menu(view)
        self.orig_plot = self.dist_widget.addPlot(row=0, col=0, axisItems={"left": LabelAxis("left")})
        self.rel_plot = self.dist_widget.addPlot(row=0, col=1, axisItems={"left": LabelAxis("left")})
        self.rel_plot.setXLink(self.orig_plot)
        grid.addWidget(self.dist_widget, 2, 0, 1, 2)
        grid.setRowStretch(0, 2)
        grid.setRowStretch(2, 3)
        col.addLayout(grid, 1)

    def charts(self) -> list[tuple[str, QWidget]]:
        """(file stem, widget) of every chart."""
        col = re.sub(r"[^A-Za-z0-9_-]+", "_", self.column_combo.currentText()) or "column"
        return [
            ("class_sizes", self.sizes_plot),
            ("information_loss", self.loss_plot),
            (f"distribution_{col}", self.dist_widget),
        ]

    def show_run(self, run: Run | None) -> None:
        """The view contract (see :mod:`kanon_gui.views.analysis`): the charts of ``run``."""
        self.set_result(*((run.result, run.table) if run is not None else (None, None)))

    def set_result(self, result: AnonymizationResult | None, table: Table | None) -> None:
        """Draw the charts of ``result`` (``table`` is the original input, for before/after)."""
        self.result, self.table = result, table
        self.save_button.setEnabled(result is not None)
        for item in (
            self.sizes_plot.getPlotItem(),
            self.loss_plot.getPlotItem(),
            self.orig_plot,
            self.rel_plot,
        ):
            item.clear()
            style_plot(item)
        if result is None:
            self.status.setText(text_of(TEXT, "empty"))
            self.column_combo.blockSignals(True)
            self.column_combo.clear()
            self.column_combo.blockSignals(False)
            return
        self.status.setText(
            text_of(
                TEXT,
                "status",
                algorithm=algorithm_name(result.algorithm),
                k=result.config.k,
                records=result.records,
            )
        )
        draw_release_sizes(self.sizes_plot.getPlotItem(), result, result_facts(result, table))
        self._draw_loss()
        if not result.in_memory:  # a streamed run: sizes and loss come from the counts, not the rows
            self.column_combo.blockSignals(True)
            self.column_combo.clear()
            self.column_combo.blockSignals(False)
            self.status.setText(
                _(
                    "{status} The distributions before and after need the records in memory; this run "
                    "was made by {engine}, which reads the file without loading it.",
                    status=self.status.text(),
                    engine=engine_title(result.engine),
                )
            )
            return
        previous = self.column_combo.currentText()
        self.column_combo.blockSignals(True)
        self.column_combo.clear()
        columns = [str(c) for c in result.release.columns]
        self.column_combo.addItems(columns)
        qi = list(result.config.quasi_identifiers)
        levels = result.transformation or {}
        changed = [q for q in qi if levels.get(q, 1) > 0 and q in columns]
        pick = previous if previous in columns else (changed[0] if changed else (qi[0] if qi else columns[0]))
        self.column_combo.setCurrentText(pick)
        self.column_combo.blockSignals(False)
        self._draw_distribution(pick)

    def _draw_loss(self) -> None:
        assert self.result is not None
        item = self.loss_plot.getPlotItem()
        kind, values = loss_per_attribute(self.result.metrics)
        series = pd.Series(values, dtype=float)
        draw_hbars(
            item,
            series,
            kind or text_of(TEXT, "loss_none"),
            "#d6604d",
            xlabel=text_of(TEXT, "loss_x"),
        )
        item.setXRange(0, 1.0, padding=0.02)
        bottom = item.getAxis("bottom")
        if isinstance(bottom, LabelAxis):
            bottom.set_labels([(v / 100, f"{v} %") for v in range(0, 101, 20)])
        for y, v in zip(np.arange(len(series))[::-1], series.to_numpy()):
            # a long bar carries its figure inside its end, in white; a short one just after it (a label
            # after a full bar ran past the chart's edge: "100 %" was cut)
            inside = float(v) >= 0.75
            text = pg.TextItem(
                formats.percent(v, 0),
                color="#ffffff" if inside else "#202020",
                anchor=(1 if inside else 0, 0.5),
            )
            text.setPos(float(v) - 0.01 if inside else float(v) + 0.01, float(y))
            item.addItem(text)

    def set_distribution_column(self, column: str) -> None:
        self.column_combo.setCurrentText(column)

    def _draw_distribution(self, column: str) -> None:
        res, table = self.result, self.table
        if res is None or not column or column not in res.release.columns:
            return
        hierarchy = res.config.hierarchies.get(column) or res.config.sensitive_hierarchies.get(column)
        released = res.release[column]
        rows = rows_that_fit(self.dist_widget.height()) if self.dist_widget.height() > 150 else MAX_CATEGORIES
        titles = (text_of(TEXT, "original", column=column), text_of(TEXT, "released", column=column))
        if table is not None and column in table.frame.columns:
            original, kind = table.frame[column], table.kind(column)
            if kind == ColumnKind.DATE:
                ctype = table.column_types.get(column)
                fmt = ctype.date_format if ctype is not None else None
                orig, rel, unit, same_bins = date_distributions(original, released, fmt, hierarchy, rows)
                titles = (
                    text_of(TEXT, "original_dates", column=column, unit=unit),
                    text_of(TEXT, "released_dates", column=column, unit=unit) if same_bins else titles[1],
                )
            else:
                numeric = kind in (ColumnKind.INTEGER, ColumnKind.DECIMAL)
                ctype = table.column_types.get(column)
                fmt = ctype.number_format if ctype is not None else None
                bins = numeric_bins_for(original, rows, fmt) if numeric else None
                orig = distribution(original, hierarchy, bins, limit=rows, number_format=fmt)
                rel = distribution(released, hierarchy, bins, limit=rows, number_format=fmt)
            draw_hbars(self.orig_plot, orig, titles[0], BAR_COLOR)
        else:
            orig = pd.Series(dtype=float)
            rel = distribution(released, hierarchy, limit=rows)
            self.orig_plot.clear()
            style_plot(self.orig_plot, text_of(TEXT, "not_loaded", column=column))
        if len(rel) and rel.index.isin(orig.index).all() and len(orig):
            rel = rel.reindex(orig.index, fill_value=0)  # the same bars in the same order, side by side
        draw_hbars(self.rel_plot, rel, titles[1], RELEASED_COLOR)
        top = max(float(orig.max()) if len(orig) else 0.0, float(rel.max()) if len(rel) else 0.0)
        self.orig_plot.setXRange(0, max(top, 1.0), padding=0.04)

    # --- saving -------------------------------------------------------------------------------------
    def save_all(self, directory: str | Path) -> list[Path]:
        """Write every chart as ``<name>.png`` and ``<name>.svg`` into ``directory``."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        out: list[Path] = []
        for stem, widget in self.charts():
            out.extend(save_chart(widget, directory / stem, title=stem.replace("_", " ")))
        return out

    def _ask_save(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, _("Save charts into folder"))
        if not folder:
            return
        try:
            paths = self.save_all(folder)
        except Exception as err:  # an OS error becomes a DataError with a plain message
            self.status.setText(_("Could not save the charts: {reason}", reason=err))
            return
        self.status.setText(_("Saved {n} files into {folder}.", n=len(paths), folder=folder))
