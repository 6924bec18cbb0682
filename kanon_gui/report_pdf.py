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
from dataclasses import dataclass
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
    QTextBlock,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
    QTextTable,
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
#: Height of a page's body in layout pixels (A4's 180 x 267 mm inside the margins, minus the footer).
BODY_HEIGHT = LAYOUT_WIDTH * 267 / 180 - _FOOTER_PX


def paint_pages(doc: QTextDocument, writer: QPdfWriter, title: str) -> int:
    """Lay the document out page by page at a screen-like width (CSS pixel sizes keep their
    proportions), keep headings with what follows and small tables whole (:func:`paginate`), paint each
    page scaled to the paper, and a footer with the page number; returns the number of pages."""
    page_h = LAYOUT_WIDTH * 267 / 180
    body_h = BODY_HEIGHT
    pages = paginate(doc, body_h)
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


# --- pagination ---------------------------------------------------------------------------------------
@dataclass
class _Piece:
    """A top-level piece of the document: a table (``frame``) or a block (a heading when ``heading``,
    a chart when ``chart``), with its vertical extent in the paginated layout."""

    top: float
    bottom: float
    frame: QTextFrame | None = None
    block: QTextBlock | None = None
    heading: bool = False
    chart: bool = False
    empty: bool = False


def _top_frame(block: QTextBlock, root: QTextFrame) -> QTextFrame | None:
    frame = QTextCursor(block).currentFrame()
    while frame is not None and frame.parentFrame() is not None and frame.parentFrame() != root:
        frame = frame.parentFrame()
    return None if frame is None or frame == root else frame


def _pieces(doc: QTextDocument) -> list[_Piece]:
    """The document's top-level blocks and tables, in order, where the layout put them."""
    layout, root = doc.documentLayout(), doc.rootFrame()
    out: list[_Piece] = []
    block = doc.begin()
    while block.isValid():
        frame = _top_frame(block, root)
        if frame is not None:
            if not out or out[-1].frame != frame:
                rect = layout.frameBoundingRect(frame)
                out.append(_Piece(rect.top(), rect.bottom(), frame=frame))
        else:
            rect = layout.blockBoundingRect(block)
            text = block.text()
            out.append(
                _Piece(
                    rect.top(),
                    rect.bottom(),
                    block=block,
                    heading=block.blockFormat().headingLevel() > 0,
                    chart="\ufffc" in text,
                    empty=not text.strip(),
                )
            )
        block = block.next()
    return out


def _page(y: float, body_h: float) -> int:
    return int(max(y, 0.0) // body_h)


def _crosses(top: float, bottom: float, body_h: float) -> bool:
    return _page(top, body_h) != _page(bottom - 1.0, body_h)


def _break_before(piece: _Piece) -> None:
    """Start a new page at ``piece``."""
    if piece.frame is not None:
        fmt = piece.frame.frameFormat()
        fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
        piece.frame.setFrameFormat(fmt)
    elif piece.block is not None:
        cursor = QTextCursor(piece.block)
        fmt = QTextBlockFormat()
        fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
        cursor.mergeBlockFormat(fmt)


def _is_object(piece: _Piece) -> bool:
    """A table or a chart: what a heading and its short introduction lead to."""
    return piece.frame is not None or piece.chart


def _keep_bottom(piece: _Piece, doc: QTextDocument, body_h: float, top: float) -> float:
    """How far down a unit starting at ``top`` and ending with ``piece`` must stay on one page: all of
    it when that fits on a page, else (a long table) its header row and first data row."""
    if piece.bottom - top <= body_h or piece.frame is None or not isinstance(piece.frame, QTextTable):
        return piece.bottom
    table = piece.frame
    row = min(table.rows() - 1, table.format().headerRowCount())
    block = table.cellAt(row, 0).firstCursorPosition().block()
    return doc.documentLayout().blockBoundingRect(block).bottom()


def _units(pieces: list[_Piece]) -> list[tuple[int, int]]:
    """(first, last) piece of every unit that must not be cut by a page boundary: a run of headings
    with up to three short pieces after it and the table or chart they introduce; a run of headings
    with the first line after it; a short introduction with its table or chart; a table or a chart."""
    out, i, n = [], 0, len(pieces)
    while i < n:
        j = i
        while j < n and pieces[j].heading:
            j += 1
        k = j
        while k < n and k - j < 4 and not _is_object(pieces[k]) and not pieces[k].heading:
            k += 1
        if k < n and k - j < 4 and _is_object(pieces[k]):
            out.append((i, k))
            i = k + 1
        elif j > i:
            end = next((m for m in range(j, n) if not pieces[m].empty), j - 1)
            out.append((i, end))
            i = max(end, j - 1) + 1
        else:
            i += 1
    return out


def _first_split(doc: QTextDocument, pieces: list[_Piece], body_h: float, done: set[int]) -> _Piece | None:
    """The first piece a page must start at: the head of a unit (:func:`_units`) that a page boundary
    cuts although it would fit on a page. So no heading is left at the foot of a page, and no table that
    fits on a page is split (a longer one is split after its first rows, and Qt repeats its header row,
    from ``<thead>``, on every page it continues on). ``done``: heads already given a page break."""
    for first, last in _units(pieces):
        head = pieces[first]
        key = _position(head)
        if key in done:
            continue
        bottom = _keep_bottom(pieces[last], doc, body_h, head.top)
        if _crosses(head.top, bottom, body_h) and bottom - head.top <= body_h:
            return head
    return None


def _position(piece: _Piece) -> int:
    if piece.frame is not None:
        return piece.frame.firstPosition()
    return piece.block.position() if piece.block is not None else -1


def paginate(doc: QTextDocument, body_h: float, rounds: int = 200) -> int:
    """Lay ``doc`` out on pages of ``body_h`` layout pixels, inserting page breaks so that headings
    stay with what follows and tables that fit on a page are not split (Qt's QTextDocument knows no
    ``page-break-inside: avoid``, so the layout is measured and breaks are added one by one). Returns
    the number of pages that hold something: a trailing page with only empty lines is not counted, so
    no page holds only the footer."""
    doc.setPageSize(QSizeF(LAYOUT_WIDTH, body_h))
    done: set[int] = set()
    for _ in range(rounds):
        doc.pageCount()  # lays the document out
        piece = _first_split(doc, _pieces(doc), body_h, done)
        if piece is None:
            break
        done.add(_position(piece))
        _break_before(piece)
    filled = [p.bottom for p in _pieces(doc) if not p.empty]
    last = max(filled, default=0.0)
    return min(doc.pageCount(), _page(last - 1.0, body_h) + 1)


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
