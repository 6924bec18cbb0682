"""The data grid: the loaded table (lazy model, headers coloured by role, sort by clicking a header) and
a summary of the selected column (type, distinct values, missing, most frequent values)."""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data.types import describe_date_format
from kanon_engine.i18n import N_, _, formats
from kanon_engine.session.engines import engine_sentence
from kanon_gui.glossary import ROLE_COLORS, kind_label, role_label, role_tooltip
from kanon_gui.models.table_model import FrameModel
from kanon_gui.resources import icon
from kanon_gui.state import AppState

ROW_HEIGHT = 22


def configure_grid(view: QTableView) -> None:
    """Grid settings that keep 1M-row tables fast: fixed row height, no resize-to-contents."""
    vh = view.verticalHeader()
    vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vh.setDefaultSectionSize(ROW_HEIGHT)
    hh = view.horizontalHeader()
    hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    hh.setDefaultSectionSize(120)
    hh.setHighlightSections(False)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
    view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)


def fit_headers(view: QTableView, minimum: int = 90, maximum: int = 320) -> None:
    """Every column at least as wide as its header (role icon, name, sort arrow), so a name is never
    cut ("ufnahmedatum"); only the headers are measured, never the rows (1M-row tables stay fast)."""
    header = view.horizontalHeader()
    model = view.model()
    if model is None:
        return
    metrics = header.fontMetrics()
    for c in range(model.columnCount()):
        text = str(model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole) or "")
        width = metrics.horizontalAdvance(text) + 48  # icon, sort indicator and margins
        header.resizeSection(c, max(minimum, min(maximum, width)))


RECENT_TITLE = N_("<b>Open again</b>")
RECENT_ITEM = N_("{name}   —   {folder}")


class WelcomePanel(QWidget):
    """What the Data tab shows before any data is loaded: open a file, or try the bundled sample."""

    open_requested = Signal()
    sample_requested = Signal()
    recent_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        title = QLabel(
            _(
                "<h2>Welcome to kanon</h2><p>kanon turns a table of patient records into a release in which "
                "every person hides among at least <i>k</i> others.</p><p>1. Open a CSV, Excel or Parquet "
                "file<br>2. Mark the quasi-identifiers and check their hierarchies<br>3. Choose an "
                "algorithm and k, press Run<br>4. Inspect the result and export it.</p>"
            )
        )
        title.setWordWrap(True)
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(title)
        row = QHBoxLayout()
        row.addStretch(1)
        self.open_button = QPushButton(icon("open"), _("Open a data file…  (Ctrl+O)"))
        self.sample_button = QPushButton(icon("kanon"), _("Open the bundled sample"))
        self.sample_button.setObjectName("OpenSampleButton")
        for b in (self.open_button, self.sample_button):
            b.setIconSize(QSize(22, 22))
            b.setMinimumHeight(44)
            b.setMinimumWidth(240)
            row.addWidget(b)
        row.addStretch(1)
        outer.addLayout(row)
        self.recent_title = QLabel(_(RECENT_TITLE))
        self.recent_title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.recent = QListWidget()
        self.recent.setObjectName("RecentFiles")
        self.recent.setMaximumWidth(640)
        self.recent.setMaximumHeight(170)
        self.recent.itemClicked.connect(
            lambda item: self.recent_requested.emit(item.data(Qt.ItemDataRole.UserRole))
        )
        outer.addWidget(self.recent_title)
        outer.addWidget(self.recent, 0, Qt.AlignmentFlag.AlignHCenter)
        outer.addStretch(2)
        self.open_button.clicked.connect(self.open_requested)
        self.sample_button.clicked.connect(self.sample_requested)
        self.fill_recent()

    def fill_recent(self) -> None:
        """The recently opened projects and data files (newest first), a click opens one again."""
        from kanon_gui import appdata

        files = appdata.recent_files()
        self.recent.clear()
        for f in files:
            item = QListWidgetItem(_(RECENT_ITEM, name=Path(f).name, folder=Path(f).parent))
            item.setData(Qt.ItemDataRole.UserRole, f)
            item.setToolTip(f)
            self.recent.addItem(item)
        self.recent.setVisible(bool(files))
        self.recent_title.setVisible(bool(files))


class DataPanel(QWidget):
    """Grid of the loaded table plus the summary of the selected column (a welcome page before)."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.stack = QStackedWidget()
        outer.addWidget(self.stack)
        self.welcome = WelcomePanel()
        self.stack.addWidget(self.welcome)
        page = QWidget()
        self.stack.addWidget(page)
        layout = QVBoxLayout(page)
        self.caption = QLabel(_("No data loaded. Use File > Open (Ctrl+O) or open the bundled sample."))
        self.caption.setObjectName("DataCaption")
        self.caption.setWordWrap(True)  # a preview's caption is two long lines: wrap, never widen the window
        layout.addWidget(self.caption)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.model = FrameModel(self)
        self.view = QTableView()
        self.view.setObjectName("DataGrid")
        self.view.setModel(self.model)
        configure_grid(self.view)
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)
        split.addWidget(self.view)
        self.summary_box = QGroupBox(_("Column"))
        box = QVBoxLayout(self.summary_box)
        self.summary = QLabel(_("Select a column to see its type, distinct values and missing values."))
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        # the summary scrolls when a column's words run longer than the window is tall (1366x768)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.summary)
        box.addWidget(scroll, 1)
        split.addWidget(self.summary_box)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setSizes([900, 260])
        layout.addWidget(split, 1)
        self.view.selectionModel().currentChanged.connect(lambda cur, _prev: self.show_column(cur.column()))
        self.view.horizontalHeader().sectionClicked.connect(self.show_column)
        state.table_changed.connect(self.reload)
        state.project_changed.connect(self.refresh_roles)
        self._column = -1

    def reload(self) -> None:
        t = self.state.table
        if t is None:
            self.model.set_frame(None)
            self.stack.setCurrentIndex(0)
            return
        self.stack.setCurrentIndex(1)
        kinds = {c: t.kind(c) for c in t.columns}
        formats = {c: ct.date_format for c, ct in t.column_types.items()}
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        preview = self.state.preview
        self.model.set_frame(t.frame if preview is None else preview, kinds, formats)
        self.refresh_roles()
        fit_headers(self.view)
        if preview is None:
            self.caption.setStyleSheet("")
            self.caption.setText(
                _(
                    "<b>{name}</b> — {n_rows} rows × {n} columns. Click a column header to sort; select a "
                    "column to see its summary.",
                    name=escape(t.name()),
                    n_rows=t.n_rows,
                    n=len(t.columns),
                )
            )
        else:
            self.caption.setStyleSheet("background: #ebf4ff; border: 1px solid #90cdf4; padding: 6px;")
            self.caption.setText(
                _(
                    "<b>Preview</b> of <b>{name}</b>: the first {shown} of {n_rows} rows × {n} columns (the "
                    "file is not loaded whole; sorting sorts the preview). The column summaries count "
                    "every row.<br>{engine}",
                    name=escape(t.name()),
                    shown=len(preview),
                    n_rows=t.n_rows,
                    n=len(t.columns),
                    engine=escape(engine_sentence(t)),
                )
            )
            sampled = [c for c in t.columns if self.state.is_sampled(c)]
            if sampled:
                self.caption.setText(
                    self.caption.text()
                    + "<br>"
                    + _(
                        "Except {columns}: nearly every value differs, so they are summarized from the "
                        "first rows only.",
                        columns=escape(", ".join(sampled)),
                    )
                )
        self._column = -1
        self.show_column(0 if t.columns else -1)

    def refresh_roles(self) -> None:
        if self.state.table is None:
            return
        self.model.set_roles({c: self.state.role(c) for c in self.state.columns})
        if self._column >= 0:
            self.show_column(self._column)

    def show_column(self, column: int) -> None:
        """Show the summary of ``column`` (one cached ``value_counts``)."""
        t = self.state.table
        if t is None or not 0 <= column < len(t.columns):
            return
        self._column = column
        name = t.columns[column]
        ct = t.column_types.get(name)
        counts = self.state.distinct(name)
        missing = int(counts[counts.index.isna()].sum()) if counts.index.hasnans else 0
        role = self.state.role(name)
        color = ROLE_COLORS[role].name()
        lines = [
            f"<h3 style='margin:0'>{escape(name)}</h3>",
            f"<p><span style='color:{color}'><b>{role_label(role)}</b></span><br>"
            f"<small>{escape(role_tooltip(role))}</small></p>",
        ]
        if ct is not None:
            share = _(" ({share} of values fit)", share=formats.percent(ct.share, 0)) if ct.share < 1 else ""
            fmt = (
                _(", format {format}", format=escape(describe_date_format(ct.date_format)))
                if ct.date_format
                else ""
            )
            lines.append(
                _(
                    "<p>Type: <b>{kind}</b>{format}{share}</p>",
                    kind=kind_label(ct.kind),
                    format=fmt,
                    share=share,
                )
            )
        distinct = len(counts) - (1 if counts.index.hasnans else 0)
        if self.state.is_sampled(name):  # a large file's column whose values almost all differ
            rows = int(counts.sum())
            lines.append(
                _(
                    "<p>Distinct values: <b>nearly every value differs</b> ({distinct} in the first {rows} "
                    "rows). Not counted over the whole file (it would hold every value in memory); it "
                    "is counted if you make it a quasi-identifier or sensitive attribute.</p>",
                    distinct=distinct,
                    rows=rows,
                )
            )
            self.summary.setText("".join(lines))
            self.summary_box.setTitle(_("Column {n} of {n2}", n=column + 1, n2=len(t.columns)))
            return
        lines.append(
            _(
                "<p>Distinct values: <b>{distinct}</b><br>Missing: <b>{missing}</b> ({share})</p>",
                distinct=distinct,
                missing=missing,
                share=formats.percent(missing / max(t.n_rows, 1), 1),
            )
        )
        top = counts[~counts.index.isna()].head(8)
        if len(top):
            rows = "".join(
                f"<tr><td>{escape(str(v))}</td><td align='right'>{formats.count(int(n))}</td></tr>"
                for v, n in top.items()
            )
            lines.append(_("<p>Most frequent:</p><table cellspacing='4'>{rows}</table>", rows=rows))
        s = self.state.suggestion(name)
        if s is not None and s.role is not None:
            lines.append(_("<p><i>Suggestion: {reason}</i></p>", reason=escape(s.reason)))
        self.summary.setText("".join(lines))
        self.summary_box.setTitle(_("Column {n} of {n2}", n=column + 1, n2=len(t.columns)))
