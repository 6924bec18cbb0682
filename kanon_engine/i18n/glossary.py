"""The glossary of the field's terms per language (``resources/glossary/<lang>.json``), with sources.

Each language's file names the term kanon uses for every concept (k-Anonymität, quasi-identifiant,
supresión, ...), the forms a translation may take, and where the term comes from (the BDI guide,
the Article 29 Working Party's Opinion 05/2014 in that language, the national data-protection
authority), or that no source was found. The workbench's glossary shows it; ``tests/test_glossary.py``
checks that the catalogs use these terms wherever the English message uses the English one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from kanon_engine.i18n.catalog import SOURCE_LANGUAGE
from kanon_engine.resources import resources_dir


@dataclass(frozen=True)
class GlossaryEntry:
    """One concept: ``term`` in the language, its English ``english`` name, the key of its one-sentence
    definition (``kanon_gui.glossary.TERMS``), and ``source`` (a citation, or "" when none was found)."""

    id: str
    term: str
    english: str
    definition: str | None
    source: str
    status: str
    forms: tuple[str, ...] = ()
    match: str = ""


def glossary_path(language: str) -> Path:
    return resources_dir() / "glossary" / f"{language}.json"


@cache
def _read(language: str) -> dict[str, Any]:  # the glossary file's JSON, as written
    path = glossary_path(language)
    if not path.is_file():
        path = glossary_path(SOURCE_LANGUAGE)
    return json.loads(path.read_text(encoding="utf-8"))


def glossary(language: str) -> list[GlossaryEntry]:
    """The glossary of ``language`` (English when the language has none)."""
    english = {t["id"]: t for t in _read(SOURCE_LANGUAGE)["terms"]}
    doc = _read(language)
    sources = doc.get("sources", {})
    out = []
    for t in doc["terms"]:
        en = english.get(t["id"], {})
        out.append(
            GlossaryEntry(
                id=t["id"],
                term=t["term"],
                english=en.get("term", t["term"]),
                definition=en.get("definition"),
                source=sources.get(t.get("source") or "", ""),
                status=t.get("status", ""),
                forms=tuple(t.get("forms", ())),
                match=en.get("match", ""),
            )
        )
    return out
