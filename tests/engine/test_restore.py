"""Reopening a project restores its runs (issue 12, item 15): the saved transformation is re-applied, a
Mondrian partitioning repeated, and nothing is restored under another configuration."""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.project.project_file import Project
from kanon_engine.project.restore import can_restore, restore_run


@pytest.fixture(scope="module")
def sample(sample_dir):
    project = Project.load(sample_dir / "sample_project.json")
    table, _ = project.load_table()
    return table, project.config(table)


def _saved(result) -> dict:
    """The summary as the project file keeps it (through JSON)."""
    return json.loads(json.dumps(result.summary(), default=float))


@pytest.mark.parametrize(
    ("algorithm", "params"),
    [("optimal", {"suppression_limit": 0.05}), ("datafly", {}), ("mondrian", {}), ("samarati", {})],
)
def test_a_saved_run_is_rebuilt_exactly(sample, algorithm: str, params: dict) -> None:
    table, config = sample
    original = get_algorithm(algorithm, **params).run(table, config)
    start = time.process_time()
    restored = restore_run(table, config, _saved(original))
    assert restored is not None
    assert time.process_time() - start < 2.0
    assert restored.algorithm == original.algorithm and restored.parameters == original.parameters
    pd.testing.assert_frame_equal(restored.release, original.release)
    assert (restored.row_class == original.row_class).all()
    assert restored.transformation == original.transformation


def test_nothing_is_restored_under_another_configuration(sample) -> None:
    table, config = sample
    summary = _saved(get_algorithm("optimal", suppression_limit=0.05).run(table, config))
    other_k = config.with_changes(models=(KAnonymity(10),))
    assert not can_restore(summary, other_k, table)
    assert restore_run(table, other_k, summary) is None
    sex = Hierarchy.from_rows("sex", [["F", "*"], ["M", "*"], ["", "*"]])
    other_hierarchy = config.with_changes(hierarchies={**config.hierarchies, "sex": sex})
    assert restore_run(table, other_hierarchy, summary) is None


def test_fingerprint_follows_every_setting(sample) -> None:
    _, config = sample
    assert config.fingerprint() == config.with_changes().fingerprint()
    assert config.fingerprint() != config.with_changes(drop_suppressed=True).fingerprint()
    assert config.fingerprint() != config.with_changes(shuffle_seed=3).fingerprint()


# --- issue 27, item 5: every run comes back, with its comparison and workload figures ------------------
def test_runs_made_with_other_settings_come_back_with_their_workload(sample, tmp_path, sample_dir) -> None:
    """The walk: local recoding at k=5, then optimal with l-diversity and shuffled rows; reopened, the
    first came back as a summary only and the second without its workload figures."""
    from kanon_engine.privacy.models import DistinctLDiversity
    from kanon_engine.project.restore import rebuild_run, saved_run
    from kanon_engine.workload.evaluate import with_workload
    from kanon_engine.workload.generate import default_workload

    table, config = sample
    project = Project.load(sample_dir / "sample_project.json")
    sensitive = next(c for c, r in project.roles.items() if r.value == "sensitive")
    first_config = config
    second_config = config.with_changes(
        models=(*config.models, DistinctLDiversity(2, sensitive)), shuffle_seed=7
    )
    runs = []
    for name, params, cfg in [
        ("local-recoding", {}, first_config),
        ("optimal", {"suppression_limit": 0.1}, second_config),
    ]:
        result = get_algorithm(name, **params).run(table, cfg)
        runs.append(with_workload(result, table, default_workload(table, cfg)))
    saved = project.with_changes(
        runs=tuple(json.loads(json.dumps(saved_run(r), default=float)) for r in runs),
        shuffle_seed=7,
        models=second_config.models,
        base_dir=sample_dir,
    )
    path = tmp_path / "p.kanon.json"
    saved.with_changes(data_path=sample_dir / project.data_path.name).save(path)
    again = Project.load(path)
    now = again.config(table)
    assert now.fingerprint() == second_config.fingerprint()
    for original, summary in zip(runs, again.runs, strict=True):
        rebuilt, why = rebuild_run(table, now, summary)
        assert why == "" and rebuilt is not None, original.algorithm
        assert rebuilt.config.fingerprint() == original.config.fingerprint()
        pd.testing.assert_frame_equal(rebuilt.release, original.release)  # shuffled rows in the same order
        assert rebuilt.n_classes == original.n_classes and rebuilt.suppressed == original.suppressed
        assert rebuilt.workload is not None
        assert rebuilt.workload.to_dict()["mean_error"] == original.workload.to_dict()["mean_error"]
        assert rebuilt.workload.to_dict() == original.workload.to_dict()


def test_a_run_whose_hierarchy_was_edited_since_is_not_rebuilt_and_says_why(sample) -> None:
    from kanon_engine.project.restore import rebuild_run, saved_run

    table, config = sample
    summary = json.loads(json.dumps(saved_run(get_algorithm("datafly").run(table, config)), default=float))
    summary["label"] = "#1 Datafly, k = 5"
    sex = Hierarchy.from_rows("sex", [["F", "*"], ["M", "*"], ["", "*"]])
    edited = config.with_changes(hierarchies={**config.hierarchies, "sex": sex})
    rebuilt, why = rebuild_run(table, edited, summary)
    assert rebuilt is None and why.startswith("#1 Datafly, k = 5 was made with hierarchies")


def test_an_older_project_file_without_run_settings_restores_as_before(sample) -> None:
    from kanon_engine.project.restore import rebuild_run

    table, config = sample
    summary = _saved(get_algorithm("datafly").run(table, config))
    assert rebuild_run(table, config, summary)[0] is not None
    assert rebuild_run(table, config.with_changes(models=(KAnonymity(10),)), summary) == (None, "")
