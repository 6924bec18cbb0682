"""Compare runs: a sortable table of the run history and any two runs side by side.

Why: a data steward picks the release to export knowing what each choice costs. The table puts the
privacy side (k, suppressed records, classes) beside the utility side (DM, C_AVG, precision; Bayardo &
Agrawal 2005, LeFevre et al. 2006, Sweeney 2002) and the runtime; the side-by-side panel shows every
metric of two runs with the difference and their class-size histograms on the same axes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.i18n import N_, _, formats
from kanon_engine.metrics.labels import format_metric, metric_label
from kanon_engine.report.charts import sizes_of
from kanon_engine.report.describe import algorithm_name, models_short, parameters_short, run_settings
from kanon_engine.report.facts import kept_star_cells, quality_metrics, result_facts
from kanon_engine.result import AnonymizationResult, model_label
from kanon_gui.models.headers import column_header
from kanon_gui.state import AppState, Run
from kanon_gui.views.charts import BAR_COLOR, RELEASED_COLOR, LabelAxis, draw_release_sizes
from kanon_gui.views.plot_menu import add_plot_menu

Index = QModelIndex | QPersistentModelIndex
#: The side-by-side table's least width in pixels (wider when the run names need it).
METRICS_TABLE_WIDTH = 560
#: Title lines of the two narrow histograms beside the table hold at most this many characters (a
#: German title ran past their edge at 1366x768 and pushed the axis out of sight).
COMPARE_TITLE_CHARS = 34

#: (header, tooltip) of the runs table; the metric columns take their words from the engine's labels.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("#", N_("Position in the run history (oldest first).")),
    (N_("Run"), N_("The name of the run in the history.")),
    (N_("Algorithm"), N_("The algorithm that produced the release.")),
    (
        N_("Model"),
        N_(
            "How the release was made, in the survey's names: AG_TS one level per attribute and whole "
            "records suppressed; AG_CS the same with single values suppressed; CG local recoding; CS local "
            "suppression (the last three keep every record); multidimensional for Mondrian."
        ),
    ),
    (N_("Privacy models"), N_("k, and l-diversity or t-closeness with the attribute they protect.")),
    (N_("Parameters"), N_("The algorithm's parameters (suppression limit, quality metric, ...).")),
    (N_("Suppressed"), N_("Records suppressed (every quasi-identifier shown as *, or left out).")),
    (
        N_("Values *"),
        N_("Values shown as * in records that were not suppressed, whatever put the * there."),
    ),
    (N_("Groups"), N_("Number of groups of records that look alike (equivalence classes).")),
    (metric_label("discernibility").name_id, metric_label("discernibility").meaning_id),
    (metric_label("cavg").name_id, metric_label("cavg").meaning_id),
    (metric_label("precision").name_id, metric_label("precision").meaning_id),
    (metric_label("loss").name_id, metric_label("loss").meaning_id),
    (
        N_("Workload error"),
        N_(
            "Mean relative error of the workload's queries answered from the release (lower is better); "
            "the Workload tab lists every query."
        ),
    ),
    (
        N_("Queries matched"),
        N_("Share of the workload's queries the release answers without spreading records."),
    ),
    (N_("Run time (s)"), N_("Seconds the run took.")),
)
_HEADS = [h for h, _tip in COLUMNS]
#: Widest a column of the runs table opens (pixels); the parameters get more. Longer texts wrap.
COLUMN_WIDTH = 220
PARAMETERS_WIDTH = 320
_PARAMETERS_COLUMN = _HEADS.index("Parameters")
#: columns of the runs table holding shares (shown as percentages)
_SHARE_HEADS = (
    metric_label("precision").name_id,
    metric_label("loss").name_id,
    N_("Workload error"),
    N_("Queries matched"),
)
_SHARE_COLUMNS = {_HEADS.index(head) for head in _SHARE_HEADS}


def _stars(r: AnonymizationResult) -> float:
    """Values a kept record of the release shows as * (NaN when only its rows could tell)."""
    facts = result_facts(r)
    return float(kept_star_cells(facts)[0]) if "star_cells" in facts["release"] else np.nan


def _fact(r: AnonymizationResult, name: str) -> Any:
    """One fact of a run's release (:mod:`kanon_engine.report.facts`)."""
    return result_facts(r)["release"][name]


def run_row(position: int, name: str, r: AnonymizationResult) -> list[Any]:
    """Values of one row of the runs table (numbers stay numbers, for sorting); the release's figures
    are its facts, counted from its rows."""
    m = r.metrics
    return [
        position,
        name,
        algorithm_name(r.algorithm),
        model_label(r.model),
        models_short(r.config.models),
        parameters_short(r.algorithm, r.parameters),
        _fact(r, "records_suppressed"),
        _stars(r),
        _fact(r, "classes"),
        m.get("discernibility", np.nan),
        m.get("cavg", np.nan),
        m.get("precision", np.nan),
        m.get("loss", np.nan),
        _workload(r, "mean_error"),
        _workload(r, "match_share"),
        r.runtime_seconds,
    ]


def _workload(r: AnonymizationResult, figure: str) -> float:
    """One workload figure of a run (NaN when it has none)."""
    value = None if r.workload is None else getattr(r.workload, figure)
    return np.nan if value is None else float(value)


def _fmt(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "–"
    v = float(value)
    if v.is_integer() and abs(v) >= 1:
        return formats.count(v)
    if abs(v) >= 1000:
        return formats.count(v)
    return formats.decimal(float(f"{v:.4g}"), 12)


class RunsModel(QAbstractTableModel):
    """The run history as a table; ``Qt.UserRole`` gives the raw value (numbers sort as numbers)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[list[Any]] = []

    def set_runs(self, runs: list[tuple[str, AnonymizationResult]]) -> None:
        self.beginResetModel()
        self._rows = [run_row(i + 1, name, r) for i, (name, r) in enumerate(runs)]
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() in _SHARE_COLUMNS and not isinstance(value, str):
                return format_metric(value, share=True)
            return _fmt(value)
        if role == Qt.ItemDataRole.ToolTipRole and isinstance(value, str):
            return value
        if role == Qt.ItemDataRole.UserRole:
            if isinstance(value, float) and not np.isfinite(value):
                return float("inf")
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole and not isinstance(value, str):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        return column_header(COLUMNS, section, orientation, role)


#: Rows of the side-by-side table after the settings: (label, getter, lower is better?).
_SUMMARY: tuple[tuple[str, Any, bool | None], ...] = (
    (N_("Model (survey's name)"), lambda r: model_label(r.model), None),
    (N_("Suppressed records"), lambda r: _fact(r, "records_suppressed"), True),
    (N_("Values shown as *"), _stars, True),
    (N_("Groups"), lambda r: _fact(r, "classes"), None),
    (N_("Smallest group"), lambda r: _fact(r, "min_class_size"), None),
    (N_("Run time (s)"), lambda r: r.runtime_seconds, True),
)
#: Rows of the workload figures (shares): (label, getter, lower is better?).
_WORKLOAD: tuple[tuple[str, Any, bool | None], ...] = (
    (N_("Workload: mean relative error"), lambda r: _workload(r, "mean_error"), True),
    (N_("Workload: median relative error"), lambda r: _workload(r, "median_error"), True),
    (N_("Workload: queries matched"), lambda r: _workload(r, "match_share"), False),
)
#: The difference of two shares, in percentage points.
POINTS = N_("{sign}{value} points")


def pair_rows(left: AnonymizationResult, right: AnonymizationResult) -> list[tuple[str, Any, Any, Any, bool]]:
    """Rows of the side-by-side table: (label, left, right, lower is better?, share?). The settings come
    first (algorithm, parameters, privacy models with l and t), so two runs that differ only there never
    look alike; then the outcome and every metric under its plain name."""
    rows: list[tuple[str, Any, Any, Any, bool]] = []
    for (label, a), (_unused, b) in zip(run_settings(left), run_settings(right)):
        rows.append((label, a, b, None, False))
    rows += [(_(label), get(left), get(right), lower, False) for label, get, lower in _SUMMARY]
    rows += [(_(label), get(left), get(right), lower, True) for label, get, lower in _WORKLOAD]
    lm, rm = quality_metrics(left.metrics), quality_metrics(right.metrics)
    for key in dict.fromkeys([*lm, *rm]):
        info = metric_label(key)
        rows.append((info.name, lm.get(key), rm.get(key), info.lower_is_better, info.share))
    return rows


def _cell(value: Any, share: bool) -> str:
    if isinstance(value, str):
        return value
    return format_metric(value, share=True) if share else _fmt(value)


def _difference(a: Any, b: Any, share: bool) -> str:
    numbers = (int, float, np.number)
    if not (isinstance(a, numbers) and isinstance(b, numbers)) or isinstance(a, bool):
        return "" if a == b else _("differs")
    diff = float(b) - float(a)
    if not np.isfinite(diff):
        return "–"
    if share:
        return _(POINTS, sign="+" if diff > 0 else "", value=formats.decimal(100 * diff, 1, fixed=True))
    return ("+" if diff > 0 else "") + _fmt(diff)


def _differ(a: Any, b: Any) -> bool:
    """Two numbers that differ (a better or worse run), not text or a missing value."""
    numbers = (int, float, np.number)
    if not (isinstance(a, numbers) and isinstance(b, numbers)) or isinstance(a, bool):
        return False
    return bool(np.isfinite(float(b) - float(a))) and float(a) != float(b)


class CompareView(QWidget):
    """Sortable run history on top; two chosen runs side by side below."""

    def __init__(self, state: AppState | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compare_view")
        self.state = state  # read only: the run history
        self.runs: list[tuple[str, AnonymizationResult]] = []
        self.model = RunsModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self._build_ui()

    def _build_ui(self) -> None:
        col = QVBoxLayout(self)
        col.setContentsMargins(4, 4, 4, 4)
        split = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.setWordWrap(True)  # a long model name or parameter list wraps in its row
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection)
        split.addWidget(self.table)

        bottom = QWidget()
        bcol = QVBoxLayout(bottom)
        bcol.setContentsMargins(0, 0, 0, 0)
        pick = QHBoxLayout()
        self.left_combo = QComboBox()
        self.right_combo = QComboBox()
        for label, combo in ((_("Compare"), self.left_combo), (_("with"), self.right_combo)):
            pick.addWidget(QLabel(label))
            combo.setMinimumContentsLength(24)
            combo.currentIndexChanged.connect(self._draw_pair)
            pick.addWidget(combo)
        pick.addWidget(QLabel(_("(or select two rows above)")))
        pick.addStretch(1)
        bcol.addLayout(pick)
        pair = QHBoxLayout()
        self.metrics_table = QTableWidget(0, 4)
        self.metrics_table.setHorizontalHeaderLabels(["", "left", "right", _("right − left")])
        self.metrics_table.verticalHeader().setVisible(False)
        self.metrics_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.metrics_table.setWordWrap(True)
        head = self.metrics_table.horizontalHeader()
        # names and the two runs share the width (long texts wrap); the difference is always whole
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        head.resizeSection(0, 170)
        for c in (1, 2):
            head.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.metrics_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.metrics_table.setMinimumWidth(METRICS_TABLE_WIDTH)
        pair.addWidget(self.metrics_table, 3)
        self.charts = pg.GraphicsLayoutWidget()
        self.charts.setBackground("w")
        self.charts.setObjectName("compare_class_sizes")
        add_plot_menu(self.charts)
        self.left_plot = self.charts.addPlot(row=0, col=0, axisItems={"bottom": LabelAxis("bottom")})
        self.right_plot = self.charts.addPlot(row=1, col=0, axisItems={"bottom": LabelAxis("bottom")})
        pair.addWidget(self.charts, 3)
        bcol.addLayout(pair, 1)
        split.addWidget(bottom)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 5)
        split.setSizes([260, 650])
        col.addWidget(split)

    # --- data --------------------------------------------------------------------------------------
    def show_run(self, run: Run | None) -> None:
        """The view contract (see :mod:`kanon_gui.views.analysis`): the whole history from the app state,
        the pair being ``run`` and the run before it."""
        runs = self.state.runs if self.state is not None else ([run] if run is not None else [])
        current = next((i for i, r in enumerate(runs) if r is run), None)
        self.set_runs([(r.label, r.result) for r in runs], current)

    def set_runs(self, runs: list[tuple[str, AnonymizationResult]], current: int | None = None) -> None:
        """Show the run history; the pair defaults to the current run and the one before it."""
        self.runs = list(runs)
        self.model.set_runs(self.runs)
        # every column as wide as its words up to a cap (then they wrap, the row grows): the plain model
        # names and the parameters no longer push the columns after them out of sight
        for c in range(len(COLUMNS)):
            self.table.resizeColumnToContents(c)
            cap = PARAMETERS_WIDTH if c == _PARAMETERS_COLUMN else COLUMN_WIDTH
            self.table.setColumnWidth(c, min(self.table.columnWidth(c), cap))
        self.table.resizeRowsToContents()
        names = [f"{i + 1}. {name}" for i, (name, _unused) in enumerate(self.runs)]
        for combo in (self.left_combo, self.right_combo):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(names)
            combo.blockSignals(False)
        n = len(self.runs)
        if n:
            cur = n - 1 if current is None or not 0 <= current < n else current
            other = cur - 1 if cur > 0 else min(1, n - 1)
            self.set_pair(other, cur)
        else:
            self._draw_pair()

    def row_count(self) -> int:
        return self.proxy.rowCount()

    def set_pair(self, left: int, right: int) -> None:
        """Compare run ``left`` with run ``right`` (indices in the history)."""
        for combo, i in ((self.left_combo, left), (self.right_combo, right)):
            combo.blockSignals(True)
            combo.setCurrentIndex(i)
            combo.blockSignals(False)
        self._draw_pair()

    def pair(self) -> tuple[int, int]:
        return self.left_combo.currentIndex(), self.right_combo.currentIndex()

    def _fit_metrics_table(self, heads: list[str]) -> None:
        """At least as wide as the run names and the difference's header need (run names are not cut
        short, however long the interface language's words)."""
        table = self.metrics_table
        metrics = table.horizontalHeader().fontMetrics()
        runs = max(metrics.horizontalAdvance(h) for h in heads[1:3]) + 16
        difference = max(metrics.horizontalAdvance(heads[3]) + 16, table.sizeHintForColumn(3))
        need = table.columnWidth(0) + 2 * runs + difference
        need += table.verticalScrollBar().sizeHint().width() + 2 * table.frameWidth()
        table.setMinimumWidth(max(METRICS_TABLE_WIDTH, need))

    def _on_table_selection(self, *_args: object) -> None:
        rows = sorted({self.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()})
        if len(rows) == 2:
            self.set_pair(rows[0], rows[1])

    def _draw_pair(self, *_args: object) -> None:
        li, ri = self.pair()
        valid = 0 <= li < len(self.runs) and 0 <= ri < len(self.runs)
        self.metrics_table.setRowCount(0)
        self.left_plot.clear()
        self.right_plot.clear()
        if not valid:
            return
        (ln, left), (rn, right) = self.runs[li], self.runs[ri]
        heads = ["", f"{li + 1}. {ln}", f"{ri + 1}. {rn}", _("right − left")]
        self.metrics_table.setHorizontalHeaderLabels(heads)
        rows = pair_rows(left, right)
        self.metrics_table.setRowCount(len(rows))
        for i, (label, a, b, lower, share) in enumerate(rows):
            cells = [label, _cell(a, share), _cell(b, share), _difference(a, b, share)]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                numeric = j and not isinstance((a, b, None)[j - 1] if j < 3 else a, str)
                if numeric:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.metrics_table.setItem(i, j, item)
            if lower is not None and _differ(a, b):
                better_right = (float(b) < float(a)) if lower else (float(b) > float(a))
                self.metrics_table.item(i, 3).setToolTip(
                    _("right is better") if better_right else _("left is better")
                )
                self.metrics_table.item(i, 3).setForeground(
                    pg.mkColor("#1a9850" if better_right else "#d73027")
                )
        self._fit_metrics_table(heads)
        self.metrics_table.resizeRowsToContents()
        # the same bins and axes for both, so the two histograms compare at a glance
        facts = (result_facts(left), result_facts(right))
        both = np.concatenate([sizes_of(f["release"].get("class_sizes")) for f in facts])
        span = (int(both.min()), int(both.max())) if len(both) else None
        for plot, run, f, title, brush in (
            (self.left_plot, left, facts[0], f"{li + 1}. {ln}", BAR_COLOR),
            (self.right_plot, right, facts[1], f"{ri + 1}. {rn}", RELEASED_COLOR),
        ):
            draw_release_sizes(
                plot, run, f, title=title, brush=brush, span=span, title_chars=COMPARE_TITLE_CHARS
            )
        self.right_plot.setXLink(self.left_plot)
