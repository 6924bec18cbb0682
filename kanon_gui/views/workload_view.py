"""The Workload tab: the analyses a release is meant for, and how well the current run answers them.

Why: researchers judge a release by whether *their* counts and averages survive (the seed's Mondrian
paper, section 2.4). Top: the workload as text, one query per line (checked as you type; a mistake is
shown with its line and underlined), opened from or saved to a file, or generated. "Use for runs" puts
it in the project: every later run is measured against it (without one, against a generated workload),
and workload-aware Mondrian cuts along it. Bottom: the current run's figures and every query's true
answer beside the estimate from the release (:meth:`show_run`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDoubleSpinBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.errors import KanonError
from kanon_engine.i18n import N_, _, ngettext
from kanon_engine.release.fileio import atomic_write_text
from kanon_engine.session.engines import needs_rows_text
from kanon_engine.workload import WorkloadError, generate_workload, parse_workload, read_workload
from kanon_engine.workload.exact import table_specs
from kanon_engine.workload.generate import DEFAULT_QUERIES, DEFAULT_SEED, DEFAULT_SELECTIVITY, describe_source
from kanon_engine.workload.parser import read_workload_text
from kanon_engine.workload.report_section import answer_text, error_text, percent
from kanon_gui.models.headers import column_header
from kanon_gui.state import AppState, Run
from kanon_gui.views.results_view import stale_banner

Index = QModelIndex | QPersistentModelIndex
WORKLOAD_FILTER = N_("Workload files (*.txt *.sql *.workload);;All files (*)")
#: A query of the workload language (its keywords are the same in every interface language).
EXAMPLE = "COUNT(*) WHERE age BETWEEN 30 AND 39 AND sex = 'F'"

#: (header, tooltip) of the per-query table.
COLUMNS: tuple[tuple[str, str], ...] = (
    (N_("Line"), N_("The query's line in the workload (0: generated).")),
    (N_("Query"), N_("The aggregate query and its conditions.")),
    (N_("True answer"), N_("The answer on the original data.")),
    (N_("Estimate"), N_("The answer an analyst estimates from the release alone.")),
    (
        N_("Error"),
        N_(
            "Relative error: the difference divided by the true answer (the difference itself where the "
            "true answer is 0)."
        ),
    ),
    (
        N_("Matches"),
        N_(
            "Yes when no released group straddles the query's condition, so the release answers it "
            "without spreading records (the paper's predicate-range matching)."
        ),
    ),
)


class WorkloadQueriesModel(QAbstractTableModel):
    """Per-query figures of one run; ``Qt.UserRole`` gives raw values (numbers sort as numbers)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []

    def set_queries(self, queries: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self._rows = list(queries)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(COLUMNS)

    def _raw(self, q: dict[str, Any], column: int) -> Any:
        err = q["error"] if q["error"] is not None else float("inf")
        return (q["line"], q["query"], q["true"], q["estimate"], err, q["matches"])[column]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        q, c = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                str(q["line"]) if q["line"] else "\u2013",  # a generated query has no line
                q["query"],
                answer_text(q["true"]),
                answer_text(q["estimate"]),
                error_text(q),
                _("yes") if q["matches"] else _("no"),
            )[c]
        if role == Qt.ItemDataRole.UserRole:
            value = self._raw(q, c)
            return float("-inf") if value is None else value
        if role == Qt.ItemDataRole.TextAlignmentRole and c in (0, 2, 3, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and c == 1:
            return q["query"]
        return None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        return column_header(COLUMNS, section, orientation, role)


def summary_text(workload: dict[str, Any] | None) -> str:
    """One sentence of the run's workload figures, named for what they are."""
    if not workload:
        return _("This run has no workload figures.")
    source = workload["source"]
    where = _("a generated workload") if source.startswith("generated") else source
    text = ngettext(
        "Against {where} ({n} query): mean relative error {mean}, median {median}; the release matches "
        "{matched} of the queries.",
        "Against {where} ({n} queries): mean relative error {mean}, median {median}; the release matches "
        "{matched} of the queries.",
        workload["queries_total"],
        where=where,
        n=workload["queries_total"],
        mean=percent(workload["mean_error"]),
        median=percent(workload["median_error"]),
        matched=percent(workload["match_share"]),
    )
    if workload["queries_answered"] < workload["queries_total"]:
        left = workload["queries_total"] - workload["queries_answered"]
        text += " " + ngettext(
            "{n} query has no true answer (no record) and is left out.",
            "{n} queries have no true answer (no record) and are left out.",
            left,
            n=left,
        )
    return text


class WorkloadPanel(QWidget):
    """Edit the workload of the project and see the current run's per-query errors."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.run: Run | None = None
        self._file: str | None = state.project.workload_file
        self._check = QTimer(self)
        self._check.setSingleShot(True)
        self._check.setInterval(350)
        self._check.timeout.connect(self.check_text)
        self._build_ui()
        self._shown = state.project.workload_text or ""
        self.editor.setPlainText(self._shown)
        self.state.project_changed.connect(self._project_changed)
        self.state.table_changed.connect(self.check_text)
        self.check_text()
        self.show_run(None)

    # --- building --------------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        layout = QVBoxLayout(self)
        split = QSplitter(Qt.Orientation.Vertical)
        layout.addWidget(split)
        split.addWidget(self._editor_box())
        split.addWidget(self._results_box())
        split.setSizes([330, 420])

    def _editor_box(self) -> QGroupBox:
        box = QGroupBox(_("Intended analyses (workload)"))
        lay = QVBoxLayout(box)
        intro = QLabel(
            _(
                "One query per line, for example <code>{example}</code>. Aggregates: COUNT(*), SUM, AVG, "
                "MIN, MAX; conditions joined by AND: =, &lt;, &lt;=, &gt;, &gt;=, BETWEEN, IN, LIKE "
                "'prefix%'; optional WEIGHT 2 at the end; lines starting with # are comments. Every run "
                "is measured against the workload in use; without one, against a generated workload of "
                "{default_queries} random range counts.",
                example=EXAMPLE,
                default_queries=DEFAULT_QUERIES,
            )
        )
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(intro)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("WorkloadEditor")
        font = QFont("DejaVu Sans Mono")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.editor.setFont(font)
        self.editor.setPlaceholderText(EXAMPLE)
        self.editor.textChanged.connect(self._check.start)
        lay.addWidget(self.editor, 1)
        self.status = QLabel()
        self.status.setObjectName("WorkloadStatus")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        lay.addLayout(self._buttons())
        return box

    def _buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.open_button = QPushButton(_("Open file…"))
        self.open_button.clicked.connect(self.open_file)
        self.save_button = QPushButton(_("Save as…"))
        self.save_button.clicked.connect(self.save_file)
        row.addWidget(self.open_button)
        row.addWidget(self.save_button)
        row.addSpacing(16)
        self.gen_queries = QSpinBox()
        self.gen_queries.setRange(1, 10_000)
        self.gen_queries.setValue(DEFAULT_QUERIES)
        self.gen_queries.setToolTip(_("Number of generated queries"))
        self.gen_selectivity = QDoubleSpinBox()
        self.gen_selectivity.setRange(0.1, 100.0)
        self.gen_selectivity.setDecimals(1)
        self.gen_selectivity.setSuffix(" %")
        self.gen_selectivity.setValue(100 * DEFAULT_SELECTIVITY)
        self.gen_selectivity.setToolTip(_("About how many of the records a generated query selects"))
        self.gen_seed = QSpinBox()
        self.gen_seed.setRange(0, 1_000_000)
        self.gen_seed.setValue(DEFAULT_SEED)
        self.gen_seed.setToolTip(_("Random seed: the same seed gives the same queries"))
        self.generate_button = QPushButton(_("Generate"))
        self.generate_button.setToolTip(_("Write random range COUNT queries over the quasi-identifiers"))
        self.generate_button.clicked.connect(self.generate)
        for label, widget in (
            (_("Queries"), self.gen_queries),
            (_("selecting"), self.gen_selectivity),
            (_("seed"), self.gen_seed),
        ):
            row.addWidget(QLabel(label))
            row.addWidget(widget)
        row.addWidget(self.generate_button)
        row.addStretch(1)
        self.use_button = QPushButton(_("Use for runs"))
        self.use_button.setObjectName("UseWorkload")
        self.use_button.setToolTip(_("Put this workload in the project: later runs are measured against it"))
        self.use_button.clicked.connect(self.use)
        row.addWidget(self.use_button)
        return row

    def _results_box(self) -> QGroupBox:
        box = QGroupBox(_("Fitness of the current run for these analyses"))
        lay = QVBoxLayout(box)
        self.stale_banner = stale_banner()
        lay.addWidget(self.stale_banner)
        self.summary = QLabel()
        self.summary.setObjectName("WorkloadSummary")
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self.model = WorkloadQueriesModel(self)
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(self.model)
        proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.table = QTableView()
        self.table.setObjectName("WorkloadQueries")
        self.table.setModel(proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setStretchLastSection(False)
        metrics = hh.fontMetrics()
        for col, width in enumerate((48, 520, 100, 100, 150, 70)):
            head = str(proxy.headerData(col, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole) or "")
            # at least the header and its sort arrow ("Respuesta verdadera" is wider than "True answer")
            self.table.setColumnWidth(col, max(width, metrics.horizontalAdvance(head) + 28))
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        lay.addWidget(self.table, 1)
        return box

    # --- the editor ---------------------------------------------------------------------------------------
    def check_text(self) -> bool:
        """Parse the text (and check its columns against the table); show the outcome. True when usable."""
        text = self.editor.toPlainText()
        self.editor.setExtraSelections([])
        in_use = self.state.project.workload_text or ""
        if not text.strip():
            self._set_status(_("No workload: runs are measured against a generated one."), ok=True)
            self.use_button.setEnabled(bool(in_use))
            return True
        source = Path(self._file).name if self._file else _("the workload")
        try:
            workload = parse_workload(text, source)
            if self.state.table is not None:
                table_specs(self.state.table, workload)
        except WorkloadError as exc:
            self._set_status(str(exc.message), ok=False)
            self._underline(exc.where)
            self.use_button.setEnabled(False)
            return False
        same = text.strip() == in_use.strip()
        state = _("in use for runs") if same else _("not yet in use: press Use for runs")
        self._set_status(
            ngettext(
                "{n} query, readable; {state}.",
                "{n} queries, all readable; {state}.",
                len(workload),
                n=len(workload),
                state=state,
            ),
            ok=True,
        )
        self.use_button.setEnabled(not same)
        return True

    def _set_status(self, text: str, ok: bool) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #276749;" if ok else "color: #c53030; font-weight: bold;")

    def _underline(self, where: str) -> None:
        """Mark the line an error names ("line 3")."""
        if "line " not in where:
            return
        try:
            number = int(where.rsplit("line ", 1)[1].split()[0])
        except (IndexError, ValueError):
            return
        block = self.editor.document().findBlockByLineNumber(number - 1)
        if not block.isValid():
            return
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor("#fed7d7"))
        fmt.setProperty(QTextCharFormat.Property.FullWidthSelection, True)
        sel.format = fmt
        sel.cursor = QTextCursor(block)
        self.editor.setExtraSelections([sel])

    def use(self) -> None:
        """Put the editor's workload in the project (undoable)."""
        if not self.check_text():
            return
        self.state.set_workload(self.editor.toPlainText(), self._file)
        self.check_text()

    def generate(self) -> None:
        """Replace the text by a generated workload over the quasi-identifiers."""
        table = self.state.table
        try:
            if table is None:
                raise KanonError(_("Open a data file first."))
            config = self.state.config()
            workload = generate_workload(
                table,
                config,
                n_queries=self.gen_queries.value(),
                selectivity=self.gen_selectivity.value() / 100,
                seed=self.gen_seed.value(),
            )
        except KanonError as exc:
            self._set_status(_("Cannot generate a workload: {reason}", reason=exc), ok=False)
            return
        self._file = None
        comment = _("generated: {description}", description=describe_source(workload.source))
        self.editor.setPlainText(f"# {comment}\n" + workload.to_text())

    def open_file(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, _("Open workload"), "", _(WORKLOAD_FILTER))
        if path:
            self.load_file(path)

    def load_file(self, path: str | Path) -> None:
        try:
            read_workload(path)  # reports unreadable files and syntax errors with the file name
        except WorkloadError as exc:
            if "line" not in exc.where:
                self._set_status(str(exc), ok=False)
                return
        text = read_workload_text(path)
        self._file = str(path)
        self.editor.setPlainText(text)
        self.check_text()

    def save_file(self) -> None:
        path, _filter = QFileDialog.getSaveFileName(
            self, _("Save workload"), self._file or "workload.txt", _(WORKLOAD_FILTER)
        )
        if path:
            self.save_to(path)

    def save_to(self, path: str | Path) -> bool:
        try:
            atomic_write_text(path, self.editor.toPlainText(), protect=self.state.input_files())
        except KanonError as exc:
            self._set_status(str(exc), ok=False)
            return False
        self._file = str(path)
        self._set_status(_("Saved to {name}.", name=Path(path).name), ok=True)
        return True

    def _project_changed(self) -> None:
        """Undo/redo or a loaded project: show its workload, unless the user is editing a text of their
        own (one that differs from the workload last shown)."""
        text = self.state.project.workload_text or ""
        if text != self._shown and self.editor.toPlainText() in (self._shown, ""):
            self._file = self.state.project.workload_file
            self.editor.setPlainText(text)
        self._shown = text
        self.check_text()

    # --- the run -------------------------------------------------------------------------------------------
    def set_stale(self, stale: bool) -> None:
        """Mark the run shown as out of date (its settings are not the project's any more)."""
        self.stale_banner.setVisible(stale and self.run is not None)

    def show_run(self, run: Run | None) -> None:
        """Show a run's workload figures (the view contract of the analysis views)."""
        self.run = run
        self.stale_banner.hide()
        if run is None:
            self.summary.setText(
                _("No run yet: press Run (Ctrl+R); its answers to the workload appear here.")
            )
            self.model.set_queries([])
            return
        if not run.result.in_memory:  # a streamed run: the workload is answered on rows in memory
            self.summary.setText(
                _("{name}: {value}", name=f"<b>{run.label}</b>", value=needs_rows_text(run.result))
            )
            self.model.set_queries([])
            return
        figures = run.result.workload.to_dict() if run.result.workload is not None else None
        self.summary.setText(_("{name}: {value}", name=f"<b>{run.label}</b>", value=summary_text(figures)))
        self.model.set_queries(figures["queries"] if figures else [])
