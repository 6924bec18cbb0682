"""The report's "Population uniques (estimated)" table (issue 31): shown when the run's models assume a
population (population uniqueness, k-map), with figures recomputed here from the written release and the
original table by the estimator functions; "no solution" where an estimator has none; absent otherwise.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms.optimal import Optimal
from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table
from kanon_engine.privacy import KAnonymity, PopulationUniqueness
from kanon_engine.privacy import population_estimates as P
from kanon_engine.privacy.k_map import KMapEstimate
from kanon_engine.project.project_file import Project
from kanon_engine.release.export import export_release
from kanon_engine.report.build import write_reports
from kanon_engine.report.html import render_html
from kanon_engine.report.population import population_section

QI = ["age", "sex", "zip"]
POPULATION = 5000


def _frame(n: int = 400, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(str),
            "sex": rng.choice(["female", "male"], n),
            "zip": rng.choice([f"{z:05d}" for z in range(13000, 13060, 3)], n),
            "diagnosis": rng.choice(["flu", "asthma", "diabetes"], n),
        }
    ).astype(object)


def _run(models: tuple, tmp_path: Path) -> tuple[Table, dict, Path, Path]:
    table = Table.from_frame(_frame())
    roles = {q: Role.QUASI_IDENTIFIER for q in QI} | {"diagnosis": Role.INSENSITIVE}
    config = Project(roles=roles, models=models).config(table)
    result = Optimal(suppression_limit=0.05).run(table, config)
    release, html = tmp_path / "release.csv", tmp_path / "report.html"
    export_release(table, result, release)
    report = write_reports(table, result, None, html, None, release)
    return table, report, release, html


def _estimates(sizes: np.ndarray) -> dict:
    return P.population_uniques(sizes, POPULATION).to_dict()


@pytest.mark.parametrize(
    "models",
    [
        pytest.param((PopulationUniqueness(0.05, POPULATION, "dankar"),), id="population-uniqueness"),
        pytest.param((KMapEstimate(3, population_size=POPULATION),), id="k-map"),
    ],
)
def test_report_estimates_are_those_of_the_written_release(models, tmp_path: Path) -> None:
    table, report, release, html = _run(models, tmp_path)
    written = pd.read_csv(release, dtype=str, keep_default_na=False)
    kept = written[~(written[QI] == "*").all(axis=1)]  # suppressed records belong to no group
    after = _estimates(kept.groupby(QI).size().to_numpy())
    before = _estimates(table.frame.groupby(QI).size().to_numpy())
    for side, expected in (("before", before), ("after", after)):
        found = report["risk"][side]["population_uniques"]
        assert found["population_size"] == POPULATION and found["records"] == expected["records"]
        assert found["dankar_chooses"] == expected["dankar_chooses"]
        for key in ("pitman", "zayatz", "snb", "dankar"):
            assert (found[key] is None) == (expected[key] is None), key
            if expected[key] is not None:
                assert found[key] == pytest.approx(expected[key], rel=1e-9), key
    text = html.read_text(encoding="utf-8")
    assert "Population uniques (estimated)" in text and "5,000 people" in text
    assert "Dankar et al.&#39;s rule chose" in text or "Dankar et al.'s rule chose" in text
    german = render_html({**report, "language": "de"})
    assert "Population uniques (estimated)" not in german and "no solution" not in german


def test_no_solution_is_said_never_zero() -> None:
    """An estimator without a solution shows "no solution", a real zero shows 0 %."""
    found = {"pitman": None, "zayatz": 0.2, "snb": None, "dankar": 0.2, "dankar_chooses": "zayatz"}
    found |= {"population_size": 1000, "records": 50, "sample_uniques": 7}
    none = {"pitman": 0.0, "zayatz": 0.0, "snb": None, "dankar": 0.0, "dankar_chooses": None}
    none |= {"population_size": 1000, "records": 50, "sample_uniques": 0}
    section = population_section(
        {"population_uniques": found}, {"population_uniques": none}, lambda rows, *a: rows
    )
    assert section is not None
    rows = {r[0]: r[1:] for r in section["figures"]}
    assert rows["Pitman (1996)"][0] == "no solution" and rows["Pitman (1996)"][1].startswith("0.0")
    assert rows["SNB (Chen & Keller-McNulty 1998)"] == ["no solution", "no solution"]
    assert rows["Dankar et al.'s rule"][0].endswith("(Zayatz)")
    assert "1,000 people" in section["sentence"] and "Zayatz for the original data" in section["sentence"]


def test_no_population_no_table(tmp_path: Path) -> None:
    _, report, _, html = _run((KAnonymity(2),), tmp_path)
    assert "population_uniques" not in report["risk"]["after"]
    assert "Population uniques (estimated)" not in html.read_text(encoding="utf-8")


def test_chart_marks_groups_below_k_only_when_the_run_asks_for_k(tmp_path: Path) -> None:
    """A run with a risk-based model alone has no k: its group-size chart must not say 'red: below k = 2'."""
    (tmp_path / "pop").mkdir()
    (tmp_path / "k3").mkdir()
    _, _, _, html = _run((PopulationUniqueness(0.05, 5000, "dankar"),), tmp_path / "pop")
    text = html.read_text(encoding="utf-8")
    assert "group size (records sharing their quasi-identifier values)" in text and "red: below k" not in text
    _, _, _, html = _run((KAnonymity(3),), tmp_path / "k3")
    assert "red: below k = 3" in html.read_text(encoding="utf-8")
