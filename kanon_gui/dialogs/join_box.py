"""Linked tables in the import dialog (issue 33): a patient table joined onto the stay table on the
patient key, the key becoming the person column (:mod:`kanon_engine.data.join`, the CLI's
``--join FILE ON COLUMN``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QComboBox, QFileDialog, QGroupBox, QHBoxLayout, QLabel, QPushButton, QWidget

from kanon_engine.data.io import read_table
from kanon_engine.data.join import JoinSpec
from kanon_engine.errors import KanonError
from kanon_engine.i18n import _


class JoinBox(QGroupBox):
    """Pick a patient table and the key column both tables hold; :meth:`joins` once accepted."""

    def __init__(self, stay_columns: Callable[[], list[str]], parent: QWidget | None = None) -> None:
        super().__init__(_("Linked tables (optional)"), parent)
        self.setObjectName("JoinBox")
        self._stay_columns = stay_columns
        self.path: Path | None = None
        self.pick = QPushButton(_("Join a patient table…"))
        self.pick.clicked.connect(self._choose)
        self.file = QLabel(_("One row per patient, joined onto every stay on the patient number."))
        self.file.setWordWrap(True)
        self.key = QComboBox()
        self.key.setObjectName("JoinKey")
        self.key.setEnabled(False)
        self.key.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # the whole column name
        row = QHBoxLayout(self)
        row.addWidget(self.pick)
        row.addWidget(self.file, 1)
        row.addWidget(QLabel(_("on")))
        row.addWidget(self.key)

    def _choose(self) -> None:
        name, _filter = QFileDialog.getOpenFileName(self, _("Patient table"), "", "")
        if name:
            self.set_patient_file(Path(name))

    def set_patient_file(self, path: Path) -> None:
        """Read the patient table's columns and offer the ones the stay table holds too as the key."""
        try:
            columns = read_table(path).columns
        except KanonError as exc:
            self.file.setText(str(exc))
            return
        common = [c for c in self._stay_columns() if c in columns]
        self.key.clear()
        self.key.addItems(common)
        self.key.setEnabled(bool(common))
        self.path = path if common else None
        self.file.setText(
            path.name if common else _("{name} has no column of the stay table to join on.", name=path.name)
        )

    def joins(self) -> list[JoinSpec]:
        """The join chosen (none when no patient table was picked)."""
        if self.path is None or not self.key.currentText():
            return []
        return [JoinSpec(self.path, self.key.currentText())]
