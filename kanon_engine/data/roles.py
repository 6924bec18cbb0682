"""Attribute roles and the suggestions the import makes for them.

Roles follow the seed slides (EI / QI / SD): explicit identifiers are removed from every release,
quasi-identifiers are generalized, sensitive attributes are kept and protected by l-diversity or
t-closeness, insensitive attributes are kept as they are.

Suggestions come from the column's name, in English, German, French and Spanish, and from its values.
Names are compared after folding case and accents (``Geburtsdatum``, ``date de naissance``,
``fecha_nacimiento``, ``Código postal``); long words are found inside compound names too
(``Patientenname``, ``Aufnahmedatum``), short ones (``cp``, ``plz``, ``sex``) only as whole words, so
``cpu`` or ``sextant`` never match. A suggestion made from the name is applied when a file is opened;
one made from the values alone (a date column, 4-5 digit codes, a handful of categories) is shown with
its reason and left for the user to decide. Every suggestion carries the sentence that says why.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import pandas as pd

from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _, text_of, word_of


class Role(StrEnum):
    IDENTIFIER = "identifier"
    QUASI_IDENTIFIER = "quasi-identifier"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"
    #: the column that says which rows belong to one person (a patient number in a stay-level table):
    #: removed from the release like an identifier, and used to count persons, not rows
    #: (:mod:`kanon_engine.core.persons`)
    PERSON = "person"


#: How a role is named in messages.
ROLE_NAMES = {
    Role.PERSON: N_("the person column"),
    Role.IDENTIFIER: N_("an identifier"),
    Role.QUASI_IDENTIFIER: N_("a quasi-identifier"),
    Role.SENSITIVE: N_("a sensitive attribute"),
    Role.INSENSITIVE: N_("an insensitive column"),
}


def merge_roles(
    project_roles: dict[str, Role],
    given: list[tuple[Role, str, list[str] | None]],
    project_name: str | None = None,
) -> dict[str, Role]:
    """The project's roles with those ``given`` (role, how it was given e.g. ``--qi``, columns; None when
    not given) replacing the project's roles of that kind. A column given two roles, or given a role
    while the project keeps it in another, is a ConfigError naming the column and both roles: a column
    both identifier and quasi-identifier must never be released generalized by a silent choice."""
    project_name = _("the project") if project_name is None else project_name
    seen: dict[str, tuple[Role, str]] = {}
    for role, label, columns in given:
        for col in columns or []:
            if col in seen and seen[col][0] != role:
                first, how = seen[col]
                raise _conflict(col, first, how, role, label)
            seen[col] = (role, label)
    replaced = {role for role, _how, columns in given if columns is not None}
    roles = {c: r for c, r in project_roles.items() if r not in replaced}
    for col, (role, label) in seen.items():
        kept = roles.get(col)
        if kept is not None and kept != role and kept != Role.INSENSITIVE:
            raise _conflict(col, kept, f"in {project_name}", role, label)
        roles[col] = role
    return roles


def _conflict(col: str, first: Role, how_first: str, second: Role, how_second: str) -> Exception:

    hint = _("Give the column one role only.")
    if how_first.startswith("in "):
        hint += _(
            " A flag replaces the project's columns of its role: e.g. {how_second} with the project's.",
            how_second=how_second,
        )
    return ConfigError(
        _(
            "The column '{column}' is given both as {role_name} ({how_first}) and as {role_name2} "
            "({how_second}); a column has one role.",
            column=col,
            role_name=_(ROLE_NAMES[first]),
            how_first=how_first,
            role_name2=_(ROLE_NAMES[second]),
            how_second=how_second,
        ),
        hint=hint,
        where=col,
    )


@dataclass(frozen=True)
class RoleSuggestion:
    """A suggested role with the reason shown to the user ("looks like a name column").

    ``confident``: the suggestion is applied when the file is opened (it came from the column's name);
    otherwise it is only shown. ``flagged``: a warning stays until the user decides (almost unique
    values). ``kind``: what the column looks like ("name", "date of birth", "postcode", ...), used by
    the warnings about columns released unchanged.
    """

    column: str
    role: Role | None
    reason: str
    flagged: bool = False
    confident: bool = False
    kind: str = ""


@dataclass(frozen=True)
class _NameRule:
    """Words that name one kind of column. ``words``: whole words (after splitting the name at spaces,
    punctuation and camelCase); ``stems``: found anywhere in the name with separators removed."""

    kind: str
    role: Role
    words: tuple[str, ...]
    stems: tuple[str, ...] = ()


#: Reasons per role, whole sentences with named placeholders (one place, ready for translation).
_REASONS = {
    Role.IDENTIFIER: N_(
        "'{column}' looks like {kind}, a direct identifier: it will be removed from the release."
    ),
    Role.QUASI_IDENTIFIER: N_(
        "'{column}' looks like {kind}: an outsider may know it, so it is a quasi-identifier and will be "
        "generalized."
    ),
    Role.SENSITIVE: N_(
        "'{column}' looks like {kind}: it is sensitive; protect it with l-diversity or t-closeness if needed."
    ),
    Role.INSENSITIVE: N_(
        "'{column}' looks like {kind}: a measurement, not an identifier, even when almost every value "
        "differs; it is released as it is (insensitive), or make it sensitive to protect it."
    ),
}
_KIND_WORDS = {
    "name": N_("a person's name"),
    "patient number": N_("a patient or case number"),
    "insurance number": N_("an insurance or social security number"),
    "contact": N_("a contact detail (phone, e-mail)"),
    "address": N_("a street address"),
    "document": N_("an identity document number"),
    "account": N_("a bank account"),
    "date of birth": N_("a date of birth"),
    "age": N_("an age"),
    "sex": N_("sex or gender"),
    "postcode": N_("a postcode"),
    "town": N_("a place of residence"),
    "admission date": N_("an admission or discharge date"),
    "nationality": N_("a nationality or ethnicity"),
    "marital status": N_("a marital status"),
    "profession": N_("a profession"),
    "diagnosis": N_("a diagnosis"),
    "date": N_("a date"),
    "categories": N_("a category"),
    "unique": N_("an identifying code"),
    "amount": N_("an amount of money"),
}


def kind_words(kind: str) -> str:
    """What a suggestion's ``kind`` is called in a sentence ("a date of birth")."""
    return word_of(_KIND_WORDS, kind)


# Order matters: the first rule that matches wins (a "Patientennummer" is a number, not a name; a
# "Behandlungskosten" an amount, whatever else its name holds). Amounts come first: a cost's values are
# nearly all different, which must not make it look like an identifier (the walk of issue 27 had "Coût (€)"
# suggested as one). Invoice and batch numbers ("facture", "Rechnung", "Charge") are not amounts.
_NAME_RULES: tuple[_NameRule, ...] = (
    _NameRule(
        "amount",
        Role.INSENSITIVE,
        (
            "cost",
            "costs",
            "cout",
            "couts",
            "kosten",
            "betrag",
            "preis",
            "price",
            "prix",
            "precio",
            "amount",
            "montant",
            "frais",
            "importe",
            "coste",
            "costo",
            "gasto",
            "gastos",
            "fee",
            "fees",
            "tarif",
            "honorar",
            "gebuhr",
            "gebuhren",
            "eur",
            "euro",
            "euros",
            "chf",
            "usd",
            "gbp",
        ),
        ("kosten", "betrag", "montant", "amount", "gebuhr", "importe", "honorar"),
    ),
    _NameRule(
        "patient number",
        Role.IDENTIFIER,
        ("id", "mrn", "pid", "identifier", "nhs", "ipp", "nip"),
        (
            "patientid",
            "patientnumber",
            "patientno",
            "patientennummer",
            "patientenid",
            "fallnummer",
            "fallnr",
            "fallid",
            "aufnahmenummer",
            "medicalrecord",
            "recordnumber",
            "numerodossier",
            "numerodepatient",
            "numeropatient",
            "numerodelpaciente",
            "numeropaciente",
            "historiaclinica",
            "idpaciente",
            "identifiant",
        ),
    ),
    _NameRule(
        "insurance number",
        Role.IDENTIFIER,
        ("ssn", "nss", "nir", "kvnr", "dni", "nie", "nif", "avs", "ahv"),
        (
            "socialsecurity",
            "versichertennummer",
            "versicherungsnummer",
            "sozialversicherung",
            "krankenversichertennummer",
            "securitesociale",
            "numerodesecurite",
            "seguridadsocial",
            "insurancenumber",
            "steuernummer",
            "taxnumber",
        ),
    ),
    _NameRule(
        "contact",
        Role.IDENTIFIER,
        ("email", "mail", "phone", "tel", "telefon", "fax", "mobile", "handy", "movil", "portable"),
        ("telephone", "telefon", "telefono", "mobilnummer", "emailadresse", "courriel", "correoelectronico"),
    ),
    _NameRule(
        "address",
        Role.IDENTIFIER,
        ("address", "street", "strasse", "adresse", "rue", "calle", "direccion", "domicilio", "anschrift"),
        ("address", "anschrift", "strasse", "hausnummer", "direccion", "domicilio"),
    ),
    _NameRule(
        "document",
        Role.IDENTIFIER,
        ("passport", "pasaporte", "passeport", "reisepass", "licence", "license"),
        ("passport", "personalausweis", "ausweisnummer", "pasaporte", "passeport", "driverslicen"),
    ),
    _NameRule(
        "account", Role.IDENTIFIER, ("iban", "bic", "account", "konto"), ("kontonummer", "bankaccount")
    ),
    _NameRule(
        "name",
        Role.IDENTIFIER,
        (
            "name",
            "names",
            "nom",
            "nombre",
            "apellido",
            "apellidos",
            "prenom",
            "surname",
            "vorname",
            "nachname",
        ),
        (
            "patientenname",
            "patientname",
            "vorname",
            "nachname",
            "familienname",
            "geburtsname",
            "firstname",
            "lastname",
            "fullname",
            "givenname",
            "surname",
            "maidenname",
            "middlename",
            "nomdupatient",
            "nomdefamille",
            "nomdenaissance",
            "prenom",
            "nombredelpaciente",
            "nombrepaciente",
            "nombrecompleto",
            "apellido",
        ),
    ),
    _NameRule(
        "date of birth",
        Role.QUASI_IDENTIFIER,
        ("dob", "birth", "born", "geboren", "gebdat", "naissance", "nacimiento", "nacido"),
        (
            "geburtsdatum",
            "geburtstag",
            "geburtsjahr",
            "gebdatum",
            "dateofbirth",
            "birthdate",
            "birthday",
            "birthyear",
            "yearofbirth",
            "datedenaissance",
            "naissance",
            "fechadenacimiento",
            "fechanacimiento",
            "nacimiento",
            "anodenacimiento",
        ),
    ),
    _NameRule(
        "age", Role.QUASI_IDENTIFIER, ("age", "alter", "edad", "ages", "lebensalter"), ("lebensalter",)
    ),
    _NameRule(
        "sex",
        Role.QUASI_IDENTIFIER,
        ("sex", "gender", "geschlecht", "sexe", "genre", "sexo", "genero"),
        ("geschlecht", "gender"),
    ),
    _NameRule(
        "postcode",
        Role.QUASI_IDENTIFIER,
        ("zip", "zipcode", "plz", "postcode", "cp", "npa", "cap", "postal"),
        ("postleitzahl", "postalcode", "postcode", "zipcode", "codepostal", "codigopostal"),
    ),
    _NameRule(
        "town",
        Role.QUASI_IDENTIFIER,
        ("ort", "wohnort", "city", "town", "ville", "ciudad", "commune", "municipio", "gemeinde", "county"),
        ("wohnort", "heimatort", "residence", "municipio", "localidad"),
    ),
    _NameRule(
        "admission date",
        Role.QUASI_IDENTIFIER,
        (
            "admission",
            "admitted",
            "discharge",
            "discharged",
            "aufnahme",
            "entlassung",
            "ingreso",
            "alta",
            "entree",
            "sortie",
            "deces",
            "death",
            "tod",
        ),
        (
            "aufnahmedatum",
            "aufnahmetag",
            "aufnahmezeit",
            "entlassungsdatum",
            "entlassdatum",
            "entlassungstag",
            "admissiondate",
            "dateofadmission",
            "admitdate",
            "dischargedate",
            "dateofdischarge",
            "datedentree",
            "datedadmission",
            "datedesortie",
            "fechadeingreso",
            "fechaingreso",
            "fechadealta",
            "deathdate",
            "dateofdeath",
            "sterbedatum",
            "todesdatum",
            "datededeces",
            "fechadefallecimiento",
        ),
    ),
    _NameRule(
        "nationality",
        Role.QUASI_IDENTIFIER,
        ("nationality", "ethnicity", "race", "nationalite", "nacionalidad", "herkunft"),
        ("staatsangehorigkeit", "nationalitat", "nationalite", "nacionalidad", "ethnicity", "nationality"),
    ),
    _NameRule(
        "marital status",
        Role.QUASI_IDENTIFIER,
        ("familienstand", "marital"),
        ("familienstand", "maritalstatus", "etatcivil", "estadocivil"),
    ),
    _NameRule(
        "profession",
        Role.QUASI_IDENTIFIER,
        ("beruf", "occupation", "profession", "profesion", "ocupacion", "job"),
        ("berufsgruppe", "occupation", "profession"),
    ),
    _NameRule(
        "diagnosis",
        Role.SENSITIVE,
        ("diagnose", "diagnosis", "diagnostic", "diagnostico", "icd", "befund", "disease", "krankheit"),
        ("diagnose", "diagnosis", "diagnostic", "diagnostico", "hauptdiagnose", "maladie", "enfermedad"),
    ),
)

#: Stems shorter than this would match inside unrelated words; they are whole words only.
_MIN_STEM = 5
_CODE = re.compile(r"\d{4,5}")
#: A column with at most this many distinct values is a "handful of categories" (sex, blood group).
_FEW_VALUES = 5


def fold(text: str) -> str:
    """Lower case without accents, ß as ss: ``Größe`` -> ``grosse``, ``Código`` -> ``codigo``."""
    text = unicodedata.normalize("NFKD", str(text).replace("ß", "ss").replace("ẞ", "ss"))
    return "".join(ch for ch in text if not unicodedata.combining(ch)).lower()


def name_words(name: str) -> tuple[list[str], str]:
    """The words of a column name (split at non-letters and camelCase) and the name without separators."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", str(name))
    words = [w for w in re.split(r"[^0-9a-z]+", fold(spaced)) if w]
    return words, "".join(words)


#: Currency signs: a column named with one ("Coût (€)", "Betrag in $") holds amounts.
_CURRENCY = frozenset("€$£¥₣₤")


def match_name(name: str) -> tuple[str, Role] | None:
    """The kind and role a column's name suggests, or None."""
    if _CURRENCY.intersection(str(name)):
        return "amount", Role.INSENSITIVE
    words, joined = name_words(name)
    for rule in _NAME_RULES:
        if any(w in rule.words for w in words):
            return rule.kind, rule.role
        if any(len(s) >= _MIN_STEM and s in joined for s in rule.stems):
            return rule.kind, rule.role
    return None


def _from_name(column: str) -> RoleSuggestion | None:
    found = match_name(column)
    if found is None:
        return None
    kind, role = found
    reason = _(_REASONS[role], column=column, kind=kind_words(kind))
    return RoleSuggestion(column, role, reason, confident=True, kind=kind)


def looks_like_codes(counts: pd.Series) -> bool:
    """Nearly all values are 4 or 5 digit codes, some with a leading zero: postcodes as exports write
    them (a leading zero tells a code from an amount such as a salary of 25000)."""
    if not len(counts):
        return False
    values = pd.Series(counts.index.astype(str), dtype=object).str.strip()
    fits = values.str.fullmatch(_CODE.pattern).to_numpy(dtype=bool)
    weights = counts.to_numpy(dtype=float)
    leading_zero = bool(values[fits].str.startswith("0").any())
    return leading_zero and bool(weights[fits].sum() >= 0.95 * weights.sum())


#: A number with a decimal part, written any usual way: 12.5, 12,5, 1,234.50, 1.234,50, 1 234,50, 1'234.50
#: (space, narrow or plain no-break space, apostrophe, dot or comma between thousands).
_AMOUNT = re.compile(r"[-+]?(?:\d{1,3}(?:[ \u00a0\u202f'.,]\d{3})+|\d+)[.,]\d{1,4}")


def looks_like_amounts(counts: pd.Series) -> bool:
    """Nearly all values are numbers with a decimal part (amounts, weights, lab values): measurements,
    whose values differ from record to record without naming anyone. Codes and record numbers are
    whole numbers or carry letters."""
    if not len(counts):
        return False
    values = pd.Series(counts.index.astype(str), dtype=object).str.strip()
    fits = values.str.fullmatch(_AMOUNT.pattern).to_numpy(dtype=bool)
    weights = counts.to_numpy(dtype=float)
    return bool(weights[fits].sum() >= 0.95 * weights.sum())


_VALUE_REASONS = {
    "unique": N_("Almost every value of '{column}' is unique, so it likely identifies people: check it."),
    "date": N_(
        "'{column}' holds dates: a date of birth, admission or death can be known to outsiders, so it is "
        "probably a quasi-identifier."
    ),
    "postcode": N_(
        "'{column}' holds 4- or 5-digit codes such as '{example}' (a postcode?): if outsiders can know it, "
        "make it a quasi-identifier."
    ),
    "categories": N_(
        "'{column}' has only {count} different values (like sex or blood group): if outsiders can know it, "
        "make it a quasi-identifier."
    ),
}


def _from_values(column: str, counts: pd.Series, kind: str, n_rows: int) -> RoleSuggestion | None:
    """A suggestion from the values alone (shown, never applied by itself)."""
    present = counts[counts.index.notna()]
    if kind == "date":
        reason = text_of(_VALUE_REASONS, "date", column=column)
        return RoleSuggestion(column, Role.QUASI_IDENTIFIER, reason, kind="date")
    if looks_like_codes(present):
        reason = text_of(_VALUE_REASONS, "postcode", column=column, example=str(present.index[0]))
        return RoleSuggestion(column, Role.QUASI_IDENTIFIER, reason, kind="postcode")
    if 2 <= len(present) <= _FEW_VALUES and n_rows >= 10 * len(present):
        reason = text_of(_VALUE_REASONS, "categories", column=column, count=len(present))
        return RoleSuggestion(column, Role.QUASI_IDENTIFIER, reason, kind="categories")
    return None


def _almost_unique(column: str, counts: pd.Series, n_rows: int, unique_share: float) -> RoleSuggestion | None:
    present = counts[counts.index.notna()]
    filled = float(present.sum())
    if n_rows >= 10 and filled and len(present) >= unique_share * filled and not looks_like_amounts(present):
        reason = text_of(_VALUE_REASONS, "unique", column=column)
        return RoleSuggestion(column, Role.IDENTIFIER, reason, flagged=True, kind="unique")
    return None


def suggest_roles(
    frame: pd.DataFrame,
    unique_share: float = 0.95,
    *,
    counts: Mapping[str, pd.Series] | None = None,
    column_types: Mapping[str, Any] | None = None,
    n_rows: int | None = None,
) -> list[RoleSuggestion]:
    """Suggest a role per column, with its reason.

    In order: the column's name (identifiers, quasi-identifiers, sensitive attributes; applied on
    import); almost all values unique (flagged as a likely identifier, ``unique_share`` of the filled
    cells distinct); then the values' type (dates, 4-5 digit codes, a handful of categories: shown
    only). ``counts`` (value counts per column) and ``column_types`` (the detected types) are used
    when given, so the table is not counted twice; with counts of a whole table whose ``frame`` is only
    its first rows (a table source), ``n_rows`` is the whole table's.
    """
    out: list[RoleSuggestion] = []
    n = len(frame) if n_rows is None else int(n_rows)
    for col in frame.columns:
        name = str(col)
        found = _from_name(name)
        if found is not None:
            out.append(found)
            continue
        vc = counts[col] if counts is not None and col in counts else frame[col].value_counts(dropna=False)
        ctype = (column_types or {}).get(col)
        kind = getattr(getattr(ctype, "kind", None), "value", "")
        # dates and decimal numbers (measurements) differ from record to record without naming anyone
        found = _almost_unique(name, vc, n, unique_share) if kind not in ("date", "decimal") else None
        found = found or _from_values(name, vc, kind, n)
        out.append(found or RoleSuggestion(name, None, _(_NO_SUGGESTION, column=name)))
    return out


_NO_SUGGESTION = N_(
    "No suggestion for '{column}': choose quasi-identifier if an outsider could know it (age, sex, "
    "postcode, dates), sensitive if it must be protected (diagnosis), insensitive otherwise."
)
