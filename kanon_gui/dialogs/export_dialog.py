"""The export dialog: write the release (CSV / XLSX / Parquet), and optionally the value mapping, the
hierarchies and the de-identification report, with the same engine functions the CLI calls.

The dialog only collects choices into a :class:`kanon_engine.session.ExportPlan`;
:func:`kanon_engine.session.export` (the function the command line calls) does the work in a pool thread
through :class:`kanon_gui.tasks.TaskRunner`, so a slow XLSX (openpyxl writes about 7,000 rows a second)
never freezes the window. Expected failures (read-only folder, full disk,
the input chosen as target) come back as the engine's plain sentence, shown in the dialog; anything
else goes to the crash dialog.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QLocale, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from kanon_engine import session
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import (
    N_,
    _,
    available_languages,
    current_language,
    formats,
    language_name,
    ngettext,
    text_of,
)
from kanon_engine.project.project_file import ReportDetails
from kanon_engine.release.export import ExportOptions, read_key_file
from kanon_engine.release.outputs import check_outputs
from kanon_engine.release.spreadsheet import SpreadsheetChange, spreadsheet_changes
from kanon_engine.report.describe import models_short
from kanon_engine.report.html import SIGN_OFF
from kanon_engine.session import ExportOutcome, ExportPlan
from kanon_engine.session.engines import engine_title
from kanon_gui import appdata
from kanon_gui.errors import error_text, is_expected
from kanon_gui.views.parts import labelled_row

FORMATS = (
    ("csv", N_("CSV (text)"), ".csv"),
    ("xlsx", N_("Excel workbook (XLSX)"), ".xlsx"),
    ("parquet", N_("Parquet (columnar)"), ".parquet"),
)
DELIMITERS = ((",", N_("Comma ,")), (";", N_("Semicolon ;")), ("\t", N_("Tab")), ("|", N_("Pipe |")))

#: Every sentence of the dialog, whole, with named placeholders (one place, ready for translation).
TEXT = {
    "title": N_("Export the release"),
    "heading": N_("Export <b>{run}</b>: {records} records in {groups} groups; {models}."),
    "stale": (
        N_(
            "This run is out of date: the settings changed after it. The files will describe the release "
            "as it was made, with the old settings; run again to export the new ones."
        )
    ),
    "shuffle": N_("Shuffle the rows"),
    "shuffle_tip": (
        N_(
            "A release in the input's order can give people away: if the input was sorted by admission "
            "date or by name, row 17 of the release is row 17 of the input. Shuffling breaks that link."
        )
    ),
    "replace_title": N_("Replace the earlier export?"),
    "replace": (
        N_(
            "These files already exist in {folder} and would be replaced:\n\n{names}\n\nThe files of an "
            "export belong together (the report cites the release's SHA-256), so the whole set is "
            "replaced."
        )
    ),
    "leftover": (
        N_(
            "\n\nThese files of the earlier export describe another release and would be removed, so that "
            "no report lies beside a release it does not describe:\n\n{names}"
        )
    ),
    "done_title": N_("Export finished"),
    "done": N_("{run} was exported to {folder}:\n\n{names}"),
    "show_folder": N_("Show in folder"),
    "details": N_("Report details (printed in the sign-off of the report)"),
    "details_tip": N_(
        "Kept in the project file. A field left empty is printed as a blank line to be filled in by hand."
    ),
    "excel": N_(
        "Excel changes some values of this release when it opens a CSV: {changes}. An Excel workbook "
        "(XLSX) keeps every value as text, exactly as released."
    ),
    "excel_more": N_("{changes}, and {n} more columns"),
    "use_xlsx": N_("Write an Excel workbook instead"),
    "purpose_hint": N_("for example: study of length of stay by ward, 2022-2024"),
    "recipient_hint": N_("for example: Dr. Ana Ruiz, Institute of Health Services Research"),
    "approved_hint": N_("for example: M. Keller, data protection officer"),
}


def csv_defaults(decimal_point: str) -> tuple[str, bool]:
    """Delimiter and byte-order mark Excel expects where numbers are written with ``decimal_point``:
    where the decimal separator is a comma (Germany, France, Spain, ...), Excel splits CSV at
    semicolons and needs a BOM to read UTF-8."""
    return (";", True) if decimal_point == "," else (",", False)


def run_file_stem(data_stem: str, run_label: str) -> str:
    """``krankenhaus_run3`` for run "#3 ..." of krankenhaus.csv: the files name the run they come from."""
    number = run_label.split()[0].lstrip("#") if run_label.startswith("#") else ""
    return f"{data_stem}_run{number}" if number.isdigit() else f"{data_stem}_release"


class ExportDialog(QDialog):
    """Export the release of ``result`` (computed on ``table``) and its companions."""

    def __init__(
        self,
        parent: QWidget | None,
        table: Table,
        project: Any | None,
        result: Any,
        project_path: str | Path | None = None,
        runner: Any | None = None,
        *,
        run_label: str = "",
        stale: bool = False,
        on_details: Callable[[ReportDetails], None] | None = None,
        population_size: int | None = None,
    ) -> None:
        super().__init__(parent)
        self.on_details = on_details
        self.population_size = population_size  # typed in the Risk tab: the report says so
        self.setWindowTitle(text_of(TEXT, "title"))
        self.run_label = run_label or _("the current run")
        self.stale = stale
        self.setObjectName("export_dialog")
        self.table, self.project, self.run_result = table, project, result
        self.project_path = Path(project_path) if project_path else None
        self.outcome: ExportOutcome | None = None
        self.error: BaseException | None = None
        self._own_runner = runner is None
        if runner is None:
            from kanon_gui.tasks import TaskRunner

            runner = TaskRunner(self, max_threads=1)
        self.runner = runner
        form = self._release_form(result.config)
        if getattr(result, "differential_privacy", None) is not None:  # never written: see export.py
            self.suppressed_box.setCurrentIndex(1)
            self.suppressed_box.setEnabled(False)
            self.suppressed_box.setToolTip(
                _(
                    "A differentially private release holds only its random sample: the records left out "
                    "are never written."
                )
            )
        excel = self._excel_box(result)
        extra = self._extra_files_box()
        details = self._details_box(getattr(project, "report", None) or ReportDetails())
        self.status = QLabel(_("Identifier columns are never exported."))
        self.status.setObjectName("export_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.export_button = self.buttons.addButton(_("Export"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.start_export)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for w in self._heading(result):
            layout.addWidget(w)
        layout.addLayout(form)
        layout.addWidget(excel)
        layout.addWidget(extra)
        layout.addWidget(details)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self._restore_settings()
        self._streamed_limits(result)
        self._format_changed()

    def _streamed_limits(self, result: Any) -> None:
        """A run whose rows the engine streamed (a file larger than memory): the release is streamed from
        the file through the one writer; the value mapping and the HTML/PDF reports are made from rows
        held in memory, so they are not offered (the command line refuses them the same way)."""
        if getattr(result, "in_memory", True):
            return
        why = _(
            "Made from the records in memory; this run was made by {engine}, which reads the file "
            "without loading it.",
            engine=engine_title(result.engine),
        )
        for box in (self.mapping_check, self.html_check, self.pdf_check):
            box.setChecked(False)
            box.setEnabled(False)
            box.setToolTip(why)
        self.language_box.setEnabled(False)
        self.streamed_label = QLabel(
            _(
                "The release is streamed from {file} by {engine} and written row by row; the value "
                "mapping and the reports need the records in memory.",
                file=escape(self.table.name()),
                engine=engine_title(result.engine),
            )
        )
        self.streamed_label.setObjectName("export_streamed")
        self.streamed_label.setWordWrap(True)
        self.streamed_label.setStyleSheet("background: #ebf4ff; border: 1px solid #90cdf4; padding: 6px;")
        self.layout().insertWidget(2, self.streamed_label)

    def _heading(self, result: Any) -> tuple[QLabel, QLabel]:
        """Which run is exported (its name, size and privacy models), and whether it is out of date."""
        self.heading = QLabel(
            text_of(
                TEXT,
                "heading",
                run=escape(self.run_label),
                records=result.released_records,
                groups=int(result.n_classes),
                models=escape(models_short(result.config.models)),
            )
        )
        self.heading.setObjectName("export_heading")
        self.heading.setWordWrap(True)
        self.stale_label = QLabel(text_of(TEXT, "stale"))
        self.stale_label.setObjectName("export_stale")
        self.stale_label.setWordWrap(True)
        self.stale_label.setStyleSheet("background: #fff6e0; border: 1px solid #b7791f; padding: 6px;")
        self.stale_label.setVisible(self.stale)
        return self.heading, self.stale_label

    def _release_form(self, cfg: Any) -> QFormLayout:
        """Where and how the release is written: file, format, delimiter, suppressed records, row order,
        formulas, pseudonyms."""
        self.path_edit = QLineEdit(str(self._default_path()))
        browse = QPushButton(_("Browse…"))
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)
        self.format_box = QComboBox()
        for key, label, _unused in FORMATS:
            self.format_box.addItem(_(label), key)
        self.format_box.currentIndexChanged.connect(self._format_changed)
        self.delimiter_box = QComboBox()
        for value, label in DELIMITERS:
            self.delimiter_box.addItem(_(label), value)
        self.bom_check = QCheckBox(_("Byte-order mark (lets Excel on Windows read UTF-8)"))
        self.suppressed_box = QComboBox()
        self.suppressed_box.addItem(_("Keep them, quasi-identifiers shown as the suppression mark"), "mask")
        self.suppressed_box.addItem(_("Leave them out of the file"), "drop")
        self.suppressed_box.setCurrentIndex(1 if cfg.drop_suppressed else 0)
        self.mark_edit = QLineEdit(cfg.suppression_mark)
        self.mark_edit.setObjectName("suppression_mark")
        self.mark_edit.setMaxLength(40)
        self.mark_edit.setToolTip(
            _(
                "What a suppressed value shows in the file; choose another than * when the data holds * "
                "as a value."
            )
        )
        self.shuffle_check = QCheckBox(text_of(TEXT, "shuffle"))
        self.shuffle_check.setToolTip(text_of(TEXT, "shuffle_tip"))
        self.shuffle_check.setChecked(True)
        self.formula_check = QCheckBox(_("Neutralize cells a spreadsheet would run as formulas (=, +, -, @)"))
        self.formula_check.setChecked(True)
        self.pseudo_check = QCheckBox(
            _("Replace identifiers by keyed pseudonyms (HMAC-SHA256) instead of removing them")
        )
        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText(_("key file (at least 16 bytes; keep it secret)"))
        self.key_browse = QPushButton(_("Key file…"))
        self.key_browse.clicked.connect(self._browse_key)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.key_browse)
        has_ids = bool(cfg.identifiers)
        self.pseudo_check.setEnabled(has_ids)
        if not has_ids:
            self.pseudo_check.setToolTip(_("No column is marked as identifier."))
        self.pseudo_check.toggled.connect(self._sync)

        form = QFormLayout()
        form.addRow(_("Release file"), path_row)
        form.addRow(_("Format"), self.format_box)
        form.addRow(_("Delimiter"), self.delimiter_box)
        form.addRow("", self.bom_check)
        form.addRow(_("Suppressed records"), self.suppressed_box)
        form.addRow(_("Suppression mark"), self.mark_edit)
        form.addRow("", self.shuffle_check)
        form.addRow("", self.formula_check)
        form.addRow("", self.pseudo_check)
        form.addRow(_("Pseudonym key"), key_row)
        return form

    def _excel_box(self, result: Any) -> QWidget:
        """Said while CSV is the format: which values Excel would change on opening the CSV (leading
        zeros, month codes, decimal commas), with a button that switches to XLSX, whose cells are text."""
        in_memory = getattr(result, "in_memory", True) and getattr(result, "release", None) is not None
        self.spreadsheet: list[SpreadsheetChange] = spreadsheet_changes(result.release) if in_memory else []
        box = QWidget()
        box.setObjectName("export_excel")
        box.setStyleSheet("#export_excel { background: #fff6e0; border: 1px solid #b7791f; }")
        row = QHBoxLayout(box)
        row.setContentsMargins(6, 6, 6, 6)
        shown = [c.sentence() for c in self.spreadsheet[:3]]
        changes = formats.join_clauses(shown)
        if len(self.spreadsheet) > len(shown):
            changes = text_of(TEXT, "excel_more", changes=changes, n=len(self.spreadsheet) - len(shown))
        self.excel_label = QLabel(text_of(TEXT, "excel", changes=changes))
        self.excel_label.setWordWrap(True)
        self.excel_button = QPushButton(text_of(TEXT, "use_xlsx"))
        self.excel_button.clicked.connect(
            lambda: self.format_box.setCurrentIndex(self.format_box.findData("xlsx"))
        )
        row.addWidget(self.excel_label, 1)
        row.addWidget(self.excel_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.excel_box = box
        return box

    def _extra_files_box(self) -> QGroupBox:
        """The files written next to the release: value mapping, hierarchies, HTML and PDF reports."""
        self.mapping_check = QCheckBox(
            _("Value mapping (original → released value per quasi-identifier, CSV)")
        )
        self.hierarchies_check = QCheckBox(_("Hierarchies (ARX CSV, one file per quasi-identifier)"))
        self.html_check = QCheckBox(_("De-identification report (HTML)"))
        self.html_check.setChecked(True)
        self.pdf_check = QCheckBox(_("De-identification report (PDF)"))
        self.language_box = QComboBox()
        self.language_box.setObjectName("report_language")
        for code in available_languages():
            self.language_box.addItem(language_name(code), code)
        interface = current_language()
        self.language_box.setCurrentIndex(max(0, self.language_box.findData(interface)))
        self.language_box.setToolTip(
            _("The language of the HTML and PDF report: its words, numbers and dates.")
        )
        language_row = labelled_row(_("Report language"), self.language_box)
        extra = QGroupBox(_("Also write (next to the release)"))
        el = QVBoxLayout(extra)
        for w in (self.mapping_check, self.hierarchies_check, self.html_check, self.pdf_check):
            el.addWidget(w)
        el.addLayout(language_row)
        return extra

    def _details_box(self, details: ReportDetails) -> QGroupBox:
        """The report's sign-off fields, kept in the project file (blank ones are filled in by hand)."""
        self.purpose_edit = QLineEdit(details.purpose)
        self.recipient_edit = QLineEdit(details.recipient)
        self.approved_edit = QLineEdit(details.approved_by)
        for edit, key in (
            (self.purpose_edit, "purpose_hint"),
            (self.recipient_edit, "recipient_hint"),
            (self.approved_edit, "approved_hint"),
        ):
            edit.setPlaceholderText(text_of(TEXT, key))
        box = QGroupBox(text_of(TEXT, "details"))
        box.setToolTip(text_of(TEXT, "details_tip"))
        form = QFormLayout(box)
        form.addRow(text_of(SIGN_OFF, "purpose"), self.purpose_edit)
        form.addRow(text_of(SIGN_OFF, "recipient"), self.recipient_edit)
        form.addRow(text_of(SIGN_OFF, "approved"), self.approved_edit)
        self.details_box = box
        for check in (self.html_check, self.pdf_check):
            check.toggled.connect(self._sync)
        return box

    def details(self) -> ReportDetails:
        """The sign-off fields as typed (spaces around them removed)."""
        return ReportDetails(
            self.purpose_edit.text().strip(),
            self.recipient_edit.text().strip(),
            self.approved_edit.text().strip(),
        )

    # --- choices -----------------------------------------------------------------------------------------
    def _default_path(self) -> Path:
        """In the folder of the last export (remembered), else the user's documents, never the app's
        own folder; named after the data and the run (``krankenhaus_run3.csv``)."""
        remembered = appdata.settings().value("export/folder", "")
        folder = Path(str(remembered)) if remembered else appdata.documents_folder()
        if not folder.is_dir() or not os.access(folder, os.W_OK) or appdata.inside_app(folder):
            folder = appdata.documents_folder()
        src = self.table.source
        return folder / f"{run_file_stem(src.stem if src else 'table', self.run_label)}.csv"

    def _restore_settings(self) -> None:
        """The choices of the last export; the CSV delimiter and BOM follow the locale the first time."""
        settings = appdata.settings()
        delimiter, bom = csv_defaults(QLocale().decimalPoint())
        # XLSX first when Excel would change values of a CSV of this release, unless a format was chosen
        fmt = str(settings.value("export/format", "xlsx" if self.spreadsheet else "csv"))
        self.format_box.setCurrentIndex(max(0, self.format_box.findData(fmt)))
        i = self.delimiter_box.findData(str(settings.value("export/delimiter", delimiter)))
        self.delimiter_box.setCurrentIndex(max(0, i))
        for key, box, default in (
            ("bom", self.bom_check, bom),
            ("shuffle", self.shuffle_check, True),
            ("mapping", self.mapping_check, False),
            ("hierarchies", self.hierarchies_check, False),
            ("html", self.html_check, True),
            ("pdf", self.pdf_check, True),
        ):
            box.setChecked(_as_bool(settings.value(f"export/{key}", default)))

    def _remember_settings(self, plan: ExportPlan) -> None:
        settings = appdata.settings()
        settings.setValue("export/folder", str(plan.release_path.parent))
        settings.setValue("export/format", self.format_box.currentData())
        settings.setValue("export/delimiter", self.delimiter_box.currentData())
        for key, box in (
            ("bom", self.bom_check),
            ("shuffle", self.shuffle_check),
            ("mapping", self.mapping_check),
            ("hierarchies", self.hierarchies_check),
            ("html", self.html_check),
            ("pdf", self.pdf_check),
        ):
            if box.isEnabled() or key in ("bom", "shuffle"):  # not what a streamed run could not offer
                settings.setValue(f"export/{key}", box.isChecked())
        settings.sync()

    def _browse(self) -> None:
        filters = ";;".join(f"{_(label)} (*{ext})" for _unused, label, ext in FORMATS)
        path, _unused = QFileDialog.getSaveFileName(
            self, _("Export the release"), self.path_edit.text(), filters
        )
        if path:
            self.path_edit.setText(path)
            self._sync_format_from_path()

    def _browse_key(self) -> None:
        path, _unused = QFileDialog.getOpenFileName(self, _("Pseudonymization key file"), "")
        if path:
            self.key_edit.setText(path)

    def _sync_format_from_path(self) -> None:
        suffix = Path(self.path_edit.text()).suffix.lower()
        for i, (_unused, _unused, ext) in enumerate(FORMATS):
            if suffix == ext:
                self.format_box.setCurrentIndex(i)

    def _format_changed(self, *_args: object) -> None:
        fmt = self.format_box.currentData()
        ext = next(e for k, _unused, e in FORMATS if k == fmt)
        path = Path(self.path_edit.text())
        if path.suffix.lower() != ext and path.name:
            self.path_edit.setText(str(path.with_suffix(ext)))
        self._sync()

    def _sync(self, *_args: object) -> None:
        fmt = self.format_box.currentData()
        text = fmt == "csv"
        self.delimiter_box.setEnabled(text)
        self.bom_check.setEnabled(text)
        self.formula_check.setEnabled(fmt in ("csv", "xlsx"))
        if hasattr(self, "excel_box"):
            self.excel_box.setVisible(text and bool(self.spreadsheet))
        self.key_edit.setEnabled(self.pseudo_check.isChecked())
        self.key_browse.setEnabled(self.pseudo_check.isChecked())
        if hasattr(self, "details_box"):
            self.details_box.setEnabled(self.html_check.isChecked() or self.pdf_check.isChecked())

    def plan(self) -> ExportPlan:
        """The plan of the current choices; a ConfigError names what is missing."""
        text = self.path_edit.text().strip()
        if not text:
            raise ConfigError(_("Choose a file for the release."), where=_("release file"))
        path = Path(text).expanduser()
        key = None
        if self.pseudo_check.isChecked():
            if not self.key_edit.text().strip():
                raise ConfigError(
                    _("Choose the key file for the pseudonyms, or untick pseudonymization."),
                    where=_("pseudonym key"),
                )
            key = read_key_file(self.key_edit.text().strip())
        options = ExportOptions(
            fmt=self.format_box.currentData(),
            delimiter=self.delimiter_box.currentData(),
            bom=self.bom_check.isChecked() and self.bom_check.isEnabled(),
            suppressed=self.suppressed_box.currentData(),
            shuffle=self.shuffle_check.isChecked(),
            shuffle_seed=self.run_result.config.shuffle_seed,
            neutralize_formulas=self.formula_check.isChecked(),
            pseudonymize_key=key,
            suppression_mark=self.mark_edit.text().strip() or None,
        )
        return ExportPlan.beside(
            path,
            options,
            self.project,
            self.project_path,
            value_mapping=self.mapping_check.isChecked(),
            hierarchies=self.hierarchies_check.isChecked(),
            report_html=self.html_check.isChecked(),
            report_pdf=self.pdf_check.isChecked(),
            run_label=self.run_label,
            stale=self.stale,
            report_language=self.language_box.currentData(),
            details=self.details(),
            population_size=self.population_size,
        )

    # --- running -----------------------------------------------------------------------------------------
    def start_export(self) -> None:
        """Check the choices and start the export in the background (the dialog closes when done)."""
        try:
            plan = self.plan()
            # every target checked first (not an input, distinct, writable): only then ask to replace
            check_outputs(plan.outputs(self.run_result), plan.protected(self.table))
        except Exception as exc:  # noqa: BLE001 - shown to the user, or sent to the crash dialog
            self._failed(exc)
            return
        existing, leftovers = plan.earlier_files(self.run_result)
        if (existing or leftovers) and not self.confirm_replace(plan, existing, leftovers):
            return
        plan = plan.removing(leftovers)
        self.plan_used = plan
        if self.on_details is not None and plan.details is not None:
            self.on_details(plan.details)  # the project keeps them (saved with it)
        table, project, result = self.table, self.project, self.run_result
        self.export_button.setEnabled(False)
        self.status.setText(_("Exporting…"))
        self.runner.submit(
            lambda progress: session.export(table, project, result, plan),
            channel="export",
            label="export",
            on_done=self._done,
            on_error=self._failed,
        )

    def confirm_replace(self, plan: ExportPlan, existing: list[Path], leftovers: list[Path]) -> bool:
        """Ask before an earlier export is replaced (and its leftover files removed)."""
        text = text_of(
            TEXT, "replace", folder=plan.release_path.parent, names="\n".join(p.name for p in existing) or "–"
        )
        if leftovers:
            text += text_of(TEXT, "leftover", names="\n".join(p.name for p in leftovers))
        answer = QMessageBox.question(
            self,
            text_of(TEXT, "replace_title"),
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes

    def is_busy(self) -> bool:
        return bool(self.runner.is_busy("export"))

    def _done(self, outcome: ExportOutcome) -> None:
        self.outcome = outcome
        rel = outcome.release
        assert rel is not None  # the dialog always writes a release
        more = len(outcome.written) - 1
        wrote = ngettext(
            "Wrote {file} ({n} row, SHA-256 {sha256}…)",
            "Wrote {file} ({n} rows, SHA-256 {sha256}…)",
            rel.rows,
            file=rel.path.name,
            sha256=rel.sha256[:16],
        )
        if more:
            wrote += ngettext(" and {n} more file.", " and {n} more files.", more)
        else:
            wrote += "."
        self.status.setText(wrote)
        self.export_button.setEnabled(True)
        plan = getattr(self, "plan_used", None)
        if plan is not None:
            self._remember_settings(plan)
        self.done_box = self._show_done(outcome)
        self.accept()

    def _show_done(self, outcome: ExportOutcome) -> QMessageBox:
        """Confirm with the files' names and a "Show in folder" button (not modal: the window stays
        usable)."""
        files = list(outcome.written)
        folder = files[0].parent
        box = QMessageBox(
            QMessageBox.Icon.Information,
            text_of(TEXT, "done_title"),
            text_of(TEXT, "done", run=self.run_label, folder=folder, names="\n".join(p.name for p in files)),
            QMessageBox.StandardButton.Close,
            self.parentWidget(),
        )
        show = box.addButton(text_of(TEXT, "show_folder"), QMessageBox.ButtonRole.ActionRole)
        show.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))
        box.setObjectName("export_done")
        box.open()
        return box

    def _failed(self, exc: BaseException) -> None:
        self.error = exc
        self.export_button.setEnabled(True)
        if is_expected(exc):
            self.status.setText(error_text(exc))
            return
        self.status.setText(_("The export failed unexpectedly; see the error report."))
        sys.excepthook(type(exc), exc, exc.__traceback__)

    def done(self, r: int) -> None:  # noqa: D401 - Qt override
        """Closing waits for a running export (files are written atomically; this takes seconds at most)."""
        if self._own_runner:
            self.runner.wait()
        super().done(r)


def _as_bool(value: Any) -> bool:
    """A setting read back from the INI file ("true"/"false" strings) as a bool."""
    return value if isinstance(value, bool) else str(value).lower() in ("true", "1", "yes")
