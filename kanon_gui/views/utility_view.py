"""The Utility tab: can the study still do its analysis on the release? (the researcher's view)

Why: a steward releases data for a study, and the study's team asks whether their model still works.
The tab trains three classifiers on the original and on the release, beside the majority baseline
(:mod:`kanon_engine.utility.classifiers`), in a background task with progress and Cancel (the status
bar's); summarizes every attribute before and after; and cross-tabulates any two attributes as two heat
maps (also in the background: a cross-table of a large table takes a second or two). Every figure
comes from :func:`kanon_engine.utility.study.fitness`, the function the command line's ``utility`` and
the report's "fitness for the study" section call.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.errors import KanonError
from kanon_engine.i18n import _, formats, ngettext
from kanon_engine.progress import no_progress
from kanon_engine.session.engines import needs_rows_text
from kanon_engine.utility.classifiers import CLASSIFIERS
from kanon_engine.utility.contingency import contingency
from kanon_engine.utility.study import fitness, fitness_sentences
from kanon_gui.state import AppState, Run
from kanon_gui.tasks import run_or_submit
from kanon_gui.views.results_view import stale_banner


def _share(x: float | None) -> str:
    return "–" if x is None else formats.percent(x, 1)


def _number(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else formats.decimal(x, digits, fixed=True)


def _side_text(kind: str, side: dict[str, Any]) -> str:
    """One table's summary of an attribute in a few words."""
    if kind == "category":
        if side["mode"] is None:
            return _("all missing")
        return _(
            "{mode} ({share}), {n} values",
            mode=side["mode"],
            share=formats.percent(side["mode_share"], 0),
            n=formats.count(side["distinct"]),
        )
    if side["median"] is None:
        return _("all missing")
    return _(
        "median {median}, quartiles {q1} – {q3}",
        median=formats.decimal(side["median"], 1),
        q1=formats.decimal(side["q1"], 1),
        q3=formats.decimal(side["q3"], 1),
    )


def _item(text: str, align_right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if align_right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def _table(headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.verticalHeader().hide()
    t.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    t.horizontalHeader().setStretchLastSection(True)
    return t


class UtilityPanel(QWidget):
    """Classifiers, summaries and contingency tables of the current run."""

    def __init__(self, state: AppState, runner: Any | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = runner
        self.run: Run | None = None
        self.figures: dict[str, Any] | None = None
        self._build_ui()
        self.show_run(None)

    # --- building --------------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        layout = QVBoxLayout(self)
        self.stale_banner = stale_banner()
        layout.addWidget(self.stale_banner)
        layout.addWidget(self._study_box())
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self._summary_box())
        split.addWidget(self._contingency_box())
        split.setSizes([560, 560])
        layout.addWidget(split, 1)

    def _study_box(self) -> QGroupBox:
        box = QGroupBox(_("Can the study still predict its target?"))
        lay = QVBoxLayout(box)
        row = QHBoxLayout()
        row.addWidget(QLabel(_("Target of the study:")))
        self.target = QComboBox()
        self.target.setMinimumContentsLength(14)
        self.target.currentIndexChanged.connect(self._target_changed)
        row.addWidget(self.target)
        row.addWidget(QLabel(_("Predicted from:")))
        self.features = QListWidget()
        self.features.setFlow(QListWidget.Flow.LeftToRight)
        self.features.setWrapping(True)
        self.features.setMaximumHeight(54)
        row.addWidget(self.features, 1)
        self.compare = QPushButton(_("Compare classifiers"))
        self.compare.setToolTip(
            _("Train three classifiers on the original data and on the release (five-fold cross-validation).")
        )
        self.compare.clicked.connect(self.compute)
        row.addWidget(self.compare)
        lay.addLayout(row)
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.words.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.words)
        headers = [
            _("Classifier"),
            _("Correct, original"),
            _("Correct, release"),
            _("Relative accuracy"),
            _("AUC, original"),
            _("AUC, release"),
            _("Brier, original"),
            _("Brier, release"),
        ]
        self.classifiers = _table(headers)
        self.classifiers.setMaximumHeight(150)
        lay.addWidget(self.classifiers)
        return box

    def _summary_box(self) -> QGroupBox:
        box = QGroupBox(_("Every attribute before and after"))
        lay = QVBoxLayout(box)
        self.summary = _table([_("Attribute"), _("Original"), _("Release"), _("Distance")])
        self.summary.setToolTip(
            _(
                "Distance: the Earth Mover's Distance between the two distributions (as t-closeness "
                "measures it): 0 the same, 1 farthest apart. Release figures of ranges are estimates."
            )
        )
        lay.addWidget(self.summary)
        return box

    def _contingency_box(self) -> QGroupBox:
        box = QGroupBox(_("Two attributes together"))
        lay = QVBoxLayout(box)
        row = QHBoxLayout()
        self.first, self.second = QComboBox(), QComboBox()
        for combo in (self.first, self.second):
            combo.currentIndexChanged.connect(self._draw_contingency)
        row.addWidget(QLabel(_("Rows:")))
        row.addWidget(self.first, 1)
        row.addWidget(QLabel(_("Columns:")))
        row.addWidget(self.second, 1)
        lay.addLayout(row)
        self.heat_original, self.heat_release = _table([]), _table([])
        for title, heat in ((_("Original data"), self.heat_original), (_("Release"), self.heat_release)):
            lay.addWidget(QLabel(f"<b>{title}</b>"))
            heat.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
            heat.horizontalHeader().setStretchLastSection(False)  # sized by _heat: a width says no count
            heat.verticalHeader().show()
            lay.addWidget(heat, 1)
        #: records of the release suppressed whole, said below its heat map rather than drawn (see _whole)
        self.left_out = 0
        self.left_out_note = QLabel()
        self.left_out_note.setWordWrap(True)
        self.left_out_note.hide()
        lay.addWidget(self.left_out_note)
        return box

    # --- the view contract -----------------------------------------------------------------------------
    def set_stale(self, stale: bool) -> None:
        """Mark the run shown as out of date (its settings are not the project's any more)."""
        self.stale_banner.setVisible(stale and self.run is not None)

    def show_run(self, run: Run | None) -> None:
        """The study figures of ``run`` (computed when the run names its target, else on request)."""
        self.run, self.figures = run, None
        self.stale_banner.hide()
        self._clear_tables()
        ready = run is not None and run.result.in_memory
        for w in (self.target, self.features, self.compare, self.first, self.second):
            w.setEnabled(ready)
        if run is None:
            self.words.setText(
                _("No run yet: press Run (Ctrl+R); what the study can still do with it appears here.")
            )
            return
        if not ready:
            self.words.setText(f"<b>{run.label}</b>: {needs_rows_text(run.result)}")
            return
        columns = [str(c) for c in run.result.release.columns]
        self._fill_choices(columns, run.result.parameters.get("target"))
        if run.result.parameters.get("target"):
            self.compute()
        else:
            self.words.setText(
                _("Choose the attribute the study will predict, then press Compare classifiers.")
            )

    def _fill_choices(self, columns: list[str], target: Any) -> None:
        for combo in (self.target, self.first, self.second):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(columns)
            combo.blockSignals(False)
        if target in columns:
            self.target.setCurrentText(str(target))
        self.second.setCurrentIndex(min(1, len(columns) - 1))
        self._target_changed()
        self._draw_contingency()

    def _target_changed(self, *_args: object) -> None:
        self.features.clear()
        for column in (self.target.itemText(i) for i in range(self.target.count())):
            if column == self.target.currentText():
                continue
            item = QListWidgetItem(column)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.features.addItem(item)

    def chosen_features(self) -> list[str]:
        items = (self.features.item(i) for i in range(self.features.count()))
        return [it.text() for it in items if it.checkState() == Qt.CheckState.Checked]

    # --- computing ---------------------------------------------------------------------------------------
    def compute(self) -> None:
        """Run the classifiers and the summaries in the background (progress and Cancel in the status
        bar); without a runner (tests), at once."""
        if self.run is None or not self.run.result.in_memory:
            return
        original, release = self.run.table.frame, self.run.result.release
        target, features = self.target.currentText(), self.chosen_features()
        identifiers = tuple(self.run.result.config.identifiers)

        def work(progress: Any = no_progress) -> dict[str, Any]:
            return fitness(original, release, target, features, identifiers, progress=progress)

        self.figures = None
        self._clear_tables(heat_maps=False)
        self.words.setText(_("Training the classifiers on both tables…"))
        run_or_submit(
            self.runner,
            work,
            channel="utility",
            label=_("classifiers on the original and the release"),
            on_done=self._show,
            on_error=lambda exc: self.words.setText(str(exc)),
            on_cancel=lambda: self.words.setText(_("Cancelled: press Compare classifiers to start again.")),
        )

    def _show(self, figures: dict[str, Any]) -> None:
        self.figures = figures
        self.words.setText("<br>".join(fitness_sentences(figures)))
        cls = figures["classification"]
        rows = [
            (
                _("Always the most frequent value"),
                {"accuracy": cls["majority"]},
                {"accuracy": cls["majority_release"]},
            )
        ]
        rows += [
            (_(label), cls["original"][name], cls["release"][name]) for name, label in CLASSIFIERS.items()
        ]
        self.classifiers.setRowCount(len(rows))
        for r, (label, before, after) in enumerate(rows):
            cells = [
                label,
                _share(before.get("accuracy")),
                _share(after.get("accuracy")),
                _share(after.get("relative_accuracy")),
                _number(before.get("auc")),
                _number(after.get("auc")),
                _number(before.get("brier")),
                _number(after.get("brier")),
            ]
            for c, text in enumerate(cells):
                self.classifiers.setItem(r, c, _item(text, c > 0))
        self._fill_summary(figures["summary"])

    def _fill_summary(self, summary: dict[str, Any]) -> None:
        self.summary.setRowCount(len(summary))
        for r, (name, s) in enumerate(summary.items()):
            estimated = s["kind"] == "number" and s["release"].get("estimated")
            release_text = _side_text(s["kind"], s["release"]) + (_(" (estimated)") if estimated else "")
            cells = [name, _side_text(s["kind"], s["original"]), release_text, _number(s["distance"])]
            for c, text in enumerate(cells):
                self.summary.setItem(r, c, _item(text, c == 3))

    def _draw_contingency(self, *_args: object) -> None:
        """Cross-tabulate the two chosen attributes in the background (on Adult's 30,000 records a
        second or two of pandas work, which would freeze the window); without a runner (tests), at once."""
        if self.run is None or not self.run.result.in_memory or not self.first.count():
            return
        first, second = self.first.currentText(), self.second.currentText()
        for heat in (self.heat_original, self.heat_release):
            heat.setRowCount(0)
            heat.setColumnCount(0)
        self._note_left_out(0)
        if first == second:
            return
        run = self.run
        original, release = run.table.frame, run.result.release

        def work(progress: Any = no_progress) -> dict[str, Any]:
            return contingency(original, release, first, second)

        def show(table: dict[str, Any]) -> None:
            # a table of another run or of other attributes (chosen meanwhile) is not drawn
            if self.run is run and (self.first.currentText(), self.second.currentText()) == (first, second):
                _heat(self.heat_original, table["original"])
                release, left_out = _whole(table["release"])
                _heat(self.heat_release, release)
                self._note_left_out(left_out)

        if self.runner is None:
            try:
                show(work())
            except KanonError as exc:
                self.words.setText(str(exc))
            return
        self.runner.submit(
            work,
            channel="contingency",
            label=_("two attributes cross-tabulated"),
            on_done=show,
            on_error=lambda exc: self.words.setText(str(exc)),
        )

    def _note_left_out(self, n: int) -> None:
        """Say how many suppressed records the release's heat map leaves out (none: no note)."""
        self.left_out = n
        self.left_out_note.setText(
            ngettext(
                "{n} suppressed record (both values removed) is not in this table.",
                "{n} suppressed records (both values removed) are not in this table.",
                n,
                n=formats.count(n),
            )
        )
        self.left_out_note.setVisible(n > 0)

    def _clear_tables(self, heat_maps: bool = True) -> None:
        tables = (self.classifiers, self.summary) + (
            (self.heat_original, self.heat_release) if heat_maps else ()
        )
        for t in tables:
            t.setRowCount(0)


def _whole(side: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """A cross-table without the records suppressed whole, and their number.

    A suppressed record has both values missing, so it sits alone in the corner of a "missing" row and a
    "missing" column that are zero everywhere else: drawn, that is a row and a column of zeros beside
    the real counts. When that is all they hold, both go and the corner's records are said in words; a
    value missing beside a present one (a suppressed cell) keeps them, as it tells something."""
    missing = _("missing")
    rows, columns, counts = side["rows"], side["columns"], side["counts"]
    if missing not in rows or missing not in columns:
        return side, 0
    r, c = rows.index(missing), columns.index(missing)
    others = [n for j, n in enumerate(counts[r]) if j != c] + [
        row[c] for i, row in enumerate(counts) if i != r
    ]
    if any(others):
        return side, 0
    kept = {
        "rows": [v for i, v in enumerate(rows) if i != r],
        "columns": [v for j, v in enumerate(columns) if j != c],
        "counts": [[n for j, n in enumerate(row) if j != c] for i, row in enumerate(counts) if i != r],
    }
    return kept, int(counts[r][c])


#: The narrowest column of a heat map, in pixels (room for "12,345").
HEAT_MIN_WIDTH = 64


def _heat(widget: QTableWidget, side: dict[str, Any]) -> None:
    """A cross-table as a heat map: each cell's count on a background as dark as its share of the
    largest cell."""
    counts = side["counts"]
    widget.setRowCount(len(side["rows"]))
    widget.setColumnCount(len(side["columns"]))
    widget.setHorizontalHeaderLabels(side["columns"])
    widget.setVerticalHeaderLabels(side["rows"])
    top = max((max(r) for r in counts if r), default=0) or 1
    for r, row in enumerate(counts):
        for c, n in enumerate(row):
            item = _item(formats.count(n), True)
            shade = int(235 - 150 * n / top)
            item.setBackground(QColor(shade, shade + 10 if shade < 245 else 255, 255))
            item.setForeground(QColor("white") if n / top > 0.7 else QColor("black"))
            widget.setItem(r, c, item)
    widget.resizeColumnsToContents()  # then one width for all, so no column looks larger than another
    widest = max([HEAT_MIN_WIDTH] + [widget.columnWidth(c) for c in range(widget.columnCount())])
    for c in range(widget.columnCount()):
        widget.setColumnWidth(c, widest)
