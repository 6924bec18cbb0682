"""Small widgets the views and dialogs build the same way: one function each, so a wrapped note, a
labelled row or a dialog's OK/Cancel buttons look and behave alike everywhere."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QWidget


def note_label(name: str, style: str = "", *, hidden: bool = False) -> QLabel:
    """An empty word-wrapped label named ``name`` (tests and screenshots find it by that name), with its
    style sheet, hidden until there is something to say when ``hidden``."""
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    if style:
        label.setStyleSheet(style)
    if hidden:
        label.hide()
    return label


def labelled_row(text: str, *widgets: QWidget) -> QHBoxLayout:
    """A row: ``text`` as a label, then ``widgets``, then the free space."""
    row = QHBoxLayout()
    row.addWidget(QLabel(text))
    for widget in widgets:
        row.addWidget(widget)
    row.addStretch(1)
    return row


def ok_cancel_buttons(dialog: QDialog, ok_text: str) -> QDialogButtonBox:
    """OK (labelled ``ok_text``) and Cancel, wired to accept and reject ``dialog``."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    buttons.button(QDialogButtonBox.StandardButton.Ok).setText(ok_text)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons
