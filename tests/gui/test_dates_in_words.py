"""Dates and quarters the wizard writes follow the language ("T1 2022" in French, months as the language
writes dates, or ISO by choice), and the charts of the original and of the release share their bins and
labels (issue 27, item 5)."""

from __future__ import annotations

import pandas as pd
import pytest

from kanon_engine import i18n
from kanon_engine.data.table import Table
from kanon_gui.state import AppState

pytestmark = pytest.mark.gui

VISITS = ["15.03.2022", "02.05.2022", "30.09.2022", "11.11.2022", "07.01.2023", "19.06.2023"] * 10


@pytest.fixture
def french(qapp):
    from kanon_gui.language import install_language

    install_language("fr")
    yield
    install_language(i18n.SOURCE_LANGUAGE)


def _wizard(qtbot):
    from kanon_gui.dialogs.hierarchy_wizard import HierarchyWizardDialog

    state = AppState()
    state.set_table(Table.from_frame(pd.DataFrame({"Besuchsdatum": VISITS})))
    dialog = HierarchyWizardDialog(state, "Besuchsdatum")
    qtbot.addWidget(dialog)
    assert dialog.kind_key() == "dates"
    for level, box in dialog.date_levels.items():
        box.setChecked(level in ("month", "quarter", "year"))
    return dialog


def test_the_wizard_writes_months_and_quarters_the_french_way(qtbot, french):
    dialog = _wizard(qtbot)
    assert dialog.date_style.currentData() == "language"
    assert "T1" in dialog.date_style.currentText()
    h = dialog.hierarchy()
    assert h.generalize(["15.03.2022"], 1)[0] == "03/2022"
    assert h.generalize(["15.03.2022", "30.09.2022"], 2).tolist() == ["T1 2022", "T3 2022"]
    assert dialog.preview.item(0, 2).text() == "T1 2022"
    dialog.date_style.setCurrentIndex(dialog.date_style.findData("iso"))
    iso = dialog.hierarchy()
    assert (
        iso.generalize(["15.03.2022"], 1)[0] == "2022-03"
        and iso.generalize(["15.03.2022"], 2)[0] == "2022-Q1"
    )


def test_the_original_and_the_release_share_their_labels(qtbot, french):
    """A release by quarter: both charts are binned by quarter, under the same words."""
    from kanon_gui.views.charts import date_distributions

    dialog = _wizard(qtbot)
    h = dialog.hierarchy()
    original = pd.Series(VISITS, dtype=object)
    released = pd.Series(h.generalize(VISITS, 2), dtype=object)
    before, after, unit, shared = date_distributions(original, released, "%d.%m.%Y", h)
    assert shared and unit == i18n._("quarter")
    assert (
        list(before.index)
        == list(after.index)
        == ["T1 2022", "T2 2022", "T3 2022", "T4 2022", "T1 2023", "T2 2023"]
    )
    assert before.sum() == after.sum() == len(VISITS)
