"""The workbench's person role (issue 33): picked in the roles column, it makes k count persons, and the
warning that k counts rows shows until it is picked."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from kanon_engine.data.roles import Role

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from test_persons import stays  # noqa: E402


def test_person_role_in_the_workbench(window, tmp_path, wait_idle, qtbot) -> None:
    path = tmp_path / "stays.csv"
    frame = stays(300, seed=2).rename(columns={"birth_year": "birth_date"})
    frame.to_csv(path, index=False)
    window.load_data(path)
    wait_idle(window)
    state = window.state
    state.set_roles(
        {"patient_id": Role.IDENTIFIER, "birth_date": Role.QUASI_IDENTIFIER, "sex": Role.QUASI_IDENTIFIER}
    )
    assert any("'patient_id' repeats" in i.message for i in state.issues())
    window.attributes_panel.set_role("patient_id", Role.PERSON)
    wait_idle(window)
    assert state.role("patient_id") == Role.PERSON
    assert state.config().person == "patient_id"
    assert not any("'patient_id' repeats" in i.message for i in state.issues())
    window.run()
    wait_idle(window)
    run = window.state.current_run
    assert run is not None and run.result.persons is not None
    window.tabs.setCurrentWidget(window.risk_panel)
    wait_idle(window)
    qtbot.waitUntil(lambda: "Per person" in window.risk_panel.status.text(), timeout=20_000)
    assert "k counts persons, not rows" in window.risk_panel.status.text()
    shots = os.environ.get("KANON_SHOTS")
    if shots:  # screenshots for the report (not an assertion)
        window.resize(1366, 768)
        qtbot.wait(300)
        window.grab().save(str(Path(shots) / f"person_role_{os.environ.get('KANON_LANG', 'en')}.png"))


def test_import_dialog_joins_a_patient_table(window, tmp_path, wait_idle, qtbot) -> None:
    """Linked tables: the import dialog joins the patient table on the key, which becomes the person."""
    frame = stays(120, seed=4)
    frame.drop_duplicates("patient_id")[["patient_id", "birth_year", "sex", "area"]].to_csv(
        tmp_path / "patients.csv", index=False
    )
    frame[["patient_id", "month", "ward"]].to_csv(tmp_path / "stays.csv", index=False)
    window.open_path(tmp_path / "stays.csv")
    dialog = window.import_dialog
    qtbot.waitUntil(lambda: dialog.preview is not None, timeout=10_000)
    dialog.join_box.set_patient_file(tmp_path / "patients.csv")
    assert dialog.join_box.key.currentText() == "patient_id"
    dialog.accept()
    wait_idle(window)
    state = window.state
    assert state.table is not None and len(state.table.frame) == len(frame)
    assert {"birth_year", "sex", "area"} <= set(state.table.columns)
    assert state.role("patient_id") == Role.PERSON
    assert [j.on for j in state.project.joins] == ["patient_id"]
