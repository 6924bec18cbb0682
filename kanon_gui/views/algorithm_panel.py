"""The algorithm picker and the Run button.

Every algorithm of ``kanon_engine.algorithms.algorithms()`` is listed with its one-paragraph description,
so a new algorithm appears with no GUI change. Its parameters and the privacy-model parameters are
forms generated from the engine's ParamSpecs; an estimate of the work (lattice size, records) is shown
before running; the validation issues are listed, and Run is disabled with the reason while any error
remains.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.algorithms import algorithms, description_of, title_of
from kanon_engine.data.roles import Role
from kanon_engine.i18n import _
from kanon_engine.privacy import Requirement, families, param_visible
from kanon_engine.privacy.base import Preset
from kanon_gui.glossary import term
from kanon_gui.resources import icon
from kanon_gui.state import AppState
from kanon_gui.views.engine_box import EngineBox
from kanon_gui.views.model_picker import ThreatHeading, group_presets, grouped_params, threat_groups
from kanon_gui.views.param_form import ParamForm
from kanon_gui.views.parts import note_label

#: The algorithm offered when a lattice is too large for the chosen one.
HEURISTIC = "heuristic"


def work_estimate(state: AppState, algorithm_cls: type | None) -> str:
    """A plain sentence on the size of the job: lattice size for full-domain algorithms, records and
    quasi-identifiers for partitioning ones."""
    t = state.table
    if t is None:
        return _("Open data to see the size of the job.")
    qi = state.columns_with(Role.QUASI_IDENTIFIER)
    if not qi:
        return _("{n_rows} records; choose quasi-identifiers to see the size of the job.", n_rows=t.n_rows)
    if getattr(algorithm_cls, "cell_level", False):
        return _cell_level_estimate(state, algorithm_cls, qi)
    if algorithm_cls is not None and not getattr(algorithm_cls, "full_domain", True):
        return _(
            "{n_rows} records split on {n} quasi-identifiers: the work grows like records × log(records).",
            n_rows=t.n_rows,
            n=len(qi),
        )
    heights = []
    for q in qi:
        h = state.hierarchy(q)
        heights.append(h.height if h is not None else 0)
    size = state.lattice_size()
    limit = getattr(algorithm_cls, "max_nodes", None)
    parts = [
        _(
            "Lattice: <b>{size}</b> transformations (product of height + 1 over {n} quasi-identifiers: "
            "heights {values}), on <b>{n_rows}</b> records.",
            size=size,
            n=len(qi),
            values=", ".join(map(str, heights)),
            n_rows=t.n_rows,
        )
    ]
    if limit is not None:
        parts.append(
            _("{algorithm} accepts at most {limit}.", algorithm=_(title_of(algorithm_cls, "")), limit=limit)
        )
    parts.append(_("Each transformation checked groups all records once."))
    return " ".join(parts)


def lattice_too_large(state: AppState, algorithm_cls: type | None) -> bool:
    """Whether the lattice is past the chosen full-domain algorithm's limit (then the heuristic search,
    which has none, is offered)."""
    limit = getattr(algorithm_cls, "max_nodes", None)
    if limit is None or state.table is None or not state.columns_with(Role.QUASI_IDENTIFIER):
        return False
    return state.lattice_size() > limit


def _cell_level_estimate(state: AppState, algorithm_cls: type, qi: list[str]) -> str:
    """The job of local recoding / local suppression: transformations visited cheapest first, each
    grouping only the records not yet released."""
    n = state.table.n_rows if state.table is not None else 0
    if getattr(algorithm_cls, "uses_hierarchies", True):
        what = _(
            "<b>{lattice_size}</b> transformations of the hierarchies", lattice_size=state.lattice_size()
        )
    else:
        what = _(
            "<b>{patterns}</b> patterns of * over {n} quasi-identifiers", patterns=2 ** len(qi), n=len(qi)
        )
    return _(
        "{what}, tried cheapest first on <b>{n}</b> records; each try groups only the records not yet "
        "released, and every record is kept.",
        what=what,
        n=n,
    )


class AlgorithmPanel(QWidget):
    """Pick the algorithm and the privacy models, see the estimate and the issues, press Run."""

    run_requested = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._classes = algorithms()
        self._loading = False
        outer = QHBoxLayout(self)

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.addWidget(self._algorithm_box())
        lv.addWidget(self.params_box)
        lv.addWidget(self._models_box())
        lv.addWidget(self._output_box())
        self.engine_box = EngineBox(state)
        lv.addWidget(self.engine_box)
        lv.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(left)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        outer.addWidget(scroll, 3)
        outer.addWidget(self._run_column(), 2)

        self.list.currentItemChanged.connect(self._algorithm_picked)
        self.model_form.changed.connect(self._models_changed)
        self.sensitive.currentIndexChanged.connect(
            lambda *_args: self._models_changed(self.model_form.values())
        )
        self.drop.toggled.connect(lambda v: self.state.set_output(drop_suppressed=v))
        self.drop.toggled.connect(lambda *_: self._update_release_box())
        self.protect.toggled.connect(lambda v: self.state.set_output(protect_suppressed_group=v))
        self.seed.editingFinished.connect(self._seed_changed)
        state.project_changed.connect(self.refresh)
        state.issues_changed.connect(self.refresh)
        state.table_changed.connect(self.load_from_state)
        self.load_from_state()

    def _algorithm_box(self) -> QGroupBox:
        """The algorithm list with the chosen one's description, and the box its parameter form goes in."""
        box = QGroupBox(_("Algorithm"))
        bl = QVBoxLayout(box)
        self.list = QListWidget()
        self.list.setObjectName("AlgorithmList")
        for name, cls in self._classes.items():
            item = QListWidgetItem(_(title_of(cls, name)))
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(description_of(cls))
            self.list.addItem(item)
        # a long title wraps rather than hide its end behind a scroll bar (German titles run longer)
        self.list.setWordWrap(True)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setMaximumHeight(26 * max(3, len(self._classes) + 1) + 8)
        bl.addWidget(self.list)
        self.description = note_label("AlgorithmDescription")
        bl.addWidget(self.description)
        self.params_box = QGroupBox(_("Parameters of the algorithm"))
        self.params_layout = QVBoxLayout(self.params_box)
        self.params_form: ParamForm | None = None
        return box

    def _models_box(self) -> QGroupBox:
        """The privacy-model form (one field per ParamSpec) and the protected sensitive attribute."""
        models = QGroupBox(_("Privacy models"))
        ml = QVBoxLayout(models)
        protecting = " / ".join(_(c.title) for c in families() if Requirement.SENSITIVE in c.requires)
        hint = QLabel(
            _(
                "{meaning} Some models also protect a sensitive attribute: {models}.",
                meaning=term("k"),
                models=protecting,
            )
        )
        hint.setWordWrap(True)
        ml.addWidget(hint)
        # one field per parameter of every registered model (a model added later appears here), grouped
        # by what the user protects against, each group with its published thresholds
        groups = threat_groups()
        specs, first = grouped_params(groups)
        self.model_form = ParamForm(specs)
        self.model_form.setObjectName("ModelForm")
        self._applying = False
        self.threat_headings: dict[str, ThreatHeading] = {}
        for threat, classes in groups.items():
            if threat in first:
                heading = ThreatHeading(threat, group_presets(classes), self.apply_preset)
                self.threat_headings[threat] = heading
                self.model_form.insert_heading(first[threat], heading)
        ml.addWidget(self.model_form)
        sens = QFormLayout()
        self.sensitive = QComboBox()
        self.sensitive.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.sensitive.setMinimumContentsLength(16)
        self.sensitive.setToolTip(
            _(
                "The sensitive attribute that {models} protect (mark it sensitive in the Attributes tab).",
                models=protecting,
            )
        )
        sens.addRow(_("Protected attribute"), self.sensitive)
        ml.addLayout(sens)
        return models

    def _output_box(self) -> QGroupBox:
        """Release options: drop suppressed records, shuffle seed."""
        output = QGroupBox(_("Release"))
        ol = QFormLayout(output)
        self.drop = QCheckBox(_("Remove suppressed records from the release"))
        self.drop.setToolTip(
            _("{meaning} When unchecked, their quasi-identifiers read *.", meaning=term("suppression"))
        )
        ol.addRow(self.drop)
        self.protect = QCheckBox(_("Kept suppressed records form a group of at least k"))
        self.protect.setToolTip(
            _(
                "Suppressed records kept in the release (shown as *) look alike, so they form a group of "
                "their own. Ticked (Sweeney's Datafly, step 4), it holds 0 or at least k records: when "
                "fewer are suppressed, more are, within the suppression limit."
            )
        )
        ol.addRow(self.protect)
        self.keeps_all = QLabel(
            _(
                "This choice keeps every record and suppresses single values only, so no record is "
                "suppressed: there is nothing to remove and no group of suppressed records."
            )
        )
        self.keeps_all.setObjectName("KeepsEveryRecord")
        self.keeps_all.setWordWrap(True)
        ol.addRow(self.keeps_all)
        self.seed = QLineEdit()
        self.seed.setPlaceholderText(_("keep input order"))
        self.seed.setToolTip(
            _(
                "A whole number shuffles the release rows reproducibly (a release in input order can leak "
                "through position)."
            )
        )
        ol.addRow(_("Shuffle seed"), self.seed)
        return output

    def _run_column(self) -> QWidget:
        """The size of the job, the validation findings, Run and why it is disabled."""
        right = QWidget()
        rv = QVBoxLayout(right)
        est = QGroupBox(_("Size of the job"))
        el = QVBoxLayout(est)
        self.estimate = note_label("WorkEstimate")
        self.estimate.setToolTip(term("lattice"))
        el.addWidget(self.estimate)
        self.use_heuristic = QPushButton(_("Use the heuristic search instead"))
        self.use_heuristic.setObjectName("UseHeuristic")
        self.use_heuristic.setToolTip(
            _(
                "The heuristic search handles lattices of any size: it returns the best release it finds "
                "within a time limit you set, and says whether it is proven optimal."
            )
        )
        self.use_heuristic.clicked.connect(lambda: self.select_algorithm(HEURISTIC))
        self.use_heuristic.hide()
        el.addWidget(self.use_heuristic)
        rv.addWidget(est)
        checks = QGroupBox(_("Checks"))
        cl = QVBoxLayout(checks)
        self.issues = QListWidget()
        self.issues.setObjectName("IssueList")
        self.issues.setWordWrap(True)
        cl.addWidget(self.issues)
        rv.addWidget(checks, 1)
        self.run_button = QPushButton(icon("run"), _("  Run  (Ctrl+R)"))
        self.run_button.setObjectName("RunButton")
        self.run_button.setMinimumHeight(40)
        self.run_button.clicked.connect(self.run_requested)
        rv.addWidget(self.run_button)
        self.reason = note_label("RunBlocker", "color: #c0392b;")
        rv.addWidget(self.reason)
        return right

    # --- filling from the state ----------------------------------------------------------------------
    def load_from_state(self) -> None:
        """Fill every form from the project (after opening data or a project)."""
        self._loading = True
        try:
            p = self.state.project
            for i in range(self.list.count()):
                if self.list.item(i).data(Qt.ItemDataRole.UserRole) == p.algorithm:
                    self.list.setCurrentRow(i)
                    break
            else:
                self.list.setCurrentRow(0)
            self._build_params_form(
                self.current_algorithm(), {**p.algorithm_params, **self.state.algorithm_values()}
            )
            mv = self.state.model_values()
            self.model_form.set_values(mv)
            for heading in self.threat_headings.values():
                heading.forget()
            self._fill_sensitive(mv.get("sensitive"))
            self.drop.setChecked(p.drop_suppressed)
            self.protect.setChecked(p.protect_suppressed_group)
            self.seed.setText("" if p.shuffle_seed is None else str(p.shuffle_seed))
            self._update_visibility()
            self._update_release_box()
        finally:
            self._loading = False
        self.refresh()

    def _fill_sensitive(self, chosen: str | None) -> None:
        self.sensitive.blockSignals(True)
        self.sensitive.clear()
        cols = self.state.columns_with(Role.SENSITIVE)
        self.sensitive.addItem(
            _("(none)")
            if not cols
            else _("(the only sensitive attribute)")
            if len(cols) == 1
            else _("(choose)"),
            None,
        )
        for c in cols:
            self.sensitive.addItem(c, c)
        if chosen in cols:
            self.sensitive.setCurrentIndex(cols.index(chosen) + 1)
        self.sensitive.blockSignals(False)

    def current_algorithm(self) -> str:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else next(iter(self._classes), "")

    def _build_params_form(self, name: str, values: dict[str, Any]) -> None:
        if self.params_form is not None:
            self.params_form.setParent(None)
            self.params_form.deleteLater()
        cls = self._classes.get(name)
        self.params_form = ParamForm(tuple(getattr(cls, "params", ())))
        self.params_form.setObjectName("AlgorithmForm")
        self.params_form.set_values(values)
        self.params_form.changed.connect(self._params_changed)
        if self.state.table is not None:
            self.params_form.set_columns([str(c) for c in self.state.table.columns])
        self.params_layout.addWidget(self.params_form)
        self.description.setText(description_of(cls))
        self._update_release_box()

    # --- user edits ----------------------------------------------------------------------------------
    def _algorithm_picked(self, *_args: Any) -> None:
        if self._loading:
            return
        name = self.current_algorithm()
        keep = self.params_form.values() if self.params_form is not None else {}
        # every value the user set, by parameter name: shared parameters survive the switch
        self._build_params_form(name, {**self.state.algorithm_values(), **keep})
        self.state.set_algorithm(name, self.params_form.values())

    def select_algorithm(self, name: str) -> None:
        """Pick an algorithm by registry name (as a click in the list would)."""
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == name:
                self.list.setCurrentRow(i)
                return
        raise KeyError(name)

    def _params_changed(self, values: dict[str, Any]) -> None:
        self._update_release_box()
        if not self._loading:
            self.state.set_algorithm(self.current_algorithm(), values)

    def apply_preset(self, preset: Preset) -> None:
        """Fill the model form with a published threshold's values (the project stores the values)."""
        self._applying = True
        try:
            self.model_form.set_values(dict(preset.values), emit=True)
        finally:
            self._applying = False

    def _models_changed(self, values: dict[str, Any]) -> None:
        if not self._applying:  # an edit by hand: no preset's line stays under its heading
            for heading in self.threat_headings.values():
                heading.forget()
        self._update_visibility()
        if not self._loading:
            self.state.set_model_values(**values, sensitive=self.sensitive.currentData())

    def _seed_changed(self) -> None:
        text = self.seed.text().strip()
        if not text:
            self.state.set_output(shuffle_seed=None)
            return
        try:
            self.state.set_output(shuffle_seed=int(text))
        except ValueError:
            self.seed.setText("")
            self.state.set_output(shuffle_seed=None)

    def keeps_every_record(self) -> bool:
        """The chosen algorithm and parameters suppress single values only (local recoding, local
        suppression, or a full-domain algorithm suppressing cells): no record is ever suppressed."""
        cls = self._classes.get(self.current_algorithm())
        values = self.params_form.values() if self.params_form is not None else {}
        return bool(getattr(cls, "cell_level", False)) or values.get("suppress") == "cells"

    def _update_release_box(self) -> None:
        """Removing suppressed records and their group's rule mean nothing for a release that keeps every
        record: those tick boxes are disabled and a sentence says why. The importance order is shown
        only where single values are suppressed."""
        if not hasattr(self, "drop"):
            return
        keeps = self.keeps_every_record()
        self.drop.setEnabled(not keeps)
        self.protect.setEnabled(not keeps and not self.drop.isChecked())
        self.keeps_all.setVisible(keeps)
        values = self.params_form.values() if self.params_form is not None else {}
        if self.params_form is not None and "suppress" in values:
            self.params_form.set_visible_param("importance", values["suppress"] == "cells")
        if self.params_form is not None and "target" in values:  # the study's target: that metric's own
            self.params_form.set_visible_param("target", values.get("metric") == "classification")

    def _update_visibility(self) -> None:
        """Each model says which of its fields the form shows (l's variant once l is set, c for the
        recursive variant only)."""
        v = self.model_form.values()
        for spec in self.model_form.specs:
            self.model_form.set_visible_param(spec.name, param_visible(spec.name, v))

    # --- feedback ------------------------------------------------------------------------------------
    def refresh(self) -> None:
        cls = self._classes.get(self.state.project.algorithm)
        self.estimate.setText(work_estimate(self.state, cls))
        self.use_heuristic.setVisible(lattice_too_large(self.state, cls) and HEURISTIC in self._classes)
        if self.sensitive.count() - 1 != len(self.state.columns_with(Role.SENSITIVE)):
            self._fill_sensitive(self.state.model_values().get("sensitive"))
        self.issues.clear()
        issues = self.state.issues()
        for i in issues:
            mark = "\u2716" if i.is_error else "\u26a0"
            # a column the message concerns is named, unless the message names it; an internal place
            # ("models", "t") is never shown as a tag
            text = i.message
            if i.where in self.state.columns and i.where not in text:
                text = _("{column}: {message}", column=i.where, message=text)
            item = QListWidgetItem(f"{mark} {text}")
            item.setForeground(Qt.GlobalColor.red if i.is_error else Qt.GlobalColor.darkYellow)
            self.issues.addItem(item)
        if not issues:
            item = QListWidgetItem(_("✔ Everything is ready to run."))
            item.setForeground(Qt.GlobalColor.darkGreen)
            self.issues.addItem(item)
        blocker = self.state.run_blocker()
        self.set_run_enabled(blocker is None, blocker)

    def set_run_enabled(self, enabled: bool, reason: str | None = None) -> None:
        self.run_button.setEnabled(enabled)
        self.reason.setText("" if enabled else _("Run is disabled: {reason}", reason=escape(reason or "")))
        self.run_button.setToolTip("" if enabled else (reason or ""))
