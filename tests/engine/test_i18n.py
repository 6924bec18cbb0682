"""kanon_engine.i18n: the language rule, message lookup with plurals and placeholders, local formats, and
the catalogs kept in step with the code (the CI check: stale template, unfinished entries, placeholders)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest

from kanon_engine import i18n
from kanon_engine.i18n import _, formats, lookup, ngettext, using
from kanon_engine.i18n.catalog import Catalog, pseudo
from kanon_engine.i18n.language import normalize, resolve_language, system_languages
from kanon_engine.i18n.maintain import check, placeholders

NBSP = "\u00a0"


# --- the language rule ---------------------------------------------------------------------------------
def test_kanon_lang_wins_over_everything() -> None:
    env = {"KANON_LANG": "fr", "LANG": "de_DE.UTF-8"}
    assert resolve_language("es", ["de"], environ=env) == "fr"


def test_saved_choice_wins_over_the_system() -> None:
    assert resolve_language("es", ["de"], environ={"LANG": "de_DE.UTF-8"}) == "es"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de"),  # a German system with nothing set shows German
        ({"LC_ALL": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"}, "fr"),
        ({"LANGUAGE": "it:es", "LANG": "de_DE.UTF-8"}, "es"),  # first language kanon has
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "pt_BR.UTF-8"}, "en"),  # no catalog: English
        ({}, "en"),
    ],
)
def test_system_locale_from_the_environment(env: dict[str, str], expected: str) -> None:
    assert resolve_language(None, [], environ=env) == expected


def test_qt_system_list_is_used_after_the_environment() -> None:
    assert resolve_language(None, ["de-AT", "de"], environ={}) == "de"
    assert resolve_language(None, ["es-ES"], environ={"LANG": "fr_FR.UTF-8"}) == "fr"


def test_a_bad_kanon_lang_falls_through_to_the_rule() -> None:
    assert resolve_language(None, [], environ={"KANON_LANG": "xx", "LANG": "es_ES.UTF-8"}) == "es"


def test_normalize_tags() -> None:
    assert [normalize(t) for t in ("de_DE.UTF-8", "fr-CA", "ES", "C", "POSIX", "", None, "sr@latin")] == [
        "de",
        "fr",
        "es",
        None,
        None,
        None,
        None,
        "sr",
    ]
    assert system_languages({"LANGUAGE": "de_AT:de", "LANG": "en_US.UTF-8"}) == ["de", "en"]


def test_the_four_languages_are_available() -> None:
    assert i18n.available_languages()[:1] == ["en"]
    assert set(i18n.available_languages()) >= {"en", "de", "fr", "es"}
    assert [i18n.language_name(c) for c in ("en", "de", "fr", "es")] == [
        "English",
        "Deutsch",
        "Français",
        "Español",
    ]


# --- lookup -------------------------------------------------------------------------------------------------
def test_placeholders_are_filled_after_translation_with_local_counts() -> None:
    cat = Catalog("de", {(None, "Column {column} has {n} values."): "Spalte {column} hat {n} Werte."})
    lookup._catalogs["test-de"] = cat
    cat.language = "de"
    with using("test-de"):
        assert _("Column {column} has {n} values.", column="Alter", n=2000) == "Spalte Alter hat 2.000 Werte."
    assert _("Column {column} has {n} values.", column="age", n=2000) == "Column age has 2,000 values."


def test_plurals_follow_the_language_rule() -> None:
    de = Catalog(
        "de",
        {(None, "{n} record"): ("{n} Datensatz", "{n} Datensätze")},
        lambda n: 0 if n == 1 else 1,
    )
    fr = Catalog(
        "fr", {(None, "{n} record"): ("{n} enregistrement", "{n} enregistrements")}, lambda n: int(n > 1)
    )
    lookup._catalogs.update({"test-de": de, "test-fr": fr})
    with using("test-de"):
        assert ngettext("{n} record", "{n} records", 1) == "1 Datensatz"
        assert ngettext("{n} record", "{n} records", 2000) == "2.000 Datensätze"
    with using("test-fr"):
        assert ngettext("{n} record", "{n} records", 0) == "0 enregistrement"  # French: 0 is singular
        assert ngettext("{n} record", "{n} records", 2) == "2 enregistrements"
    assert ngettext("{n} record", "{n} records", 1) == "1 record"
    assert ngettext("{n} record", "{n} records", 0) == "0 records"


def test_a_missing_placeholder_value_shows_instead_of_crashing() -> None:
    assert _("{a} and {b}", a="x") == "x and {b}"


def test_using_switches_one_thread_only() -> None:
    seen: dict[str, str] = {}
    started, release = threading.Event(), threading.Event()

    def other() -> None:
        started.set()
        release.wait(5)
        seen["other"] = i18n.current_language()

    thread = threading.Thread(target=other)
    thread.start()
    started.wait(5)
    with using("de"):
        seen["inside"] = i18n.current_language()
        release.set()
        thread.join(5)
    assert seen == {"inside": "de", "other": "en"}
    assert i18n.current_language() == "en"


def test_pseudo_wraps_and_keeps_placeholders() -> None:
    assert pseudo("Open {file} now") == "[!!Øpéñ {file} ñøw!!]"
    with using(i18n.PSEUDO):
        assert _("Anonymize {n} records", n=2000) == "[!!Åñøñýmîzé 2.000 réçørds!!]"


# --- formats ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("lang", "n2000", "n30162", "pct", "day"),
    [
        ("en", "2,000", "30,162", "4.6 %", "2024-12-31"),
        ("de", "2.000", "30.162", f"4,6{NBSP}%", "31.12.2024"),
        ("fr", f"2{NBSP}000", f"30{NBSP}162", f"4,6{NBSP}%", "31/12/2024"),
        ("es", "2000", "30.162", f"4,6{NBSP}%", "31/12/2024"),
    ],
)
def test_local_formats(lang: str, n2000: str, n30162: str, pct: str, day: str) -> None:
    assert formats.count(2000, lang) == n2000
    assert formats.count(30162, lang) == n30162
    assert formats.percent(0.046, language=lang) == pct
    assert formats.date(dt.date(2024, 12, 31), lang) == day


def test_decimals_and_lists() -> None:
    assert formats.decimal(1.2345, language="de") == "1,23"
    assert formats.decimal(1.2, language="fr", fixed=True) == "1,20"
    assert formats.join(["a", "b", "c"], "de") == "a, b und c"
    assert formats.join(["a", "b", "c"], "en") == "a, b and c"
    assert formats.join(["a", "b"], "es") == "a y b"


@pytest.mark.parametrize(
    ("text", "lang", "value"),
    [
        ("0,05", "de", 0.05),
        ("0.05", "de", 0.05),
        ("2.000", "de", 2000),
        ("1.234,5", "de", 1234.5),
        ("2 000", "fr", 2000),
        (f"2{NBSP}000", "fr", 2000),
        ("2,000", "en", 2000),
        ("2,5", "en", 2.5),
        ("2.5", "de", 2.5),
    ],
)
def test_parse_number_accepts_the_local_way(text: str, lang: str, value: float) -> None:
    assert formats.parse_number(text, lang) == pytest.approx(value)


@pytest.mark.parametrize("text", ["5 %", "5%", f"5{NBSP}%", "0,05", "0.05"])
def test_parse_share(text: str) -> None:
    assert formats.parse_share(text, "fr") == pytest.approx(0.05)


# --- the catalogs -----------------------------------------------------------------------------------------
def test_catalogs_are_current_and_complete() -> None:
    """CI's check: re-extract the messages; the template must match, every de/fr/es entry must be
    translated, not fuzzy, with the source's placeholders (``python -m kanon_engine.i18n.maintain
    update`` after changing a message, then translate)."""
    problems = check()
    assert not problems, "\n".join(problems[:30])


def test_placeholder_names() -> None:
    assert placeholders("{n} of {total:,} in {column!r}") == {"n", "total", "column"}


def test_every_catalog_loads_with_its_plural_rule() -> None:
    for code in ("de", "fr", "es"):
        cat = i18n.catalog(code)
        assert cat.language == code
        assert cat.plural(1) == 0 and cat.plural(2) == 1
    assert i18n.catalog("fr").plural(0) == 0 and i18n.catalog("de").plural(0) == 1
