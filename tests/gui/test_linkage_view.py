"""The linkage attack demonstration in the Risk tab (issue 12, item 14): choose a public list (read like a
data file), join columns proposed, who is singled out before and after with labels and values pinned on a
hand-checked example, examples that show nothing of the original data, the project remembering the list,
every writer refusing to replace it, and Cancel."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.io import read_table
from kanon_engine.errors import DataError
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.project.public_list import PUBLIC_LIST_FILE
from kanon_engine.release.fileio import atomic_write_text
from kanon_gui.resources import sample_project, sample_register
from kanon_gui.state import Run
from kanon_gui.views import linkage_view
from kanon_gui.views.linkage_view import TEXT, LinkagePanel

QI = ("age", "sex", "zipcode")


@pytest.fixture
def seed_run(seed_dir: Path) -> Run:
    """Sweeney's example: five voters, eight patients, 2-anonymous release by Datafly."""
    table = read_table(seed_dir / "mondrian_patients.csv")
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in QI}
    config = AnonymizationConfig(QI, hs, build_models(2), sensitive=("disease",))
    return Run("#1 Datafly, k = 2", get_algorithm("datafly").run(table, config), table)


def _cells(table, column: int) -> list[str]:
    return [table.item(r, column).text() if table.item(r, column) else "" for r in range(table.rowCount())]


def test_labels_and_values_on_the_voter_example(qtbot, seed_run: Run, seed_dir: Path, tmp_path: Path) -> None:
    voters = tmp_path / "voters.csv"  # the seed's voter list, in another spelling: semicolons, German names
    text = (seed_dir / "voter_registration.csv").read_text(encoding="utf-8")
    voters.write_bytes(
        text.replace(",", ";").replace("age;sex;zipcode", "Alter;Geschlecht;PLZ").encode("cp1252")
    )
    panel = LinkagePanel()
    qtbot.addWidget(panel)
    panel.show_run(seed_run)
    assert panel.summary.text() == ""
    panel.load_list(voters)
    assert panel.join() == {"age": "Alter", "sex": "Geschlecht", "zipcode": "PLZ"}
    assert (
        "5 people, read as" in panel.file_label.text()
        and "separated by semicolons" in panel.file_label.text()
    )
    assert panel.outcome is not None  # made at once: a run and a join are there
    rows = [panel.figures.verticalHeaderItem(r).text() for r in range(4)]
    assert rows == [
        "People on the public list",
        "Singled out (exactly one matching record)",
        "Matching at least one record",
        "Matching no record",
    ]
    assert [panel.figures.horizontalHeaderItem(c).text() for c in range(2)] == ["Original data", "Release"]
    # Lee (35, Male, 533449) is the one patient singled out by the original data; nobody by the release
    assert _cells(panel.figures, 0)[:2] == ["5", "1 (20.0 %)"]
    assert _cells(panel.figures, 1)[:2] == ["5", "0 (0.0 %)"]
    assert panel.summary.text().endswith("singles out 1 of them; with the release, 0.")
    heads = [panel.examples.horizontalHeaderItem(c).text() for c in range(panel.examples.columnCount())]
    assert heads[1:4] == ["Alter", "Geschlecht", "PLZ"]
    assert heads[0] == "List row" and heads[-1] == "What the release reveals"
    first = [panel.examples.item(0, c).text() for c in range(panel.examples.columnCount())]
    assert first[:4] == ["1", "35", "Male", "533449"] and first[4] == "1"  # Lee: row 1 of the list
    shown = {
        panel.examples.item(r, c).text() for r in range(panel.examples.rowCount()) for c in range(len(heads))
    }
    assert not shown & {"Flu", "Cancer", "HIV"}  # no diagnosis from the original data


def test_the_release_singling_someone_out_shows_what_it_reveals(qtbot, seed_run: Run, tmp_path: Path) -> None:
    """A release of the original values (k could not hide Lee): the attacker learns Lee's diagnosis."""
    import dataclasses

    result = dataclasses.replace(seed_run.result, release=seed_run.table.frame.copy())
    voters = tmp_path / "voters.csv"
    voters.write_text("name,age,sex,zipcode\nLee,35,Male,533449\nAnn,99,Female,1\n", encoding="utf-8")
    panel = LinkagePanel()
    qtbot.addWidget(panel)
    panel.show_run(Run("#2", result, seed_run.table))
    panel.load_list(voters)
    assert _cells(panel.figures, 1)[1] == "1 (50.0 %)"
    last = panel.examples.columnCount() - 1
    assert panel.examples.item(0, last).text() == "disease = Flu"
    assert panel.examples.item(1, last).text() == TEXT["nothing_revealed"]


def test_a_join_chosen_by_hand_and_no_join_at_all(qtbot, seed_run: Run, tmp_path: Path) -> None:
    voters = tmp_path / "list.csv"
    voters.write_text("Name,Jahrgang,Gender,Code\nLee,35,Male,533449\n", encoding="utf-8")
    panel = LinkagePanel()
    qtbot.addWidget(panel)
    panel.show_run(seed_run)
    panel.load_list(voters)
    assert panel.join() == {"sex": "Gender"}  # Gender looks like sex; the others are not recognised
    assert not panel.run_button.isEnabled() or panel.outcome is not None
    panel.set_join("age", "Jahrgang")
    assert panel.join_table.item(0, 2).text() == TEXT["by_hand"]
    assert panel.outcome is None  # a changed join needs a new join: nothing stale is shown
    panel.run_demo()
    assert panel.outcome is not None and panel.outcome.result.columns == ("age", "sex")
    panel.set_join("age", None)
    panel.set_join("sex", None)
    assert not panel.run_button.isEnabled()
    panel.run_demo()
    assert panel.summary.text() == TEXT["need_join"]


def test_the_workbench_remembers_and_protects_the_list(
    qtbot, window, wait_idle, reopen, tmp_path: Path
) -> None:
    window.open_project(sample_project())
    wait_idle(window)
    window.run()
    wait_idle(window)
    window.tabs.setCurrentWidget(window.risk_panel)
    wait_idle(window)
    panel = window.risk_panel.linkage
    panel.load_list(sample_register())
    qtbot.waitUntil(lambda: panel.outcome is not None and not window.runner.is_busy(), timeout=60_000)
    state = window.state
    assert state.project.public_list is not None
    assert state.project.public_list.path == sample_register()
    assert state.project.public_list.join == {"age": "Alter", "sex": "Geschlecht", "zip": "Postleitzahl"}
    assert "Windows (cp1252)" in panel.file_label.text()
    assert (sample_register(), PUBLIC_LIST_FILE) in state.input_files()
    before = sample_register().read_bytes()
    with pytest.raises(DataError, match="public list"):
        atomic_write_text(sample_register(), "overwritten")  # no writer of the process may replace it
    assert sample_register().read_bytes() == before
    singled = panel.outcome.result.before.singled_out

    saved = tmp_path / "with_list.kanon.json"
    assert window.save_to(saved, None)
    again = reopen(saved)
    again.tabs.setCurrentWidget(again.risk_panel)
    again_panel = again.risk_panel.linkage
    qtbot.waitUntil(lambda: again_panel.outcome is not None and not again.runner.is_busy(), timeout=60_000)
    assert again_panel.outcome.result.before.singled_out == singled
    assert again_panel.join() == {"age": "Alter", "sex": "Geschlecht", "zip": "Postleitzahl"}


def test_cancel_stops_the_join(qtbot, window, wait_idle, seed_run: Run, monkeypatch, tmp_path: Path) -> None:
    started = threading.Event()

    def slow(list_table, table, result, join, progress=None):
        started.set()
        for _ in range(2000):  # until the progress call raises Cancelled
            progress(0.1, "joining")
            threading.Event().wait(0.01)
        raise AssertionError("the join was not cancelled")

    monkeypatch.setattr(linkage_view, "link_release", slow)
    voters = tmp_path / "voters.csv"
    voters.write_text("age,sex,zipcode\n35,Male,533449\n", encoding="utf-8")
    panel = LinkagePanel(runner=window.runner)
    qtbot.addWidget(panel)
    panel.show_run(seed_run)
    panel.load_list(voters)
    qtbot.waitUntil(started.is_set, timeout=10_000)
    assert panel.cancel_button.isVisible() or not panel.isVisible()
    assert not panel.run_button.isEnabled()
    panel.cancel()
    wait_idle(window)
    qtbot.waitUntil(lambda: panel.summary.text() == TEXT["cancelled"], timeout=10_000)
    assert panel.outcome is None and panel.run_button.isEnabled()


def test_an_unreadable_saved_list_is_one_sentence(qtbot, seed_run: Run, tmp_path: Path) -> None:
    panel = LinkagePanel()
    qtbot.addWidget(panel)
    panel.show_run(seed_run)
    panel.load_list(tmp_path / "gone.csv")
    text = panel.file_label.text()
    assert text.startswith("The public list gone.csv named in the project cannot be read:")
    assert text.endswith("Choose it again.") and "Traceback" not in text
    assert panel.list_table is None and not panel.run_button.isEnabled()


def test_new_data_forgets_the_list_of_the_previous_project(qtbot, seed_run: Run, tmp_path: Path) -> None:
    from kanon_gui.state import AppState

    state = AppState()
    state.set_table(seed_run.table)
    voters = tmp_path / "voters.csv"
    voters.write_text("age,sex,zipcode\n35,Male,533449\n", encoding="utf-8")
    panel = LinkagePanel(state)
    qtbot.addWidget(panel)
    panel.show_run(seed_run)
    panel.load_list(voters)
    assert state.project.public_list is not None and panel.list_table is not None
    state.set_table(seed_run.table)  # another file opened: a fresh project
    assert state.project.public_list is None
    assert panel.list_table is None and panel.file_label.text() == TEXT["no_list"] and panel.outcome is None
