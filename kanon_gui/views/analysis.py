"""The analysis panel the main window embeds: lattice, 2D partitions, charts and run comparison as tabs.

The view contract: every analysis view is a QWidget with ``show_run(run)`` (a
:class:`~kanon_gui.state.Run` of the history, None for nothing). The window calls
:meth:`AnalysisPanel.show_run` with the current run; the panel passes it on. Adding a view: write its
module (a widget with ``show_run``) and add one line to :data:`VIEWS`.

The panel listens to its views' signals and passes three on to the window: ``rows_selected`` /
``class_selected`` (a box clicked in the partition view: select those rows in the grid and that class
in the class table) and ``apply_node_requested`` (a lattice node clicked: apply that transformation in a
worker and add it as a run, which then comes back through ``show_run``).

Views are redrawn lazily: only the visible tab is redrawn when the run changes, the others when they are
shown (or when ``views()`` is asked for, e.g. for screenshots), so switching runs stays quick.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, cast

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from kanon_engine.i18n import N_, _
from kanon_engine.result import AnonymizationResult
from kanon_gui.state import AppState, Run
from kanon_gui.views.charts import ChartsView
from kanon_gui.views.compare_view import CompareView
from kanon_gui.views.lattice_view import LatticeView
from kanon_gui.views.partition_view import PartitionView
from kanon_gui.views.results_view import stale_banner


class RunView(Protocol):
    """What every analysis view implements (besides being a QWidget)."""

    def show_run(self, run: Run | None) -> None:
        """Show ``run`` (a finished run of the history: its label, result and input table); None
        clears the view."""


@dataclass(frozen=True)
class ViewEntry:
    """One analysis tab: its key (for screenshots and ``show_view``), title, tooltip and how to build
    the view (from the app state, which a view may read but never changes)."""

    key: str
    title: str
    tip: str
    make: Callable[[AppState | None], QWidget]


#: The analysis views, in tab order. Each builds a widget with ``show_run(run)``.
VIEWS: tuple[ViewEntry, ...] = (
    ViewEntry(
        "lattice",
        N_("Lattice"),
        N_("Every full-domain generalization the search considered, coloured by what it learned."),
        lambda state: LatticeView(),
    ),
    ViewEntry(
        "partitions",
        N_("Partitions (2D)"),
        N_("The records and their groups on two quasi-identifiers."),
        lambda state: PartitionView(),
    ),
    ViewEntry(
        "charts",
        N_("Charts"),
        N_("Group sizes, information loss per quasi-identifier, distributions before and after."),
        lambda state: ChartsView(),
    ),
    ViewEntry(
        "compare", N_("Compare runs"), N_("All runs in a table, and any two side by side."), CompareView
    ),
)


class AnalysisPanel(QWidget):
    """Tabs of the :data:`VIEWS`, shown one run at a time."""

    rows_selected = Signal(object)  # np.ndarray of input row indices
    class_selected = Signal(int)
    apply_node_requested = Signal(object)  # tuple of levels, one per quasi-identifier
    rerun_requested = Signal()  # run again (a restored run has no lattice to show)

    def __init__(self, state: AppState | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("analysis_panel")
        self.run: Run | None = None
        self.tabs = QTabWidget()
        self._views: dict[str, QWidget] = {}
        for entry in VIEWS:
            view = entry.make(state)
            self._views[entry.key] = view
            i = self.tabs.addTab(view, _(entry.title))
            self.tabs.setTabToolTip(i, _(entry.tip))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.stale_banner = stale_banner()
        layout.addWidget(self.stale_banner)
        layout.addWidget(self.tabs)
        self._stale: set[str] = set()
        self.tabs.currentChanged.connect(self._refresh_visible)
        self.partition_view.class_selected.connect(self.class_selected)
        self.partition_view.rows_selected.connect(self.rows_selected)
        self.lattice_view.node_clicked.connect(self.apply_node_requested)
        self.lattice_view.rerun_requested.connect(self.rerun_requested)

    # --- the views the window talks to through this panel --------------------------------------------
    @property
    def lattice_view(self) -> LatticeView:
        return cast(LatticeView, self._views["lattice"])

    @property
    def partition_view(self) -> PartitionView:
        return cast(PartitionView, self._views["partitions"])

    @property
    def charts_view(self) -> ChartsView:
        return cast(ChartsView, self._views["charts"])

    @property
    def compare_view(self) -> CompareView:
        return cast(CompareView, self._views["compare"])

    # --- contract with the window --------------------------------------------------------------------
    def show_run(self, run: Run | None) -> None:
        """Show ``run`` in every view (the visible one now, the others when they are shown). The same
        run again only refreshes the comparison (the history around it may have grown)."""
        self._stale |= {"compare"} if run is self.run and run is not None else set(self._views)
        self.run = run
        self._refresh_visible()

    def set_stale(self, stale: bool) -> None:
        """Mark the run shown as out of date (its settings are not the project's any more)."""
        self.stale_banner.setVisible(stale and self.run is not None)

    def current_result(self) -> AnonymizationResult | None:
        return self.run.result if self.run is not None else None

    def views(self) -> list[tuple[str, QWidget]]:
        """(name, widget) of every view, each up to date (the window saves screenshots of them)."""
        for key in self._views:
            self._refresh(key)
        return list(self._views.items())

    def show_view(self, name: str) -> None:
        """Bring a view to the front by name (lattice, partitions, charts, compare)."""
        self.tabs.setCurrentWidget(self._views[name])

    @Slot(int)
    def select_class(self, class_id: int) -> None:
        """Highlight a class chosen elsewhere (the class table); emits nothing back."""
        self._refresh("partitions")
        self.partition_view.select_class(int(class_id))

    def show_node_result(self, result: AnonymizationResult) -> None:
        """The result of a lattice node the user clicked: mark it in the lattice and show its metrics."""
        self.lattice_view.show_node_result(result)

    # --- lazy refresh --------------------------------------------------------------------------------
    def _refresh_visible(self, *_args: object) -> None:
        widget = self.tabs.currentWidget()
        key = next((k for k, v in self._views.items() if v is widget), None)
        if key is not None:
            self._refresh(key)

    def _refresh(self, key: str) -> None:
        if key in self._stale:
            self._stale.discard(key)
            cast(RunView, self._views[key]).show_run(self.run)
