"""Every text a person can read on a widget: labels, buttons, actions and their menus, group titles,
tabs, table headers, list items, tooltips, placeholders, window titles and combo items.

The pseudo-locale walk (tests/gui/test_pseudo_locale.py) reads the screen through these functions to
find words that did not come through a catalog, and bench/bench_languages.py to measure how much of the
English tour stays English in another language.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QTableView,
    QTabWidget,
    QTreeView,
    QWidget,
)

#: Header sections read per table (a release may have hundreds of columns, all data names).
MAX_HEADER_SECTIONS = 60


def visible_texts(widget: QWidget) -> list[str]:
    """The texts a person can read on ``widget`` and its visible children (tooltips included)."""
    out: list[str] = []
    for w in [widget, *widget.findChildren(QWidget)]:
        if not w.isVisibleTo(widget) and w is not widget:
            continue
        out.append(w.windowTitle() if w.isWindow() else "")
        out.append(w.toolTip())
        if isinstance(w, (QLabel, QAbstractButton)):
            out.append(w.text())
        elif isinstance(w, QGroupBox):
            out.append(w.title())
        elif isinstance(w, QLineEdit):
            out.append(w.placeholderText())
        elif isinstance(w, QComboBox):
            out.extend(w.itemText(i) for i in range(w.count()))
        elif isinstance(w, QTabWidget):
            for i in range(w.count()):
                out.extend((w.tabText(i), w.tabToolTip(i)))
        elif isinstance(w, QListWidget):
            for i in range(min(w.count(), MAX_HEADER_SECTIONS)):
                out.extend((w.item(i).text(), w.item(i).toolTip()))
        elif isinstance(w, QAbstractItemView) and w.model() is not None:
            out.extend(header_texts(w))
        for action in QWidget.actions(w):
            out.extend((action.text(), action.toolTip()))
            if action.menu() is not None:
                out.extend(menu_texts(action.menu()))
    return [t for t in out if t]


def header_texts(view: QAbstractItemView) -> list[str]:
    """The column headers of a table or tree view and their tooltips."""
    if isinstance(view, QTableView):
        header = view.horizontalHeader()
    elif isinstance(view, QTreeView):
        header = view.header()
    else:
        return []
    model = view.model()
    out = []
    for section in range(min(header.count(), MAX_HEADER_SECTIONS)):
        for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = model.headerData(section, Qt.Orientation.Horizontal, role)
            if isinstance(value, str):
                out.append(value)
    return out


def menu_texts(menu: QMenu) -> list[str]:
    """A menu's title, and every action's text and tooltip, submenus included."""
    out = [menu.title()]
    for action in menu.actions():
        out.extend((action.text(), action.toolTip()))
        if action.menu() is not None:
            out.extend(menu_texts(action.menu()))
    return out
