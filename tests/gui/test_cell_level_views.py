"""The workbench on releases that keep every record (local recoding, local suppression, cell suppression):
the picker's plain choices, the grid's marks, the lattice view's transformations, compare-runs' model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.cell_suppression import SUPPRESS
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy.models import KAnonymity
from kanon_gui.glossary import CHANGED_BG, SUPPRESSED_BG
from kanon_gui.models.result_models import ComparisonModel
from kanon_gui.views import lattice_view
from kanon_gui.views.compare_view import COLUMNS, CompareView
from kanon_gui.views.lattice_view import LatticeView
from kanon_gui.views.param_form import ParamForm
from kanon_gui.views.results_view import metrics_html, transformation_text


@pytest.fixture
def four():
    """Ages 30 and 40 are alone with sex F: k=2 stars both ages (the strict reading)."""
    frame = pd.DataFrame({"age": ["30", "40", "50", "50"], "sex": ["F", "F", "M", "M"]}, dtype=object)
    qi = ("age", "sex")
    hs = {
        "age": Hierarchy.from_rows("age", [["30", "30-49", "*"], ["40", "30-49", "*"], ["50", "50-69", "*"]]),
        "sex": Hierarchy.flat("sex", ["F", "M"]),
    }
    config = AnonymizationConfig(qi, hs, (KAnonymity(2),))
    table = Table.from_frame(frame)
    return table, config


def test_the_records_or_cells_choice_shows_plain_words(qtbot):
    form = ParamForm((SUPPRESS,))
    qtbot.addWidget(form)
    combo = form.fields["suppress"]
    assert [combo.itemText(i) for i in range(combo.count())] == list(SUPPRESS.choice_labels)
    assert form.values() == {"suppress": "records"}
    form.set_value("suppress", "cells")
    assert combo.currentText() == "single values (keep every patient)"
    assert form.values() == {"suppress": "cells"}


def test_grid_marks_suppressed_values_and_generalized_ones(qtbot, four):
    table, config = four
    cs = get_algorithm("local-suppression").run(table, config)
    model = ComparisonModel("release")
    model.set_result(table.frame, cs, np.arange(4))
    age = model._names.index("age")
    assert model.background(0, age).color() == SUPPRESSED_BG  # '30' -> '*'
    assert "value '30' replaced by *" in model.tooltip(0, age)
    assert model.background(2, age) is None  # '50' kept
    cg = get_algorithm("local-recoding").run(table, config)
    model.set_result(table.frame, cg, np.arange(4))
    assert model.background(0, age).color() == CHANGED_BG  # '30' -> '30-49'
    assert "generalized from '30'" in model.tooltip(0, age)


def test_results_text_names_the_model_and_the_cells(four):
    table, config = four
    cs = get_algorithm("local-suppression").run(table, config)
    text = transformation_text(cs)
    assert text.startswith("<b>CS</b>: cell suppression (local suppression)")
    assert "2 values in 2 records shown as * (age 2)" in text
    html = metrics_html(cs)
    assert "Values shown as *" in html and "2 (25.0 %)" in html and "Suppressed</small><br><b>0 " in html


def test_lattice_view_lists_the_transformations_of_a_local_result(qtbot, four):
    table, config = four
    view = LatticeView()
    qtbot.addWidget(view)
    cs = get_algorithm("local-suppression").run(table, config)
    view.set_result(cs)
    assert view.stack.currentIndex() == 2 and view.side_panel.isHidden()  # the search legend does not apply
    t = view.used_table
    head = [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())]
    assert head == ["age", "sex", "Records", "Share", "Groups"]
    rows = sorted(tuple(t.item(r, c).text() for c in range(t.columnCount())) for r in range(t.rowCount()))
    assert rows == [("*", "0", "2", "50.0 %", "1"), ("0", "0", "2", "50.0 %", "1")]
    assert "2 groups use 2 transformations" in view.used_header.text()
    full = get_algorithm("optimal", suppression_limit=1.0).run(table, config)
    view.set_result(full)
    assert view.stack.currentIndex() == 1 and not view.side_panel.isHidden()


def test_compare_runs_shows_the_model_and_the_values_replaced(qtbot, four):
    table, config = four
    view = CompareView()
    qtbot.addWidget(view)
    runs = [
        ("records", get_algorithm("optimal", suppression_limit=1.0).run(table, config)),
        ("cells", get_algorithm("optimal", suppression_limit=1.0, suppress="cells").run(table, config)),
        ("local", get_algorithm("local-suppression").run(table, config)),
    ]
    view.set_runs(runs)
    heads = [h for h, _ in COLUMNS]
    model_col, cells_col = heads.index("Model"), heads.index("Values *")
    models = [view.model.index(r, model_col).data() for r in range(3)]
    # plain words with the survey's code (issue 27: "CG" and "AG_TS" alone meant nothing)
    assert models == [
        "same level for the whole table, records suppressed (AG_TS)",
        "same level for the whole table, single values suppressed (AG_CS)",
        "single values suppressed, nothing generalized (CS)",
    ]
    assert view.model.index(2, cells_col).data(Qt.ItemDataRole.UserRole) == 2


def test_lattice_view_marks_the_transformations_on_the_diagram(qtbot, four, monkeypatch):
    """Local suppression on two attributes: a lattice of 4 patterns (kept or *); the two used (nothing
    starred, age starred) are marked at heights 0 and 1. Local recoding marks nodes of the hierarchies'
    lattice (age has 2 levels above the values, sex 1: 6 transformations)."""
    table, config = four
    view = LatticeView()
    qtbot.addWidget(view)
    view.show()
    view.set_result(get_algorithm("local-suppression").run(table, config))
    assert sorted(view.used_marks().tolist()) == [0, 1]
    assert len(view.used_grid.data) == 4 and "diagram marks them" in view.used_header.text()
    cg = get_algorithm("local-recoding").run(table, config)
    view.set_result(cg)
    assert len(view.used_grid.data) == 6
    used = cg.recoding.transformations(cg.row_class)
    assert len(view.used_marks()) == len(used)
    # each circle names its transformation in words and finds its row in the table when clicked
    spots = view.used_nodes.points()
    rows = sorted(int(p.data()) for p in spots)
    assert rows == list(range(len(used)))
    last = next(p for p in spots if int(p.data()) == len(used) - 1)
    tip = view.used_nodes.opts["tip"](x=0.0, y=0.0, data=last.data())  # as pyqtgraph asks on hover
    t = used[-1]
    assert tip.endswith(f"{t['records']:,} records ({100 * t['records'] / 4:.1f} %), {t['classes']:,} groups")
    assert tip.startswith("age: ") and "sex: " in tip
    view._used_clicked(view.used_nodes, [last])
    assert [i.row() for i in view.used_table.selectionModel().selectedRows()] == [len(used) - 1]
    # edges are drawn on small lattices only (on large ones they darken the middle)
    assert len(view.used_edges.xData) > 0
    monkeypatch.setattr(lattice_view, "USED_EDGES_CAP", 5)
    view.set_result(cg)
    assert view.used_edges.xData is None or len(view.used_edges.xData) == 0
    assert len(view.used_marks()) == len(used)


def test_release_box_says_why_removing_records_does_not_apply(window):
    """Removing suppressed records (and the suppressed group's rule) mean nothing for a release that keeps
    every record: disabled, with a sentence; the importance order shows only where values are suppressed."""
    panel = window.algorithm_panel
    panel.select_algorithm("optimal")
    assert panel.drop.isEnabled() and panel.keeps_all.isHidden()
    assert panel.params_form.rows["importance"].isHidden()
    panel.params_form.set_value("suppress", "cells")
    panel.params_form._emit()
    assert not panel.drop.isEnabled() and not panel.protect.isEnabled()
    assert not panel.keeps_all.isHidden() and "keeps every record" in panel.keeps_all.text()
    assert not panel.params_form.rows["importance"].isHidden()
    panel.select_algorithm("local-suppression")
    assert not panel.drop.isEnabled() and not panel.keeps_all.isHidden()
    panel.select_algorithm("datafly")
    panel.params_form.set_value("suppress", "records")
    panel.params_form._emit()
    assert panel.drop.isEnabled() and panel.keeps_all.isHidden()
