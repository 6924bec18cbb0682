"""Guards against a Qt binding that corrupts the interpreter.

PySide6 6.12.0 on Python 3.11 drops one reference to None for every Qt call that returns nothing; after a
few thousand calls (one busy minute in the app) Python aborts with "none_dealloc". The pinned version must
not do that.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel


def test_qt_calls_do_not_leak_references_to_none(qtbot):
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(2000):
        label.setText("x")
        label.isVisible()
    assert abs(sys.getrefcount(None) - before) < 100
