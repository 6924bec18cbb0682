"""The workbench and files beyond this computer's memory (issue 15, item 5): such a file is opened as a
table source (DuckDB) instead of being loaded: the grid shows its first rows as a labelled preview with
the engine's row count, the column summaries come from the engine's value counts, runs go through the
engine in the task runner (progress, Cancel), the results show what the counts give, and the export
streams the release through the one writer, to the same bytes as the command line's.

A small CSV counts as "too large" by making the computer's memory 1 MB (``physical_memory``)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kanon_engine.sources.backends.choose as choose
from kanon_engine.algorithms import get_algorithm
from kanon_engine.project.project_file import Project
from kanon_engine.session.engines import is_streamed
from kanon_engine.session.profile import PREVIEW_ROWS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tiny_computer(monkeypatch):
    """A computer with 1 MB of memory: every data file is beyond it."""
    monkeypatch.setattr(choose, "physical_memory", lambda: 1 << 20)


def _open_streamed_project(window, sample_dir, wait_idle, algorithm: str | None = None):
    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    assert is_streamed(window.state.table), window.message_bar.text()
    if algorithm is not None:
        window.state.set_algorithm(algorithm)
    return window.state.table


def test_a_file_beyond_memory_opens_as_a_preview(window, sample_dir, tiny_computer, wait_idle):
    path = sample_dir / "sample_patients.csv"
    window.load_data(path)
    wait_idle(window)
    state, full = window.state, pd.read_csv(path, dtype=str, keep_default_na=False)
    assert is_streamed(state.table) and state.table.engine == "duckdb"
    # the engine's row count, the first rows as the preview, and the grid shows only them
    assert state.table.n_rows == len(full) == 2000
    assert list(state.preview.columns) == list(full.columns)
    assert len(state.preview) == PREVIEW_ROWS == window.data_panel.model.rowCount()
    assert (state.preview["zip"].to_numpy() == full["zip"].head(PREVIEW_ROWS).to_numpy()).all()
    caption = window.data_panel.caption.text()
    assert "Preview" in caption and "the first 500 of 2,000 rows" in caption and "DuckDB" in caption
    assert "would need about" in caption  # why the engine was chosen, in the engine's words
    # the column profile counts every row, not the preview's (independently: pandas on the whole file)
    counts = state.distinct("ward")
    expected = full["ward"].value_counts()
    assert dict(counts) == dict(expected) and int(counts.sum()) == 2000
    assert state.table.column_types["age"].kind.value == "integer"
    # the suggestions saw the names, as for a loaded table
    assert state.role("diagnosis").value == "sensitive"
    assert "without loading it: 2,000 rows, 9 columns" in window.message_bar.text()


def _engine_run(sample_dir, algorithm: str, params: dict):
    """The same project run on the table loaded whole (an independent path: pandas, no DuckDB)."""
    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    return get_algorithm(algorithm, **params).run(table, project.config(table))


@pytest.mark.parametrize("algorithm", ["optimal", "datafly"])
def test_runs_go_through_the_engine(window, sample_dir, tiny_computer, wait_idle, algorithm):
    _open_streamed_project(window, sample_dir, wait_idle, algorithm)
    window.run()
    wait_idle(window)
    result = window.state.current_run.result
    assert result.engine == "duckdb" and not result.in_memory
    memory = _engine_run(sample_dir, algorithm, window.state.project.algorithm_params)
    assert result.transformation == memory.transformation
    assert result.suppressed == memory.suppressed and result.n_classes == memory.n_classes
    assert (np.sort(result.class_sizes) == np.sort(memory.class_sizes)).all()
    assert result.metrics["discernibility"] == pytest.approx(memory.metrics["discernibility"])
    panel = window.results_panel
    assert panel.streamed_note.isVisible() and not panel.grids.isVisible()
    assert panel.engine_line.text().startswith("Engine: DuckDB — sample_patients.csv (0.1 MB) would need")
    assert "would need about" in panel.engine_line.text()
    # the groups from the counted points: the released values of each group as the loaded run has them
    model = panel.class_model
    assert model.rowCount() == memory.n_classes
    rc, rel = memory.row_class, memory.release
    for c in (0, memory.n_classes // 2, memory.n_classes - 1):
        first = int(np.flatnonzero(rc == c)[0])
        shown = [model.index(model.row_of_class(c), 2 + i).data() for i in range(len(model._qi))]
        assert shown == [str(rel[q].iloc[first]) for q in model._qi]
    # the lattice of a full-domain search is there; views that need rows say so
    window.tabs.setCurrentWidget(window.analysis_panel)
    window.analysis_panel.show_view("partitions")
    qt_wait = window.analysis_panel.partition_view.info.text()
    assert "needs the records in memory" in qt_wait
    assert window.analysis_panel.lattice_view.record is not None


def test_cancel_a_streamed_run(window, sample_dir, tiny_computer, wait_idle):
    source = _open_streamed_project(window, sample_dir, wait_idle)
    seen: list[str] = []
    window.runner.progress.connect(lambda _t, _c, _f, message: seen.append(message))
    window.run()
    window.cancel()
    wait_idle(window)
    assert window.state.runs == [] and "cancelled" in window.message_bar.text()
    # the source is still open and usable: the next run finishes
    window.run()
    wait_idle(window)
    assert window.state.current_run is not None and window.state.table is source
    # closing the window removes DuckDB's folder (the encoded rows are patient data)
    assert source.work.exists()
    window.close()
    assert not source.work.exists()


def test_cancel_stops_the_profile_of_a_large_file(window, sample_dir, tiny_computer, wait_idle, monkeypatch):
    """Cancel during the engine's pass over the file (value counts): nothing is opened, and DuckDB's
    work folder is removed."""
    import kanon_engine.session.profile as large_file

    closed = []
    real = large_file.open_source

    def opened(*args, **kwargs):
        source = real(*args, **kwargs)
        window.runner.cancel()  # as if the user pressed Cancel while the file is read
        close = source.close
        source.close = lambda: (closed.append(True), close())[1]
        return source

    monkeypatch.setattr(large_file, "open_source", opened)
    window.load_data(sample_dir / "sample_patients.csv")
    wait_idle(window)
    assert window.state.table is None and closed == [True]


def _cli_release(sample_dir: Path, out: Path) -> bytes:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    project = str(sample_dir / "sample_project.json")
    cmd = [sys.executable, "-m", "kanon_engine", "anonymize", "--project", project]
    cmd += ["--engine", "duckdb", "--output", str(out), "--report", str(out.with_suffix(".json"))]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.with_suffix(".json").read_text())["engine"]["name"] == "duckdb"
    return out.read_bytes()


def test_export_streams_the_same_bytes_as_the_command_line(
    window, qtbot, sample_dir, tiny_computer, wait_idle, tmp_path
):
    _open_streamed_project(window, sample_dir, wait_idle)
    window.run()
    wait_idle(window)
    window.export()
    dialog = window.export_dialog
    assert not dialog.html_check.isEnabled() and not dialog.mapping_check.isEnabled()
    assert "streamed" in dialog.streamed_label.text()
    target = tmp_path / "gui" / "release.csv"
    target.parent.mkdir()
    dialog.path_edit.setText(str(target))
    dialog.shuffle_check.setChecked(False)  # the project asks for no shuffle, as the command line reads it
    with qtbot.waitSignal(dialog.accepted, timeout=120_000):
        dialog.export_button.click()
    assert dialog.error is None, dialog.status.text()
    gui = target.read_bytes()
    cli = _cli_release(sample_dir, tmp_path / "cli.csv")
    assert hashlib.sha256(gui).hexdigest() == hashlib.sha256(cli).hexdigest()
    # and the release the loaded table would give (the engine's promise: the same bytes everywhere)
    from kanon_engine.release.export import export_release

    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    memory = get_algorithm(project.algorithm, **project.algorithm_params).run(table, project.config(table))
    export_release(table, memory, tmp_path / "memory.csv")
    assert (tmp_path / "memory.csv").read_bytes() == gui
    assert sample_dir.joinpath("sample_patients.csv").is_file()  # never written over


def test_engine_settings_open_the_data_again_and_are_saved(window, sample_dir, wait_idle, tmp_path):
    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    assert not is_streamed(window.state.table)
    box = window.algorithm_panel.engine_box
    assert not box.form.rows["memory_limit"].isHidden() and box.form.rows["scheduler"].isHidden()
    assert "loaded whole" in box.current.text()
    roles = dict(window.state.project.roles)
    box.form.set_value("engine", "duckdb")
    box.form.set_value("memory_limit", "1GB")
    box.form.set_value("temp_dir", str(tmp_path))
    box._settled()  # the edit settles (the timer's work, without waiting for it)
    wait_idle(window)
    state = window.state
    assert is_streamed(state.table) and state.table.memory_limit == "1024MiB"
    assert state.table.work.parent == tmp_path and state.project.roles == roles
    assert "chosen in the engine settings" in box.current.text()
    window.save_to(tmp_path / "p.kanon.json", None)
    saved = json.loads((tmp_path / "p.kanon.json").read_text())["engine"]
    assert saved["engine"] == "duckdb" and saved["memory_limit"] == "1GB"
    # back to memory: loaded whole again, DuckDB's folder (encoded patient rows) removed
    work = state.table.work
    box.form.set_value("engine", "memory")
    box._settled()
    wait_idle(window)
    assert not is_streamed(state.table) and not work.exists()


def test_memory_chosen_for_a_file_beyond_memory_is_refused(window, sample_dir, tiny_computer, wait_idle):
    from kanon_engine.sources.backends.settings import EngineSettings

    window.state.set_engine(EngineSettings(engine="memory"))
    window.load_data(sample_dir / "sample_patients.csv")
    wait_idle(window)
    assert window.state.table is None and window.message_bar.level == "error"
    assert "cannot be loaded whole" in window.message_bar.text()
    assert "Automatic or DuckDB" in window.message_bar.text()


def test_results_name_the_engine(window, sample_dir, wait_idle):
    from kanon_gui.views.results_view import metrics_html

    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    window.run()
    wait_idle(window)
    html = metrics_html(window.state.runs[-1].result)
    assert "<small>Engine</small><br><b>In memory</b>" in html
    assert "In memory (pandas): the table is loaded whole." in html
    assert window.results_panel.engine_line.text() == "Engine: In memory — the table is loaded whole."


def test_columns_whose_values_almost_all_differ_are_sampled(
    window, sample_dir, tiny_computer, wait_idle, monkeypatch
):
    """A record number or a name in a large file is summarized from its first rows (counting it whole
    would hold as many values as rows); it is counted whole when it becomes a quasi-identifier."""
    import kanon_engine.session.profile as large_file
    from kanon_engine.data.roles import Role

    monkeypatch.setattr(large_file, "SAMPLE_ROWS", 500)
    path = sample_dir / "sample_patients.csv"
    window.load_data(path)
    wait_idle(window)
    state, full = window.state, pd.read_csv(path, dtype=str, keep_default_na=False)
    sampled = {c for c in state.columns if state.is_sampled(c)}
    # independently: the columns with more than half distinct values in the first 500 rows
    assert sampled == {c for c in full.columns if full[c].head(500).nunique() > 250} >= {"patient_id", "name"}
    assert "patient_id" not in state.table._counts  # the source never counted it
    assert int(state.distinct("patient_id").sum()) == 500
    assert state.role("patient_id") == Role.IDENTIFIER  # the name still says so
    window.data_panel.show_column(state.columns.index("patient_id"))
    assert "nearly every value differs" in window.data_panel.summary.text()
    assert dict(state.distinct("ward")) == dict(full["ward"].value_counts())  # the others: every row
    # made a quasi-identifier: counted whole in a worker first
    window.attributes_panel.set_role("name", Role.QUASI_IDENTIFIER)
    wait_idle(window)
    assert state.role("name") == Role.QUASI_IDENTIFIER and not state.is_sampled("name")
    assert dict(state.distinct("name")) == dict(full["name"].value_counts())


def test_cancel_while_duckdb_encodes_the_rows_is_a_cancel(sample_dir):
    """DuckDB reads the encoded rows from a Python stream and wraps what it raises in its own error; a
    Cancel pressed meanwhile must arrive as a cancel (the window then says "cancelled", not "crashed")."""
    from kanon_engine.errors import Cancelled
    from kanon_engine.sources.backends.duckdb_source import DuckDBSource

    project = Project.load(sample_dir / "sample_project.json")
    with DuckDBSource(sample_dir / "sample_patients.csv") as source:
        config = project.config(source)

        def progress(fraction: float, message: str) -> None:
            if message.startswith("encoding rows"):  # inside DuckDB's read of the Python stream
                raise Cancelled()

        with pytest.raises(Cancelled):
            get_algorithm("optimal", **project.algorithm_params).run(source, config, progress=progress)
        # the source still works afterwards
        assert get_algorithm("optimal", **project.algorithm_params).run(source, config).n_classes > 0


def test_the_import_dialog_says_which_engine_will_read_the_file(window, sample_dir, tiny_computer):
    window.open_path(sample_dir / "sample_patients.csv")
    dialog = window.import_dialog
    assert dialog.engine_label.text().startswith("Engine: DuckDB — sample_patients.csv (0.1 MB) would need")
    dialog.reject()


def test_the_import_dialog_says_nothing_of_a_file_that_fits(window, sample_dir):
    window.open_path(sample_dir / "sample_patients.csv")
    assert window.import_dialog.engine_label.isHidden()
    window.import_dialog.reject()


def test_a_streamed_mondrian_run_lists_its_groups(window, sample_dir, tiny_computer, wait_idle):
    """Mondrian on the source: the groups and their released ranges come from the partitioning of the
    counted points; they are those of the run on the loaded table."""
    _open_streamed_project(window, sample_dir, wait_idle, "mondrian")
    window.run()
    wait_idle(window)
    result = window.state.current_run.result
    assert result.engine == "duckdb" and result.transformation is None
    memory = _engine_run(sample_dir, "mondrian", window.state.project.algorithm_params)
    assert (result.class_sizes == memory.class_sizes).all()
    model = window.results_panel.class_model
    for c in range(memory.n_classes):
        first = int(np.flatnonzero(memory.row_class == c)[0])
        shown = [model.index(model.row_of_class(c), 2 + i).data() for i in range(len(model._qi))]
        assert shown == [str(memory.release[q].iloc[first]) for q in model._qi], c
    window.tabs.setCurrentWidget(window.analysis_panel)
    window.analysis_panel.show_view("charts")
    assert "need the records in memory" in window.analysis_panel.charts_view.status.text()


@pytest.mark.parametrize("k", [5, 400])
def test_streamed_partitioning_warns_as_the_loaded_one(sample_dir, k):
    """The warnings after a run (a column released as * throughout) for a streamed Mondrian run come from
    its classes' released values; they are those of the run on the loaded table."""
    from kanon_engine.privacy.models import KAnonymity
    from kanon_engine.project.validation import result_warnings
    from kanon_engine.sources.backends.duckdb_source import DuckDBSource

    project = Project.load(sample_dir / "sample_project.json").with_changes(models=(KAnonymity(k=k),))
    table, _warnings = project.load_table()
    memory = get_algorithm("mondrian").run(table, project.config(table))
    with DuckDBSource(sample_dir / "sample_patients.csv") as source:
        streamed = get_algorithm("mondrian").run(source, project.config(source))
        assert not streamed.in_memory
        assert [i.message for i in result_warnings(streamed)] == [i.message for i in result_warnings(memory)]


def test_a_lattice_node_is_applied_through_the_engine(window, sample_dir, tiny_computer, wait_idle):
    """A click in the lattice of a streamed run applies that node on the source (the command line's
    ``apply``); the new run holds no rows either, and has the figures of the node on the loaded table."""
    from kanon_engine.algorithms.full_domain import apply_transformation

    _open_streamed_project(window, sample_dir, wait_idle)
    window.run()
    wait_idle(window)
    levels = dict(window.state.current_run.result.transformation)
    levels["age"] += 1  # a more general neighbour of the optimum (it satisfies k too)
    window.apply_node(levels)
    wait_idle(window)
    assert len(window.state.runs) == 2, window.message_bar.text()
    applied = window.state.current_run.result
    assert applied.engine == "duckdb" and not applied.in_memory and applied.transformation == levels
    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    limit = project.algorithm_params["suppression_limit"]
    memory = apply_transformation(
        table, project.config(table), tuple(levels.values()), suppression_limit=limit, metric="precision"
    )
    assert applied.suppressed == memory.suppressed and applied.n_classes == memory.n_classes


def test_the_risk_of_a_streamed_run_comes_from_its_group_sizes(window, sample_dir, tiny_computer, wait_idle):
    """The Risk tab of a DuckDB run: the release's prosecutor figures and distribution come from the class
    sizes (the suppressed records in no group, as every figure of a release counts them), the original
    data's from the counted points; they are those of the run on the loaded table. What needs the values
    says so."""
    from kanon_engine.i18n import formats
    from kanon_engine.metrics.risk import compare

    _open_streamed_project(window, sample_dir, wait_idle)
    window.run()
    wait_idle(window)
    result = window.state.current_run.result
    assert not result.in_memory and result.suppressed > 0
    panel = window.risk_panel
    window.tabs.setCurrentWidget(panel)
    wait_idle(window)
    counted = panel.comparison
    assert counted is not None and counted.before is not None
    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    memory = compare(table, _engine_run(sample_dir, "optimal", project.algorithm_params))
    assert counted.after.figures == memory.after.figures
    assert counted.before.figures == memory.before.figures
    assert counted.after.risk_distribution() == memory.after.risk_distribution()
    # by hand: the release's groups are the run's classes; the suppressed records are in none
    n_groups, assessed = result.n_classes, 2000 - result.suppressed
    assert counted.after.figures.classes == n_groups
    assert counted.after.figures.prosecutor_average == pytest.approx(n_groups / assessed)
    assert counted.after.figures.prosecutor_highest == pytest.approx(1 / result.class_sizes.min())
    shown = {panel.figures.verticalHeaderItem(i).text(): panel.figures.item(i, 1).text() for i in range(10)}
    assert shown["Prosecutor risk, average"] == formats.percent(n_groups / assessed, 1)
    assert shown["Groups"] == str(n_groups) and shown["Records assessed"] == formats.count(assessed)
    assert panel.figures.item(0, 0).text() == "2,000"  # the original data, from the counted points
    assert "computed from the sizes of its groups" in panel.status.text()
    assert "needs the records in memory" in panel.homogeneity_summary.text()
    assert not panel.explain_button.isEnabled() and panel.threshold.isEnabled()
    # a new threshold: the records at risk again from the sizes
    panel.threshold.setValue(10.0)
    wait_idle(window)
    assert panel.comparison.after.figures.records_above_threshold == int(
        result.class_sizes[result.class_sizes < 10].sum()
    )


def _sampled_file(window, sample_dir, wait_idle, monkeypatch):
    import kanon_engine.session.profile as large_file

    monkeypatch.setattr(large_file, "SAMPLE_ROWS", 500)
    window.load_data(sample_dir / "sample_patients.csv")
    wait_idle(window)
    assert window.state.is_sampled("name")


def _combo_role(window, column: str) -> str:
    panel = window.attributes_panel
    return panel.table.cellWidget(window.state.columns.index(column), 1).currentData()


def test_counting_a_sampled_column_runs_in_the_background(
    window, sample_dir, tiny_computer, wait_idle, monkeypatch
):
    """The whole count of a column summarized from its first rows is a task of the runner (the window
    goes on answering): the role changes only when the count is in; meanwhile progress and Cancel show."""
    import threading

    import kanon_gui.views.attributes_panel as attributes_panel
    from kanon_engine.data.roles import Role

    _sampled_file(window, sample_dir, wait_idle, monkeypatch)
    release, threads = threading.Event(), []
    real = attributes_panel.count_column

    def held(source, column, progress, typed=False):
        threads.append(threading.current_thread())
        release.wait(30)
        return real(source, column, progress, typed)

    monkeypatch.setattr(attributes_panel, "count_column", held)
    before = window.state.role("name")
    window.attributes_panel.set_role("name", Role.QUASI_IDENTIFIER)
    try:  # set_role returned while the count waits in a worker: submitted, not run on the GUI thread
        assert window.runner.is_busy("count:name") and window.state.role("name") == before
        assert window.cancel_button.isVisible() and window.progress.isVisible()
    finally:
        release.set()
    wait_idle(window)
    assert threads and threads[0] is not threading.main_thread()
    assert window.state.role("name") == Role.QUASI_IDENTIFIER and not window.state.is_sampled("name")
    assert not window.cancel_button.isVisible() and not window.progress.isVisible()


def test_cancel_while_a_column_is_counted_keeps_its_role(
    window, sample_dir, tiny_computer, wait_idle, monkeypatch
):
    import threading

    import kanon_gui.views.attributes_panel as attributes_panel
    from kanon_engine.data.roles import Role

    _sampled_file(window, sample_dir, wait_idle, monkeypatch)
    started = threading.Event()

    def endless(source, column, progress, typed=False):
        started.set()
        while True:  # a long pass over the file: it ends at the progress call after Cancel
            progress(0.1, "counting values: 1 rows read")
            threading.Event().wait(0.01)

    monkeypatch.setattr(attributes_panel, "count_column", endless)
    before = window.state.role("name")
    window.attributes_panel.set_role("name", Role.SENSITIVE)
    assert _combo_role(window, "name") == Role.SENSITIVE.value  # the combo shows the choice meanwhile
    assert started.wait(10)
    window.cancel()
    wait_idle(window)
    assert window.state.role("name") == before and window.state.is_sampled("name")
    assert _combo_role(window, "name") == before.value  # back to the role the column has
    assert "cancelled" in window.message_bar.text()
    assert not window.progress.isVisible()


def test_saved_runs_are_rebuilt_through_duckdb(
    window, sample_dir, tiny_computer, wait_idle, reopen, tmp_path
):
    """A project whose data opens on DuckDB gets its saved runs back: rebuilt through the engine in the
    background after the data is open, with the figures they were saved with."""
    import shutil

    work = tmp_path / "sample"
    shutil.copytree(sample_dir, work)
    _open_streamed_project(window, work, wait_idle)
    window.run()
    wait_idle(window)
    window.state.set_algorithm("mondrian")
    window.run()
    wait_idle(window)
    saved = [(r.result.n_classes, r.result.suppressed, r.result.algorithm) for r in window.state.runs]
    assert window.save_to(work / "sample_project.json", None)
    again = reopen(work / "sample_project.json")
    assert is_streamed(again.state.table)
    runs = again.state.runs
    assert [(r.result.n_classes, r.result.suppressed, r.result.algorithm) for r in runs] == saved
    assert all(r.restored and r.result.engine == "duckdb" and not r.result.in_memory for r in runs)
    assert again.history.note.isHidden() and "could not" not in again.history.note.text()
    assert again.state.current_run is runs[-1] and again.results_panel.class_model.rowCount() == saved[-1][0]


def test_a_saved_run_that_needs_the_rows_says_so(
    window, sample_dir, wait_idle, reopen, tmp_path, monkeypatch
):
    """A saved run of a kind that needs the records in memory (local suppression) cannot be rebuilt on
    DuckDB: the history says so in one sentence instead of dropping it silently."""
    import shutil

    work = tmp_path / "sample"
    shutil.copytree(sample_dir, work)
    window.open_project(work / "sample_project.json")
    wait_idle(window)
    window.state.set_algorithm("local-suppression")
    window.run()
    wait_idle(window)
    assert len(window.state.runs) == 1, window.message_bar.text()
    assert window.save_to(work / "sample_project.json", None)
    monkeypatch.setattr(choose, "physical_memory", lambda: 1 << 20)  # now the file is beyond memory
    again = reopen(work / "sample_project.json")
    assert is_streamed(again.state.table) and again.state.runs == []
    note = again.history.note.text()
    assert not again.history.note.isHidden()
    assert note.startswith("A saved run could not be rebuilt.") and "in memory" in note, note
