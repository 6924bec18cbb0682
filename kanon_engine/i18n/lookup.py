"""The language in force and the catalogs read so far (kept apart from the lookup functions of
:mod:`kanon_engine.i18n`, so :mod:`.formats` can ask for the language without an import cycle)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kanon_engine.i18n.catalog import SOURCE_LANGUAGE, Catalog, load_catalog

_lock = threading.Lock()
_catalogs: dict[str, Catalog] = {}
_installed: Catalog = Catalog(SOURCE_LANGUAGE)
_scoped: ContextVar[Catalog | None] = ContextVar("kanon_language", default=None)


def catalog(language: str) -> Catalog:
    """The catalog of ``language``, read once per process."""
    with _lock:
        if language not in _catalogs:
            _catalogs[language] = load_catalog(language)
        return _catalogs[language]


def install(language: str) -> Catalog:
    """Make ``language`` the process's language (every thread without a :func:`using` block)."""
    global _installed
    _installed = catalog(language)
    return _installed


def current_language() -> str:
    return active().language


def active() -> Catalog:
    scoped = _scoped.get()
    return _installed if scoped is None else scoped


@contextmanager
def using(language: str | None) -> Iterator[None]:
    """Speak ``language`` inside the block, in this thread only (None: no change)."""
    if language is None:
        yield
        return
    token = _scoped.set(catalog(language))
    try:
        yield
    finally:
        _scoped.reset(token)
