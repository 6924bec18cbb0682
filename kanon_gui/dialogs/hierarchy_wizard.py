"""The hierarchy builder wizard: intervals, dates, masking or grouping (the engine's builders), with a
live preview of the levels before the hierarchy is assigned.

The builders are ARX's builder kinds (Prasser & Kohlmayer 2015) and Sweeney's DGHs (Sweeney 2002); this
dialog only collects their parameters, calls them on the column's distinct values, and shows the result
or the builder's own message.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kanon_engine.data.roles import looks_like_codes
from kanon_engine.data.table import ColumnKind
from kanon_engine.data.types import date_format_from_words, describe_date_format, parse_numbers
from kanon_engine.errors import KanonError
from kanon_engine.hierarchy import (
    date_hierarchy,
    grouping_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    masking_misfits,
    suggest_widths,
)
from kanon_engine.hierarchy.builders import DATE_LEVELS, DATE_STYLES, INTERVAL_LABELS
from kanon_engine.hierarchy.labels import shown_label
from kanon_engine.hierarchy.model import MISSING, Hierarchy
from kanon_engine.i18n import N_, _, formats, ngettext, pgettext, text_of
from kanon_gui.errors import error_text
from kanon_gui.state import AppState

KINDS = (
    (
        "intervals",
        N_("Intervals (numbers)"),
        N_("Numbers become nested ranges: 37 \u2192 35-39 \u2192 30-39 \u2192 *."),
    ),
    ("dates", N_("Dates"), N_("Dates become month, year, decade: 1965-09-20 → 1965-09 → 1965 → *.")),
    (
        "masking",
        N_("Masking (codes)"),
        N_("Codes lose one character per level from the right: 02138 → 0213* → 021** → *."),
    ),
    (
        "grouping",
        N_("Grouping (categories)"),
        N_("You name the group of each value, level by level: Bachelors → Higher education → *."),
    ),
)
#: The date levels in words (the builder's codes are DATE_LEVELS).
DATE_LEVEL_WORDS = {
    "day": N_("day"),
    "month": N_("month"),
    "quarter": N_("quarter"),
    "year": N_("year"),
    "decade": N_("decade"),
    "century": N_("century"),
}
PREVIEW_ROWS = 200
#: Share of the records whose values are codes of one shape for the wizard to start on masking.
CODE_SHARE = 0.9
GROUPING_MAX_VALUES = 2000


def date_style_words(style: str) -> str:
    """A date label style in words, with a month and a quarter written that way (the first of the
    levels' examples: March and the first quarter of the present year)."""
    import datetime as dt

    year = dt.date.today().year
    if style == "iso":
        return text_of(TEXT, "date_style_iso", month=f"{year}-03", quarter=f"{year}-Q1")
    return text_of(
        TEXT,
        "date_style_language",
        month=formats.month_number_year(year, 3),
        quarter=formats.quarter_year(year, 1),
    )


def _widths(text: str) -> list[float]:
    """Interval widths typed as ``5, 10, 20`` or ``2,5; 5; 10`` (semicolons where the decimal mark is a
    comma), each read in the current language's number format."""
    parts = text.split(";") if ";" in text else text.split(",")
    return [formats.parse_number(w) for w in parts if w.strip()]


def _number(text: str) -> float | None:
    text = text.strip()
    if not text:
        return None
    return formats.parse_number(text)


#: The interval and date pages' words (whole phrases with named placeholders, one place).
TEXT = {
    "range": N_("The column has values from {low} to {high}."),
    "no_numbers": N_("The column has no numeric values."),
    "label_tip": N_("How the intervals are written in the release; the preview below shows every label."),
    "label_inclusive": N_("{example}: first and last value, both included"),
    "label_half_open": N_("{example}: the upper bound is not included"),
    "label_words": "{example}",
    "date_detect": N_("detected from the values"),
    "summary": N_("{values} values, generalized in {height} levels; distinct labels per level: {levels}."),
    "summary_cut": N_(
        "{values} values, generalized in {height} levels; distinct labels per level: {levels}. The preview "
        "shows the first {rows}."
    ),
    "date_style_language": N_("As the interface's language writes them: {month}, {quarter}"),
    "date_style_iso": N_("ISO 8601, the same in every language: {month}, {quarter}"),
    "date_help": N_("Dates become month, year, decade: {day} → {month} → {year} → *."),
    "date_style_tip": N_(
        "How months and quarters are written in the release. The charts show the original in the same words."
    ),
    "date_tip": N_(
        "How the dates are written, for example dd.mm.yyyy or yyyy-mm-dd (yyyy: year, mm: month, dd: day); "
        "leave it empty to detect it from the values."
    ),
}

#: The grouping page's words (whole sentences, one place).
GROUPING_HINT = N_(
    "Type the group of each value at each level: values with the same group name are put together."
)
GROUPING_PREFILLED = N_("The cells show the column's current hierarchy; change them as you like.")
GROUPING_PROMPT = N_("Type a group name for the values you want to put together; the preview appears here.")


def masking_note(values: pd.Series) -> str:
    """What masking leaves out, in one sentence: the values that are not codes of the column's shape
    (a word such as "inconnu", a code of another length) and how many records hold them; they are
    shown as * from level 1 (an empty string when every value is such a code)."""
    shape, others, records = masking_misfits(values)
    if not others:
        return ""
    if set(shape) == {"9"}:
        kind = ngettext("codes of {n} digit", "codes of {n} digits", len(shape))
    else:
        kind = _("codes written like {shape} (9: a digit, A: a letter)", shape=shape)
    shown = formats.join([f"'{v}'" for v in others[:3]] + (["…"] if len(others) > 3 else []))
    return ngettext(
        "{n} record holds a value that is not like the others ({kind}): {values}. It is shown as * from "
        "level 1, never masked into a code that does not exist.",
        "{n} records hold values that are not like the others ({kind}): {values}. They are shown as * "
        "from level 1, never masked into codes that do not exist.",
        records,
        kind=kind,
        values=shown,
    )


class HierarchyWizardDialog(QDialog):
    """Build a hierarchy for one column; :meth:`hierarchy` is the result once accepted."""

    def __init__(self, state: AppState, column: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HierarchyWizardDialog")
        self.setWindowTitle(_("Build the hierarchy of '{column}'", column=column))
        self.resize(820, 600)
        self.state = state
        self.column = column
        self.values = state.distinct_values(column)
        table = state.table
        ct = table.column_types.get(column) if table is not None else None
        self.kind_of_column = ct.kind if ct is not None else ColumnKind.CATEGORICAL
        self.date_format = ct.date_format if ct is not None else None
        self._result: Hierarchy | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)
        self._timer.timeout.connect(self.update_preview)

        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(QLabel(_("Kind:")))
        self.kind = QComboBox()
        for key, label, tip in KINDS:
            self.kind.addItem(_(label), key)
            self.kind.setItemData(self.kind.count() - 1, _(tip), Qt.ItemDataRole.ToolTipRole)
        top.addWidget(self.kind, 1)
        layout.addLayout(top)
        self.kind_help = QLabel()
        self.kind_help.setWordWrap(True)
        layout.addWidget(self.kind_help)

        self.pages = QStackedWidget()
        self.pages.addWidget(self._interval_page())
        self.pages.addWidget(self._date_page())
        self.pages.addWidget(self._masking_page())
        self.pages.addWidget(self._grouping_page())
        layout.addWidget(self.pages)

        self.summary = QLabel()
        self.summary.setObjectName("WizardSummary")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.preview = QTableWidget()
        self.preview.setObjectName("WizardPreview")
        self.preview.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.preview.verticalHeader().setVisible(False)
        layout.addWidget(self.preview, 1)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(_("Use this hierarchy"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)

        self.kind.currentIndexChanged.connect(self._kind_changed)
        default = {ColumnKind.INTEGER: 0, ColumnKind.DECIMAL: 0, ColumnKind.DATE: 1}.get(
            self.kind_of_column, 3
        )
        if self.kind_of_column != ColumnKind.DATE and self._looks_like_code():
            default = 2  # a postcode starts on masking, whether it was read as text or as numbers
        self.kind.setCurrentIndex(default)
        self._kind_changed()

    # --- pages ---------------------------------------------------------------------------------------
    def _interval_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        x = parse_numbers(self.values.dropna())  # "12,5" too
        x = x[np.isfinite(x)]
        integer = bool(len(x)) and bool((x == np.round(x)).all())
        widths = suggest_widths(x.min(), x.max(), integer=integer) if len(x) else (5, 10, 20)
        sep = "; " if formats.decimal_separator() == "," else ", "  # 2,5 is a number in German
        self.widths = QLineEdit(sep.join(formats.decimal(w, 6) for w in widths))
        self.widths.setToolTip(_("Interval widths, one per level, each a multiple of the previous one."))
        self.bottom = QLineEdit()
        self.bottom.setPlaceholderText(_("none"))
        self.bottom.setToolTip(_("Values below this become '<bottom' at every level (bottom-coding)."))
        self.top = QLineEdit()
        self.top.setPlaceholderText(_("none"))
        self.top.setToolTip(
            _(
                "Values at or above this become '>=top' at every level (top-coding rare extreme values, "
                "such as ages over 90)."
            )
        )
        self._integer = integer
        self._first = float(x.min()) if len(x) else 0.0
        self.label_style = QComboBox()
        self.label_style.setObjectName("IntervalLabelStyle")
        self.label_style.setToolTip(text_of(TEXT, "label_tip"))
        for key, template, whole_only in INTERVAL_LABELS:
            if integer or not whole_only:
                # the words style is written in the interface's language ("35 bis unter 40")
                self.label_style.addItem("", (key, _(template) if key == "words" else template))
        self._describe_label_styles()
        if len(x):
            text = text_of(
                TEXT, "range", low=formats.decimal(float(x.min()), 6), high=formats.decimal(float(x.max()), 6)
            )
        else:
            text = text_of(TEXT, "no_numbers")
        form.addRow(QLabel(text))
        form.addRow(_("Widths"), self.widths)
        form.addRow(_("Bottom code"), self.bottom)
        form.addRow(_("Top code"), self.top)
        form.addRow(_("Intervals written as"), self.label_style)
        for w in (self.widths, self.bottom, self.top):
            w.textChanged.connect(self._schedule)
        self.label_style.currentIndexChanged.connect(self._schedule)
        return page

    def _describe_label_styles(self) -> None:
        """Each label style in words, with the column's first interval written that way (35-39, [35-40),
        35 to under 40): no template codes on screen."""
        try:
            width = _widths(self.widths.text())[0]
            origin = _number(self.bottom.text()) or 0.0
        except (ValueError, IndexError):
            width, origin = 0.0, 0.0
        if width <= 0:
            width = 10.0
        lo = origin + math.floor((self._first - origin) / width + 1e-9) * width
        words = {"lo": f"{lo:g}", "hi": f"{lo + width:g}", "last": f"{lo + width - 1:g}"}
        for i in range(self.label_style.count()):
            key, template = self.label_style.itemData(i)
            self.label_style.setItemText(i, text_of(TEXT, f"label_{key}", example=template.format(**words)))

    def label_template(self) -> str:
        """The engine's label template of the chosen style."""
        data = self.label_style.currentData()
        return data[1] if data else INTERVAL_LABELS[1][1]

    def set_label_style(self, key: str) -> None:
        for i in range(self.label_style.count()):
            if self.label_style.itemData(i)[0] == key:
                self.label_style.setCurrentIndex(i)

    def _date_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.date_fmt = QLineEdit(describe_date_format(self.date_format) if self.date_format else "")
        self.date_fmt.setPlaceholderText(text_of(TEXT, "date_detect"))
        self.date_fmt.setToolTip(text_of(TEXT, "date_tip"))
        form.addRow(_("Dates are written as"), self.date_fmt)
        row = QHBoxLayout()
        self.date_levels: dict[str, QCheckBox] = {}
        for lv in DATE_LEVELS:
            box = QCheckBox(_(DATE_LEVEL_WORDS[lv]))
            box.setChecked(lv in ("month", "year", "decade"))
            box.toggled.connect(self._schedule)
            self.date_levels[lv] = box
            row.addWidget(box)
        row.addStretch(1)
        holder = QWidget()
        holder.setLayout(row)
        form.addRow(_("Levels"), holder)
        self.date_style = QComboBox()
        self.date_style.setObjectName("DateLabelStyle")
        for style in DATE_STYLES:
            self.date_style.addItem(date_style_words(style), style)
        self.date_style.setCurrentIndex(self.date_style.findData("language"))  # the user's way first
        self.date_style.setToolTip(text_of(TEXT, "date_style_tip"))
        self.date_style.currentIndexChanged.connect(self._schedule)
        self.date_style.currentIndexChanged.connect(lambda *_a: self.kind_help.setText(self._kind_help()))
        form.addRow(_("Labels"), self.date_style)
        self.date_fmt.textChanged.connect(self._schedule)
        return page

    def _masking_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.max_masked = QSpinBox()
        self.max_masked.setRange(0, 64)
        self.max_masked.setSpecialValueText(pgettext("characters masked at most", "all"))
        self.max_masked.setToolTip(_("How many characters may be masked before the root (all: every one)."))
        self.max_masked.valueChanged.connect(self._schedule)
        form.addRow(_("Characters masked at most"), self.max_masked)
        return page

    def _grouping_page(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        row = QHBoxLayout()
        row.addWidget(QLabel(_("Levels between the values and the root:")))
        self.group_levels = QSpinBox()
        self.group_levels.setRange(1, 6)
        self.group_levels.setValue(1)
        self.group_levels.valueChanged.connect(self._grouping_columns)
        row.addWidget(self.group_levels)
        row.addStretch(1)
        box.addLayout(row)
        hint = QLabel(_(GROUPING_HINT))
        hint.setWordWrap(True)
        box.addWidget(hint)
        self.grouping = QTableWidget()
        self.grouping.setObjectName("GroupingTable")
        self.grouping.verticalHeader().setVisible(False)
        box.addWidget(self.grouping, 1)
        present = [v for v in self.values if not (isinstance(v, float) and math.isnan(v))]
        self._group_values = [str(v) for v in present][:GROUPING_MAX_VALUES]
        if self.values.isna().any():
            self._group_values.append(MISSING)
        current = self.state.hierarchy(self.column)
        self._prefill: dict[str, list[str]] = {}
        if current is not None and current.height >= 2 and self.state.has_explicit_hierarchy(self.column):
            self.group_levels.setValue(min(6, current.height - 1))
            for row_ in current.rows():
                self._prefill[row_[0]] = row_[1:-1]
        if any(any(groups) for groups in self._prefill.values()):
            hint.setText(_(GROUPING_HINT) + " " + _(GROUPING_PREFILLED))
        self._grouping_columns()
        self.grouping.itemChanged.connect(self._schedule)
        return page

    def _grouping_columns(self) -> None:
        n = self.group_levels.value()
        self.grouping.blockSignals(True)
        self.grouping.setColumnCount(n + 1)
        self.grouping.setHorizontalHeaderLabels(
            [_("Value")] + [_("Level {level}", level=j) for j in range(1, n + 1)]
        )
        self.grouping.setRowCount(len(self._group_values))
        for r, v in enumerate(self._group_values):
            item = QTableWidgetItem(shown_label(v))
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            item.setData(Qt.ItemDataRole.UserRole, v)
            self.grouping.setItem(r, 0, item)
            pre = self._prefill.get(v, [])
            for j in range(1, n + 1):
                if self.grouping.item(r, j) is None:
                    self.grouping.setItem(r, j, QTableWidgetItem(pre[j - 1] if j - 1 < len(pre) else ""))
        self.grouping.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.grouping.blockSignals(False)
        self._schedule()

    def set_group(self, value: str, level: int, group: str) -> None:
        """Type a group name (for tests): the group of ``value`` at ``level``."""
        r = self._group_values.index(value)
        self.grouping.item(r, level).setText(group)

    # --- building ------------------------------------------------------------------------------------
    def _looks_like_code(self) -> bool:
        """A postcode or a code like one: named like one (the role suggestion), or its values mostly
        codes of 4-5 digits with a leading zero (:func:`kanon_engine.data.roles.looks_like_codes`, the
        test the role suggestion makes), or mostly digit strings of one length, of 5 digits or more or
        with a leading zero (the default hierarchy's test; 3 digits or more in a text column). "Mostly":
        a few words such as "unbekannt" or blanks do not hide the codes."""
        suggestion = self.state.suggestion(self.column)
        if suggestion is not None and suggestion.kind == "postcode":
            return True
        counts = self.state.distinct(self.column)
        counts = counts[counts.index.notna()]
        if looks_like_codes(counts):
            return True
        if not len(counts):
            return False
        text = pd.Series(counts.index.astype(str), dtype=object).str.strip()
        filled = (text != "").to_numpy()  # blank cells are no value, not a different shape
        text, counts = text[filled].reset_index(drop=True), counts[filled]
        digits = text.str.fullmatch(r"\d{2,}").to_numpy(dtype=bool)
        if not digits.any():
            return False
        weights = counts.to_numpy(dtype=float)
        lengths = text.str.len().to_numpy()
        common = int(np.bincount(lengths[digits], weights=weights[digits]).argmax())
        shape = digits & (lengths == common)
        if weights[shape].sum() < CODE_SHARE * weights.sum():
            return False
        text_column = self.kind_of_column == ColumnKind.CATEGORICAL and common >= 3
        return common >= 5 or text_column or bool(text[shape].str.startswith("0").any())

    def _kind_changed(self, *_args: Any) -> None:
        i = self.kind.currentIndex()
        self.pages.setCurrentIndex(i)
        # the stack as tall as the page shown (the grouping page's table made the date page's few
        # fields sit above a blank half dialog), the preview takes the rest
        for j in range(self.pages.count()):
            page = self.pages.widget(j)
            vertical = QSizePolicy.Policy.Preferred if j == i else QSizePolicy.Policy.Ignored
            page.setSizePolicy(QSizePolicy.Policy.Preferred, vertical)
        self.pages.setSizePolicy(
            QSizePolicy.Policy.Preferred,
            QSizePolicy.Policy.Expanding if self.kind_key() == "grouping" else QSizePolicy.Policy.Maximum,
        )
        self.pages.adjustSize()
        self.kind_help.setText(self._kind_help())
        self.update_preview()

    def _kind_help(self) -> str:
        """What the chosen kind does, with an example; for dates, written in the chosen label style."""
        if self.kind_key() != "dates":
            return _(KINDS[self.kind.currentIndex()][2])
        import datetime as dt

        day = dt.date(1965, 9, 20)
        iso = self.date_style.currentData() == "iso"
        return text_of(
            TEXT,
            "date_help",
            day=formats.date(day),
            month="1965-09" if iso else formats.month_number_year(1965, 9),
            year="1965",
        )

    def kind_key(self) -> str:
        return KINDS[self.kind.currentIndex()][0]

    def kind_label(self) -> str:
        return _(KINDS[self.kind.currentIndex()][1])

    def set_kind(self, key: str) -> None:
        self.kind.setCurrentIndex([k for k, _unused, _unused in KINDS].index(key))

    def _schedule(self, *_args: Any) -> None:
        self._timer.start()

    def build(self) -> Hierarchy:
        """Call the engine builder with the current parameters (raises its KanonError as is)."""
        from kanon_engine.errors import ConfigError

        key = self.kind_key()
        col, vals = self.column, self.values
        if key == "intervals":
            try:
                widths = _widths(self.widths.text())
                bottom, top = _number(self.bottom.text()), _number(self.top.text())
            except ValueError:
                raise ConfigError(
                    _("Widths, bottom and top must be numbers (widths separated by commas or semicolons)."),
                    where="widths",
                ) from None
            widths = [int(w) if w.is_integer() else w for w in widths]
            self._describe_label_styles()
            return interval_hierarchy(col, vals, widths, bottom=bottom, top=top, label=self.label_template())
        if key == "dates":
            levels = [lv for lv in DATE_LEVELS if self.date_levels[lv].isChecked()]
            typed = self.date_fmt.text().strip()
            fmt = date_format_from_words(typed) if typed else None
            return date_hierarchy(col, vals, fmt, levels, style=self.date_style.currentData())
        if key == "masking":
            m = self.max_masked.value()
            return masking_hierarchy(col, vals, None if m == 0 else m)
        return grouping_hierarchy(col, vals, self._mappings())

    def _mappings(self) -> list[dict[str, str]]:
        from kanon_engine.errors import HierarchyError

        n = self.group_levels.value()
        maps: list[dict[str, str]] = [{} for _unused in range(n)]
        for r, v in enumerate(self._group_values):
            prev = v
            for j in range(1, n + 1):
                item = self.grouping.item(r, j)
                g = item.text().strip() if item is not None else ""
                if not g:
                    break
                if j > 1 and maps[j - 1].get(prev, g) != g:
                    raise HierarchyError(
                        _(
                            "The group '{group}' of level {below} is put in two groups of level {level}: "
                            "'{first}' and '{second}'.",
                            group=prev,
                            below=str(j - 1),
                            level=str(j),
                            first=maps[j - 1][prev],
                            second=g,
                        ),
                        hint=_("A group has one parent: use the same name on every row."),
                    )
                maps[j - 1][prev] = g
                prev = g
        return maps

    def _nothing_typed(self) -> bool:
        """The grouping table is still empty: a prompt, not an error, until the user types a group."""
        if self.kind_key() != "grouping":
            return False
        for r in range(self.grouping.rowCount()):
            for j in range(1, self.grouping.columnCount()):
                item = self.grouping.item(r, j)
                if item is not None and item.text().strip():
                    return False
        return True

    def update_preview(self) -> None:
        if self._nothing_typed():
            self._result = None
            self.summary.setText(_(GROUPING_PROMPT))
            self.preview.setRowCount(0)
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return
        try:
            h = self.build()
        except KanonError as exc:
            self._result = None
            self.summary.setText(f"<span style='color:#c0392b'>{error_text(exc)}</span>")
            self.preview.setRowCount(0)
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return
        self._result = h
        levels = " \u2192 ".join(formats.count(h.distinct_at(j)) for j in range(h.depth))
        key = "summary_cut" if len(h.values) > PREVIEW_ROWS else "summary"
        self.summary.setText(
            text_of(TEXT, key, values=len(h.values), height=str(h.height), levels=levels, rows=PREVIEW_ROWS)
        )
        if self.kind_key() == "masking":
            frame = getattr(self.state.table, "frame", None)  # every record, to count them (not a preview)
            rows = frame[self.column] if frame is not None and self.column in frame.columns else self.values
            note = masking_note(rows)
            if note:
                self.summary.setText(f"{escape(self.summary.text())}<br><b>{escape(note)}</b>")
        rows = h.matrix[:PREVIEW_ROWS]
        self.preview.setColumnCount(h.depth)
        self.preview.setHorizontalHeaderLabels(
            [_("Value")] + [_("Level {level}", level=j) for j in range(1, h.depth)]
        )
        self.preview.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for j, v in enumerate(row):
                self.preview.setItem(r, j, QTableWidgetItem(shown_label(v)))
        self.preview.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)

    def accept(self) -> None:
        if self.hierarchy() is not None:
            super().accept()

    def hierarchy(self) -> Hierarchy | None:
        """The built hierarchy (None while the parameters give an error)."""
        if self._timer.isActive():
            self._timer.stop()
            self.update_preview()
        return self._result
