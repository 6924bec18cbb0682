"""The linkage attack demonstration of the Risk tab: choose a public list, pick the join columns, and see
who it singles out in the original data and in the release.

This is Sweeney's attack (Sweeney 2002, "k-anonymity: a model for protecting privacy"): a public list of
named people (a voter register) joined with health records on the columns both hold. The engine does the
work (:mod:`kanon_engine.metrics.linkage`, :mod:`kanon_engine.project.public_list`); this panel lays it out.
The list is
read as data files are (the import dialog, encoding and delimiter detected), in a worker of the window's
:class:`~kanon_gui.tasks.TaskRunner`, as is the join (with progress and Cancel). The project remembers the
list and the join (:meth:`kanon_gui.state.AppState.set_public_list`), and every writer refuses to replace
the list while it is part of the project.

What is shown never exposes more than the release does: the list's own values (the attacker has them),
counts of matching records, and, for a person the release singles out, the values of their *released*
record (what the attacker learns).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data.io import read_table
from kanon_engine.data.roles import Role
from kanon_engine.data.sniff import DELIMITER_NAMES, describe_encoding
from kanon_engine.data.table import ReadOptions, Table
from kanon_engine.i18n import N_, _, formats, text_of
from kanon_engine.metrics.linkage import LinkageExample, LinkageResult, linkage_examples, suggest_join
from kanon_engine.project.public_list import PublicList, link_release
from kanon_gui.errors import error_text, is_expected
from kanon_gui.glossary import term
from kanon_gui.state import Run

#: The panel's sentences, whole, with named placeholders (one place, ready for translation).
TEXT = {
    "intro": (
        N_(
            "Someone who holds a public list of named people (a voter register, a staff directory) can join "
            "it with the release on the columns both have. A person whose values match exactly one record is "
            "singled out: the attacker learns that record. Choose such a list to see whom it singles out in "
            "the original data and in the release."
        )
    ),
    "no_list": N_("No public list is chosen yet."),
    "choose": N_("Choose a public list\u2026"),
    "choose_title": N_("Choose a public list (a register of named people)"),
    "reading": N_("Reading {file}\u2026"),
    "read": N_("{file}: {people} people, read as {encoding}, {delimiter}."),
    "read_sheet": N_("{file}: {people} people."),
    "unreadable": N_("The public list {file} named in the project cannot be read: {reason} Choose it again."),
    "not_joined": N_("(not joined)"),
    "by_hand": N_("Chosen by you."),
    "no_pair": N_("No column of the list looks like '{column}'; choose one if the list has it."),
    "run": N_("Show who is singled out"),
    "run_tip": N_("Join the public list with the original data and with the release (in the background)."),
    "cancel": N_("Cancel"),
    "need_run": N_("Run an anonymization first: the demonstration joins the list with its release."),
    "need_join": N_("Choose at least one column of the list to join with a quasi-identifier."),
    "joining": N_("Joining {people} people with {records} records\u2026"),
    "cancelled": N_("The join was cancelled."),
    "examples_note": (
        N_(
            "The examples show what the list says and how many records match each person; for a person the "
            "release singles out, the values of their released record, which the attacker learns. Nothing "
            "else of the original data is shown."
        )
    ),
    "people": N_("People on the public list"),
    "singled_out": N_("Singled out (exactly one matching record)"),
    "matched": N_("Matching at least one record"),
    "unmatched": N_("Matching no record"),
    "original": N_("Original data"),
    "release": N_("Release"),
    "count_share": N_("{count} ({share})"),
    "list_row": N_("List row"),
    "matches_original": N_("Matches in\nthe original"),
    "matches_release": N_("Matches in\nthe release"),
    "matches_original_tip": N_(
        "How many records of the original data match this person's values on the list."
    ),
    "matches_release_tip": N_("How many records of the release match this person's values on the list."),
    "reveals": N_("What the release reveals"),
    "nothing_revealed": N_("\u2013"),
}
DELIMITER_WORDS = {
    ",": N_("separated by commas"),
    ";": N_("separated by semicolons"),
    "\t": N_("separated by tabs"),
}


def _delimiter_words(delimiter: str | None) -> str:
    if delimiter in DELIMITER_WORDS:
        return text_of(DELIMITER_WORDS, delimiter)
    name = DELIMITER_NAMES.get(delimiter or "", delimiter or "")
    return _("separated by '{delimiter}'", delimiter=name)


def _share(count: int, total: int) -> str:
    share = 100.0 * count / total if total else 0.0
    return text_of(TEXT, "count_share", count=formats.count(count), share=formats.percent(share / 100.0, 1))


@dataclass(frozen=True)
class LinkageOutcome:
    """What the worker hands back: the joins' counts and the examples to list."""

    result: LinkageResult
    examples: list[LinkageExample]


def linkage_task(list_table: Table, run: Run, join: dict[str, str], progress: Any = None) -> LinkageOutcome:
    """Worker side: join the list with the run's original data and release; pick the examples (the
    values revealed are those of the sensitive attributes, or of the other released columns)."""
    result = link_release(list_table, run.table, run.result, join, progress)
    release = run.result.release
    learned = (
        list(run.result.config.sensitive)
        or [c for c in release.columns if c not in join and c not in run.result.config.quasi_identifiers][:3]
    )
    examples = linkage_examples(result, list_table, release, run.result.config.hierarchies, learned)
    return LinkageOutcome(result, examples)


class LinkagePanel(QWidget):
    """The linkage demonstration of the current run (see the module docstring).

    ``state`` (an :class:`~kanon_gui.state.AppState`) keeps the list and the join in the project;
    ``runner`` runs the reading and the join in the background (without one they run inline, for tests).
    """

    #: emitted when a demonstration finished (its outcome), for the window and tests
    shown = Signal(object)

    def __init__(self, state: Any | None = None, runner: Any | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("linkage_panel")
        self.state, self.runner = state, runner
        self.run: Run | None = None
        self.list_table: Table | None = None
        self.outcome: LinkageOutcome | None = None
        self._task: int | None = None
        self._reasons: dict[str, str] = {}
        self._build()
        if runner is not None:
            runner.progress.connect(self._on_progress)
            runner.cancelled.connect(self._on_cancelled)
        if state is not None and hasattr(state, "table_changed"):
            state.table_changed.connect(self.forget_list)  # new data, new project: its own list or none
        self._update_buttons()

    def forget_list(self) -> None:
        """Drop the list read for the previous data (the project now open names its own, if any)."""
        if self._task is not None:
            self.cancel()
        self.list_table = None
        self._reasons = {}
        self.file_label.setText(text_of(TEXT, "no_list"))
        self.join_table.setRowCount(0)
        self._clear_outcome("")
        self._update_buttons()

    # --- building ------------------------------------------------------------------------------------
    def _build(self) -> None:
        intro = QLabel(text_of(TEXT, "intro"))
        intro.setWordWrap(True)
        intro.setToolTip(term("linkage"))
        self.file_label = QLabel(text_of(TEXT, "no_list"))
        self.file_label.setObjectName("linkage_file")
        self.file_label.setWordWrap(True)
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.choose_button = QPushButton(text_of(TEXT, "choose"))
        self.choose_button.clicked.connect(self.choose_file)
        file_row = QHBoxLayout()
        file_row.addWidget(self.file_label, 1)
        file_row.addWidget(self.choose_button)

        self.join_table = QTableWidget(0, 3)
        self.join_table.setObjectName("linkage_join")
        self.join_table.setHorizontalHeaderLabels(
            [_("Quasi-identifier"), _("Column of the public list"), _("Why")]
        )
        self.join_table.verticalHeader().setVisible(False)
        self.join_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.join_table.setWordWrap(True)
        head = self.join_table.horizontalHeader()
        for c in (0, 1):
            head.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.join_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.join_table.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)

        self.run_button = QPushButton(text_of(TEXT, "run"))
        self.run_button.setToolTip(text_of(TEXT, "run_tip"))
        self.run_button.clicked.connect(self.run_demo)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(220)
        self.progress.hide()
        self.cancel_button = QPushButton(text_of(TEXT, "cancel"))
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.progress)
        run_row.addWidget(self.cancel_button)
        run_row.addStretch(1)

        setup = QGroupBox(_("Public list and join"))
        sl = QVBoxLayout(setup)
        sl.addWidget(intro)
        sl.addLayout(file_row)
        sl.addWidget(self.join_table)
        sl.addLayout(run_row)
        self._build_outcome()
        self.lower = lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(self.outcome_box)
        lower.addWidget(self.examples_box)
        lower.setStretchFactor(0, 2)
        lower.setStretchFactor(1, 3)
        lower.setSizes([520, 680])
        layout = QVBoxLayout(self)  # the setup takes the height it needs, the outcome the rest
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(setup)
        layout.addWidget(lower, 1)

    def _build_outcome(self) -> None:
        self.summary = QLabel("")
        self.summary.setObjectName("linkage_summary")
        self.summary.setWordWrap(True)
        self.figures = QTableWidget(4, 2)
        self.figures.setObjectName("linkage_figures")
        self.figures.setHorizontalHeaderLabels([text_of(TEXT, "original"), text_of(TEXT, "release")])
        self.figures.setVerticalHeaderLabels(
            [text_of(TEXT, k) for k in ("people", "singled_out", "matched", "unmatched")]
        )
        self.figures.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.figures.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.figures.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.figures.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.figures.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.examples = QTableWidget(0, 0)
        self.examples.setObjectName("linkage_examples")
        self.examples.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.examples.verticalHeader().setVisible(False)
        # every column as wide as its words (a stretched last column kept 100 px and cut its header)
        self.examples.horizontalHeader().setStretchLastSection(False)
        note = QLabel(text_of(TEXT, "examples_note"))
        note.setWordWrap(True)
        self.outcome_box = QGroupBox(_("Who is singled out"))
        ol = QVBoxLayout(self.outcome_box)
        ol.addWidget(self.summary)
        ol.addWidget(self.figures)
        ol.addStretch(1)
        self.examples_box = QGroupBox(_("Examples"))
        el = QVBoxLayout(self.examples_box)
        el.addWidget(note)
        el.addWidget(self.examples, 1)

    # --- contract with the risk panel ------------------------------------------------------------------
    def show_run(self, run: Run | None) -> None:
        """Show the demonstration for ``run``: the project's public list is read if it is not yet, and
        the join is made again for this run."""
        self.run = run
        self._clear_outcome(text_of(TEXT, "need_run") if run is None else "")
        self._fill_join()
        saved = self._saved_list()
        if saved is not None and (self.list_table is None or self.list_table.source != saved.path):
            self.load_list(saved.path, saved.read_options)
            return
        if run is not None and self.list_table is not None and self.join():
            self.run_demo()
        self._update_buttons()

    def _saved_list(self) -> PublicList | None:
        return getattr(getattr(self.state, "project", None), "public_list", None)

    def _quasi_identifiers(self) -> list[str]:
        if self.run is not None:
            return list(self.run.result.config.quasi_identifiers)
        if self.state is not None:
            return list(self.state.columns_with(Role.QUASI_IDENTIFIER))
        return []

    # --- the list --------------------------------------------------------------------------------------
    def choose_file(self) -> None:
        """A file dialog, then the import dialog (encoding and delimiter detected, to be checked)."""
        from kanon_gui.dialogs.import_dialog import ImportDialog

        start = ""
        if self.state is not None and self.state.table is not None and self.state.table.source is not None:
            start = str(self.state.table.source.parent)
        path, _filter = QFileDialog.getOpenFileName(
            self,
            text_of(TEXT, "choose_title"),
            start,
            _("Tables (*.csv *.tsv *.txt *.xlsx *.parquet);;All files (*)"),
        )
        if not path:
            return
        dialog = ImportDialog(path, self)
        dialog.accepted.connect(lambda: self.load_list(Path(path), dialog.options()))
        dialog.open()
        self.import_dialog = dialog

    def load_list(self, path: str | Path, options: ReadOptions | None = None) -> int | None:
        """Read the public list (in the background); the join is then proposed and the demo made."""
        path = Path(path)
        self.file_label.setText(text_of(TEXT, "reading", file=path.name))

        def work(progress: Any = None) -> Table:
            return read_table(path, options)

        return self._submit(work, self._list_read, self._list_failed(path), "read public list")

    def _list_read(self, table: Table) -> None:
        self.list_table = table
        o = table.options
        words = {"file": table.name(), "people": formats.count(table.n_rows)}
        if o.encoding:
            words.update(encoding=describe_encoding(o.encoding), delimiter=_delimiter_words(o.delimiter))
            self.file_label.setText(text_of(TEXT, "read", **words))
        else:
            self.file_label.setText(text_of(TEXT, "read_sheet", **words))
        saved = self._saved_list()
        join = dict(saved.join) if saved is not None and saved.path == table.source else {}
        self._fill_join(join or None)
        self._remember()
        if self.run is not None and self.join():
            self.run_demo()
        self._update_buttons()

    def _list_failed(self, path: Path):
        def failed(exc: BaseException) -> None:
            if not is_expected(exc) and not isinstance(exc, OSError):
                raise exc
            self.list_table = None
            reason = error_text(exc)
            self.file_label.setText(text_of(TEXT, "unreadable", file=path.name, reason=reason))
            self._fill_join()
            self._update_buttons()

        return failed

    # --- the join --------------------------------------------------------------------------------------
    def _fill_join(self, join: dict[str, str] | None = None) -> None:
        """One row per quasi-identifier with the list's column to join it with: ``join`` when given, else
        the columns :func:`~kanon_engine.metrics.linkage.suggest_join` proposes, each with its reason."""
        qis = self._quasi_identifiers()
        columns = self.list_table.columns if self.list_table is not None else []
        if join is None:
            join = self.join() if self.join_table.rowCount() else {}
            join = {q: c for q, c in join.items() if c in columns}
        if not join and columns:
            found = suggest_join(columns, qis)
            join = {s.column: s.list_column for s in found}
            self._reasons = {s.column: s.reason for s in found}
        self.join_table.setRowCount(len(qis))
        for r, q in enumerate(qis):
            self.join_table.setItem(r, 0, QTableWidgetItem(q))
            combo = QComboBox()
            combo.addItem(text_of(TEXT, "not_joined"), "")
            for c in columns:
                combo.addItem(c, c)
            combo.setCurrentIndex(max(0, combo.findData(join.get(q, ""))))
            combo.setEnabled(bool(columns))
            combo.currentIndexChanged.connect(lambda _i, q=q: self._join_edited(q))
            self.join_table.setCellWidget(r, 1, combo)
            self._set_reason(r, q, join.get(q))
        self.join_table.resizeRowsToContents()
        rows = sum(self.join_table.rowHeight(r) for r in range(self.join_table.rowCount()))
        head = self.join_table.horizontalHeader().sizeHint().height()
        # every quasi-identifier's row in view (up to a handful; more scroll)
        self.join_table.setMinimumHeight(min(head + rows + 2 * self.join_table.frameWidth() + 2, 300))

    def _set_reason(self, row: int, column: str, list_column: str | None) -> None:
        if self.list_table is None:
            text = ""
        elif list_column:
            text = self._reasons.get(column, text_of(TEXT, "by_hand"))
        else:
            text = text_of(TEXT, "no_pair", column=column)
        item = QTableWidgetItem(text)
        item.setToolTip(text)
        self.join_table.setItem(row, 2, item)

    def _join_edited(self, column: str) -> None:
        self._reasons.pop(column, None)
        for r in range(self.join_table.rowCount()):
            if self.join_table.item(r, 0).text() == column:
                self._set_reason(r, column, self.join().get(column))
        self._remember()
        self._clear_outcome("")
        self._update_buttons()

    def join(self) -> dict[str, str]:
        """Quasi-identifier -> the list's column, as the table shows it (unjoined rows left out)."""
        out = {}
        for r in range(self.join_table.rowCount()):
            combo = self.join_table.cellWidget(r, 1)
            item = self.join_table.item(r, 0)
            if isinstance(combo, QComboBox) and item is not None and combo.currentData():
                out[item.text()] = str(combo.currentData())
        return out

    def set_join(self, column: str, list_column: str | None) -> None:
        """Join ``column`` with ``list_column`` (None: not joined), as if chosen in the table."""
        for r in range(self.join_table.rowCount()):
            item = self.join_table.item(r, 0)
            combo = self.join_table.cellWidget(r, 1)
            if item is not None and item.text() == column and isinstance(combo, QComboBox):
                combo.setCurrentIndex(max(0, combo.findData(list_column or "")))

    def _remember(self) -> None:
        """Keep the list and the join in the project (saved with it; the list is then protected)."""
        if self.state is None or self.list_table is None or self.list_table.source is None:
            return
        public = PublicList(self.list_table.source, self.list_table.options, self.join())
        if public != self._saved_list():
            self.state.set_public_list(public)

    # --- the demonstration -------------------------------------------------------------------------------
    def run_demo(self) -> int | None:
        """Join the list with the current run's original data and release, in the background."""
        run, table, join = self.run, self.list_table, self.join()
        if run is None or table is None:
            self._clear_outcome(text_of(TEXT, "need_run") if run is None else text_of(TEXT, "no_list"))
            return None
        if not join:
            self._clear_outcome(text_of(TEXT, "need_join"))
            return None
        self.summary.setText(
            text_of(
                TEXT, "joining", people=formats.count(table.n_rows), records=formats.count(run.table.n_rows)
            )
        )

        def work(progress: Any = None) -> LinkageOutcome:
            return linkage_task(table, run, join, progress)

        return self._submit(work, self._show, self._demo_failed, "linkage demonstration")

    def _demo_failed(self, exc: BaseException) -> None:
        if not is_expected(exc):
            raise exc
        self._clear_outcome(error_text(exc))

    def _show(self, outcome: LinkageOutcome) -> None:
        self.outcome = outcome
        link = outcome.result
        self.summary.setText(link.summary())
        n = link.external_records
        sides = [link.before, link.after]
        for col, side in enumerate(sides):
            values = (
                [
                    formats.count(n),
                    _share(side.singled_out, n),
                    formats.count(side.matched),
                    formats.count(side.unmatched),
                ]
                if side is not None
                else ["\u2013"] * 4
            )
            for row, text in enumerate(values):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.figures.setItem(row, col, item)
        self.figures.resizeColumnsToContents()
        QTimer.singleShot(0, self._fit_outcome)  # once the headers have their final widths
        self._fill_examples(link, outcome.examples)
        self._update_buttons()
        self.shown.emit(outcome)

    def _fill_examples(self, link: LinkageResult, examples: list[LinkageExample]) -> None:
        list_columns = list(link.join.values())
        header = [
            text_of(TEXT, "list_row"),
            *list_columns,
            text_of(TEXT, "matches_original"),
            text_of(TEXT, "matches_release"),
            text_of(TEXT, "reveals"),
        ]
        self.examples.clear()
        self.examples.setColumnCount(len(header))
        self.examples.setHorizontalHeaderLabels(header)
        for col, tip in ((len(header) - 3, "matches_original_tip"), (len(header) - 2, "matches_release_tip")):
            head = self.examples.horizontalHeaderItem(col)
            if head is not None:
                head.setToolTip(text_of(TEXT, tip))
        self.examples.setRowCount(len(examples))
        for r, ex in enumerate(examples):
            revealed = ", ".join(f"{c} = {v}" for c, v in (ex.learned or {}).items())
            cells = [
                formats.count(ex.list_row),
                *(ex.known.get(c, "") for c in list_columns),
                formats.count(ex.before),
                formats.count(ex.after) if ex.after is not None else "\u2013",
                revealed or text_of(TEXT, "nothing_revealed"),
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0 or c in (len(cells) - 3, len(cells) - 2):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.examples.setItem(r, c, item)
        self.examples.resizeColumnsToContents()
        head = self.examples.horizontalHeader()
        for c in range(self.examples.columnCount()):  # at least the header's words ("Alter" over "28")
            self.examples.setColumnWidth(c, max(self.examples.columnWidth(c), head.sectionSizeHint(c)))

    def _fit_outcome(self) -> None:
        """Give the figures the width their words need (a splitter keeps the sizes it was given, so the
        German row names would push the release column out of sight); the examples take the rest."""
        f = self.figures
        columns = sum(f.columnWidth(c) for c in range(f.columnCount()))
        f.setMinimumWidth(f.verticalHeader().sizeHint().width() + columns + 2 * f.frameWidth() + 2)
        sizes = self.lower.sizes()
        need = self.outcome_box.minimumSizeHint().width()
        if len(sizes) == 2 and 0 < sizes[0] < need:
            self.lower.setSizes([need, max(sum(sizes) - need, 0)])

    def _clear_outcome(self, message: str) -> None:
        self.outcome = None
        self.summary.setText(message)
        self.figures.clearContents()
        self.examples.clear()
        self.examples.setRowCount(0)
        self.examples.setColumnCount(0)

    # --- background tasks --------------------------------------------------------------------------------
    def _submit(self, work: Any, done: Any, failed: Any, label: str) -> int | None:
        if self.runner is None:
            try:
                done(work())
            except Exception as exc:  # noqa: BLE001 - an expected error becomes the panel's sentence
                failed(exc)
            return None
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self.run_button.setEnabled(False)

        def finish(value: Any) -> None:
            self._task_ended()
            done(value)

        def fail(exc: BaseException) -> None:
            self._task_ended()
            failed(exc)

        self._task = self.runner.submit(work, channel="linkage", label=label, on_done=finish, on_error=fail)
        return self._task

    def _task_ended(self) -> None:
        self._task = None
        self.progress.hide()
        self.cancel_button.hide()
        self._update_buttons()

    def _on_progress(self, tid: int, channel: str, fraction: float, message: str) -> None:
        if channel == "linkage" and tid == self._task:
            self.progress.setValue(int(1000 * max(0.0, min(1.0, fraction))))

    def _on_cancelled(self, tid: int, channel: str) -> None:
        if channel == "linkage" and tid == self._task:
            self._task_ended()
            self._clear_outcome(text_of(TEXT, "cancelled"))

    def cancel(self) -> None:
        if self.runner is not None:
            self.runner.cancel("linkage")

    def _update_buttons(self) -> None:
        busy = self._task is not None
        self.run_button.setEnabled(
            not busy and self.run is not None and self.list_table is not None and bool(self.join())
        )
        self.choose_button.setEnabled(not busy)
