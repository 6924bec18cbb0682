"""A structural check of a PDF file, done before it replaces the previous report.

Why: Qt's PDF writer reports no write error. On a full disk it stops writing and the file is cut short,
with no cross-reference table and no end-of-file marker; a report an ethics board receives must never be
such a file. So the rendered file is checked before the atomic rename: it starts with the ``%PDF-``
header, ends with ``%%EOF``, its ``startxref`` offset points at a cross-reference table (``xref``) or
stream (``N 0 obj``) inside the file, and its page tree holds as many pages as its ``/Count`` says (at
least one). This is the shape ISO 32000-1 section 7.5 gives every PDF file; it is not a full parser (no
pypdf dependency), but a truncated or empty file fails it, and the tests also render it with pdftoppm.
"""

from __future__ import annotations

import re
from pathlib import Path

from kanon_engine.errors import DataError
from kanon_engine.i18n import _

_STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")
_PAGES_COUNT = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b")
_PAGE = re.compile(rb"/Type\s*/Page\b(?!s)")


def pdf_problem(data: bytes) -> str | None:
    """What is wrong with the bytes of a PDF file (one short phrase), or None when it is whole."""
    if not data:
        return _("the file is empty")
    if not data.startswith(b"%PDF-"):
        return _("the file does not start as a PDF does")
    tail = data[-2048:]
    m = _STARTXREF.search(tail)
    if m is None:
        return _("the file is cut short (it has no end-of-file marker)")
    offset = int(m.group(1))
    if offset >= len(data):
        return _("the file is cut short (its table of contents points past its end)")
    at = data[offset : offset + 32].lstrip()
    if not (at.startswith(b"xref") or re.match(rb"\d+\s+\d+\s+obj\b", at)):
        return _("its table of contents is not where the file says it is")
    counts = [int(a or b) for a, b in _PAGES_COUNT.findall(data)]
    if not counts or max(counts) < 1:
        return _("it has no pages")
    pages = len(_PAGE.findall(data))
    if pages < max(counts):
        return _("it lists {max} pages but holds {pages}", max=max(counts), pages=pages)
    return None


def page_count(data: bytes) -> int:
    """The number of pages the page tree's root says (0 when none is found)."""
    counts = [int(a or b) for a, b in _PAGES_COUNT.findall(data)]
    return max(counts) if counts else 0


def verify_pdf(path: str | Path, name: str | None = None) -> int:
    """Check the PDF at ``path``; its page count, or a DataError naming ``name`` (default: the file's)."""
    path = Path(path)
    shown = name or path.name
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(
            _(
                "The PDF report {shown} could not be checked: {value}.",
                shown=shown,
                value=exc.strerror or exc,
            ),
            where=str(path),
        ) from None
    problem = pdf_problem(data)
    if problem is not None:
        raise DataError(
            _(
                "The PDF report {shown} came out incomplete: {problem}; the disk may be full.",
                shown=shown,
                problem=problem,
            ),
            hint=_("Nothing was replaced. Free some space or choose another folder, then write it again."),
            where=shown,
        )
    return page_count(data)
