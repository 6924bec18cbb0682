"""The report's old single module, kept so that code written against it still imports: the report now
lives in :mod:`kanon_engine.report.build` (the report dict), :mod:`~kanon_engine.report.facts`,
:mod:`~kanon_engine.report.sentences`, :mod:`~kanon_engine.report.charts`,
:mod:`~kanon_engine.report.html` and :mod:`~kanon_engine.report.pdf`. New code imports from those."""

from kanon_engine.report.build import STALE_WARNING, build_report, write_reports
from kanon_engine.report.charts import class_size_bands, class_size_svg
from kanon_engine.report.html import SIGN_OFF, render_html, report_view, write_html
from kanon_engine.report.pdf import PDF_TIMEOUT, pdf_command, write_pdf
from kanon_engine.report.sentences import MINIMALITY_WARNING, STAR_MEANING, plain_summary

__all__ = [
    "MINIMALITY_WARNING",
    "PDF_TIMEOUT",
    "SIGN_OFF",
    "STALE_WARNING",
    "STAR_MEANING",
    "build_report",
    "class_size_bands",
    "class_size_svg",
    "pdf_command",
    "plain_summary",
    "render_html",
    "report_view",
    "write_html",
    "write_pdf",
    "write_reports",
]
