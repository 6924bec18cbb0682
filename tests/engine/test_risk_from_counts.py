"""Release risk of a run that streamed its rows (:func:`kanon_engine.metrics.risk.compare_counts`): the
prosecutor figures and the risk distribution depend only on the class sizes (El Emam & Dankar 2008), so a
DuckDB run, which holds no rows, gives the figures :func:`~kanon_engine.metrics.risk.compare` finds in the
rows of the same run on the loaded table (independently: pandas groups the released rows)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.metrics.risk import assess_sizes, compare, compare_counts, risk_figures
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.project.project_file import Project
from kanon_engine.sources.backends.duckdb_source import DuckDBSource


@pytest.fixture(scope="module")
def sample(sample_dir):
    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    with DuckDBSource(sample_dir / "sample_patients.csv") as source:
        yield project, table, source


@pytest.mark.parametrize(
    ("algorithm", "k", "drop"),
    [("optimal", 5, False), ("optimal", 50, True), ("datafly", 5, False), ("mondrian", 5, False)],
)
def test_streamed_risk_equals_the_risk_of_the_released_rows(sample, algorithm, k, drop):
    project, table, source = sample
    project = project.with_changes(models=(KAnonymity(k=k),))
    params = project.algorithm_params if algorithm != "mondrian" else {}

    def run(data):
        config = dataclasses.replace(project.config(data), drop_suppressed=drop)
        return get_algorithm(algorithm, **params).run(data, config)

    streamed, memory = run(source), run(table)
    assert not streamed.in_memory
    counted, rows = compare_counts(streamed, threshold=0.1), compare(table, memory, threshold=0.1)
    assert counted.after.figures == rows.after.figures
    assert counted.after.risk_distribution() == rows.after.risk_distribution()
    assert counted.before is not None and counted.before.figures == rows.before.figures
    assert counted.before.risk_distribution() == rows.before.risk_distribution()


def test_the_suppressed_records_are_one_group_by_hand(sample):
    """By hand: the release has the run's classes; the suppressed records (all *) are in no group."""
    project, _table, source = sample
    result = get_algorithm("optimal", **project.algorithm_params).run(source, project.config(source))
    assert result.suppressed > 0
    after = compare_counts(result).after.figures
    groups, assessed = result.n_classes, 2000 - result.suppressed
    assert after.classes == groups and after.records == assessed and after.suppressed == result.suppressed
    assert after.prosecutor_average == pytest.approx(groups / assessed)
    assert after.smallest_class == int(result.class_sizes.min())


def test_assess_sizes_is_risk_figures():
    sizes = np.array([1, 2, 5, 10])
    a = assess_sizes(("a",), sizes, threshold=0.3)
    assert a.figures == risk_figures(sizes, 0, 0.3)
    assert a.figures.records_above_threshold == 3  # 1/1 and 1/2 above 30 %
    # the bands (0, 1 %], (1, 2 %], (2, 5 %], (5, 10 %], (10, 20 %], (20, 34 %], (34, 50 %], (50, 100 %]
    assert [d["records"] for d in a.risk_distribution()] == [0, 0, 0, 10, 5, 0, 2, 1]


def test_points_counted_above_the_leaves_give_no_original_figures(sample):
    """Points counted at a coarser level than the leaves (a table too large for its distinct
    combinations) do not tell the original data's groups: no figures for it, the release's still."""
    import types

    project, _table, source = sample
    result = get_algorithm("optimal", **project.algorithm_params).run(source, project.config(source))
    counted = types.SimpleNamespace(floor=(1, 0, 0, 0), enc=result.plan.counted.enc)
    coarse = dataclasses.replace(result, plan=dataclasses.replace(result.plan, counted=counted))
    found = compare_counts(coarse)
    assert found.before is None and found.after.figures == compare_counts(result).after.figures


def test_mondrian_cut_by_the_engine_gives_no_original_figures(sample, monkeypatch):
    """Mondrian past the memory budget keeps each box's points only while it runs: its counted points
    are a stand-in (one group of every record), which must not be shown as the original data's risk;
    the release's figures still come from its groups."""
    from kanon_engine.sources.plan import points

    project, _table, source = sample
    monkeypatch.setattr(points, "POINT_BUDGET", 600)
    result = get_algorithm("mondrian").run(source, project.config(source))
    assert not result.plan.counted.holds_points
    found = compare_counts(result)
    assert found.before is None
    assert found.after.figures.classes == result.n_classes
    assert found.after.figures.smallest_class == int(result.class_sizes.min())
