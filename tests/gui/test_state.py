"""AppState: the one place that changes the project. Configs are replaced (never edited in place), every
role/hierarchy edit is undoable, validation lists the engine's findings and blocks Run while errors
remain, and the run snapshot is frozen."""

from __future__ import annotations

import pandas as pd
import pytest

from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.project import Project
from kanon_engine.validation import analyze_table, model_values_of, prepare_hierarchy
from kanon_gui.state import AppState

pytestmark = pytest.mark.gui


@pytest.fixture
def state(qtbot) -> AppState:
    frame = pd.DataFrame(
        {
            "patient_id": [f"P{i:03d}" for i in range(60)],
            "age": [str(20 + i % 30) for i in range(60)],
            "sex": ["F", "M"] * 30,
            "diagnosis": ["flu", "cold", "asthma"] * 20,
        }
    )
    s = AppState()
    s.set_table(Table.from_frame(frame))
    return s


def test_suggestions_prefill_roles(state):
    assert state.role("patient_id") == Role.IDENTIFIER
    assert "identifier" in state.suggestion("patient_id").reason
    assert state.role("age") == Role.INSENSITIVE
    assert not state.is_dirty()


def test_project_is_replaced_never_edited(state):
    before = state.project
    roles_before = dict(before.roles)
    state.set_role("age", Role.QUASI_IDENTIFIER)
    assert state.project is not before
    assert before.roles == roles_before  # the old project object did not change
    assert state.is_dirty()
    state.undo_stack.undo()
    assert state.project.roles == roles_before
    assert not state.is_dirty()


def test_uncovered_hierarchy_values_block_the_run(state):
    state.set_roles({"age": Role.QUASI_IDENTIFIER, "sex": Role.QUASI_IDENTIFIER})
    assert state.run_blocker() is None
    state.set_hierarchy("sex", Hierarchy.from_rows("sex", [["F", "*"]]))
    blocker = state.run_blocker()
    assert blocker is not None and "'M'" in blocker
    assert any(i.where == "sex" and i.is_error for i in state.issues())
    state.set_hierarchy("sex", None)  # back to the default, which covers the data
    assert state.run_blocker() is None
    state.undo_stack.undo()
    assert state.run_blocker() is not None


def test_run_request_is_a_frozen_snapshot(state):
    state.set_roles({"age": Role.QUASI_IDENTIFIER, "sex": Role.QUASI_IDENTIFIER})
    state.set_algorithm("datafly", {"suppression_limit": "0.1"})
    request = state.run_request()
    assert request.algorithm == "datafly" and request.params["suppression_limit"] == 0.1
    assert request.config.quasi_identifiers == ("age", "sex")
    assert set(request.config.hierarchies) == {"age", "sex"}
    assert request.config.identifiers == ("patient_id",)
    state.set_role("sex", Role.INSENSITIVE)
    assert request.config.quasi_identifiers == ("age", "sex")  # the snapshot did not follow


def test_bad_algorithm_parameter_is_an_error_with_the_engine_message(state):
    state.set_role("age", Role.QUASI_IDENTIFIER)
    state.set_algorithm("optimal", {"suppression_limit": "2"})
    assert "suppression_limit must be a number" in state.run_blocker()
    state.set_algorithm("optimal", {"suppression_limit": ""})
    assert state.run_blocker() is None


def test_model_values_round_trip_through_the_project(state):
    state.set_role("diagnosis", Role.SENSITIVE)
    state.set_role("age", Role.QUASI_IDENTIFIER)
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
    state.set_roles({"age": Role.QUASI_IDENTIFIER})
    state.set_model_values(k=4)
    state.save(path)
    other = AppState()
    project = Project.load(path)
    other.set_project(project, table, path, facts=analyze_table(table, ["age"]))
    assert other.model_values()["k"] == 4
    assert other.columns_with(Role.QUASI_IDENTIFIER) == ["age"]
    assert other.hierarchy("age") is not None
    assert not other.is_dirty()


def test_prepare_hierarchy_in_a_worker_is_adopted(state):
    args = state.preparation_args("age")
    prepared = prepare_hierarchy(*args)
    assert prepared.default and prepared.issues == ()
    state.adopt(prepared)
    assert state.hierarchy("age") is prepared.hierarchy


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
    state.set_role("age", Role.QUASI_IDENTIFIER)
    state.set_model_values(k=5)
    blocker = state.run_blocker()
    assert blocker is not None and "k = 5 is larger than the table, which has 3 records" in blocker
    state.set_model_values(k=2)
    assert state.run_blocker() is None or "larger than the table" not in state.run_blocker()
