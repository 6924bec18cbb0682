"""Keep the catalogs in step with the code: ``python -m kanon_engine.i18n.maintain COMMAND``.

``update``        re-extract every message (Python under kanon_engine/ and kanon_gui/, the report
                  template) into ``resources/locale/kanon.pot`` and merge it into every ``kanon.po``
                  (new messages arrive untranslated, changed ones marked fuzzy)
``check``         exit 1 and say why when the template is stale, a catalog lacks a message or has
                  an untranslated or fuzzy one, or a translation's placeholders differ from the
                  source's (the test suite runs the same check)
``init LANG``     start a catalog for a new language from the template (then translate it)
``stats``         messages and translated messages per language

Babel does the extraction (its Python extractor, and Jinja2's for the template) with the keywords of
:mod:`kanon_engine.i18n`: ``_``, ``N_``, ``ngettext``, ``pgettext``.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from kanon_engine.i18n.catalog import DOMAIN, PLACEHOLDER, SOURCE_LANGUAGE, locale_dir, po_path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("kanon_engine", "kanon_gui")
TEMPLATES = ("resources/report",)
KEYWORDS = {"_": None, "N_": None, "Nn_": (1, 2), "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
#: Fixed so that re-extracting the same messages writes the same file.
CREATED = datetime(2026, 1, 1, tzinfo=UTC)


def new_catalog(locale: str | None = None) -> Catalog:
    """An empty catalog with kanon's header (fixed dates: the same messages write the same file)."""
    return Catalog(
        locale=locale,
        domain=DOMAIN,
        charset="utf-8",
        fuzzy=False,
        project="kanon",
        version="1",
        creation_date=CREATED,
        revision_date=CREATED,
        copyright_holder="the kanon authors",
        msgid_bugs_address="",
        last_translator="kanon translators",
        language_team="kanon translators",
    )


Key = tuple[str | None, str, str | None]


def pot_path(root: Path | None = None) -> Path:
    return (root or locale_dir()) / f"{DOMAIN}.pot"


def extract(root: Path = ROOT) -> Catalog:
    """A Babel catalog of every message marked in the sources, in file order."""
    catalog = new_catalog()
    jobs = [(d, [("**.py", "python")]) for d in SOURCES] + [
        (d, [("**.j2", "jinja2.ext:babel_extract")]) for d in TEMPLATES
    ]
    for folder, method_map in jobs:
        base = root / folder
        found = extract_from_dir(
            str(base), method_map, keywords=KEYWORDS, comment_tags=("translators:",), strip_comment_tags=True
        )
        for filename, _lineno, message, comments, context in found:
            location = (f"{folder}/{filename}", 0)  # no line: the catalog names files only
            catalog.add(message, None, [location], auto_comments=comments, context=context)
    return catalog


def keys(catalog: Iterable[Message]) -> set[Key]:
    out: set[Key] = set()
    for m in catalog:
        if not m.id:
            continue
        if isinstance(m.id, (list, tuple)):
            out.add((m.context, m.id[0], m.id[1]))
        else:
            out.add((m.context, m.id, None))
    return out


def _read(path: Path, locale: str | None = None) -> Catalog:
    with open(path, "rb") as f:
        return read_po(f, locale=locale, domain=DOMAIN)


def _write(path: Path, catalog: Catalog) -> bool:
    """Write a catalog; returns whether the file changed."""
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, sort_output=False, include_lineno=False, ignore_obsolete=True)
    data = buf.getvalue()
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def languages(root: Path | None = None) -> list[str]:
    base = root or locale_dir()
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if po_path(p.name, base).is_file())


def update(root: Path = ROOT) -> list[str]:
    """Re-extract, write the template, merge it into every catalog; returns the files changed."""
    template = extract(root)
    changed = []
    base = root / "resources" / "locale"
    if _write(pot_path(base), template):
        changed.append(str(pot_path(base)))
    for lang in languages(base):
        path = po_path(lang, base)
        po = _read(path, lang)
        po.update(template, update_header_comment=False, update_creation_date=False)
        po.creation_date = CREATED
        if _write(path, po):
            changed.append(str(path))
    return changed


def init(language: str, root: Path = ROOT) -> Path:
    """A new catalog for ``language`` from the template (every message untranslated)."""
    base = root / "resources" / "locale"
    path = po_path(language, base)
    if path.exists():
        raise SystemExit(f"{path} exists already.")
    template = _read(pot_path(base))
    po = new_catalog(language)
    po.update(template)
    _write(path, po)
    return path


def placeholders(text: str | None) -> set[str]:
    return {m.group(1) for m in PLACEHOLDER.finditer(text or "")}


def _entry_problems(lang: str, m: Message) -> list[str]:
    label = m.id[0] if isinstance(m.id, (list, tuple)) else m.id
    where = f"{lang}: {label!r}"
    if m.fuzzy:
        return [f"{where} is marked fuzzy (check the translation, then remove the flag)"]
    if isinstance(m.id, (list, tuple)):
        forms = list(m.string) if isinstance(m.string, (list, tuple)) else [m.string]
        if not all(forms):
            return [f"{where} has an untranslated plural form"]
        out = []
        for i, form in enumerate(forms):
            source = m.id[0] if i == 0 and len(forms) > 1 else m.id[1]
            allowed = placeholders(m.id[0]) | placeholders(m.id[1])
            used = placeholders(form)
            if not used <= allowed or placeholders(source) - {"n"} - used:
                out.append(f"{where} form {i} has placeholders {sorted(used)}, the source {sorted(allowed)}")
        return out
    if not m.string:
        return [f"{where} is untranslated"]
    text, source = str(m.string), str(m.id)
    if placeholders(text) != placeholders(source):
        ours, theirs = sorted(placeholders(text)), sorted(placeholders(source))
        return [f"{where} has placeholders {ours}, the source {theirs}"]
    return []


def check(root: Path = ROOT) -> list[str]:
    """Every problem found, one sentence each (empty: the catalogs are complete and current)."""
    problems = []
    base = root / "resources" / "locale"
    extracted = keys(extract(root))
    if not pot_path(base).is_file():
        return [f"{pot_path(base)} is missing: run python -m kanon_engine.i18n.maintain update"]
    template = keys(_read(pot_path(base)))
    if template != extracted:
        new = sorted(k[1] for k in extracted - template)[:10]
        gone = sorted(k[1] for k in template - extracted)[:10]
        problems.append(
            f"the template is stale (new in the code: {new}; no longer in the code: {gone}): "
            "run python -m kanon_engine.i18n.maintain update"
        )
    for lang in languages(base):
        po = _read(po_path(lang, base), lang)
        have = keys(po)
        if have != template:
            missing = sorted(k[1] for k in template - have)[:5]
            problems.append(f"{lang}: the catalog is not merged with the template (missing {missing})")
        for m in po:
            if m.id:
                problems.extend(_entry_problems(lang, m))
    return problems


def stats(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    base = root / "resources" / "locale"
    out = {}
    for lang in languages(base):
        po = _read(po_path(lang, base), lang)
        entries = [m for m in po if m.id]
        done = [m for m in entries if not _entry_problems(lang, m)]
        out[lang] = (len(done), len(entries))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kanon_engine.i18n.maintain", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update")
    sub.add_parser("check")
    sub.add_parser("stats")
    p = sub.add_parser("init")
    p.add_argument("language")
    args = parser.parse_args(argv)
    if args.command == "update":
        for path in update():
            print(f"updated {path}")
        return 0
    if args.command == "init":
        if args.language == SOURCE_LANGUAGE:
            raise SystemExit("English is the source language: it needs no catalog.")
        print(f"created {init(args.language)}")
        return 0
    if args.command == "stats":
        for lang, (done, total) in stats().items():
            print(f"{lang}: {done} of {total} messages translated")
        return 0
    problems = check()
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
