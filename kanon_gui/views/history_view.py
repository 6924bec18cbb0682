"""Run history: every run of this session (click to switch the current run), and the summaries of runs
saved in the project file by earlier sessions (read-only: their releases are not kept)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from kanon_gui.state import AppState, Run


def run_line(run: Run) -> str:
    r = run.result
    removed = (
        f"{r.model}: {r.recoding.in_words()}" if r.recoding is not None else f"{r.suppressed:,} suppressed"
    )
    return (
        f"{run.label}\n{r.n_classes:,} classes, {removed}, "
        f"DM {r.metrics.get('discernibility', float('nan')):,.0f}, {r.runtime_seconds:.2f} s"
    )


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
        self.list.setAlternatingRowColors(True)
        self.list.currentRowChanged.connect(self._picked)
        layout.addWidget(self.list, 1)
        self.saved = QLabel()
        self.saved.setWordWrap(True)
        self.saved.setStyleSheet("color: #666;")
        layout.addWidget(self.saved)
        self._filling = False
        state.run_added.connect(lambda _i: self.refresh())
        state.current_run_changed.connect(self._current_changed)
        state.table_changed.connect(self.refresh)

    def refresh(self) -> None:
        self._filling = True
        try:
            self.list.clear()
            for run in self.state.runs:
                item = QListWidgetItem(run_line(run))
                item.setToolTip("\n".join(m.describe() for m in run.result.config.models))
                self.list.addItem(item)
            self.list.setCurrentRow(self.state.current_index)
        finally:
            self._filling = False
        live = len(self.state.runs)
        saved = len(self.state.project.runs) - live
        self.saved.setText(
            f"{saved} earlier run{'s' if saved != 1 else ''} recorded in the project file (summaries only)."
            if saved > 0
            else ""
        )
        if not live:
            self.list.addItem(QListWidgetItem("No run yet."))
            self.list.item(0).setFlags(Qt.ItemFlag.NoItemFlags)

    def _current_changed(self, index: int) -> None:
        if self.list.currentRow() != index and index < len(self.state.runs):
            self._filling = True
            self.list.setCurrentRow(index)
            self._filling = False

    def _picked(self, row: int) -> None:
        if not self._filling and 0 <= row < len(self.state.runs):
            self.state.set_current_run(row)
