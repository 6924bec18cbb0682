"""The workbench window: tabs for the workflow (Data, Attributes & hierarchies, Anonymize, Results,
Analysis, Risk), the run history dock, the status bar with progress and
Cancel, menus with keyboard shortcuts, projects (save/open, recent files, autosave).

The window wires panels to :class:`~kanon_gui.state.AppState` and to the one
:class:`~kanon_gui.tasks.TaskRunner`; it computes nothing itself. Engine errors land in the message bar
as plain text; unexpected exceptions open the crash dialog.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from kanon_engine import session
from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.heuristic import best_so_far
from kanon_engine.data.table import ColumnKind, ReadOptions
from kanon_engine.errors import Cancelled, KanonError
from kanon_engine.i18n import N_, _, formats, ngettext, text_of
from kanon_engine.project.project_file import Project
from kanon_engine.project.sealed import PasswordError
from kanon_engine.project.validation import TableFacts, analyze_table, result_warnings
from kanon_engine.report.describe import algorithm_name
from kanon_engine.report.facts import result_facts
from kanon_engine.report.sentences import kept_in_words
from kanon_engine.result import AnonymizationResult
from kanon_engine.session import LoadedProject, OpenedData
from kanon_engine.session.engines import (
    engine_for,
    engine_line_for,
    engine_name,
    engine_sentence,
    is_streamed,
    result_engine_sentence,
)
from kanon_engine.sources.backends.settings import EngineSettings
from kanon_gui import appdata
from kanon_gui.dialogs.export_dialog import ExportDialog
from kanon_gui.errors import error_text, error_title, is_expected, log_error
from kanon_gui.glossary import glossary_html
from kanon_gui.language import add_language_menu
from kanon_gui.resources import icon, sample_project
from kanon_gui.screen_fit import fit_window, keep_on_screen
from kanon_gui.state import AppState
from kanon_gui.tasks import TaskRunner
from kanon_gui.views.algorithm_panel import AlgorithmPanel
from kanon_gui.views.analysis import AnalysisPanel
from kanon_gui.views.attributes_panel import AttributesPanel
from kanon_gui.views.data_view import DataPanel
from kanon_gui.views.hierarchy_actions import HierarchyActions
from kanon_gui.views.hierarchy_editor import HierarchyEditorPanel
from kanon_gui.views.history_view import RunHistoryPanel
from kanon_gui.views.message_bar import MessageBar
from kanon_gui.views.results_view import ResultsPanel
from kanon_gui.views.risk_view import RiskPanel
from kanon_gui.views.utility_view import UtilityPanel
from kanon_gui.views.workload_view import WorkloadPanel

LOG = logging.getLogger("kanon_gui.window")

DATA_FILTER = N_(
    "Data and projects (*.csv *.tsv *.txt *.xlsx *.parquet *.json);;CSV / TSV (*.csv *.tsv *.txt);;Excel "
    "(*.xlsx);;Parquet (*.parquet);;kanon project (*.json);;All files (*)"
)
PROJECT_FILTER = N_("kanon project (*.kanon.json *.json)")
AUTOSAVE_MS = 3 * 60 * 1000

#: The window's own sentences (whole sentences with named placeholders, one place, ready for translation).
TEXT = {
    "untitled": N_("the new project"),
    "unsaved_title": N_("Save the project?"),
    "unsaved_before": (
        N_(
            "{name} has unsaved changes (roles, hierarchies, settings or runs). Save them before you "
            "{action}?"
        )
    ),
    "action_open": N_("open {name}"),
    "action_close": N_("close kanon"),
    "the_sample": N_("the sample"),
    "running": N_("Running {algorithm}…"),
    "run_done": N_("Done: {groups} groups, {kept}, smallest group {smallest}, in {seconds} s."),
    "run_stale": (
        N_(
            "The settings changed while it ran, so this result is out of date: run again to use the new "
            "settings."
        )
    ),
    "levels_label": N_("#{number} levels {levels}"),
    "loaded": N_(
        "Loaded {name}: {n_rows} rows, {n} columns. Next: mark the quasi-identifiers in the Attributes tab."
    ),
    "opened_streamed": N_(
        "Opened {name} without loading it: {n_rows} rows, {n} columns; the grid shows the first rows. Next: "
        "mark the quasi-identifiers in the Attributes tab."
    ),
    "password_title": N_("Protected project"),
    "password_ask": N_("{name} is protected by a password. Type it to open the project:"),
    "password_wrong": N_("The password does not open {name}. Check it (it is case-sensitive) and try again:"),
}


def not_rebuilt_text(reasons: list[str]) -> str:
    """One sentence for the run history: how many saved runs with the project's settings could not be
    rebuilt, and why the first could not ("" when every one was)."""
    if not reasons:
        return ""
    return ngettext(
        "A saved run could not be rebuilt. {reason}",
        "{n} saved runs could not be rebuilt. {reason}",
        len(reasons),
        reason=reasons[0],
    )


#: Task channels of a role change that first counts or prepares a large column (the Attributes tab).
ROLE_CHANNELS = ("count:", "prepare:")
#: Background tasks besides a run that show the progress bar and Cancel while they work.
SHOWN_CHANNELS = (*ROLE_CHANNELS, "utility")


class MainWindow(QMainWindow):
    """The kanon workbench window."""

    TAB_DATA, TAB_ATTRIBUTES, TAB_RUN, TAB_RESULTS = range(4)

    def __init__(self, state: AppState | None = None, runner: TaskRunner | None = None) -> None:
        super().__init__()
        self.setObjectName("MainWindow")
        self.setWindowIcon(icon("kanon"))
        self.state = state or AppState(self)
        self.runner = runner or TaskRunner(self)
        self._role_task = False  # a column is counted or prepared before its role changes
        self.hier_actions = HierarchyActions(self.state, self)
        self.ask_before_close = True
        #: the password the open project is protected with (kept to save it protected again)
        self.project_password: str | None = None
        self._run_task: int | None = None
        self._load_task: int | None = None
        self._views_pending = False
        self._init_engine_state()
        self._restore_geometry()

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        self.message_bar = MessageBar()
        layout.addWidget(self.message_bar)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("MainTabs")
        self.tabs.setDocumentMode(True)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.data_panel = DataPanel(self.state)
        attributes_tab = self._make_attributes_tab()
        self.algorithm_panel = AlgorithmPanel(self.state)
        self.results_panel = ResultsPanel()
        self.tabs.addTab(self.data_panel, icon("open"), _("1  Data"))
        self.tabs.addTab(attributes_tab, icon("hierarchy"), _("2  Attributes && hierarchies"))
        self.tabs.addTab(self.algorithm_panel, icon("run"), _("3  Anonymize"))
        self.analysis_panel = AnalysisPanel(self.state)
        self.risk_panel = RiskPanel(runner=self.runner, state=self.state)
        self.tabs.addTab(self.results_panel, icon("chart"), _("4  Results"))
        self.tabs.addTab(self.analysis_panel, icon("lattice"), _("5  Analysis"))
        self.tabs.addTab(self.risk_panel, icon("risk"), _("6  Risk"))
        self.workload_panel = WorkloadPanel(self.state)
        self.tabs.addTab(self.workload_panel, icon("chart"), _("7  Workload"))
        self.utility_panel = UtilityPanel(self.state, runner=self.runner)
        self.tabs.addTab(self.utility_panel, icon("chart"), _("8  Utility"))
        #: Tabs that show the current run (each has show_run), redrawn when they are on screen.
        self.run_views: tuple[AnalysisPanel | RiskPanel | WorkloadPanel | UtilityPanel, ...] = (
            self.analysis_panel,
            self.risk_panel,
            self.workload_panel,
            self.utility_panel,
        )
        self._stale_views: set[int] = set()

        self._make_history_dock()
        self._make_status_bar()
        self._make_actions()
        self._make_menus()
        self._connect()
        self._autosave = QTimer(self)
        self._autosave.setInterval(AUTOSAVE_MS)
        self._autosave.timeout.connect(self.autosave)
        self._autosave.start()
        self._update_title()
        self._update_enabled()

    def _make_attributes_tab(self) -> QSplitter:
        """The roles table beside the hierarchy editor."""
        self.attributes_panel = AttributesPanel(self.state, self.hier_actions, runner=self.runner)
        self.hierarchy_editor = HierarchyEditorPanel(self.state, self.hier_actions)
        attributes_tab = QSplitter(Qt.Orientation.Horizontal)
        attributes_tab.addWidget(self.attributes_panel)
        attributes_tab.addWidget(self.hierarchy_editor)
        # the roles table's six columns need about 800 pixels in French or German; the tree editor
        # takes the rest (its two-row toolbar needs less than 450)
        attributes_tab.setSizes([810, 410])
        attributes_tab.setStretchFactor(0, 3)
        attributes_tab.setStretchFactor(1, 2)
        self.attributes_tab = attributes_tab
        return attributes_tab

    def _make_history_dock(self) -> None:
        """The run history, docked on the right."""
        self.history = RunHistoryPanel(self.state)
        dock = QDockWidget(_("Run history"), self)
        dock.setObjectName("RunHistoryDock")
        dock.setWidget(self.history)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        self.history_dock = dock
        self.resizeDocks([dock], [215], Qt.Orientation.Horizontal)

    def _init_engine_state(self) -> None:
        #: table sources no longer shown, closed when no task uses them (:meth:`_retire`)
        self._retired: list[Any] = []
        #: the engine settings the open data was opened with (a change of them may open it again)
        self._opened_with: EngineSettings | None = None
        #: one task at a time uses a table source's engine (a DuckDB connection is not shared by threads)
        self.engine_lock = threading.Lock()

    # --- building ------------------------------------------------------------------------------------
    def _make_status_bar(self) -> None:
        bar = self.statusBar()
        self.status_label = QLabel(_("Ready."))
        self.status_label.setObjectName("StatusLine")
        self.progress = QProgressBar()
        self.progress.setObjectName("RunProgress")
        self.progress.setRange(0, 1000)
        self.progress.setMinimumWidth(170)  # room for "Best: DM 1,234,567" (anytime searches)
        self.progress.setMaximumWidth(260)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QPushButton(icon("cancel"), _("Cancel"))
        self.cancel_button.setObjectName("CancelButton")
        self.cancel_button.setToolTip(_("Stop the running task (Esc)"))
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)

    def _action(
        self,
        text: str,
        slot: Callable[..., Any],
        shortcut: QKeySequence | str | None = None,
        tip: str = "",
        icon_name: str = "",
    ) -> QAction:
        a = QAction(icon(icon_name) if icon_name else icon(""), text, self)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setToolTip(tip)
            a.setStatusTip(tip)
        a.triggered.connect(lambda _checked=False: slot())
        self.addAction(a)
        return a

    def _make_actions(self) -> None:
        std = QKeySequence.StandardKey
        self.open_action = self._action(
            _("&Open…"),
            self.open_dialog,
            std.Open,
            _("Open a data file (CSV, Excel, Parquet) or a kanon project."),
            "open",
        )
        self.sample_action = self._action(
            _("Open the &sample"), self.open_sample, None, _("Open the bundled sample project."), "kanon"
        )
        self.save_action = self._action(
            _("&Save project"),
            self.save,
            std.Save,
            _("Save the project (roles, hierarchies, settings)."),
            "save",
        )
        self.save_as_action = self._action(_("Save project &as…"), self.save_as, "Ctrl+Shift+S")
        self.export_action = self._action(
            _("&Export release / report…"),
            self.export,
            "Ctrl+E",
            _("Write the release and the de-identification report."),
            "export",
        )
        self.quit_action = self._action(_("&Quit"), self.close, std.Quit)
        self.undo_action = self.state.undo_stack.createUndoAction(self, _("&Undo"))
        self.undo_action.setShortcut(QKeySequence(std.Undo))
        self.redo_action = self.state.undo_stack.createRedoAction(self, _("&Redo"))
        self.redo_action.setShortcuts(
            list({k.toString(): k for k in (QKeySequence("Ctrl+Shift+Z"), QKeySequence(std.Redo))}.values())
        )
        for a, word in ((self.undo_action, _("Undo")), (self.redo_action, _("Redo"))):
            a.setIconText(word)  # the toolbar says "Undo"; the Edit menu and the tooltip say what
            self.addAction(a)
        self.run_action = self._action(
            _("&Run"), self.run, "Ctrl+R", _("Anonymize with the chosen algorithm."), "run"
        )
        self.cancel_action = self._action(
            _("&Cancel"), self.cancel, "Esc", _("Stop the running task."), "cancel"
        )
        self.load_folder_action = self._action(
            _("Load hierarchies from &folder…"),
            lambda: self.hier_actions.load_folder_dialog(self),
            None,
            _("Load every ARX file named like 'hierarchy_<column>.csv'."),
        )
        self.tab_actions = []
        for i in range(self.tabs.count()):
            name = self.tabs.tabText(i).split("  ", 1)[-1]  # "&&" stays: a menu shows it as "&"
            self.tab_actions.append(
                self._action(
                    _("Go to {name}", name=name), lambda i=i: self.tabs.setCurrentIndex(i), f"Ctrl+{i + 1}"
                )
            )
        self.glossary_action = self._action(_("&Glossary"), self.show_glossary, std.HelpContents)
        self.about_action = self._action(_("&About kanon"), self.show_about)

    def _make_menus(self) -> None:
        mb = self.menuBar()
        file_menu = mb.addMenu(_("&File"))
        file_menu.addAction(self.open_action)
        file_menu.addAction(self.sample_action)
        self.recent_menu = file_menu.addMenu(_("Open &recent"))
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addSeparator()
        file_menu.addAction(self.save_action)
        file_menu.addAction(self.save_as_action)
        file_menu.addSeparator()
        file_menu.addAction(self.export_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit = mb.addMenu(_("&Edit"))
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        hier = mb.addMenu(_("&Hierarchies"))
        hier.addAction(self.load_folder_action)
        run = mb.addMenu(_("&Run"))
        run.addAction(self.run_action)
        run.addAction(self.cancel_action)
        view = mb.addMenu(_("&View"))
        for a in self.tab_actions:
            view.addAction(a)
        view.addSeparator()
        view.addAction(self.history_dock.toggleViewAction())
        add_language_menu(self)
        help_menu = mb.addMenu(_("&Help"))
        help_menu.addAction(self.glossary_action)
        help_menu.addAction(self.about_action)
        tb = self.addToolBar(_("Main toolbar"))
        tb.setObjectName("MainToolbar")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.setMovable(False)
        for a in (
            self.open_action,
            self.save_action,
            None,
            self.undo_action,
            self.redo_action,
            None,
            self.run_action,
            self.cancel_action,
            None,
            self.export_action,
        ):
            if a is None:
                tb.addSeparator()
            else:
                tb.addAction(a)

    def _connect(self) -> None:
        s = self.state
        s.path_changed.connect(self._update_title)
        s.issues_changed.connect(self._update_enabled)
        s.project_changed.connect(self._update_enabled)
        s.current_run_changed.connect(self._current_run_changed)
        s.stale_changed.connect(self._show_stale)
        s.run_added.connect(lambda _i: self._runs_changed())
        s.table_changed.connect(self._table_changed)
        self.attributes_panel.column_selected.connect(self.hierarchy_editor.set_column)
        self.algorithm_panel.run_requested.connect(self.run)
        self.algorithm_panel.engine_box.changed.connect(self.set_engine)
        self.hier_actions.message.connect(lambda text, level: self.message_bar.show_message(text, level))
        self.data_panel.welcome.open_requested.connect(self.open_dialog)
        self.data_panel.welcome.sample_requested.connect(self.open_sample)
        self.data_panel.welcome.recent_requested.connect(self.open_path)
        self.results_panel.class_selected.connect(self.analysis_panel.select_class)
        self.analysis_panel.rows_selected.connect(self._analysis_rows)
        self.analysis_panel.class_selected.connect(self._analysis_class)
        self.analysis_panel.apply_node_requested.connect(self.apply_node)
        self.analysis_panel.rerun_requested.connect(lambda: self.run(show=self.analysis_panel))
        self.risk_panel.row_requested.connect(self._show_record)
        self.tabs.currentChanged.connect(self._tab_changed)
        r = self.runner
        r.started.connect(self._task_started)
        r.progress.connect(self._task_progress)
        r.cancelled.connect(self._on_cancelled)
        r.busy_changed.connect(lambda _b: self._update_enabled())
        r.busy_changed.connect(self._role_task_ended)
        r.busy_changed.connect(lambda busy: None if busy else self._close_retired())

    # --- helpers -------------------------------------------------------------------------------------
    def show_error(self, exc: BaseException, context: str = "") -> None:
        """An engine error as a plain message in the message bar; anything else opens the crash dialog."""
        log_error(exc, context)
        if is_expected(exc) or isinstance(exc, OSError | MemoryError):
            level = "info" if isinstance(exc, Cancelled) else "error"
            self.message_bar.show_message(error_text(exc), level, error_title(exc) + ":")
            self.status_label.setText(error_title(exc) + ".")
        else:
            import sys

            sys.excepthook(type(exc), exc, exc.__traceback__)

    def show_message(self, text: str, level: str = "info") -> None:
        self.message_bar.show_message(text, level)

    def _update_title(self) -> None:
        path = self.state.project_path
        t = self.state.table
        name = path.name if path else (t.name() if t is not None else "")
        dirty = "*" if self.state.is_dirty() else ""
        self.setWindowTitle(f"{name}{dirty} \u2014 kanon" if name else "kanon")

    def _update_enabled(self) -> None:
        busy = self.runner.is_busy()
        has_table = self.state.table is not None
        blocker = self.state.run_blocker()
        self.run_action.setEnabled(not busy and blocker is None)
        self.run_action.setToolTip(
            _("Anonymize with the chosen algorithm (Ctrl+R).")
            if blocker is None
            else _("Run is disabled: {reason}", reason=blocker)
        )
        self.algorithm_panel.set_run_enabled(
            not busy and blocker is None, _("a task is running.") if busy and blocker is None else blocker
        )
        self.cancel_action.setEnabled(busy)
        self.cancel_button.setVisible(busy)
        self.save_action.setEnabled(has_table)
        self.save_as_action.setEnabled(has_table)
        self.export_action.setEnabled(self.state.current_run is not None)
        self.load_folder_action.setEnabled(has_table)

    # --- opening -------------------------------------------------------------------------------------
    def open_dialog(self) -> None:
        """The file dialog starts in the folder of the data being worked on (or the last one used)."""
        path, _unused = QFileDialog.getOpenFileName(
            self, _("Open data or project"), str(self.data_folder()), _(DATA_FILTER)
        )
        if path:
            self.open_path(path)

    def confirm_discard(self, action: str) -> bool:
        """Before ``action`` replaces the project: Save / Discard / Cancel when it has unsaved changes.
        True when the action may go on (saved, or the user chose to discard)."""
        if not self.ask_before_close or not self.state.is_dirty():
            return True
        name = self.state.project_path.name if self.state.project_path else text_of(TEXT, "untitled")
        answer = QMessageBox.question(
            self,
            text_of(TEXT, "unsaved_title"),
            text_of(TEXT, "unsaved_before", action=action, name=name),
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def open_path(self, path: str | Path) -> None:
        """Open a project (``.json``) or a data file (through the import dialog), after asking whether
        to save unsaved changes of the current project."""
        path = Path(path)
        if not self.confirm_discard(text_of(TEXT, "action_open", name=path.name)):
            return
        if path.suffix.lower() == ".json":
            self.open_project(path)
            return
        from kanon_gui.dialogs.import_dialog import ImportDialog

        dialog = ImportDialog(path, self, engine_line_for(path, self.state.project.engine))
        dialog.accepted.connect(
            lambda: self.load_data(path, dialog.options(), dialog.type_overrides(), dialog.join_box.joins())
        )
        dialog.open()
        self.import_dialog = dialog

    def open_sample(self) -> None:
        path = sample_project()
        if not path.exists():
            self.message_bar.show_message(
                _("The bundled sample is missing ({path}); reinstall kanon.", path=path), "error"
            )
            return
        if self.confirm_discard(text_of(TEXT, "action_open", name=text_of(TEXT, "the_sample"))):
            self.open_project(path)

    def load_data(
        self,
        path: str | Path,
        options: ReadOptions | None = None,
        overrides: dict[str, tuple[ColumnKind, str | None]] | None = None,
        joins: list[Any] | None = None,
    ) -> int:
        """Read a data file in the background; the table replaces the current one when done (with the
        patient tables of ``joins`` joined on, :mod:`kanon_engine.data.join`). A file
        beyond this computer's memory (or any file, when the engine settings name DuckDB or Dask) is not
        loaded: it is opened as a table source, profiled by the engine, and shown as a preview."""
        path = Path(path)
        settings = self.state.project.engine
        said: list[str] = []

        def work(progress: Callable[[float, str], None]) -> OpenedData:
            loaded = session.open_data(path, options, settings, overrides, progress)
            if not joins:
                return loaded
            # linked tables: the patient table's columns beside every stay (kanon_engine.data.join)
            table, said[:] = Project(joins=tuple(joins)).joined(loaded.table)
            return OpenedData(table, analyze_table(table))

        def done(loaded: OpenedData) -> None:
            self._end_task()
            old = self.state.table
            table = loaded.table
            self.state.set_table(table, loaded.facts, overrides, loaded.preview, loaded.sampled)
            self._opened_with = settings
            self._retire(old)
            self.project_password = None
            appdata.add_recent_file(path)
            if joins:
                self.state.set_joins(joins)
            text = " ".join([self._loaded_text(path.name, table), *said])
            self.message_bar.show_message(text, "warning" if said else "info")
            self.tabs.setCurrentIndex(self.TAB_DATA)

        self._begin_task(_("Reading {file}…", file=path.name), busy=True)
        self._load_task = self.runner.submit(
            work,
            channel="load",
            label=f"load {path.suffix}",
            on_done=done,
            on_error=self._task_failed("load"),
        )
        return self._load_task

    def _loaded_text(self, name: str, table: Any) -> str:
        """What the message bar says once a data file is open (a preview, for a file not loaded)."""
        key = "opened_streamed" if is_streamed(table) else "loaded"
        return text_of(TEXT, key, name=name, n_rows=table.n_rows, n=len(table.columns))

    def reopen_data(self) -> int | None:
        """Open the data again on the engine the settings now choose (the project is kept; the runs of
        this session are closed with their tables)."""
        t = self.state.table
        if t is None or t.source is None or self.runner.is_busy():
            return None
        project = self.state.project.with_changes(data_path=t.source, read_options=t.options)
        settings = project.engine

        def work(progress: Callable[[float, str], None]) -> OpenedData:
            return session.open_project_data(project, progress)[0]

        def done(loaded: OpenedData) -> None:
            self._end_task()
            old = self.state.table
            self.state.replace_table(loaded.table, loaded.facts, loaded.preview, loaded.sampled)
            self._opened_with = settings
            self._retire(old)
            self.message_bar.show_message(
                _(
                    "{name} was opened again with the new engine settings. {engine}",
                    name=loaded.table.name(),
                    engine=engine_sentence(loaded.table),
                ),
                "info",
            )

        LOG.info("reopen the data on engine %s", settings.engine)
        self._begin_task(_("Opening {file} again…", file=t.name()), busy=True)
        self._load_task = self.runner.submit(
            work, channel="load", label="reopen", on_done=done, on_error=self._task_failed("load")
        )
        return self._load_task

    def set_engine(self, settings: EngineSettings) -> int | None:
        """Keep the engine settings in the project, and open the data again when they change how it is
        read (another engine, or DuckDB's memory limit or temporary folder)."""
        self.state.set_engine(settings)
        t = self.state.table
        if t is None or t.source is None or not self._needs_reopen(t, settings):
            return None
        if self.runner.is_busy():
            self.message_bar.show_message(
                _("The engine settings apply once the running task is done: press Cancel, or wait."),
                "warning",
            )
            return None
        return self.reopen_data()

    def _needs_reopen(self, table: Any, settings: EngineSettings) -> bool:
        try:
            engine = engine_for(table.source, settings)
        except KanonError:
            return False
        current = table.engine if is_streamed(table) else "memory"
        if engine != current:
            return True
        opened = self._opened_with or EngineSettings()
        if engine == "duckdb":
            return (settings.memory_limit, settings.temp_dir) != (opened.memory_limit, opened.temp_dir)
        if engine == "dask":
            return (settings.scheduler, settings.workers) != (opened.scheduler, opened.workers)
        return False

    def _retire(self, table: Any) -> None:
        """A table source the state no longer holds: closed (its temporary files removed) once no task
        uses it any more."""
        if is_streamed(table) and table is not self.state.table:
            self._retired.append(table)
            self._close_retired()

    def _retire_all(self) -> None:
        """Close every table source (the window closes): their temporary files are patient data."""
        if is_streamed(self.state.table):
            self._retired.append(self.state.table)
        self._close_retired()

    def _close_retired(self) -> None:
        if self.runner.is_busy():
            return
        while self._retired:
            self._retired.pop().close()

    def ask_password(self, path: Path, error: PasswordError) -> str | None:
        """The password of a protected project (None when the user cancels); a wrong one is said."""
        text = text_of(TEXT, "password_ask", name=path.name)
        if not error.missing:
            text = text_of(TEXT, "password_wrong", name=path.name)
        password, ok = QInputDialog.getText(
            self, text_of(TEXT, "password_title"), text, QLineEdit.EchoMode.Password
        )
        return password if ok and password else None

    def data_folder(self) -> Path:
        """Where file dialogs start: the folder of the data (or project) being worked on, else the
        last folder used, else the user's documents."""
        t = self.state.table
        for candidate in (
            self.state.project_path.parent if self.state.project_path else None,
            t.source.parent if t is not None and t.source is not None else None,
            Path(appdata.recent_files()[0]).parent if appdata.recent_files() else None,
        ):
            if candidate is not None and candidate.is_dir() and not appdata.inside_app(candidate):
                return candidate
        return appdata.documents_folder()

    def open_project(self, path: str | Path, password: str | None = None) -> int | None:
        """Open a project file (asking for its password when it is protected); its data is read and its
        saved runs are rebuilt in the background."""
        path = Path(path)
        try:
            project = Project.load(path, password)
        except PasswordError as exc:
            password = self.ask_password(path, exc)
            return None if password is None else self.open_project(path, password)
        except KanonError as exc:
            self.show_error(exc, "open project")
            return None

        def work(progress: Callable[[float, str], None]) -> LoadedProject:
            return session.open_project(project, progress)

        def done(loaded: LoadedProject) -> None:
            self._end_task()
            table, warnings, facts = loaded.table, loaded.warnings, loaded.facts
            old = self.state.table
            self.state.set_project(project, table, path, warnings, facts, loaded.preview, loaded.sampled)
            self._opened_with = project.engine
            self._retire(old)
            self.project_password = password
            for result, summary in loaded.restored:
                self.state.add_restored_run(result, summary)
            self.history.set_note(not_rebuilt_text(list(loaded.not_restored)))
            appdata.add_recent_file(path)
            if warnings:
                self.message_bar.show_message(" ".join(warnings), "warning")
            elif is_streamed(table):
                self.message_bar.show_message(self._loaded_text(path.name, table), "info")
            else:
                self.message_bar.show_message(
                    _(
                        "Opened {name}: {n_rows} rows of {name2}.",
                        name=path.name,
                        n_rows=table.n_rows,
                        name2=table.name(),
                    ),
                    "info",
                )
            self.tabs.setCurrentIndex(self.TAB_ATTRIBUTES)
            if is_streamed(table) and project.runs:
                self._rebuild_streamed_runs(project, table, facts)

        self._begin_task(_("Opening {file}…", file=path.name), busy=True)
        self._load_task = self.runner.submit(
            work,
            channel="load",
            label="open project",
            on_done=done,
            on_error=self._task_failed("open project"),
        )
        return self._load_task

    def _rebuild_streamed_runs(self, project: Project, table: Any, facts: TableFacts) -> int:
        """Rebuild the saved runs of a project whose data is read by DuckDB or Dask, through the engine,
        in the background (a pass over the file for each): the history says so meanwhile, then shows
        them, or in one sentence why a run could not be rebuilt."""
        engine = engine_name(table.engine)
        self.history.set_note(_("Rebuilding the saved runs through {engine}…", engine=engine))

        def work(progress: Callable[[float, str], None]) -> tuple:
            with self.engine_lock:  # one task at a time on the engine's connection
                return session.rebuild_saved_runs(project, table, facts, progress)

        def done(found: tuple) -> None:
            self._end_task()
            if self.state.table is not table:
                return  # another file was opened meanwhile
            restored, why = found
            for result, summary in restored:
                self.state.add_restored_run(result, summary)
            self.history.set_note(not_rebuilt_text(why))

        def cancelled() -> None:
            if self.state.table is table:
                self.history.set_note(
                    _("The saved runs were not rebuilt: cancelled. Run again to see results.")
                )

        def failed(exc: BaseException) -> None:
            self._task_failed("restore")(exc)
            if self.state.table is table:
                self.history.set_note(not_rebuilt_text([error_text(exc)]))

        self._begin_task(_("Rebuilding the saved runs through {engine}…", engine=engine))
        return self.runner.submit(
            work,
            channel="restore",
            label="restore",
            on_done=done,
            on_error=failed,
            on_cancel=cancelled,
        )

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = appdata.recent_files()
        if not files:
            self.recent_menu.addAction(_("(none)")).setEnabled(False)
        for f in files:
            a = self.recent_menu.addAction(f.replace("&", "&&"))  # a "&" in a path is not a shortcut
            a.triggered.connect(lambda _=False, f=f: self.open_path(f))

    # --- saving --------------------------------------------------------------------------------------
    def save(self) -> bool:
        path = self.state.project_path
        if path is None or path.resolve() == sample_project().resolve():
            return self.save_as()
        return self.save_to(path)

    def save_as(self) -> bool:
        """Ask where to save (saying that a project holds patient values) and whether to protect the
        file with a password; then save."""
        from kanon_gui.dialogs.save_project_dialog import SaveProjectDialog

        t = self.state.table
        folder = self.data_folder()
        name = f"{t.source.stem}.kanon.json" if t is not None and t.source else "project.kanon.json"
        dialog = SaveProjectDialog(folder / name, self.project_password is not None, self)
        self.save_dialog = dialog
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        path, password = dialog.choice()
        return self.save_to(path, password)

    def save_to(self, path: str | Path, password: str | None | bool = True) -> bool:
        """Save the project atomically to ``path`` (readable by the user only); ``password`` seals it
        (True: keep the current protection, None: none). A plain message if it cannot be written."""
        if self.state.table is None:
            return False
        if password is True:
            password = self.project_password
        try:
            self.state.save(Path(path), password or None)
        except (KanonError, OSError) as exc:
            self.show_error(exc, "save project")
            return False
        self.project_password = password or None
        appdata.add_recent_file(path)
        self.status_label.setText(_("Project saved to {name}.", name=Path(path).name))
        return True

    def autosave(self) -> Path | None:
        """Copy the project to the app data folder (not the user's file): a crash never loses work."""
        if self.state.table is None:
            return None
        target = appdata.autosave_path()
        try:
            project = self.state.snapshot_project()
            t = self.state.table
            project.with_changes(data_path=t.source, data_sha256=t.sha256, read_options=t.options).save(
                target,
                self.project_password,  # a protected project's copy is protected too
            )
        except (KanonError, OSError) as exc:
            log_error(exc, "autosave")
            return None
        return target

    # --- running -------------------------------------------------------------------------------------
    def run(self, show: QWidget | None = None) -> int | None:
        """Start the chosen algorithm on a frozen snapshot of the project, in the background; when it is
        done, the Results tab is shown (or ``show``: the lattice view's "Run again" stays there)."""
        if self.runner.is_busy("run"):
            return None
        try:
            request = self.state.run_request()
            algorithm = get_algorithm(request.algorithm, **request.params)
        except KanonError as exc:
            self.show_error(exc, "run")
            return None
        table, config = request.table, request.config

        def work(progress: Callable[[float, str], None]) -> AnonymizationResult:
            with self.engine_guard(table):
                return session.measure(session.run(table, config, algorithm, progress), table, None, progress)

        def done(result: AnonymizationResult) -> None:
            self._end_task()
            self.state.add_run(result, table=table)
            self.show_run_outcome(result)
            if show is None:
                self.tabs.setCurrentIndex(self.TAB_RESULTS)
            else:
                self.tabs.setCurrentWidget(show)
            self.autosave()

        self.message_bar.clear()
        self._begin_task(text_of(TEXT, "running", algorithm=algorithm_name(request.algorithm)))
        LOG.info("run %s with %s", request.algorithm, {k: v for k, v in request.params.items()})
        self._run_task = self.runner.submit(
            work, channel="run", label=request.label(), on_done=done, on_error=self._task_failed("run")
        )
        return self._run_task

    def show_run_outcome(self, result: AnonymizationResult) -> None:
        """What came out, and what makes the release of little use if anything does (a column lost to
        *, a handful of groups, most records suppressed), or that the settings changed meanwhile."""
        facts = result_facts(result)  # the release's own counts (kanon_engine.report.facts)
        figures = {
            "groups": facts["release"]["classes"],
            "smallest": facts["release"]["min_class_size"],
            "seconds": formats.decimal(result.runtime_seconds, 2, fixed=True),
        }
        kept = kept_in_words(facts, result.recoding is not None)
        done = text_of(TEXT, "run_done", kept=kept, **figures)
        if result.engine != "memory":  # which engine ran and why, where the user looks first
            done = f"{done} {result_engine_sentence(result)}"
        warnings = [i.message for i in result_warnings(result, facts)]
        if self.state.is_stale():
            warnings.insert(0, text_of(TEXT, "run_stale"))
        if warnings:
            self.message_bar.show_message(" ".join([done, *warnings]), "warning")
        else:
            self.message_bar.show_message(done, "info")

    def apply_node(self, levels: Any) -> int | None:
        """Apply one lattice node of the current run (a click in the lattice view) and add it as a run."""
        current = self.state.current_run
        if current is None:
            return None
        result, table = current.result, current.table
        vector = tuple(int(x) for x in (levels.values() if isinstance(levels, dict) else levels))

        def work(progress: Callable[[float, str], None]) -> AnonymizationResult:
            with self.engine_guard(table):
                return session.measure(session.apply_node(result, table, vector, progress), table)

        def done(res: AnonymizationResult) -> None:
            self._end_task()
            label = text_of(TEXT, "levels_label", number=self.state.next_run_number(), levels=vector)
            self.state.add_run(res, label=label, table=table)

        self._begin_task(_("Applying levels {vector}…", vector=vector), busy=True)
        return self.runner.submit(
            work, channel="apply", label="apply node", on_done=done, on_error=self._task_failed("apply")
        )

    def engine_guard(self, table: Any) -> Any:
        """What a task holds while it works on ``table``: the engine's connection, one task at a time,
        for a source not loaded whole; nothing for a table in memory."""
        return self.engine_lock if is_streamed(table) else contextlib.nullcontext()

    def cancel(self) -> None:
        """Cancel whatever runs; the engine stops at its next progress call."""
        if self.runner.is_busy():
            self.runner.cancel()
            self.status_label.setText(_("Cancelling…"))

    def _task_failed(self, context: str) -> Callable[[BaseException], None]:
        def failed(exc: BaseException) -> None:
            self._end_task()
            self.show_error(exc, context)

        return failed

    def _begin_task(self, text: str, busy: bool = False) -> None:
        self.status_label.setText(text)
        self.progress.setRange(0, 0 if busy else 1000)
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self._update_enabled()

    def _end_task(self) -> None:
        if not self.runner.is_busy():
            self.progress.hide()
            self.cancel_button.hide()
        self.status_label.setText(_("Ready."))
        self._update_enabled()

    def _task_started(self, _tid: int, channel: str, _label: str) -> None:
        """A column counted or prepared before its role changes (a large column, in a worker), or the
        Utility tab's classifiers: the progress bar and Cancel show, as for a run; they go when it is done."""
        if channel.startswith(SHOWN_CHANNELS):
            self._role_task = True
            self._begin_task(self.status_label.text(), busy=channel.startswith("prepare:"))

    def _role_task_ended(self, busy: bool) -> None:
        if not busy and self._role_task:
            self._role_task = False
            self._end_task()

    def _task_progress(self, _tid: int, channel: str, fraction: float, message: str) -> None:
        if channel in ("run", "restore", "utility") or channel.startswith("count:"):
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * max(0.0, min(1.0, fraction))))
            quality = best_so_far(message)  # an anytime search: show the best release found so far
            self.progress.setFormat(
                formats.percent(fraction, 0) if quality is None else _("Best: {quality}", quality=quality)
            )
            self.progress.setToolTip("" if quality is None else message)
        self.status_label.setText(message[:1].upper() + message[1:] if message else "")

    def _on_cancelled(self, _tid: int, channel: str) -> None:
        self._end_task()
        self.status_label.setText(_("Cancelled."))
        self.message_bar.show_message(
            _("The run was cancelled; nothing was changed.")
            if channel == "run"
            else _("The task was cancelled; nothing was changed."),
            "info",
        )

    # --- reacting to the state -----------------------------------------------------------------------
    def _table_changed(self) -> None:
        self.results_panel.show_run(None)
        self._runs_changed()
        self.message_bar.clear()  # a message about the previous file no longer applies
        if self.state.table is not None:
            cols = self.state.columns
            first = cols[0] if cols else ""
            self.attributes_panel.select_column(first)
            self.hierarchy_editor.set_column(first)  # even when the selection stayed on the same row

    def _runs_changed(self) -> None:
        self._schedule_views()
        self._update_enabled()

    def _show_stale(self) -> None:
        """Every view of the current run says whether it is out of date."""
        stale = self.state.current_run is not None and self.state.is_stale()
        for view in (self.results_panel, self.analysis_panel, self.risk_panel):
            view.set_stale(stale)

    def _current_run_changed(self, index: int) -> None:
        self.results_panel.show_run(self.state.current_run)
        self._show_stale()
        self._schedule_views()
        self._update_enabled()

    def _schedule_views(self) -> None:
        """Bring the run views up to date with the current run: the one on screen in a later event-loop
        turn (so the end of a run never blocks the GUI thread; coalesced when asked twice), the others
        when their tab is shown (:meth:`_tab_changed`)."""
        self._stale_views = set(range(len(self.run_views)))
        if not self._views_pending:
            self._views_pending = True
            QTimer.singleShot(0, self._sync_visible_view)

    def _tab_changed(self, _index: int) -> None:
        self._sync_visible_view()

    def _sync_visible_view(self) -> None:
        self._views_pending = False
        current = self.tabs.currentWidget()
        for i, view in enumerate(self.run_views):
            if view is current and i in self._stale_views:
                self._stale_views.discard(i)
                view.show_run(self.state.current_run)
                view.set_stale(self.state.current_run is not None and self.state.is_stale())

    def _analysis_rows(self, rows: Any) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        n = len(rows)
        self.results_panel.show_rows(
            rows,
            ngettext(
                "{n} record selected in the analysis view", "{n} records selected in the analysis view", n
            ),
        )
        self.status_label.setText(
            ngettext(
                "{n} record selected: see it in the Results tab.",
                "{n} records selected: see them in the Results tab.",
                n,
            )
        )

    def _show_record(self, row: int) -> None:
        """Show one input record in the Results grids when the user asks for it in the risk view."""
        if self.tabs.currentWidget() is not self.risk_panel or self.state.current_run is None:
            return
        self.results_panel.show_rows(np.array([int(row)], dtype=np.int64), _("Record {n}", n=int(row) + 1))
        self.status_label.setText(_("Record {n} is shown in the Results tab.", n=int(row) + 1))

    def _analysis_class(self, class_id: int) -> None:
        self.results_panel.select_class(int(class_id))

    # --- export and help -----------------------------------------------------------------------------
    def export(self) -> None:
        run = self.state.current_run
        if run is None:
            self.message_bar.show_message(
                _("Run an anonymization first: there is no release to export yet."), "warning"
            )
            return
        dialog = ExportDialog(
            self,
            run.table,
            self.state.project,
            run.result,
            self.state.project_path,
            run_label=run.label,
            stale=self.state.is_stale(),
            on_details=self.state.set_report_details,
            population_size=self.risk_panel.population_box.population(),
        )
        self.export_dialog = dialog
        dialog.open()

    def show_glossary(self) -> None:
        """Every term of the field in one scrollable window (not a message box: it grows with the
        terms, and stays open beside the work)."""
        from PySide6.QtWidgets import QDialog, QTextBrowser

        dialog = QDialog(self)
        dialog.setWindowTitle(_("Glossary"))
        dialog.setObjectName("GlossaryDialog")
        text = QTextBrowser()
        text.setHtml(glossary_html())
        layout = QVBoxLayout(dialog)
        layout.addWidget(text)
        dialog.resize(640, 560)
        dialog.show()
        self.glossary_dialog = dialog

    def show_about(self) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Information,
            _("About kanon"),
            _(
                "kanon turns a table of patient records into a provably k-anonymous release.\nLog and "
                "autosave folder: {app_data_dir}",
                app_data_dir=appdata.app_data_dir(),
            ),
            QMessageBox.StandardButton.Close,
            self,
        )
        box.open()

    # --- closing -------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.confirm_discard(text_of(TEXT, "action_close")):
            event.ignore()
            return
        self._autosave.stop()
        self.runner.shutdown()
        self._retire_all()
        appdata.settings().setValue("window/geometry", self.saveGeometry())
        event.accept()

    def _restore_geometry(self) -> None:
        """The size and place the window had when it was last closed (a sensible size the first time)."""
        saved = appdata.settings().value("window/geometry")
        if saved is None or not self.restoreGeometry(saved):
            fit_window(self, QSize(1360, 860))  # shrunk to a laptop's screen (1366x768, 1280x800)
        else:
            keep_on_screen(self)
