"""Message catalogs: one ``.po`` file per language, read at run time with Babel.

Why ``.po`` and not compiled ``.mo``: the ``.po`` files in ``resources/locale/<lang>/LC_MESSAGES/`` are
the only copy, in git and in every installer, so no compiled binary can drift from its source; reading
one with Babel takes a few tens of milliseconds, once per language a process uses. Why gettext/Babel
and not Qt's ``.ts``/``.qm``: the engine never imports Qt, yet its messages and the report must be
translated, and one catalog shared by engine and workbench keeps every term the same in both.

A :class:`Catalog` maps a message id (and its context) to its translation and knows the language's
plural rule (the catalog's ``Plural-Forms`` header, or CLDR's rule for the language). English is the
source language: its catalog is empty and every id is its own translation. The pseudo-locale wraps
every id in ``[!! ... !!]`` with accented letters, so a test can see which text on screen did not come
through the catalog.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kanon_engine.resources import resources_dir

DOMAIN = "kanon"
SOURCE_LANGUAGE = "en"
PSEUDO = "pseudo"

#: ``{name}`` placeholders of a message (filled after translation with ``str.format``).
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:![rsa])?(?::[^{}]*)?\}")

_ACCENTS = str.maketrans(
    "AaCcEeIiNnOoUuYy",
    "ÅåÇçÉéÎîÑñØøÛûÝý",
)


def locale_dir() -> Path:
    """``resources/locale``: the template ``kanon.pot`` and one folder per language."""
    return resources_dir() / "locale"


def po_path(language: str, root: Path | None = None) -> Path:
    return (root or locale_dir()) / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def _english_plural(n: int) -> int:
    return 0 if n == 1 else 1


@dataclass
class Catalog:
    """The translations of one language: ``messages[(context, msgid)]`` is a string, or a tuple of
    plural forms for a message that has a plural."""

    language: str
    messages: dict[tuple[str | None, str], str | tuple[str, ...]] = field(default_factory=dict)
    plural: Callable[[int], int] = _english_plural

    def gettext(self, message: str, context: str | None = None) -> str:
        found = self.messages.get((context, message))
        if isinstance(found, str) and found:
            return found
        return message

    def ngettext(self, singular: str, plural: str, n: int, context: str | None = None) -> str:
        forms = self.messages.get((context, singular))
        if isinstance(forms, tuple):
            index = self.plural(int(n))
            if 0 <= index < len(forms) and forms[index]:
                return forms[index]
        return singular if n == 1 else plural

    def __len__(self) -> int:
        return len(self.messages)


class PseudoCatalog(Catalog):
    """Every message wrapped and accented (placeholders kept), for the test that walks every view."""

    def gettext(self, message: str, context: str | None = None) -> str:
        return pseudo(message)

    def ngettext(self, singular: str, plural: str, n: int, context: str | None = None) -> str:
        return pseudo(singular if n == 1 else plural)


def pseudo(message: str) -> str:
    """``"Open {file}"`` -> ``"[!!Øpén {file}!!]"``: letters accented outside placeholders."""
    if not message:
        return message
    parts, last = [], 0
    for m in PLACEHOLDER.finditer(message):
        parts.append(message[last : m.start()].translate(_ACCENTS))
        parts.append(m.group(0))
        last = m.end()
    parts.append(message[last:].translate(_ACCENTS))
    return "[!!" + "".join(parts) + "!!]"


def read_catalog(path: Path, language: str) -> Catalog:
    """The translated, non-fuzzy messages of one ``.po`` file (untranslated ones fall back to English)."""
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        po = read_po(f, locale=language, domain=DOMAIN)
    messages: dict[tuple[str | None, str], str | tuple[str, ...]] = {}
    for m in po:
        if not m.id or m.fuzzy:
            continue
        if isinstance(m.id, (list, tuple)):
            strings = m.string if isinstance(m.string, (list, tuple)) else (m.string,)
            forms = tuple(s or "" for s in strings)
            if any(forms):
                messages[(m.context, m.id[0])] = forms
        elif m.string:
            messages[(m.context, m.id)] = str(m.string)
    return Catalog(language, messages, gettext.c2py(po.plural_expr))


def load_catalog(language: str) -> Catalog:
    """The catalog of ``language`` (an empty one for English, the wrapper for the pseudo-locale)."""
    if language == PSEUDO:
        return PseudoCatalog(PSEUDO)
    path = po_path(language)
    if language == SOURCE_LANGUAGE or not path.is_file():
        return Catalog(language)
    return read_catalog(path, language)
