"""The population a report's estimates assume, and where it came from (issue 31, items 5-6): the run's
privacy model (its words and its estimator), a size typed in the workbench's Risk tab (carried through
the export plan), a population table, or none; the report's figures recomputed from the written release
with the estimator functions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kanon_engine import session
from kanon_engine.algorithms.optimal import Optimal
from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table
from kanon_engine.privacy import KAnonymity, PopulationUniqueness
from kanon_engine.privacy import population_estimates as P
from kanon_engine.privacy.k_map import KMapEstimate
from kanon_engine.project.project_file import Project
from kanon_engine.report.build import build_report
from kanon_engine.report.population import (
    FROM_MODEL,
    FROM_RISK_TAB,
    FROM_TABLE,
    NO_POPULATION,
    assumption_sentence,
    population_assumption,
)

QI = ["age", "sex", "zip"]


def _table(n: int = 400, seed: int = 7) -> Table:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(str),
            "sex": rng.choice(["female", "male"], n),
            "zip": rng.choice([f"{z:05d}" for z in range(13000, 13060, 3)], n),
        }
    )
    return Table.from_frame(frame.astype(object))


def _export(models: tuple, tmp_path: Path, typed: int | None) -> tuple[Table, dict, Path, str]:
    """Run, then export the release and its HTML report as the workbench does (the Risk tab's size in
    the plan); the report's data is read back from the JSON the HTML was made of."""
    table = _table()
    project = Project(roles={q: Role.QUASI_IDENTIFIER for q in QI}, models=models)
    result = Optimal(suppression_limit=0.05).run(table, project.config(table))
    release, html = tmp_path / "release.csv", tmp_path / "release_report.html"
    plan = session.ExportPlan(release, report_html=html, population_size=typed)
    session.export(table, project, result, plan)
    # the report's data from the same builder the export used
    report = build_report(table, result, project, release_path=release, population_size=typed)
    return table, report, release, html.read_text(encoding="utf-8")


def _recomputed(release: Path, size: int) -> dict:
    written = pd.read_csv(release, dtype=str, keep_default_na=False)
    kept = written[~(written[QI] == "*").all(axis=1)]  # suppressed records belong to no group
    return P.population_uniques(kept.groupby(QI).size().to_numpy(), size).to_dict()


def test_a_population_typed_in_the_risk_tab_reaches_the_report(tmp_path: Path) -> None:
    table, report, release, html = _export((KAnonymity(3),), tmp_path, typed=20_000)
    assumed = report["risk"]["population"]
    assert assumed == {"size": 20_000, "source": FROM_RISK_TAB, "model": None, "estimator": ""}
    found, expected = report["risk"]["after"]["population_uniques"], _recomputed(release, 20_000)
    assert found["population_size"] == 20_000 and found["records"] == expected["records"]
    for key in ("pitman", "zayatz", "snb", "dankar"):
        assert (found[key] is None) == (expected[key] is None), key
        if expected[key] is not None:
            assert found[key] == pytest.approx(expected[key], rel=1e-9), key
    before = P.population_uniques(table.frame.groupby(QI).size().to_numpy(), 20_000).to_dict()
    found_before = report["risk"]["before"]["population_uniques"]
    assert found_before["zayatz"] == pytest.approx(before["zayatz"], rel=1e-9)
    assert "typed in the Risk tab for this report" in html and "20,000 people" in html
    assert "Population uniques (estimated)" in html


def test_the_runs_model_names_the_population_and_its_estimator(tmp_path: Path) -> None:
    model = PopulationUniqueness(0.05, 5000, "zayatz")
    _, report, release, html = _export((model,), tmp_path, typed=20_000)  # the run's model wins
    assumed = report["risk"]["population"]
    assert assumed["size"] == 5000 and assumed["source"] == FROM_MODEL
    assert assumed["model"] == model.short() and "Zayatz" in assumed["estimator"]
    found, expected = report["risk"]["after"]["population_uniques"], _recomputed(release, 5000)
    assert found["zayatz"] == pytest.approx(expected["zayatz"], rel=1e-9)
    assert "set in the run&#39;s privacy model" in html or "set in the run's privacy model" in html
    assert "5,000 people" in html and "20,000" not in html


def test_k_map_names_its_estimator_and_no_population_says_so(tmp_path: Path) -> None:
    kmap = KMapEstimate(3, population_size=6000, k_map_estimator="zero-truncated-poisson")
    assumed = population_assumption(type("Config", (), {"models": (kmap,)})())
    assert assumed["source"] == FROM_MODEL and assumed["size"] == 6000
    assert "zero-truncated" in assumed["estimator"].lower()
    _, report, _, html = _export((KAnonymity(3),), tmp_path, typed=None)
    assert report["risk"]["population"]["source"] == NO_POPULATION
    assert report["risk"]["after"].get("population_uniques") is None
    assert "No population size was given" in html and "Population uniques (estimated)" not in html


def test_a_population_table_is_only_as_good_as_the_table() -> None:
    class Counted:
        population_table = "census.csv"

        def short(self) -> str:
            return "k-map 5 on census.csv"

    config = type("Config", (), {"models": (Counted(),)})()
    assumed = population_assumption(config, typed=9000)
    assert assumed["source"] == FROM_TABLE and assumed["size"] is None
    assert "only as good as that table" in assumption_sentence(assumed)
