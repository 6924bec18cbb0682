"""What to do: roles, hierarchies and privacy models of a run, and the parameter specs that drive the
CLI flags and the GUI's forms (one spec per parameter, so validation and messages live in one place)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table, require_mark_free, require_values
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.i18n import N_, _, formats
from kanon_engine.privacy.models import KAnonymity, PrivacyModel

if TYPE_CHECKING:
    from kanon_engine.workload.query import Workload


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: its name, type, default, range and a one-sentence help text."""

    name: str
    label: str
    kind: str  # "int", "float", "choice", "bool", "text", "columns" (column names, comma-separated)
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    presets: tuple[Any, ...] = ()
    #: plain words for each choice, in the order of ``choices`` (the GUI shows these, the CLI the codes)
    choice_labels: tuple[str, ...] = ()
    #: a share from 0 to 1 that people read and type as a percentage ("5 %", "5%", "0.05", "0,05")
    percent: bool = False

    def choice_label(self, choice: str) -> str:
        """The plain words for one of ``choices`` in the current language (the code itself when none
        are given)."""
        if choice in self.choices and len(self.choice_labels) == len(self.choices):
            return _(self.choice_labels[self.choices.index(choice)])
        return str(choice)

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
            elif self.kind == "text":
                value = str(value).strip() or self.default
            elif self.kind == "columns":
                items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
                names = [v.strip() for v in items if str(v).strip()]
                return ",".join(names) if names else self.default
        except (TypeError, ValueError):
            raise ConfigError(self._expectation(value), where=self.name) from None
        if value is not None and (
            self.minimum is not None
            and value < self.minimum
            or self.maximum is not None
            and value > self.maximum
        ):
            raise ConfigError(self._expectation(value), where=self.name)
        return value

    def _expectation(self, value: Any) -> str:
        got = repr(value)
        if self.percent:
            return _(
                "{name} must be a share from 0 % to 100 % (such as 5 %, 5% or 0.05); got {value}.",
                name=self.name,
                value=got,
            )
        if self.kind == "choice":
            return _(
                "{name} must be one of {choices}; got {value}.",
                name=self.name,
                choices=", ".join(self.choices),
                value=got,
            )
        if self.kind == "columns":
            return _(
                "{name} must be column names separated by commas; got {value}.", name=self.name, value=got
            )
        low = None if self.minimum is None else formats.decimal(self.minimum, 6)
        high = None if self.maximum is None else formats.decimal(self.maximum, 6)
        if self.kind == "int":
            if low is not None and high is not None:
                text = _("{name} must be an integer >= {low} and <= {high}; got {value}.")
            elif low is not None:
                text = _("{name} must be an integer >= {low}; got {value}.")
            elif high is not None:
                text = _("{name} must be an integer <= {high}; got {value}.")
            else:
                text = _("{name} must be an integer; got {value}.")
        elif low is not None and high is not None:
            text = _("{name} must be a number >= {low} and <= {high}; got {value}.")
        elif low is not None:
            text = _("{name} must be a number >= {low}; got {value}.")
        elif high is not None:
            text = _("{name} must be a number <= {high}; got {value}.")
        else:
            text = _("{name} must be a number; got {value}.")
        return text.format(name=self.name, low=low, high=high, value=got)


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


@dataclass(frozen=True)
class AnonymizationConfig:
    """Roles, hierarchies and privacy models of one run (what the project file holds besides the data).

    Columns with no role are insensitive (kept as they are). Identifiers never reach a release.
    """

    quasi_identifiers: tuple[str, ...]
    hierarchies: Mapping[str, Hierarchy]
    models: tuple[PrivacyModel, ...]
    sensitive: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    drop_suppressed: bool = False
    shuffle_seed: int | None = None
    sensitive_hierarchies: Mapping[str, Hierarchy] = field(default_factory=dict)
    #: The analyses the release is meant for (:mod:`kanon_engine.workload`): evaluated after a run, and
    #: read by workload-aware Mondrian. None: no workload given.
    workload: Workload | None = None
    #: Datafly's step 4 (Sweeney; the seed slides): suppressed records kept in the release form one group
    #: (every quasi-identifier ``*``) that must hold 0 or at least k records. Moot when they are dropped.
    protect_suppressed_group: bool = True
    #: What a suppressed cell shows in the release ('*' unless the data holds '*' as a value: then the
    #: user chooses another mark, ``--suppression-mark``; a mark that is a value of a quasi-identifier
    #: is refused, so a release never says two things with one text).
    suppression_mark: str = "*"

    def __post_init__(self) -> None:
        object.__setattr__(self, "quasi_identifiers", tuple(self.quasi_identifiers))
        object.__setattr__(self, "sensitive", tuple(self.sensitive))
        object.__setattr__(self, "identifiers", tuple(self.identifiers))
        object.__setattr__(self, "models", tuple(self.models))
        object.__setattr__(self, "hierarchies", MappingProxyType(dict(self.hierarchies)))
        object.__setattr__(self, "sensitive_hierarchies", MappingProxyType(dict(self.sensitive_hierarchies)))
        roles: dict[str, str] = {}
        for role, cols in (
            ("identifier", self.identifiers),
            ("quasi-identifier", self.quasi_identifiers),
            ("sensitive", self.sensitive),
        ):
            for c in cols:
                if c in roles:
                    raise ConfigError(
                        _(
                            "The column '{column}' is marked both {role} and {other}.",
                            column=c,
                            role=role_name(roles[c]),
                            other=role_name(role),
                        ),
                        hint=_("Give every column one role."),
                        where=c,
                    )
                roles[c] = role
        if not self.quasi_identifiers:
            raise ConfigError(
                _("No quasi-identifier was chosen."),
                hint=_(
                    "Mark the columns an outsider could know (age, sex, postcode, dates) as "
                    "quasi-identifiers."
                ),
                where="roles",
            )
        if not any(isinstance(m, KAnonymity) for m in self.models):
            raise ConfigError(_("Every run needs k-anonymity (k >= 2) among its privacy models."), where="k")
        for m in self.models:
            if m.sensitive is not None and m.sensitive not in self.sensitive:
                raise ConfigError(
                    _(
                        "The {model} model protects '{column}', which is not marked sensitive.",
                        model=m.name,
                        column=m.sensitive,
                    ),
                    hint=_("Mark it as sensitive in the attributes panel (or with --sensitive)."),
                    where=m.sensitive,
                )

    @property
    def k(self) -> int:
        return max(m.k for m in self.models if isinstance(m, KAnonymity))

    @property
    def suppressed_group_k(self) -> int:
        """The least size of the group of suppressed records kept in the release (0: no rule)."""
        return self.k if self.protect_suppressed_group and not self.drop_suppressed else 0

    def role_of(self, column: str) -> Role:
        if column in self.identifiers:
            return Role.IDENTIFIER
        if column in self.quasi_identifiers:
            return Role.QUASI_IDENTIFIER
        if column in self.sensitive:
            return Role.SENSITIVE
        return Role.INSENSITIVE

    def check_columns(self, table: Table) -> None:
        """Every named column exists in the table (a DataError naming the unknown one otherwise)."""
        table.require_columns(self.identifiers, _("identifier column"))
        table.require_columns(self.quasi_identifiers, _("quasi-identifier"))
        table.require_columns(self.sensitive, _("sensitive attribute"))
        require_values(table, self.quasi_identifiers, _("quasi-identifier"))
        require_mark_free(table, self.quasi_identifiers, self.suppression_mark)

    def check_table(self, table: Table) -> None:
        """The config can run on ``table``: its columns exist and k is at most the number of records."""
        self.check_columns(table)
        require_k_fits(self.k, table.n_rows)

    def fingerprint(self) -> str:
        """SHA-256 of everything that decides a release: roles, every hierarchy's rows, the privacy
        models and the output options. Two configs with the same fingerprint give the same release;
        a result whose fingerprint differs from the project's is out of date (issue 12, item 10)."""
        import hashlib
        import json

        doc = {
            "qi": list(self.quasi_identifiers),
            "sensitive": list(self.sensitive),
            "identifiers": list(self.identifiers),
            "hierarchies": {q: _hierarchy_digest(self.hierarchies[q]) for q in sorted(self.hierarchies)},
            "sensitive_hierarchies": {
                s: _hierarchy_digest(self.sensitive_hierarchies[s])
                for s in sorted(self.sensitive_hierarchies)
            },
            "models": [m.to_dict() for m in self.models],
            "drop_suppressed": self.drop_suppressed,
            "shuffle_seed": self.shuffle_seed,
        }
        if self.suppression_mark != "*":  # (fingerprints of runs with the usual mark stay as they were)
            doc["suppression_mark"] = self.suppression_mark
        text = json.dumps(doc, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def with_changes(self, **changes: Any) -> AnonymizationConfig:
        """A new config (configs are replaced, never edited in place)."""
        data = {f: getattr(self, f) for f in self.__dataclass_fields__}
        data.update(changes)
        return AnonymizationConfig(**data)


def _hierarchy_digest(h: Hierarchy) -> str:
    """SHA-256 of a hierarchy's cells (vectorized hashing: a million values take a fraction of a second)."""
    import hashlib

    import numpy as np
    import pandas as pd

    matrix = np.asarray(h.matrix, dtype=object)
    cells = pd.util.hash_array(matrix.ravel().astype(str).astype(object), categorize=False)
    return hashlib.sha256(repr(matrix.shape).encode() + cells.tobytes()).hexdigest()


def role_name(role: str | Role) -> str:
    """A role as words of the current language (``quasi-identifier``, ``Quasi-Identifikator``)."""
    names = {
        Role.IDENTIFIER: N_("identifier"),
        Role.QUASI_IDENTIFIER: N_("quasi-identifier"),
        Role.SENSITIVE: N_("sensitive"),
        Role.INSENSITIVE: N_("insensitive"),
    }
    return _(names[Role(role)])


def require_k_fits(k: int, n_rows: int) -> None:
    """k-anonymity needs at least k records: with fewer, every record would be suppressed and the
    release would be empty. Raised before any search starts (a ConfigError naming k and the table size)."""
    if k > n_rows:
        raise ConfigError(
            _("k = {k} is larger than the table, which has {n} records.", k=k, n=n_rows),
            hint=_("Choose k of at most {n}.", n=n_rows),
            where="k",
        )


# Parameter specs of the privacy models, for the CLI and the GUI form.
MODEL_PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec(
        "k",
        "k",
        "int",
        5,
        N_("Each person must share their quasi-identifier values with at least k-1 others."),
        minimum=2,
        presets=(2, 5, 10, 20, 50),
    ),
    ParamSpec(
        "l",
        "l",
        "float",
        None,
        N_(
            "Each group must hold at least l well-represented values of the "
            "sensitive attribute (l-diversity); empty to skip."
        ),
        minimum=1.0,
        presets=(2, 3, 5),
    ),
    ParamSpec(
        "l_variant",
        N_("l-diversity variant"),
        "choice",
        "distinct",
        N_(
            "distinct: l different values; entropy: entropy at least log(l); recursive: the most frequent "
            "value is not too dominant (needs c)."
        ),
        choices=("distinct", "entropy", "recursive"),
        choice_labels=(
            N_("Distinct (at least l different values)"),
            N_("Entropy (values evenly spread)"),
            N_("Recursive (no value dominates, with c)"),
        ),
    ),
    ParamSpec(
        "c",
        N_("c (recursive l-diversity)"),
        "float",
        2.0,
        N_("The c of recursive (c,l)-diversity."),
        minimum=0.0,
    ),
    ParamSpec(
        "t",
        "t",
        "float",
        None,
        N_(
            "The sensitive values in each group must be distributed within distance t "
            "of the whole table's (t-closeness); empty to skip."
        ),
        minimum=0.0,
        maximum=1.0,
        presets=(0.1, 0.2, 0.3),
    ),
    ParamSpec(
        "t_distance",
        N_("t-closeness distance"),
        "choice",
        "equal",
        N_("equal for categories, ordered for numbers, hierarchical using the attribute's hierarchy."),
        choices=("equal", "ordered", "hierarchical"),
        choice_labels=(
            N_("Equal distance (categories)"),
            N_("Ordered distance (numbers)"),
            N_("Along the hierarchy"),
        ),
    ),
)


def build_models(
    k: int,
    sensitive: str | None = None,
    l: float | None = None,  # noqa: E741
    l_variant: str = "distinct",
    c: float = 2.0,
    t: float | None = None,
    t_distance: str = "equal",
) -> tuple[PrivacyModel, ...]:
    """Privacy models from the flat parameters of the CLI / GUI form."""
    from kanon_engine.privacy.models import (
        DistinctLDiversity,
        EntropyLDiversity,
        RecursiveCLDiversity,
        TCloseness,
    )

    models: list[PrivacyModel] = [KAnonymity(k)]
    if l is not None:
        if l_variant == "distinct":
            models.append(DistinctLDiversity(l, sensitive))
        elif l_variant == "entropy":
            models.append(EntropyLDiversity(l, sensitive))
        elif l_variant == "recursive":
            models.append(RecursiveCLDiversity(c, l, sensitive))
        else:
            raise ConfigError(
                _("l-variant must be distinct, entropy or recursive; got '{value}'.", value=l_variant),
                where="l-variant",
            )
    if t is not None:
        models.append(TCloseness(t, sensitive, t_distance))
    return tuple(models)
