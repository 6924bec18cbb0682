"""Role suggestions made at import (kanon_engine.data.roles.suggest_roles)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.data import Role, read_table, suggest_roles

SHARED = Path(os.environ.get("KANON_SHARED", Path(__file__).resolve().parents[2] / ".." / "shared"))
SEEDS = SHARED / "datasets" / "seed_examples"
needs_shared = pytest.mark.skipif(not SEEDS.is_dir(), reason="shared/ datasets not available")


def by_column(frame: pd.DataFrame) -> dict:
    return {s.column: s for s in suggest_roles(frame)}


@needs_shared
def test_salary_employees_identifiers() -> None:
    s = by_column(read_table(SEEDS / "salary_employees.csv").frame)
    for name in ("id", "name", "address"):
        assert s[name].role is Role.IDENTIFIER, name
        assert s[name].flagged is False
        assert f"'{name}' looks like a direct identifier" in s[name].reason
    for name in ("gender", "age", "zip", "basic"):
        assert s[name].role is None, name


@needs_shared
def test_test_scores_first_and_last_name() -> None:
    s = by_column(read_table(SEEDS / "test_scores.csv").frame)
    assert s["first_name"].role is Role.IDENTIFIER
    assert s["last_name"].role is Role.IDENTIFIER
    assert s["age"].role is None


def test_unique_column_is_flagged_not_decided_silently() -> None:
    frame = pd.DataFrame({"code": [f"K{i}" for i in range(20)], "sex": ["M", "F"] * 10})
    s = by_column(frame)
    assert s["code"].role is Role.IDENTIFIER and s["code"].flagged
    assert "Almost every value of 'code' is unique" in s["code"].reason
    assert s["sex"].role is None


def test_small_tables_are_not_flagged_by_uniqueness() -> None:
    frame = pd.DataFrame({"code": ["a", "b", "c"]})
    assert by_column(frame)["code"].role is None


@pytest.mark.parametrize("name", ["Patient ID", "patient_id", "e-mail", "SSN", "phone", "surname"])
def test_identifier_names(name: str) -> None:
    frame = pd.DataFrame({name: ["x", "x", "y"]})
    assert suggest_roles(frame)[0].role is Role.IDENTIFIER


@pytest.mark.parametrize("name", ["age", "zipcode", "diagnosis", "idea", "rename"])
def test_non_identifier_names(name: str) -> None:
    frame = pd.DataFrame({name: ["x", "x", "y"]})
    assert suggest_roles(frame)[0].role is None
