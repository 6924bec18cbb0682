"""The rules a first real use needed (issue 12, items 6 and 7): warnings before a run for columns that
look knowable but would be released unchanged, for a k that leaves only a handful of groups, and after a
run for a quasi-identifier lost to * or a release of a handful of groups."""

from __future__ import annotations

import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.full_domain import apply_transformation
from kanon_engine.data.io import read_table
from kanon_engine.data.roles import Role
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.project.project_file import Project
from kanon_engine.project.validation import ColumnCache, result_warnings, validate
from tests.fixtures.hospital_export import write_export


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    path = write_export(tmp_path_factory.mktemp("export") / "export.csv", rows=2000)
    return read_table(path)


def _project(table, **roles) -> Project:
    base = {c: Role.INSENSITIVE for c in table.columns}
    base.update({c.replace("_", " "): r for c, r in roles.items()})
    return Project(data_path=table.source, roles=base)


def test_suggested_roles_on_the_hospital_export(export) -> None:
    s = ColumnCache(export).suggestions
    assert s["Patientenname"].role is Role.IDENTIFIER and s["Patientenname"].confident
    assert s["Fallnummer"].role is Role.IDENTIFIER
    for col in ("Geburtsdatum", "Geschlecht", "PLZ", "Aufnahmedatum"):
        assert s[col].role is Role.QUASI_IDENTIFIER and s[col].confident, col
    assert s["Diagnose (ICD-10)"].role is Role.SENSITIVE


def test_knowable_columns_left_insensitive_are_warned_about(export) -> None:
    project = _project(export, Geschlecht=Role.QUASI_IDENTIFIER)
    issues = validate(project, export)
    by_where = {i.where: i for i in issues if i.severity == "warning"}
    for col in ("Geburtsdatum", "PLZ", "Aufnahmedatum"):
        assert col in by_where, col
        assert "released unchanged (insensitive)" in by_where[col].message
    assert "Patientenname" in by_where
    assert "a direct identifier, but its role is insensitive" in by_where["Patientenname"].message
    assert "Geschlecht" not in by_where  # a quasi-identifier: no warning
    assert not any(i.is_error and i.where in ("PLZ", "Geburtsdatum") for i in issues)


def test_a_k_that_leaves_a_handful_of_groups_is_warned_before_the_run(export) -> None:
    project = _project(export, Geschlecht=Role.QUASI_IDENTIFIER).with_changes(models=(KAnonymity(2000),))
    warning = next(i for i in validate(project, export) if i.where == "models")
    assert warning.severity == "warning"
    assert "can have only one group" in warning.message
    ok = project.with_changes(models=(KAnonymity(5),))
    assert not any(i.where == "models" for i in validate(ok, export))


def test_result_warnings_name_the_lost_column_and_the_few_groups(export) -> None:
    project = _project(export, Geschlecht=Role.QUASI_IDENTIFIER, PLZ=Role.QUASI_IDENTIFIER)
    config = project.with_changes(models=(KAnonymity(5),)).config(export)
    heights = [config.hierarchies[q].height for q in config.quasi_identifiers]
    result = apply_transformation(export, config, heights, suppression_limit=0.0)
    found = result_warnings(result)
    assert {i.where for i in found} >= {"Geschlecht", "PLZ", "result"}
    lost = next(i for i in found if i.where == "PLZ")
    assert "generalized to its top level" in lost.message
    few = next(i for i in found if i.where == "result")
    assert "a single group of records" in few.message


def test_a_useful_release_has_no_result_warning(export) -> None:
    project = _project(export, Geschlecht=Role.QUASI_IDENTIFIER, PLZ=Role.QUASI_IDENTIFIER)
    config = project.with_changes(models=(KAnonymity(5),)).config(export)
    result = get_algorithm("optimal", suppression_limit=0.05).run(export, config)
    assert result_warnings(result) == []


def test_mondrian_column_lost_is_found_from_the_release(export) -> None:
    project = _project(export, Geschlecht=Role.QUASI_IDENTIFIER)
    config = project.with_changes(models=(KAnonymity(1500),)).config(export)
    result = get_algorithm("mondrian").run(export, config)
    assert any(i.where == "result" for i in result_warnings(result))


def test_report_says_which_knowable_columns_were_released_unchanged(export) -> None:
    from kanon_engine.report.build import build_report
    from kanon_engine.report.html import render_html

    project = _project(export, Geschlecht=Role.QUASI_IDENTIFIER)
    config = project.with_changes(models=(KAnonymity(5),)).config(export)
    result = get_algorithm("optimal", suppression_limit=0.05).run(export, config)
    report = build_report(export, result)
    text = " ".join(report["warnings"])
    for col in ("Geburtsdatum", "PLZ", "Aufnahmedatum", "Patientenname"):
        assert f"'{col}'" in text, col
    assert "<h2>Warnings</h2>" in render_html(report)
