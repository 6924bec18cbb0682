"""Hierarchy assignment actions shared by the attributes panel and the hierarchy editor: import an ARX
CSV, load a folder of ARX files, export, build with the wizard, back to the default.

Each action has a dialog-free core taking a path (used by tests and the screenshot mode) and a thin
wrapper that asks for the path with a file dialog. Errors from the engine are reported through
``message`` (shown inline by the main window), never raised into Qt.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from kanon_engine.errors import KanonError
from kanon_engine.hierarchy import read_arx_csv, write_arx_csv
from kanon_engine.i18n import N_, _
from kanon_gui.errors import error_text, log_error
from kanon_gui.state import AppState

ARX_FILTER = N_("ARX hierarchy (*.csv *.txt);;All files (*)")


class HierarchyActions(QObject):
    """Assign hierarchies to columns through :class:`AppState` (every assignment is undoable).

    ``message(text, level)`` reports the outcome ("Loaded 8 hierarchies ...", or an engine error).
    """

    message = Signal(str, str)

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.last_dir = ""

    # --- cores (no dialogs) --------------------------------------------------------------------------
    def import_arx_file(self, column: str, path: str | Path) -> bool:
        """Read an ARX CSV as the hierarchy of ``column``; True on success."""
        try:
            h = read_arx_csv(Path(path), column)
        except KanonError as exc:
            log_error(exc, "import hierarchy")
            self.message.emit(error_text(exc), "error")
            return False
        self.state.note_input(path, _("the hierarchy file imported for '{column}'", column=column))
        self.state.set_hierarchy(
            column,
            h,
            _("Import the hierarchy of '{column}' from {name}", column=column, name=Path(path).name),
        )
        issues = [i for i in self.state.issues_for(column) if i.is_error]
        if issues:
            self.message.emit(issues[0].message, "warning")
        else:
            self.message.emit(
                _(
                    "Hierarchy of '{column}' imported from {name} (height {height}, {n} values).",
                    column=column,
                    name=Path(path).name,
                    height=h.height,
                    n=len(h.values),
                ),
                "info",
            )
        return True

    def load_folder(self, folder: str | Path) -> list[str]:
        """Load every ARX file of ``folder`` whose name ends in ``hierarchy_<column>.csv`` (ARX's naming,
        e.g. ``adult_hierarchy_age.csv``) or is ``<column>.csv``, as one undoable step; returns the
        columns that got a hierarchy."""
        folder = Path(folder)
        found = {}
        columns = set(self.state.columns)
        for path in sorted(folder.glob("*.csv")):
            m = re.search(r"hierarchy_(.+)\.csv$", path.name)
            col = m.group(1) if m else path.stem
            if col in columns:
                found[col] = path
        if not found:
            self.message.emit(
                _(
                    "No hierarchy file in {name} matches a column (expected names like "
                    "'adult_hierarchy_age.csv' or 'age.csv').",
                    name=folder.name,
                ),
                "warning",
            )
            return []
        loaded = {}
        failed = []
        for col, path in found.items():
            try:
                loaded[col] = read_arx_csv(path, col)
                self.state.note_input(path, _("the hierarchy file imported for '{column}'", column=col))
            except KanonError as exc:
                log_error(exc, "load hierarchy folder")
                failed.append(error_text(exc))
        if loaded:
            self.state.set_hierarchies(
                loaded, _("Load {n} hierarchies from {name}", n=len(loaded), name=folder.name)
            )
        text = _(
            "Loaded {n} hierarchies from {name}: {values}.",
            n=len(loaded),
            name=folder.name,
            values=", ".join(sorted(loaded)),
        )
        if failed:
            text += " " + _("Not loaded: {files}", files=" ".join(failed))
        self.message.emit(text, "warning" if failed else "info")
        return sorted(loaded)

    def export_arx_file(self, column: str, path: str | Path) -> bool:
        h = self.state.hierarchy(column)
        if h is None:
            return False
        try:
            write_arx_csv(h, Path(path))
        except KanonError as exc:
            self.message.emit(error_text(exc), "error")
            return False
        except OSError as exc:
            self.message.emit(error_text(exc), "error")
            return False
        self.message.emit(
            _("Hierarchy of '{column}' written to {name}.", column=column, name=Path(path).name), "info"
        )
        return True

    def use_default(self, column: str) -> None:
        """Back to the default hierarchy for the column's type (undoable)."""
        if self.state.has_explicit_hierarchy(column):
            self.state.set_hierarchy(
                column, None, _("Use the default hierarchy for '{column}'", column=column)
            )

    # --- with dialogs ---------------------------------------------------------------------------------
    def import_arx(self, parent: QWidget, column: str) -> None:
        path, _unused = QFileDialog.getOpenFileName(
            parent, _("Import the hierarchy of '{column}'", column=column), self.last_dir, _(ARX_FILTER)
        )
        if path:
            self.last_dir = str(Path(path).parent)
            self.import_arx_file(column, path)

    def load_folder_dialog(self, parent: QWidget) -> None:
        folder = QFileDialog.getExistingDirectory(parent, _("Folder with ARX hierarchy files"), self.last_dir)
        if folder:
            self.last_dir = folder
            self.load_folder(folder)

    def export_arx(self, parent: QWidget, column: str) -> None:
        start = (
            str(Path(self.last_dir) / f"hierarchy_{column}.csv")
            if self.last_dir
            else f"hierarchy_{column}.csv"
        )
        path, _unused = QFileDialog.getSaveFileName(
            parent, _("Export the hierarchy of '{column}'", column=column), start, _(ARX_FILTER)
        )
        if path:
            self.last_dir = str(Path(path).parent)
            self.export_arx_file(column, path)

    def build(self, parent: QWidget, column: str) -> None:
        """Open the builder wizard for ``column``; the built hierarchy is assigned when accepted."""
        from kanon_gui.dialogs.hierarchy_wizard import HierarchyWizardDialog

        if self.state.table is None:
            return
        dialog = HierarchyWizardDialog(self.state, column, parent)
        dialog.accepted.connect(lambda: self._built(column, dialog))
        dialog.open()

    def _built(self, column: str, dialog) -> None:
        h = dialog.hierarchy()
        if h is not None:
            self.state.set_hierarchy(
                column,
                h,
                _(
                    "Build the hierarchy of '{column}' ({kind_label})",
                    column=column,
                    kind_label=dialog.kind_label(),
                ),
            )
            self.message.emit(
                _(
                    "Hierarchy of '{column}' built: {kind_label}, height {height}.",
                    column=column,
                    kind_label=dialog.kind_label(),
                    height=h.height,
                ),
                "info",
            )
