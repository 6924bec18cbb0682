"""The attributes panel: a role per column (engine suggestions pre-filled and explained), the hierarchy
each column uses, and the validation messages that concern the selected column.

Role changes go through :meth:`AppState.set_role` (undoable with Ctrl+Z); the panel redraws itself from
the state on every change, so undo/redo and the hierarchy editor stay in step with it.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data.roles import Role
from kanon_engine.i18n import N_, _, formats
from kanon_engine.project.validation import date_issues_of, prepare_hierarchy
from kanon_engine.session.profile import count_column
from kanon_gui.glossary import ROLE_COLORS, kind_label, role_label, role_tooltip, term
from kanon_gui.models.hierarchy_model import keep_prepared, prepare_view
from kanon_gui.resources import icon
from kanon_gui.state import AppState
from kanon_gui.tasks import TaskRunner
from kanon_gui.views.hierarchy_actions import HierarchyActions

ROLES = (Role.IDENTIFIER, Role.QUASI_IDENTIFIER, Role.SENSITIVE, Role.INSENSITIVE, Role.PERSON)
COLS = (N_("Column"), N_("Role"), N_("Type"), N_("Distinct"), N_("Hierarchy"), N_("Check"))


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
            _(
                "Give every column a role. <b>Quasi-identifiers</b> are generalized using their "
                "hierarchy; <b>identifiers</b> are removed; <b>sensitive</b> values are kept and can be "
                "protected by l-diversity or t-closeness. Hover a role for its meaning."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.table = QTableWidget(0, len(COLS))
        self.table.setObjectName("AttributesTable")
        self.table.setHorizontalHeaderLabels([_(c) for c in COLS])
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

        # two rows of two: the German labels ("Mit Assistent erstellen…") would otherwise make the
        # Attributes tab wider than a 1280-pixel screen
        buttons = QGridLayout()
        self.import_button = QPushButton(icon("open"), _("Import ARX CSV…"))
        self.import_button.setToolTip(_("Read the selected column's hierarchy from an ARX hierarchy file."))
        self.import_button.clicked.connect(lambda: self.actions.import_arx(self, self._current))
        self.build_button = QPushButton(icon("hierarchy"), _("Build with wizard…"))
        self.build_button.setToolTip(
            _("Build the selected column's hierarchy: intervals, dates, masking or grouping, with a preview.")
        )
        self.build_button.clicked.connect(lambda: self.actions.build(self, self._current))
        self.default_button = QPushButton(_("Use default"))
        self.default_button.setToolTip(_("Go back to the automatic hierarchy for the column's type."))
        self.default_button.clicked.connect(lambda: self.actions.use_default(self._current))
        self.folder_button = QPushButton(_("Load folder…"))
        self.folder_button.setToolTip(
            _("Load every ARX file named like 'hierarchy_<column>.csv' in a folder.")
        )
        self.folder_button.clicked.connect(lambda: self.actions.load_folder_dialog(self))
        for i, b in enumerate(
            (self.import_button, self.build_button, self.default_button, self.folder_button)
        ):
            buttons.addWidget(b, i // 2, i % 2)
        buttons.setColumnStretch(2, 1)
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
                    combo.addItem(role_icon(role), role_label(role), role.value)
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
                suggestion = "\n" + _("Suggestion: {reason}", reason=s.reason) if s and s.role else ""
                combo.setToolTip(role_tooltip(role) + suggestion)
                ct = t.column_types.get(name)
                self.table.item(r, 2).setText(kind_label(ct.kind) if ct else "")
                distinct = formats.count(ct.distinct) if ct else ""
                if ct and self.state.is_sampled(name):  # counted in the first rows of a large file only
                    distinct = _("≥ {n}", n=distinct)
                self.table.item(r, 3).setText(distinct)
                height, source = self._hierarchy_text(name, role)
                self.table.item(r, 4).setText(height)
                self.table.item(r, 4).setToolTip(source)
                issues = self.state.issues_for(name)
                check = self.table.item(r, 5)
                if any(i.is_error for i in issues):
                    check.setText(_("✖ fix"))
                    check.setForeground(ROLE_COLORS[Role.IDENTIFIER])
                elif issues:
                    check.setText(_("⚠ check"))
                    check.setForeground(Qt.GlobalColor.darkYellow)
                else:
                    check.setText("\u2714" if role == Role.QUASI_IDENTIFIER else "")
                    check.setForeground(Qt.GlobalColor.darkGreen)
                check.setToolTip("\n".join(i.message for i in issues))
                self.table.item(r, 0).setForeground(ROLE_COLORS[role])
        finally:
            self._refreshing = False
        self._fit_columns()
        self._show_details()
        self._enable_buttons()

    def _fit_columns(self) -> None:
        """Columns as wide as their header and cells in the current language (German runs about a
        third longer than English), so no header, role or hierarchy text is cut."""
        head = self.table.horizontalHeader().fontMetrics()
        cells = self.table.fontMetrics()
        for c in range(self.table.columnCount() - 1):
            header = self.table.horizontalHeaderItem(c)
            width = head.horizontalAdvance(header.text() if header else "") + 24
            if c == 1:  # the role combo: icon, longest role name, arrow
                width = max(width, max(cells.horizontalAdvance(role_label(r)) for r in ROLES) + 64)
            for r in range(self.table.rowCount()):
                item = self.table.item(r, c)
                if item is not None:
                    width = max(width, cells.horizontalAdvance(item.text()) + 16)
            self.table.setColumnWidth(c, width)

    def _hierarchy_text(self, name: str, role: Role) -> tuple[str, str]:
        """(``height 4``, where the hierarchy comes from): the height in the cell, the source (a file
        name can be long) in its tooltip."""
        if role not in (Role.QUASI_IDENTIFIER, Role.SENSITIVE) and not self.state.has_explicit_hierarchy(
            name
        ):
            return "", ""
        explicit = self.state.has_explicit_hierarchy(name)
        if role == Role.SENSITIVE and not explicit:
            return "", ""
        h = self.state.hierarchy(name)
        if h is None:
            return "", ""
        source = _("custom") if explicit else _("default")
        if explicit and name in self.state.project.hierarchy_files:
            source = Path(self.state.project.hierarchy_files[name]).name
        return _("height {height}", height=h.height), _(
            "height {height} ({source})", height=h.height, source=source
        )

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
        """A column with very many values: build and check its hierarchy and its dates in a worker, then
        set the role (the GUI stays responsive; the combo box shows the new role meanwhile, and goes
        back to the old one on Cancel). A column of a large file that was only sampled is first counted
        whole."""
        if self.state.is_sampled(column):
            self._count_then_set(column, role)
            return
        args = self.state.preparation_args(column)
        table, typed = self.state.table, tuple(self.state.project.column_types)
        self.details.setText(
            _("Preparing the hierarchy of '{column}' ({n} values)…", column=escape(column), n=len(args[1]))
        )

        def work(progress: Any) -> tuple:
            progress(0.0, _("preparing the hierarchy of '{column}'", column=column))
            prepared = prepare_hierarchy(*args)
            progress(0.4, _("checking the dates of '{column}'", column=column))
            dates = date_issues_of(table, column, typed)
            progress(0.8, _("preparing the hierarchy of '{column}'", column=column))
            return prepared, dates, prepare_view(prepared.hierarchy, args[1])

        def done(found: tuple) -> None:
            prepared, dates, view = found
            keep_prepared(view)  # the hierarchy editor shows it without building it
            self.state.adopt(prepared)
            self.state.adopt_dates(table, column, dates)
            self.state.set_role(column, role)
            self.select_column(column)

        self.runner.submit(
            work,
            channel=f"prepare:{column}",
            label="prepare hierarchy",
            on_done=done,
            on_error=lambda exc: self.refresh(),
            on_cancel=self._cancelled,
        )

    def _count_then_set(self, column: str, role: Role) -> None:
        """Count every value of a sampled column of a large file (a pass over the file, in a worker),
        then go on as for any column with many values; Cancel leaves the column as it was."""
        source = self.state.table
        typed = column in self.state.project.column_types
        self.details.setText(
            _("Counting every value of '{column}' in {file}…", column=escape(column), file=source.name())
        )

        def done(counts: Any) -> None:
            if self.state.table is not source:
                return  # another file was opened meanwhile
            self.state.adopt_counts(column, counts)
            if self.state.needs_preparation(column):
                self._prepare_then_set(column, role)
                return
            self.state.set_role(column, role)
            self.select_column(column)

        self.runner.submit(
            lambda progress: count_column(source, column, progress, typed),
            channel=f"count:{column}",
            label="count a column",
            on_done=done,
            on_error=lambda exc: self.refresh(),
            on_cancel=self._cancelled,
        )

    def _cancelled(self) -> None:
        """A role change cancelled while its column was counted or prepared: the old role shows again."""
        self.refresh()
        self._show_details()

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
        role_words = f"<span style='color:{ROLE_COLORS[role].name()}'>{role_label(role)}</span>"
        parts = [
            _(
                "{column}: {message}",
                column=f"<b>{escape(name)}</b>",
                message=f"{role_words} — {escape(role_tooltip(role))}",
            )
        ]
        s = self.state.suggestion(name)
        if s is not None:
            parts.append(f"<i>{escape(s.reason)}</i>")
        for i in self.state.issues_for(name):
            color = "#c0392b" if i.is_error else "#b7791f"
            mark = "\u2716" if i.is_error else "\u26a0"
            parts.append(f"<span style='color:{color}'>{mark} {escape(i.message)}</span>")
        self.details.setText("<br>".join(parts))
