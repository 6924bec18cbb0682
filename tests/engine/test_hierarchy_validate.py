"""validate_hierarchy / require_valid: every message names the value and the level."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from kanon_engine.errors import HierarchyError
from kanon_engine.hierarchy import (
    Hierarchy,
    HierarchyIssue,
    require_valid,
    uncovered_values,
    validate_hierarchy,
)
from kanon_engine.hierarchy.validate import multi_parent_labels


def H(rows: list[list[str]], name: str = "x") -> Hierarchy:
    return Hierarchy.from_rows(name, rows)


SEX = H([["Male", "human", "*"], ["Female", "human", "*"]], "sex")


def test_issue_is_frozen() -> None:
    issue = HierarchyIssue("error", "m", "v", 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        issue.message = "other"  # type: ignore[misc]


def test_valid_hierarchy_has_no_issues() -> None:
    assert validate_hierarchy(SEX) == []
    assert validate_hierarchy(SEX, pd.Series(["Male", "Female", "Male"])) == []


def test_labels_shared_across_levels_are_fine() -> None:
    h = H([["Male", "Male", "*"], ["Female", "Female", "*"]])
    assert validate_hierarchy(h) == []


def test_uncovered_values_listed_with_count_and_missing() -> None:
    data = pd.Series(["Male", "Other", np.nan, "Other", "X"], dtype=object)
    issues = validate_hierarchy(SEX, data)
    assert len(issues) == 1
    issue = issues[0]
    assert issue.severity == "error" and issue.level == 0 and issue.value == "Other"
    assert issue.message.startswith(
        "3 values of 'sex' in the data are not in its hierarchy: 'Other', (missing) and 'X'."
    )


def test_one_uncovered_value() -> None:
    (issue,) = validate_hierarchy(SEX, pd.Series(["Male", "Other"]))
    assert issue.message.startswith("1 value of 'sex' in the data is not in its hierarchy: 'Other'.")


def test_many_uncovered_values_list_ten_and_say_how_many() -> None:
    data = pd.Series([f"v{i:02d}" for i in range(25)] + ["v00"] * 5)
    (issue,) = validate_hierarchy(SEX, data)
    assert issue.message.startswith(
        "25 values of 'sex' in the data are not in its hierarchy (the 10 most frequent: 'v00', 'v01'"
    )
    assert issue.message.count("'v") == 10
    assert issue.value == "v00"  # the most frequent first


def test_empty_string_in_data_is_the_missing_leaf() -> None:
    h = H([["a", "*"], ["", "*"]])
    assert validate_hierarchy(h, pd.Series(["a", "", None], dtype=object)) == []
    assert uncovered_values(SEX, pd.Series([None, "Male"], dtype=object)) == [""]


def test_whitespace_or_case_hint() -> None:
    (issue,) = validate_hierarchy(SEX, pd.Series([" male"]))
    assert "only by spaces or upper/lower case" in issue.message


def test_non_tree_message_names_label_levels_and_parents() -> None:
    h = H([["a", "Married", "A", "*"], ["b", "Married", "B", "*"], ["c", "Single", "B", "*"]], "marital")
    issues = validate_hierarchy(h)
    assert [i.severity for i in issues] == ["error"]
    assert issues[0].message.startswith("'Married' at level 1 has two parents at level 2: 'A' and 'B'.")
    assert (issues[0].value, issues[0].level) == ("Married", 1)
    assert multi_parent_labels(h) == {(1, "Married"): ["A", "B"]}


def test_three_parents() -> None:
    h = H([["a", "g", "A", "*"], ["b", "g", "B", "*"], ["c", "g", "C", "*"]])
    (issue,) = validate_hierarchy(h)
    assert "'g' at level 1 has three parents at level 2: 'A', 'B' and 'C'." in issue.message


def test_top_level_with_several_values_is_a_warning() -> None:
    h = H([["a", "G1"], ["b", "G2"], ["c", "G2"]])
    (issue,) = validate_hierarchy(h)
    assert issue.severity == "warning"
    assert issue.level == 1
    assert issue.message.startswith("The top level (level 1) of 'x' has 2 values, 'G1' and 'G2'")


def test_no_generalization_level_is_a_warning() -> None:
    (issue,) = validate_hierarchy(H([["a"], ["b"]]))
    assert issue.severity == "warning"
    assert "has no generalization level" in issue.message


def test_empty_label_is_a_warning() -> None:
    (issue,) = validate_hierarchy(H([["a", "", "*"], ["b", "g", "*"]]))
    assert issue.severity == "warning"
    assert (issue.value, issue.level) == ("a", 1)
    assert "'a' of 'x' has an empty label at level 1" in issue.message


def test_errors_come_before_warnings() -> None:
    h = H([["a", "g", "A"], ["b", "g", "B"]])
    issues = validate_hierarchy(h, pd.Series(["zz"]))
    assert [i.severity for i in issues] == ["error", "error", "warning"]


def test_require_valid_raises_plain_message_and_returns_warnings() -> None:
    h = H([["a", "g", "A", "*"], ["b", "g", "B", "*"]], "col")
    with pytest.raises(HierarchyError) as err:
        require_valid(h, pd.Series(["a", "q"]))
    msg = str(err.value)
    assert msg.startswith("The hierarchy of 'col' cannot be used. 1 value of 'col' in the data is not in its")
    assert "'g' at level 1 has two parents at level 2: 'A' and 'B'." in msg
    assert err.value.where == "col=q"
    warnings = require_valid(H([["a", "G1"], ["b", "G2"]]))
    assert [w.severity for w in warnings] == ["warning"]
    assert require_valid(SEX, pd.Series(["Male"])) == []


def test_numeric_data_values_are_compared_as_text() -> None:
    h = H([["1", "*"], ["2", "*"]])
    assert validate_hierarchy(h, pd.Series([1, 2, 1])) == []
    assert uncovered_values(h, pd.Series([1, 3, 3])) == ["3"]
