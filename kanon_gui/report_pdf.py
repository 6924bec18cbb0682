"""Render the HTML de-identification report to PDF with Qt alone (no browser, no network).

``python -m kanon_gui.report_pdf REPORT.html OUT.pdf`` (and, in a frozen bundle, ``kanon --render-pdf
REPORT.html OUT.pdf``) is what :func:`kanon_engine.report.write_pdf` runs in a child process, so the
engine never imports Qt.

Why the detour through images: ``QTextDocument`` understands a subset of HTML and cannot draw inline
``<svg>``. Each ``<svg>…</svg>`` element is drawn with ``QSvgRenderer`` into a high-resolution
``QImage``, registered as a document image resource, and replaced by an ``<img>`` that refers to it.
Nothing is fetched: external ``src``/``href`` references are not resolved (the report has none).
The bundled DejaVu font is loaded first, since an air-gapped machine may have no font at all.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QByteArray, QCoreApplication, QMarginsF, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextDocument,
)
from PySide6.QtSvg import QSvgRenderer

from kanon_engine.errors import DataError
from kanon_engine.fileio import atomic_path
from kanon_engine.pdf_check import verify_pdf

_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL | re.IGNORECASE)
_SIZE = re.compile(r'\b(width|height)="([\d.]+)"')
#: Pixels per SVG unit in the images made for the PDF (3 = crisp when printed).
IMAGE_SCALE = 3.0
#: Width the document is laid out at, in CSS pixels (A4 minus margins, at 96 dpi, about 680).
LAYOUT_WIDTH = 680.0


class ReportRenderError(Exception):
    """The PDF could not be made (message is one plain sentence)."""


def svg_to_image(svg: str, scale: float = IMAGE_SCALE) -> tuple[QImage, float, float]:
    """Draw an SVG string into a white-backed ARGB image; returns the image and its size in SVG units."""
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    if not renderer.isValid():
        raise ReportRenderError("A chart of the report is not valid SVG.")
    size = renderer.defaultSize()
    w, h = float(size.width() or 640), float(size.height() or 260)
    image = QImage(int(w * scale), int(h * scale), QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        renderer.render(painter, QRectF(0, 0, w * scale, h * scale))
    finally:
        painter.end()
    return image, w, h


def prepare_document(html: str) -> QTextDocument:
    """A QTextDocument of the report with every inline SVG replaced by an embedded image."""
    doc = QTextDocument()
    images: list[tuple[str, QImage]] = []

    def replace(match: re.Match[str]) -> str:
        image, w, h = svg_to_image(match.group(0))
        name = f"kanon-chart-{len(images)}.png"
        images.append((name, image))
        if w > LAYOUT_WIDTH:  # keep charts inside the page
            h, w = h * LAYOUT_WIDTH / w, LAYOUT_WIDTH
        return f'<img src="{name}" width="{w:.0f}" height="{h:.0f}">'

    text = _SVG.sub(replace, html)
    for name, image in images:
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
    family = _font_family()
    if family:
        font = QFont(family)
        font.setPointSizeF(9.0)
        doc.setDefaultFont(font)
    doc.setHtml(text)
    return doc


def _font_family() -> str | None:
    """Register the bundled fonts (idempotent) and return the family to use."""
    try:
        from kanon_gui.resources import load_fonts
    except ImportError:  # pragma: no cover - resources module always ships with the GUI
        return None
    return load_fonts()


#: The footer of every page (page numbers, so a page missing from a printout is noticed).
FOOTER = "{title} \u00b7 page {page} of {pages}"
_FOOTER_PX = 28


def paint_pages(doc: QTextDocument, writer: QPdfWriter, title: str) -> int:
    """Lay the document out page by page at a screen-like width (CSS pixel sizes keep their
    proportions), paint each page scaled to the paper, and a footer with the page number; returns the
    number of pages."""
    page_h = LAYOUT_WIDTH * 267 / 180
    body_h = page_h - _FOOTER_PX
    doc.setPageSize(QSizeF(LAYOUT_WIDTH, body_h))
    pages = doc.pageCount()
    painter = QPainter(writer)
    try:
        scale = writer.width() / LAYOUT_WIDTH
        for i in range(pages):
            if i:
                writer.newPage()
            painter.save()
            painter.scale(scale, scale)
            painter.translate(0, -i * body_h)
            doc.drawContents(painter, QRectF(0, i * body_h, LAYOUT_WIDTH, body_h))
            painter.restore()
            painter.save()
            painter.scale(scale, scale)
            font = QFont(doc.defaultFont())
            font.setPixelSize(10)  # layout pixels, scaled with the page like the text above
            painter.setFont(font)
            painter.setPen(QColor("#4a5568"))
            footer = QRectF(0, page_h - _FOOTER_PX + 8, LAYOUT_WIDTH, _FOOTER_PX - 8)
            painter.drawText(
                footer, int(Qt.AlignmentFlag.AlignRight), FOOTER.format(title=title, page=i + 1, pages=pages)
            )
            painter.restore()
    finally:
        painter.end()
    return pages


def render_pdf(
    html: str, pdf_path: str | Path, title: str = "De-identification report", name: str | None = None
) -> Path:
    """Write ``html`` as an A4 PDF at ``pdf_path``, atomically (temporary file + rename), after checking
    that the file Qt wrote is a whole PDF (:func:`kanon_engine.pdf_check.verify_pdf`). ``name`` is the
    file name messages use (the engine renders into a temporary file named after the real report)."""
    pdf_path = Path(pdf_path)
    doc = prepare_document(html)
    try:
        with atomic_path(pdf_path) as tmp:
            writer = QPdfWriter(str(tmp))
            writer.setTitle(title)
            writer.setCreator("kanon")
            writer.setResolution(300)
            writer.setPageLayout(
                QPageLayout(
                    QPageSize(QPageSize.PageSizeId.A4),
                    QPageLayout.Orientation.Portrait,
                    QMarginsF(15, 15, 15, 15),
                    QPageLayout.Unit.Millimeter,
                )
            )
            paint_pages(doc, writer, title)
            del writer  # flushes and closes the file
            verify_pdf(tmp, name or pdf_path.name)  # Qt reports no write error (a full disk): check the file
    except DataError as exc:
        raise ReportRenderError(str(exc)) from None
    return pdf_path


def main(argv: Sequence[str] | None = None) -> int:
    """``REPORT.html OUT.pdf [NAME]``: exit 0 on success, 2 with one plain sentence on stderr otherwise
    (``NAME``: the report's file name for messages, when OUT is a temporary file)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "--render-pdf":
        args = args[1:]
    if len(args) not in (2, 3):
        print("usage: python -m kanon_gui.report_pdf REPORT.html OUT.pdf [NAME]", file=sys.stderr)
        return 2
    html_path, pdf_path = Path(args[0]), Path(args[1])
    name = args[2] if len(args) == 3 else None
    try:
        html = html_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: the HTML report {html_path} cannot be read ({exc}).", file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QCoreApplication.instance() or QGuiApplication(["kanon-report-pdf"])
    try:
        render_pdf(html, pdf_path, name=name)
    except ReportRenderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
