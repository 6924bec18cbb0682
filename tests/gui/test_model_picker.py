"""The privacy-model picker grouped by threat, with the published thresholds (issue 31, item 5): every
model's fields under the heading of what it protects against, a preset fills the form and says its
source, the project stores the values (not the preset) and they come back on reopening."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json

import pandas as pd
import pytest
from PySide6.QtWidgets import QFormLayout

from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table
from kanon_engine.privacy import AverageRisk, KAnonymity, families
from kanon_engine.privacy.base import THREATS
from kanon_engine.project.project_file import Project
from kanon_gui.state import AppState
from kanon_gui.views.algorithm_panel import AlgorithmPanel
from kanon_gui.views.model_picker import ThreatHeading, threat_groups

pytestmark = pytest.mark.gui
QI = ["age", "zip"]


@pytest.fixture
def panel(qtbot) -> AlgorithmPanel:
    state = AppState()
    frame = pd.DataFrame(
        {"age": ["31", "32", "45", "47"] * 5, "zip": ["130", "131"] * 10, "d": ["a", "b"] * 10}
    )
    state.set_table(Table.from_frame(frame.astype(object)))
    state.set_roles({**{q: Role.QUASI_IDENTIFIER for q in QI}, "d": Role.SENSITIVE})
    widget = AlgorithmPanel(state)
    qtbot.addWidget(widget)
    return widget


def _rows_in_order(panel: AlgorithmPanel) -> list[object]:
    """The form's rows top to bottom: a heading's threat, or a parameter's name."""
    form = panel.model_form.layout()
    assert isinstance(form, QFormLayout)
    names = {id(row): name for name, row in panel.model_form.rows.items()}
    out: list[object] = []
    for r in range(form.rowCount()):
        item = form.itemAt(r, QFormLayout.ItemRole.SpanningRole) or form.itemAt(
            r, QFormLayout.ItemRole.FieldRole
        )
        widget = item.widget()
        if isinstance(widget, ThreatHeading):
            out.append(("heading", widget.objectName().removeprefix("threat_")))
        elif id(widget) in names:
            out.append(names[id(widget)])
    return out


def test_every_model_sits_under_the_heading_of_its_threat(panel) -> None:
    groups = threat_groups()
    assert list(groups) == [t for t in THREATS if t in groups]  # the picker's order
    assert set(groups) == set(THREATS)  # every threat has at least one shipped model
    rows = _rows_in_order(panel)
    headings = [r for r in rows if isinstance(r, tuple)]
    assert [h[1] for h in headings] == list(groups)
    # walking down the form, each model's first parameter lies under its own threat's heading
    under: dict[str, str] = {}
    current = None
    for r in rows:
        if isinstance(r, tuple):
            current = r[1]
        else:
            under.setdefault(str(r), str(current))
    for cls in families():
        assert under[cls.params[0].name] == cls.threat, cls.__name__
    assert under["k"] == "singled-out" and under["l"] == "sensitive" and under["k_map"] == "population"
    assert under["delta_presence"] == "presence"
    # each heading explains its threat in one plain line, in the current language
    for threat, heading in panel.threat_headings.items():
        assert heading.explanation.text() and "{" not in heading.explanation.text()
        assert heading.objectName() == f"threat_{threat}"


def test_a_preset_fills_the_form_and_names_its_source(panel) -> None:
    state = panel.state
    heading = panel.threat_headings["singled-out"]
    assert heading.button is not None
    labels = [a.text() for a in heading.button.menu().actions()]
    presets = {p.label: p for p in heading.presets}
    assert labels == list(presets)  # English: the catalog ids are the words
    eleven = presets["k = 11: no group of 1 to 10 (CMS, United States)"]
    heading.choose(eleven)
    assert panel.model_form.values()["k"] == 11
    assert KAnonymity(11) in state.project.models
    assert "Cell Size Suppression Policy" in heading.chosen.text() and heading.chosen.isVisibleTo(panel)
    public = presets["average risk 0.05: a public use file (El Emam et al. 2011)"]
    heading.choose(public)
    assert AverageRisk(0.05) in state.project.models and KAnonymity(11) in state.project.models
    assert "between 0.04 and 0.05" in heading.chosen.text()
    # every action's tooltip cites the preset's source; a heading without presets has no menu
    for action in heading.button.menu().actions():
        assert action.toolTip().startswith("Source: ")
    assert panel.threat_headings["presence"].button is None
    # an edit by hand: the preset's line goes, the value typed stays
    panel.model_form.set_value("k", 7)
    assert not heading.chosen.isVisibleTo(panel) and KAnonymity(7) in state.project.models


def test_the_project_stores_the_values_not_the_preset(panel, tmp_path, qtbot) -> None:
    heading = panel.threat_headings["singled-out"]
    preset = next(p for p in heading.presets if p.values.get("average_risk") == 0.09)
    heading.choose(preset)
    saved = panel.state.project.to_dict(tmp_path)
    text = json.dumps(saved)
    assert "preset" not in text.lower() and "CMS" not in text
    models = {m["name"]: m for m in saved["models"]}
    assert models["average-risk"]["average_risk"] == 0.09
    again = Project.from_dict(json.loads(text), tmp_path)
    assert AverageRisk(0.09) in again.models
    # reopened in a panel, the form shows the same values and no preset line
    state = AppState()
    state.set_table(panel.state.table)
    state.set_roles(panel.state.project.roles)
    state.set_model_values(**{k: v for k, v in panel.state.model_values().items()})
    other = AlgorithmPanel(state)
    qtbot.addWidget(other)
    assert float(other.model_form.values()["average_risk"]) == 0.09
    assert not any(h.chosen.isVisibleTo(other) for h in other.threat_headings.values())


def test_a_choice_left_out_stays_out(panel) -> None:
    """Profitability's attacker is a choice with no default: the form offers "none" first and shows it,
    so editing another field never switches profitability on (it did: the list showed "Prosecutor")."""
    form = panel.model_form
    assert form.values()["profitability"] is None
    assert not form.rows["publisher_benefit"].isVisibleTo(panel)
    form.set_value("k", 7)
    assert panel.state.project.models == (KAnonymity(7),)
    form.set_value("profitability", "prosecutor")
    assert [m.name for m in panel.state.project.models] == ["k-anonymity", "profitability"]
    assert form.rows["publisher_benefit"].isVisibleTo(panel)
    form.set_values({"profitability": None}, emit=True)
    assert panel.state.project.models == (KAnonymity(7),)
