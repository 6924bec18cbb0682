"""The hierarchy as a tree, and the edits of the GUI's hierarchy tree editor.

A node is a label at a level (level 0 = original values, the top level = root). Every edit is a pure
function returning a NEW :class:`Hierarchy` (the GUI puts old/new on a QUndoStack); the input is never
changed. An edit that cannot be done raises HierarchyError with a plain message, and an edit never
turns a tree into a non-tree: if it would give a label two parents, it is refused.

The rows representation (ARX's: one row per leaf, one column per level) has two consequences:
- every group has at least one leaf below it: a group whose last member moves away disappears, and a
  new group is created together with the members it receives (:func:`add_group`);
- every leaf has a label at every level, so deleting a group must fill its level for its members
  (:func:`delete_group` documents the rule).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kanon_engine.errors import HierarchyError
from kanon_engine.hierarchy.model import MISSING, Hierarchy
from kanon_engine.hierarchy.validate import ambiguous_labels, multi_parent_labels, show_value
from kanon_engine.i18n import N_, _, formats


@dataclass(frozen=True)
class TreeNode:
    """A label at a level with its children (one level down), in hierarchy order.

    ``n_leaves`` is the number of original values below the node (1 for a leaf).
    """

    label: str
    level: int
    children: tuple[TreeNode, ...] = ()
    n_leaves: int = 1

    @property
    def is_leaf(self) -> bool:
        return self.level == 0


# ------------------------------------------------------------------------------------------ views
def _require_level(h: Hierarchy, level: int, low: int = 0, high: int | None = None) -> None:
    high = h.height if high is None else high
    if not isinstance(level, (int, np.integer)) or not low <= level <= high:
        raise HierarchyError(
            _(
                "The hierarchy of '{column}' has no level {level} for this edit; use a level from {low} "
                "to {high}.",
                column=h.attribute,
                level=level,
                low=low,
                high=high,
            ),
            where=h.attribute,
        )


def _rows_of(h: Hierarchy, level: int, label: str) -> np.ndarray:
    """Boolean mask of the rows under ``label`` at ``level``; raises if there is no such node."""
    rows = h.matrix[:, level] == label
    if not rows.any():
        if level == 0:
            text = _("There is no value {values} at level {level} of '{column}'.")
        else:
            text = _("There is no group {values} at level {level} of '{column}'.")
        raise HierarchyError(
            text.format(values=show_value(label), level=level, column=h.attribute),
            hint=_("The hierarchy may have changed; refresh the tree and try again."),
            where=f"{h.attribute}={label}",
        )
    return rows


def children(h: Hierarchy, level: int, label: str) -> list[str]:
    """Labels at ``level - 1`` under ``label`` at ``level``, in hierarchy order (``[]`` for a leaf)."""
    _require_level(h, level)
    rows = _rows_of(h, level, label)
    if level == 0:
        return []
    return [str(v) for v in pd.unique(h.matrix[rows, level - 1])]


def tree_nodes(h: Hierarchy) -> tuple[TreeNode, ...]:
    """The hierarchy as nested nodes: the top level's nodes (one root when valid) down to the leaves.

    Nodes are identified by their path, so a label with two parents (a hierarchy that is not a tree)
    shows under each parent with only the leaves of that path. Built bottom-up with one groupby per
    level; the Python work is per node.
    """
    m = h.matrix
    n, d = m.shape
    # path id of every row at every level, top down: (parent path id, label) numbered in first-seen order
    path = [np.zeros(n, dtype=np.int64) for _level in range(d)]
    path[d - 1] = pd.factorize(pd.Series(m[:, d - 1], dtype=object))[0]
    for j in range(d - 2, -1, -1):
        frame = pd.DataFrame({"p": path[j + 1], "l": pd.Series(m[:, j], dtype=object)})
        path[j] = frame.groupby(["p", "l"], sort=False).ngroup().to_numpy()
    nodes: list[TreeNode] = []
    for j in range(d):
        ids, first = np.unique(path[j], return_index=True)  # ids are 0..k-1
        if j == 0:
            nodes = [TreeNode(str(m[r, 0]), 0) for r in first]
            continue
        below_first = np.unique(path[j - 1], return_index=True)[1]
        parent_of_child = path[j][below_first]
        order = np.argsort(parent_of_child, kind="stable")
        bounds = np.searchsorted(parent_of_child[order], ids, side="left").tolist() + [len(order)]
        new_nodes = []
        for k, r in enumerate(first):
            kids = tuple(nodes[c] for c in order[bounds[k] : bounds[k + 1]])
            new_nodes.append(TreeNode(str(m[r, j]), j, kids, sum(c.n_leaves for c in kids)))
        nodes = new_nodes
    return tuple(nodes)


def from_tree(attribute: str, roots: Sequence[TreeNode]) -> Hierarchy:
    """The hierarchy whose rows are the root-to-leaf paths of ``roots`` (inverse of :func:`tree_nodes`
    up to row order: leaves come out grouped under their parents)."""
    rows: list[list[str]] = []
    stack: list[tuple[TreeNode, tuple[str, ...]]] = [(r, ()) for r in reversed(roots)]
    while stack:
        node, above = stack.pop()
        here = (node.label,) + above
        if not node.children:
            rows.append(list(here))
        stack.extend((c, here) for c in reversed(node.children))
    return Hierarchy.from_rows(attribute, rows)


# ------------------------------------------------------------------------------------------ edits
def _new(h: Hierarchy, matrix: np.ndarray, what: str) -> Hierarchy:
    """Wrap the edited matrix, refusing the edit if it gave some label a second parent."""
    out = Hierarchy(h.attribute, matrix)
    before = multi_parent_labels(h)
    for (level, label), parents in multi_parent_labels(out).items():
        if (level, label) not in before:
            shown = formats.join([f"'{p}'" for p in parents[:2]])
            raise HierarchyError(
                _(
                    "{what} is not possible: '{label}' at level {level} would have two parents at level "
                    "{n} ({shown}).",
                    what=what,
                    label=label,
                    level=level,
                    n=level + 1,
                    shown=shown,
                ),
                hint=_("Rename one of the groups first."),
                where=f"{h.attribute}={label}",
            )
    before_names = ambiguous_labels(h)
    for level, label in ambiguous_labels(out):
        if (level, label) not in before_names:
            raise HierarchyError(
                _(
                    "{what} is not possible: the group '{label}' at level {level} would have the name of a "
                    "value of the data and hold other values.",
                    what=what,
                    label=label,
                    level=level,
                ),
                hint=_("Choose another name."),
                where=f"{h.attribute}={label}",
            )
    return out


def _check_name(h: Hierarchy, new: str) -> None:
    if not isinstance(new, str) or new.strip() == "":
        raise HierarchyError(
            _("A group of '{column}' needs a name that is not empty.", column=h.attribute),
            hint=_("Type a name."),
            where=h.attribute,
        )


def _require_free(h: Hierarchy, level: int, new_label: str, sentence: str, hint: str) -> None:
    """Refuse a new group name that another group at ``level`` already has, in ``sentence`` (a catalog
    id with {new_label}, {level} and {column}) with ``hint``: merging and adding say it each their way."""
    if (h.matrix[:, level] == new_label).any():
        raise HierarchyError(
            _(sentence, new_label=new_label, level=level, column=h.attribute),
            hint=_(hint),
            where=f"{h.attribute}={new_label}",
        )


def _ancestry(h: Hierarchy, level: int, label: str) -> np.ndarray:
    """The labels of ``label`` (at ``level``) and of its ancestors: ``matrix[row, level:]``."""
    row = int(np.argmax(_rows_of(h, level, label)))
    return h.matrix[row, level:]


def rename_group(h: Hierarchy, level: int, old: str, new: str) -> Hierarchy:
    """Rename the node ``old`` at ``level`` to ``new``.

    At level 0 this renames an original value (to match the data's spelling); ``new`` must not be a
    value already. Above, ``new`` must not name another group at that level (merge them instead).
    """
    _require_level(h, level)
    rows = _rows_of(h, level, old)
    _check_name(h, new)
    if new == old:
        return h
    if (h.matrix[:, level] == new).any():
        if level == 0:
            text = _(
                "Cannot rename '{old}' to '{new}': there is already a value '{new}' at level {level} of "
                "'{column}'."
            )
            hint = _("Choose another name.")
        else:
            text = _(
                "Cannot rename '{old}' to '{new}': there is already a group '{new}' at level {level} of "
                "'{column}'."
            )
            hint = _("Choose another name, or merge the two groups.")
        raise HierarchyError(
            text.format(old=old, new=new, level=level, column=h.attribute),
            hint=hint,
            where=f"{h.attribute}={old}",
        )
    m = h.matrix.copy()
    m[rows, level] = new
    return _new(h, m, _("Renaming '{old}' to '{new}'", old=old, new=new))


def move_node(h: Hierarchy, level: int, label: str, new_parent_label: str) -> Hierarchy:
    """Put the node ``label`` at ``level`` under ``new_parent_label`` at ``level + 1``; its subtree follows.

    The node's rows take the new parent's labels at every level above. A former parent left without
    members disappears.
    """
    _require_level(h, level, 0, h.height - 1)
    rows = _rows_of(h, level, label)
    above = _ancestry(h, level + 1, new_parent_label)
    m = h.matrix.copy()
    m[rows, level + 1 :] = above
    return _new(h, m, _("Moving '{label}' under '{parent}'", label=label, parent=new_parent_label))


def merge_groups(h: Hierarchy, level: int, labels: Sequence[str], new_label: str) -> Hierarchy:
    """Merge the groups ``labels`` at ``level`` (>= 1) into one group ``new_label``.

    The merged group sits where the first of ``labels`` sat (it keeps that group's parent and
    ancestors); the members of all of them become its members. ``new_label`` may be one of ``labels``
    but not another existing group.
    """
    _require_level(h, level, 1)
    labels = list(dict.fromkeys(labels))
    if len(labels) < 2:
        raise HierarchyError(
            _("Select at least two groups of '{column}' to merge.", column=h.attribute), where=h.attribute
        )
    for lab in labels:
        _rows_of(h, level, lab)
    _check_name(h, new_label)
    if new_label not in labels:
        taken = N_(
            "Cannot merge into '{new_label}': another group of that name exists at level {level} of "
            "'{column}'."
        )
        _require_free(
            h, level, new_label, taken, N_("Choose another name, or include that group in the merge.")
        )
    above = _ancestry(h, level, labels[0])[1:]
    rows = np.isin(h.matrix[:, level], np.asarray(labels, dtype=object))
    m = h.matrix.copy()
    m[rows, level] = new_label
    m[rows, level + 1 :] = above
    return _new(h, m, _("Merging {labels}", labels=", ".join(repr(x) for x in labels)))


def delete_group(h: Hierarchy, level: int, label: str) -> Hierarchy:
    """Delete the node ``label`` at ``level``.

    Level 0: the value's row is removed (a hierarchy keeps at least one value).
    Levels between: the group's members go to its parent. To keep every row as deep as the others, the
    members' label at ``level`` becomes the parent's label, so the parent appears at two consecutive
    levels (``Higher education -> Higher education -> Bachelors``). Generalizing those members one step
    earlier than before never weakens privacy. The top level cannot be deleted (it has no parent).
    """
    _require_level(h, level, 0, h.height - 1 if h.height else 0)
    rows = _rows_of(h, level, label)
    if level == 0:
        if rows.all():
            raise HierarchyError(
                _(
                    "Cannot delete {values}: the hierarchy of '{column}' needs at least one value.",
                    values=show_value(label),
                    column=h.attribute,
                ),
                where=f"{h.attribute}={label}",
            )
        return Hierarchy(h.attribute, h.matrix[~rows])
    m = h.matrix.copy()
    m[rows, level] = m[rows, level + 1]
    return _new(h, m, _("Deleting '{label}'", label=label))


def add_group(
    h: Hierarchy, level: int, parent_label: str, new_label: str, members: Sequence[str] = ()
) -> Hierarchy:
    """Create the group ``new_label`` at ``level`` under ``parent_label`` (at ``level + 1``), holding
    ``members`` (labels at ``level - 1``, moved there with their subtrees).

    A hierarchy stored as rows cannot hold an empty group, so at least one member is required; a group
    the members leave empty disappears.
    """
    _require_level(h, level, 1, h.height - 1)
    _check_name(h, new_label)
    taken = N_("There is already a group '{new_label}' at level {level} of '{column}'.")
    _require_free(
        h, level, new_label, taken, N_("Choose another name, or move the members into the existing group.")
    )
    above = _ancestry(h, level + 1, parent_label)
    members = list(dict.fromkeys(members))
    if not members:
        raise HierarchyError(
            _(
                "A new group of '{column}' needs at least one member: choose the values or groups of "
                "level {n} to put in '{new_label}'.",
                column=h.attribute,
                n=level - 1,
                new_label=new_label,
            ),
            where=h.attribute,
        )
    for mem in members:
        _rows_of(h, level - 1, mem)
    rows = np.isin(h.matrix[:, level - 1], np.asarray(members, dtype=object))
    m = h.matrix.copy()
    m[rows, level] = new_label
    m[rows, level + 1 :] = above
    return _new(h, m, _("Adding the group '{new_label}'", new_label=new_label))


def place_values(h: Hierarchy, values: Iterable[str | None], parent_label_at_level1: str) -> Hierarchy:
    """Add data values the hierarchy lacks as leaves under the level-1 group ``parent_label_at_level1``.

    The new leaves copy the group's ancestry and are inserted after the group's last leaf (keeping
    members together). Missing values (``None``/``NaN``/``""``) become the :data:`MISSING` leaf.
    Raises if a value is already in the hierarchy (move it instead).
    """
    if h.height < 1:
        raise HierarchyError(
            _(
                "The hierarchy of '{column}' has no level 1 to place values under; add a level first.",
                column=h.attribute,
            ),
            where=h.attribute,
        )
    vals = pd.Series(list(values), dtype=object)
    text = np.asarray(vals.astype(str), dtype=object) if len(vals) else np.empty(0, dtype=object)
    text[vals.isna().to_numpy()] = MISSING
    new = pd.unique(text)
    if len(new) == 0:
        raise HierarchyError(
            _("Select at least one value of '{column}' to place.", column=h.attribute), where=h.attribute
        )
    known = h.encode(new) >= 0
    if known.any():
        shown = ", ".join(show_value(v) for v in new[known][:10])
        raise HierarchyError(
            _("Already in the hierarchy of '{column}': {shown}.", column=h.attribute, shown=shown),
            hint=_("Move these values instead of placing them."),
            where=f"{h.attribute}={new[known][0]}",
        )
    group = _rows_of(h, 1, parent_label_at_level1)
    above = _ancestry(h, 1, parent_label_at_level1)
    block = np.empty((len(new), h.depth), dtype=object)
    block[:, 0] = new
    block[:, 1:] = above
    at = int(np.nonzero(group)[0][-1]) + 1
    return Hierarchy(h.attribute, np.concatenate([h.matrix[:at], block, h.matrix[at:]]))
