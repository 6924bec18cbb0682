"""Words of the domain explained in one sentence (tooltips), and the colours that stand for roles.

Hospital data stewards are not anonymization specialists: every place a term appears carries the same
short explanation, written once here.
"""

from __future__ import annotations

from html import escape

from PySide6.QtGui import QColor

from kanon_engine.data.roles import Role
from kanon_engine.i18n import N_, _
from kanon_engine.privacy import families

TERMS: dict[str, str] = {
    "identifier": N_(
        "An identifier names a person directly (name, patient number, phone): it is removed from "
        "every release."
    ),
    "quasi-identifier": N_(
        "A quasi-identifier is a value an outsider could know and link to other data (age, sex, "
        "postcode, dates): it is generalized until each person hides among at least k others."
    ),
    "sensitive": N_(
        "A sensitive attribute is what must not be learned about a person (a diagnosis): it is kept, "
        "and l-diversity or t-closeness can protect it."
    ),
    "insensitive": N_(
        "An insensitive attribute is neither identifying nor sensitive: it is released as it is."
    ),
    "person": N_(
        "The person column (a patient number) says which rows belong to one person, when a person has "
        "several rows (stays, visits): it is removed from the release, and k then counts persons, not "
        "rows."
    ),
    "equivalence class": N_(
        "A group of records (an equivalence class, in the papers) holds the records that share the "
        "same released quasi-identifier values, so they cannot be told apart."
    ),
    "suppression": N_(
        "Suppression removes a record's quasi-identifiers (shown as *) or the whole record, instead "
        "of generalizing everyone further for the sake of a few outliers."
    ),
    "k": N_("k-anonymity: every person shares their quasi-identifier values with at least k-1 others."),
    "hierarchy": N_(
        "A generalization hierarchy says how a value becomes less precise step by step (37 -> 35-39 "
        "-> 30-39 -> *)."
    ),
    "lattice": N_(
        "The lattice holds every combination of generalization levels, one per quasi-identifier; its "
        "size is the product of (height + 1) over the quasi-identifiers."
    ),
    "dm": N_(
        "Discernibility (DM): the sum over records of the size of the group they hide in, plus a "
        "penalty for each suppressed record. Lower keeps more detail."
    ),
    "cavg": N_("C_AVG: all records divided by the number of groups, divided by k; 1 is the ideal."),
    "local recoding": N_(
        "Local recoding keeps every record and generalizes each record's values only as far as that "
        "record needs, within the hierarchies (the survey's CG model)."
    ),
    "local suppression": N_(
        "Local suppression keeps every record, generalizes nothing, and replaces as few single values "
        "by * as needed (the survey's CS model)."
    ),
    "cell suppression": N_(
        "Cell suppression: after a generalization, only the values that make a record stand out are "
        "replaced by *; the record is kept (the survey's AG_CS model)."
    ),
    "star": N_(
        "* in a release that keeps every record is a value of its own: a record showing * hides only "
        "among records showing * in the same place. It also hints that the record was unusual (the "
        "minimality attack)."
    ),
    "minimality attack": N_(
        "Minimality attack (Wong et al. 2007): knowing that values were changed only where needed, an "
        "attacker can guess that a * or a broader value hides a rare value."
    ),
    "ncp": N_(
        "NCP: the average share of a quasi-identifier's values that a released value covers, from 0 "
        "(exact) to 1 (*). Lower keeps more detail."
    ),
    "precision": N_(
        "Precision kept (Sweeney's Prec): 1 minus the average share of the hierarchy height used, "
        "from 100 % (original values) to 0 % (everything *); suppressed records count as fully "
        "generalized. Higher keeps more detail."
    ),
    "loss": N_(
        "Loss (as in ARX, the default quality metric): how much of each quasi-identifier's range the "
        "released values leave open, suppressed records counting in full, combined over the "
        "attributes; 0 % keeps the original values. It keeps every column usable instead of "
        "sacrificing one to *."
    ),
    "l": N_(
        "l-diversity: every group holds at least l well-represented values of the sensitive "
        "attribute, so placing a person in a group does not reveal their diagnosis (distinct: l "
        "different values; entropy: evenly spread; recursive: no value dominates)."
    ),
    "t": N_(
        "t-closeness: in every group, the sensitive values are distributed within distance t of the "
        "whole table's distribution, so a group reveals little more than the table as a whole."
    ),
    "risk": N_(
        "Re-identification risk: the chance that an attacker who knows someone's quasi-identifier "
        "values picks their record; 1 / group size for a person known to be in the file (prosecutor "
        "risk)."
    ),
    "linkage": N_(
        "Linkage attack: joining the release with a public list (a register, a voter list) on the "
        "shared columns; a person matching exactly one record is singled out."
    ),
    "survey models": N_(
        "How a release was made, with the names of the survey of k-anonymity models (Ciriani et al.; "
        "AG: one generalization level per attribute for the whole table, CG: each record generalized on "
        "its own; TS: whole records suppressed, CS: single values replaced by *): AG_TS, AG_CS, CG and "
        "CS; Mondrian's groups with ranges of their own are multidimensional recoding."
    ),
    "population estimate": N_(
        "A population estimate (Pitman, Zayatz, SNB, Dankar et al.'s rule) is an estimate, not a count: it "
        "infers from the table's group sizes and the population size you give how many people of that "
        "population are unique. A wrong population size, or a table that is not a random sample of that "
        "population, makes it wrong."
    ),
    "k-map": N_(
        "k-map: every released group matches at least k people of the population, not only of the "
        "table. Against a population table it is only as good as that table (another population's, or an "
        "outdated one, bounds nothing); from a population size it is an estimate."
    ),
    "average risk": N_(
        "Average risk bounds the mean chance of re-identification over the records; a record in a small "
        "group may still be at higher risk (a highest risk bounds those too). It says nothing about what "
        "the sensitive values reveal."
    ),
    "presence": N_(
        "delta-presence bounds how surely an attacker can tell that a person of the population is in the "
        "released data; it needs the research subset, and it does not stop the re-identification of a "
        "person known to be in it."
    ),
    "sensitive models": N_(
        "l-diversity, t-closeness, beta-likeness and delta-disclosure protect what a group reveals about a "
        "sensitive value, not who is in the group: combine them with k-anonymity or a risk bound."
    ),
    "missing": N_(
        "A missing value is an empty cell: it stays empty in the release; the views show it as (missing)."
    ),
}

ROLE_COLORS: dict[Role, QColor] = {
    Role.IDENTIFIER: QColor("#c0392b"),
    Role.QUASI_IDENTIFIER: QColor("#2b6cb0"),
    Role.SENSITIVE: QColor("#8e44ad"),
    Role.INSENSITIVE: QColor("#7f8c8d"),
    Role.PERSON: QColor("#b7791f"),
}

ROLE_LABELS: dict[Role, str] = {
    Role.IDENTIFIER: N_("Identifier"),
    Role.QUASI_IDENTIFIER: N_("Quasi-identifier"),
    Role.SENSITIVE: N_("Sensitive"),
    Role.INSENSITIVE: N_("Insensitive"),
    Role.PERSON: N_("Person (patient number)"),
}

#: Background of cells changed by the anonymization, of suppressed rows, and of highlighted rows.
CHANGED_BG = QColor("#fff3bf")
SUPPRESSED_BG = QColor("#fde2e1")
HIGHLIGHT_BG = QColor("#d6e9ff")
MISSING_FG = QColor("#9aa0a6")


def term(name: str) -> str:
    """The one-sentence explanation of a term (empty if unknown)."""
    return _(TERMS[name]) if name in TERMS else ""


#: The kinds of column in words (ColumnKind values).
KIND_LABELS = {
    "integer": N_("integer"),
    "decimal": N_("decimal"),
    "date": N_("date"),
    "categorical": N_("text / category"),
}


def kind_label(kind) -> str:
    """A column kind (ColumnKind or its value) in the current language."""
    value = getattr(kind, "value", kind)
    return _(KIND_LABELS[value]) if value in KIND_LABELS else str(value)


def role_label(role: Role) -> str:
    """The name of a role in the current language (``Quasi-Identifikator``)."""
    return _(ROLE_LABELS[Role(role)])


def role_tooltip(role: Role) -> str:
    return term(Role(role).value)


def tinted(color: QColor, alpha: int = 40) -> QColor:
    """A light version of a role colour, for backgrounds."""
    c = QColor(color)
    c.setAlpha(alpha)
    return c


def glossary_html() -> str:
    """The glossary window's text: every term of the field in the current language (with its English
    name and its source), then the other words the workbench explains."""
    from kanon_engine.i18n import current_language
    from kanon_engine.i18n.glossary import glossary

    parts, explained = [], set()
    for entry in glossary(current_language()):
        meaning = term(entry.definition) if entry.definition else ""
        explained.add(entry.definition)
        english = (
            f" <i>({escape(entry.english)})</i>" if entry.english.casefold() != entry.term.casefold() else ""
        )
        source = (
            "<br><small>" + escape(_("Source: {source}", source=entry.source)) + "</small>"
            if entry.source
            else "<br><small>" + escape(_("No published source found: kanon's own term.")) + "</small>"
            if current_language() != "en"
            else ""
        )
        parts.append(f"<p><b>{escape(entry.term)}</b>{english}: {escape(meaning)}{source}</p>")
    for key in TERMS:
        if key not in explained:
            parts.append(f"<p>{escape(term(key))}</p>")
    return "".join(parts) + thresholds_html()


def thresholds_html() -> str:
    """The glossary's "Published thresholds": every preset the model picker offers, with its source
    (each model declares its own, :attr:`kanon_engine.privacy.base.PrivacyModel.presets`)."""
    rows = [
        f"<p><b>{escape(_(p.label))}</b> ({escape(_(cls.title))})<br><small>"
        + escape(_("Source: {source}", source=_(p.source)))
        + "</small></p>"
        for cls in families()
        for p in cls.presets
    ]
    if not rows:
        return ""
    intro = _(
        "The model picker's presets fill in these figures; the project keeps the figures, not the "
        "preset. A published threshold fits the setting its source describes, not every release."
    )
    return f"<h3>{escape(_('Published thresholds'))}</h3><p>{escape(intro)}</p>" + "".join(rows)
