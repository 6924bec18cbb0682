"""The user's application data folder: log file, settings (recent files) and the autosave copy.

Everything the workbench writes on its own goes under ``QStandardPaths.AppDataLocation`` (tests switch
it to a throw-away folder with ``QStandardPaths.setTestModeEnabled(True)``). The log records what was
done (files opened, runs and their parameters, error kinds and tracebacks) and never a patient value:
engine error messages quote data values, so only their kind and class are logged.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

LOG = logging.getLogger("kanon_gui")
MAX_RECENT = 8
_handler: logging.Handler | None = None


#: A folder to use instead of ``AppDataLocation``: ``--self-test`` points it into its temporary folder, so
#: that opening the window there leaves nothing (settings, window size) in the user's profile.
APP_DATA_ENV = "KANON_APP_DATA_DIR"


def app_data_dir() -> Path:
    """``AppDataLocation`` (created if needed); falls back to ``~/.kanon`` if Qt gives no location."""
    loc = os.environ.get(APP_DATA_ENV) or QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.AppDataLocation
    )
    path = Path(loc) if loc else Path.home() / ".kanon"
    path.mkdir(parents=True, exist_ok=True)
    return path


def documents_folder() -> Path:
    """The user's documents folder (home when the system names none): where dialogs start when
    nothing better is known."""
    loc = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(loc) if loc and Path(loc).is_dir() else Path.home()


def inside_app(folder: Path) -> bool:
    """The app's own folder (the bundled sample): never a place to write into or to start dialogs."""
    from kanon_gui.resources import resources_dir

    try:
        Path(folder).resolve().relative_to(resources_dir().resolve())
    except ValueError:
        return False
    return True


def autosave_path() -> Path:
    """Where the project is copied every few minutes and after each run (a crash never loses it)."""
    return app_data_dir() / "autosave.kanon.json"


def settings() -> QSettings:
    """The settings file in the app data folder (an INI file: readable, and isolated in tests)."""
    return QSettings(str(app_data_dir() / "settings.ini"), QSettings.Format.IniFormat)


def recent_files() -> list[str]:
    """Recently opened data and project files, newest first, only those that still exist."""
    value = settings().value("recent_files", [])
    if isinstance(value, str):
        value = [value]
    return [str(p) for p in (value or []) if Path(str(p)).exists()]


def add_recent_file(path: Path | str) -> list[str]:
    """Put ``path`` first in the recent files list; returns the new list."""
    path = str(Path(path).resolve())
    files = [path] + [p for p in recent_files() if p != path]
    files = files[:MAX_RECENT]
    s = settings()
    s.setValue("recent_files", files)
    s.sync()
    return files


def setup_logging(level: int = logging.INFO) -> Path:
    """Log to ``kanon.log`` in the app data folder (rotated at 1 MB, 3 files kept); returns its path."""
    global _handler
    path = app_data_dir() / "kanon.log"
    if _handler is None:
        _handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=1_000_000, backupCount=3, encoding="utf-8"
        )
        _handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        for name in ("kanon_gui", "kanon_engine"):
            logger = logging.getLogger(name)
            logger.addHandler(_handler)
            logger.setLevel(level)
    return path
