"""The Risk tab's "Population uniques (estimated)" box: a population size (the run's, when its privacy
models assume one: k-map, population uniqueness) and, for the original data and the release, the share of
that population estimated to be alone in its group by Pitman, Zayatz, SNB and Dankar et al.'s choice
(:mod:`kanon_engine.privacy.population_estimates`). The rows and the sentence are the report's
(:func:`kanon_engine.report.population.population_section`), so both say the same; the figures are computed
with the rest of the risk in the task runner (:meth:`RiskPanel._recompute`), never on the GUI thread.
"""

from __future__ import annotations

from typing import Any, TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QGroupBox,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from kanon_engine.errors import KanonError
from kanon_engine.i18n import _
from kanon_engine.metrics.risk import (
    CountedRiskComparison,
    RiskComparison,
    population_size_of,
    with_population,
)
from kanon_engine.report.population import population_section
from kanon_gui.views.parts import labelled_row

#: The largest population the field takes (more than any of ARX's regions; QSpinBox holds 32-bit ints).
MAX_POPULATION = 2_000_000_000


class PopulationBox(QGroupBox):
    """A population size field and the estimates for it; ``size_changed`` asks for a new computation."""

    size_changed = Signal()

    def __init__(self) -> None:
        super().__init__(_("Population uniques (estimated)"))
        self.setObjectName("population_box")
        self.size = QSpinBox()
        self.size.setObjectName("population_size")
        self.size.setRange(0, MAX_POPULATION)
        self.size.setGroupSeparatorShown(True)
        self.size.setSpecialValueText(_("not given"))
        self.size.setToolTip(
            _(
                "The number of people in the population the table was drawn from; the share of them "
                "who are alone in their group is then estimated. The run's population when its privacy "
                "models name one."
            )
        )
        self.size.editingFinished.connect(self._edited)
        self._shown = 0
        self.note = QLabel(_("Give the population size to estimate how many of its people are unique."))
        self.note.setWordWrap(True)
        self.figures = QTableWidget(0, 2)
        self.figures.setObjectName("population_figures")
        self.figures.setHorizontalHeaderLabels([_("Original data"), _("Release")])
        self.figures.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.figures.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.figures.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.figures.setVisible(False)
        self.figures.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.figures.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.addLayout(labelled_row(_("Population size"), self.size))
        layout.addWidget(self.note)
        layout.addWidget(self.figures)
        layout.addStretch(1)

    def use_run(self, result: Any | None) -> None:
        """Take the run's population size when its models name one (else keep what the user gave)."""
        size = population_size_of(getattr(result, "config", None)) if result is not None else None
        if size:
            self.size.setValue(min(int(size), MAX_POPULATION))
            self._shown = self.size.value()

    def population(self) -> int | None:
        """The population size given, None when none."""
        return int(self.size.value()) or None

    def show_estimates(self, comparison: Any | None, problem: str = "") -> None:
        """The estimates of the two risk assessments of ``comparison``, or why there are none."""
        sides = [getattr(comparison, side, None) for side in ("before", "after")]
        found = [getattr(a, "population_uniques", None) for a in sides]
        b, a = ({"population_uniques": f.to_dict()} if f is not None else {} for f in found)
        section = population_section(b, a, lambda rows, *_unused: rows)
        self.figures.setVisible(section is not None)
        if section is None:
            self.note.setText(
                problem or _("Give the population size to estimate how many of its people are unique.")
            )
            return
        self.note.setText(section["sentence"])
        rows = section["figures"]
        self.figures.setRowCount(len(rows))
        self.figures.setVerticalHeaderLabels([r[0] for r in rows])
        for i, row in enumerate(rows):
            for j, text in enumerate(row[1:]):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.figures.setItem(i, j, item)
        self._fit()

    def _fit(self) -> None:
        """The table as large as its four rows and two columns, no scrolling (the box gets the room)."""
        f = self.figures
        f.resizeColumnsToContents()
        f.resizeRowsToContents()
        frame = 2 * f.frameWidth()
        width = f.verticalHeader().sizeHint().width() + sum(f.columnWidth(c) for c in range(2))
        height = f.horizontalHeader().sizeHint().height() + sum(f.rowHeight(r) for r in range(f.rowCount()))
        f.setFixedSize(width + frame + 2, height + frame + 2)
        self.note.setMaximumWidth(max(width + frame, 320))

    def _edited(self) -> None:
        if self.size.value() != self._shown:
            self._shown = self.size.value()
            self.size_changed.emit()


Comparison = TypeVar("Comparison", RiskComparison, CountedRiskComparison)


def with_estimates(comparison: Comparison, size: int | None) -> tuple[Comparison, str]:
    """``comparison`` with the population estimates for ``size`` people (work for the task runner), and
    the sentence saying why there are none (a population smaller than the table; the original data's
    groups not counted in a streamed run)."""
    try:
        found = with_population(comparison, size)
    except KanonError as exc:
        return comparison, str(exc)
    if size and found.before is None:
        return found, _("The original data's groups were not counted, so there is no estimate to compare.")
    return found, ""
