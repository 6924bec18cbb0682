"""A form generated from the engine's :class:`~kanon_engine.config.ParamSpec` list.

One spec per parameter drives the CLI flags, the validation and this form (architecture example 2), so a
new algorithm parameter appears here with no GUI change. Each field shows the spec's label, its help
as tooltip, its presets in a menu, and the engine's own message inline when the value does not fit.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.config import ParamSpec
from kanon_engine.errors import KanonError
from kanon_engine.i18n import _

_INT_MAX = 1_000_000_000


def _show(spec: ParamSpec, value: Any) -> str:
    """A value in a text field: as its spec shows it (``5 %`` for a share), typed text left as typed."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return spec.show(value)
    except (TypeError, ValueError):
        return str(value)


class ParamForm(QWidget):
    """Fields for a tuple of ParamSpecs; ``changed`` is emitted with all values after any edit.

    Fields: int with a default -> spin box; float or optional int -> line edit (empty = the default, e.g.
    "none"); choice -> combo box; bool -> check box. ``values()`` returns raw values (strings for line
    edits) that the engine's specs coerce; invalid ones are shown under their field.
    """

    changed = Signal(dict)

    def __init__(self, specs: tuple[ParamSpec, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.specs = tuple(specs)
        self.fields: dict[str, QWidget] = {}
        self.errors: dict[str, QLabel] = {}
        self.rows: dict[str, QWidget] = {}
        self._quiet = False
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for spec in self.specs:
            field = self._make_field(spec)
            self.fields[spec.name] = field
            row = QWidget()
            box = QVBoxLayout(row)
            box.setContentsMargins(0, 0, 0, 0)
            box.setSpacing(1)
            line = QHBoxLayout()
            line.setContentsMargins(0, 0, 0, 0)
            line.addWidget(field, 1)
            if spec.presets:
                line.addWidget(self._presets_button(spec))
            box.addLayout(line)
            err = QLabel()
            err.setWordWrap(True)
            err.setStyleSheet("color: #c0392b;")
            err.hide()
            box.addWidget(err)
            self.errors[spec.name] = err
            label = QLabel(spec.shown_label)
            label.setToolTip(spec.shown_help)
            field.setToolTip(spec.shown_help)
            form.addRow(label, row)
            self.rows[spec.name] = row

    # --- building ------------------------------------------------------------------------------------
    def _make_field(self, spec: ParamSpec) -> QWidget:
        if spec.kind == "choice":
            w = QComboBox()
            # the choices' words can be long (French, German): the combo shrinks, its list shows them whole
            w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(16)
            if spec.default is None:  # a choice that may be left out (profitability) offers "none" first,
                w.addItem(_("none"), None)  # else the form would switch its model on by showing a choice
            for choice in spec.choices:  # plain words shown, the code kept as the item's data
                w.addItem(spec.choice_label(choice), choice)
            if spec.default in spec.choices:
                w.setCurrentIndex(spec.choices.index(spec.default))
            w.currentIndexChanged.connect(self._emit)
            return w
        if spec.kind == "bool":
            w = QCheckBox()
            w.setChecked(bool(spec.default))
            w.toggled.connect(self._emit)
            return w
        if spec.kind == "int" and spec.default is not None:
            w = QSpinBox()
            w.setRange(
                int(spec.minimum) if spec.minimum is not None else -_INT_MAX,
                int(spec.maximum) if spec.maximum is not None else _INT_MAX,
            )
            w.setValue(int(spec.default))
            w.setAccelerated(True)
            w.valueChanged.connect(self._emit)
            return w
        w = QLineEdit()
        w.setPlaceholderText(_("none") if spec.default is None else spec.show(spec.default))
        if spec.kind == "columns":
            w.setPlaceholderText(_("column names, most important first (empty: the automatic order)"))
        if spec.kind == "column":
            w.setPlaceholderText(_("a column's name (the table's columns are offered as you type)"))
        w.setClearButtonEnabled(True)
        w.textChanged.connect(self._emit)
        return w

    def _presets_button(self, spec: ParamSpec) -> QToolButton:
        button = QToolButton()
        button.setText(_("Presets"))
        button.setToolTip(_("Typical values of {label}", label=spec.shown_label))
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(button)
        for value in spec.presets:
            action = menu.addAction(spec.preset_label(value))
            action.triggered.connect(lambda _=False, n=spec.name, v=value: self.set_value(n, v))
        button.setMenu(menu)
        return button

    # --- values --------------------------------------------------------------------------------------
    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for spec in self.specs:
            w = self.fields[spec.name]
            if isinstance(w, QComboBox):
                out[spec.name] = w.currentData()
            elif isinstance(w, QCheckBox):
                out[spec.name] = w.isChecked()
            elif isinstance(w, QSpinBox):
                out[spec.name] = w.value()
            else:
                text = w.text().strip()  # type: ignore[union-attr]
                out[spec.name] = text if text else None
        return out

    def set_value(self, name: str, value: Any) -> None:
        w = self.fields[name]
        spec = next(p for p in self.specs if p.name == name)
        if isinstance(w, QComboBox):
            i = w.findData(str(value)) if value is not None else -1
            if value is None and spec.default is None:
                i = 0  # the "none" item
            if i >= 0:
                w.setCurrentIndex(i)
        elif isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QSpinBox):
            if value is not None:
                try:
                    w.setValue(int(float(value)))
                except (TypeError, ValueError):
                    pass
        else:
            w.setText(_show(spec, value))  # type: ignore[union-attr]

    def set_values(self, values: dict[str, Any], emit: bool = False) -> None:
        """Fill the form (without emitting ``changed`` unless asked)."""
        self._quiet = True
        try:
            for spec in self.specs:
                if spec.name in values:
                    self.set_value(spec.name, values[spec.name])
        finally:
            self._quiet = False
        self.validate()
        if emit:
            self._emit()

    def validate(self) -> bool:
        """Check every value with its spec; show the engine's message under invalid fields."""
        ok = True
        for spec in self.specs:
            raw = self.values()[spec.name]
            err = self.errors[spec.name]
            try:
                spec.coerce(raw)
            except KanonError as exc:
                err.setText(str(exc))
                err.show()
                ok = False
            else:
                err.hide()
        return ok

    def set_columns(self, names: list[str]) -> None:
        """Offer the table's column names as the user types in a field that takes one column."""
        for spec in self.specs:
            field = self.fields[spec.name]
            if spec.kind == "column" and isinstance(field, QLineEdit):
                completer = QCompleter(names, field)
                completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
                completer.setFilterMode(Qt.MatchFlag.MatchContains)
                field.setCompleter(completer)

    def insert_heading(self, before: str, widget: QWidget) -> None:
        """Put ``widget`` across the form's width just above the field of the parameter ``before`` (the
        model picker's group headings)."""
        form = self.layout()
        row = self.rows.get(before)
        if isinstance(form, QFormLayout) and row is not None:
            index, _role = form.getWidgetPosition(row)
            form.insertRow(index, widget)

    def set_visible_param(self, name: str, visible: bool) -> None:
        """Show or hide one parameter's row (e.g. c only for recursive l-diversity)."""
        row = self.rows.get(name)
        if row is None:
            return
        row.setVisible(visible)
        form = self.layout()
        if isinstance(form, QFormLayout):
            label = form.labelForField(row)
            if label is not None:
                label.setVisible(visible)

    def _emit(self, *_args: Any) -> None:
        if self._quiet:
            return
        self.validate()
        self.changed.emit(self.values())
