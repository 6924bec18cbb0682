"""One rule for missing values (issue 12, item 5): every algorithm releases a missing cell as an empty
cell (never the text "(missing)"), the root stays "*", and the report's examples are real values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.full_domain import apply_transformation
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.release.fileio import write_table
from kanon_engine.report.build import build_report


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(5)
    n = 400
    frame = pd.DataFrame(
        {
            "plz": rng.choice(["01067", "01307", "04109", "10115", "10437"], n).astype(object),
            "sex": rng.choice(["w", "m"], n).astype(object),
        }
    )
    frame.loc[rng.choice(n, 30, replace=False), "plz"] = np.nan
    frame.loc[rng.choice(n, 20, replace=False), "sex"] = np.nan
    table = Table.from_frame(frame)
    hier = {q: default_hierarchy(q, frame[q], table.column_types[q]) for q in ("plz", "sex")}
    return table, AnonymizationConfig(("plz", "sex"), hier, (KAnonymity(3),))


def _check(table: Table, release: pd.DataFrame, column: str) -> None:
    released = release[column].astype(object)
    assert not released.isin(["(missing)", ""]).any()
    was_missing = released[table.frame[column].isna().to_numpy()]
    assert (was_missing.isna() | (was_missing == "*")).all()  # empty, or * (suppressed, or the root)
    assert was_missing.isna().any()


def test_full_domain_releases_missing_as_empty_cells(case) -> None:
    table, config = case
    result = apply_transformation(table, config, (2, 0), suppression_limit=0.1)
    assert result.release["plz"].dropna().str.endswith("*").all()  # 01*** and so on
    for column in ("plz", "sex"):
        _check(table, result.release, column)


@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "mondrian", "mondrian-relaxed"])
def test_every_algorithm_releases_missing_as_empty_cells(case, algorithm: str) -> None:
    table, config = case
    result = get_algorithm(algorithm, **({} if "mondrian" in algorithm else {"suppression_limit": 0.1})).run(
        table, config
    )
    for column in ("plz", "sex"):
        _check(table, result.release, column)


def test_root_level_stays_a_star(case) -> None:
    table, config = case
    result = apply_transformation(table, config, (5, 1), suppression_limit=0.0)
    assert (result.release["plz"] == "*").all() and (result.release["sex"] == "*").all()


def test_written_release_has_empty_fields(case, tmp_path) -> None:
    table, config = case
    result = apply_transformation(table, config, (2, 0), suppression_limit=0.1)
    write_table(result.release, tmp_path / "r.csv")
    text = (tmp_path / "r.csv").read_text(encoding="utf-8")
    assert "(missing)" not in text
    assert "\n,w\n" in text or "\n,m\n" in text or ",\n" in text


def test_report_examples_are_real_values(case) -> None:
    table, config = case
    result = apply_transformation(table, config, (4, 0), suppression_limit=0.1)
    report = build_report(table, result)
    example = report["facts"]["release"]["attributes"]["plz"]["example"]
    assert example not in (None, "(missing)", "", "*")
    for hs in report["configuration"]["hierarchies"]:
        for level in hs["levels"]:
            assert "(missing)" not in level["examples"]
    assert "(missing)" not in " ".join(report["summary"])
