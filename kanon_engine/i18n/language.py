"""Which language kanon speaks: the rule, in one place.

1. ``KANON_LANG`` (``en``, ``de``, ``fr``, ``es``) when it is set to a language kanon has;
2. else the user's saved choice (the workbench's Language menu);
3. else the system's language: ``LANGUAGE`` (a colon-separated list), ``LC_ALL``, ``LC_MESSAGES``,
   ``LANG``, in that order, as Qt's ``QLocale.system()`` reads them on Linux; the workbench adds Qt's
   own list of the system's languages (Windows and macOS keep theirs outside the environment);
4. else English.

The command line follows the same rule, with its ``--language`` first (a script that must read English
whatever the machine sets ``KANON_LANG=en``); its JSON keys never change with the language.

A language is available when ``resources/locale/<code>/LC_MESSAGES/kanon.po`` exists (English, the
source language, needs none): a hospital's IT adds one by adding that folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from kanon_engine.i18n.catalog import PSEUDO, SOURCE_LANGUAGE, locale_dir, po_path

#: The environment variable that overrides every other choice.
ENV_VARIABLE = "KANON_LANG"
#: Environment variables of the system's language, in the order they count.
SYSTEM_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def available_languages() -> list[str]:
    """English first, then every language with a catalog in ``resources/locale``, sorted."""
    found = []
    root = locale_dir()
    if root.is_dir():
        found = sorted(p.name for p in root.iterdir() if po_path(p.name, root).is_file())
    return [SOURCE_LANGUAGE] + [code for code in found if code != SOURCE_LANGUAGE]


def language_name(code: str) -> str:
    """A language's own name (``Deutsch``, ``Français``), so a user finds theirs whatever is shown."""
    if code == PSEUDO:
        return "Pseudo"
    try:
        from babel import Locale

        name = Locale.parse(code).get_display_name(code) or code
    except (ValueError, LookupError):
        return code
    return name[:1].upper() + name[1:]


def normalize(tag: str | None) -> str | None:
    """``de_DE.UTF-8`` / ``de-AT`` / ``DE`` -> ``de``; ``C``, ``POSIX`` and empty -> None."""
    if not tag:
        return None
    base = tag.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    if base in ("", "c", "posix"):
        return None
    return base


def system_languages(environ: Mapping[str, str] | None = None) -> list[str]:
    """The system's languages from the environment, most preferred first (normalized, no repeats)."""
    env = os.environ if environ is None else environ
    tags: list[str] = []
    for name in SYSTEM_VARIABLES:
        value = env.get(name, "")
        if not value:
            continue
        if name == "LANGUAGE":
            tags.extend(value.split(":"))
        else:
            tags.append(value)
    return _unique(normalize(t) for t in tags)


def _unique(codes: Iterable[str | None]) -> list[str]:
    out: list[str] = []
    for code in codes:
        if code and code not in out:
            out.append(code)
    return out


def resolve_language(
    saved: str | None = None,
    system: Iterable[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The language to use by the rule above. ``system``: extra system languages (Qt's list), tried
    after the environment's."""
    env = os.environ if environ is None else environ
    available = available_languages()
    forced = (env.get(ENV_VARIABLE) or "").strip()
    if forced == PSEUDO:
        return PSEUDO
    if normalize(forced) in available:
        return normalize(forced)  # type: ignore[return-value]
    if normalize(saved) in available:
        return normalize(saved)  # type: ignore[return-value]
    for code in system_languages(env) + _unique(normalize(t) for t in (system or ())):
        if code in available:
            return code
    return SOURCE_LANGUAGE
