"""The export dialog: write the release (CSV / XLSX / Parquet), and optionally the value mapping, the
hierarchies and the de-identification report, with the same engine functions the CLI calls.

The dialog only collects choices into an :class:`ExportPlan`; :func:`perform_export` (no widgets) does
the work in a pool thread through :class:`kanon_gui.tasks.TaskRunner`, so a slow XLSX (openpyxl writes
about 7,000 rows a second) never freezes the window. Expected failures (read-only folder, full disk,
the input chosen as target) come back as the engine's plain sentence, shown in the dialog; anything
else goes to the crash dialog.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
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
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.export import (
    ExportOptions,
    export_hierarchies,
    export_release,
    export_value_mapping,
    hierarchy_targets,
    read_key_file,
)
from kanon_engine.outputs import Output, check_outputs
from kanon_engine.report import write_reports
from kanon_gui.errors import error_text, is_expected

FORMATS = (
    ("csv", "CSV (text)", ".csv"),
    ("xlsx", "Excel workbook (XLSX)", ".xlsx"),
    ("parquet", "Parquet (columnar)", ".parquet"),
)
DELIMITERS = ((",", "Comma ,"), (";", "Semicolon ;"), ("\t", "Tab"), ("|", "Pipe |"))


@dataclass(frozen=True)
class ExportPlan:
    """Everything an export writes; made on the GUI thread, used by the worker."""

    release_path: Path
    options: ExportOptions
    value_mapping_path: Path | None = None
    hierarchies_folder: Path | None = None
    hierarchy_prefix: str = "hierarchy_"
    report_html: Path | None = None
    report_pdf: Path | None = None
    project_path: Path | None = None
    inputs: tuple[Path, ...] = field(default=())

    def outputs(self, result: Any) -> list[Output]:
        """Every file the plan writes, for :func:`kanon_engine.outputs.check_outputs`."""
        kind = "release" if self.options.fmt is None else f"{self.options.fmt} release"  # named apart
        out = [Output(self.release_path, kind, "the release file")]
        if self.value_mapping_path is not None:
            out.append(Output(self.value_mapping_path, "value mapping", "the value mapping"))
        if self.hierarchies_folder is not None:
            targets = hierarchy_targets(result.config, self.hierarchies_folder, self.hierarchy_prefix)
            out.extend(Output(t, "hierarchy", f"the hierarchy file of '{q}'") for q, t in targets.items())
        if self.report_html is not None:
            out.append(Output(self.report_html, "HTML report", "the HTML report"))
        if self.report_pdf is not None:
            out.append(Output(self.report_pdf, "PDF report", "the PDF report"))
        return out


def perform_export(table: Table, project: Any | None, result: Any, plan: ExportPlan) -> dict[str, Any]:
    """Write every file of ``plan`` (release first; the report cites the release's SHA-256), after
    checking all of them (distinct, writable, none an input) so a bad one never leaves half an export."""
    check_outputs(plan.outputs(result), [table.source, plan.project_path, *plan.inputs])
    summary = export_release(table, result, plan.release_path, plan.options, project_path=plan.project_path)
    written = [summary.path]
    if plan.value_mapping_path is not None:
        written.append(
            export_value_mapping(
                table,
                result,
                plan.value_mapping_path,
                delimiter=plan.options.delimiter,
                bom=plan.options.bom,
                project_path=plan.project_path,
            )
        )
    if plan.hierarchies_folder is not None:
        written.extend(
            export_hierarchies(
                result.config,
                plan.hierarchies_folder,
                plan.hierarchy_prefix,
                inputs=(table.source, plan.project_path, plan.release_path, *plan.inputs),
            )
        )
    if plan.report_html is not None or plan.report_pdf is not None:
        write_reports(
            table,
            result,
            project,
            plan.report_html,
            plan.report_pdf,
            plan.release_path,
            release=summary.to_dict(),
            project_path=plan.project_path,
        )
        written.extend(p for p in (plan.report_html, plan.report_pdf) if p is not None)
    return {"release": summary.to_dict(), "written": [str(p) for p in written]}


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
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export the release")
        self.setObjectName("export_dialog")
        self.table, self.project, self.run_result = table, project, result
        self.project_path = Path(project_path) if project_path else None
        self.outcome: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self._own_runner = runner is None
        if runner is None:
            from kanon_gui.tasks import TaskRunner

            runner = TaskRunner(self, max_threads=1)
        self.runner = runner
        form = self._release_form(result.config)
        extra = self._extra_files_box()
        self.status = QLabel("Identifier columns are never exported.")
        self.status.setObjectName("export_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.export_button = self.buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.start_export)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(extra)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self._format_changed()

    def _release_form(self, cfg: Any) -> QFormLayout:
        """Where and how the release is written: file, format, delimiter, suppressed records, row order,
        formulas, pseudonyms."""
        self.path_edit = QLineEdit(str(self._default_path()))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)
        self.format_box = QComboBox()
        for key, label, _ in FORMATS:
            self.format_box.addItem(label, key)
        self.format_box.currentIndexChanged.connect(self._format_changed)
        self.delimiter_box = QComboBox()
        for value, label in DELIMITERS:
            self.delimiter_box.addItem(label, value)
        self.bom_check = QCheckBox("Byte-order mark (lets Excel on Windows read UTF-8)")
        self.suppressed_box = QComboBox()
        self.suppressed_box.addItem("Keep them, quasi-identifiers shown as *", "mask")
        self.suppressed_box.addItem("Leave them out of the file", "drop")
        self.suppressed_box.setCurrentIndex(1 if cfg.drop_suppressed else 0)
        self.shuffle_check = QCheckBox("Shuffle the rows (input order can give people away)")
        self.shuffle_check.setChecked(cfg.shuffle_seed is not None)
        self.formula_check = QCheckBox("Neutralize cells a spreadsheet would run as formulas (=, +, -, @)")
        self.formula_check.setChecked(True)
        self.pseudo_check = QCheckBox(
            "Replace identifiers by keyed pseudonyms (HMAC-SHA256) instead of removing them"
        )
        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText("key file (at least 16 bytes; keep it secret)")
        self.key_browse = QPushButton("Key file…")
        self.key_browse.clicked.connect(self._browse_key)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.key_browse)
        has_ids = bool(cfg.identifiers)
        self.pseudo_check.setEnabled(has_ids)
        if not has_ids:
            self.pseudo_check.setToolTip("No column is marked as identifier.")
        self.pseudo_check.toggled.connect(self._sync)

        form = QFormLayout()
        form.addRow("Release file", path_row)
        form.addRow("Format", self.format_box)
        form.addRow("Delimiter", self.delimiter_box)
        form.addRow("", self.bom_check)
        form.addRow("Suppressed records", self.suppressed_box)
        form.addRow("", self.shuffle_check)
        form.addRow("", self.formula_check)
        form.addRow("", self.pseudo_check)
        form.addRow("Pseudonym key", key_row)
        return form

    def _extra_files_box(self) -> QGroupBox:
        """The files written next to the release: value mapping, hierarchies, HTML and PDF reports."""
        self.mapping_check = QCheckBox("Value mapping (original → released value per quasi-identifier, CSV)")
        self.hierarchies_check = QCheckBox("Hierarchies (ARX CSV, one file per quasi-identifier)")
        self.html_check = QCheckBox("De-identification report (HTML)")
        self.html_check.setChecked(True)
        self.pdf_check = QCheckBox("De-identification report (PDF)")
        extra = QGroupBox("Also write (next to the release)")
        el = QVBoxLayout(extra)
        for w in (self.mapping_check, self.hierarchies_check, self.html_check, self.pdf_check):
            el.addWidget(w)
        return extra

    # --- choices -----------------------------------------------------------------------------------------
    def _default_path(self) -> Path:
        """Beside the input when that folder is writable (not the read-only bundled sample), else home."""
        src = self.table.source
        folder = src.parent if src else (self.project_path.parent if self.project_path else Path.home())
        if not os.access(folder, os.W_OK) or _inside_app(folder):
            folder = Path.home()
        stem = src.stem if src else "table"
        return folder / f"{stem}_release.csv"

    def _browse(self) -> None:
        filters = ";;".join(f"{label} (*{ext})" for _, label, ext in FORMATS)
        path, _ = QFileDialog.getSaveFileName(self, "Export the release", self.path_edit.text(), filters)
        if path:
            self.path_edit.setText(path)
            self._sync_format_from_path()

    def _browse_key(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Pseudonymization key file", "")
        if path:
            self.key_edit.setText(path)

    def _sync_format_from_path(self) -> None:
        suffix = Path(self.path_edit.text()).suffix.lower()
        for i, (_, _, ext) in enumerate(FORMATS):
            if suffix == ext:
                self.format_box.setCurrentIndex(i)

    def _format_changed(self, *_: object) -> None:
        fmt = self.format_box.currentData()
        ext = next(e for k, _, e in FORMATS if k == fmt)
        path = Path(self.path_edit.text())
        if path.suffix.lower() != ext and path.name:
            self.path_edit.setText(str(path.with_suffix(ext)))
        self._sync()

    def _sync(self, *_: object) -> None:
        fmt = self.format_box.currentData()
        text = fmt == "csv"
        self.delimiter_box.setEnabled(text)
        self.bom_check.setEnabled(text)
        self.formula_check.setEnabled(fmt in ("csv", "xlsx"))
        self.key_edit.setEnabled(self.pseudo_check.isChecked())
        self.key_browse.setEnabled(self.pseudo_check.isChecked())

    def plan(self) -> ExportPlan:
        """The plan of the current choices; a ConfigError names what is missing."""
        text = self.path_edit.text().strip()
        if not text:
            raise ConfigError("Choose a file for the release.", where="release file")
        path = Path(text).expanduser()
        key = None
        if self.pseudo_check.isChecked():
            if not self.key_edit.text().strip():
                raise ConfigError(
                    "Choose the key file for the pseudonyms, or untick pseudonymization.",
                    where="pseudonym key",
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
        )
        stem = path.with_suffix("")
        files = tuple(Path(f) for f in (getattr(self.project, "hierarchy_files", {}) or {}).values())
        if self.project_path is not None:
            files = tuple(f if f.is_absolute() else self.project_path.parent / f for f in files)
        return ExportPlan(
            release_path=path,
            options=options,
            value_mapping_path=Path(f"{stem}_value_mapping.csv") if self.mapping_check.isChecked() else None,
            hierarchies_folder=path.parent if self.hierarchies_check.isChecked() else None,
            hierarchy_prefix=f"{stem.name}_hierarchy_",
            report_html=Path(f"{stem}_report.html") if self.html_check.isChecked() else None,
            report_pdf=Path(f"{stem}_report.pdf") if self.pdf_check.isChecked() else None,
            project_path=self.project_path,
            inputs=files,
        )

    # --- running -----------------------------------------------------------------------------------------
    def start_export(self) -> None:
        """Check the choices and start the export in the background (the dialog closes when done)."""
        try:
            plan = self.plan()
        except Exception as exc:  # noqa: BLE001 - shown to the user, or sent to the crash dialog
            self._failed(exc)
            return
        table, project, result = self.table, self.project, self.run_result
        self.export_button.setEnabled(False)
        self.status.setText("Exporting…")
        self.runner.submit(
            lambda progress: perform_export(table, project, result, plan),
            channel="export",
            label="export",
            on_done=self._done,
            on_error=self._failed,
        )

    def is_busy(self) -> bool:
        return bool(self.runner.is_busy("export"))

    def _done(self, outcome: dict[str, Any]) -> None:
        self.outcome = outcome
        rel = outcome["release"]
        more = len(outcome["written"]) - 1
        self.status.setText(
            f"Wrote {rel['file']} ({rel['rows']:,} rows, SHA-256 {rel['sha256'][:16]}…)"
            + (f" and {more} more file(s)." if more else ".")
        )
        self.export_button.setEnabled(True)
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self.error = exc
        self.export_button.setEnabled(True)
        if is_expected(exc):
            self.status.setText(error_text(exc))
            return
        self.status.setText("The export failed unexpectedly; see the error report.")
        sys.excepthook(type(exc), exc, exc.__traceback__)

    def done(self, r: int) -> None:  # noqa: D401 - Qt override
        """Closing waits for a running export (files are written atomically; this takes seconds at most)."""
        if self._own_runner:
            self.runner.wait()
        super().done(r)


def _inside_app(folder: Path) -> bool:
    """True for the app's own resources folder (the bundled sample): never write releases there."""
    from kanon_gui.resources import resources_dir

    try:
        folder.resolve().relative_to(resources_dir().resolve())
    except ValueError:
        return False
    return True
