"""The dialog an unexpected exception opens: what happened, the details to copy, where the log is."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.i18n import _
from kanon_gui.appdata import app_data_dir


class CrashDialog(QDialog):
    """Shows an unexpected error with its traceback (selectable, with a Copy button).

    The project on disk is untouched by a crash: saves are atomic and an autosave copy exists; the
    dialog says so, so the user knows nothing is lost.
    """

    def __init__(self, title: str, details: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("kanon: unexpected error"))
        self.setObjectName("CrashDialog")
        self.resize(720, 460)
        layout = QVBoxLayout(self)
        intro = QLabel(
            _(
                "<b>kanon met an unexpected error.</b><br>Your saved project is intact (saves are atomic, "
                "and an autosave copy is kept in {app_data_dir}). Please copy the details below and send "
                "them to your support contact; they contain no data values from your file except possibly "
                "in the last line.",
                app_data_dir=app_data_dir(),
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.summary = QLabel(title)
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.details = QPlainTextEdit(details)
        self.details.setReadOnly(True)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.details, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = QPushButton(_("Copy details"))
        copy.clicked.connect(self.copy_details)
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)

    def append(self, details: str) -> None:
        """Add a further error that happened while the dialog was open."""
        self.details.appendPlainText("\n" + details)

    def copy_details(self) -> None:
        QGuiApplication.clipboard().setText(self.summary.text() + "\n\n" + self.details.toPlainText())
