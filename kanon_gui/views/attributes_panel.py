"""The attributes panel: a role per column (engine suggestions pre-filled and explained), the hierarchy
each column uses, and the validation messages that concern the selected column.

Role changes go through :meth:`AppState.set_role` (undoable with Ctrl+Z); the panel redraws itself from
the state on every change, so undo/redo and the hierarchy editor stay in step with it.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data.roles import Role
from kanon_engine.validation import PreparedHierarchy, prepare_hierarchy
from kanon_gui.glossary import ROLE_COLORS, ROLE_LABELS, role_tooltip, term
from kanon_gui.resources import icon
from kanon_gui.state import AppState
from kanon_gui.tasks import TaskRunner
from kanon_gui.views.hierarchy_actions import HierarchyActions

ROLES = (Role.IDENTIFIER, Role.QUASI_IDENTIFIER, Role.SENSITIVE, Role.INSENSITIVE)
COLS = ("Column", "Role", "Type", "Distinct", "Hierarchy", "Check")


def role_icon(role: Role) -> QIcon:
    pix = QPixmap(12, 12)
    pix.fill(ROLE_COLORS[role])
    return QIcon(pix)


class AttributesPanel(QWidget):
    """Table of columns with their role and hierarchy; ``column_selected(name)`` when a row is picked."""

    column_selected = Signal(str)

    def __init__(
        self,
        state: AppState,
        actions: HierarchyActions,
        parent: QWidget | None = None,
        runner: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.actions = actions
        self.runner = runner
        self._refreshing = False
        self._current = ""
        layout = QVBoxLayout(self)
        intro = QLabel(
            "Give every column a role. <b>Quasi-identifiers</b> are generalized using their hierarchy; "
            "<b>identifiers</b> are removed; <b>sensitive</b> values are kept and can be protected by "
            "l-diversity or t-closeness. Hover a role for its meaning."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.table = QTableWidget(0, len(COLS))
        self.table.setObjectName("AttributesTable")
        self.table.setHorizontalHeaderLabels(list(COLS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setStretchLastSection(True)
        for i, w in enumerate((110, 140, 92, 60, 112)):
            self.table.setColumnWidth(i, w)
        self.table.horizontalHeaderItem(1).setToolTip("\n".join(term(r.value) for r in ROLES))
        self.table.itemSelectionChanged.connect(self._selection_changed)
        layout.addWidget(self.table, 1)

        buttons = QHBoxLayout()
        self.import_button = QPushButton(icon("open"), "Import ARX CSV\u2026")
        self.import_button.setToolTip("Read the selected column's hierarchy from an ARX hierarchy file.")
        self.import_button.clicked.connect(lambda: self.actions.import_arx(self, self._current))
        self.build_button = QPushButton(icon("hierarchy"), "Build with wizard\u2026")
        self.build_button.setToolTip(
            "Build the selected column's hierarchy: intervals, dates, masking or grouping, with a preview."
        )
        self.build_button.clicked.connect(lambda: self.actions.build(self, self._current))
        self.default_button = QPushButton("Use default")
        self.default_button.setToolTip("Go back to the automatic hierarchy for the column's type.")
        self.default_button.clicked.connect(lambda: self.actions.use_default(self._current))
        self.folder_button = QPushButton("Load folder\u2026")
        self.folder_button.setToolTip("Load every ARX file named like 'hierarchy_<column>.csv' in a folder.")
        self.folder_button.clicked.connect(lambda: self.actions.load_folder_dialog(self))
        for b in (self.import_button, self.build_button, self.default_button, self.folder_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout.addLayout(buttons)

        self.details = QLabel()
        self.details.setObjectName("AttributeDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.details.setMinimumHeight(90)
        layout.addWidget(self.details)

        state.table_changed.connect(self.rebuild)
        state.project_changed.connect(self.refresh)
        state.issues_changed.connect(self.refresh)
        self._enable_buttons()

    # --- building ------------------------------------------------------------------------------------
    def rebuild(self) -> None:
        """One row per column of the newly loaded table."""
        self._refreshing = True
        try:
            cols = self.state.columns
            self.table.setRowCount(len(cols))
            for r, name in enumerate(cols):
                item = QTableWidgetItem(name)
                item.setData(Qt.ItemDataRole.UserRole, name)
                self.table.setItem(r, 0, item)
                combo = QComboBox()
                combo.setObjectName(f"role:{name}")
                for role in ROLES:
                    combo.addItem(role_icon(role), ROLE_LABELS[role], role.value)
                    combo.setItemData(combo.count() - 1, role_tooltip(role), Qt.ItemDataRole.ToolTipRole)
                combo.currentIndexChanged.connect(lambda _i, c=name, w=combo: self._role_picked(c, w))
                self.table.setCellWidget(r, 1, combo)
                for c in (2, 3, 4, 5):
                    self.table.setItem(r, c, QTableWidgetItem(""))
        finally:
            self._refreshing = False
        self.refresh()
        if cols:
            self.select_column(self._current if self._current in cols else cols[0])

    def refresh(self) -> None:
        """Redraw roles, hierarchy descriptions and check marks from the state."""
        t = self.state.table
        if t is None or self.table.rowCount() != len(t.columns):
            return
        self._refreshing = True
        try:
            for r, name in enumerate(t.columns):
                role = self.state.role(name)
                combo: QComboBox = self.table.cellWidget(r, 1)  # type: ignore[assignment]
                combo.setCurrentIndex(ROLES.index(role))
                s = self.state.suggestion(name)
                combo.setToolTip(role_tooltip(role) + (f"\nSuggestion: {s.reason}" if s and s.role else ""))
                ct = t.column_types.get(name)
                self.table.item(r, 2).setText(ct.kind.value if ct else "")
                self.table.item(r, 3).setText(f"{ct.distinct:,}" if ct else "")
                self.table.item(r, 4).setText(self._hierarchy_text(name, role))
                issues = self.state.issues_for(name)
                check = self.table.item(r, 5)
                if any(i.is_error for i in issues):
                    check.setText("\u2716 fix")
                    check.setForeground(ROLE_COLORS[Role.IDENTIFIER])
                elif issues:
                    check.setText("\u26a0 check")
                    check.setForeground(Qt.GlobalColor.darkYellow)
                else:
                    check.setText("\u2714" if role == Role.QUASI_IDENTIFIER else "")
                    check.setForeground(Qt.GlobalColor.darkGreen)
                check.setToolTip("\n".join(i.message for i in issues))
                self.table.item(r, 0).setForeground(ROLE_COLORS[role])
        finally:
            self._refreshing = False
        self._show_details()
        self._enable_buttons()

    def _hierarchy_text(self, name: str, role: Role) -> str:
        if role not in (Role.QUASI_IDENTIFIER, Role.SENSITIVE) and not self.state.has_explicit_hierarchy(
            name
        ):
            return ""
        explicit = self.state.has_explicit_hierarchy(name)
        if role == Role.SENSITIVE and not explicit:
            return ""
        h = self.state.hierarchy(name)
        if h is None:
            return ""
        source = "custom" if explicit else "default"
        if explicit and name in self.state.project.hierarchy_files:
            source = Path(self.state.project.hierarchy_files[name]).name
        return f"height {h.height} ({source})"

    # --- interaction ---------------------------------------------------------------------------------
    def _role_picked(self, column: str, combo: QComboBox) -> None:
        if self._refreshing:
            return
        role = Role(combo.currentData())
        if (
            role in (Role.QUASI_IDENTIFIER, Role.SENSITIVE)
            and self.runner is not None
            and self.state.needs_preparation(column)
        ):
            self._prepare_then_set(column, role)
            return
        self.state.set_role(column, role)
        self.select_column(column)

    def _prepare_then_set(self, column: str, role: Role) -> None:
        """A column with very many values: build and check its hierarchy in a worker, then set the role
        (the GUI stays responsive; the combo box shows the new role meanwhile)."""
        args = self.state.preparation_args(column)
        self.details.setText(f"Preparing the hierarchy of '{escape(column)}' ({len(args[1]):,} values)\u2026")

        def done(prepared: PreparedHierarchy) -> None:
            self.state.adopt(prepared)
            self.state.set_role(column, role)
            self.select_column(column)

        self.runner.submit(
            lambda progress: prepare_hierarchy(*args),
            channel=f"prepare:{column}",
            label="prepare hierarchy",
            on_done=done,
            on_error=lambda exc: self.refresh(),
        )

    def set_role(self, column: str, role: Role) -> None:
        """Pick a role as the user would with the combo box."""
        r = self.state.columns.index(column)
        combo: QComboBox = self.table.cellWidget(r, 1)  # type: ignore[assignment]
        combo.setCurrentIndex(ROLES.index(Role(role)))

    def select_column(self, column: str) -> None:
        if column in self.state.columns:
            self.table.selectRow(self.state.columns.index(column))

    def _selection_changed(self) -> None:
        rows = {i.row() for i in self.table.selectedIndexes()}
        if not rows:
            return
        name = self.table.item(min(rows), 0).data(Qt.ItemDataRole.UserRole)
        if name != self._current:
            self._current = name
            self.column_selected.emit(name)
        self._show_details()
        self._enable_buttons()

    def _enable_buttons(self) -> None:
        has = bool(self._current) and self.state.table is not None
        for b in (self.import_button, self.build_button):
            b.setEnabled(has)
        self.default_button.setEnabled(has and self.state.has_explicit_hierarchy(self._current))
        self.folder_button.setEnabled(self.state.table is not None)

    def _show_details(self) -> None:
        name = self._current
        if not name or name not in self.state.columns:
            self.details.setText("")
            return
        role = self.state.role(name)
        parts = [
            f"<b>{escape(name)}</b>: <span style='color:{ROLE_COLORS[role].name()}'>"
            f"{ROLE_LABELS[role]}</span> \u2014 {escape(role_tooltip(role))}"
        ]
        s = self.state.suggestion(name)
        if s is not None:
            parts.append(f"<i>{escape(s.reason)}</i>")
        for i in self.state.issues_for(name):
            color = "#c0392b" if i.is_error else "#b7791f"
            mark = "\u2716" if i.is_error else "\u26a0"
            parts.append(f"<span style='color:{color}'>{mark} {escape(i.message)}</span>")
        self.details.setText("<br>".join(parts))
