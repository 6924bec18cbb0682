"""The glossary of each language (resources/glossary/) is complete, cited, and used by the catalogs:
wherever an English message uses a term of the field, its translation uses the glossary's term."""

from __future__ import annotations

import re

import pytest

from kanon_engine.i18n.catalog import po_path
from kanon_engine.i18n.glossary import glossary
from kanon_engine.i18n.maintain import _read

LANGUAGES = ("de", "fr", "es")


def _translations(language: str):
    for m in _read(po_path(language), language):
        if not m.id or not m.string:
            continue
        ids = m.id if isinstance(m.id, (list, tuple)) else (m.id,)
        strings = m.string if isinstance(m.string, (list, tuple)) else (m.string,)
        yield ids, strings


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_concept_has_a_term_and_says_where_it_comes_from(language: str) -> None:
    english = {e.id for e in glossary("en")}
    entries = glossary(language)
    assert {e.id for e in entries} == english
    for e in entries:
        assert e.term and e.forms, e.id
        assert e.status, f"{e.id}: say whether the term was checked against a source"
        if not e.status.startswith("own"):
            assert e.source, f"{e.id}: a sourced term names its source"


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalog_translations_use_the_glossary_terms(language: str) -> None:
    entries = [e for e in glossary(language) if e.match]
    bad = []
    for ids, strings in _translations(language):
        for e in entries:
            if not any(re.search(e.match, i, re.IGNORECASE) for i in ids):
                continue
            for s in strings:
                shown = s.replace("&&", "\0").replace("&", "").replace("\0", "&")  # menu accelerators
                if not any(f.casefold() in shown.casefold() for f in e.forms):
                    bad.append(f"{e.id}: {ids[0]!r} -> {s!r} (expected one of {list(e.forms)})")
    assert not bad, f"{len(bad)} translation(s) do not use the glossary:\n" + "\n".join(bad[:40])
