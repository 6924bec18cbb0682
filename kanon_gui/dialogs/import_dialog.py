"""The import dialog: a live preview of a CSV/TSV/XLSX/Parquet file with its delimiter, encoding, header
and per-column types detected and editable, each type showing the share of values that fit it.

The preview reads only the start of a text file (the engine's ``preview_table``), so it is instant even
for a 1,000,000-row file; the full load happens in the background after the dialog closes (see
:meth:`kanon_gui.main_window.MainWindow.load_data`). Errors (wrong delimiter, unreadable encoding) are the
engine's messages, shown inline under the options.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data import list_sheets, preview_table
from kanon_engine.data.dates import DateFit, date_problems
from kanon_engine.data.sniff import describe_encoding
from kanon_engine.data.table import ColumnKind, ReadOptions, Table, apply_type_overrides
from kanon_engine.data.types import DATE_FORMATS, best_number_format, describe_date_format, guess_date_format
from kanon_engine.errors import KanonError
from kanon_engine.i18n import N_, _, formats, ngettext
from kanon_gui.dialogs.join_box import JoinBox
from kanon_gui.errors import error_text, log_error
from kanon_gui.models.table_model import FrameModel
from kanon_gui.views.data_view import fit_headers

DELIMITERS = (
    (N_("Detect"), None),
    (N_("Comma ,"), ","),
    (N_("Semicolon ;"), ";"),
    (N_("Tab"), "\t"),
    (N_("Pipe |"), "|"),
    (N_("Space"), " "),
    (N_("Colon :"), ":"),
)
#: The encodings offered (named by describe_encoding when the dialog opens, in its language).
ENCODING_CODES = (None, "utf-8", "utf-8-sig", "utf-16", "cp1252", "latin-1")
QUOTES = ((N_('Double quote "'), '"'), (N_("Single quote '"), "'"))
KINDS = (ColumnKind.INTEGER, ColumnKind.DECIMAL, ColumnKind.DATE, ColumnKind.CATEGORICAL)
KIND_LABELS = {
    ColumnKind.INTEGER: N_("integer"),
    ColumnKind.DECIMAL: N_("decimal"),
    ColumnKind.DATE: N_("date"),
    ColumnKind.CATEGORICAL: N_("text / category"),
}
PREVIEW_ROWS = 200
_INT = re.compile(r"[+-]?\d+")


def type_shares(values: pd.Series) -> dict[ColumnKind, tuple[float, str | None]]:
    """Share of the non-missing values that fit each type (and the date format found), on the preview.

    Vectorized over distinct values weighted by their counts, like the engine's detection."""
    present = values.dropna().astype(str).str.strip()
    if len(present) == 0:
        return {k: (1.0, None) for k in KINDS}
    vc = present.value_counts()
    uniq = pd.Series(vc.index, dtype=object).astype(str)
    counts = vc.to_numpy(dtype=np.int64)
    total = float(counts.sum())
    numbers = best_number_format(uniq.str.strip(), counts)[0].read(uniq.str.strip())  # "12,5" too
    is_num = np.isfinite(numbers)
    is_int = uniq.str.fullmatch(_INT.pattern).to_numpy(dtype=bool) | (is_num & (numbers == np.round(numbers)))
    found = guess_date_format(pd.Series(uniq.to_numpy(dtype=object), dtype="str"), counts)
    return {
        ColumnKind.INTEGER: (float(counts[is_int].sum()) / total, None),
        ColumnKind.DECIMAL: (float(counts[is_num].sum()) / total, None),
        ColumnKind.DATE: (found[1], found[0]) if found else (0.0, None),
        ColumnKind.CATEGORICAL: (1.0, None),
    }


class ImportDialog(QDialog):
    """Choose how to read a file; :meth:`options` and :meth:`type_overrides` once accepted."""

    def __init__(self, path: str | Path, parent: QWidget | None = None, engine_line: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("ImportDialog")
        self.path = Path(path)
        self.setWindowTitle(_("Open {name}", name=self.path.name))
        self._fit_to_screen()
        self.preview: Table | None = None
        self.error: str = ""
        self._shares: dict[str, dict[ColumnKind, tuple[float, str | None]]] = {}
        self._kinds: dict[str, ColumnKind] = {}
        self._formats: dict[str, str] = {}  # date formats the user picked
        self._as_text: set[str] = set()  # columns the user chose to read as text
        self.date_problem: DateFit | None = None
        suffix = self.path.suffix.lower()
        self.kind = (
            "xlsx" if suffix in (".xlsx", ".xlsm") else "parquet" if suffix in (".parquet", ".pq") else "text"
        )

        layout = QVBoxLayout(self)
        size = self.path.stat().st_size if self.path.exists() else 0
        head = QLabel(
            _(
                "<b>{name}</b> — {n} MB. Check that the preview looks right; every setting is detected "
                "and can be changed.",
                name=self.path.name,
                n=formats.decimal(size / 1000000.0, 1, fixed=True),
            )
        )
        head.setWordWrap(True)
        layout.addWidget(head)
        # a file that will not be loaded whole: which engine reads it, and why (before anything is read)
        self.engine_label = QLabel(engine_line)
        self.engine_label.setObjectName("ImportEngine")
        self.engine_label.setWordWrap(True)
        self.engine_label.setStyleSheet("background: #ebf4ff; border: 1px solid #90cdf4; padding: 6px;")
        self.engine_label.setVisible(bool(engine_line))
        layout.addWidget(self.engine_label)

        layout.addWidget(self._options_box())

        self.message = QLabel()
        self.message.setObjectName("ImportError")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c0392b;")
        self.message.hide()
        layout.addWidget(self.message)

        layout.addWidget(self._preview_split(), 1)
        layout.addWidget(self._date_box())
        self.join_box = JoinBox(lambda: list(self.preview.columns) if self.preview is not None else [])
        layout.addWidget(self.join_box)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(_("Load"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self.refresh_preview)
        for combo in (self.delimiter, self.encoding, self.quote, self.sheet):
            combo.currentIndexChanged.connect(lambda *_args: self._timer.start())
        self.header.toggled.connect(lambda *_args: self._timer.start())
        self.refresh_preview()

    def _options_box(self) -> QGroupBox:
        """How to read the file: delimiter, encoding, quote and header for text; the sheet of a workbook."""
        options = QGroupBox(_("How to read the file"))
        form = QFormLayout(options)
        self.delimiter = self._combo(DELIMITERS)
        encodings = tuple((describe_encoding(c) if c else N_("Detect"), c) for c in ENCODING_CODES)
        self.encoding = self._combo(encodings)
        self.quote = self._combo(QUOTES)
        self.header = QCheckBox(_("The first row holds the column names"))
        self.header.setChecked(True)
        self.sheet = QComboBox()
        if self.kind == "text":
            form.addRow(_("Delimiter"), self.delimiter)
            form.addRow(_("Encoding"), self.encoding)
            form.addRow(_("Quote character"), self.quote)
            form.addRow(self.header)
        elif self.kind == "xlsx":
            try:
                self.sheet.addItems(list_sheets(self.path))
            except KanonError as exc:
                self.error = error_text(exc)
            form.addRow(_("Sheet"), self.sheet)
            form.addRow(self.header)
        else:
            form.addRow(QLabel(_("Parquet files carry their column names and types.")))
        self.detected = QLabel()
        self.detected.setObjectName("ImportDetected")
        self.detected.setWordWrap(True)
        form.addRow(self.detected)
        return options

    def _preview_split(self) -> QSplitter:
        """The preview grid above, the detected column types (editable) below."""
        split = QSplitter(Qt.Orientation.Vertical)
        self.model = FrameModel(self)
        self.grid = QTableView()
        self.grid.setObjectName("ImportPreview")
        self.grid.setModel(self.model)
        self.grid.verticalHeader().setDefaultSectionSize(22)
        self.grid.horizontalHeader().setDefaultSectionSize(110)
        split.addWidget(
            self._boxed(_("Preview (first {preview_rows} rows)", preview_rows=PREVIEW_ROWS), self.grid)
        )
        self.types = QTableWidget(0, 4)
        self.types.setObjectName("ImportTypes")
        self.types.setHorizontalHeaderLabels([_("Column"), _("Type"), _("Values that fit"), _("Examples")])
        self.types.verticalHeader().setVisible(False)
        self.types.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.types.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.types.horizontalHeader().setStretchLastSection(True)
        for i, w in enumerate((160, 150, 150)):
            self.types.setColumnWidth(i, w)
        split.addWidget(self._boxed(_("Column types (change a type if the detection is wrong)"), self.types))
        split.setSizes([300, 340])  # the column types get room for about ten rows
        return split

    def _date_box(self) -> QWidget:
        """Dates that do not fit one format: the facts, and the three choices (fix the file, pick
        another format, treat the column as text). Load stays disabled until one is made."""
        self.date_box = QGroupBox(_("Dates that do not fit one format"))
        self.date_box.setObjectName("ImportDateProblem")
        lay = QVBoxLayout(self.date_box)
        self.date_text = QLabel()
        self.date_text.setWordWrap(True)
        self.date_text.setStyleSheet("color: #c0392b;")
        lay.addWidget(self.date_text)
        row = QHBoxLayout()
        row.addWidget(QLabel(_("Read the column with the format")))
        self.date_format = QComboBox()
        self.date_format.setObjectName("ImportDateFormat")
        for fmt in DATE_FORMATS:
            self.date_format.addItem(describe_date_format(fmt), fmt)
        self.date_format.activated.connect(lambda i: self.set_date_format(self.date_format.itemData(i)))
        row.addWidget(self.date_format)
        self.date_as_text = QPushButton(_("Treat the column as text"))
        self.date_as_text.setObjectName("ImportDateAsText")
        self.date_as_text.clicked.connect(self._date_as_text)
        row.addWidget(self.date_as_text)
        row.addStretch(1)
        lay.addLayout(row)
        self.date_box.hide()
        return self.date_box

    def set_date_format(self, fmt: str) -> None:
        """Read the column of the current date problem as dates in ``fmt`` (one of the choices)."""
        if self.date_problem is not None:
            col = self.date_problem.column
            self._formats[col] = fmt
            if self._kinds.get(col) != ColumnKind.DATE:
                self.set_kind(col, ColumnKind.DATE)
            self._check_dates()

    def _date_as_text(self) -> None:
        if self.date_problem is not None:
            col = self.date_problem.column
            self._as_text.add(col)
            self._formats.pop(col, None)
            if self._kinds.get(col) != ColumnKind.CATEGORICAL:
                self.set_kind(col, ColumnKind.CATEGORICAL)
            self._check_dates()

    def _check_dates(self) -> None:
        """Show the first column whose dates (in the preview) do not all fit one format, and block Load."""
        self.date_problem = None
        if self.preview is not None:
            overrides = self.type_overrides()
            try:
                table = apply_type_overrides(self.preview, overrides)
            except KanonError as err:  # a column chosen as numbers that are not: said, Load blocked
                self._show_type_problem(error_text(err))
                return
            found = date_problems(table, table.columns, set(overrides))
            if found:
                self.date_problem, text = found[0]
                n = len(self.preview.frame)
                self.date_text.setText(
                    _(
                        "{problem} (in the first {n} rows). kanon reads a column with one date format and "
                        "never guesses: fix the file and open it again, pick the format these dates are "
                        "written in, or treat the column as text.",
                        problem=text.rstrip("."),
                        n=n,
                    )
                )
                fmt = self.date_problem.format
                if fmt in DATE_FORMATS:
                    self.date_format.setCurrentIndex(DATE_FORMATS.index(fmt))
        self.date_box.setTitle(_("Dates that do not fit one format"))
        for child in self.date_box.findChildren(QWidget):
            child.setVisible(True)
        self.date_box.setVisible(self.date_problem is not None)
        ok = self.preview is not None and self.date_problem is None
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def _show_type_problem(self, text: str) -> None:
        """A column read as a type its values do not have (numbers that are not): the sentence in the
        problem box (without the date choices), and Load blocked until the type is changed."""
        self.date_problem = None
        self.date_text.setText(text)
        self.date_box.setTitle(_("Values that do not fit the column's type"))
        for child in self.date_box.findChildren(QWidget):
            if child is not self.date_text:
                child.setVisible(False)
        self.date_box.setVisible(True)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)

    def _fit_to_screen(self) -> None:
        """As large as the preview and the column types need, within the screen."""
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        width, height = 1100, 820
        if screen is not None:
            width, height = min(width, int(screen.width() * 0.9)), min(height, int(screen.height() * 0.9))
        self.resize(width, height)

    @staticmethod
    def _boxed(title: str, widget: QWidget) -> QWidget:
        box = QGroupBox(title)
        lay = QVBoxLayout(box)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(widget)
        return box

    @staticmethod
    def _combo(items: tuple[tuple[str, Any], ...]) -> QComboBox:
        combo = QComboBox()
        for label, value in items:
            combo.addItem(_(label), value)
        return combo

    # --- options -------------------------------------------------------------------------------------
    def options(self) -> ReadOptions:
        """The read options chosen (None = detect)."""
        if self.kind == "xlsx":
            return ReadOptions(header=self.header.isChecked(), sheet=self.sheet.currentText() or None)
        if self.kind == "parquet":
            return ReadOptions()
        return ReadOptions(
            delimiter=self.delimiter.currentData(),
            encoding=self.encoding.currentData(),
            quotechar=self.quote.currentData() or '"',
            header=self.header.isChecked(),
        )

    def set_delimiter(self, delimiter: str | None) -> None:
        """Choose a delimiter (as the combo box would) and refresh the preview now."""
        i = self.delimiter.findData(delimiter)
        if i < 0:
            self.delimiter.addItem(repr(delimiter), delimiter)
            i = self.delimiter.count() - 1
        self.delimiter.setCurrentIndex(i)
        self.refresh_preview()

    def type_overrides(self) -> dict[str, tuple[ColumnKind, str | None]]:
        """Column -> (kind, date format) for every column whose type the user changed."""
        out = {}
        if self.preview is None:
            return out
        for col, kind in self._kinds.items():
            detected = self.preview.column_types.get(col)
            picked = self._formats.get(col) if kind == ColumnKind.DATE else None
            chosen = kind == ColumnKind.CATEGORICAL and col in self._as_text
            if detected is None or detected.kind != kind or picked or chosen:
                fmt = picked or self._shares.get(col, {}).get(kind, (0.0, None))[1]
                out[col] = (kind, fmt)
        return out

    def set_kind(self, column: str, kind: ColumnKind) -> None:
        """Change a column's type (as the combo box would)."""
        r = list(self._kinds).index(column)
        combo: QComboBox = self.types.cellWidget(r, 1)  # type: ignore[assignment]
        combo.setCurrentIndex(KINDS.index(kind))

    # --- preview -------------------------------------------------------------------------------------
    def refresh_preview(self) -> None:
        """Read the start of the file with the current options and show it (or the engine's message)."""
        self._timer.stop()
        try:
            table = preview_table(self.path, self.options(), n_rows=PREVIEW_ROWS)
        except KanonError as exc:
            log_error(exc, "import preview")
            self._show_error(error_text(exc))
            return
        except Exception as exc:  # noqa: BLE001 - a preview failure must be shown, not crash the dialog
            log_error(exc, "import preview")
            self._show_error(_("The file could not be previewed: {reason}", reason=exc))
            return
        self.preview = table
        self.error = ""
        self.message.hide()
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)
        self.model.set_frame(table.frame, {c: t.kind for c, t in table.column_types.items()})
        fit_headers(self.grid)
        o = table.options
        if self.kind == "text":
            from kanon_engine.data.sniff import describe_delimiter

            self.detected.setText(
                ngettext(
                    "Read as: delimiter {delimiter}, encoding {encoding}, {n} column.",
                    "Read as: delimiter {delimiter}, encoding {encoding}, {n} columns.",
                    len(table.columns),
                    delimiter=describe_delimiter(o.delimiter or ","),
                    encoding=describe_encoding(o.encoding),
                )
            )
        else:
            self.detected.setText(ngettext("{n} column.", "{n} columns.", len(table.columns)))
        self._fill_types(table)

    def _show_error(self, text: str) -> None:
        self.error = text
        self.preview = None
        self.message.setText(text)
        self.message.show()
        self.model.set_frame(None)
        self.types.setRowCount(0)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)

    def _fill_types(self, table: Table) -> None:
        self._shares = {c: type_shares(table.frame[c]) for c in table.columns}
        previous = dict(self._kinds)
        self._kinds = {}
        self.types.setRowCount(len(table.columns))
        for r, col in enumerate(table.columns):
            detected = table.column_types[col].kind
            kind = previous.get(col, detected)
            self._kinds[col] = kind
            self.types.setItem(r, 0, QTableWidgetItem(col))
            combo = QComboBox()
            for k in KINDS:
                share = self._shares[col][k][0]
                label = _("{kind} (detected)", kind=_(KIND_LABELS[k])) if k == detected else _(KIND_LABELS[k])
                combo.addItem(label, k.value)
                combo.setItemData(
                    combo.count() - 1,
                    _("{share} of the preview's values fit", share=formats.percent(share, 0)),
                    Qt.ItemDataRole.ToolTipRole,
                )
            combo.setCurrentIndex(KINDS.index(kind))
            combo.currentIndexChanged.connect(lambda i, c=col, row=r: self._kind_picked(c, row, i))
            self.types.setCellWidget(r, 1, combo)
            self.types.setItem(r, 2, QTableWidgetItem(""))
            examples = ", ".join(str(v) for v in pd.unique(table.frame[col].dropna())[:4])
            self.types.setItem(r, 3, QTableWidgetItem(examples))
            self._show_share(col, r)
        self._check_dates()
        self.types.resizeColumnToContents(0)  # column names whole
        self.types.setColumnWidth(1, 220)  # "text / category (detected)" whole
        self.types.resizeColumnToContents(2)

    def _kind_picked(self, column: str, row: int, index: int) -> None:
        self._kinds[column] = KINDS[index]
        self._show_share(column, row)
        self._check_dates()

    def _show_share(self, column: str, row: int) -> None:
        kind = self._kinds[column]
        share, fmt = self._shares[column][kind]
        text = formats.percent(share, 0)
        if fmt:
            text += _(" (dates as {format})", format=describe_date_format(fmt))
        item = self.types.item(row, 2)
        item.setText(text)
        item.setForeground(Qt.GlobalColor.darkGreen if share >= 0.95 else Qt.GlobalColor.red)
        item.setToolTip(
            _(
                "Share of the preview's non-missing values that fit this type; values that do not fit are "
                "kept as text and hierarchies will treat them as categories."
            )
        )
