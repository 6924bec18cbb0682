"""The workbench on Dask (issue 15): the Engine group set to Dask with no scheduler starts a local cluster
(here 2 worker processes); a project opens on it, optimal and Mondrian run through it with the figures of
the loaded table, the risk of a run comes from its group sizes, Cancel stops a run, a lattice node is
applied on it, and the export writes the bytes the loaded table gives."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("distributed")

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.metrics.risk import compare  # noqa: E402
from kanon_engine.project.project_file import Project  # noqa: E402
from kanon_engine.release.export import export_release  # noqa: E402
from kanon_engine.session.engines import is_streamed  # noqa: E402

pytestmark = pytest.mark.slow


def _on_dask(window, wait_idle):
    box = window.algorithm_panel.engine_box
    box.form.set_value("engine", "dask")
    box.form.set_value("workers", "2")
    assert not box.form.rows["workers"].isHidden() and box.form.rows["memory_limit"].isHidden()
    box._settled()  # the edit settles (the timer's work, without waiting for it)
    wait_idle(window, timeout=120_000)
    table = window.state.table
    assert is_streamed(table) and table.engine == "dask", window.message_bar.text()
    assert "a local cluster of 2 worker processes" in table.describe()
    assert "Engine: Dask — chosen in the engine settings." in box.current.text()
    return table


def _memory(sample_dir, algorithm: str):
    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    params = project.algorithm_params if algorithm == project.algorithm else {}
    return table, get_algorithm(algorithm, **params).run(table, project.config(table))


def test_the_window_on_a_local_dask_cluster(window, qtbot, sample_dir, wait_idle, tmp_path, reopen):
    import shutil

    shutil.copytree(sample_dir, tmp_path / "sample")
    sample_dir = tmp_path / "sample"
    window.open_project(sample_dir / "sample_project.json")
    wait_idle(window)
    source = _on_dask(window, wait_idle)
    for algorithm in ("optimal", "mondrian"):
        window.state.set_algorithm(algorithm)
        window.run()
        wait_idle(window, timeout=120_000)
        result = window.state.current_run.result
        assert result.engine == "dask" and not result.in_memory, window.message_bar.text()
        table, memory = _memory(sample_dir, algorithm)
        assert (result.n_classes, result.suppressed) == (memory.n_classes, memory.suppressed)
        assert (np.sort(result.class_sizes) == np.sort(memory.class_sizes)).all()
        window.tabs.setCurrentWidget(window.risk_panel)
        wait_idle(window)
        assert window.risk_panel.comparison.after.figures == compare(table, memory).after.figures
        assert "made by Dask (a cluster)" in window.risk_panel.status.text()
    # a lattice node applied through the cluster
    window.state.set_algorithm("optimal")
    window.run()
    wait_idle(window, timeout=120_000)
    levels = dict(window.state.current_run.result.transformation)
    levels["age"] += 1
    window.apply_node(levels)
    wait_idle(window, timeout=120_000)
    applied = window.state.current_run.result
    assert applied.engine == "dask" and applied.transformation == levels, window.message_bar.text()
    # the export streams through the cluster to the bytes of the loaded table's release
    window.state.set_algorithm("optimal")
    window.run()
    wait_idle(window, timeout=120_000)
    window.export()
    dialog = window.export_dialog
    target = tmp_path / "dask" / "release.csv"
    target.parent.mkdir()
    dialog.path_edit.setText(str(target))
    dialog.shuffle_check.setChecked(False)
    with qtbot.waitSignal(dialog.accepted, timeout=120_000):
        dialog.export_button.click()
    assert dialog.error is None, dialog.status.text()
    table, memory = _memory(sample_dir, "optimal")
    export_release(table, memory, tmp_path / "memory.csv")
    assert target.read_bytes() == (tmp_path / "memory.csv").read_bytes()
    # Cancel stops a run on the cluster; the source still works afterwards
    runs = len(window.state.runs)
    window.run()
    window.cancel()
    wait_idle(window, timeout=120_000)
    assert len(window.state.runs) == runs and "cancelled" in window.message_bar.text()
    window.run()
    wait_idle(window, timeout=120_000)
    assert len(window.state.runs) == runs + 1 and window.state.table is source
    # the project keeps the choice
    path = sample_dir / "sample_project.json"
    window.save_to(path, None)
    saved = json.loads(path.read_text())["engine"]
    assert saved["engine"] == "dask" and saved["workers"] == 2
    figures = [(r.result.n_classes, r.result.suppressed) for r in window.state.runs]
    # closing the window ends the cluster
    cluster = source.cluster
    window.close()
    assert cluster.status.name in ("closed", "closing")
    # opened again: on Dask, and the saved runs rebuilt through the cluster (the latest five)
    again = reopen(path)
    assert again.state.table.engine == "dask"
    rebuilt = again.state.runs
    assert [(r.result.n_classes, r.result.suppressed) for r in rebuilt] == figures[-5:]
    assert all(r.restored and r.result.engine == "dask" for r in rebuilt)
    again.close()
