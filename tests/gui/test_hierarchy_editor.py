"""The hierarchy tree editor: every edit goes through an engine function onto the undo stack; undo and
redo restore exactly; refused edits change nothing and say why; uncovered values are placed in one action;
the builder wizard builds what it previews; ARX import/export round-trips."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table
from kanon_engine.hierarchy import read_arx_csv
from kanon_engine.hierarchy.model import Hierarchy
from kanon_gui.state import AppState
from kanon_gui.views.hierarchy_actions import HierarchyActions
from kanon_gui.views.hierarchy_editor import HierarchyEditorPanel

pytestmark = pytest.mark.gui

EDU = [
    ["Bachelors", "Undergraduate", "Higher education", "*"],
    ["Some-college", "Undergraduate", "Higher education", "*"],
    ["Masters", "Graduate", "Higher education", "*"],
    ["Doctorate", "Graduate", "Higher education", "*"],
    ["HS-grad", "High school", "Secondary", "*"],
    ["11th", "High school", "Secondary", "*"],
    ["9th", "Primary", "Secondary", "*"],
]


@pytest.fixture
def editor(qtbot):
    values = [r[0] for r in EDU] * 3 + ["Preschool", "Preschool"]  # Preschool is not in the hierarchy
    frame = pd.DataFrame({"education": values, "years": [str(20 + i) for i in range(len(values))]})
    state = AppState()
    state.set_table(Table.from_frame(frame))
    state.set_role("education", Role.QUASI_IDENTIFIER)
    state.set_hierarchy("education", Hierarchy.from_rows("education", EDU))
    state.undo_stack.clear()
    actions = HierarchyActions(state)
    panel = HierarchyEditorPanel(state, actions)
    qtbot.addWidget(panel)
    panel.set_column("education")
    return panel


def _rows(panel) -> list[list[str]]:
    return panel.state.hierarchy("education").rows()


def test_tree_shows_the_hierarchy_and_the_uncovered_values(editor):
    m = editor.model
    assert m.rowCount() == 1 and m.data(m.index(0, 0)) == "*"
    assert editor.uncovered_list() == ["Preschool"]
    assert any(i.is_error and "Preschool" in i.message for i in editor.state.issues_for("education"))
    assert "Preschool" in editor.feedback.text()


def test_every_edit_undoes_and_redoes(editor):
    stack = editor.state.undo_stack
    original = _rows(editor)
    steps = [
        lambda: editor.rename(1, "Graduate", "Postgraduate"),
        lambda: editor.move(1, "Primary", "Higher education"),
        lambda: editor.merge(1, ["Undergraduate", "Postgraduate"], "University"),
        lambda: editor.delete(1, "High school"),
        lambda: editor.add_group(1, "Secondary", "Basic", ["HS-grad", "11th"]),
        lambda: editor.place(["Preschool"], "Basic"),
    ]
    snapshots = [original]
    for step in steps:
        assert step() is True
        snapshots.append(_rows(editor))
        assert snapshots[-1] != snapshots[-2]
    assert stack.count() == len(steps)
    assert editor.uncovered_list() == []
    assert not [i for i in editor.state.issues_for("education") if i.is_error]
    for expected in reversed(snapshots[:-1]):
        stack.undo()
        assert _rows(editor) == expected
    assert editor.uncovered_list() == ["Preschool"]
    for expected in snapshots[1:]:
        stack.redo()
        assert _rows(editor) == expected
    # the tree follows the state: the merged group is shown
    assert editor.model.find_label(1, "University").isValid()


def test_refused_edit_changes_nothing_and_says_why(editor):
    before = _rows(editor)
    assert editor.rename(1, "Graduate", "Undergraduate") is False  # name taken at that level
    assert _rows(editor) == before
    assert editor.state.undo_stack.count() == 0
    assert "already a group" in editor.feedback.text()


def test_drag_and_drop_moves_a_node(editor, qtbot):
    m = editor.model
    idx = m.find_label(0, "9th")
    target = m.find_label(1, "High school")
    data = m.mimeData([idx])
    m.dropMimeData(data, Qt.DropAction.MoveAction, -1, -1, target)
    rows = {r[0]: r for r in _rows(editor)}
    assert rows["9th"][1:] == ["High school", "Secondary", "*"]
    editor.state.undo_stack.undo()
    assert {r[0]: r for r in _rows(editor)}["9th"][1] == "Primary"


def test_inline_rename_through_the_model(editor):
    m = editor.model
    idx = m.find_label(2, "Secondary")
    m.setData(idx, "School", Qt.ItemDataRole.EditRole)
    assert {r[0]: r for r in _rows(editor)}["9th"][2] == "School"


def test_place_all_uncovered_values_in_one_action(editor):
    editor.place_target.setCurrentIndex(editor.place_target.findData("Primary"))
    editor._place_all()
    assert editor.uncovered_list() == []
    assert {r[0]: r for r in _rows(editor)}["Preschool"][1:] == ["Primary", "Secondary", "*"]
    assert editor.state.undo_stack.count() == 1


def test_role_change_and_hierarchy_edit_share_one_undo_stack(editor):
    state = editor.state
    before = state.role("years")
    state.set_role("years", Role.QUASI_IDENTIFIER)
    editor.rename(0, "9th", "Ninth")
    assert state.role("years") == Role.QUASI_IDENTIFIER
    state.undo_stack.undo()  # the rename
    assert state.role("years") == Role.QUASI_IDENTIFIER
    assert "9th" in state.hierarchy("education").values
    state.undo_stack.undo()  # the role
    assert state.role("years") == before != Role.QUASI_IDENTIFIER
    assert "9th" in state.hierarchy("education").values


def test_arx_export_and_import_round_trip(editor, tmp_path):
    actions = editor.actions
    path = tmp_path / "hierarchy_education.csv"
    assert actions.export_arx_file("education", path)
    assert read_arx_csv(path, "education").rows() == EDU
    editor.rename(1, "Graduate", "Postgraduate")
    assert actions.import_arx_file("education", path)
    assert _rows(editor) == EDU
    assert editor.state.project.hierarchy_files == {}


def test_wizard_builds_what_it_previews(editor, qtbot):
    from kanon_gui.dialogs.hierarchy_wizard import HierarchyWizardDialog

    state = editor.state
    dialog = HierarchyWizardDialog(state, "years")
    qtbot.addWidget(dialog)
    dialog.set_kind("intervals")
    dialog.widths.setText("5, 10")
    h = dialog.hierarchy()
    assert h is not None and h.height == 3
    assert h.generalize(["23"], 1)[0] == "20-24"  # whole numbers: first and last value by default
    # the label styles are shown as words with the column's first interval, never as {lo}/{hi} codes
    styles = [dialog.label_style.itemText(i) for i in range(dialog.label_style.count())]
    assert not any("{" in text for text in styles)
    first = int(state.distinct_values("years").astype(float).min()) // 5 * 5
    assert styles == [
        f"{first}-{first + 4}: first and last value, both included",
        f"[{first}-{first + 5}): the upper bound is not included",
        f"{first} to under {first + 5}",
    ]
    dialog.set_label_style("half_open")
    assert dialog.hierarchy().generalize(["23"], 1)[0] == "[20-25)"
    dialog.set_label_style("words")
    assert dialog.hierarchy().generalize(["23"], 2)[0] == "20 to under 30"
    assert dialog.preview.item(0, 1).text().endswith(f"to under {first + 5}")  # the preview shows the labels
    dialog.widths.setText("5, 7")  # widths that do not nest: the builder's message, no result
    assert dialog.hierarchy() is None
    assert "widths" in dialog.summary.text().lower() or "multiple" in dialog.summary.text().lower()
    dialog.widths.setText("5, 10")
    assert dialog.hierarchy() is not None

    grouping = HierarchyWizardDialog(state, "education")
    qtbot.addWidget(grouping)
    grouping.set_kind("grouping")
    grouping.group_levels.setValue(1)
    for v in grouping._group_values:
        grouping.set_group(v, 1, "Early" if v in ("9th", "11th", "Preschool") else "Later")
    built = grouping.hierarchy()
    assert built is not None and built.height == 2
    assert set(built.generalize(["Preschool", "Masters"], 1)) == {"Early", "Later"}


def test_wizard_shows_the_date_format_in_words(qtbot):
    """A German date column: the wizard shows dd.mm.yyyy (not %d.%m.%Y) and reads a format typed so."""
    from kanon_gui.dialogs.hierarchy_wizard import HierarchyWizardDialog

    frame = pd.DataFrame({"Aufnahmedatum": ["24.12.2024", "03.01.2023", "17.07.2022"] * 4})
    state = AppState()
    state.set_table(Table.from_frame(frame))
    dialog = HierarchyWizardDialog(state, "Aufnahmedatum")
    qtbot.addWidget(dialog)
    assert dialog.kind_key() == "dates"
    assert dialog.date_fmt.text() == "dd.mm.yyyy" and "%" not in dialog.date_fmt.toolTip()
    h = dialog.hierarchy()
    assert h is not None and h.generalize(["24.12.2024"], 1)[0] == "2024-12"
    dialog.date_fmt.setText("")  # empty: detected from the values
    assert dialog.hierarchy().generalize(["24.12.2024"], 2)[0] == "2024"


def test_a_group_of_very_many_values_is_not_opened_by_itself(qtbot, monkeypatch):
    """One * above every value of a record number: the view would make a row per value before showing
    anything, so the group stays closed (the user may open it); a worker's prepared tree and uncovered
    values are used as they are."""
    import kanon_gui.views.hierarchy_editor as hierarchy_editor
    from kanon_gui.models.hierarchy_model import keep_prepared, prepare_view

    monkeypatch.setattr(hierarchy_editor, "EXPAND_CHILDREN_LIMIT", 50)
    monkeypatch.setattr(hierarchy_editor, "EXPAND_ALL_LIMIT", 10)  # a "large" tree
    ids = [f"P{i:04d}" for i in range(120)]
    state = AppState()
    state.set_table(Table.from_frame(pd.DataFrame({"id": ids, "age": ["30"] * 120})))
    state.set_role("id", Role.QUASI_IDENTIFIER)
    state.set_hierarchy("id", Hierarchy.from_rows("id", [[v, "*"] for v in ids[:-1]]))  # one uncovered
    view = prepare_view(state.hierarchy("id"), state.distinct("id"))
    assert view.uncovered == ["P0119"]
    keep_prepared(view)
    panel = HierarchyEditorPanel(state, HierarchyActions(state))
    qtbot.addWidget(panel)
    panel.set_column("id")
    assert panel.model._tree is view.tree  # not built again
    assert panel.uncovered_list() == ["P0119"]
    top = panel.model.index(0, 0)
    assert panel.model.rowCount(top) == 119 and not panel.view.isExpanded(top)


@pytest.mark.parametrize(
    "name,values,kind",
    [
        ("PLZ", ["04229", "01067", "06108", "unbekannt"] * 10, "masking"),  # a word among the codes
        ("code", ["04229", "01067", "06108", "09111"] * 10, "masking"),  # read as integers
        ("Wohnort_Code", ["104229", "101067", "106108", "", "109111"] * 10, "masking"),  # text, one length
        ("Gewicht", ["104", "101", "106", "109", "88"] * 10, "intervals"),  # numbers without a leading 0
        ("Alter", ["34", "51", "67", "22"] * 10, "intervals"),
    ],
)
def test_the_wizard_starts_on_masking_for_a_code(qtbot, name, values, kind):
    """Issue 27: the postcode wizard opened on intervals; a code-like column starts on masking."""
    from kanon_gui.dialogs.hierarchy_wizard import HierarchyWizardDialog

    state = AppState()
    state.set_table(Table.from_frame(pd.DataFrame({name: values})))
    dialog = HierarchyWizardDialog(state, name)
    qtbot.addWidget(dialog)
    assert dialog.kind_key() == kind


def test_a_narrow_editor_keeps_every_action_in_sight(editor, qtbot):
    """At 1280x800 in German the editing row hid "Löschen" behind the toolbar's "»": a narrow panel
    puts the editing actions on two rows and the files' actions as icons."""
    from PySide6.QtCore import Qt

    editor.show()
    editor.resize(900, 600)
    qtbot.waitUntil(lambda: editor.width() == 900)
    assert not editor.toolbar_more.isVisible() and len(editor.toolbar.actions()) == 4
    assert editor.file_toolbar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonTextBesideIcon
    editor.setMinimumWidth(0)
    editor.setFixedWidth(200)
    qtbot.waitUntil(lambda: editor.width() == 200)
    assert editor.toolbar_more.isVisible()
    assert len(editor.toolbar.actions()) + len(editor.toolbar_more.actions()) == 4
    assert editor.file_toolbar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly
