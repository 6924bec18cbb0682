"""The report as a paginated QTextDocument: charts turned into images, headings kept with what follows,
short tables kept whole, long tables split between rows with their header repeated, no page left with
only the footer.

Why measure and move: Qt's QTextDocument understands a subset of HTML and CSS. It draws no inline
``<svg>`` (each chart is drawn with ``QSvgRenderer`` into an image resource), and it knows no
``page-break-inside: avoid``: a heading can end a page with its table on the next, and a table row whose
cells wrap can be cut between pages. So the document is laid out, measured, and given page breaks
(:func:`paginate`), and a table that a page boundary cuts inside a row is split in two in the HTML
before that row, the second part starting a new page under a copy of the header
(:func:`layout_document`). Nothing is fetched: external ``src``/``href`` references are not resolved
(the report has none). The bundled DejaVu font is used, since an air-gapped machine may have no font.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QByteArray, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QFont,
    QImage,
    QPainter,
    QTextBlock,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
    QTextTable,
)
from PySide6.QtSvg import QSvgRenderer

from kanon_engine.i18n import _

_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL | re.IGNORECASE)
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
        raise ReportRenderError(_("A chart of the report is not valid SVG."))
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


def with_images(html: str) -> tuple[str, list[tuple[str, QImage]]]:
    """The HTML with every inline SVG replaced by an ``<img>`` of an image resource, and the images."""
    images: list[tuple[str, QImage]] = []

    def replace(match: re.Match[str]) -> str:
        image, w, h = svg_to_image(match.group(0))
        name = f"kanon-chart-{len(images)}.png"
        images.append((name, image))
        if w > LAYOUT_WIDTH:  # keep charts inside the page
            h, w = h * LAYOUT_WIDTH / w, LAYOUT_WIDTH
        return f'<img src="{name}" width="{w:.0f}" height="{h:.0f}">'

    return _SVG.sub(replace, html), images


def build_document(text: str, images: list[tuple[str, QImage]]) -> QTextDocument:
    """A QTextDocument of HTML whose charts are already images (:func:`with_images`)."""
    doc = QTextDocument()
    for name, image in images:
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
    family = _font_family()
    if family:
        font = QFont(family)
        font.setPointSizeF(9.0)
        doc.setDefaultFont(font)
    doc.setHtml(text)
    return doc


def prepare_document(html: str) -> QTextDocument:
    """A QTextDocument of the report with every inline SVG replaced by an embedded image."""
    return build_document(*with_images(html))


def _font_family() -> str | None:
    """Register the bundled fonts (idempotent) and return the family to use."""
    try:
        from kanon_gui.resources import load_fonts
    except ImportError:  # pragma: no cover - resources module always ships with the GUI
        return None
    return load_fonts()


#: Height of the footer line of every page, in layout pixels.
FOOTER_PX = 28
#: Height of a page's body in layout pixels (A4's 180 x 267 mm inside the margins, minus the footer).
BODY_HEIGHT = LAYOUT_WIDTH * 267 / 180 - FOOTER_PX


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


#: A table taller than this share of a page may be split (its header row repeated where it goes on)
#: rather than moved whole to the next page, which would leave most of a page empty.
KEEP_WHOLE_SHARE = 0.4
#: Data rows that stay with a split table's header (never a header alone at the foot of a page).
ROWS_WITH_HEADER = 3


def _keep_bottom(piece: _Piece, doc: QTextDocument, body_h: float, top: float) -> float:
    """How far down a unit starting at ``top`` and ending with ``piece`` must stay on one page: all of
    it when it is short, else (a long table) its header row and first data rows."""
    short = piece.bottom - top <= KEEP_WHOLE_SHARE * body_h
    if short or piece.frame is None or not isinstance(piece.frame, QTextTable):
        return piece.bottom
    table = piece.frame
    row = min(table.rows() - 1, table.format().headerRowCount() + ROWS_WITH_HEADER - 1)
    block = table.cellAt(row, 0).firstCursorPosition().block()
    return doc.documentLayout().blockBoundingRect(block).bottom()


def _units(pieces: list[_Piece]) -> list[tuple[int, int]]:
    """(first, last) piece of every unit that must not be cut by a page boundary: a run of headings
    with up to three short pieces after it and the table or chart they introduce; a run of headings
    with the first line after it; a short introduction with its table or chart; a table or a chart."""
    out, i, n = [], 0, len(pieces)
    while i < n:
        if pieces[i].empty:  # an empty line (as Qt puts between two tables) starts no unit
            i += 1
            continue
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
    cuts although it would fit on a page. So no heading is left at the foot of a page, a short table is
    never split, and a longer one is split only after its first rows, with Qt repeating its header row
    (from ``<thead>``) on every page it goes on. ``done``: heads already given a page break."""
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
    for _round in range(rounds):
        doc.pageCount()  # lays the document out
        piece = _first_split(doc, _pieces(doc), body_h, done)
        if piece is None:
            break
        done.add(_position(piece))
        _break_before(piece)
    filled = [p.bottom for p in _pieces(doc) if not p.empty]
    last = max(filled, default=0.0)
    return min(doc.pageCount(), _page(last - 1.0, body_h) + 1)


# --- tables split between rows -------------------------------------------------------------------------
#: At most this many tables are split (each split lays the document out again).
MAX_TABLE_SPLITS = 60
_TABLE_OPEN = re.compile(r"<table\b[^>]*>", re.IGNORECASE)
_ROW_OPEN = re.compile(r"<tr\b", re.IGNORECASE)
_THEAD = re.compile(r"<thead\b.*?</thead>", re.IGNORECASE | re.DOTALL)


def tables_in_order(doc: QTextDocument) -> list[QTextTable]:
    """Every table of the document, in the order the HTML has them."""
    out: list[QTextTable] = []
    block = doc.begin()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is not None and not any(table == t for t in out):
            out.append(table)
        block = block.next()
    return out


def _row_extent(doc: QTextDocument, table: QTextTable, row: int) -> tuple[float, float]:
    """Top and bottom of a table row's content, in document coordinates."""
    layout = doc.documentLayout()
    tops, bottoms = [], []
    for col in range(table.columns()):
        cell = table.cellAt(row, col)
        tops.append(layout.blockBoundingRect(cell.firstCursorPosition().block()).top())
        bottoms.append(layout.blockBoundingRect(cell.lastCursorPosition().block()).bottom())
    return min(tops), max(bottoms)


def row_across_pages(doc: QTextDocument, body_h: float) -> tuple[int, int] | None:
    """(table, row) of the first data row a page boundary cuts in two, or None."""
    for t, table in enumerate(tables_in_order(doc)):
        for row in range(table.format().headerRowCount() + 1, table.rows()):
            top, bottom = _row_extent(doc, table, row)
            if _crosses(top, bottom, body_h) and bottom - top < body_h:
                return t, row
    return None


def split_table(html: str, table: int, row: int) -> str | None:
    """The HTML with table number ``table`` cut before its row ``row`` (0 = the header row): the rest
    goes into a new table that starts a page, under a copy of the header. None when the HTML does not
    have that table or row (the document is then left as Qt cut it)."""
    opens = list(_TABLE_OPEN.finditer(html))
    if table >= len(opens) or len(opens) != html.lower().count("</table>"):
        return None
    start = opens[table]
    end = html.lower().find("</table>", start.end())
    rows = list(_ROW_OPEN.finditer(html, start.end(), end))
    if not 0 < row < len(rows):
        return None
    head = _THEAD.search(html, start.end(), end)
    tag = start.group(0)[:-1] + ' style="page-break-before: always">'
    cut = rows[row].start()
    return html[:cut] + "</table>" + tag + (head.group(0) if head else "") + html[cut:]


def layout_document(html: str, body_h: float = BODY_HEIGHT) -> tuple[QTextDocument, int]:
    """The report laid out on pages (:func:`paginate`), its tables split between rows where a page
    boundary would cut a row; and the number of pages that hold something."""
    text, images = with_images(html)
    doc = build_document(text, images)
    pages = paginate(doc, body_h)
    for _split in range(MAX_TABLE_SPLITS):
        cut = row_across_pages(doc, body_h)
        split = split_table(text, *cut) if cut is not None else None
        if split is None:
            break
        text = split
        doc = build_document(text, images)
        pages = paginate(doc, body_h)
    return doc, pages
