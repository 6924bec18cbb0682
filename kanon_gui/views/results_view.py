"""Results of the current run: its metrics, the anonymized grid beside the original (generalized cells
highlighted, suppressed records and single suppressed values marked), and the equivalence classes
(select one to see its records)."""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.algorithms.local_bound import certificate_sentence
from kanon_engine.i18n import N_, _, formats, ngettext
from kanon_engine.metrics.labels import metric_label
from kanon_engine.report.facts import kept_star_cells, quality_metrics, result_facts
from kanon_engine.result import AnonymizationResult, model_description, model_label
from kanon_engine.session.engines import engine_title, result_engine_sentence
from kanon_engine.sources.backends.settings import ENGINE_TITLES
from kanon_gui.glossary import CHANGED_BG, HIGHLIGHT_BG, SUPPRESSED_BG, term
from kanon_gui.models.result_models import ComparisonModel, EquivalenceClassModel, release_rows
from kanon_gui.state import Run
from kanon_gui.views.data_view import configure_grid, fit_headers

#: The caption of the records of one group (a whole phrase with named placeholders).
TEXT_GROUP = N_("Group {group}: {size} records")


def _fmt(value: float | None, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "\u2013"
    if abs(value) >= 1e5:
        return formats.count(value)
    return formats.decimal(float(f"{value:.{digits}g}"), 12)


def transformation_text(result: AnonymizationResult, facts: dict | None = None) -> str:
    """How the release was made, in words: the model (the survey's name), and for a full-domain result
    its levels ("age: level 2 of 4, e.g. '30-39'"); a cell-level one says what its values show (the
    release's facts, :mod:`kanon_engine.report.facts`)."""
    facts = facts if facts is not None else result_facts(result)
    rec = result.recoding
    if rec is not None and not result.transformation:
        return _(
            "<b>{model}</b>: {description}. {what}",
            model=escape(result.model),
            description=escape(model_description(result.model)),
            what=cell_text(facts, result.certificate),
        )
    if not result.transformation:
        return _(
            "Records were partitioned (Mondrian, multidimensional recoding): each group has its own ranges."
        )
    text = _levels_text(result)
    if rec is not None:
        text += _(
            ". <b>{model}</b>, then: {what}",
            model=escape(model_label(result.model)),
            what=cell_text(facts, result.certificate),
        )
    return text


def run_title(run: Run) -> str:
    """The run's name and its privacy models, one clause each ("#2 Optimal, k = 5: 5-anonymity: ...;
    distinct 3-diversity: ..."), punctuated the language's way (no "others., " between two sentences)."""
    clauses = [m.describe().rstrip(". ") for m in run.result.config.models]
    models = formats.join_clauses(clauses) + "."
    return _("{run}: {models}", run=f"<b>{escape(run.label)}</b>", models=escape(models))


def cell_text(facts: dict, certificate: dict | None = None) -> str:
    """What a release that keeps every record shows: values shown as * per attribute (however they got
    there), the records showing one, the records generalized; from the release's facts. With local
    suppression's ``certificate``, how close its '*' are to the fewest possible."""
    rel = facts["release"]
    cells, records = kept_star_cells(facts)
    parts = []
    if cells:
        per = ", ".join(
            f"{escape(q)} {formats.count(n)}"
            for q, n in (rel.get("kept_star_cells_per_attribute") or {}).items()
            if n
        )
        parts.append(
            ngettext(
                "{cells} value in {records} records shown as * ({per})",
                "{cells} values in {records} records shown as * ({per})",
                cells,
                cells=cells,
                records=records,
                per=per,
            )
        )
    generalized = int(rel.get("records_generalized") or 0)
    if generalized:
        parts.append(
            ngettext(
                "{n} record with at least one generalized value",
                "{n} records with at least one generalized value",
                generalized,
                n=generalized,
            )
        )
    text = _(
        "{what}. {meaning}",
        what=formats.join_clauses(parts) or _("no value had to change"),
        meaning=escape(term("star")),
    )
    proof = certificate_sentence(certificate)  # local suppression: how close to the fewest '*'
    return f"{text} <b>{escape(proof)}</b>" if proof else text


def _levels_text(result: AnonymizationResult) -> str:
    parts = []
    for q, lv in result.transformation.items():
        h = result.config.hierarchies.get(q)
        if h is None:
            parts.append(_("{column}: level {level}", column=q, level=lv))
            continue
        if lv == 0:
            parts.append(_("<b>{column}</b>: original values", column=escape(q)))
        elif lv == h.height:
            parts.append(_("<b>{column}</b>: fully generalized (*)", column=escape(q)))
        else:
            example = escape(str(h.labels(lv)[0]))
            parts.append(
                _(
                    "<b>{column}</b>: level {level} of {height} (e.g. '{example}')",
                    column=escape(q),
                    level=lv,
                    height=h.height,
                    example=example,
                )
            )
    return formats.join_clauses(parts)


_PER_ROW = 4  # figures per row at most (German and French names run a third longer)


def metrics_html(result: AnonymizationResult, facts: dict | None = None) -> str:
    """The run's headline figures as a small HTML table: the release's facts (records, suppressed, values
    shown as *, groups, smallest group), then its quality metrics, workload error, run time and engine."""
    facts = facts if facts is not None else result_facts(result)
    rel = facts["release"]
    records = int(rel["records"]) + int(rel["records_dropped"])
    suppressed = int(rel["records_suppressed"])
    cells = [
        (_("Records"), formats.count(records), ""),
        (
            _("Suppressed"),
            f"{formats.count(suppressed)} ({formats.percent(rel['shares']['records_suppressed'], 1)})",
            term("suppression"),
        ),
    ]
    if "star_cells" in rel:
        stars, _touched = kept_star_cells(facts)
        cells.append(
            (
                _("Values shown as *"),
                f"{formats.count(stars)} ({formats.percent(rel['shares']['star_cells'], 1)})",
                term("star"),
            )
        )
    cells += [
        (_("Groups"), formats.count(rel["classes"]), term("equivalence class")),
        (_("Smallest group"), formats.count(rel["min_class_size"]), term("k")),
    ]
    m = quality_metrics(result.metrics)
    for key in ("loss", "precision", "gcp", "discernibility", "cavg"):
        if key in m:
            label = metric_label(key)
            cells.append((label.name, label.show(m[key]), label.meaning))
    if result.workload is not None:
        cells.append(
            (
                _("Workload error"),
                formats.percent(result.workload.mean_error, 1),
                _("Mean relative error of the workload's queries answered from the release (Workload tab)."),
            )
        )
    cells.append((_("Run time"), f"{formats.decimal(result.runtime_seconds, 2, fixed=True)} s", ""))
    engine = _(ENGINE_TITLES[result.engine]) if result.engine in ENGINE_TITLES else result.engine
    reason = result.engine_reason or _("the table is loaded whole")
    cells.append((_("Engine"), engine.split(" (")[0], _("{engine}: {reason}.", engine=engine, reason=reason)))
    if result.transformation is not None and result.lattice is not None:
        # only a lattice search checks transformations; a partitioning or a restored run does not
        cells.append((_("Transformations checked"), formats.count(result.nodes_checked), term("lattice")))
    tds = [
        f"<td style='padding-right:18px' title='{escape(tip)}'><small>{escape(a)}</small><br>"
        f"<b>{escape(b)}</b></td>"
        for a, b, tip in cells
    ]
    # rows of at most four: metric names run a third longer in German and French than in English,
    # and one row of ten would make the window wider than a 1280-pixel screen
    per_row = -(-len(tds) // -(-len(tds) // _PER_ROW))  # as even as possible, at most _PER_ROW
    rows = "".join(f"<tr>{''.join(tds[i : i + per_row])}</tr>" for i in range(0, len(tds), per_row))
    return f"<table>{rows}</table>"


def _chip(color, text: str) -> QWidget:
    """A colour swatch with its meaning, for the legend."""
    box = QWidget()
    lay = QHBoxLayout(box)
    lay.setContentsMargins(0, 0, 8, 0)
    swatch = QLabel()
    swatch.setFixedSize(16, 14)
    swatch.setStyleSheet(f"background: {color.name()}; border: 1px solid #999;")
    lay.addWidget(swatch)
    label = QLabel(text)
    label.setWordWrap(True)  # wraps rather than widen the window when the words are long (German, French)
    lay.addWidget(label, 1)
    return box


#: Shown above every view of a run whose settings no longer match the project's (issue 12, item 10).
STALE_TEXT = N_(
    "Out of date: the roles, hierarchies or privacy settings changed after this run. What you see (and "
    "would export) was made with the old settings; press Run to make a release with the new ones."
)


def stale_banner() -> QLabel:
    """The out-of-date notice (hidden until a run is out of date)."""
    label = QLabel(_(STALE_TEXT))
    label.setObjectName("StaleBanner")
    label.setWordWrap(True)
    label.setStyleSheet("background: #fff6e0; border: 1px solid #b7791f; padding: 6px; color: #744210;")
    label.hide()
    return label


class ResultsPanel(QWidget):
    """Shows one run (:meth:`show_run`); ``class_selected(class_id)`` when the user picks a class."""

    class_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run: Run | None = None
        self._rel: np.ndarray | None = None
        self._syncing = False
        layout = QVBoxLayout(self)
        self.title = QLabel(_("No run yet: choose an algorithm in the Anonymize tab and press Run (Ctrl+R)."))
        self.title.setObjectName("ResultTitle")
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self.stale = stale_banner()
        layout.addWidget(self.stale)
        self.engine_line = QLabel()
        self.engine_line.setObjectName("ResultEngine")
        self.engine_line.setWordWrap(True)
        self.engine_line.setStyleSheet("color: #2c5282;")
        layout.addWidget(self.engine_line)
        self.metrics = QLabel()
        self.metrics.setObjectName("ResultMetrics")
        self.metrics.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.metrics)
        self.transformation = QLabel()
        self.transformation.setWordWrap(True)
        self.transformation.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.transformation)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555;")
        layout.addWidget(self.notes)

        self.legend = QWidget()
        legend = QHBoxLayout(self.legend)
        legend.setContentsMargins(0, 0, 0, 0)
        legend.addWidget(_chip(CHANGED_BG, _("changed by the anonymization")))
        legend.addWidget(_chip(SUPPRESSED_BG, _("suppressed record (✖) or value (*)")))
        legend.addWidget(_chip(HIGHLIGHT_BG, _("records of the selected group")))
        legend.addStretch(1)
        self.filter_caption = QLabel()
        legend.addWidget(self.filter_caption)
        self.show_all_button = QPushButton(_("Show all records"))
        self.show_all_button.clicked.connect(self.show_all)
        self.show_all_button.hide()
        legend.addWidget(self.show_all_button)
        layout.addWidget(self.legend)

        self.streamed_note = QLabel()
        self.streamed_note.setObjectName("StreamedNote")
        self.streamed_note.setWordWrap(True)
        self.streamed_note.setStyleSheet("background: #ebf4ff; border: 1px solid #90cdf4; padding: 8px;")
        self.streamed_note.hide()
        layout.addWidget(self.streamed_note)

        split = QSplitter(Qt.Orientation.Horizontal)
        grids = QSplitter(Qt.Orientation.Horizontal)
        self.grids = grids
        self.original_model = ComparisonModel("original", self)
        self.release_model = ComparisonModel("release", self)
        self.original_view = self._grid(self.original_model, "OriginalGrid")
        self.release_view = self._grid(self.release_model, "ReleaseGrid")
        grids.addWidget(self._titled(_("Original"), self.original_view))
        grids.addWidget(self._titled(_("Anonymized release"), self.release_view))
        split.addWidget(grids)

        split.addWidget(self._class_panel())
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([900, 300])
        layout.addWidget(split, 1)

        self.original_view.verticalScrollBar().valueChanged.connect(
            lambda v: self._sync(self.release_view, v)
        )
        self.release_view.verticalScrollBar().valueChanged.connect(
            lambda v: self._sync(self.original_view, v)
        )

    def _class_panel(self) -> QWidget:
        """The equivalence classes beside the grids: a sortable table; a click shows the class's records."""
        classes = QWidget()
        cl = QVBoxLayout(classes)
        cl.setContentsMargins(0, 0, 0, 0)
        head = QLabel(_("<b>Groups of records</b>"))
        head.setToolTip(term("equivalence class"))
        cl.addWidget(head)
        self.class_model = EquivalenceClassModel(self)
        self.class_view = QTableView()
        self.class_view.setObjectName("ClassTable")
        self.class_view.setModel(self.class_model)
        configure_grid(self.class_view)
        self.class_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.class_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.class_view.verticalHeader().setVisible(False)
        self.class_view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.class_view.setSortingEnabled(True)
        self.class_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.class_view.horizontalHeader().setDefaultSectionSize(90)
        self.class_view.selectionModel().selectionChanged.connect(self._class_clicked)
        cl.addWidget(self.class_view, 1)
        self.only_class = QCheckBox(_("Show only the records of the selected group"))
        self.only_class.setChecked(True)
        self.only_class.toggled.connect(lambda _: self._apply_class(self.selected_class()))
        cl.addWidget(self.only_class)
        return classes

    def _grid(self, model: ComparisonModel, name: str) -> QTableView:
        view = QTableView()
        view.setObjectName(name)
        view.setModel(model)
        configure_grid(view)
        return view

    @staticmethod
    def _titled(title: str, widget: QWidget) -> QWidget:
        box = QGroupBox(title)
        lay = QVBoxLayout(box)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(widget)
        return box

    def _sync(self, other: QTableView, value: int) -> None:
        if not self._syncing:
            self._syncing = True
            other.verticalScrollBar().setValue(value)
            self._syncing = False

    # --- content -------------------------------------------------------------------------------------
    def set_stale(self, stale: bool) -> None:
        """Mark the shown run as out of date (its settings are not the project's any more)."""
        self.stale.setVisible(stale and self.run is not None)

    def show_run(self, run: Run | None) -> None:
        """Show ``run`` (None: nothing)."""
        self.run = run
        self.stale.hide()
        if run is None:
            self.original_model.set_result(None, None, None)
            self.release_model.set_result(None, None, None)
            self.class_model.set_result(None, None)
            self.metrics.setText("")
            self.transformation.setText("")
            self.notes.setText("")
            self.engine_line.setText("")
            self.streamed_note.hide()
            self.grids.show()
            self.title.setText(
                _("No run yet: choose an algorithm in the Anonymize tab and press Run (Ctrl+R).")
            )
            return
        r, t = run.result, run.table
        self.engine_line.setText(result_engine_sentence(r))
        if not r.in_memory:
            self._show_streamed(run)
            return
        self.streamed_note.hide()
        self.grids.show()
        self.legend.show()
        self.only_class.show()
        self._rel = release_rows(t.frame, r)
        kinds = {c: t.kind(c) for c in t.columns}
        self.original_model.set_result(t.frame, r, self._rel, kinds)
        self.release_model.set_result(t.frame, r, self._rel, kinds)
        self.class_model.set_result(r, self._rel)
        self.title.setText(run_title(run))
        facts = result_facts(r, t)
        self.metrics.setText(metrics_html(r, facts))
        self.transformation.setText(transformation_text(r, facts))
        notes = list(r.notes)
        if self._rel is None:
            notes.append(
                _("The release rows are shuffled, so they are shown without the original beside them.")
            )
        self.notes.setText(" ".join(notes))
        self.notes.setVisible(bool(notes))
        self.original_view.setVisible(self._rel is not None)
        self.show_all()

    def _show_streamed(self, run: Run) -> None:
        """A run whose rows the engine streamed (a file larger than memory): its figures and its groups
        (from the counted points); the rows of its release are written by an export, not held here."""
        r = run.result
        self._rel = None
        self.original_model.set_result(None, None, None)
        self.release_model.set_result(None, None, None)
        self.class_model.set_result(r, None)
        self.title.setText(run_title(run))
        self.metrics.setText(metrics_html(r))
        self.transformation.setText(transformation_text(r))
        self.notes.setText(" ".join(r.notes))
        self.notes.setVisible(bool(r.notes))
        self.streamed_note.setText(
            _(
                "{engine} read the file without loading it, so its rows are not shown here: the {n} "
                "groups of the release are listed below, from the counts. Export the release "
                "(File > Export, Ctrl+E) to write its {rows} rows; the export streams them from the file.",
                engine=engine_title(r.engine),
                n=formats.count(result_facts(r)["release"]["classes"]),
                rows=formats.count(result_facts(r)["release"]["records"]),
            )
        )
        self.streamed_note.show()
        self.grids.hide()
        self.legend.hide()
        self.only_class.hide()
        fit_headers(self.class_view)
        self.filter_caption.setText("")
        self.show_all_button.hide()

    def selected_class(self) -> int:
        rows = self.class_view.selectionModel().selectedRows()
        return self.class_model.class_at(rows[0].row()) if rows else -1

    def _class_clicked(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        c = self.selected_class()
        self._apply_class(c)
        if c >= 0:
            self.class_selected.emit(c)

    def select_class(self, class_id: int) -> None:
        """Select a class in the table (e.g. from a chart); its records are shown/highlighted."""
        row = self.class_model.row_of_class(class_id)
        if row >= 0:
            self.class_view.selectRow(row)
            self.class_view.scrollTo(self.class_model.index(row, 0))

    def rows_of_class(self, class_id: int) -> np.ndarray:
        if self.run is None or self.run.result.row_class is None:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.run.result.row_class == class_id)

    def _apply_class(self, class_id: int) -> None:
        if self.run is None or class_id < 0 or not self.run.result.in_memory:
            return
        rows = self.rows_of_class(class_id)
        size = len(rows)
        if self.only_class.isChecked():
            self.show_rows(rows, _(TEXT_GROUP, group=class_id + 1, size=size))
        else:
            self.original_model.set_highlight(rows)
            self.release_model.set_highlight(rows)
            if size:
                self._scroll_to_input_row(int(rows[0]))

    def show_rows(self, input_rows: np.ndarray, caption: str = "") -> None:
        """Show only these input rows on both sides (highlighted)."""
        if self.run is None or not self.run.result.in_memory:
            return
        rows = np.asarray(input_rows, dtype=np.int64)
        for model in (self.original_model, self.release_model):
            if model.side == "release" and self._rel is None:
                continue
            model.set_rows(rows)
            model.set_highlight(None)
        self.filter_caption.setText(
            caption or ngettext("{n} selected record", "{n} selected records", len(rows))
        )
        self.show_all_button.show()

    def show_all(self) -> None:
        if self.run is None or not self.run.result.in_memory:
            return
        n = self.run.table.n_rows
        for model in (self.original_model, self.release_model):
            if model.side == "release" and self._rel is None:
                continue
            model.set_rows(np.arange(n, dtype=np.int64))
            model.set_highlight(None)
        self.filter_caption.setText("")
        self.show_all_button.hide()

    def _scroll_to_input_row(self, input_row: int) -> None:
        rows = self.original_model.frame_rows()
        hits = np.flatnonzero(rows == input_row)
        if len(hits):
            self.original_view.scrollTo(
                self.original_model.index(int(hits[0]), 0), QAbstractItemView.ScrollHint.PositionAtTop
            )
