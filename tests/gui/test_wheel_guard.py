"""The mouse wheel over a combo box or spin box the user did not click into changes nothing (it scrolls
the panel instead): one application event filter, :mod:`kanon_gui.wheel_guard`."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QComboBox, QDoubleSpinBox, QSpinBox, QVBoxLayout, QWidget

from kanon_gui.wheel_guard import install_wheel_guard

pytestmark = pytest.mark.gui


def wheel(widget, steps: int = -1) -> None:
    """One notch of the wheel over the middle of ``widget`` (negative: towards the user)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


@pytest.fixture
def guarded(qapp):
    return install_wheel_guard(qapp)


def test_installed_once_by_the_application(qapp, guarded):
    from kanon_gui.app import create_application

    assert create_application() is qapp
    assert install_wheel_guard(qapp) is guarded


def test_the_wheel_over_the_suppression_choice_changes_nothing(window, guarded, qtbot):
    """The walk's finding: scrolling the Anonymize tab turned "what to suppress" from records to cells."""
    window.tabs.setCurrentWidget(window.algorithm_panel)
    window.algorithm_panel.select_algorithm("optimal")
    form = window.algorithm_panel.params_form
    suppress = form.fields["suppress"]
    assert isinstance(suppress, QComboBox)
    before = suppress.currentData()
    qtbot.waitUntil(suppress.isVisible)
    assert suppress.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel does not focus it either
    for steps in (-1, 1, -1, -1):
        wheel(suppress, steps)
    assert suppress.currentData() == before
    spins = [w for w in window.algorithm_panel.findChildren(QSpinBox) if w.isVisible()]
    assert spins, "the model form has a spin box (k)"
    values = [s.value() for s in spins]
    for s in spins:
        wheel(s, 1)
        wheel(s.lineEdit(), 1)  # the pointer is usually over the spin box's text
    assert [s.value() for s in spins] == values


def test_a_focused_field_still_answers_the_wheel(qtbot, guarded):
    """Clicked into (focused), a field takes the wheel as Qt's fields always did."""
    panel = QWidget()
    layout = QVBoxLayout(panel)
    combo, spin, decimal = QComboBox(), QSpinBox(), QDoubleSpinBox()
    combo.addItems(["records", "cells"])
    for w in (combo, spin, decimal):
        layout.addWidget(w)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    wheel(combo, -1)
    wheel(spin, 1)
    wheel(decimal, 1)
    assert (combo.currentIndex(), spin.value(), decimal.value()) == (0, 0, 0.0)
    panel.activateWindow()
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    wheel(combo, -1)
    assert combo.currentIndex() == 1
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    wheel(spin, 1)
    assert (spin.value(), combo.currentIndex()) == (1, 1)
