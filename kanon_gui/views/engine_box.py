"""The engine settings of the Anonymize tab: where the rows are counted and the release written (in memory,
DuckDB for files larger than memory, Dask on a cluster), DuckDB's memory limit and temporary folder.

The form is generated from the engine's :data:`~kanon_engine.sources.backends.settings.ENGINE_PARAMS` (the
same
specs make the command line's ``--engine``, ``--memory-limit``, ``--temp-dir`` flags and check the project
file's ``engine`` section), so the three always agree. Below it, one line says which engine reads the
open data and why.
"""

from __future__ import annotations

import tempfile

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from kanon_engine.errors import KanonError
from kanon_engine.i18n import _, formats
from kanon_engine.session.engines import engine_sentence
from kanon_engine.sources.backends.duckdb_source import default_memory_limit
from kanon_engine.sources.backends.settings import ENGINE_PARAMS, EngineSettings
from kanon_gui.state import AppState
from kanon_gui.views.param_form import ParamForm

#: Milliseconds the form waits after the last keystroke before the settings are applied (a memory limit
#: is typed a character at a time; the data is opened again only once).
SETTLE_MS = 700


def _size(mib: str) -> str:
    """DuckDB's ``4096MiB`` as 4.0 GB."""
    return f"{formats.decimal(int(mib[:-3]) / 1024, 1, fixed=True)} GB"


class EngineBox(QGroupBox):
    """The engine settings (kept in the project file); ``changed(EngineSettings)`` once an edit settles."""

    changed = Signal(object)

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(_("Engine (large files)"), parent)
        self.setObjectName("EngineBox")
        self.state = state
        self.form = ParamForm(ENGINE_PARAMS)
        layout = QVBoxLayout(self)
        hint = QLabel(
            _(
                "Files too large for this computer's memory are read by DuckDB without loading them; "
                "you may also choose the engine yourself. Changing it opens the data again."
            )
        )
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #555;")
        layout.addWidget(hint)
        layout.addWidget(self.form)
        self.form.fields["memory_limit"].setPlaceholderText(
            _("a quarter of this computer's memory ({size})", size=_size(default_memory_limit()))
        )
        self.form.fields["temp_dir"].setPlaceholderText(
            _("the system's temporary folder ({folder})", folder=tempfile.gettempdir())
        )
        self.form.fields["scheduler"].setPlaceholderText(_("a local cluster on this computer's cores"))
        self.form.fields["workers"].setPlaceholderText(_("one per core"))
        row = QHBoxLayout()
        row.addStretch(1)
        self.browse = QPushButton(_("Choose the temporary folder…"))
        self.browse.clicked.connect(self._choose_folder)
        row.addWidget(self.browse)
        layout.addLayout(row)
        self.current = QLabel()
        self.current.setObjectName("EngineNow")
        self.current.setWordWrap(True)
        self.current.setStyleSheet("color: #2c5282;")
        layout.addWidget(self.current)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self._settled)
        self.form.changed.connect(lambda _values: self._edited())
        state.project_changed.connect(self.load_from_state)
        state.table_changed.connect(self.show_current)
        self.load_from_state()

    def settings(self) -> EngineSettings | None:
        """The settings of the form; None while a value is invalid (its message shows under it)."""
        try:
            return EngineSettings.from_dict(self.form.values())
        except KanonError:
            return None

    def load_from_state(self) -> None:
        """Show the project's settings (after opening a project, or an undo)."""
        if self._timer.isActive():
            return  # the user is typing: the project follows the form, not the other way
        settings = self.state.project.engine
        if self.settings() != settings:
            self.form.set_values({k: v for k, v in settings.to_dict().items()})
        self._update_visibility()
        self.show_current()

    def show_current(self) -> None:
        """Which engine reads the open data, and why."""
        t = self.state.table
        self.current.setText(engine_sentence(t) if t is not None else "")
        self.browse.setEnabled(True)

    def _update_visibility(self) -> None:
        engine = self.form.values().get("engine") or "auto"
        for name in ("memory_limit", "temp_dir"):
            self.form.set_visible_param(name, engine in ("auto", "duckdb"))
        self.browse.setVisible(engine in ("auto", "duckdb"))
        for name in ("scheduler", "workers"):
            self.form.set_visible_param(name, engine == "dask")

    def _edited(self) -> None:
        self._update_visibility()
        self._timer.start()

    def _settled(self) -> None:
        settings = self.settings()
        if settings is not None:
            self.changed.emit(settings)

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, _("Temporary folder for DuckDB"))
        if folder:
            self.form.set_value("temp_dir", folder)
