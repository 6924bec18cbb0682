"""validate(project, table): every rule the workbench and the CLI check before a run, without Qt."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy.models import DistinctLDiversity, KAnonymity
from kanon_engine.project.project_file import Project
from kanon_engine.project.validation import (
    ColumnCache,
    analyze_table,
    prepare_hierarchy,
    require_valid,
    validate,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def table() -> Table:
    frame = pd.DataFrame(
        {
            "patient_id": [f"P{i:03d}" for i in range(60)],
            "age": [str(20 + i % 30) for i in range(60)],
            "sex": ["F", "M"] * 30,
            "diagnosis": ["flu", "cold", "asthma"] * 20,
            "ref": [f"R{i * 7:04d}" for i in range(60)],
        }
    )
    return Table.from_frame(frame)


def project(**changes) -> Project:
    roles = {"patient_id": Role.IDENTIFIER, "age": Role.QUASI_IDENTIFIER, "sex": Role.QUASI_IDENTIFIER}
    return Project(roles=roles, models=(KAnonymity(5),)).with_changes(**changes)


def errors(issues) -> list[tuple[str, str]]:
    return [(i.where, i.message) for i in issues if i.is_error]


def test_a_sound_project_has_no_error(table):
    assert errors(validate(project(), table)) == []


def test_no_table_and_no_quasi_identifier(table):
    assert errors(validate(project(), None))[0][0] == "data"
    found = errors(validate(project(roles={"age": Role.INSENSITIVE}), table))
    assert found[0][0] == "roles" and "No quasi-identifier" in found[0][1]


def test_k_larger_than_the_table_names_both_numbers(table):
    found = errors(validate(project(models=(KAnonymity(61),)), table))
    assert found == [
        ("models", "k = 61 is larger than the table, which has 60 records. Choose k of at most 60.")
    ]
    with pytest.raises(ConfigError, match="k = 61 is larger than the table"):
        require_valid(project(models=(KAnonymity(61),)), table)


def test_hierarchy_that_misses_a_value_is_an_error_on_its_column(table):
    p = project(hierarchies={"sex": Hierarchy.from_rows("sex", [["F", "*"]])})
    found = errors(validate(p, table))
    assert [w for w, _ in found] == ["sex"] and "'M'" in found[0][1]


def test_sensitive_attribute_hierarchy_problems_are_warnings_only(table):
    roles = {**project().roles, "diagnosis": Role.SENSITIVE}
    p = project(roles=roles, hierarchies={"diagnosis": Hierarchy.from_rows("diagnosis", [["flu", "*"]])})
    issues = validate(p, table)
    assert errors(issues) == []
    assert any(i.where == "diagnosis" and not i.is_error for i in issues)


def test_a_released_column_that_looks_identifying_is_a_warning(table):
    issues = validate(project(), table)
    assert errors(issues) == []
    assert any(i.where == "ref" and "unique" in i.message for i in issues)
    roles = {**project().roles, "ref": Role.IDENTIFIER}
    assert not any(i.where == "ref" for i in validate(project(roles=roles), table))


@pytest.mark.parametrize(
    "role,words",
    [
        (Role.INSENSITIVE, "'ref' is insensitive: its values would be released as they are"),
        (Role.SENSITIVE, "'ref' is sensitive: its values would be released as they are"),
        (Role.QUASI_IDENTIFIER, None),  # generalized: nothing released as it is
        (Role.IDENTIFIER, None),  # removed
    ],
)
def test_the_identifier_warning_follows_the_current_role(table, role, words):
    """The walk of issue 27: the warning stayed, unchanged, after the user changed the column's role."""
    roles = {**project().roles, "ref": role}
    found = [i.message for i in validate(project(roles=roles), table) if i.where == "ref"]
    found = [m for m in found if "unique" in m]
    assert found == ([] if words is None else [found[0]])
    if words is not None:
        assert found[0].startswith(words)


def test_config_rules_come_from_the_config(table):
    roles = {**project().roles, "diagnosis": Role.INSENSITIVE}
    p = project(roles=roles, models=(KAnonymity(2), DistinctLDiversity(2, "diagnosis")))
    found = errors(validate(p, table))
    assert found and "not marked sensitive" in found[0][1] and found[0][0] == "diagnosis"


def test_algorithm_rules(table):
    found = errors(validate(project(algorithm="magic"), table))
    assert found == [("algorithm", "The algorithm 'magic' is not available; choose another one.")]
    found = errors(validate(project(algorithm="optimal", algorithm_params={"suppression_limit": 2}), table))
    assert found[0][0] == "algorithm" and "Suppression limit must be a share" in found[0][1]


def test_lattice_too_large_for_an_exhaustive_search(table):
    wide = pd.DataFrame({f"q{i}": [str(j % 7) for j in range(60)] for i in range(8)})
    t = Table.from_frame(wide)
    deep = {
        c: Hierarchy.from_rows(c, [[str(v), *[f"{v}/{lv}" for lv in range(1, 6)], "*"] for v in range(7)])
        for c in wide.columns
    }
    p = Project(roles={c: Role.QUASI_IDENTIFIER for c in wide.columns}, hierarchies=deep, algorithm="optimal")
    found = errors(validate(p, t))
    assert found and found[0][0] == "algorithm" and "too many for optimal" in found[0][1]
    assert errors(validate(p.with_changes(algorithm="datafly"), t)) == []


def test_cache_checks_each_hierarchy_once(table, monkeypatch):
    import kanon_engine.project.validation as v

    calls = []
    real = v.validate_hierarchy
    monkeypatch.setattr(
        v, "validate_hierarchy", lambda h, values: calls.append(h.attribute) or real(h, values)
    )
    cache = ColumnCache(table, analyze_table(table, ["age"]))
    validate(project(), table, cache)
    validate(project(), table, cache)
    assert sorted(calls) == ["age", "sex"]


def test_prepared_hierarchy_is_adopted_by_the_cache(table):
    cache = ColumnCache(table)
    prepared = prepare_hierarchy("age", cache.distinct("age"), table.column_types.get("age"))
    cache.adopt(prepared)
    assert cache.default_hierarchy("age") is prepared.hierarchy
    assert cache.is_checked("age", prepared.hierarchy)


def test_k_rule_is_written_once_in_the_product():
    """The sentence lives in one function (config.require_k_fits); every caller goes through it."""
    files = [p for p in (ROOT / "kanon_engine").rglob("*.py")] + list((ROOT / "kanon_gui").rglob("*.py"))
    holders = [p.relative_to(ROOT).as_posix() for p in files if "is larger than the table" in p.read_text()]
    assert holders == ["kanon_engine/config.py"]


def test_local_suppression_importance_names_quasi_identifiers_and_needs_no_hierarchy(table):
    """The importance order may only name quasi-identifiers (an error before Run); a hierarchy that does
    not cover the data is only a warning, since local suppression generalizes nothing."""
    bad = project(algorithm="local-suppression", algorithm_params={"importance": "sex,diagnosis"})
    found = errors(validate(bad, table))
    assert found == [
        (
            "algorithm",
            "Keep longest names 'diagnosis', which is not a quasi-identifier; the quasi-identifiers "
            "are age, sex.",
        )
    ]
    ok = project(algorithm="local-suppression", algorithm_params={"importance": "sex"})
    assert errors(validate(ok, table)) == []
    partial = Hierarchy.from_rows("age", [["20", "*"]])  # covers one age of thirty
    assert errors(validate(project(hierarchies={"age": partial}), table))  # a full-domain run: an error
    lenient = project(algorithm="local-suppression", hierarchies={"age": partial})
    issues = validate(lenient, table)
    assert errors(issues) == [] and any(i.where == "age" and not i.is_error for i in issues)
