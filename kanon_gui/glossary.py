"""Words of the domain explained in one sentence (tooltips), and the colours that stand for roles.

Hospital data stewards are not anonymization specialists: every place a term appears carries the same
short explanation, written once here.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

from kanon_engine.data.roles import Role

TERMS: dict[str, str] = {
    "identifier": "An identifier names a person directly (name, patient number, phone): it is removed "
    "from every release.",
    "quasi-identifier": "A quasi-identifier is a value an outsider could know and link to other data "
    "(age, sex, postcode, dates): it is generalized until each person hides among "
    "at least k others.",
    "sensitive": "A sensitive attribute is what must not be learned about a person (a diagnosis): it is "
    "kept, and l-diversity or t-closeness can protect it.",
    "insensitive": "An insensitive attribute is neither identifying nor sensitive: it is released as it is.",
    "equivalence class": "A group of records (an equivalence class, in the papers) holds the records that "
    "share the same released quasi-identifier values, so they cannot be told apart.",
    "suppression": "Suppression removes a record's quasi-identifiers (shown as *) or the whole record, "
    "instead of generalizing everyone further for the sake of a few outliers.",
    "k": "k-anonymity: every person shares their quasi-identifier values with at least k-1 others.",
    "hierarchy": "A generalization hierarchy says how a value becomes less precise step by step "
    "(37 -> 35-39 -> 30-39 -> *).",
    "lattice": "The lattice holds every combination of generalization levels, one per quasi-identifier; "
    "its size is the product of (height + 1) over the quasi-identifiers.",
    "dm": "Discernibility (DM): the sum over records of the size of the group they hide in, plus a "
    "penalty for each suppressed record. Lower keeps more detail.",
    "cavg": "C_AVG: all records divided by the number of groups, divided by k; 1 is the ideal.",
    "local recoding": "Local recoding keeps every record and generalizes each record's values only as "
    "far as that record needs, within the hierarchies (the survey's CG model).",
    "local suppression": "Local suppression keeps every record, generalizes nothing, and replaces as few "
    "single values by * as needed (the survey's CS model).",
    "cell suppression": "Cell suppression: after a generalization, only the values that make a record "
    "stand out are replaced by *; the record is kept (the survey's AG_CS model).",
    "star": "* in a release that keeps every record is a value of its own: a record showing * hides only "
    "among records showing * in the same place. It also hints that the record was unusual (the "
    "minimality attack).",
    "minimality attack": "Minimality attack (Wong et al. 2007): knowing that values were changed only "
    "where needed, an attacker can guess that a * or a broader value hides a rare value.",
    "ncp": "NCP: the average share of a quasi-identifier's values that a released value covers, from 0 "
    "(exact) to 1 (*). Lower keeps more detail.",
    "precision": "Precision kept (Sweeney's Prec): 1 minus the average share of the hierarchy height "
    "used, from 100 % (original values) to 0 % (everything *); suppressed records count as fully "
    "generalized. Higher keeps more detail.",
    "loss": "Loss (as in ARX, the default quality metric): how much of each quasi-identifier's range the "
    "released values leave open, suppressed records counting in full, combined over the attributes; "
    "0 % keeps the original values. It keeps every column usable instead of sacrificing one to *.",
    "l": "l-diversity: every group holds at least l well-represented values of the sensitive attribute, "
    "so placing a person in a group does not reveal their diagnosis (distinct: l different values; "
    "entropy: evenly spread; recursive: no value dominates).",
    "t": "t-closeness: in every group, the sensitive values are distributed within distance t of the "
    "whole table's distribution, so a group reveals little more than the table as a whole.",
    "risk": "Re-identification risk: the chance that an attacker who knows someone's quasi-identifier "
    "values picks their record; 1 / group size for a person known to be in the file (prosecutor risk).",
    "linkage": "Linkage attack: joining the release with a public list (a register, a voter list) on "
    "the shared columns; a person matching exactly one record is singled out.",
    "missing": "A missing value is an empty cell: it stays empty in the release; the views show it "
    "as (missing).",
}

ROLE_COLORS: dict[Role, QColor] = {
    Role.IDENTIFIER: QColor("#c0392b"),
    Role.QUASI_IDENTIFIER: QColor("#2b6cb0"),
    Role.SENSITIVE: QColor("#8e44ad"),
    Role.INSENSITIVE: QColor("#7f8c8d"),
}

ROLE_LABELS: dict[Role, str] = {
    Role.IDENTIFIER: "Identifier",
    Role.QUASI_IDENTIFIER: "Quasi-identifier",
    Role.SENSITIVE: "Sensitive",
    Role.INSENSITIVE: "Insensitive",
}

#: Background of cells changed by the anonymization, of suppressed rows, and of highlighted rows.
CHANGED_BG = QColor("#fff3bf")
SUPPRESSED_BG = QColor("#fde2e1")
HIGHLIGHT_BG = QColor("#d6e9ff")
MISSING_FG = QColor("#9aa0a6")


def term(name: str) -> str:
    """The one-sentence explanation of a term (empty if unknown)."""
    return TERMS.get(name, "")


def role_tooltip(role: Role) -> str:
    return TERMS.get(Role(role).value, "")


def tinted(color: QColor, alpha: int = 40) -> QColor:
    """A light version of a role colour, for backgrounds."""
    c = QColor(color)
    c.setAlpha(alpha)
    return c
