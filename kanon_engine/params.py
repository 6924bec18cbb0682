"""Parameter specs: one :class:`ParamSpec` per parameter of an algorithm, a privacy model or an engine
setting drives its CLI flag, its field in the workbench's forms and its validation, so a value is checked
(and a bad one told in one plain sentence, ``k must be an integer of at least 2; got 1``) in one place.

A module of its own, below :mod:`kanon_engine.config` and :mod:`kanon_engine.privacy`: the privacy models
declare their specs, and the run configuration holds the models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from kanon_engine.errors import ConfigError, shown_value
from kanon_engine.i18n import N_, _, formats, text_of

#: The sentence for a number out of its range, by (an integer?, the lowest value's word, the highest
#: value's word): "least" (the lowest value allowed), "above" (only values above it: a risk above 0),
#: "most", "below", or None (no bound). Plain words, not ">=": the people who read them are no programmers.
_RANGE_SENTENCES: dict[tuple[bool, str | None, str | None], str] = {
    (True, "least", "most"): N_("{name} must be an integer from {low} to {high}; got {value}."),
    (True, "least", None): N_("{name} must be an integer of at least {low}; got {value}."),
    (True, None, "most"): N_("{name} must be an integer of at most {high}; got {value}."),
    (True, None, None): N_("{name} must be an integer; got {value}."),
    (False, "least", "most"): N_("{name} must be a number from {low} to {high}; got {value}."),
    (False, "least", "below"): N_("{name} must be a number of at least {low} and below {high}; got {value}."),
    (False, "above", "most"): N_("{name} must be a number above {low} and at most {high}; got {value}."),
    (False, "above", "below"): N_("{name} must be a number above {low} and below {high}; got {value}."),
    (False, "least", None): N_("{name} must be a number of at least {low}; got {value}."),
    (False, "above", None): N_("{name} must be a number above {low}; got {value}."),
    (False, None, "most"): N_("{name} must be a number of at most {high}; got {value}."),
    (False, None, "below"): N_("{name} must be a number below {high}; got {value}."),
    (False, None, None): N_("{name} must be a number; got {value}."),
}
#: ... and for a share read as a percentage (from 0 to 1), by whether 0 itself is refused.
_SHARE_SENTENCES: dict[bool, str] = {
    False: N_("{name} must be a share from 0 % to 100 % (such as 5 %, 5% or 0.05); got {value}."),
    True: N_("{name} must be a share above 0 % and at most 100 % (such as 5 %, 5% or 0.05); got {value}."),
}


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: its name, type, default, range and a one-sentence help text."""

    name: str
    label: str
    #: "int", "float", "choice", "bool", "text", "columns" (quasi-identifiers, comma-separated), "column"
    #: (any column of the table: the workbench offers them in a list)
    kind: str
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    #: the minimum itself is refused: only values above it (a risk above 0: its model cannot hold a risk
    #: of 0); numbers only, the range's words say "above"
    above: bool = False
    #: the maximum itself is refused: only values below it (the delta of differential privacy)
    below: bool = False
    choices: tuple[str, ...] = ()
    presets: tuple[Any, ...] = ()
    #: plain words for each choice, in the order of ``choices`` (the GUI shows these, the CLI the codes)
    choice_labels: tuple[str, ...] = ()
    #: a share from 0 to 1 that people read and type as a percentage ("5 %", "5%", "0.05", "0,05")
    percent: bool = False
    #: the word ``none`` (or ``off``) leaves the setting out although it has a default (k-anonymity, when
    #: another model bounds re-identification by itself)
    optional: bool = False
    #: plain words for each preset, in the order of ``presets`` (a catalog id each; the value is shown
    #: when none are given): "0.09 (clinical-trial data sharing, El Emam 2015)"
    preset_labels: tuple[str, ...] = ()
    #: a choice's refusal of a value handed to a model directly (a catalog id with ``{choices}`` and
    #: ``{value}``): "The k-map estimator must be one of {choices}; got '{value}'."
    refusal: str = ""

    def __post_init__(self) -> None:
        # an exclusive bound is a number's (an integer above 0 is one of at least 1) and a share's (a
        # percentage) only at 0: the sentences (_RANGE_SENTENCES, _SHARE_SENTENCES) have no other wording
        if (self.above or self.below) and (self.kind != "float" or (self.percent and self.below)):
            raise ValueError(f"{self.name}: an exclusive bound needs a number (a share: above 0 only)")

    def refuse_unknown(self, value: Any) -> None:
        """A ConfigError in the words of ``refusal``, naming the flag, unless ``value`` is one of
        ``choices``: the check a model's constructor makes of a choice handed to it directly (a project
        file, code), which the form's :meth:`coerce` never saw."""
        if value not in self.choices:
            text = _(self.refusal, choices=", ".join(self.choices), value=value)
            raise ConfigError(text, where=self.name.replace("_", "-"))

    def choice_label(self, choice: str) -> str:
        """The plain words for one of ``choices`` in the current language (the code itself when none
        are given)."""
        if choice in self.choices and len(self.choice_labels) == len(self.choices):
            return _(self.choice_labels[self.choices.index(choice)])
        return str(choice)

    def preset_label(self, value: Any) -> str:
        """A preset as the presets menu shows it: its plain words when given, else the value."""
        if value in self.presets and len(self.preset_labels) == len(self.presets):
            return _(self.preset_labels[self.presets.index(value)])
        return self.show(value)

    @property
    def shown_label(self) -> str:
        """The label in the current language (``label`` is the catalog's English id)."""
        return _(self.label)

    @property
    def shown_help(self) -> str:
        """The help sentence in the current language."""
        return _(self.help) if self.help else ""

    def show(self, value: Any) -> str:
        """A value as a person reads it: a percentage for shares, the plain words of a choice."""
        if value is None:
            return ""
        if self.percent:
            return format_percent(float(value))
        if self.kind == "choice":
            return self.choice_label(str(value))
        if isinstance(value, float):
            return formats.decimal(value, 6)
        return str(value)

    def coerce(self, value: Any) -> Any:
        """Convert and check a value; a ConfigError that names the parameter and the value otherwise.

        Numbers may use a decimal comma (``0,05``); a share (``percent``) may also be written as a
        percentage (``5%``, ``5 %``).
        """
        if value is None:
            return self.default
        if self.optional and isinstance(value, str) and value.strip().lower() in ("none", "off"):
            return None
        try:
            if self.kind == "int":
                f = parse_number(value)
                if not f.is_integer():
                    raise ValueError
                value = int(f)
            elif self.kind == "float":
                value = parse_fraction(value) if self.percent else parse_number(value)
            elif self.kind == "bool":
                value = value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes", "on")
            elif self.kind == "choice":
                value = str(value)
                if value not in self.choices:
                    raise ValueError
            elif self.kind in ("text", "column"):
                value = str(value).strip() or self.default
            elif self.kind == "columns":
                items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
                names = [v.strip() for v in items if str(v).strip()]
                return ",".join(names) if names else self.default
        except (TypeError, ValueError):
            raise ConfigError(self._expectation(value), where=self.name) from None
        if value is not None and self.kind in ("int", "float") and not self.within(value):
            raise ConfigError(self._expectation(value), where=self.name)
        return value

    def within(self, value: float) -> bool:
        """Whether a number lies in the range (NaN never does)."""
        low_ok = self.minimum is None or (value > self.minimum if self.above else value >= self.minimum)
        high_ok = self.maximum is None or (value < self.maximum if self.below else value <= self.maximum)
        return bool(low_ok and high_ok and value == value)

    def number_in_range(self, value: Any, finite: bool = False) -> float:
        """``value`` (a number handed to a model directly: a project file, code) as a float in the range,
        or a ConfigError in the very sentence :meth:`coerce` gives the form and the CLI (``where``: the
        name). The models' own check, so a model never refuses what its field says it takes, nor takes
        what the field refuses; ``finite`` refuses infinity too."""
        try:
            v = float(value)
        except (TypeError, ValueError):
            v = math.nan
        if isinstance(value, bool) or not self.within(v) or (finite and not math.isfinite(v)):
            raise ConfigError(self._expectation(value), where=self.name)
        return v

    def range_ends(self) -> tuple[str | None, str | None]:
        """How the range's ends are said: "least" or "above" (the minimum refused), "most" or "below",
        None for no bound; the keys of the refusal's sentence and of the CLI help's range words alike."""
        low = None if self.minimum is None else "above" if self.above else "least"
        high = None if self.maximum is None else "below" if self.below else "most"
        return low, high

    def _expectation(self, value: Any) -> str:
        # (named by its label, as the form shows it: the flag or field says where; never the internal name)
        got = shown_value(value)
        if self.percent:
            return text_of(_SHARE_SENTENCES, self.above, name=self.shown_label, value=got)
        if self.kind == "choice":
            return _(
                "{name} must be one of {choices}; got {value}.",
                name=self.shown_label,
                choices=", ".join(self.choices),
                value=got,
            )
        if self.kind == "columns":
            return _(
                "{name} must be column names separated by commas; got {value}.",
                name=self.shown_label,
                value=got,
            )
        low = None if self.minimum is None else formats.decimal(self.minimum, 6)
        high = None if self.maximum is None else formats.decimal(self.maximum, 6)
        key = (self.kind == "int", *self.range_ends())
        return text_of(_RANGE_SENTENCES, key, name=self.shown_label, low=low, high=high, value=got)


def share_spec(
    name: str,
    label: str,
    help: str,
    presets: tuple[float, ...],
    default: float | None = None,
    percent: bool = False,
    above: bool = False,
    below: bool = False,
) -> ParamSpec:
    """A share from 0 to 1 (a risk, a significance level; read and typed as a percentage when
    ``percent``), left out by default; ``above``: 0 itself refused, ``below``: 1 itself refused."""
    return ParamSpec(
        name,
        label,
        "float",
        default,
        help,
        minimum=0.0,
        maximum=1.0,
        above=above,
        below=below,
        presets=presets,
        percent=percent,
    )


def choice_spec(
    name: str, label: str, default: str | None, help: str, words: dict[str, str], refusal: str = ""
) -> ParamSpec:
    """A choice among the codes of ``words``, each beside its plain words (a catalog id): the codes and
    their words declared in one table, in the order the form lists them."""
    labels = tuple(words.values())
    return ParamSpec(
        name, label, "choice", default, help, choices=tuple(words), choice_labels=labels, refusal=refusal
    )


def parse_number(value: Any) -> float:
    """A number from a float or from text with a decimal point or comma (``0.05``, ``0,05``), and
    the current language's thousands separator (``2.000`` in German); see
    :func:`kanon_engine.i18n.formats.parse_number`."""
    return formats.parse_number(value)


def parse_fraction(value: Any) -> float:
    """A share from ``0.05``, ``0,05``, ``5%`` or ``5 %`` (a percentage is divided by 100)."""
    return formats.parse_share(value)


def format_percent(share: float) -> str:
    """``0.05`` -> ``5 %``, ``0.125`` -> ``12.5 %`` (``12,5 %`` in German): a share as people read it."""
    pct = round(100.0 * float(share), 6)
    digits = 0 if float(pct).is_integer() else len(f"{pct:g}".partition(".")[2])
    return formats.percent(share, min(digits, 6))


def blank_to_none(value: Any) -> Any:
    """An empty form field (blank text, NaN) is no value at all."""
    if isinstance(value, str) and value.strip() == "":
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
