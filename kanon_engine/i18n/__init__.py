"""kanon in the user's language: message lookup and local formats, usable without Qt.

Write every user-facing sentence through these functions, with named placeholders filled *after*
translation (never an f-string inside the call: the catalog could not hold it)::

    from kanon_engine.i18n import N_, _, ngettext

    _("Column {column} is empty.", column=name)
    ngettext("{n} record", "{n} records", n)          # n filled in as a local count: 2.000
    pgettext("verb", "Export")                       # a context where one English word has two senses
    LABEL = N_("Discernibility (DM)")                # marked for the catalog, translated where shown:
    _(LABEL)

An ``int`` given to a placeholder is written as a local count (``2.000`` in German), a ``float`` as a
local decimal; format anything else (percentages, dates) yourself with :mod:`kanon_engine.i18n.formats`.

The language in force is the one :func:`install` set for the process (the workbench at start, the CLI
from ``--language``); :func:`using` switches it for one block in one thread (the report in another
language than the interface, written by a worker thread) through a context variable, so the rest of
the program is not affected. The rule that picks the language is in :mod:`.language`; the catalogs
(``resources/locale/<lang>/LC_MESSAGES/kanon.po``) in :mod:`.catalog`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kanon_engine.i18n.catalog import PSEUDO, SOURCE_LANGUAGE
from kanon_engine.i18n.formats import format_number_for
from kanon_engine.i18n.language import available_languages, language_name, resolve_language
from kanon_engine.i18n.lookup import active as _active
from kanon_engine.i18n.lookup import catalog, current_language, install, using

__all__ = [
    "N_",
    "Nn_",
    "PSEUDO",
    "SOURCE_LANGUAGE",
    "_",
    "available_languages",
    "catalog",
    "current_language",
    "install",
    "language_name",
    "ngettext",
    "pgettext",
    "plural_of",
    "text_of",
    "resolve_language",
    "using",
    "word_of",
]


def _fill(text: str, values: dict[str, Any]) -> str:
    if not values:
        return text
    return text.format_map(_Values({k: format_number_for(v) for k, v in values.items()}))


class _Values(dict[str, str]):
    """A placeholder with no value stays as it is (a catalog mistake shows, it does not crash)."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _(message: str, /, **values: Any) -> str:
    """The translation of ``message``, its ``{placeholders}`` filled from ``values``."""
    return _fill(_active().gettext(message), values)


def pgettext(context: str, message: str, /, **values: Any) -> str:
    """As :func:`_`, for a message whose English words mean different things in different places."""
    return _fill(_active().gettext(message, context), values)


def ngettext(singular: str, plural: str, n: int, /, **values: Any) -> str:
    """The form of a message for ``n`` things in the current language (``{n}`` filled with ``n``)."""
    return _fill(_active().ngettext(singular, plural, n), {"n": n, **values})


def text_of(table: Any, key: Any, /, **values: Any) -> str:
    """The translation of ``table[key]``, a table of ``N_``-marked messages (a dictionary of a module's
    sentences). Kept apart from ``_`` so the catalog extractor never mistakes the key for a message."""
    return _(table[key], **values)


def word_of(table: Mapping[str, str], key: str, /) -> str:
    """The translation of ``table[key]`` (a table of ``N_``-marked words: the names of kinds, engines,
    objectives), or ``key`` itself when the table has no words for it."""
    return _(table[key]) if key in table else key


def N_(message: str, /) -> str:
    """Mark ``message`` for the catalog without translating it now (module constants, translated with
    :func:`_` where they are shown, in the language of that moment)."""
    return message


def Nn_(singular: str, plural: str, /) -> tuple[str, str]:
    """Mark a sentence's singular and plural for the catalog without translating them now (a table of
    sentences that differ by what they count), translated with :func:`plural_of` where they are shown."""
    return singular, plural


def plural_of(forms: tuple[str, str], n: int, /, **values: Any) -> str:
    """:func:`ngettext` of a pair marked with :func:`Nn_`."""
    return ngettext(forms[0], forms[1], n, **values)
