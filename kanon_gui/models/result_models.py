"""Models of a run's result: the original and the anonymized grid side by side (same rows), and the
table of equivalence classes.

Both grids show *input* rows: display row ``i`` is input row ``rows[i]`` on both sides, so scrolling,
filtering by class or selecting rows keeps them aligned. The release row of an input row comes from
:func:`release_rows` (identity unless suppressed rows were dropped or the release was shuffled).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QFont

from kanon_engine.hierarchy.model import ROOT
from kanon_engine.i18n import _, formats, ngettext, pgettext
from kanon_engine.result import AnonymizationResult
from kanon_gui.glossary import CHANGED_BG, HIGHLIGHT_BG, MISSING_FG, SUPPRESSED_BG, term
from kanon_gui.models.table_model import MISSING_TEXT, FrameModel, is_missing

_Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole


def release_rows(original: pd.DataFrame, result: AnonymizationResult) -> np.ndarray | None:
    """Release row of every input row (-1 where the row was dropped); None if it cannot be known.

    Inverts the engine's ``result.release_rows`` (the input row of every release row, which undoes the
    drop of suppressed rows and the shuffle). The mapping is verified on a column the run does not
    change; if that check fails, None is returned and the grids are shown unaligned rather than wrong.
    """
    n = len(original)
    cfg = result.config
    order = np.asarray(result.release_rows, dtype=np.int64)
    if len(order) != len(result.release) or (len(order) and (order.min() < 0 or order.max() >= n)):
        return None
    out = np.full(n, -1, dtype=np.int64)
    out[order] = np.arange(len(order))
    kept = order
    untouched = [
        c
        for c in result.release.columns
        if c in original.columns and c not in cfg.quasi_identifiers and c not in cfg.sensitive
    ]
    if untouched and len(kept):
        col = untouched[0]
        rel = result.release[col].to_numpy(dtype=object)
        orig = original[col].to_numpy(dtype=object)[kept]
        same = (rel == orig) | (pd.isna(rel) & pd.isna(orig))
        if not bool(np.all(same)):
            return None
    return out


class ComparisonModel(FrameModel):
    """One side of the comparison: ``side="original"`` shows the input table, ``side="release"`` the
    anonymized table, both indexed by input row. On the release side, cells that differ from the input
    are highlighted, suppressed rows are marked, and rows absent from the release read "(removed)"."""

    def __init__(self, side: str, parent=None) -> None:
        super().__init__(parent)
        self.side = side
        self._original: pd.DataFrame | None = None
        self._rel_of_input: np.ndarray | None = None
        self._row_class: np.ndarray | None = None
        self._recoding = None  # CellRecoding of a cell-level result (suppressed cells are marked)
        self._qi_of: list[int] = []
        self._orig_col: list[int] = []
        self._highlight: np.ndarray | None = None
        self._changed = QBrush(CHANGED_BG)
        self._suppressed = QBrush(SUPPRESSED_BG)
        self._hl = QBrush(HIGHLIGHT_BG)

    def set_result(
        self,
        original: pd.DataFrame | None,
        result: AnonymizationResult | None,
        rel_of_input: np.ndarray | None,
        kinds=None,
    ) -> None:
        """Show ``result`` aligned to ``original`` through ``rel_of_input`` (see :func:`release_rows`)."""
        self._original = original
        self._rel_of_input = rel_of_input
        self._row_class = None if result is None else result.row_class
        self._recoding = None if result is None else result.recoding
        frame = original if self.side == "original" else (None if result is None else result.release)
        self.set_frame(frame, kinds)
        names = list(original.columns) if original is not None else []
        self._orig_col = [names.index(c) if c in names else -1 for c in self._names]
        qi = list(self._recoding.qi) if self._recoding is not None else []
        self._qi_of = [qi.index(c) if c in qi else -1 for c in self._names]
        if (
            original is not None
            and frame is not None
            and (self.side == "original" or rel_of_input is not None)
        ):
            self.set_rows(np.arange(len(original), dtype=np.int64))

    def set_highlight(self, input_rows: np.ndarray | None) -> None:
        """Tint these input rows (rows of a selected class)."""
        if input_rows is None:
            self._highlight = None
        else:
            n = 0 if self._original is None else len(self._original)
            mask = np.zeros(n, dtype=bool)
            mask[np.asarray(input_rows, dtype=np.int64)] = True
            self._highlight = mask
        if self.rowCount():
            self.dataChanged.emit(
                self.index(0, 0),
                self.index(self.rowCount() - 1, self.columnCount() - 1),
                [Qt.ItemDataRole.BackgroundRole],
            )

    def input_row(self, display_row: int) -> int:
        """The input row shown at ``display_row`` (on the release side of an unaligned result: -1)."""
        if self.side == "release" and self._rel_of_input is None:
            return -1
        return self.frame_row(display_row)

    def _release_row(self, display_row: int) -> int:
        r = self.frame_row(display_row)
        if self.side == "original" or self._rel_of_input is None:
            return r
        return int(self._rel_of_input[r])

    def value(self, display_row: int, column: int) -> Any:
        if self.side == "release" and self._rel_of_input is not None:
            rr = self._release_row(display_row)
            return None if rr < 0 else self.cell(rr, column)
        return super().value(display_row, column)

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        if (
            role == _DISPLAY
            and self.side == "release"
            and self._rel_of_input is not None
            and index.isValid()
            and self._release_row(index.row()) < 0
        ):
            return _("(removed)")
        return super().data(index, role)

    def _suppressed_row(self, display_row: int) -> bool:
        if self._row_class is None:
            return False
        r = self.input_row(display_row)
        return r >= 0 and bool(self._row_class[r] < 0)

    def _suppressed_cell(self, display_row: int, column: int) -> bool:
        """A single value replaced by * in a cell-level release (release side, aligned rows)."""
        if self._recoding is None or self.side != "release" or self._rel_of_input is None:
            return False
        r, q = self.input_row(display_row), self._qi_of[column]
        return r >= 0 and q >= 0 and bool(self._recoding.suppressed[r, q])

    def background(self, display_row: int, column: int) -> Any:
        if self._suppressed_row(display_row) or self._suppressed_cell(display_row, column):
            return self._suppressed
        r = self.input_row(display_row)
        if self.side == "release" and self._original is not None and r >= 0:
            oc = self._orig_col[column]
            if oc >= 0:
                new = self.value(display_row, column)
                old = self._original.iat[r, oc]
                if not (is_missing(new) and is_missing(old)) and new != old:
                    return self._changed
        if self._highlight is not None and r >= 0 and self._highlight[r]:
            return self._hl
        return None

    def tooltip(self, display_row: int, column: int) -> str | None:
        if self._suppressed_row(display_row):
            return _("Suppressed record: {meaning}", meaning=term("suppression"))
        if self._suppressed_cell(display_row, column):
            old = self._original.iat[self.input_row(display_row), self._orig_col[column]]
            return _("value '{old}' replaced by *: {meaning}", old=old, meaning=term("star"))
        if self.side == "release" and self._original is not None:
            r = self.input_row(display_row)
            oc = self._orig_col[column]
            if r >= 0 and oc >= 0:
                old = self._original.iat[r, oc]
                new = self.value(display_row, column)
                if new != old and not (is_missing(new) and is_missing(old)):
                    return _("generalized from '{old}'", old=old)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation == Qt.Orientation.Vertical and self._row_class is not None:
            r = self.input_row(section)
            if role == _DISPLAY:
                base = str(r + 1) if r >= 0 else str(section + 1)
                return base + (" \u2716" if r >= 0 and self._row_class[r] < 0 else "")
            if role == Qt.ItemDataRole.ToolTipRole and r >= 0 and self._row_class[r] < 0:
                return _("Suppressed record: {meaning}", meaning=term("suppression"))
            return None
        return super().headerData(section, orientation, role)


def _italic() -> QFont:
    font = QFont()
    font.setItalic(True)
    return font


class EquivalenceClassModel(QAbstractTableModel):
    """One row per equivalence class: its number, size and released quasi-identifier values.

    Built with numpy at reset (first record of each class, ``np.unique(..., return_index=True)``);
    sorting keeps a permutation.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._sizes = np.zeros(0, dtype=np.int64)
        self._qi: list[str] = []
        self._values: list[np.ndarray] = []
        self._order = np.zeros(0, dtype=np.int64)
        self._k = 0

    def set_result(self, result: AnonymizationResult | None, rel_of_input: np.ndarray | None) -> None:
        self.beginResetModel()
        self._qi, self._values = [], []
        if result is None:
            self._sizes = np.zeros(0, dtype=np.int64)
        else:
            self._sizes = np.asarray(result.class_sizes, dtype=np.int64)
            self._k = result.config.k
            self._qi = list(result.config.quasi_identifiers)
            if result.row_class is None:  # a run that streamed its rows: the values come from its points
                values = result.plan.class_values(len(self._sizes)) if result.plan is not None else {}
                self._values = [np.asarray(values[q], dtype=object) for q in self._qi if q in values]
                self._qi = [q for q in self._qi if q in values]
                self._order = self._groups()
                self.endResetModel()
                return
            classes, first = np.unique(result.row_class, return_index=True)
            keep = classes >= 0
            first_row = np.zeros(len(self._sizes), dtype=np.int64)
            first_row[classes[keep]] = first[keep]
            if rel_of_input is not None:
                rel = rel_of_input[first_row]
                for q in self._qi:
                    # only one value per class is read (not the whole column: releases can be 1M rows)
                    col = np.asarray(result.release[q].array.take(np.maximum(rel, 0)), dtype=object)
                    self._values.append(np.where(rel >= 0, col, ""))
        self._order = self._groups()
        self.endResetModel()

    def _groups(self) -> np.ndarray:
        """The classes listed: all but one whose every quasi-identifier is ``*`` (its records are
        suppressed and belong to no group, as every figure of the release counts them)."""
        every = np.arange(len(self._sizes), dtype=np.int64)
        if not self._values or len(self._values) != len(self._qi):
            return every
        star = np.ones(len(self._sizes), dtype=bool)
        for col in self._values:
            star &= np.asarray(col == ROOT, dtype=bool)
        return every[~star]

    def class_at(self, row: int) -> int:
        return int(self._order[row])

    def row_of_class(self, class_id: int) -> int:
        hits = np.flatnonzero(self._order == class_id)
        return int(hits[0]) if len(hits) else -1

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else int(len(self._order))

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 2 + len(self._values)

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        if not index.isValid():
            return None
        c = self.class_at(index.row())
        col = index.column()
        if role == _DISPLAY:
            if col == 0:
                return str(c + 1)
            if col == 1:
                return formats.count(int(self._sizes[c]))
            value = self._values[col - 2][c]
            return _(MISSING_TEXT) if is_missing(value) else str(value)
        if role == Qt.ItemDataRole.TextAlignmentRole and col < 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role in (Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.FontRole) and col >= 2:
            if is_missing(self._values[col - 2][c]):
                return QBrush(MISSING_FG) if role == Qt.ItemDataRole.ForegroundRole else _italic()
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return ngettext(
                "Group {group}: {n} record shares these quasi-identifier values. {meaning}",
                "Group {group}: {n} records share these quasi-identifier values. {meaning}",
                int(self._sizes[c]),
                group=c + 1,
                meaning=term("equivalence class"),
            )
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == _DISPLAY:
            return (
                [pgettext("column header: a group of records", "Group"), _("Size")][section]
                if section < 2
                else self._qi[section - 2]
            )
        if role == Qt.ItemDataRole.ToolTipRole:
            return (
                term("equivalence class")
                if section < 2
                else _("Released value of '{column}'", column=self._qi[section - 2])
            )
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        idx = np.arange(len(self._sizes), dtype=np.int64)
        if column == 1:
            perm = np.argsort(self._sizes, kind="stable")
        elif column >= 2 and self._values:
            codes, _unused = pd.factorize(pd.Series(self._values[column - 2], dtype=object), sort=True)
            perm = np.argsort(codes, kind="stable")
        else:
            perm = idx
        if order == Qt.SortOrder.DescendingOrder:
            perm = perm[::-1]
        listed = np.zeros(len(self._sizes), dtype=bool)
        listed[self._groups()] = True
        self._order = idx[perm][listed[idx[perm]]]
        self.layoutChanged.emit()
