"""Issue 12, items 11 and 16 and restored runs: a date column's distribution in calendar bins with every
bar labelled, chart titles in plain words, the lattice's metric filter in percent with enough decimals
(label and value pinned), and a restored run's lattice view saying why there is no lattice and offering
to run again."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.table import Table
from kanon_engine.hierarchy import Hierarchy, default_hierarchy
from kanon_engine.present.chart_data import date_distributions
from kanon_gui.state import Run
from kanon_gui.views.charts import ChartsView
from kanon_gui.views.lattice_view import TEXT as LATTICE_TEXT
from kanon_gui.views.lattice_view import LatticeView


@pytest.fixture
def admissions() -> tuple[Table, object]:
    """400 German-format admission dates over three years, released by month (full-domain)."""
    rng = np.random.default_rng(3)
    days = pd.to_datetime("2022-01-01") + pd.to_timedelta(rng.integers(0, 1096, 400), unit="D")
    frame = pd.DataFrame(
        {
            "Aufnahmedatum": days.strftime("%d.%m.%Y"),
            "Geschlecht": rng.choice(["w", "m"], 400),
        }
    )
    frame.loc[:3, "Aufnahmedatum"] = None
    table = Table.from_frame(frame)
    hs = {c: default_hierarchy(c, table.frame[c], table.column_types[c]) for c in frame.columns}
    config = AnonymizationConfig(tuple(frame.columns), hs, build_models(5))
    result = get_algorithm("optimal").run(table, config)
    return table, result


def test_date_distribution_in_quarters_with_missing_and_released_months(admissions) -> None:
    table, _ = admissions
    original = table.frame["Aufnahmedatum"]
    released = pd.Series(
        pd.to_datetime(original, format="%d.%m.%Y").dt.strftime("%Y-%m").where(original.notna()), dtype=object
    )
    orig, rel, unit, same_bins = date_distributions(original, released, "%d.%m.%Y", None, rows=20)
    assert unit == "quarter" and same_bins and list(orig.index[:2]) == ["Q1 2022", "Q2 2022"]
    assert orig.index[-1] == "(missing)" and orig["(missing)"] == 4 and orig.sum() == 400
    # months released: counted on the same quarters, bar beside bar
    assert list(rel.index) == list(orig.index) and rel.tolist() == orig.tolist()
    # a release by year: the original is binned by year too, both under the same labels (issue 27)
    years = released.str[:4]
    orig_years, rel_years, unit, same_bins = date_distributions(original, years, "%d.%m.%Y", None, rows=20)
    assert list(rel_years.index[:3]) == ["2022", "2023", "2024"] and same_bins and unit == "year"
    assert list(orig_years.index) == list(rel_years.index)


def test_charts_label_every_date_bar_in_plain_words(qtbot, admissions) -> None:
    table, result = admissions
    view = ChartsView()
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)
    view.set_result(result, table)
    view.set_distribution_column("Aufnahmedatum")
    title = view.orig_plot.titleLabel.text.replace("<br>", " ")
    assert title.startswith("Original Aufnahmedatum, records per ")
    axis = view.orig_plot.getAxis("left")
    bars = len(axis._values)
    ((_, ticks),) = axis.tickValues(-1, bars, view.orig_plot.getViewBox().height())
    assert len(ticks) == bars  # every bar has its label
    labels = axis.tickStrings(ticks, 1, 1)
    assert all(label and "%" not in label and not label[:4].isdigit() or label.isdigit() for label in labels)
    sizes_title = view.sizes_plot.getPlotItem().titleLabel.text.replace("<br>", " ")  # long titles wrap
    assert sizes_title.startswith(f"Group sizes: {result.n_classes:,} groups, ")
    assert "class" not in sizes_title
    assert view.status.text() == f"Optimal, k = 5: {result.records:,} records."
    view.set_distribution_column("Geschlecht")
    loss = view.loss_plot.getPlotItem()
    loss_axis = loss.getAxis("bottom")
    assert loss_axis.tickStrings([0.0, 0.4, 1.0], 1, 1) == ["0 %", "40 %", "100 %"]
    texts = [it.textItem.toPlainText() for it in loss.items if type(it).__name__ == "TextItem"]
    assert texts and all(t.endswith(" %") for t in texts)  # percent, not fractions


def test_lattice_metric_filter_in_percent(qtbot) -> None:
    """Loss is a share: the filter's title names it, its boxes show percent with the decimals that tell
    the nodes apart, and the nodes at either end pass the filter the boxes show."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"age": rng.integers(20, 80, 300).astype(str), "sex": rng.choice(["F", "M"], 300)})
    table = Table.from_frame(frame)
    hs = {c: default_hierarchy(c, table.frame[c], table.column_types[c]) for c in frame.columns}
    config = AnonymizationConfig(("age", "sex"), hs, build_models(5))
    result = get_algorithm("optimal", metric="loss").run(table, config)
    view = LatticeView()
    qtbot.addWidget(view)
    view.set_result(result)
    rec = result.lattice
    assert view.metric_box.title() == "Information lost (Loss, as in ARX)"
    assert view.metric_min.suffix() == " %" and view.metric_max.maximum() == 100.0
    finite = np.unique(rec.metric[np.isfinite(rec.metric)])
    shown = {round(v * 100, view.metric_min.decimals()) for v in finite}
    assert len(shown) == len(finite)  # enough decimals: distinct values stay distinct
    view.metric_check.setChecked(True)
    assert len(view.displayed_nodes()) == int(np.isfinite(rec.metric).sum())  # both ends included
    lo = float(finite[1])
    view.metric_min.setValue(round(lo * 100, view.metric_min.decimals()))
    kept = view.displayed_nodes()
    assert len(kept) == int((rec.metric >= lo - 1e-12).sum()) and float(rec.metric[kept].min()) >= lo - 1e-9
    text = view.describe_node(int(rec.optimum))
    assert "Information lost (Loss, as in ARX): " in text and text.split("ARX): ")[1].split("<")[0].endswith(
        " %"
    )


def test_a_restored_run_says_why_there_is_no_lattice(
    window, qtbot, sample_dir: Path, tmp_path, wait_idle, reopen
):
    work = tmp_path / "sample"
    shutil.copytree(sample_dir, work)
    window.open_project(work / "sample_project.json")
    wait_idle(window)
    window.run()
    wait_idle(window)
    assert window.save_to(work / "sample_project.json", None)
    again = reopen(work / "sample_project.json")
    run = again.state.current_run
    assert run is not None and run.restored and run.result.lattice is None
    again.tabs.setCurrentWidget(again.analysis_panel)
    again.analysis_panel.show_view("lattice")
    view = again.analysis_panel.lattice_view
    assert view.message.text() == LATTICE_TEXT["restored"].format(run=run.label)
    assert "no lattice" not in view.message.text().lower() and view.rerun_button.isVisibleTo(view)
    view.rerun_button.click()
    wait_idle(again)
    qtbot.waitUntil(lambda: view.record is not None, timeout=30_000)
    assert len(again.state.runs) == 2 and again.state.current_run.result.lattice is not None
    assert not view.rerun_button.isVisibleTo(view)


def test_a_run_of_another_algorithm_names_it_in_words(qtbot) -> None:
    frame = pd.DataFrame({"age": [str(a) for a in range(20, 60)] * 3, "sex": ["F", "M"] * 60})
    table = Table.from_frame(frame)
    hs = {"age": default_hierarchy("age", table.frame["age"], table.column_types["age"])}
    hs["sex"] = Hierarchy.from_rows("sex", [["F", "*"], ["M", "*"]])
    result = get_algorithm("mondrian").run(table, AnonymizationConfig(("age", "sex"), hs, build_models(3)))
    view = LatticeView()
    qtbot.addWidget(view)
    view.show_run(Run("#1 Mondrian, k = 3", result, table))
    assert view.message.text().startswith("Mondrian partitions the records")
    assert "'mondrian'" not in view.message.text()
