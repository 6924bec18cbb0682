"""The report's workload section reads on paper (issue 27, item 5: 100 generated queries took twelve
PDF pages of a query column eight characters wide): the headline figures and the ten worst queries in
the section, every query in an appendix whose query column takes half the page."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from kanon_engine.project.project_file import Project
from kanon_engine.report.build import build_report
from kanon_engine.report.html import render_html
from kanon_engine.report.html import table as _table
from kanon_engine.workload.evaluate import with_workload
from kanon_engine.workload.generate import generate_workload
from kanon_engine.workload.report_section import WORST, section
from kanon_gui.report_pdf import render_pdf

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def measured(sample_dir: Path):
    from kanon_engine.cli.anonymize import run_project

    project = Project.load(sample_dir / "sample_project.json")
    table, _ = project.load_table()
    config = project.config(table)
    workload = generate_workload(table, config, 100, 0.1, None, None, 3)
    return project, table, with_workload(run_project(project, table), table, workload)


def test_the_section_shows_the_worst_queries_and_the_appendix_all(measured) -> None:
    _project, _table_, result = measured
    w = result.workload.to_dict()
    view = section(w, _table)
    assert len(view["queries"]["rows"]) == WORST and len(view["appendix"]["rows"]) == 100
    errors = sorted((q["error"] for q in w["queries"] if q["error"] is not None), reverse=True)
    shown = [row[3] for row in view["queries"]["rows"]]
    from kanon_engine.workload.report_section import percent

    assert shown == [percent(e) for e in errors[:WORST]]  # largest first
    assert [row[0] for row in view["appendix"]["rows"]] == [str(i) for i in range(1, 101)]
    assert [row[1] for row in view["appendix"]["rows"]] == [q["query"] for q in w["queries"]]
    assert "100" in view["more"] and str(WORST) in view["more"]


@pytest.mark.parametrize("language", ["fr", "de"])
def test_every_query_reads_whole_on_paper(qtbot, measured, tmp_path: Path, language: str) -> None:
    project, table, result = measured
    from kanon_engine.i18n import using

    with using(language):
        report = build_report(table, result, project)
    pdf = render_pdf(render_html(report), tmp_path / "report.pdf")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = text.count("\f")
    # a query starts whole on its line: the column is wide enough for "COUNT(*) WHERE <column>"
    assert len(re.findall(r"COUNT\(\*\) WHERE \w+", text)) == 100 + WORST
    assert pages <= 16, pages  # was 24 with the 25 first queries alone in a squeezed column
