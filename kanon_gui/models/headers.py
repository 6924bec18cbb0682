"""Column headers with tooltips for the workbench's table models (one implementation for all)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt

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
