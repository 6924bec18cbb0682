"""A lazy table model over a DataFrame of strings (the engine's ``Table.frame`` or a release).

Why it stays fast on 1,000,000 rows (architecture example 5):
- construction costs nothing: a cell is read from the column's pandas array (no conversion of the
  column); a column becomes a numpy array only when it is sorted;
- ``data()`` returns early for roles it does not serve and formats only the asked cell;
- sorting computes one permutation (``argsort`` over integer codes or numbers) and never copies the data;
- the view never asks to resize columns to their contents over all rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QFont, QIcon, QPixmap

from kanon_engine.data.roles import Role
from kanon_engine.data.table import ColumnKind
from kanon_engine.data.types import parse_numbers
from kanon_engine.i18n import N_, _
from kanon_gui.glossary import MISSING_FG, ROLE_COLORS, kind_label, role_label, role_tooltip, tinted

_Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole
_NUMERIC = (ColumnKind.INTEGER, ColumnKind.DECIMAL)


#: How a missing cell is labelled in every view (the release itself holds an empty cell).
MISSING_TEXT = N_("(missing)")


def is_missing(value: Any) -> bool:
    """Missing cells are None or NaN (the engine reads only empty cells as missing)."""
    return value is None or (isinstance(value, float) and value != value)


def sort_order(values: np.ndarray, kind: ColumnKind | None, date_format: str | None = None) -> np.ndarray:
    """Stable ascending permutation of a column of strings, by number or date when the column is one;
    missing values last. Vectorized: numbers via ``to_numeric``, text via sorted integer codes."""
    series = pd.Series(values, dtype=object)
    if kind in _NUMERIC:
        key = parse_numbers(series)  # "12,5" and "1 234,50" too, as the column writes them
        key = np.where(np.isnan(key), np.inf, key)
        return np.argsort(key, kind="stable")
    if kind == ColumnKind.DATE:
        parsed = pd.to_datetime(series, format=date_format, errors="coerce")
        key = parsed.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(float)
        key = np.where(parsed.isna().to_numpy(), np.inf, key)
        return np.argsort(key, kind="stable")
    codes, _unused = pd.factorize(series, sort=True, use_na_sentinel=True)
    codes = np.where(codes < 0, np.iinfo(np.int64).max, codes)
    return np.argsort(codes, kind="stable")


class FrameModel(QAbstractTableModel):
    """Read-only lazy model of a DataFrame of strings, with role-coloured headers and a row permutation.

    ``rows`` (optional) selects and orders the frame rows shown: display row ``i`` is frame row
    ``rows[i]``. Sorting replaces ``rows`` by a permutation; :meth:`frame_row` maps back.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._frame: pd.DataFrame | None = None
        self._names: list[str] = []
        self._cache: dict[int, np.ndarray] = {}
        self._arrays: dict[int, Any] = {}
        self._rows: np.ndarray | None = None
        self._roles: dict[str, Role] = {}
        self._kinds: dict[str, ColumnKind] = {}
        self._date_formats: dict[str, str | None] = {}
        self._icons: dict[Role, QIcon] = {}
        self._italic = QFont()
        self._italic.setItalic(True)
        self._missing_brush = QBrush(MISSING_FG)
        self._sorted: tuple[int, Qt.SortOrder] | None = None

    # --- content -------------------------------------------------------------------------------------
    def set_frame(
        self,
        frame: pd.DataFrame | None,
        kinds: dict[str, ColumnKind] | None = None,
        date_formats: dict[str, str | None] | None = None,
    ) -> None:
        """Show another frame (O(1): columns are converted lazily)."""
        self.beginResetModel()
        self._frame = frame
        self._names = [str(c) for c in frame.columns] if frame is not None else []
        self._cache.clear()
        self._arrays.clear()
        self._rows = None
        self._sorted = None
        self._kinds = dict(kinds or {})
        self._date_formats = dict(date_formats or {})
        self.endResetModel()

    def frame(self) -> pd.DataFrame | None:
        return self._frame

    def column_names(self) -> list[str]:
        return list(self._names)

    def set_roles(self, roles: dict[str, Role]) -> None:
        """Colour the headers by role (identifier red, quasi-identifier blue, sensitive purple)."""
        self._roles = dict(roles)
        if self._names:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self._names) - 1)

    def set_rows(self, rows: np.ndarray | None) -> None:
        """Show only (and in this order) these frame rows; None shows all rows in frame order."""
        self.beginResetModel()
        self._rows = None if rows is None else np.asarray(rows, dtype=np.int64)
        self._sorted = None
        self.endResetModel()

    def rows(self) -> np.ndarray | None:
        return self._rows

    def _array(self, column: int) -> Any:
        """The column's pandas array (no copy): indexing it gives one cell without converting the column
        (a few microseconds per cell for Arrow-backed strings, which is all a screenful needs)."""
        arr = self._arrays.get(column)
        if arr is None:
            assert self._frame is not None
            arr = self._frame.iloc[:, column].array
            self._arrays[column] = arr
        return arr

    def cell(self, frame_row: int, column: int) -> Any:
        """One cell of the frame, by frame row (not display row)."""
        cached = self._cache.get(column)
        if cached is not None:
            return cached[frame_row]
        return self._array(column)[frame_row]

    def column_values(self, column: int) -> np.ndarray:
        """The whole column as a numpy object array (cached; computed only to sort)."""
        arr = self._cache.get(column)
        if arr is None:
            assert self._frame is not None
            arr = self._frame.iloc[:, column].to_numpy(dtype=object)
            self._cache[column] = arr
        return arr

    def frame_row(self, display_row: int) -> int:
        return int(self._rows[display_row]) if self._rows is not None else int(display_row)

    def frame_rows(self) -> np.ndarray:
        """Frame row of every display row."""
        if self._rows is not None:
            return self._rows
        return np.arange(0 if self._frame is None else len(self._frame), dtype=np.int64)

    def value(self, display_row: int, column: int) -> Any:
        return self.cell(self.frame_row(display_row), column)

    # --- Qt model API ---------------------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() or self._frame is None:
            return 0
        return int(len(self._rows)) if self._rows is not None else int(len(self._frame))

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._names)

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        if role not in (
            _DISPLAY,
            Qt.ItemDataRole.ToolTipRole,
            Qt.ItemDataRole.ForegroundRole,
            Qt.ItemDataRole.FontRole,
            Qt.ItemDataRole.TextAlignmentRole,
            Qt.ItemDataRole.BackgroundRole,
        ):
            return None
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.BackgroundRole:
            return self.background(row, col)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            kind = self._kinds.get(self._names[col])
            if kind in _NUMERIC:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        v = self.value(row, col)
        missing = is_missing(v)
        if role == _DISPLAY:
            return _(MISSING_TEXT) if missing else str(v)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _("missing value (empty cell)") if missing else self.tooltip(row, col)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._missing_brush if missing else None
        if role == Qt.ItemDataRole.FontRole:
            return self._italic if missing else None
        return None

    def background(self, display_row: int, column: int) -> Any:
        """Cell background (subclasses mark changed cells and suppressed rows)."""
        return None

    def tooltip(self, display_row: int, column: int) -> str | None:
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation == Qt.Orientation.Vertical:
            if role == _DISPLAY:
                return str(self.frame_row(section) + 1)
            return None
        if not 0 <= section < len(self._names):
            return None
        name = self._names[section]
        r = self._roles.get(name)
        if role == _DISPLAY:
            return name
        if role == Qt.ItemDataRole.DecorationRole and r is not None:
            return self._role_icon(r)
        if role == Qt.ItemDataRole.BackgroundRole and r is not None:
            return QBrush(tinted(ROLE_COLORS[r], 70))
        if role == Qt.ItemDataRole.ToolTipRole:
            kind = self._kinds.get(name)
            parts = [name]
            if r is not None:
                parts.append(f"{role_label(r)}: {role_tooltip(r)}")
            if kind is not None:
                parts.append(_("type: {kind}", kind=kind_label(kind)))
            return "\n".join(parts)
        return None

    def _role_icon(self, role: Role) -> QIcon:
        if role not in self._icons:
            pix = QPixmap(10, 10)
            pix.fill(ROLE_COLORS[role])
            self._icons[role] = QIcon(pix)
        return self._icons[role]

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by a column: one permutation, no copy of the data."""
        if self._frame is None or not 0 <= column < len(self._names):
            return
        self.layoutAboutToBeChanged.emit()
        base = self.frame_rows()
        name = self._names[column]
        values = self.column_values(column)[base]
        perm = sort_order(values, self._kinds.get(name), self._date_formats.get(name))
        if order == Qt.SortOrder.DescendingOrder:
            perm = perm[::-1]
        self._rows = base[perm]
        self._sorted = (column, order)
        self.layoutChanged.emit()
