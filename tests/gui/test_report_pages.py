"""The PDF report's pages (issue 12, item 17): headings stay with what follows, tables that fit on a page
are never split, a long table repeats its header row where it continues, and no page holds only the
footer. Checked on the laid-out QTextDocument, and on the sample's real report turned into page texts
with pdftotext."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kanon_engine.project.project_file import Project, ReportDetails
from kanon_engine.project.public_list import PublicList, project_linkage
from kanon_engine.report.build import build_report
from kanon_engine.report.html import render_html
from kanon_engine.session import run_project
from kanon_gui.report_layout import (
    BODY_HEIGHT,
    _page,
    _pieces,
    layout_document,
    row_across_pages,
    split_table,
    tables_in_order,
)
from kanon_gui.report_pdf import render_pdf


def _table(rows: int, title: str) -> str:
    body = "".join(f"<tr><td>{title} row {i}</td><td>{i}</td></tr>" for i in range(rows))
    return f"<table border='1'><thead><tr><th>{title}</th><th>Value</th></tr></thead>{body}</table>"


def _filler(lines: int) -> str:
    return "".join(f"<p>Filler paragraph {i}.</p>" for i in range(lines))


def _layout(html: str):
    doc, pages = layout_document(html)
    return doc, pages, _pieces(doc)


def _page_of_text(doc, text: str) -> int:
    block = doc.find(text).block()
    return _page(doc.documentLayout().blockBoundingRect(block).top(), BODY_HEIGHT)


def test_a_table_that_fits_moves_whole_to_the_next_page_with_its_heading(qtbot) -> None:
    html = "<h2>First</h2>" + _filler(34) + "<h3>Quality metrics</h3><p>Intro.</p>" + _table(12, "Metric")
    doc, pages, pieces = _layout(html)
    table = next(p for p in pieces if p.frame is not None)
    assert _page(table.top, BODY_HEIGHT) == _page(table.bottom - 1, BODY_HEIGHT) == 1
    assert _page_of_text(doc, "Quality metrics") == 1 and _page_of_text(doc, "Intro.") == 1
    assert pages == 2


def test_a_long_table_splits_and_repeats_its_header(qtbot) -> None:
    html = "<h2>Hierarchies</h2>" + _filler(20) + "<h3>Levels</h3>" + _table(90, "Level")
    doc, pages, pieces = _layout(html)
    table = next(p for p in pieces if p.frame is not None)
    assert table.frame.format().headerRowCount() == 1  # Qt draws it again on every page the table reaches
    first, last = _page(table.top, BODY_HEIGHT), _page(table.bottom - 1, BODY_HEIGHT)
    assert last > first
    # the heading is on the page where the table starts, with at least its first data row
    assert _page_of_text(doc, "Levels") == first == _page_of_text(doc, "Level row 0")


def test_no_heading_is_left_at_the_foot_of_a_page(qtbot) -> None:
    html = _filler(37) + "<h2>Configuration</h2><ul><li>5-anonymity</li></ul>" + _filler(5)
    doc, _, _ = _layout(html)
    assert _page_of_text(doc, "Configuration") == _page_of_text(doc, "5-anonymity")


def test_trailing_empty_lines_make_no_footer_only_page(qtbot) -> None:
    doc, pages, _ = _layout(_filler(38) + "<p></p>" * 12)
    assert doc.pageCount() > pages == 1


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) is not installed")
def test_the_sample_report_pages_read_whole(qtbot, sample_dir: Path, tmp_path: Path) -> None:
    """Every page of the sample's report: no page is empty but for the footer, no page ends with a
    section heading, the header of every table is on the page of its first rows, and the sign-off has
    the details the project holds."""
    register = tmp_path / "register.csv"
    patients = (sample_dir / "sample_patients.csv").read_text(encoding="utf-8").splitlines()
    register.write_text(
        "name,age,sex,zip\n" + "\n".join(",".join(r.split(",")[1:5]) for r in patients[1:400:3]) + "\n",
        encoding="utf-8",
    )
    project = Project.load(sample_dir / "sample_project.json").with_changes(
        public_list=PublicList(register),
        report=ReportDetails("Length of stay by ward", "Dr. Ana Ruiz", "M. Keller, data protection officer"),
    )
    table, _ = project.load_table()
    result = run_project(project, table)
    report = build_report(table, result, project, linkage=project_linkage(project, table, result))
    pdf = render_pdf(render_html(report), tmp_path / "report.pdf")
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True)
    pages = text.stdout.split("\f")
    pages = pages[:-1] if not pages[-1].strip() else pages
    headings = {
        "Dataset",
        "Configuration",
        "Result",
        "Quality metrics",
        "Group sizes",
        "Re-identification risk",
        "Linkage attack demonstration",
        "Released file",
        "Release and sign-off",
        "Definitions",
    }
    for number, page in enumerate(pages, start=1):
        lines = [ln.strip() for ln in page.splitlines() if ln.strip()]
        assert f"page {number} of {len(pages)}" in lines[-1]
        assert len(lines) > 1, f"page {number} holds only the footer"
        assert lines[-2] not in headings, f"page {number} ends with the heading {lines[-2]!r}"
        for heading in ("Metric", "Measure"):  # header rows of the quality and risk tables
            if lines[-2].startswith(heading):
                pytest.fail(f"page {number} ends with a table header")
    whole = text.stdout
    assert "Purpose of the release" in whole and "Length of stay by ward" in whole
    assert "M. Keller" in whole  # (its cell may wrap the role to a second line)
    assert "Public list: register.csv" in whole


def test_a_long_table_splits_after_its_first_rows_not_after_its_header(qtbot) -> None:
    """A table taller than 40 % of a page is not moved whole (that would leave a page nearly empty): it
    starts where it is, but only with its header row and at least three data rows on that page."""
    html = _filler(24) + "<h3>Quality metrics</h3>" + _table(30, "Metric")
    doc, _, pieces = _layout(html)
    table = next(p for p in pieces if p.frame is not None)
    first = _page(table.top, BODY_HEIGHT)
    assert first == 0 and _page(table.bottom - 1, BODY_HEIGHT) == 1  # split, not moved
    assert _page_of_text(doc, "Metric row 2") == first == _page_of_text(doc, "Quality metrics")
    # with room for the header and no, one or two rows only, heading and table go to the next page
    for lines in (34, 35, 36):
        doc, _, _ = _layout(_filler(lines) + "<h3>Quality metrics</h3>" + _table(30, "Metric"))
        assert _page_of_text(doc, "Quality metrics") == _page_of_text(doc, "Metric row 2") == 1, lines


def _two_line_table(rows: int) -> str:
    body = "".join(
        f"<tr><td>Metric {i}<br><small>what metric {i} means, on a line</small></td><td>{i} %</td></tr>"
        for i in range(rows)
    )
    return f"<table border='1'><thead><tr><th>Metric</th><th>Value</th></tr></thead>{body}</table>"


def test_a_row_is_never_cut_between_two_pages(qtbot) -> None:
    """Rows of two lines (a metric and what it means): the table is split before the row a page would
    cut, and its second part starts the next page under a copy of the header."""
    for lines in range(20, 27):
        doc, _, _ = _layout(_filler(lines) + "<h3>Quality metrics</h3>" + _two_line_table(30))
        assert row_across_pages(doc, BODY_HEIGHT) is None, lines
        tables = tables_in_order(doc)
        # every part has the header row (Qt repeats it where a part goes on to another page)
        assert all(t.format().headerRowCount() == 1 for t in tables), lines
        if len(tables) == 2:  # split by us: the second part starts a page with its own header
            top = doc.documentLayout().frameBoundingRect(tables[1]).top()
            assert top - _page(top, BODY_HEIGHT) * BODY_HEIGHT < 30
        assert [b for b in _texts(doc) if b.startswith("Metric ")][-1].startswith("Metric 29")


def _texts(doc) -> list[str]:
    out, block = [], doc.begin()
    while block.isValid():
        out.append(block.text())
        block = block.next()
    return out


def test_split_table_cuts_the_html_before_a_row() -> None:
    html = (
        "<p>x</p><table border='1'><thead><tr><th>H</th></tr></thead><tr><td>a</td></tr>"
        "<tr><td>b</td></tr></table>"
    )
    out = split_table(html, 0, 2)
    assert out == (
        "<p>x</p><table border='1'><thead><tr><th>H</th></tr></thead><tr><td>a</td></tr></table>"
        "<table border='1' style=\"page-break-before: always\"><thead><tr><th>H</th></tr></thead>"
        "<tr><td>b</td></tr></table>"
    )
    assert split_table(html, 1, 1) is None and split_table(html, 0, 5) is None
