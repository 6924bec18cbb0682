"""Texts the walk of issue 27 found in English in a French workbench: Qt's own file dialog ("Look in:",
"Files of type:", which the PySide6 wheel's French and Spanish catalogs lack), "(missing)" in the masking
preview, "at most: all", and a parameter error tagged "[models]" with an English decimal point."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtWidgets import QFileDialog, QLabel

from kanon_engine import i18n
from kanon_engine.data.table import Table
from kanon_gui.state import AppState

pytestmark = pytest.mark.gui

LANGUAGES = ["de", "fr", "es"]


@pytest.fixture
def language(qapp, request):
    from kanon_gui.language import install_language

    install_language(request.param)
    yield request.param
    install_language(i18n.SOURCE_LANGUAGE)


@pytest.mark.parametrize("language", LANGUAGES, indirect=True)
def test_qt_file_dialog_speaks_the_language(qapp, qtbot, language):
    from kanon_gui.language import QT_GAPS

    for mode in (QFileDialog.AcceptMode.AcceptOpen, QFileDialog.AcceptMode.AcceptSave):
        dialog = QFileDialog(None, "x")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setAcceptMode(mode)
        qtbot.addWidget(dialog)
        dialog.show()
        labels = [w.text().replace("&", "") for w in dialog.findChildren(QLabel) if w.text()]
        english = {"Look in:", "Files of type:", "File name:"}
        assert not english & set(labels), (language, labels)
        dialog.close()
    for (context, source), _message in QT_GAPS.items():
        assert qapp.translate(context, source) != source, (language, source)


@pytest.mark.parametrize("language", ["fr", "de"], indirect=True)
def test_missing_values_and_all_in_the_masking_preview(qtbot, language):
    from kanon_gui.dialogs.hierarchy_wizard import HierarchyWizardDialog

    frame = pd.DataFrame({"PLZ": ["04229", "01067", "06108", "09111", None, "04109"] * 10})
    state = AppState()
    state.set_table(Table.from_frame(frame))
    dialog = HierarchyWizardDialog(state, "PLZ")
    qtbot.addWidget(dialog)
    assert dialog.kind_key() == "masking"
    dialog.max_masked.setValue(0)
    assert dialog.max_masked.specialValueText() not in ("all", "")
    h = dialog.hierarchy()
    assert h is not None
    shown = {
        dialog.preview.item(r, c).text()
        for r in range(dialog.preview.rowCount())
        for c in range(dialog.preview.columnCount())
        if dialog.preview.item(r, c) is not None
    }
    assert "(missing)" not in shown
    assert i18n._("(missing)") in shown


@pytest.mark.parametrize("language", ["fr", "de"], indirect=True)
def test_a_parameter_error_has_no_tag_and_the_languages_decimal_mark(qtbot, language):
    from kanon_gui.views.algorithm_panel import AlgorithmPanel

    frame = pd.DataFrame({"age": [str(20 + i % 40) for i in range(60)], "d": ["a", "b", "c"] * 20})
    state = AppState()
    state.set_table(Table.from_frame(frame))
    panel = AlgorithmPanel(state)
    qtbot.addWidget(panel)
    state.set_model_values(t=3.5)
    texts = [panel.issues.item(i).text() for i in range(panel.issues.count())]
    error = next(t for t in texts if t.startswith("\u2716") and "t " in t)
    assert "[models]" not in error and "[t]" not in error
    assert "3,5" in error and "3.5" not in error


def _as_shown(menu_text: str) -> str:
    """What a menu shows for an action's text: "&x" underlines x (the "&" is not shown), "&&" is "&"."""
    import re

    return re.sub(r"&(.)", r"\1", menu_text)


def test_an_ampersand_in_a_menu_is_shown_as_one(window, qtbot):
    """The View menu showed "Go to Attributes  hierarchies" (the "&" taken as a shortcut marker)."""
    shown = [_as_shown(a.text()) for a in window.tab_actions]
    assert "Go to Attributes & hierarchies" in shown
    frame = pd.DataFrame({"ward": ["Gynäkologie & Geburtshilfe", "Chirurgie"] * 10, "age": ["1", "2"] * 10})
    window.state.set_table(Table.from_frame(frame))
    from kanon_engine.data.roles import Role

    window.state.set_role("ward", Role.QUASI_IDENTIFIER)
    from kanon_engine.hierarchy.model import Hierarchy

    h = Hierarchy.from_rows("ward", [["Gynäkologie & Geburtshilfe", "A", "*"], ["Chirurgie", "A", "*"]])
    window.state.set_hierarchy("ward", h)
    window.hierarchy_editor.set_column("ward")
    assert window.hierarchy_editor.rename(1, "A", "Frauen & Chirurgie")
    shown = _as_shown(window.undo_action.text())
    assert shown.startswith("Undo Rename 'A' to 'Frauen & Chirurgie'"), shown


def test_a_long_message_ends_in_an_ellipsis_and_opens_whole(qtbot):
    """The French warning after a run was cut mid-sentence by the two-line message strip."""
    from kanon_gui.views.message_bar import MessageBar

    bar = MessageBar()
    qtbot.addWidget(bar)
    bar.resize(500, bar.height())
    bar.show()
    qtbot.waitExposed(bar)
    two_lines = bar.height()
    long = " ".join(["Geburtsdatum wurde bis zur obersten Stufe generalisiert."] * 6)
    bar.show_message(long, "warning")
    assert bar.label.text().endswith("\u2026") and bar.more_button.isVisible()
    assert bar.text() == long  # the whole message is still what the bar says
    bar.toggle_expanded()
    assert "\u2026" not in bar.label.text() and bar.height() > two_lines
    bar.toggle_expanded()
    assert bar.height() == two_lines
    bar.show_message("Fertig.", "info")
    assert bar.label.text() == "Fertig." and not bar.more_button.isVisible()


def test_titles_wrap_on_as_many_lines_as_they_need():
    from kanon_gui.views.charts import wrap_title

    title = (
        "1. #1 Recodage local, k = 5 : 864 groupes, 0 valeurs remplacées par * (aucun enregistrement retiré)"
    )
    lines = wrap_title(title, 34).split("<br>")
    assert len(lines) == 3 and all(len(line) <= 40 for line in lines)
    assert " ".join(lines) == title
    assert wrap_title("Short title") == "Short title"


@pytest.mark.parametrize("language,joined", [("en", "a; b"), ("de", "a; b"), ("fr", "a\u00a0; b")])
def test_clauses_are_joined_the_languages_way(language, joined):
    from kanon_engine.i18n import formats

    assert formats.join_clauses(["a", "b"], language) == joined
