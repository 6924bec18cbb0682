"""The generalization hierarchy (domain generalization hierarchy, DGH) of one quasi-identifier.

Sweeney's DGH (Sweeney 2002, "Achieving k-anonymity privacy protection using generalization and
suppression") is stored as ARX stores it: one row per original value, column ``j`` holding that value's
generalization at level ``j``; column 0 is the value itself and the last column the root (usually ``*``).
A hierarchy is immutable: edits (GUI tree editor, builders) produce a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from kanon_engine.errors import HierarchyError
from kanon_engine.i18n import _

#: The label of the root of every hierarchy the builders make, and of a suppressed cell.
ROOT = "*"

#: The leaf that stands for a missing value in a quasi-identifier.
MISSING = ""


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """Value -> generalization at each level, for one attribute.

    ``matrix`` has shape ``(n_values, height + 1)`` and holds strings; ``matrix[i, 0]`` are the distinct
    original values (leaves), in a meaningful order (numeric order for intervals, file order for ARX
    files): that order is the one Mondrian and the 2D viewer use for categorical attributes.
    """

    attribute: str
    matrix: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        m = np.asarray(self.matrix, dtype=object)
        if m.ndim != 2 or m.shape[1] < 1:
            raise HierarchyError(
                _(
                    "The hierarchy of '{column}' must be a table with one row per value.",
                    column=self.attribute,
                ),
                where=self.attribute,
            )
        if m.shape[0] == 0:
            raise HierarchyError(
                _("The hierarchy of '{column}' is empty.", column=self.attribute),
                hint=_("Give at least one value and its generalizations."),
                where=self.attribute,
            )
        leaves = pd.Index(m[:, 0])
        if leaves.has_duplicates:
            dup = leaves[leaves.duplicated()][0]
            raise HierarchyError(
                _(
                    "The hierarchy of '{column}' lists the value '{dup}' more than once.",
                    column=self.attribute,
                    dup=dup,
                ),
                hint=_("Each original value must appear in exactly one row."),
                where=f"{self.attribute}={dup}",
            )
        m.setflags(write=False)
        object.__setattr__(self, "matrix", m)

    # --- construction -------------------------------------------------------------------------------
    @classmethod
    def from_rows(cls, attribute: str, rows: list[list[str]] | list[tuple[str, ...]]) -> Hierarchy:
        """Build from rows ``[value, level1, ..., root]``; rows must all have the same length."""
        if not rows:
            raise HierarchyError(
                _("The hierarchy of '{column}' is empty.", column=attribute), where=attribute
            )
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            lengths = [len(r) for r in rows]
            short = min(range(len(rows)), key=lambda i: lengths[i])
            raise HierarchyError(
                _(
                    "The hierarchy of '{column}' has rows of different depths: value '{value}' has {n} "
                    "levels, others have {n2}.",
                    column=attribute,
                    value=rows[short][0],
                    n=lengths[short] - 1,
                    n2=max(lengths) - 1,
                ),
                hint=_("Every value needs a generalization at every level up to the root."),
                where=f"{attribute}={rows[short][0]}",
            )
        matrix = np.empty((len(rows), widths.pop()), dtype=object)
        for i, r in enumerate(rows):
            matrix[i, :] = [str(x) for x in r]
        return cls(attribute, matrix)

    @classmethod
    def flat(cls, attribute: str, values: list[str]) -> Hierarchy:
        """Two levels: each value, then ``*`` (the hierarchy of a column nobody has described yet)."""
        rows = [[v, ROOT] for v in values]
        return cls.from_rows(attribute, rows)

    # --- shape --------------------------------------------------------------------------------------
    @property
    def height(self) -> int:
        """Number of generalization steps above the original values (levels are 0..height)."""
        return int(self.matrix.shape[1] - 1)

    @property
    def depth(self) -> int:
        """Number of levels (height + 1)."""
        return int(self.matrix.shape[1])

    @cached_property
    def values(self) -> tuple[str, ...]:
        """The leaves (original values) in hierarchy order."""
        return tuple(self.matrix[:, 0])

    @cached_property
    def leaf_index(self) -> pd.Index:
        return pd.Index(self.matrix[:, 0], dtype=object)

    def labels(self, level: int) -> np.ndarray:
        """The generalization of every leaf at ``level`` (one entry per leaf)."""
        return self.matrix[:, level]

    @cached_property
    def level_codes(self) -> tuple[tuple[np.ndarray, tuple[str, ...]], ...]:
        """Per level: (code of each leaf's generalization, distinct labels in first-seen order).

        Codes at a level index that level's distinct labels; they keep hierarchy order, so for an
        interval hierarchy the code order is the numeric order.
        """
        out = []
        for j in range(self.depth):
            codes, uniques = pd.factorize(pd.Series(self.matrix[:, j], dtype=object), sort=False)
            out.append((codes.astype(np.int32), tuple(str(u) for u in uniques)))
        return tuple(out)

    def distinct_at(self, level: int) -> int:
        """Number of distinct labels at ``level``."""
        return len(self.level_codes[level][1])

    def encode(self, values: pd.Series | np.ndarray | list[str]) -> np.ndarray:
        """Leaf index of every value (-1 where the hierarchy does not know the value)."""
        return self.leaf_index.get_indexer(pd.Index(np.asarray(values, dtype=object))).astype(np.int32)

    def generalize(self, values: pd.Series | np.ndarray | list[str], level: int) -> np.ndarray:
        """The labels of ``values`` at ``level``; raises if a value is not in the hierarchy."""
        idx = self.encode(values)
        if (idx < 0).any():
            bad = np.asarray(values, dtype=object)[idx < 0][0]
            raise HierarchyError(
                _("The value '{bad}' of '{column}' is not in its hierarchy.", bad=bad, column=self.attribute),
                hint=_("Add it to the hierarchy (the hierarchy editor lists uncovered values)."),
                where=f"{self.attribute}={bad}",
            )
        return self.matrix[idx, level]

    def rows(self) -> list[list[str]]:
        """The hierarchy as ARX rows ``[value, level1, ..., root]``."""
        return [list(r) for r in self.matrix]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hierarchy):
            return NotImplemented
        return (
            self.attribute == other.attribute
            and self.matrix.shape == other.matrix.shape
            and bool((self.matrix == other.matrix).all())
        )

    def __hash__(self) -> int:
        return hash((self.attribute, self.matrix.shape, tuple(self.matrix[:, 0][:20])))
