"""Tree model adapting an engine :class:`~kanon_engine.hierarchy.model.Hierarchy` (root ``*`` down to the
data values) for a QTreeView.

The model never edits the hierarchy: a rename (inline edit) or a move (drag and drop) is reported as a
request signal; the editor turns it into a new Hierarchy through a pure function of
:mod:`kanon_engine.hierarchy.tree` and an undoable command, then the model is rebuilt from the result
(architecture example 6).
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
from PySide6.QtCore import QAbstractItemModel, QMimeData, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QFont

from kanon_engine.hierarchy.model import MISSING, Hierarchy
from kanon_engine.hierarchy.tree import TreeNode, tree_nodes
from kanon_gui.glossary import MISSING_FG

MIME = "application/x-kanon-hierarchy-node"
_Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole
COLUMNS = ("Value / group", "Values", "Records")


class Node:
    """One node of the displayed tree (a label at a level), with its parent and children."""

    __slots__ = ("label", "level", "parent", "children", "row", "n_leaves", "records")

    def __init__(self, label: str, level: int, parent: Node | None, row: int) -> None:
        self.label = label
        self.level = level
        self.parent = parent
        self.children: list[Node] = []
        self.row = row
        self.n_leaves = 1
        self.records = 0

    def path(self) -> tuple[str, ...]:
        """Labels from the top level down to this node (identifies it across rebuilds)."""
        out = []
        node: Node | None = self
        while node is not None:
            out.append(node.label)
            node = node.parent
        return tuple(reversed(out))


def _shown(label: str) -> str:
    return "(missing)" if label == MISSING else label


class HierarchyTreeModel(QAbstractItemModel):
    """The hierarchy as a tree; columns: label, number of values below, number of records below.

    Signals (requests, the editor decides): ``rename_requested(level, old, new)``,
    ``move_requested([(level, label), ...], new_parent_label)``.
    """

    rename_requested = Signal(int, str, str)
    move_requested = Signal(object, str)  # [(level, label), ...], new parent label

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._hierarchy: Hierarchy | None = None
        self._roots: list[Node] = []
        self._all: list[Node] = []  # keeps every node alive for internalPointer
        self._bold = QFont()
        self._bold.setBold(True)
        self._grey = QBrush(MISSING_FG)

    # --- content -------------------------------------------------------------------------------------
    def set_hierarchy(self, hierarchy: Hierarchy | None, counts: pd.Series | None = None) -> None:
        """Show ``hierarchy``; ``counts`` (value -> records, NaN for missing) fills the Records column."""
        self.beginResetModel()
        self._hierarchy = hierarchy
        self._roots = []
        self._all = []
        if hierarchy is not None:
            per_leaf: dict[str, int] = {}
            if counts is not None:
                for value, n in counts.items():
                    key = MISSING if (value is None or (isinstance(value, float) and value != value)) \
                        else str(value)
                    per_leaf[key] = per_leaf.get(key, 0) + int(n)
            self._roots = [self._build(t, None, i, per_leaf) for i, t in enumerate(tree_nodes(hierarchy))]
        self.endResetModel()

    def _build(self, t: TreeNode, parent: Node | None, row: int, per_leaf: dict[str, int]) -> Node:
        node = Node(t.label, t.level, parent, row)
        self._all.append(node)
        node.n_leaves = t.n_leaves
        if t.is_leaf:
            node.records = per_leaf.get(t.label, 0)
        else:
            node.children = [self._build(c, node, i, per_leaf) for i, c in enumerate(t.children)]
            node.records = sum(c.records for c in node.children)
        return node

    def hierarchy(self) -> Hierarchy | None:
        return self._hierarchy

    def node(self, index: _Index) -> Node | None:
        return index.internalPointer() if index.isValid() else None  # type: ignore[return-value]

    def index_of(self, node: Node, column: int = 0) -> QModelIndex:
        return self.createIndex(node.row, column, node)

    def find(self, path: tuple[str, ...]) -> QModelIndex:
        """Index of the node with these labels from the top down (invalid if it no longer exists)."""
        level_nodes = self._roots
        found: Node | None = None
        for label in path:
            found = next((n for n in level_nodes if n.label == label), None)
            if found is None:
                return QModelIndex()
            level_nodes = found.children
        return self.index_of(found) if found is not None else QModelIndex()

    def find_label(self, level: int, label: str) -> QModelIndex:
        """Index of the first node with this label at this level."""
        for n in self._all:
            if n.level == level and n.label == label:
                return self.index_of(n)
        return QModelIndex()

    # --- Qt model API ---------------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        siblings = self._roots if not parent.isValid() else self.node(parent).children
        if 0 <= row < len(siblings) and 0 <= column < len(COLUMNS):
            return self.createIndex(row, column, siblings[row])
        return QModelIndex()

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        node = self.node(index)
        if node is None or node.parent is None:
            return QModelIndex()
        return self.createIndex(node.parent.row, 0, node.parent)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            if parent.column() != 0:
                return 0
            return len(self.node(parent).children)
        return len(self._roots)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return len(COLUMNS)

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        node = self.node(index)
        if node is None:
            return None
        col = index.column()
        if role in (_DISPLAY, Qt.ItemDataRole.EditRole):
            if col == 0:
                return node.label if role == Qt.ItemDataRole.EditRole else _shown(node.label)
            if col == 1:
                return f"{node.n_leaves:,}"
            return f"{node.records:,}"
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            if node.level == 0:
                return f"Original value {_shown(node.label)}: {node.records:,} records."
            return (f"Group at level {node.level}: {node.n_leaves:,} values, {node.records:,} records. "
                    "Double-click to rename; drag a node onto a group one level up to move it.")
        if role == Qt.ItemDataRole.FontRole and col == 0 and node.level > 0:
            return self._bold
        if role == Qt.ItemDataRole.ForegroundRole and (col > 0 or node.label == MISSING):
            return self._grey
        if role == Qt.ItemDataRole.TextAlignmentRole and col > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == _DISPLAY:
            return COLUMNS[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        node = self.node(index)
        if node is None:
            return Qt.ItemFlag.ItemIsDropEnabled
        flags = base
        if index.column() == 0 and node.label != MISSING:
            flags |= Qt.ItemFlag.ItemIsEditable
        if node.parent is not None:
            flags |= Qt.ItemFlag.ItemIsDragEnabled
        if node.level > 0:
            flags |= Qt.ItemFlag.ItemIsDropEnabled
        return flags

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        node = self.node(index)
        if node is None or role != Qt.ItemDataRole.EditRole or index.column() != 0:
            return False
        new = str(value)
        if new != node.label:
            self.rename_requested.emit(node.level, node.label, new)
        return False  # the editor rebuilds the model from the new hierarchy

    # --- drag and drop --------------------------------------------------------------------------------
    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [MIME]

    def mimeData(self, indexes: list[QModelIndex]) -> QMimeData:
        data = QMimeData()
        nodes = [self.node(i) for i in indexes if i.isValid() and i.column() == 0]
        payload = [{"level": n.level, "label": n.label} for n in nodes if n is not None]
        data.setData(MIME, json.dumps(payload).encode("utf-8"))
        return data

    @staticmethod
    def _payload(data: QMimeData) -> list[dict[str, Any]]:
        if not data.hasFormat(MIME):
            return []
        try:
            return list(json.loads(bytes(data.data(MIME)).decode("utf-8")))
        except (ValueError, TypeError):
            return []

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                        parent: _Index) -> bool:
        target = self.node(parent)
        items = self._payload(data)
        return bool(items) and target is not None and all(
            int(i["level"]) + 1 == target.level and i["label"] != target.label for i in items)

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                     parent: _Index) -> bool:
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        target = self.node(parent)
        items = [(int(i["level"]), str(i["label"])) for i in self._payload(data)]
        self.move_requested.emit(items, target.label)
        return False  # nothing to remove on the source side: the tree is rebuilt from the new hierarchy
