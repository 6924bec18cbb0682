"""The workbench and files beyond this computer's memory (issue 15): it loads tables whole, so such a file
is refused in one sentence before a row is read (saying how to anonymize it with the DuckDB engine), and
the results name the engine that ran."""

from __future__ import annotations

import kanon_engine.sources.choose as choose


def test_a_file_beyond_memory_is_refused_with_the_way_forward(window, sample_dir, monkeypatch, wait_idle):
    monkeypatch.setattr(choose, "physical_memory", lambda: 1 << 20)  # a 1 MB computer
    window.load_data(sample_dir / "sample_patients.csv")
    wait_idle(window)
    assert window.state.table is None
    text = window.message_bar.text()
    assert window.message_bar.level == "error"
    assert "sample_patients.csv" in text and "so the workbench cannot open it" in text
    assert "--engine duckdb" in text


def test_results_name_the_engine(window, sample_dir, wait_idle):
    from kanon_gui.views.results_view import metrics_html

    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    window.run()
    wait_idle(window)
    html = metrics_html(window.state.runs[-1].result)
    assert "<small>Engine</small><br><b>In memory</b>" in html
    assert "In memory (pandas): the table is loaded whole." in html
