"""Attribute roles and the suggestions the import makes for them.

Roles follow the seed slides (EI / QI / SD): explicit identifiers are removed from every release,
quasi-identifiers are generalized, sensitive attributes are kept and protected by l-diversity or
t-closeness, insensitive attributes are kept as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

import pandas as pd


class Role(StrEnum):
    IDENTIFIER = "identifier"
    QUASI_IDENTIFIER = "quasi-identifier"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"


#: How a role is named in messages.
ROLE_NAMES = {
    Role.IDENTIFIER: "an identifier",
    Role.QUASI_IDENTIFIER: "a quasi-identifier",
    Role.SENSITIVE: "a sensitive attribute",
    Role.INSENSITIVE: "an insensitive column",
}


def merge_roles(
    project_roles: dict[str, Role],
    given: list[tuple[Role, str, list[str] | None]],
    project_name: str = "the project",
) -> dict[str, Role]:
    """The project's roles with those ``given`` (role, how it was given e.g. ``--qi``, columns; None when
    not given) replacing the project's roles of that kind. A column given two roles, or given a role
    while the project keeps it in another, is a ConfigError naming the column and both roles: a column
    both identifier and quasi-identifier must never be released generalized by a silent choice."""
    seen: dict[str, tuple[Role, str]] = {}
    for role, label, columns in given:
        for col in columns or []:
            if col in seen and seen[col][0] != role:
                first, how = seen[col]
                raise _conflict(col, first, how, role, label)
            seen[col] = (role, label)
    replaced = {role for role, _, columns in given if columns is not None}
    roles = {c: r for c, r in project_roles.items() if r not in replaced}
    for col, (role, label) in seen.items():
        kept = roles.get(col)
        if kept is not None and kept != role and kept != Role.INSENSITIVE:
            raise _conflict(col, kept, f"in {project_name}", role, label)
        roles[col] = role
    return roles


def _conflict(col: str, first: Role, how_first: str, second: Role, how_second: str) -> Exception:
    from kanon_engine.errors import ConfigError

    hint = "Give the column one role only."
    if how_first.startswith("in "):
        hint += f" A flag replaces the project's columns of its role: e.g. {how_second} with the project's."
    return ConfigError(
        f"The column '{col}' is given both as {ROLE_NAMES[first]} ({how_first}) and as "
        f"{ROLE_NAMES[second]} ({how_second}); a column has one role.",
        hint=hint,
        where=col,
    )


@dataclass(frozen=True)
class RoleSuggestion:
    """A suggested role with the reason shown to the user ("looks like a name column")."""

    column: str
    role: Role | None
    reason: str
    flagged: bool = False


_IDENTIFIER_NAMES = re.compile(
    r"(^|[_\s-])(first[_\s-]?name|last[_\s-]?name|given[_\s-]?name|full[_\s-]?name|surname|name|"
    r"ssn|social[_\s-]?security|mrn|medical[_\s-]?record|patient[_\s-]?(id|number|no)|"
    r"e-?mail|phone|telephone|mobile|fax|address|street|passport|licen[cs]e|iban|account)"
    r"($|[_\s-])",
    re.IGNORECASE,
)
_ID_LIKE = re.compile(r"^(id|.*[_\s-]id|identifier)$", re.IGNORECASE)


def suggest_roles(frame: pd.DataFrame, unique_share: float = 0.95) -> list[RoleSuggestion]:
    """Suggest a role per column.

    Names like name/surname/ssn/mrn/patient id/email/phone/address suggest an identifier; a column whose
    values are almost all unique (share of distinct non-missing values >= ``unique_share``) is flagged as
    a likely identifier; everything else is left for the user.
    """
    out: list[RoleSuggestion] = []
    n = len(frame)
    for col in frame.columns:
        name = str(col)
        if _IDENTIFIER_NAMES.search(name) or _ID_LIKE.match(name.strip()):
            out.append(
                RoleSuggestion(
                    name,
                    Role.IDENTIFIER,
                    f"'{name}' looks like a direct identifier "
                    "(a name, number or contact detail): it will be removed.",
                )
            )
            continue
        values = frame[col].dropna()
        if n >= 10 and len(values) and values.nunique() >= unique_share * len(values):
            out.append(
                RoleSuggestion(
                    name,
                    Role.IDENTIFIER,
                    f"Almost every value of '{name}' is unique, so it likely identifies people: check it.",
                    flagged=True,
                )
            )
            continue
        out.append(
            RoleSuggestion(
                name,
                None,
                "No suggestion: choose quasi-identifier if an outsider "
                "could know it (age, sex, postcode, dates), sensitive if it must be "
                "protected (diagnosis), insensitive otherwise.",
            )
        )
    return out
