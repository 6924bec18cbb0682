"""No format codes or internal names where a user looks (issue 12, item 11): the sample is opened, run
with three algorithms, its linkage demonstration made, and every text of every view, the export dialog and
the hierarchy wizard (labels, buttons, tabs, tooltips, table cells and headers, chart titles and axes) is
read back and searched for snake_case identifiers, metric codes, strftime codes, "nan", {lo}/{hi}
templates and the word "class"; the data's own column and file names are the user's words, not ours."""

from __future__ import annotations

import re

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QLineEdit, QTabWidget, QTextBrowser, QWidget

from kanon_gui.resources import sample_project, sample_register
from kanon_gui.screenshots import reveal

#: What must not be on screen.
INTERNAL = re.compile(
    r"\b[a-z]+_[a-z_]+\b|dm-star|%[dmYyHMSbB]|\bnan\b|\bNaN\b|\{lo\}|\{hi\}|intensity:|ncp:|\bdm\b|\bclass(es)?\b"
)
#: The glossary names the papers' term once, in parentheses, beside the plain one.
ALLOWED = ("(an equivalence class, in the papers)", "(equivalence classes)", "(equivalence class)")


def _model_texts(view: QAbstractItemView) -> list[str]:
    m = view.model()
    try:
        columns = m.columnCount()
    except TypeError:  # a list model
        columns = 1
    out = []
    roles = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole)
    for c in range(min(columns, 40)):
        out += [m.headerData(c, Qt.Orientation.Horizontal, r) for r in roles]
        out += [m.data(m.index(r, c), role) for r in range(min(m.rowCount(), 25)) for role in roles]
    return [t for t in out if isinstance(t, str)]


def texts_of(root: QWidget) -> list[str]:
    """Every text a user can read in ``root`` and its children."""
    out: list[str] = []
    for w in [root, *root.findChildren(QWidget)]:
        for name in ("text", "title", "toolTip", "windowTitle"):
            getter = getattr(w, name, None)
            if callable(getter) and not isinstance(w, QLineEdit):
                try:
                    value = getter()
                except TypeError:
                    continue
                if isinstance(value, str):
                    out.append(value)
        if isinstance(w, QLineEdit):
            out.append(w.placeholderText())
        if isinstance(w, QTabWidget):
            out += [w.tabText(i) for i in range(w.count())] + [w.tabToolTip(i) for i in range(w.count())]
        if isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
        if isinstance(w, QTextBrowser):
            out.append(w.toPlainText())
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            out += _model_texts(w)
        if isinstance(w, (pg.PlotWidget, pg.GraphicsLayoutWidget)):
            for item in w.scene().items():
                if isinstance(item, pg.LabelItem):
                    out.append(item.text)
                if isinstance(item, pg.AxisItem):
                    out.append(item.labelText)
    return [t for t in out if t]


def test_no_internal_names_on_screen(window, wait_idle, qtbot) -> None:
    window.open_project(sample_project())
    wait_idle(window)
    window.run()
    wait_idle(window)
    for algorithm in ("mondrian", "local-suppression"):  # partitions; a release keeping every record
        window.algorithm_panel.select_algorithm(algorithm)
        window.run()
        wait_idle(window)
    assert [r.result.algorithm for r in window.state.runs] == ["optimal", "mondrian", "local-suppression"]
    window.tabs.setCurrentWidget(window.risk_panel)
    wait_idle(window)
    linkage = window.risk_panel.linkage
    linkage.load_list(sample_register())
    qtbot.waitUntil(lambda: linkage.outcome is not None and not window.runner.is_busy(), timeout=60_000)
    found: list[str] = []
    for index in (0, 1, 2):  # a full-domain run, a Mondrian run, a cell-level run
        window.state.set_current_run(index)
        for i in range(window.tabs.count()):
            window.tabs.setCurrentIndex(i)
            wait_idle(window)
        for _, view in window.analysis_panel.views():
            reveal(view)
            found += texts_of(view)
        found += texts_of(window)
    window.export()
    found += texts_of(window.export_dialog)
    window.export_dialog.reject()
    window.export_dialog.deleteLater()
    qtbot.wait(50)
    from kanon_gui.dialogs.hierarchy_wizard import HierarchyWizardDialog

    for column in ("age", "admission_date", "zip", "ward"):
        dialog = HierarchyWizardDialog(window.state, column, window)
        found += texts_of(dialog)
        dialog.close()
    users_words = set(window.state.columns) | {"sample_patients", "sample_project", "sample_public_register"}
    users_words |= {f"hierarchy_{c}" for c in window.state.columns}
    problems = set()
    for text in found:
        cleaned = text
        for allowed in ALLOWED:
            cleaned = cleaned.replace(allowed, "")
        for m in INTERNAL.finditer(cleaned):
            if m.group(0) not in users_words and "C_AVG" not in m.group(0):
                problems.add(f"{m.group(0)!r} in: {' '.join(text.split())[:140]}")
    assert not problems, "internal names on screen:\n" + "\n".join(sorted(problems))
