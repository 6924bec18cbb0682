"""Tree model adapting an engine :class:`~kanon_engine.hierarchy.model.Hierarchy` (root ``*`` down to the
data values) for a QTreeView.

The model never edits the hierarchy: a rename (inline edit) or a move (drag and drop) is reported as a
request signal; the editor turns it into a new Hierarchy through a pure function of
:mod:`kanon_engine.hierarchy.tree` and an undoable command, then the model is rebuilt from the result
(architecture example 6).

Why it scales to hierarchies with 100,000s of values: the tree is computed once with numpy as integer
arrays (a node is a path id per level, as in :func:`kanon_engine.hierarchy.tree.tree_nodes`: one
``groupby().ngroup()`` per level), and Python node objects are created only for the rows a view asks for
(the visible, expanded part). Records per node come from one weighted ``bincount`` per level.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractItemModel, QMimeData, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QFont

from kanon_engine.hierarchy.labels import is_missing_label, shown_label
from kanon_engine.hierarchy.model import MISSING, Hierarchy
from kanon_engine.hierarchy.validate import uncovered_values
from kanon_engine.i18n import N_, _, formats, ngettext
from kanon_gui.glossary import MISSING_FG

MIME = "application/x-kanon-hierarchy-node"
_Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole
COLUMNS = (N_("Value / group"), N_("Values"), N_("Records"))

_F = Qt.ItemFlag
_FLAGS_ROOT = _F.ItemIsEnabled | _F.ItemIsSelectable | _F.ItemIsEditable | _F.ItemIsDropEnabled
_FLAGS_GROUP = _FLAGS_ROOT | _F.ItemIsDragEnabled
_FLAGS_LEAF = _F.ItemIsEnabled | _F.ItemIsSelectable | _F.ItemIsEditable | _F.ItemIsDragEnabled
_FLAGS_PLAIN = _F.ItemIsEnabled | _F.ItemIsSelectable


def make_tree(hierarchy: Hierarchy, counts: pd.Series | None) -> _Tree:
    """The arrays the model shows ``hierarchy`` from, with the records of ``counts`` (value -> records,
    NaN for missing) per node: seconds for millions of values, so safe in a worker (see
    :func:`keep_prepared`)."""
    records = np.zeros(len(hierarchy.values), dtype=np.float64)
    if counts is not None and len(counts):
        keys = pd.Index(counts.index, dtype=object)
        text = np.asarray(keys.astype(str), dtype=object)
        text[keys.isna()] = MISSING
        per_value = pd.Series(counts.to_numpy(dtype=np.float64), index=text).groupby(level=0).sum()
        pos = leaf_positions(hierarchy.leaf_index, np.asarray(per_value.index, dtype=object))
        ok = pos >= 0
        records[pos[ok]] = per_value.to_numpy()[ok]
    return _Tree(hierarchy, records)


@dataclass(frozen=True, eq=False)
class PreparedView:
    """What the editor shows of a hierarchy and a column's counts, made in a worker (:func:`prepare_view`):
    the tree and the data values the hierarchy lacks."""

    hierarchy: Hierarchy
    counts: Any
    tree: _Tree
    uncovered: list[str]


#: Values converted to Arrow at a time (the conversion holds Python's lock; the lookup does not).
ARROW_CHUNK = 200_000


def leaf_positions(leaves: pd.Index, values: np.ndarray) -> np.ndarray:
    """``leaves.get_indexer(values)`` (-1 for a value that is no leaf) through Arrow's hash lookup: pandas
    holds Python's lock for seconds on millions of strings, so a worker doing it froze the window; Arrow
    lets it run. Falls back to pandas for values that are not all text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def arrow(a: np.ndarray) -> pa.ChunkedArray:
        parts = [pa.array(a[i : i + ARROW_CHUNK], type=pa.string()) for i in range(0, len(a), ARROW_CHUNK)]
        return pa.chunked_array(parts, type=pa.string())

    try:
        table = arrow(np.asarray(leaves, dtype=object)).combine_chunks()
        found = pc.index_in(arrow(values), value_set=table)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return leaves.get_indexer(values)
    return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


#: Views a worker made for hierarchies about to be shown, newest last.
_PREPARED: list[PreparedView] = []


def prepare_view(hierarchy: Hierarchy, counts: pd.Series) -> PreparedView:
    """The editor's tree and uncovered values of ``hierarchy`` on ``counts`` (worker side: seconds for a
    column of millions of values)."""
    uncovered = uncovered_values(hierarchy, pd.Series(counts.index, dtype=object))
    return PreparedView(hierarchy, counts, make_tree(hierarchy, counts), uncovered)


def keep_prepared(view: PreparedView) -> None:
    """Keep a view made in a worker (GUI side); the model and the editor use it when they are asked for
    the same hierarchy and counts (the same objects), so the GUI thread never builds them."""
    _PREPARED.append(view)
    del _PREPARED[:-2]


def prepared_view(hierarchy: Hierarchy | None, counts: Any) -> PreparedView | None:
    """The kept view of this hierarchy and these counts, if a worker made one."""
    for view in _PREPARED:
        if view.hierarchy is hierarchy and view.counts is counts:
            return view
    return None


class Node:
    """One displayed node: a label at a level, identified by its path id at that level."""

    __slots__ = ("model", "level", "pid", "label", "n_leaves", "records")

    def __init__(self, model: HierarchyTreeModel, level: int, pid: int) -> None:
        self.model = model
        self.level = level
        self.pid = pid
        tree = model._tree
        row = int(tree.first_row[level][pid])
        self.label = str(tree.matrix[row, level])
        self.n_leaves = int(tree.leaves[level][pid])
        self.records = int(tree.records[level][pid])

    @property
    def parent(self) -> Node | None:
        if self.level >= self.model._tree.top:
            return None
        return self.model._node(self.level + 1, int(self.model._tree.parent[self.level][self.pid]))

    @property
    def children(self) -> list[Node]:
        return self.first_children(None)

    @property
    def n_children(self) -> int:
        return self.model._tree.n_children(self.level, self.pid)

    def first_children(self, n: int | None) -> list[Node]:
        """The first ``n`` children (all for None): a node above millions of values makes only those."""
        ids = self.model._tree.children(self.level, self.pid)
        return [self.model._node(self.level - 1, int(c)) for c in (ids if n is None else ids[:n])]

    @property
    def row(self) -> int:
        return int(self.model._tree.row_in_parent[self.level][self.pid])

    def path(self) -> tuple[str, ...]:
        """Labels from the top level down to this node (identifies it across rebuilds)."""
        out = []
        node: Node | None = self
        while node is not None:
            out.append(node.label)
            node = node.parent
        return tuple(reversed(out))


class _Tree:
    """The hierarchy's tree as integer arrays (see the module docstring)."""

    def __init__(self, h: Hierarchy, leaf_records: np.ndarray) -> None:
        m = h.matrix
        n, d = m.shape
        self.matrix = m
        self.top = d - 1
        path = [np.zeros(n, dtype=np.int64) for _unused in range(d)]
        path[d - 1] = pd.factorize(pd.Series(m[:, d - 1], dtype=object))[0].astype(np.int64)
        for j in range(d - 2, -1, -1):
            frame = pd.DataFrame({"p": path[j + 1], "l": pd.Series(m[:, j], dtype=object)})
            path[j] = frame.groupby(["p", "l"], sort=False).ngroup().to_numpy().astype(np.int64)
        self.first_row: list[np.ndarray] = []
        self.leaves: list[np.ndarray] = []
        self.records: list[np.ndarray] = []
        self.parent: list[np.ndarray] = []
        for j in range(d):
            count = int(path[j].max()) + 1 if n else 0
            _unused, first = np.unique(path[j], return_index=True)
            self.first_row.append(first)
            self.leaves.append(np.bincount(path[j], minlength=count))
            self.records.append(np.bincount(path[j], weights=leaf_records, minlength=count).astype(np.int64))
            self.parent.append(path[j + 1][first] if j < d - 1 else np.full(count, -1, dtype=np.int64))
        # children of every node, in first-seen order: per level, nodes sorted by parent (stable)
        self._order: list[np.ndarray] = []
        self._bounds: list[np.ndarray] = []
        self.row_in_parent: list[np.ndarray] = []
        for j in range(d):
            parents = self.parent[j]
            if j == d - 1:
                order = np.arange(len(parents))
                rows = np.arange(len(parents))
                n_parents = 1
                bounds = np.array([0, len(parents)])
            else:
                order = np.argsort(parents, kind="stable")
                n_parents = len(self.first_row[j + 1])
                bounds = np.searchsorted(parents[order], np.arange(n_parents + 1), side="left")
                rows = np.empty(len(parents), dtype=np.int64)
                rows[order] = np.arange(len(parents)) - bounds[parents[order]]
            self._order.append(order)
            self._bounds.append(bounds)
            self.row_in_parent.append(rows)

    def roots(self) -> np.ndarray:
        return self._order[self.top]

    def children(self, level: int, pid: int) -> np.ndarray:
        """Path ids at ``level - 1`` under node ``pid`` of ``level``."""
        if level == 0:
            return np.zeros(0, dtype=np.int64)
        b = self._bounds[level - 1]
        return self._order[level - 1][b[pid] : b[pid + 1]]

    def n_children(self, level: int, pid: int) -> int:
        if level == 0:
            return 0
        b = self._bounds[level - 1]
        return int(b[pid + 1] - b[pid])

    def child(self, level: int, pid: int, row: int) -> int:
        return int(self._order[level - 1][self._bounds[level - 1][pid] + row])


_shown = shown_label  # the missing leaf and the group of missing values, in the interface's words


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
        self._tree: _Tree | None = None
        self._nodes: dict[tuple[int, int], Node] = {}  # keeps created nodes alive for internalPointer
        self._bold = QFont()
        self._bold.setBold(True)
        self._grey = QBrush(MISSING_FG)

    # --- content -------------------------------------------------------------------------------------
    def set_hierarchy(self, hierarchy: Hierarchy | None, counts: pd.Series | None = None) -> None:
        """Show ``hierarchy``; ``counts`` (value -> records, NaN for missing) fills the Records column."""
        self.beginResetModel()
        self._hierarchy = hierarchy
        self._nodes = {}
        self._tree = None
        if hierarchy is not None:
            kept = prepared_view(hierarchy, counts)
            self._tree = kept.tree if kept is not None else make_tree(hierarchy, counts)
        self.endResetModel()

    def _node(self, level: int, pid: int) -> Node:
        key = (level, pid)
        node = self._nodes.get(key)
        if node is None:
            node = Node(self, level, pid)
            self._nodes[key] = node
        return node

    def hierarchy(self) -> Hierarchy | None:
        return self._hierarchy

    def node_count(self) -> int:
        """Number of nodes of the whole tree (not only those created)."""
        return 0 if self._tree is None else int(sum(len(f) for f in self._tree.first_row))

    def node(self, index: _Index) -> Node | None:
        return index.internalPointer() if index.isValid() else None  # type: ignore[return-value]

    def index_of(self, node: Node, column: int = 0) -> QModelIndex:
        return self.createIndex(node.row, column, node)

    def top_nodes(self) -> list[Node]:
        if self._tree is None:
            return []
        return [self._node(self._tree.top, int(p)) for p in self._tree.roots()]

    def find(self, path: tuple[str, ...]) -> QModelIndex:
        """Index of the node with these labels from the top down (invalid if it no longer exists)."""
        level_nodes = self.top_nodes()
        found: Node | None = None
        for label in path:
            found = next((n for n in level_nodes if n.label == label), None)
            if found is None:
                return QModelIndex()
            level_nodes = found.children
        return self.index_of(found) if found is not None else QModelIndex()

    def find_label(self, level: int, label: str) -> QModelIndex:
        """Index of the first node with this label at this level."""
        tree = self._tree
        if tree is None or not 0 <= level <= tree.top:
            return QModelIndex()
        labels = tree.matrix[tree.first_row[level], level]
        hits = np.flatnonzero(labels == label)
        return self.index_of(self._node(level, int(hits[0]))) if len(hits) else QModelIndex()

    def expanded_nodes(self, view, limit: int = 2000) -> list[Node]:
        """Group nodes that ``view`` shows expanded (among those created), for restoring after a rebuild."""
        out = []
        for node in list(self._nodes.values()):
            if node.level > 0 and view.isExpanded(self.index_of(node)):
                out.append(node)
                if len(out) >= limit:
                    break
        return out

    # --- Qt model API ---------------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        tree = self._tree
        if tree is None or not 0 <= column < len(COLUMNS):
            return QModelIndex()
        if not parent.isValid():
            roots = tree.roots()
            if 0 <= row < len(roots):
                return self.createIndex(row, column, self._node(tree.top, int(roots[row])))
            return QModelIndex()
        p = self.node(parent)
        if p is None or not 0 <= row < tree.n_children(p.level, p.pid):
            return QModelIndex()
        return self.createIndex(row, column, self._node(p.level - 1, tree.child(p.level, p.pid, row)))

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        node = self.node(index)
        if node is None:
            return QModelIndex()
        up = node.parent
        if up is None:
            return QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        tree = self._tree
        if tree is None:
            return 0
        if not parent.isValid():
            return len(tree.roots())
        if parent.column() != 0:
            return 0
        p = self.node(parent)
        return tree.n_children(p.level, p.pid)

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        if not parent.isValid():
            return self._tree is not None
        p = self.node(parent)
        return parent.column() == 0 and p is not None and p.level > 0

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
                return formats.count(node.n_leaves)
            return formats.count(node.records)
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            if node.level == 0:
                return ngettext(
                    "Original value {values}: {n} record.",
                    "Original value {values}: {n} records.",
                    node.records,
                    values=_shown(node.label),
                )
            return _(
                "Group at level {level}: {n_leaves} values, {records} records. Double-click to rename; "
                "drag a node onto a group one level up to move it.",
                level=node.level,
                n_leaves=node.n_leaves,
                records=node.records,
            )
        if role == Qt.ItemDataRole.FontRole and col == 0 and node.level > 0:
            return self._bold
        if role == Qt.ItemDataRole.ForegroundRole and (col > 0 or is_missing_label(node.label)):
            return self._grey
        if role == Qt.ItemDataRole.TextAlignmentRole and col > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == _DISPLAY:
            return _(COLUMNS[section])
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        node = self.node(index)
        if node is None:
            return _F.ItemIsDropEnabled
        if index.column() != 0:
            return _FLAGS_PLAIN
        if node.level == 0:
            return _FLAGS_PLAIN | _F.ItemIsDragEnabled if node.label == MISSING else _FLAGS_LEAF
        return _FLAGS_ROOT if node.level == self._tree.top else _FLAGS_GROUP

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

    def canDropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _Index
    ) -> bool:
        target = self.node(parent)
        items = self._payload(data)
        return (
            bool(items)
            and target is not None
            and all(int(i["level"]) + 1 == target.level and i["label"] != target.label for i in items)
        )

    def dropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _Index
    ) -> bool:
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        target = self.node(parent)
        items = [(int(i["level"]), str(i["label"])) for i in self._payload(data)]
        self.move_requested.emit(items, target.label)
        return False  # nothing to remove on the source side: the tree is rebuilt from the new hierarchy
