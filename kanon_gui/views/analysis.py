"""The analysis panel the main window embeds: lattice, 2D partitions, charts and run comparison as tabs.

The window hands it the run history and the input table (``set_runs``), says which run is current
(``set_current``) and listens to three signals: ``rows_selected`` / ``class_selected`` (a box clicked in
the partition view: select those rows in the grid and that class in the class table) and
``apply_node_requested`` (a lattice node clicked: apply that transformation in a worker, add the run,
and hand the result back through ``show_node_result`` or ``set_runs`` + ``set_current``).

Views are rebuilt lazily: only the visible tab is redrawn when the current run changes, the others when
they are shown (or when ``views()`` is asked for, e.g. for screenshots), so switching runs stays quick.
"""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from kanon_engine.data.table import Table
from kanon_engine.result import AnonymizationResult
from kanon_gui.views.charts import ChartsView
from kanon_gui.views.compare_view import CompareView
from kanon_gui.views.lattice_view import LatticeView
from kanon_gui.views.partition_view import PartitionView


class AnalysisPanel(QWidget):
    """Tabs: Lattice, Partitions (2D), Charts, Compare runs."""

    rows_selected = Signal(object)  # np.ndarray of input row indices
    class_selected = Signal(int)
    apply_node_requested = Signal(object)  # tuple of levels, one per quasi-identifier

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("analysis_panel")
        self.runs: list[tuple[str, AnonymizationResult]] = []
        self.table: Table | None = None
        self.current = -1
        self.lattice_view = LatticeView()
        self.partition_view = PartitionView()
        self.charts_view = ChartsView()
        self.compare_view = CompareView()
        self.tabs = QTabWidget()
        self._views: list[tuple[str, str, QWidget]] = [
            ("lattice", "Lattice", self.lattice_view),
            ("partitions", "Partitions (2D)", self.partition_view),
            ("charts", "Charts", self.charts_view),
            ("compare", "Compare runs", self.compare_view),
        ]
        tips = {
            "lattice": "Every full-domain generalization the search considered, coloured by what it learned.",
            "partitions": "The records and their equivalence classes on two quasi-identifiers.",
            "charts": "Class sizes, information loss per attribute, distributions before and after.",
            "compare": "All runs in a table, and any two side by side.",
        }
        for key, title, widget in self._views:
            i = self.tabs.addTab(widget, title)
            self.tabs.setTabToolTip(i, tips[key])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self._stale: set[str] = set()
        self.tabs.currentChanged.connect(self._refresh_visible)
        self.partition_view.class_selected.connect(self.class_selected)
        self.partition_view.rows_selected.connect(self.rows_selected)
        self.lattice_view.node_clicked.connect(self.apply_node_requested)

    # --- contract with the window --------------------------------------------------------------------
    def set_runs(self, runs: list[tuple[str, AnonymizationResult]], table: Table | None) -> None:
        """The run history (name, result) and the input table the runs were computed from.

        The current run stays the same run when it is still in the list, else becomes the last one.
        """
        previous = self.runs[self.current][1] if 0 <= self.current < len(self.runs) else None
        self.runs = list(runs)
        keep = next((i for i, (_, r) in enumerate(self.runs) if r is previous), None)
        self.compare_view.set_runs(self.runs, keep)
        if keep is not None and self.table is table:  # same run on screen: nothing to redraw
            self.current = keep
            return
        self.table = table
        self.current = -1
        self.set_current(keep if keep is not None else len(self.runs) - 1)

    def set_current(self, index: int) -> None:
        """Show run ``index`` of the history in the lattice, partition and chart views."""
        index = int(index) if 0 <= int(index) < len(self.runs) else -1
        if index == self.current and index >= 0:
            return
        self.current = index
        self._stale |= {"lattice", "partitions", "charts"}
        if index >= 0 and len(self.runs) > 1:
            other = index - 1 if index > 0 else 1
            self.compare_view.set_pair(other, index)
        self._refresh_visible()

    def current_result(self) -> AnonymizationResult | None:
        return self.runs[self.current][1] if 0 <= self.current < len(self.runs) else None

    def views(self) -> list[tuple[str, QWidget]]:
        """(name, widget) of every view, each up to date (the window saves screenshots of them)."""
        for key, _, _ in self._views:
            self._refresh(key)
        return [(key, widget) for key, _, widget in self._views]

    def show_view(self, name: str) -> None:
        """Bring a view to the front by name (lattice, partitions, charts, compare)."""
        for i, (key, _, _) in enumerate(self._views):
            if key == name:
                self.tabs.setCurrentIndex(i)

    @Slot(int)
    def select_class(self, class_id: int) -> None:
        """Highlight a class chosen elsewhere (the class table); emits nothing back."""
        self._refresh("partitions")
        self.partition_view.select_class(int(class_id))

    def show_node_result(self, result: AnonymizationResult) -> None:
        """The result of a lattice node the user clicked: mark it in the lattice and show its metrics."""
        self.lattice_view.show_node_result(result)

    # --- lazy refresh --------------------------------------------------------------------------------
    def _refresh_visible(self, *_: object) -> None:
        i = self.tabs.currentIndex()
        if 0 <= i < len(self._views):
            self._refresh(self._views[i][0])

    def _refresh(self, key: str) -> None:
        if key not in self._stale:
            return
        self._stale.discard(key)
        result = self.current_result()
        if key == "lattice":
            self.lattice_view.set_result(result)
        elif key == "partitions":
            self.partition_view.set_result(result, self.table)
        elif key == "charts":
            self.charts_view.set_result(result, self.table)
        elif key == "compare":
            pass  # kept current by set_runs / set_current
