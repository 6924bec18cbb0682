"""Reopening a project restores every run of the history, each with its comparison and workload figures
(issue 27, item 5: the walk's first run, made before l-diversity and shuffling were chosen, came back as
a summary only, and the second without its workload figures)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.data.roles import Role

pytestmark = pytest.mark.gui


def test_every_run_comes_back_with_its_figures(window, qtbot, sample_dir: Path, tmp_path, wait_idle, reopen):
    work = tmp_path / "sample"
    shutil.copytree(sample_dir, work)
    window.open_project(work / "sample_project.json")
    wait_idle(window)
    state = window.state
    sensitive = state.columns_with(Role.SENSITIVE)
    assert sensitive, "the sample has a sensitive attribute"
    state.set_model_values(k=5, l=None)
    state.set_algorithm("local-recoding")
    window.run()
    wait_idle(window)
    state.set_model_values(k=5, l=2)
    state.set_output(shuffle_seed=11)
    state.set_algorithm("optimal", {"suppression_limit": 0.1})
    window.run()
    wait_idle(window)
    before = [run.result for run in state.runs]
    assert len(before) == 2 and before[0].config.fingerprint() != before[1].config.fingerprint()
    assert all(r.workload is not None for r in before)
    assert window.save_to(work / "sample_project.json", None)

    again = reopen(work / "sample_project.json")
    runs = again.state.runs
    assert [run.label for run in runs] == [run.label for run in state.runs]
    for old, run in zip(before, runs, strict=True):
        assert run.restored
        pd.testing.assert_frame_equal(run.result.release, old.release)
        assert (run.result.n_classes, run.result.suppressed) == (old.n_classes, old.suppressed)
        assert run.result.workload is not None
        assert run.result.workload.to_dict() == old.workload.to_dict()
    assert again.history.saved.text() == ""  # no run left as a summary only
    assert not again.history.note.isVisibleTo(again.history)
    assert again.state.is_stale(0) and not again.state.is_stale(1)  # run 1: other settings than now
