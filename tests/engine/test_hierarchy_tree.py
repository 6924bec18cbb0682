"""Tree view helpers and the pure edit functions of the hierarchy tree editor."""

from __future__ import annotations

import pytest

from kanon_engine.errors import HierarchyError
from kanon_engine.hierarchy import Hierarchy, validate_hierarchy
from kanon_engine.hierarchy.tree import (
    TreeNode,
    add_group,
    children,
    delete_group,
    from_tree,
    merge_groups,
    move_node,
    place_values,
    rename_group,
    tree_nodes,
)

ROWS = [
    ["HS", "school", "basic", "*"],
    ["Primary", "school", "basic", "*"],
    ["BA", "uni", "higher", "*"],
    ["MA", "uni", "higher", "*"],
    ["PhD", "uni", "higher", "*"],
]


@pytest.fixture()
def h() -> Hierarchy:
    return Hierarchy.from_rows("edu", ROWS)


def test_children(h: Hierarchy) -> None:
    assert children(h, 3, "*") == ["basic", "higher"]
    assert children(h, 1, "uni") == ["BA", "MA", "PhD"]
    assert children(h, 0, "BA") == []
    with pytest.raises(HierarchyError, match="There is no group 'nope' at level 1 of 'edu'"):
        children(h, 1, "nope")
    with pytest.raises(HierarchyError, match="has no level 7"):
        children(h, 7, "*")


def test_tree_nodes_structure(h: Hierarchy) -> None:
    (root,) = tree_nodes(h)
    assert (root.label, root.level, root.n_leaves) == ("*", 3, 5)
    assert [c.label for c in root.children] == ["basic", "higher"]
    uni = root.children[1].children[0]
    assert (uni.label, uni.level, uni.n_leaves) == ("uni", 1, 3)
    assert [leaf.label for leaf in uni.children] == ["BA", "MA", "PhD"]
    assert all(leaf.is_leaf and leaf.children == () for leaf in uni.children)


def test_tree_nodes_of_interleaved_and_non_tree_hierarchies() -> None:
    h = Hierarchy.from_rows("x", [["a", "g", "A"], ["b", "k", "B"], ["c", "g", "B"]])
    roots = tree_nodes(h)
    assert [r.label for r in roots] == ["A", "B"]
    assert [c.label for c in roots[1].children] == ["k", "g"]  # 'g' under both parents (not a tree)
    assert [leaf.label for leaf in roots[1].children[1].children] == ["c"]
    assert sorted(from_tree("x", roots).rows()) == sorted(h.rows())


def test_from_tree_round_trip(h: Hierarchy) -> None:
    assert from_tree("edu", tree_nodes(h)) == h
    with pytest.raises(HierarchyError, match="different depths"):
        from_tree("x", [TreeNode("*", 2, (TreeNode("g", 1, (TreeNode("a", 0),)), TreeNode("b", 0)))])


def test_rename_group(h: Hierarchy) -> None:
    out = rename_group(h, 1, "uni", "university")
    assert out.labels(1).tolist() == ["school", "school", "university", "university", "university"]
    assert h.rows() == ROWS  # the input is not changed
    assert rename_group(h, 1, "uni", "uni") is h
    assert rename_group(h, 3, "*", "all").labels(3).tolist() == ["all"] * 5


def test_rename_leaf(h: Hierarchy) -> None:
    assert rename_group(h, 0, "HS", "High school").values[0] == "High school"
    with pytest.raises(HierarchyError, match="there is already a value 'BA' at level 0"):
        rename_group(h, 0, "HS", "BA")


def test_rename_refusals(h: Hierarchy) -> None:
    with pytest.raises(HierarchyError, match="already a group 'school' at level 1 of 'edu'.*merge"):
        rename_group(h, 1, "uni", "school")
    with pytest.raises(HierarchyError, match="needs a name that is not empty"):
        rename_group(h, 1, "uni", " ")
    with pytest.raises(HierarchyError, match="There is no group 'x' at level 2"):
        rename_group(h, 2, "x", "y")


def test_move_group_with_subtree(h: Hierarchy) -> None:
    out = move_node(h, 1, "school", "higher")
    assert out.rows()[:2] == [["HS", "school", "higher", "*"], ["Primary", "school", "higher", "*"]]
    assert "basic" not in out.labels(2)  # a group left empty disappears
    assert validate_hierarchy(out) == []


def test_move_leaf(h: Hierarchy) -> None:
    out = move_node(h, 0, "BA", "school")
    assert out.rows()[2] == ["BA", "school", "basic", "*"]
    assert out.rows()[3] == ROWS[3]


def test_move_refusals(h: Hierarchy) -> None:
    with pytest.raises(HierarchyError, match="has no level 3 for this edit; use a level from 0 to 2"):
        move_node(h, 3, "*", "x")
    with pytest.raises(HierarchyError, match="There is no group 'nowhere' at level 2"):
        move_node(h, 1, "uni", "nowhere")


def test_merge_groups_takes_the_first_ones_place(h: Hierarchy) -> None:
    out = merge_groups(h, 1, ["uni", "school"], "all")
    assert out.rows() == [[v, "all", "higher", "*"] for v in ["HS", "Primary", "BA", "MA", "PhD"]]
    same_name = merge_groups(h, 2, ["basic", "higher"], "basic")
    assert set(same_name.labels(2)) == {"basic"}


def test_merge_refusals(h: Hierarchy) -> None:
    with pytest.raises(HierarchyError, match="at least two groups"):
        merge_groups(h, 1, ["uni", "uni"], "x")
    with pytest.raises(HierarchyError, match="another group of that name exists at level 2"):
        merge_groups(Hierarchy.from_rows("e", ROWS + [["X", "y", "z", "*"]]), 2, ["basic", "higher"], "z")
    with pytest.raises(HierarchyError, match="use a level from 1 to 3"):
        merge_groups(h, 0, ["HS", "BA"], "x")


def test_delete_group_members_take_the_parents_label(h: Hierarchy) -> None:
    out = delete_group(h, 1, "uni")
    assert out.rows()[2:] == [[v, "higher", "higher", "*"] for v in ["BA", "MA", "PhD"]]
    assert validate_hierarchy(out) == []
    assert children(out, 2, "higher") == ["higher"]


def test_delete_leaf(h: Hierarchy) -> None:
    out = delete_group(h, 0, "HS")
    assert out.values == ("Primary", "BA", "MA", "PhD")
    one = Hierarchy.from_rows("x", [["a", "*"]])
    with pytest.raises(HierarchyError, match="needs at least one value"):
        delete_group(one, 0, "a")


def test_delete_refusals(h: Hierarchy) -> None:
    with pytest.raises(HierarchyError, match="use a level from 0 to 2"):
        delete_group(h, 3, "*")
    clash = Hierarchy.from_rows("e", [["X", "higher", "basic", "*"], ["BA", "uni", "higher", "*"]])
    with pytest.raises(
        HierarchyError, match="Deleting 'uni' is not possible: 'higher' at level 1 would have two"
    ):
        delete_group(clash, 1, "uni")


def test_add_group_with_members(h: Hierarchy) -> None:
    out = add_group(h, 1, "basic", "pre", ["Primary"])
    assert out.rows()[1] == ["Primary", "pre", "basic", "*"]
    out = add_group(h, 1, "basic", "grad", ["MA", "PhD"])
    assert out.rows()[3:] == [["MA", "grad", "basic", "*"], ["PhD", "grad", "basic", "*"]]
    assert validate_hierarchy(out) == []


def test_add_group_refusals(h: Hierarchy) -> None:
    with pytest.raises(HierarchyError, match="needs at least one member"):
        add_group(h, 1, "basic", "pre")
    with pytest.raises(HierarchyError, match="already a group 'uni' at level 1"):
        add_group(h, 1, "basic", "uni", ["HS"])
    with pytest.raises(HierarchyError, match="There is no value 'nope' at level 0"):
        add_group(h, 1, "basic", "pre", ["nope"])
    with pytest.raises(HierarchyError, match="use a level from 1 to 2"):
        add_group(h, 3, "*", "pre", ["basic"])


def test_place_values_after_the_groups_last_leaf(h: Hierarchy) -> None:
    out = place_values(h, ["GED", None, "GED"], "school")
    assert out.rows()[:4] == [ROWS[0], ROWS[1], ["GED", "school", "basic", "*"], ["", "school", "basic", "*"]]
    assert out.rows()[4:] == ROWS[2:]


def test_place_values_refusals(h: Hierarchy) -> None:
    with pytest.raises(HierarchyError, match="Already in the hierarchy of 'edu': 'BA'"):
        place_values(h, ["BA", "new"], "school")
    with pytest.raises(HierarchyError, match="There is no group 'nope' at level 1"):
        place_values(h, ["new"], "nope")
    with pytest.raises(HierarchyError, match="at least one value"):
        place_values(h, [], "school")
    with pytest.raises(HierarchyError, match="no level 1"):
        place_values(Hierarchy.from_rows("x", [["a"]]), ["b"], "a")
