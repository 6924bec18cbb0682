"""The risk panel: re-identification risk before and after, its distribution, homogeneity findings,
and "why is this record unsafe?" for a record of the original table.

Everything shown is computed by the engine (:mod:`kanon_engine.metrics.risk`,
:mod:`kanon_engine.metrics.explain`); this widget only lays it out. Each figure carries its definition as a
tooltip, written once in :func:`kanon_engine.metrics.risk.definitions`. The distribution chart draws each
series as one pyqtgraph item. Risk takes about 25 ms on the 30,162 Adult records; with a ``runner``
(:class:`kanon_gui.tasks.TaskRunner`) it is computed in the background instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data.table import Table
from kanon_engine.errors import KanonError
from kanon_engine.i18n import N_, _, formats, ngettext, text_of
from kanon_engine.metrics.explain import RecordExplainer
from kanon_engine.metrics.risk import (
    DEFAULT_THRESHOLD,
    POPULATION_IS_TABLE,
    CountedRiskComparison,
    RiskAssessment,
    RiskComparison,
    compare,
    compare_counts,
    definitions,
)
from kanon_engine.report.facts import result_facts
from kanon_engine.session.engines import engine_title, needs_rows_text
from kanon_gui.glossary import term
from kanon_gui.state import Run
from kanon_gui.tasks import run_or_submit
from kanon_gui.views.charts import style_plot
from kanon_gui.views.linkage_view import LinkagePanel
from kanon_gui.views.parts import labelled_row
from kanon_gui.views.plot_menu import add_plot_menu
from kanon_gui.views.population_box import PopulationBox, with_estimates
from kanon_gui.views.results_view import stale_banner

BEFORE_COLOR = "#a0aec0"
AFTER_COLOR = "#2b6cb0"
#: A run whose models ask for no group size (k is 0 or 1: a risk-based model alone) has no record unsafe by k.
NO_K = N_(
    "This run asks for no smallest group size (no k), so no record is unsafe by that measure; the "
    "population estimates and the risk figures above say how identifiable the records are."
)
#: The risk of a streamed run: what it is computed from, and what needs the records.
FROM_SIZES = N_(
    "Risk of the release on {columns}, computed from the sizes of its groups: this run was made by "
    "{engine}, which reads the file without loading it. Journalist and marketer risk take the table "
    "itself as the population."
)
BEFORE_NEEDS_ROWS = N_(
    "The figures of the original data need its records or all of its groups, which this run did not "
    "keep (it counted coarser groups, or cut the table while reading it)."
)
PART_NEEDS_ROWS = N_(
    "This needs the records in memory; this run was made by {engine}, which reads the file without "
    "loading it."
)
#: One attribute's homogeneity in a whole sentence (named placeholders, one place for translation).
HOMOGENEITY = {
    "plain": (
        N_(
            "Homogeneous groups of {attribute}: {after} in the release, {before} in the original data; "
            "distinct l reached {distinct_l}, at most {max_share} of a group share one value, entropy l "
            "{entropy_l}, t (equal distance) {t_equal}."
        )
    ),
    "ordered": (
        N_(
            "Homogeneous groups of {attribute}: {after} in the release, {before} in the original data; "
            "distinct l reached {distinct_l}, at most {max_share} of a group share one value, entropy l "
            "{entropy_l}, t (equal distance) {t_equal}, t (ordered distance) {t_ordered}."
        )
    ),
}

#: (label, key in RiskFigures.to_dict(), key in definitions(), formatter)
_ROWS: tuple[tuple[str, str, str, str], ...] = (
    (N_("Records assessed"), "records", "equivalence_class", "int"),
    (N_("Suppressed records"), "suppressed", "suppressed", "int"),
    (N_("Groups"), "classes", "equivalence_class", "int"),
    (N_("Smallest group"), "smallest_class", "equivalence_class", "int"),
    (N_("Prosecutor risk, highest"), "prosecutor_highest", "prosecutor_highest", "risk"),
    (N_("Prosecutor risk, average"), "prosecutor_average", "prosecutor_average", "pct"),
    (N_("Records at risk"), "records_above_threshold", "records_above_threshold", "int"),
    (N_("Journalist risk, highest"), "journalist_highest", "journalist_highest", "risk"),
    (N_("Marketer risk"), "marketer", "marketer", "pct"),
    (N_("Sample uniques"), "sample_uniques", "sample_uniques", "int"),
)


def _fmt(value: Any, kind: str) -> str:
    if value is None:
        return "–"
    if kind == "int":
        return formats.count(int(value))
    if kind == "pct":
        return formats.percent(float(value), 1)
    v = float(value)
    if v <= 0:
        return formats.percent(0, 0)
    return _("{share} (1 in {n})", share=formats.percent(v, 1), n=formats.count(1 / v))


class RiskPanel(QWidget):
    """Risk figures (original vs release), risk distribution, homogeneity, and why a record is unsafe.

    ``set_result(table, result)`` shows a run; ``explain_row(row)`` explains a record of the original
    table (0-based); ``row_requested`` asks the window to select that record in its grid.
    """

    row_requested = Signal(int)

    def __init__(
        self,
        parent: QWidget | None = None,
        runner: Any | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        state: Any | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("risk_panel")
        self.runner = runner
        self.linkage = LinkagePanel(state, runner)
        self.table: Table | None = None
        self.result: Any | None = None
        self.comparison: RiskComparison | CountedRiskComparison | None = None
        self._explainer: RecordExplainer | None = None
        self._defs = definitions()
        self.population_box = PopulationBox()
        self.population_box.size_changed.connect(self._recompute)
        self._population_problem = ""
        self._make_figures(threshold)
        self._make_details()
        self._lay_out()
        self._set_enabled(False)

    def _make_figures(self, threshold: float) -> None:
        """The threshold, the status line and the table of risk figures (each row explains its figure)."""
        self.threshold = QDoubleSpinBox()  # in percent: a risk of 0.2 is shown as 20 %
        self.threshold.setRange(0.0, 100.0)
        self.threshold.setSingleStep(5.0)
        self.threshold.setDecimals(1)
        self.threshold.setSuffix(" %")
        self.threshold.setValue(100.0 * threshold)
        self.threshold.setToolTip(self._defs["records_above_threshold"])
        self.threshold.valueChanged.connect(self._recompute)
        self.status = QLabel(_("Run an anonymization to see the risk that remains."))
        self.status.setWordWrap(True)

        self.figures = QTableWidget(len(_ROWS), 2)
        self.figures.setObjectName("risk_figures")
        self.figures.setHorizontalHeaderLabels([_("Original data"), _("Release")])
        self.figures.setVerticalHeaderLabels([_(r[0]) for r in _ROWS])
        self.figures.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.figures.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # as wide as its words and numbers, no wider: the chart beside it gets the rest of the row
        self.figures.horizontalHeader().setStretchLastSection(False)
        self.figures.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.figures.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # always there, so the width the table asks for includes it and no column is cut
        self.figures.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        for i, (_unused, _unused, d, _unused) in enumerate(_ROWS):
            head = self.figures.verticalHeaderItem(i)
            if head is not None:
                head.setToolTip(self._defs[d])

    def _make_details(self) -> None:
        """The risk chart, the homogeneity table and the "why is this record unsafe" controls."""
        self.plot = pg.PlotWidget(background="w")
        self.plot.setObjectName("risk_distribution")
        add_plot_menu(self.plot)
        self.plot.setMinimumHeight(160)
        self.plot.setMinimumWidth(240)  # room for the bars and their labels beside the two boxes
        item = self.plot.getPlotItem()
        style_plot(item)
        item.setLabel("left", _("records"))
        # short, so a narrow chart shows it whole; the full name is the chart's tooltip
        item.setLabel("bottom", _("risk, % (1 / group size)"))
        self.plot.setToolTip(_("re-identification risk (prosecutor, 1 / group size)"))
        item.addLegend(offset=(-10, 10))

        self.homogeneity = QTableWidget(0, 4)
        self.homogeneity.setObjectName("homogeneity")
        self.homogeneity.setHorizontalHeaderLabels(
            [_("Attribute"), _("Revealed value"), _("Records"), _("Group (released quasi-identifier values)")]
        )
        self.homogeneity.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.homogeneity.horizontalHeader().setStretchLastSection(True)
        self.homogeneity.setToolTip(self._defs["homogeneous_classes"])
        self.homogeneity_summary = QLabel("")
        self.homogeneity_summary.setWordWrap(True)

        self.row_spin = QSpinBox()
        self.row_spin.setMinimum(1)
        self.row_spin.setToolTip(_("Record number in the original table (1 = first data row)."))
        self.explain_button = QPushButton(_("Explain"))
        self.explain_button.clicked.connect(lambda: self.explain_row(self.row_spin.value() - 1))
        self.next_unsafe = QPushButton(_("Next unsafe record"))
        self.next_unsafe.setToolTip(
            _("Jump to the next record of the original data in a group smaller than k.")
        )
        self.next_unsafe.clicked.connect(self._next_unsafe)
        self.explanation = QTextBrowser()
        self.explanation.setObjectName("explanation")
        self.explanation.setOpenLinks(False)

    def _lay_out(self) -> None:
        """Figures and chart above; homogeneity and explanations below, in splitters."""
        top = labelled_row(_("Records at risk above"), self.threshold)
        fig_box = QGroupBox(_("Re-identification risk"))
        fl = QVBoxLayout(fig_box)
        fl.addLayout(top)
        fl.addWidget(self.figures)
        hom_box = QGroupBox(_("Homogeneity of sensitive attributes (release)"))
        hl = QVBoxLayout(hom_box)
        hl.addWidget(self.homogeneity_summary)
        hl.addWidget(self.homogeneity)
        why_box = QGroupBox(_("Why is this record unsafe? (original data)"))
        wl = QVBoxLayout(why_box)
        row = QHBoxLayout()
        row.addWidget(QLabel(_("Record")))
        row.addWidget(self.row_spin)
        row.addWidget(self.explain_button)
        row.addWidget(self.next_unsafe)
        row.addStretch(1)
        wl.addLayout(row)
        wl.addWidget(self.explanation)

        upper = QSplitter(Qt.Orientation.Horizontal)
        upper.addWidget(fig_box)
        upper.addWidget(self.population_box)
        upper.addWidget(self.plot)
        upper.setStretchFactor(0, 0)
        upper.setStretchFactor(1, 0)
        upper.setStretchFactor(2, 1)
        fig_box.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(hom_box)
        lower.addWidget(why_box)
        lower.setSizes([500, 500])  # two halves: the homogeneity table's columns need the room too
        main = QSplitter(Qt.Orientation.Vertical)
        main.addWidget(upper)
        main.addWidget(lower)
        risk_page = QWidget()
        rl = QVBoxLayout(risk_page)
        rl.setContentsMargins(0, 4, 0, 0)
        rl.addWidget(self.status)
        rl.addWidget(main, 1)
        self.pages = QTabWidget()
        self.pages.setObjectName("risk_pages")
        self.pages.addTab(risk_page, _("Re-identification risk"))
        self.pages.addTab(self.linkage, _("Linkage attack"))
        self.pages.setTabToolTip(1, term("linkage"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.stale_banner = stale_banner()
        layout.addWidget(self.stale_banner)
        layout.addWidget(self.pages, 1)

    # --- contract with the window ------------------------------------------------------------------------
    def set_stale(self, stale: bool) -> None:
        """Mark the run shown as out of date (its settings are not the project's any more)."""
        self.stale_banner.setVisible(stale and self.result is not None)

    def show_run(self, run: Run | None) -> None:
        """The view contract (see :mod:`kanon_gui.views.analysis`): the risk of ``run``'s release, and
        the linkage demonstration of the project's public list on it."""
        if run is not None and not run.result.in_memory:  # a streamed run: risk from its class sizes
            self.set_result(None, None)
            self.result = run.result
            self.population_box.use_run(run.result)
            self._recompute()
            self.linkage.show_run(None)
            self.linkage.summary.setText(needs_rows_text(run.result))
            return
        self.set_result(*((run.table, run.result) if run is not None else (None, None)))
        self.linkage.show_run(run)

    def set_result(self, table: Table | None, result: Any | None) -> None:
        """Show the risk of ``result`` (a run on ``table``); None clears the panel."""
        self.table, self.result = table, result
        self._explainer = None
        self.comparison = None
        if table is None or result is None:
            self._clear()
            return
        self.row_spin.setMaximum(max(table.n_rows, 1))
        self.population_box.use_run(result)
        self._recompute()

    def explain_row(self, row: int, announce: bool = True) -> None:
        """Explain record ``row`` (0-based) of the original table in the "why" box; ``announce`` asks
        the window to show the record in its grids (the user picked it, the view did not)."""
        if self.table is None or self.result is None:
            return
        try:
            if self._explainer is None:
                self._explainer = RecordExplainer(self.table, self.result.config)
            ex = self._explainer.explain(int(row))
        except KanonError as exc:
            self.explanation.setPlainText(str(exc))
            return
        self.row_spin.blockSignals(True)
        self.row_spin.setValue(int(row) + 1)
        self.row_spin.blockSignals(False)
        lines = ex.sentences()
        if not self.result.suppressed_mask[row]:
            cls = int(self.result.row_class[row])
            size = int(self.result.class_sizes[cls])
            if self.result.config.person is not None:  # k counts persons (issue 33)
                people = self._explainer.persons_of(np.asarray(self.result.row_class) == cls)
                lines.append(
                    ngettext(
                        "In this release it is in a group of {n} person ({rows} records).",
                        "In this release it is in a group of {n} persons ({rows} records).",
                        people,
                        rows=size,
                    )
                )
            else:
                lines.append(_("In this release it is in a group of {class_size} records.", class_size=size))
        else:
            lines.append(_("In this release it is suppressed: its quasi-identifiers are shown as *."))
        self.explanation.setPlainText("\n\n".join(lines))
        if announce:
            self.row_requested.emit(int(row))

    # --- computing ---------------------------------------------------------------------------------------
    def _recompute(self, *_args: object) -> None:
        if self.result is None:
            return
        table, result, threshold = self.table, self.result, float(self.threshold.value()) / 100.0
        size = self.population_box.population()
        if table is None and result.in_memory:
            return

        def work(progress: Any = None) -> RiskComparison | CountedRiskComparison:
            if table is None:  # a streamed run: the figures from its class sizes
                counted, self._population_problem = with_estimates(
                    compare_counts(result, threshold=threshold), size
                )
                return counted
            self._person_lines = person_lines(table, result, threshold)
            found, self._population_problem = with_estimates(
                compare(table, result, threshold=threshold), size
            )
            return found

        self.status.setText(_("Computing the risk…"))
        run_or_submit(
            self.runner,
            work,
            channel="risk",
            label="risk analysis",
            on_done=self._show,
            on_error=lambda exc: self.status.setText(str(exc)),
        )

    def _show(self, comparison: RiskComparison | CountedRiskComparison) -> None:
        self.comparison = comparison
        self._fill_figures(comparison.before, comparison.after)
        counted = isinstance(comparison, CountedRiskComparison)
        self.status.setText(
            self._counted_status(comparison) if counted else self._with_persons(self._status(comparison))
        )
        self.figures.resizeColumnsToContents()
        header = self.figures.verticalHeader().sizeHint().width()
        columns = sum(self.figures.columnWidth(c) for c in range(2))
        scrollbar = self.figures.verticalScrollBar().sizeHint().width()  # always shown, beside the columns
        width = header + columns + scrollbar + 2 * self.figures.frameWidth() + 4
        self.figures.setMinimumWidth(width)
        self._draw(comparison.before, comparison.after)
        self.population_box.show_estimates(comparison, self._population_problem)
        if counted:  # homogeneity and the records' explanations need the values of the records
            self._show_rows_needed()
            return
        self._fill_homogeneity(comparison)
        self._set_enabled(True)
        unsafe = self._unsafe_rows()
        if unsafe is not None and len(unsafe):
            self.explain_row(int(unsafe[0]), announce=False)
        else:
            self.explanation.setPlainText(self._all_safe())

    def _fill_figures(self, before: RiskAssessment | None, after: RiskAssessment) -> None:
        """The two columns of figures ("–" throughout for an original data that was not assessed)."""
        b = before.figures.to_dict() if before is not None else None
        a = after.figures.to_dict()
        for i, (_unused, key, _unused, kind) in enumerate(_ROWS):
            for j, fig in enumerate((b, a)):
                text = _fmt(fig[key] if fig is not None else None, kind)
                if key == "records_above_threshold" and fig is not None:
                    text += f" ({formats.percent(fig['share_above_threshold'], 1)})"
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.figures.setItem(i, j, item)

    def _status(self, comparison: RiskComparison) -> str:
        """What the figures of a run in memory are about (the population, how * is read)."""
        pop = comparison.after.figures.population
        return (
            _(
                "Risk of the original data and of the release on {columns}.",
                columns=", ".join(comparison.after.qi),
            )
            + " "
            + (
                _("Journalist and marketer risk take the table itself as the population.")
                if pop == POPULATION_IS_TABLE
                else _("Population: {population}.", population=pop)
            )
            + (
                " "
                + _(
                    "In this release * counts as a value of its own: records showing * are grouped only "
                    "with records showing * in the same place; records showing * everywhere are "
                    "suppressed and belong to no group."
                )
                if comparison.after.star_is_value
                else ""
            )
        )

    def _with_persons(self, text: str) -> str:
        """The status, with the per-person figures of a run under the person role (issue 33)."""
        lines = getattr(self, "_person_lines", [])
        return " ".join([text, *lines]) if lines else text

    def _counted_status(self, comparison: CountedRiskComparison) -> str:
        """What the figures of a streamed run come from, and what they lack."""
        engine = engine_title(getattr(self.result, "engine", "duckdb"))
        text = _(FROM_SIZES, columns=", ".join(comparison.after.qi), engine=engine)
        return text if comparison.before is not None else text + " " + _(BEFORE_NEEDS_ROWS)

    def _show_rows_needed(self) -> None:
        """Homogeneity and "why is this record unsafe?" of a streamed run: one sentence each."""
        text = _(PART_NEEDS_ROWS, engine=engine_title(getattr(self.result, "engine", "duckdb")))
        self.homogeneity.setRowCount(0)
        self.homogeneity_summary.setText(text)
        self.explanation.setPlainText(text)
        self._set_enabled(False)
        self.threshold.setEnabled(True)

    def _draw(self, before: RiskAssessment | None, after: RiskAssessment) -> None:
        item = self.plot.getPlotItem()
        item.clear()
        bands = after.risk_distribution()
        x = np.arange(len(bands), dtype=float)
        series = [(before, -0.2, BEFORE_COLOR, _("original data")), (after, 0.2, AFTER_COLOR, _("release"))]
        heights = []
        for assessment, shift, color, name in series:
            if assessment is None:
                continue
            height = [d["records"] for d in assessment.risk_distribution()]
            heights += height
            brush, pen = color, pg.mkPen(None)
            item.addItem(
                pg.BarGraphItem(x=x + shift, height=height, width=0.38, brush=brush, pen=pen, name=name)
            )
        # "≤2" rather than "≤2 %" (the axis label says "%"); the labels on three tick levels (every
        # fourth band, the bands between, the rest), and the axis leaves out a level's labels when they
        # would crowd the chart (German words make it narrow at 1366 px): never overlapping labels
        ticks = [(float(i), "≤" + formats.decimal(100 * d["high"], 0)) for i, d in enumerate(bands)]
        axis = item.getAxis("bottom")
        axis.setStyle(textFillLimits=[(0, 0.7)])
        axis.setTicks([ticks[::4], ticks[2::4], ticks[1::2]])
        item.setXRange(-0.6, len(bands) - 0.4, padding=0)
        # room above the tallest bar for the legend (top right), so it never hides a bar
        top = max(heights, default=0)
        item.setYRange(0, max(top, 1) * 1.35, padding=0)

    def _fill_homogeneity(self, comparison: RiskComparison) -> None:
        self.homogeneity.setRowCount(0)
        notes = []
        rows: list[tuple[str, str, str, str]] = []
        sensitive = result_facts(self.result, self.table)["sensitive"] if self.result is not None else {}
        for hb, ha in zip(comparison.before.homogeneity, comparison.after.homogeneity):
            d = ha.to_dict()
            share = (sensitive.get(ha.attribute) or {}).get("max_share")
            words = {
                "attribute": ha.attribute,
                "after": formats.count(ha.homogeneous_classes),
                "before": formats.count(hb.homogeneous_classes),
                "distinct_l": _num(d["distinct_l"]),
                "max_share": "–" if share is None else formats.percent(share, 1),
                "entropy_l": _num(d["entropy_l"]),
                "t_equal": _num(d["t_equal"]),
                "t_ordered": _num(d["t_ordered"]),
            }
            notes.append(text_of(HOMOGENEITY, "ordered" if d["t_ordered"] is not None else "plain", **words))
            for ex in ha.examples:
                qis = ", ".join(f"{q}={v}" for q, v in ex["quasi_identifiers"].items())
                rows.append((ha.attribute, ex["value"], formats.count(int(ex["size"])), qis))
        if not comparison.after.homogeneity:
            notes.append(_("No column is marked sensitive: mark one to see homogeneity findings."))
        self.homogeneity_summary.setText("\n".join(notes))
        self.homogeneity.setRowCount(len(rows))
        for i, r in enumerate(rows):
            for j, text in enumerate(r):
                cell = QTableWidgetItem(text)
                cell.setToolTip(text)
                self.homogeneity.setItem(i, j, cell)
        self.homogeneity.resizeColumnsToContents()

    def _unsafe_rows(self) -> np.ndarray | None:
        if self.table is None or self.result is None:
            return None
        if self._explainer is None:
            try:
                self._explainer = RecordExplainer(self.table, self.result.config)
            except KanonError:
                return None
        return np.flatnonzero(self._explainer.class_sizes() < self.result.config.k)

    def _next_unsafe(self) -> None:
        unsafe = self._unsafe_rows()
        if unsafe is None or not len(unsafe):
            self.explanation.setPlainText(self._all_safe())
            return
        current = self.row_spin.value() - 1
        later = unsafe[unsafe > current]
        self.explain_row(int(later[0] if len(later) else unsafe[0]))

    def _all_safe(self) -> str:
        """No record unsafe, said with the run's k (a bare "k" reads as a promise the run may not make)."""
        k = self.result.config.k if self.result is not None else 1
        if k <= 1:
            return _(NO_K)
        if self.result is not None and self.result.config.person is not None:
            text = ngettext(
                "Every record of the original data is already in a group of at least {k} person.",
                "Every record of the original data is already in a group of at least {k} persons.",
                k,
            )
        else:
            text = ngettext(
                "Every record of the original data is already in a group of at least {k} record.",
                "Every record of the original data is already in a group of at least {k} records.",
                k,
            )
        return text.format(k=formats.count(k))

    def _clear(self) -> None:
        self.figures.clearContents()
        self.plot.getPlotItem().clear()
        self.homogeneity.setRowCount(0)
        self.homogeneity_summary.setText("")
        self.explanation.clear()
        self.status.setText(_("Run an anonymization to see the risk that remains."))
        self._set_enabled(False)

    def _set_enabled(self, on: bool) -> None:
        for w in (self.explain_button, self.next_unsafe, self.row_spin, self.threshold):
            w.setEnabled(on)


def person_lines(table: Any, result: Any, threshold: float) -> list[str]:
    """Under the person role: k counts persons, and the risk per person (the report's sentences)."""
    from kanon_engine.report.persons import person_facts_of, person_sentences

    facts = person_facts_of(table, result, threshold)
    sentences = person_sentences(facts)
    return [sentences[0], sentences[-1]] if facts and facts.get("risk") else sentences[:1]


def _num(v: float | None) -> str:
    return "–" if v is None else formats.decimal(float(f"{v:.3g}"), 6)
