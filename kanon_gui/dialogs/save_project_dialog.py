"""Save the project: where, and whether to protect it with a password.

Why a dialog of its own: a project file holds patient values (its hierarchies list every date of birth
and postcode of the data), and the person saving it must be told so where they choose the file, with
the choice to seal it with a password (:mod:`kanon_engine.project.sealed`) right there.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.i18n import N_, text_of

#: Every sentence of the dialog, whole, with named placeholders (one place, ready for translation).
TEXT = {
    "title": N_("Save the project"),
    "warning": N_(
        "<b>A project file contains patient values.</b> Its hierarchies list every distinct value of the "
        "quasi-identifiers (each date of birth, each postcode). kanon writes it readable by you only. "
        "Keep it where you keep the data itself; share the release and the report, not the project."
    ),
    "file": N_("Project file"),
    "browse": N_("Browse…"),
    "protect": N_("Protect the file with a password (encrypted; without the password nobody can read it)"),
    "password": N_("Password"),
    "repeat": N_("Repeat it"),
    "filter": N_("kanon project (*.kanon.json *.json)"),
    "no_file": N_("Choose a file name for the project."),
    "no_password": N_("Type a password, or untick the protection."),
    "mismatch": N_("The two passwords differ: type the same password twice."),
    "short": N_("Use at least 8 characters: a short password is quickly guessed."),
}
MIN_PASSWORD = 8


class SaveProjectDialog(QDialog):
    """Choose the project file and, optionally, a password; :meth:`choice` once accepted."""

    def __init__(self, start: Path, protected: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(text_of(TEXT, "title"))
        self.setObjectName("SaveProjectDialog")
        layout = QVBoxLayout(self)
        note = QLabel(text_of(TEXT, "warning"))
        note.setWordWrap(True)
        note.setObjectName("SaveProjectWarning")
        note.setStyleSheet("background: #fff6e0; border: 1px solid #b7791f; padding: 8px;")
        layout.addWidget(note)
        form = QFormLayout()
        self.path_edit = QLineEdit(str(start))
        browse = QPushButton(text_of(TEXT, "browse"))
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        form.addRow(text_of(TEXT, "file"), row)
        self.protect = QCheckBox(text_of(TEXT, "protect"))
        self.protect.setChecked(protected)
        form.addRow(self.protect)
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.repeat = QLineEdit()
        self.repeat.setEchoMode(QLineEdit.EchoMode.Password)
        form.addRow(text_of(TEXT, "password"), self.password)
        form.addRow(text_of(TEXT, "repeat"), self.repeat)
        layout.addLayout(form)
        self.message = QLabel()
        self.message.setStyleSheet("color: #c0392b;")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.protect.toggled.connect(self._sync)
        self._sync()
        self.resize(640, self.sizeHint().height())

    def _sync(self, *_args: object) -> None:
        for w in (self.password, self.repeat):
            w.setEnabled(self.protect.isChecked())

    def _browse(self) -> None:
        path, _unused = QFileDialog.getSaveFileName(
            self, text_of(TEXT, "title"), self.path_edit.text(), text_of(TEXT, "filter")
        )
        if path:
            self.path_edit.setText(path)

    def problem(self) -> str:
        """Why the choices cannot be saved yet ("" when they can)."""
        if not self.path_edit.text().strip():
            return text_of(TEXT, "no_file")
        if self.protect.isChecked():
            if not self.password.text():
                return text_of(TEXT, "no_password")
            if len(self.password.text()) < MIN_PASSWORD:
                return text_of(TEXT, "short")
            if self.password.text() != self.repeat.text():
                return text_of(TEXT, "mismatch")
        return ""

    def _accept(self) -> None:
        problem = self.problem()
        if problem:
            self.message.setText(problem)
            return
        self.accept()

    def choice(self) -> tuple[Path, str | None]:
        """The file and the password (None: not protected)."""
        password = self.password.text() if self.protect.isChecked() else None
        return Path(self.path_edit.text().strip()).expanduser(), password
