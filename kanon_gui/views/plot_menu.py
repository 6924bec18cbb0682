"""kanon's own right-click menu for the charts, in place of pyqtgraph's.

pyqtgraph's menus ("View All", "Plot Options", "Export...") are English, offer transforms, downsampling
and FFTs nobody here needs, and their SVG export is broken (pyqtgraph issue 3485); they are switched
off (``setMenuEnabled(False)``). This menu offers what a user of the workbench wants from a chart, in
their language: show everything again after zooming, and save the picture (PNG or SVG, through
:mod:`kanon_gui.views.chart_export`).
"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QFileDialog, QGraphicsView, QMenu

from kanon_engine.i18n import _
from kanon_gui.errors import error_text


def add_plot_menu(view: QGraphicsView) -> None:
    """Give a pyqtgraph widget (PlotWidget, GraphicsLayoutWidget) kanon's right-click menu."""
    for widget in (view, view.viewport()):
        widget.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
    view.viewport().customContextMenuRequested.connect(
        lambda pos: plot_menu(view).popup(view.viewport().mapToGlobal(pos))
    )
    view.customContextMenuRequested.connect(lambda pos: plot_menu(view).popup(view.mapToGlobal(QPoint(pos))))


def plot_menu(view: QGraphicsView) -> QMenu:
    """The menu itself (built each time, in the language of the moment)."""
    menu = QMenu(view)
    menu.setObjectName("plot_menu")
    show_all = menu.addAction(_("Show all"))
    show_all.setToolTip(_("Zoom out to show every value again."))
    show_all.triggered.connect(lambda: _show_all(view))
    save = menu.addAction(_("Save as image…"))
    save.triggered.connect(lambda: _save(view))
    return menu


def _show_all(view: QGraphicsView) -> None:
    scene = view.scene()
    if scene is None:
        return
    for item in scene.items():
        if isinstance(item, pg.ViewBox):
            item.autoRange()


def _save(view: QGraphicsView) -> None:
    from kanon_gui.appdata import documents_folder
    from kanon_gui.views.chart_export import save_png, save_svg

    path, _filter = QFileDialog.getSaveFileName(
        view,
        _("Save the chart"),
        str(documents_folder() / "chart.png"),
        _("PNG image (*.png);;SVG drawing (*.svg)"),
    )
    if not path:
        return
    try:
        if Path(path).suffix.lower() == ".svg":
            save_svg(view, path)
        else:
            save_png(view, path if Path(path).suffix else path + ".png")
    except Exception as exc:  # noqa: BLE001 - a disk or permission problem is shown, not raised
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.warning(view, _("Save the chart"), error_text(exc))
