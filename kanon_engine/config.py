"""What to do: roles, hierarchies and privacy models of a run. The parameter specs that drive the CLI
flags and the GUI's forms live in :mod:`kanon_engine.params` (re-exported here); the privacy models and
their registry in :mod:`kanon_engine.privacy`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.data.persons import blanks_value, knows_value
from kanon_engine.data.roles import Role
from kanon_engine.data.table import Table, TableLike, require_mark_free, require_values
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.i18n import N_, _
from kanon_engine.params import ParamSpec, blank_to_none, format_percent, parse_fraction, parse_number
from kanon_engine.privacy import PrivacyModel, k_of, models_from_values, require_identity_model
from kanon_engine.workload.query import Workload

__all__ = [
    "AnonymizationConfig",
    "ParamSpec",
    "blank_to_none",
    "build_models",
    "format_percent",
    "parse_fraction",
    "parse_number",
    "require_k_fits",
    "role_name",
]


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
    #: The person column (:mod:`kanon_engine.data.persons`): which rows belong to one person. Set, every
    #: model counts distinct persons per class instead of rows; it is removed like an identifier (it is
    #: added to ``identifiers``). None: every row is a person.
    person: str | None = None
    #: How many distinct released rows of one person an attacker may know (1, 2, 3; 0 = all of them)
    person_knows: int = 1
    #: A blank person cell: "refuse" (the rows are named) or "own" (each blank row a person of its own)
    person_blanks: str = "refuse"
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
        if any(m.removes_suppressed for m in self.models):  # such a release holds none (PrivacyModel)
            object.__setattr__(self, "drop_suppressed", True)
        if self.person is not None:
            object.__setattr__(self, "person_knows", knows_value(self.person_knows))
            object.__setattr__(self, "person_blanks", blanks_value(self.person_blanks))
            if self.person not in self.identifiers:  # removed from every release like an identifier
                object.__setattr__(self, "identifiers", (*self.identifiers, self.person))
        roles: dict[str, str] = {}
        if self.person is not None:
            roles[self.person] = "person"
        for role, cols in (
            ("identifier", self.identifiers),
            ("quasi-identifier", self.quasi_identifiers),
            ("sensitive", self.sensitive),
        ):
            for c in cols:
                if c in roles and not (c == self.person and role == "identifier"):
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
        require_identity_model(self.models)
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
        return k_of(self.models)

    @property
    def suppressed_group_k(self) -> int:
        """The least size of the group of suppressed records kept in the release (0: no rule)."""
        return self.k if self.protect_suppressed_group and not self.drop_suppressed else 0

    def role_of(self, column: str) -> Role:
        if column == self.person:
            return Role.PERSON
        if column in self.identifiers:
            return Role.IDENTIFIER
        if column in self.quasi_identifiers:
            return Role.QUASI_IDENTIFIER
        if column in self.sensitive:
            return Role.SENSITIVE
        return Role.INSENSITIVE

    def check_columns(self, table: TableLike) -> None:
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
        if self.person is not None:  # only then: the fingerprints of runs without persons stay as they were
            doc["persons"] = [self.person, self.person_knows, self.person_blanks]
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
        Role.PERSON: N_("person (patient number)"),
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


def build_models(
    k: int,
    sensitive: str | None = None,
    l: float | None = None,  # noqa: E741
    l_variant: str = "distinct",
    c: float = 2.0,
    t: float | None = None,
    t_distance: str = "equal",
) -> tuple[PrivacyModel, ...]:
    """The built-in models from their form values (a shorthand for scripts and tests; the form and the
    flags go through :func:`kanon_engine.privacy.models_from_values`, which knows every registered model)."""
    values = {"k": k, "l": l, "l_variant": l_variant, "c": c, "t": t, "t_distance": t_distance}
    return models_from_values({**values, "sensitive": sensitive})
