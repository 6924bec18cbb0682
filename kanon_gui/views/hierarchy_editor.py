"""The hierarchy tree editor: the selected column's hierarchy as a tree (root ``*`` down to the data
values), with rename, move (drag and drop), merge, delete and add-group edits, the builder wizard, ARX
CSV import/export, and the data values the hierarchy does not cover, placeable in one action.

Every edit is a pure function of :mod:`kanon_engine.hierarchy.tree` producing a new Hierarchy, assigned
through :meth:`AppState.set_hierarchy`, so it lands on the undo stack (Ctrl+Z / Ctrl+Shift+Z). An edit
the engine refuses (it would give a label two parents, an empty name, ...) shows the engine's message
inline and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QSplitter,
    QToolBar,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data.roles import Role
from kanon_engine.errors import KanonError
from kanon_engine.hierarchy import tree, uncovered_values
from kanon_engine.hierarchy.labels import shown_label
from kanon_engine.hierarchy.model import MISSING, Hierarchy
from kanon_engine.i18n import _, formats, ngettext
from kanon_gui.errors import error_text
from kanon_gui.glossary import term
from kanon_gui.models.hierarchy_model import HierarchyTreeModel, Node, prepared_view
from kanon_gui.resources import icon
from kanon_gui.state import AppState
from kanon_gui.views.hierarchy_actions import HierarchyActions

#: Trees with at most this many nodes open fully; larger ones open their top two levels.
EXPAND_ALL_LIMIT = 400
#: A group with more children than this is not opened by itself (a column of millions of distinct values
#: under one ``*``: the view would make a row for each before showing anything).
EXPAND_CHILDREN_LIMIT = 5_000
#: Level-1 groups listed in the "Place under" box (more can be typed).
PLACE_TARGETS = 2000


_shown = shown_label  # the missing leaf and the group of missing values, in the interface's words


#: Pixels a text tool button adds around its words (margins and frame), to tell whether a row fits.
TOOL_BUTTON_PADDING = 16

#: Marks a tree that must be rebuilt whatever the state holds (a new column or a new table).
_NOTHING_SHOWN = object()


class HierarchyEditorPanel(QWidget):
    """Edits the hierarchy of one column at a time (:meth:`set_column`)."""

    def __init__(self, state: AppState, actions: HierarchyActions, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.actions = actions
        self.column = ""
        self._shown: Hierarchy | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel(_("Select a column to see its hierarchy."))
        self.title.setObjectName("HierarchyTitle")
        self.title.setWordWrap(True)
        self.title.setToolTip(term("hierarchy"))
        layout.addWidget(self.title)
        # two rows: editing, then files (in one row, German words pushed Build and Import out of sight)
        self.toolbar = QToolBar()
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.file_toolbar = QToolBar()
        self.file_toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        # a narrow panel (1280x800, German) splits the editing row in two and shows the files' icons
        # only, instead of hiding actions behind the toolbar's "»"
        self.toolbar_more = QToolBar()
        self.toolbar_more.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toolbar_more.hide()
        layout.addWidget(self.toolbar)
        layout.addWidget(self.toolbar_more)
        layout.addWidget(self.file_toolbar)
        self._make_actions()

        split = QSplitter(Qt.Orientation.Vertical)
        self.model = HierarchyTreeModel(self)
        self.model.rename_requested.connect(self.rename)
        self.model.move_requested.connect(self._moved)
        self.view = QTreeView()
        self.view.setObjectName("HierarchyTree")
        self.view.setModel(self.model)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.view.setDragEnabled(True)
        self.view.setIndentation(14)  # deep hierarchies (a 9-level mask) keep room for their labels
        self.view.setAcceptDrops(True)
        self.view.setDropIndicatorShown(True)
        self.view.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.view.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.view.setUniformRowHeights(True)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.view.header().setStretchLastSection(False)
        for section, width in ((1, 70), (2, 80)):  # at least the header's words ("Enregistrements")
            words = self.model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
            need = self.view.header().fontMetrics().horizontalAdvance(str(words or "")) + 16
            self.view.header().resizeSection(section, max(width, need))
        self.view.selectionModel().selectionChanged.connect(lambda *_args: self._enable())
        split.addWidget(self.view)

        self._build_uncovered_box()
        split.addWidget(self.uncovered_box)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        layout.addWidget(split, 1)

        self.feedback = QLabel()
        self.feedback.setObjectName("HierarchyFeedback")
        self.feedback.setWordWrap(True)
        self.feedback.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.feedback)

        state.project_changed.connect(self.refresh)
        state.table_changed.connect(lambda: self.set_column(""))
        self._enable()

    def _build_uncovered_box(self) -> None:
        """The values of the data no group covers, and the buttons that place them under a group."""
        self.uncovered_box = QGroupBox(_("Data values not in this hierarchy"))
        ub = QVBoxLayout(self.uncovered_box)
        self.uncovered = QListWidget()
        self.uncovered.setObjectName("UncoveredValues")
        self.uncovered.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        ub.addWidget(self.uncovered)
        row = QHBoxLayout()
        row.addWidget(QLabel(_("Place under:")))
        self.place_target = QComboBox()
        self.place_target.setToolTip(_("A group of level 1; the values are added as its members."))
        row.addWidget(self.place_target, 1)
        self.place_selected = QPushButton(_("Place selected"))
        self.place_selected.clicked.connect(self._place_selected)
        self.place_all = QPushButton(_("Place all"))
        self.place_all.setToolTip(_("Add every uncovered value under the chosen group in one step."))
        self.place_all.clicked.connect(self._place_all)
        ub.addLayout(row)
        # the buttons on a row of their own: the German labels are long, and the editor shares the
        # tab with the attributes table
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.place_selected)
        buttons.addWidget(self.place_all)
        ub.addLayout(buttons)

    # --- fitting the toolbars -------------------------------------------------------------------------
    def _toolbar_width(self, actions: list[QAction], icons: bool) -> int:
        """The width a toolbar needs to show ``actions`` with their words (and icons)."""
        fm = self.fontMetrics()
        extra = TOOL_BUTTON_PADDING + (self.file_toolbar.iconSize().width() + 4 if icons else 0)
        return sum(fm.horizontalAdvance(a.text().replace("&", "")) + extra for a in actions) + 16

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_toolbars()

    def _fit_toolbars(self) -> None:
        """One editing row when it fits, else two; the files' words beside their icons when they fit."""
        edits = [self.rename_action, self.add_action, self.merge_action, self.delete_action]
        two_rows = self._toolbar_width(edits, False) > self.width()
        if two_rows != self.toolbar_more.isVisible():
            self.toolbar.clear()
            self.toolbar_more.clear()
            for i, a in enumerate(edits):
                (self.toolbar_more if two_rows and i >= 2 else self.toolbar).addAction(a)
            self.toolbar_more.setVisible(two_rows)
        files = [self.build_action, self.import_action, self.export_action]
        words = self._toolbar_width(files, True) <= self.width()
        self.file_toolbar.setToolButtonStyle(
            Qt.ToolButtonStyle.ToolButtonTextBesideIcon if words else Qt.ToolButtonStyle.ToolButtonIconOnly
        )

    # --- actions -------------------------------------------------------------------------------------
    def _action(
        self,
        text: str,
        slot: Callable[[], None],
        tip: str,
        shortcut: QKeySequence | str | None = None,
        icon_name: str | None = None,
    ) -> QAction:
        a = QAction(icon(icon_name) if icon_name else icon(""), text, self)
        a.setToolTip(tip)
        a.setStatusTip(tip)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        a.triggered.connect(slot)
        self.addAction(a)
        return a

    def _make_actions(self) -> None:
        self.rename_action = self._action(
            _("Rename"),
            self._rename_current,
            _("Rename the selected value or group (F2)."),
            QKeySequence(Qt.Key.Key_F2),
        )
        self.add_action = self._action(
            _("Group"),
            self._add_group_selected,
            _("Put the selected values or groups (same level) into a new group."),
        )
        self.merge_action = self._action(
            _("Merge"), self._merge_selected, _("Merge the selected groups into one.")
        )
        self.delete_action = self._action(
            _("Delete"),
            self._delete_selected,
            _("Delete the selected group (its members go to its parent) or value."),
            QKeySequence(QKeySequence.StandardKey.Delete),
        )
        self.build_action = self._action(
            _("Build…"),
            lambda: self.actions.build(self, self.column),
            _("Build this hierarchy with the wizard (intervals, dates, masking, grouping) with a preview."),
            icon_name="hierarchy",
        )
        self.import_action = self._action(
            _("Import…"),
            lambda: self.actions.import_arx(self, self.column),
            _("Import an ARX hierarchy CSV for this column."),
            icon_name="open",
        )
        self.export_action = self._action(
            _("Export…"),
            lambda: self.actions.export_arx(self, self.column),
            _("Export this hierarchy as an ARX CSV."),
            icon_name="export",
        )
        self.expand_action = self._action(_("Expand all"), self.view_expand_all, _("Expand every group."))
        self.collapse_action = self._action(
            _("Collapse all"), lambda: self.view.collapseAll(), _("Collapse every group.")
        )
        for a in (self.rename_action, self.add_action, self.merge_action, self.delete_action):
            self.toolbar.addAction(a)
        for a in (self.build_action, self.import_action, self.export_action):
            self.file_toolbar.addAction(a)

    def _context_menu(self, pos) -> None:
        menu = QMenu(self)
        for a in (
            self.rename_action,
            self.add_action,
            self.merge_action,
            self.delete_action,
            None,
            self.expand_action,
            self.collapse_action,
            None,
            self.build_action,
            self.import_action,
            self.export_action,
        ):
            if a is None:
                menu.addSeparator()
            else:
                menu.addAction(a)
        menu.popup(self.view.viewport().mapToGlobal(pos))

    def view_expand_all(self) -> None:
        self.view.expandAll()

    # --- content -------------------------------------------------------------------------------------
    def set_column(self, column: str) -> None:
        """Show the hierarchy of ``column`` ("" shows nothing)."""
        self.column = column if column in self.state.columns else ""
        self._shown = _NOTHING_SHOWN  # rebuild even when the new column has no hierarchy (clears the tree)
        self.refresh()

    def hierarchy(self) -> Hierarchy | None:
        """The hierarchy shown: the column's own, or its default when the column is a quasi-identifier or
        sensitive (other columns need none, and a default for an identifier column could be huge)."""
        if not self.column:
            return None
        if self.state.has_explicit_hierarchy(self.column) or self.state.role(self.column) in (
            Role.QUASI_IDENTIFIER,
            Role.SENSITIVE,
        ):
            return self.state.hierarchy(self.column)
        return None

    def refresh(self) -> None:
        """Rebuild the tree from the state when the shown hierarchy changed (keeps expanded groups)."""
        h = self.hierarchy()
        if h is not self._shown:
            expanded = [n.path() for n in self.model.expanded_nodes(self.view)]
            first = self._shown is None or self._shown is _NOTHING_SHOWN
            self.model.set_hierarchy(h, self.state.distinct(self.column) if h is not None else None)
            self._shown = h
            if first or not expanded:
                self._expand_top()
            else:
                for path in expanded:
                    idx = self.model.find(path)
                    if idx.isValid():
                        self.view.expand(idx)
            self._fill_uncovered(h)
        self._update_title(h)
        self._enable()

    def _expand_top(self) -> None:
        """Open everything for small trees; the root and its children for large ones (expanding is per
        node, so a tree of 100,000 values opens as fast as a small one)."""
        if self.model.node_count() <= EXPAND_ALL_LIMIT:
            self.view.expandAll()
            return
        for node in self.model.top_nodes():
            if node.n_children > EXPAND_CHILDREN_LIMIT:  # the view would lay out every child
                continue
            self.view.expand(self.model.index_of(node))
            for child in node.first_children(50):
                if child.n_children <= EXPAND_CHILDREN_LIMIT:
                    self.view.expand(self.model.index_of(child))

    def _update_title(self, h: Hierarchy | None) -> None:
        if h is None:
            if self.column:
                self.title.setText(
                    _(
                        "<b>'{column}'</b> is not a quasi-identifier, so it needs no hierarchy. Mark it "
                        "as a quasi-identifier to see its default hierarchy, or use Build / Import.",
                        column=escape(self.column),
                    )
                )
            else:
                self.title.setText(_("Select a column in the list to see and edit its hierarchy."))
            self.feedback.setText("")
            return
        role = self.state.role(self.column)
        source = _("custom") if self.state.has_explicit_hierarchy(self.column) else _("default (automatic)")
        levels = " \u2192 ".join(formats.count(h.distinct_at(j)) for j in range(h.depth))
        note = (
            ""
            if role in (Role.QUASI_IDENTIFIER, Role.SENSITIVE)
            else " <i>" + _("(not used in runs: the column is not a quasi-identifier)") + "</i>"
        )
        self.title.setText(
            _(
                "<b>Hierarchy of '{column}'</b> — {source}, height {height}; distinct labels per level: "
                "{levels}{note}",
                column=escape(self.column),
                source=source,
                height=h.height,
                levels=levels,
                note=note,
            )
        )
        issues = self.state.issues_for(self.column)
        if issues and not self.feedback.property("sticky"):
            self.feedback.setText(
                "<br>".join(
                    f"<span style='color:{'#c0392b' if i.is_error else '#b7791f'}'>{escape(i.message)}</span>"
                    for i in issues
                )
            )
        elif not self.feedback.property("sticky"):
            self.feedback.setText(
                "<span style='color:#2f855a'>\u2714 "
                + _("The hierarchy covers every value of the column and is a tree.")
                + "</span>"
                if role == Role.QUASI_IDENTIFIER
                else ""
            )
        self.feedback.setProperty("sticky", False)

    def _fill_uncovered(self, h: Hierarchy | None) -> None:
        self.uncovered.clear()
        self.place_target.clear()
        if h is None:
            self.uncovered_box.setTitle(_("Data values not in this hierarchy"))
            self.uncovered_box.setVisible(False)
            return
        counts = self.state.distinct(self.column)
        kept = prepared_view(h, counts)  # made in a worker for a column of very many values
        missing = (
            kept.uncovered
            if kept is not None
            else uncovered_values(h, self.state.distinct_values(self.column))
        )
        for v in missing[:5000]:
            n = int(counts.get(v, 0)) if v != MISSING else int(counts[counts.index.isna()].sum())
            item = QListWidgetItem(
                ngettext("{values}  ({n} record)", "{values}  ({n} records)", n, values=_shown(v))
            )
            item.setData(Qt.ItemDataRole.UserRole, v)
            self.uncovered.addItem(item)
        self.uncovered_box.setTitle(_("Data values not in this hierarchy: {n}", n=len(missing)))
        if h.height >= 1:
            groups = h.level_codes[1][1]
            for label in groups[:PLACE_TARGETS]:
                self.place_target.addItem(_shown(label), label)
            # past the cap the box is editable: type the group's name
            self.place_target.setEditable(len(groups) > PLACE_TARGETS)
        self.uncovered_box.setVisible(bool(missing))

    def uncovered_list(self) -> list[str]:
        return [self.uncovered.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.uncovered.count())]

    # --- edits (dialog-free cores, also used by tests) ------------------------------------------------
    def _apply(self, text: str, edit: Callable[[Hierarchy], Hierarchy]) -> bool:
        h = self.hierarchy()
        if h is None:
            return False
        try:
            new = edit(h)
        except KanonError as exc:
            self._say(error_text(exc), error=True)
            return False
        if new is h:
            return False
        self.state.set_hierarchy(
            self.column, new, _("{text} (hierarchy of '{column}')", text=text, column=self.column)
        )
        return True

    def _say(self, text: str, error: bool = False) -> None:
        color = "#c0392b" if error else "#2f855a"
        self.feedback.setText(f"<span style='color:{color}'>{escape(text)}</span>")
        self.feedback.setProperty("sticky", True)

    def rename(self, level: int, old: str, new: str) -> bool:
        return self._apply(
            _("Rename '{old}' to '{new}'", old=old, new=new), lambda h: tree.rename_group(h, level, old, new)
        )

    def move(self, level: int, label: str, new_parent: str) -> bool:
        return self._apply(
            _("Move '{label}' under '{new_parent}'", label=label, new_parent=new_parent),
            lambda h: tree.move_node(h, level, label, new_parent),
        )

    def _moved(self, items: list[tuple[int, str]], new_parent: str) -> None:
        def edit(h: Hierarchy) -> Hierarchy:
            for level, label in items:
                h = tree.move_node(h, level, label, new_parent)
            return h

        names = ", ".join(f"'{label}'" for _unused, label in items)
        self._apply(_("Move {names} under '{new_parent}'", names=names, new_parent=new_parent), edit)

    def merge(self, level: int, labels: Sequence[str], new_label: str) -> bool:
        return self._apply(
            _("Merge {n} groups into '{new_label}'", n=len(labels), new_label=new_label),
            lambda h: tree.merge_groups(h, level, list(labels), new_label),
        )

    def delete(self, level: int, label: str) -> bool:
        return self._apply(
            _("Delete '{values}'", values=_shown(label)), lambda h: tree.delete_group(h, level, label)
        )

    def add_group(self, level: int, parent_label: str, new_label: str, members: Sequence[str]) -> bool:
        return self._apply(
            _("Add the group '{new_label}'", new_label=new_label),
            lambda h: tree.add_group(h, level, parent_label, new_label, list(members)),
        )

    def place(self, values: Sequence[str], group: str) -> bool:
        n = len(values)
        ok = self._apply(
            ngettext("Place {n} value under '{group}'", "Place {n} values under '{group}'", n, group=group),
            lambda h: tree.place_values(h, list(values), group),
        )
        if ok:
            self._say(
                ngettext(
                    "Placed {n} value under '{group}'.",
                    "Placed {n} values under '{group}'.",
                    n,
                    group=_shown(group),
                )
            )
        return ok

    # --- edits from the UI ----------------------------------------------------------------------------
    def selected_nodes(self) -> list[Node]:
        idx = [i for i in self.view.selectionModel().selectedRows(0)]
        nodes = [self.model.node(i) for i in idx]
        return [n for n in nodes if n is not None]

    def _rename_current(self) -> None:
        idx = self.view.currentIndex()
        if idx.isValid():
            self.view.edit(idx.siblingAtColumn(0))

    def _ask(self, title: str, label: str, default: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, label, text=default)
        return text.strip() if ok and text.strip() else None

    def _add_group_selected(self) -> None:
        nodes = self.selected_nodes()
        h = self.hierarchy()
        if not nodes or h is None:
            return
        level = nodes[0].level + 1
        if any(n.level != nodes[0].level for n in nodes):
            self._say(_("Select values or groups of the same level to group them."), error=True)
            return
        anchor = nodes[0].parent.parent if nodes[0].parent is not None else None
        if anchor is None or level > h.height - 1:
            self._say(
                _(
                    "A new group needs a level between the values and the root: select values or groups "
                    "at least two levels below the root."
                ),
                error=True,
            )
            return
        name = self._ask(
            _("New group"), _("Name of the new group (level {level}):", level=level), _("New group")
        )
        if name:
            self.add_group(level, anchor.label, name, [n.label for n in nodes])

    def _merge_selected(self) -> None:
        nodes = self.selected_nodes()
        if len(nodes) < 2 or any(n.level != nodes[0].level or n.level == 0 for n in nodes):
            self._say(_("Select two or more groups of the same level to merge them."), error=True)
            return
        name = self._ask(_("Merge groups"), _("Name of the merged group:"), nodes[0].label)
        if name:
            self.merge(nodes[0].level, [n.label for n in nodes], name)

    def _delete_selected(self) -> None:
        nodes = self.selected_nodes()
        if len(nodes) == 1:
            self.delete(nodes[0].level, nodes[0].label)
        elif nodes:
            self._say(_("Select one node to delete."), error=True)

    def _place_selected(self) -> None:
        values = [i.data(Qt.ItemDataRole.UserRole) for i in self.uncovered.selectedItems()]
        group = self._place_group()
        if values and group is not None:
            self.place(values, group)

    def _place_group(self) -> str | None:
        data = self.place_target.currentData()
        if data is not None and self.place_target.currentText() == _shown(data):
            return data
        text = self.place_target.currentText().strip()
        return text or None

    def _place_all(self) -> None:
        group = self._place_group()
        values = (
            uncovered_values(self.hierarchy(), self.state.distinct_values(self.column)) if self.column else []
        )
        if values and group is not None:
            self.place(values, group)

    def _enable(self) -> None:
        has = self.hierarchy() is not None
        nodes = self.selected_nodes() if has else []
        for a in (self.build_action, self.import_action):
            a.setEnabled(bool(self.column))
        for a in (self.export_action, self.expand_action, self.collapse_action):
            a.setEnabled(has)
        self.rename_action.setEnabled(len(nodes) == 1)
        self.delete_action.setEnabled(len(nodes) == 1 and nodes[0].parent is not None)
        self.merge_action.setEnabled(len(nodes) >= 2)
        self.add_action.setEnabled(bool(nodes))

    def select(self, level: int, label: str) -> QModelIndex:
        """Select the node (used by tests and after edits)."""
        idx = self.model.find_label(level, label)
        if idx.isValid():
            self.view.setCurrentIndex(idx)
        return idx
