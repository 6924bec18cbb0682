"""Column headers with tooltips for the workbench's table models (one implementation for all)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from kanon_engine.i18n import _


def column_header(
    columns: Sequence[tuple[str, str]], section: int, orientation: Qt.Orientation, role: int
) -> Any:
    """``headerData`` of a model whose columns are (header, tooltip) pairs of catalog ids (``N_``), shown
    in the interface language."""
    if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(columns):
        return None
    if role == Qt.ItemDataRole.DisplayRole:
        return _(columns[section][0])
    if role == Qt.ItemDataRole.ToolTipRole:
        return _(columns[section][1])
    return None


Index = QModelIndex | QPersistentModelIndex


class RowsModel(QAbstractTableModel):
    """A table model over a list of rows whose columns are ``columns`` ((header, tooltip) pairs): the
    counts, the headers and the reset on new rows, written once; a subclass gives ``columns`` and
    ``data``."""

    columns: ClassVar[Sequence[tuple[str, str]]] = ()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []

    def _set_rows(self, rows: list[Any]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        return column_header(self.columns, section, orientation, role)
