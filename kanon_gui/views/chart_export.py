"""Save a chart (any widget, usually a pyqtgraph plot) as PNG and SVG.

Why not pyqtgraph's exporters: its SVGExporter is broken in 0.14 (upstream issue 3485), so the SVG is
drawn by Qt's own QSvgGenerator, which records the painter calls of the widget as vectors. A plot
(QGraphicsView) is rendered through its scene, so lines and text stay vectors; any other widget is
rendered with its children. Files are written atomically (temporary file beside the target, then
replaced) so a crash never leaves half a file.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QRegion
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsView, QWidget

from kanon_engine.i18n import _
from kanon_engine.release.fileio import atomic_write_bytes


def _paint(widget: QWidget, painter: QPainter, size: QSize) -> None:
    """Paint ``widget`` into ``painter`` over a ``size`` area (vectors for a graphics view's scene)."""
    if isinstance(widget, QGraphicsView):
        source = widget.viewport().rect()
        QGraphicsView.render(
            widget,
            painter,
            QRectF(0, 0, size.width(), size.height()),
            source,
            Qt.AspectRatioMode.IgnoreAspectRatio,
        )
    else:
        QWidget.render(
            widget,
            painter,
            QPoint(0, 0),
            QRegion(QRect(QPoint(0, 0), size)),
            QWidget.RenderFlag.DrawChildren | QWidget.RenderFlag.DrawWindowBackground,
        )


def _size(widget: QWidget) -> QSize:
    """The size to draw at; lays out a widget that was never shown (a hidden tab), as grab() would:
    a scene render alone would use the plot's stale geometry."""
    size = widget.size()
    if size.width() < 10 or size.height() < 10:
        size = widget.sizeHint().expandedTo(QSize(640, 400))
        widget.resize(size)
    widget.grab(QRect(0, 0, 1, 1))  # sends the pending resize/layout events
    return size


def png_bytes(widget: QWidget, scale: float = 2.0) -> bytes:
    """The widget as a PNG image, ``scale`` times its on-screen size (sharp on high-DPI displays)."""
    size = _size(widget)
    image = QImage(int(size.width() * scale), int(size.height() * scale), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.scale(scale, scale)
        _paint(widget, painter, size)
    finally:
        painter.end()
    return _encode(image)


def _encode(image: QImage) -> bytes:
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise OSError(_("Qt could not encode the chart as PNG."))
    buf.close()
    return bytes(data.data())


def svg_bytes(widget: QWidget, title: str = "") -> bytes:
    """The widget as an SVG document (vector lines and text)."""
    size = _size(widget)
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buf)
    gen.setSize(size)
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    # QPicture-cached items (pyqtgraph bars, axes, our boxes) replay scaled by the ratio of DPIs: record
    # the SVG at the widget's DPI or bars and axes drift apart (QSvgGenerator defaults to 72 dpi)
    gen.setResolution(widget.logicalDpiX())
    gen.setTitle(title or widget.objectName() or _("kanon chart"))
    gen.setDescription(_("Exported by kanon"))
    painter = QPainter(gen)
    try:
        painter.fillRect(QRect(0, 0, size.width(), size.height()), QColor("white"))
        _paint(widget, painter, size)
    finally:
        painter.end()
    buf.close()
    return bytes(data.data())


def save_png(widget: QWidget, path: str | Path, scale: float = 2.0) -> Path:
    """Write the widget as a PNG file (atomically) and return its path."""
    path = Path(path)
    atomic_write_bytes(path, png_bytes(widget, scale))
    return path


def save_svg(widget: QWidget, path: str | Path, title: str = "") -> Path:
    """Write the widget as an SVG file (atomically) and return its path."""
    path = Path(path)
    atomic_write_bytes(path, svg_bytes(widget, title))
    return path


def save_chart(widget: QWidget, stem: str | Path, title: str = "") -> tuple[Path, Path]:
    """Write ``<stem>.png`` and ``<stem>.svg``; returns both paths."""
    stem = Path(stem)
    if stem.suffix.lower() in (".png", ".svg"):
        stem = stem.with_suffix("")
    png = save_png(widget, stem.with_name(stem.name + ".png"))
    svg = save_svg(widget, stem.with_name(stem.name + ".svg"), title)
    return png, svg
