"""ARX's "Loss" objective (issue 12, item 7): the optimal search finds the true minimum (brute force over
the lattice), its lower bound never exceeds a satisfying generalization's value, and it is the default."""

from __future__ import annotations

import itertools

import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.base import METRIC
from kanon_engine.algorithms.full_domain import apply_transformation
from kanon_engine.errors import InfeasibleError
from kanon_engine.metrics.loss import DEFAULT_METRIC
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.project.project_file import Project


@pytest.fixture(scope="module")
def sample(sample_dir):
    project = Project.load(sample_dir / "sample_project.json")
    table, _ = project.load_table()
    config = project.config(table).with_changes(models=(KAnonymity(5),))
    return table, config


@pytest.mark.parametrize("limit", [0.0, 0.05])
def test_optimal_loss_is_the_brute_force_minimum(sample, limit: float) -> None:
    table, config = sample
    heights = [config.hierarchies[q].height for q in config.quasi_identifiers]
    best = None
    for levels in itertools.product(*(range(h + 1) for h in heights)):
        try:
            res = apply_transformation(table, config, levels, suppression_limit=limit, metric="loss")
        except InfeasibleError:
            continue
        value = res.metrics["loss"]
        if best is None or value < best - 1e-12:
            best = value
    found = get_algorithm("optimal", suppression_limit=limit, metric="loss").run(table, config)
    assert found.metrics["loss"] == pytest.approx(best)


def test_loss_is_the_default_objective() -> None:
    assert DEFAULT_METRIC == "loss" == METRIC.default
    assert get_algorithm("optimal").parameters["metric"] == "loss"
    assert METRIC.choice_label("loss").startswith("Balanced information loss")


def test_loss_is_zero_for_original_values_and_one_for_stars(sample) -> None:
    table, config = sample
    heights = tuple(config.hierarchies[q].height for q in config.quasi_identifiers)
    top = apply_transformation(table, config, heights, suppression_limit=0.0, metric="loss")
    assert top.metrics["loss"] == pytest.approx(1.0)
    bottom = apply_transformation(
        table, config, (0,) * len(heights), suppression_limit=1.0, metric="loss", enforce=False
    )
    assert bottom.metrics["loss"] == pytest.approx(0.0)
