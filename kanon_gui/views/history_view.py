"""Run history: every run of this session (click to switch the current run), and the summaries of runs
saved in the project file by earlier sessions (read-only: their releases are not kept)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListView, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from kanon_engine.i18n import N_, _, formats, ngettext
from kanon_engine.report.describe import models_short, run_settings
from kanon_engine.report.facts import result_facts
from kanon_engine.report.sentences import kept_in_words
from kanon_engine.result import model_description, model_label
from kanon_gui.state import AppState, Run

#: One entry of the history: the run's name, its settings, what came out (whole lines, one place).
RUN_LINE = N_("{label}\n{models}\n{groups} groups, {kept}, {time} s")
#: The same for a release that keeps every record (its model, and what its values show).
RUN_LINE_CELLS = N_("{label}\n{models}\n{groups} groups, {model}: {kept}, {time} s")
STALE_LINE = N_("{line}\n(out of date: the settings changed since this run)")


def run_line(run: Run) -> str:
    """The run's label, its privacy models (k, l, t: two runs that differ there never look alike) and
    what came out (the release's facts: groups, suppressed records, values shown as *)."""
    r = run.result
    facts = result_facts(r, run.table)
    cell_level = r.recoding is not None
    words = {
        "label": run.label,
        "models": models_short(r.config.models),
        "groups": facts["release"]["classes"],
        "kept": kept_in_words(facts, cell_level),
        "time": formats.decimal(r.runtime_seconds, 2, fixed=True),
    }
    if cell_level:
        return _(RUN_LINE_CELLS, model=model_label(r.model), **words)
    return _(RUN_LINE, **words)


class RunHistoryPanel(QWidget):
    """List of runs; selecting one makes it the current run everywhere."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.list = QListWidget()
        self.list.setObjectName("RunHistory")
        self.list.setWordWrap(True)
        # lines wrap at the dock's width instead of running off to the right (longer in German)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setAlternatingRowColors(True)
        self.list.currentRowChanged.connect(self._picked)
        layout.addWidget(self.list, 1)
        self.saved = QLabel()
        self.saved.setWordWrap(True)
        self.saved.setStyleSheet("color: #666;")
        layout.addWidget(self.saved)
        self.note = QLabel()
        self.note.setObjectName("HistoryNote")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #744210;")
        self.note.hide()
        layout.addWidget(self.note)
        self._filling = False
        state.run_added.connect(lambda _i: self.refresh())
        state.current_run_changed.connect(self._current_changed)
        state.table_changed.connect(lambda: self.set_note(""))
        state.table_changed.connect(self.refresh)
        state.stale_changed.connect(self.refresh)

    def refresh(self) -> None:
        self._filling = True
        try:
            self.list.clear()
            for i, run in enumerate(self.state.runs):
                line = run_line(run)
                stale = self.state.is_stale(i)
                item = QListWidgetItem(_(STALE_LINE, line=line) if stale else line)
                if stale:
                    item.setForeground(Qt.GlobalColor.darkYellow)
                tip = [
                    _("{name}: {value}", name=label, value=value) for label, value in run_settings(run.result)
                ]
                about = [model_description(run.result.model)] if run.result.recoding is not None else []
                item.setToolTip("\n".join(tip + [m.describe() for m in run.result.config.models] + about))
                self.list.addItem(item)
            self.list.setCurrentRow(self.state.current_index)
        finally:
            self._filling = False
        live = len(self.state.runs)
        saved = len(self.state.project.runs) - live
        self.saved.setText(
            ngettext(
                "{n} earlier run recorded in the project file (summaries only).",
                "{n} earlier runs recorded in the project file (summaries only).",
                saved,
            )
            if saved > 0
            else ""
        )
        if not live:
            self.list.addItem(QListWidgetItem(_("No run yet.")))
            self.list.item(0).setFlags(Qt.ItemFlag.NoItemFlags)

    def set_note(self, text: str) -> None:
        """One sentence about the saved runs (being rebuilt through the engine, or why some were not)."""
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def _current_changed(self, index: int) -> None:
        if self.list.currentRow() != index and index < len(self.state.runs):
            self._filling = True
            self.list.setCurrentRow(index)
            self._filling = False

    def _picked(self, row: int) -> None:
        if not self._filling and 0 <= row < len(self.state.runs):
            self.state.set_current_run(row)
