"""Text (issue 27): every figure the workbench's results summary shows about a release is one of its
facts, formatted; the quality metrics are the run's metrics under their names, and the run time its own.
The same runs as the report's text test (tests/engine/test_facts_text.py), in English, German and French.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest

from kanon_engine.i18n import formats, using
from kanon_engine.metrics.labels import metric_label
from kanon_engine.project.project_file import Project
from kanon_engine.report.facts import quality_metrics, result_facts
from kanon_gui.state import Run
from kanon_gui.views.history_view import run_line
from kanon_gui.views.results_view import metrics_html
from tests.engine.test_facts_text import RUNS, allowed, run, tokens


@pytest.mark.parametrize("name", sorted(RUNS))
@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_every_figure_of_the_results_summary_is_a_fact(tmp_path: Path, name: str, language: str) -> None:
    from kanon_engine.cli.anonymize import run_project

    run(tmp_path, RUNS[name])
    project = Project.load(tmp_path / "p.json")
    table, _warnings = project.load_table()
    result = run_project(project, table)
    with using(language):
        facts = result_facts(result, table)
        ok = allowed(facts)
        ok |= {
            t for key, v in quality_metrics(result.metrics).items() for t in tokens(metric_label(key).show(v))
        }
        ok |= set(tokens(formats.decimal(result.runtime_seconds, 2, fixed=True)))
        ok |= set(tokens(formats.count(result.nodes_checked)))
        html = metrics_html(result, facts)
        for value in re.findall(r"<b>(.*?)</b>", html):
            for token in tokens(unescape(value)):
                assert token in ok, f"{token!r} in {value!r} is no fact of the release"
        line = run_line(Run("run", result, table)).split("\n")[-1]  # the history's figures line
        for token in tokens(line):
            assert token in ok | set(tokens(formats.decimal(result.runtime_seconds, 2, fixed=True)))
