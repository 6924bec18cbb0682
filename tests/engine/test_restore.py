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
