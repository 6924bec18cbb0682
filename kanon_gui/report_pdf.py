"""Render the HTML de-identification report to PDF with Qt alone (no browser, no network).

``python -m kanon_gui.report_pdf REPORT.html OUT.pdf`` (and, in a frozen bundle, ``kanon --render-pdf
REPORT.html OUT.pdf``) is what :func:`kanon_engine.report.pdf.write_pdf` runs in a child process, so the
engine never imports Qt. The document is built and paginated by :mod:`kanon_gui.report_layout` (charts
as images, headings kept with what follows, tables split only between rows); this module paints its
pages onto A4 with a footer that numbers them, and checks the file before it replaces the old one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QMarginsF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextDocument,
)

from kanon_engine import i18n
from kanon_engine.errors import DataError
from kanon_engine.i18n import N_, _
from kanon_engine.i18n.language import ENV_VARIABLE
from kanon_engine.release.fileio import atomic_path
from kanon_engine.release.pdf_check import verify_pdf
from kanon_gui.report_layout import (
    BODY_HEIGHT,
    FOOTER_PX,
    LAYOUT_WIDTH,
    ReportRenderError,
    layout_document,
    prepare_document,
    svg_to_image,
)

__all__ = ["ReportRenderError", "prepare_document", "render_pdf", "svg_to_image"]

#: The footer of every page (page numbers, so a page missing from a printout is noticed).
FOOTER = N_("{title} \u00b7 page {page} of {pages}")


def paint_pages(doc: QTextDocument, writer: QPdfWriter, title: str, pages: int) -> int:
    """Paint the first ``pages`` pages of a document laid out by ``layout_document`` (at a screen-like
    width: CSS pixel sizes keep their proportions), each scaled to the paper with a footer that numbers
    it; returns the number of pages."""
    page_h = LAYOUT_WIDTH * 267 / 180
    body_h = BODY_HEIGHT
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
            footer = QRectF(0, page_h - FOOTER_PX + 8, LAYOUT_WIDTH, FOOTER_PX - 8)
            painter.drawText(
                footer, int(Qt.AlignmentFlag.AlignRight), _(FOOTER, title=title, page=i + 1, pages=pages)
            )
            painter.restore()
    finally:
        painter.end()
    return pages


def render_pdf(html: str, pdf_path: str | Path, title: str | None = None, name: str | None = None) -> Path:
    """Write ``html`` as an A4 PDF at ``pdf_path``, atomically (temporary file + rename), after checking
    that the file Qt wrote is a whole PDF (:func:`kanon_engine.release.pdf_check.verify_pdf`). ``name`` is the
    file name messages use (the engine renders into a temporary file named after the real report)."""
    title = _("De-identification report") if title is None else title
    pdf_path = Path(pdf_path)
    doc, pages = layout_document(html)
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
            paint_pages(doc, writer, title, pages)
            del writer  # flushes and closes the file
            verify_pdf(tmp, name or pdf_path.name)  # Qt reports no write error (a full disk): check the file
    except DataError as exc:
        raise ReportRenderError(str(exc)) from None
    return pdf_path


def main(argv: Sequence[str] | None = None) -> int:
    """``REPORT.html OUT.pdf [NAME]``: exit 0 on success, 2 with one plain sentence on stderr otherwise
    (``NAME``: the report's file name for messages, when OUT is a temporary file)."""
    args = list(sys.argv[1:] if argv is None else argv)
    # the footer ("page 1 of 7") and the messages in the report's language, which the engine passes
    # in KANON_LANG (this child does not follow the system's language, as the command line does not)
    language = os.environ.get(ENV_VARIABLE, "")
    i18n.install(language if language in (*i18n.available_languages(), i18n.PSEUDO) else i18n.SOURCE_LANGUAGE)
    if args and args[0] == "--render-pdf":
        args = args[1:]
    if len(args) not in (2, 3):
        print(_("usage: python -m kanon_gui.report_pdf REPORT.html OUT.pdf [NAME]"), file=sys.stderr)
        return 2
    html_path, pdf_path = Path(args[0]), Path(args[1])
    name = args[2] if len(args) == 3 else None
    try:
        html = html_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(
            _(
                "error: the HTML report {html_path} cannot be read ({reason}).",
                html_path=html_path,
                reason=exc,
            ),
            file=sys.stderr,
        )
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QCoreApplication.instance() or QGuiApplication(["kanon-report-pdf"])
    try:
        render_pdf(html, pdf_path, name=name)
    except ReportRenderError as exc:
        print(_("error: {message}", message=str(exc)), file=sys.stderr)
        return 2
    finally:
        del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
