"""AppState: the one place that changes the project. Configs are replaced (never edited in place), every
role/hierarchy edit is undoable, validation lists the engine's findings and blocks Run while errors
remain, and the run snapshot is frozen."""

from __future__ import annotations

import pandas as pd
import pytest

from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.project.project_file import Project
from kanon_engine.project.validation import analyze_table, model_values_of, prepare_hierarchy
from kanon_gui.state import AppState

pytestmark = pytest.mark.gui


@pytest.fixture
def state(qtbot) -> AppState:
    frame = pd.DataFrame(
        {
            "patient_id": [f"P{i:03d}" for i in range(60)],
            "score": [str(20 + i % 30) for i in range(60)],
            "group": ["F", "M"] * 30,
            "diagnosis": ["flu", "cold", "asthma"] * 20,
        }
    )
    s = AppState()
    s.set_table(Table.from_frame(frame))
    return s


def test_suggestions_prefill_roles(state):
    assert state.role("patient_id") == Role.IDENTIFIER
    assert "identifier" in state.suggestion("patient_id").reason
    assert state.role("score") == Role.INSENSITIVE
    assert state.role("diagnosis") == Role.SENSITIVE  # from its name
    # "group" has 2 values: a quasi-identifier is suggested from the values, shown but not applied
    assert state.role("group") == Role.INSENSITIVE
    assert state.suggestion("group").role == Role.QUASI_IDENTIFIER
    assert "only 2 different values" in state.suggestion("group").reason
    assert not state.is_dirty()


def test_names_in_german_prefill_identifiers_and_quasi_identifiers(qtbot):
    frame = pd.DataFrame(
        {
            "Patientenname": [f"Name {i}" for i in range(40)],
            "Geburtsdatum": [f"{1 + i % 28:02d}.0{1 + i % 9}.19{50 + i % 40}" for i in range(40)],
            "PLZ": ["01067", "04109"] * 20,
            "Verweildauer": [str(i % 9) for i in range(40)],
        }
    )
    s = AppState()
    s.set_table(Table.from_frame(frame))
    assert s.role("Patientenname") == Role.IDENTIFIER
    assert s.role("Geburtsdatum") == Role.QUASI_IDENTIFIER and s.role("PLZ") == Role.QUASI_IDENTIFIER
    assert s.role("Verweildauer") == Role.INSENSITIVE
    assert "looks like a date of birth" in s.suggestion("Geburtsdatum").reason


def test_project_is_replaced_never_edited(state):
    before = state.project
    roles_before = dict(before.roles)
    state.set_role("score", Role.QUASI_IDENTIFIER)
    assert state.project is not before
    assert before.roles == roles_before  # the old project object did not change
    assert state.is_dirty()
    state.undo_stack.undo()
    assert state.project.roles == roles_before
    assert not state.is_dirty()


def test_uncovered_hierarchy_values_block_the_run(state):
    state.set_roles({"score": Role.QUASI_IDENTIFIER, "group": Role.QUASI_IDENTIFIER})
    assert state.run_blocker() is None
    state.set_hierarchy("group", Hierarchy.from_rows("group", [["F", "*"]]))
    blocker = state.run_blocker()
    assert blocker is not None and "'M'" in blocker
    assert any(i.where == "group" and i.is_error for i in state.issues())
    state.set_hierarchy("group", None)  # back to the default, which covers the data
    assert state.run_blocker() is None
    state.undo_stack.undo()
    assert state.run_blocker() is not None


def test_run_request_is_a_frozen_snapshot(state):
    state.set_roles({"score": Role.QUASI_IDENTIFIER, "group": Role.QUASI_IDENTIFIER})
    state.set_algorithm("datafly", {"suppression_limit": "0.1"})
    request = state.run_request()
    assert request.algorithm == "datafly" and request.params["suppression_limit"] == 0.1
    assert request.config.quasi_identifiers == ("score", "group")
    assert set(request.config.hierarchies) == {"score", "group"}
    assert request.config.identifiers == ("patient_id",)
    state.set_role("group", Role.INSENSITIVE)
    assert request.config.quasi_identifiers == ("score", "group")  # the snapshot did not follow


def test_bad_algorithm_parameter_is_an_error_with_the_engine_message(state):
    state.set_role("score", Role.QUASI_IDENTIFIER)
    state.set_algorithm("optimal", {"suppression_limit": "2"})
    assert "Suppression limit must be a share" in state.run_blocker()
    state.set_algorithm("optimal", {"suppression_limit": ""})
    assert state.run_blocker() is None


def test_model_values_round_trip_through_the_project(state):
    state.set_role("diagnosis", Role.SENSITIVE)
    state.set_role("score", Role.QUASI_IDENTIFIER)
    state.set_model_values(k=3, l="2", l_variant="entropy", t="0.4", t_distance="equal")
    models = state.project.models
    assert [m.to_dict()["name"] for m in models] == ["k-anonymity", "entropy-l-diversity", "t-closeness"]
    values = model_values_of(models)
    assert values["k"] == 3 and values["l"] == 2 and values["l_variant"] == "entropy"
    assert values["t"] == 0.4 and values["sensitive"] == "diagnosis"
    assert state.run_blocker() is None


def test_open_project_keeps_its_settings(state, tmp_path):
    from kanon_engine.data.io import read_table

    path = tmp_path / "p.kanon.json"
    csv = tmp_path / "data.csv"
    state.table.frame.to_csv(csv, index=False)
    table = read_table(csv)
    state.set_table(table)
    state.set_roles({"score": Role.QUASI_IDENTIFIER})
    state.set_model_values(k=4)
    state.save(path)
    other = AppState()
    project = Project.load(path)
    other.set_project(project, table, path, facts=analyze_table(table, ["score"]))
    assert other.model_values()["k"] == 4
    assert other.columns_with(Role.QUASI_IDENTIFIER) == ["score"]
    assert other.hierarchy("score") is not None
    assert not other.is_dirty()


def test_prepare_hierarchy_in_a_worker_is_adopted(state):
    args = state.preparation_args("score")
    prepared = prepare_hierarchy(*args)
    assert prepared.default and prepared.issues == ()
    state.adopt(prepared)
    assert state.hierarchy("score") is prepared.hierarchy


def test_type_overrides_from_the_import_dialog_are_saved(state, tmp_path):
    from kanon_engine.data.io import read_table
    from kanon_engine.data.table import ColumnKind, apply_type_overrides

    data = tmp_path / "d.csv"
    data.write_text("code,age\n01,30\n02,40\n03,50\n")
    overrides = {"code": (ColumnKind.INTEGER, None)}
    table = apply_type_overrides(read_table(data), overrides)
    state.set_table(table, analyze_table(table), overrides)
    path = tmp_path / "p.json"
    state.save(path)
    reopened = Project.load(path)
    assert reopened.column_types == {"code": ("integer", None)}
    assert reopened.load_table()[0].column_types["code"].kind == ColumnKind.INTEGER


def test_k_larger_than_the_table_blocks_the_run(state, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("age,sex\n30,F\n40,M\n50,F\n")
    from kanon_engine.data.io import read_table

    table = read_table(data)
    state.set_table(table, analyze_table(table))
    state.set_role("score", Role.QUASI_IDENTIFIER)
    state.set_model_values(k=5)
    blocker = state.run_blocker()
    assert blocker is not None and "k = 5 is larger than the table, which has 3 records" in blocker
    state.set_model_values(k=2)
    assert state.run_blocker() is None or "larger than the table" not in state.run_blocker()
