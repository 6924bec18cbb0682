"""The de-identification report: content, hashes of the actual files, self-contained HTML, PDF not blank.

The PDF test needs Qt (run in a child process, as the CLI does) and pdftoppm (Debian poppler-utils);
it is skipped when either is missing, so the engine tests still pass on a machine without Qt.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kanon_engine
from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.io import read_table
from kanon_engine.errors import DataError
from kanon_engine.hierarchy import default_hierarchy, read_arx_csv
from kanon_engine.metrics.linkage import linkage_attack
from kanon_engine.project.project_file import Project
from kanon_engine.release.export import ExportOptions, export_release
from kanon_engine.report.build import build_report, write_reports
from kanon_engine.report.charts import class_size_svg
from kanon_engine.report.html import render_html
from kanon_engine.report.pdf import write_pdf

QI = ("age", "sex", "zipcode")


@pytest.fixture(scope="module")
def seeds(seed_dir: Path):
    table = read_table(seed_dir / "mondrian_patients.csv")
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in QI}
    config = AnonymizationConfig(QI, hs, build_models(2), sensitive=("disease",))
    result = get_algorithm("optimal").run(table, config)
    return table, config, result


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_report_holds_the_hashes_of_the_actual_files(seeds, seed_dir: Path, tmp_path: Path) -> None:
    table, _, result = seeds
    release = tmp_path / "release.csv"
    export_release(table, result, release, ExportOptions(shuffle=True))
    html_path = tmp_path / "report.html"
    report = write_reports(table, result, None, html_path, None, release)
    text = html_path.read_text(encoding="utf-8")
    input_sha, release_sha = sha(seed_dir / "mondrian_patients.csv"), sha(release)
    assert report["dataset"]["sha256"] == input_sha and report["release"]["sha256"] == release_sha
    assert input_sha in text and release_sha in text
    assert f"kanon {kanon_engine.__version__}" in text and report["generated"][:10] in text


def test_report_content(seeds, seed_dir: Path) -> None:
    table, config, result = seeds
    voters = read_table(seed_dir / "voter_registration.csv")
    link = linkage_attack(voters, table, result.release, quasi_identifiers=QI, hierarchies=config.hierarchies)
    report = build_report(table, result, None, linkage=link)
    summary = " ".join(report["summary"])
    assert summary.startswith("Every person in the released file is in a group of at least 2 people sharing ")
    assert "singles out 1 of them; with the release, 0." in summary
    assert report["dataset"]["roles"] == {
        "age": "quasi-identifier",
        "sex": "quasi-identifier",
        "zipcode": "quasi-identifier",
        "disease": "sensitive",
    }
    assert report["result"]["transformation"] == result.transformation
    assert report["risk"]["after"]["prosecutor_highest"] == 0.5
    assert report["risk"]["before"]["sample_uniques"] == 6
    assert [h["attribute"] for h in report["configuration"]["hierarchies"]] == list(QI)
    bands = report["result"]["class_size_bands"]
    assert sum(b["before"] for b in bands) == 6 == sum(b["after"] for b in bands)
    html = render_html(report)
    for heading in (
        "In plain words",
        "Dataset",
        "Configuration",
        "Result",
        "Re-identification risk",
        "Sensitive attributes",
        "Linkage attack demonstration",
        "Released file",
        "Definitions",
    ):
        assert f"<h2>{heading}" in html, heading
    # self-contained: no scripts, no external resources; the chart is inline SVG
    assert "<script" not in html and "<link" not in html and "src=" not in html
    assert re.findall(r"https?://[^\s\"']+", html) == ["http://www.w3.org/2000/svg"]
    assert html.count("<svg") == 1


def test_report_with_project_names_hierarchy_files(adult_dir: Path, tmp_path: Path) -> None:
    qi = ["age", "sex", "race"]
    table = read_table(adult_dir / "adult.csv")
    hs = {q: read_arx_csv(adult_dir / f"adult_hierarchy_{q}.csv", q) for q in qi}
    project = Project(
        data_path=table.source,
        roles={},
        hierarchies=hs,
        hierarchy_files={q: f"adult_hierarchy_{q}.csv" for q in qi},
    )
    config = AnonymizationConfig(tuple(qi), hs, build_models(5))
    result = get_algorithm("optimal", suppression_limit=0.01).run(table, config)
    report = build_report(table, result, project)
    assert report["configuration"]["hierarchies"][0]["source"] == "file adult_hierarchy_age.csv"
    assert report["configuration"]["algorithm"]["title"].startswith("Optimal")
    assert report["configuration"]["suppression"]["suppressed"] == result.suppressed


def test_svg_chart_marks_bands_below_k() -> None:
    svg = class_size_svg(
        [
            {"label": "1", "low": 1, "high": 1, "before": 7, "after": 0},
            {"label": "5–9", "low": 5, "high": 9, "before": 3, "after": 10},
        ],
        k=5,
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert 'fill="#c53030">1</text>' in svg and ">5–9</text>" in svg and "k = 5" in svg


def test_reports_never_overwrite_inputs(seeds, tmp_path: Path) -> None:
    table, _, result = seeds
    with pytest.raises(DataError, match="input"):
        write_reports(table, result, None, table.source, None)


def _has_qt() -> bool:
    return importlib.util.find_spec("PySide6") is not None


@pytest.mark.skipif(not _has_qt() or shutil.which("pdftoppm") is None, reason="needs Qt and pdftoppm")
def test_pdf_renders_not_blank(seeds, tmp_path: Path) -> None:
    table, _, result = seeds
    html_path, pdf_path = tmp_path / "r.html", tmp_path / "r.pdf"
    write_reports(table, result, None, html_path, pdf_path)
    assert pdf_path.read_bytes().startswith(b"%PDF")
    subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf_path), str(tmp_path / "page")], check=True)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) >= 2
    # read the PNGs with Qt's QImage in a child process (engine tests never import Qt themselves)
    code = (
        "import sys\n"
        "from PySide6.QtGui import QImage\n"
        "for p in sys.argv[1:]:\n"
        "    img = QImage(p)\n"
        "    w, h = img.width(), img.height()\n"
        "    dark = sum(1 for y in range(0, h, 2) for x in range(0, w, 2)\n"
        "               if (img.pixel(x, y) & 0xFFFFFF) < 0x808080)\n"
        "    color = sum(1 for y in range(0, h, 2) for x in range(0, w, 2)\n"
        "                if (img.pixel(x, y) & 0xFF) > ((img.pixel(x, y) >> 16) & 0xFF) + 60)\n"
        "    print(w, h, dark, color)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, pages)],
        capture_output=True,
        text=True,
        check=True,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
    )
    stats = [tuple(map(int, line.split())) for line in out.stdout.splitlines()]
    assert all(w > 100 and h > 100 for w, h, _, _ in stats)
    assert all(dark > 200 for _, _, dark, _ in stats[:-1])  # text on every full page
    assert sum(color for *_, color in stats) > 50  # the blue bars of the chart were drawn


def test_pdf_failure_is_a_plain_error(tmp_path: Path) -> None:
    html = tmp_path / "r.html"
    html.write_text("<html><body>x</body></html>", encoding="utf-8")
    with pytest.raises(DataError, match="does not exist"):
        write_pdf(html, tmp_path / "missing-folder" / "r.pdf")


@pytest.mark.skipif(not _has_qt() or shutil.which("pdftotext") is None, reason="needs Qt and pdftotext")
def test_pdf_in_german_is_german_to_its_page_footers(seeds, tmp_path: Path) -> None:
    """The PDF is drawn by a child process: its page footers follow the report's language too."""
    table, _, result = seeds
    pdf_path = tmp_path / "bericht.pdf"
    write_reports(table, result, None, None, pdf_path, language="de")
    text = subprocess.run(
        ["pdftotext", str(pdf_path), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "Anonymisierungsbericht · Seite 1 von" in text
    assert "page 1 of" not in text and "De-identification report" not in text


@pytest.mark.parametrize("language", ["en", "de", "fr", "es"])
def test_svg_caption_clear_of_the_band_labels(language: str) -> None:
    """The caption under the bars, on one line or two (German and French need two), starts a line's
    height below the bands' labels: it never touches them."""
    import re

    from kanon_engine.i18n import using

    bands = [{"label": "5–9", "low": 5, "high": 9, "before": 3, "after": 10}]
    with using(language):
        svg = class_size_svg(bands, k=5)
    rows = [
        (float(y), text) for y, text in re.findall(r'<text x="[\d.]+" y="([\d.]+)"[^>]*>([^<]*)</text>', svg)
    ]
    label_y = next(y for y, text in rows if text == "5–9")
    caption_y = [y for y, text in rows if y > label_y]
    assert caption_y and min(caption_y) - label_y >= 20
    assert max(caption_y) <= 260 - 6  # inside the drawing
