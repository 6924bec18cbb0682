"""How much of kanon stays English in German, French and Spanish, and what no longer fits: the issue's
outside bar (issue 20), measured rather than asserted.

1. The screenshot tour (``python main.py --screenshots``, every view and dialog, two runs, the linkage
   demo, the export and save dialogs) is taken four times in child processes: in English
   (``KANON_LANG=en``), under a German *system* locale (``LANG=de_DE.UTF-8`` and nothing else set, so the
   language comes from the system as a user's would), and with ``KANON_LANG=fr`` and ``es``. At each stop
   every text a person can read is collected (:mod:`kanon_gui.visible_text`: labels, buttons, menus,
   tabs, headers, tooltips, placeholders, combo items). A *phrase* is one such text, tags removed; a
   *word* is a run of two or more letters. Texts made only of data (column names, cell values, hierarchy
   labels, file names, numbers) are left out, as the issue says. A phrase or word of the English tour is
   *unchanged* when the same phrase or word appears anywhere in the other language's tour (a loose
   measure: a word that happens to be the same in both languages, "Export" or "Format", counts against
   us). The tour must also write the sample's 2,000 records as 2.000 (de) and 2 000 (fr).
2. Texts that do not fit: at every stop, a label, button, check box, group title, combo box, tab or
   table header whose text is wider than the room it has (Qt cuts it or elides it). Word-wrapped labels
   and widgets scrolled out of sight are not counted.
3. ``anonymize --language de --report-html`` on Adult (k=5): the share of the English report's text
   lines that are unchanged in German, and the record count written 30.162.

Run: python bench/bench_languages.py [--shared PATH] [--screens DIR] [--languages en de fr es]
(with ``--screens`` the tours' PNGs are kept in DIR/<lang>/; under ``xvfb-run`` they are real windows).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TAGS = re.compile(r"<[^<>]*>")
WORD = re.compile(r"[A-Za-zÀ-ÿ]{2,}")
HEX = re.compile(r"\b[0-9a-f]{16,}\b")  # SHA-256 hashes
#: How each tour chooses its language: KANON_LANG, except German, which comes from the system locale.
HOW = {
    "en": {"KANON_LANG": "en"},
    "de": {"LANG": "de_DE.UTF-8"},
    "fr": {"KANON_LANG": "fr"},
    "es": {"KANON_LANG": "es"},
}
#: The sample's 2,000 records as each language writes them (fr: a narrow no-break space, CLDR).
TWO_THOUSAND = {
    "en": ("2,000",),
    "de": ("2.000",),
    "fr": ("2\u202f000", "2\u00a0000", "2 000"),
    "es": ("2000",),
}


# --- the child: one tour -----------------------------------------------------------------------------------
def clipped(widget) -> list[str]:
    """Texts on ``widget`` and its visible children that are wider than the room they have."""
    from PySide6.QtWidgets import (
        QAbstractButton,
        QComboBox,
        QGroupBox,
        QLabel,
        QTableView,
        QTabWidget,
        QToolButton,
        QTreeView,
    )

    out: list[str] = []
    for w in [widget, *widget.findChildren(QLabel), *widget.findChildren(QAbstractButton)]:
        if not w.isVisible() or w.visibleRegion().isEmpty():
            continue
        if isinstance(w, QLabel):
            if w.wordWrap() or w.pixmap() is not None and not w.pixmap().isNull() or not w.text():
                continue
            lines = TAGS.sub("", w.text().replace("<br>", "\n")).split("\n")
            need = max(w.fontMetrics().horizontalAdvance(html.unescape(t)) for t in lines)
            if need > w.contentsRect().width() + 2:
                out.append(f"label {w.text()[:70]!r}: {need} > {w.contentsRect().width()} px")
        elif (
            isinstance(w, QAbstractButton)
            and not isinstance(w, QToolButton)
            and w.text()
            and w.sizeHint().width() > w.width() + 2
        ):
            out.append(f"button {w.text()[:70]!r}: {w.sizeHint().width()} > {w.width()} px")
    for box in widget.findChildren(QGroupBox):
        if box.isVisible() and not box.visibleRegion().isEmpty() and box.title():
            need = box.fontMetrics().horizontalAdvance(box.title()) + 16
            if need > box.width():
                out.append(f"group {box.title()[:70]!r}: {need} > {box.width()} px")
    for combo in widget.findChildren(QComboBox):
        if combo.isVisible() and not combo.visibleRegion().isEmpty() and combo.currentText():
            need = combo.fontMetrics().horizontalAdvance(combo.currentText()) + 28
            if need > combo.width():
                out.append(f"combo {combo.currentText()[:70]!r}: {need} > {combo.width()} px")
    for tabs in widget.findChildren(QTabWidget):
        bar = tabs.tabBar()
        if tabs.isVisible() and not tabs.visibleRegion().isEmpty():
            for i in range(bar.count()):
                if (
                    bar.tabRect(i).width() + 1 < bar.tabSizeHint(i).width()
                    or bar.tabRect(i).right() > bar.width()
                ):
                    need, room = bar.tabSizeHint(i).width(), bar.tabRect(i).width()
                    out.append(f"tab {bar.tabText(i)[:70]!r}: {need} > {room} px")
    for view in [*widget.findChildren(QTableView), *widget.findChildren(QTreeView)]:
        if view.isVisible() and not view.visibleRegion().isEmpty() and view.model() is not None:
            out.extend(_clipped_headers(view))
    return out


def _clipped_headers(view) -> list[str]:
    from PySide6.QtCore import Qt

    header = view.header() if hasattr(view, "header") else view.horizontalHeader()
    model, out = view.model(), []
    if header.isHidden():
        return out
    for section in range(min(header.count(), 60)):
        text = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        if not isinstance(text, str) or not text or header.isSectionHidden(section):
            continue
        need = max(header.fontMetrics().horizontalAdvance(t) for t in text.split("\n")) + 12
        if need > header.sectionSize(section) and header.sectionViewportPosition(section) < view.width():
            out.append(f"header {text[:70]!r}: {need} > {header.sectionSize(section)} px")
    return out


def tour(out_dir: Path) -> None:
    """Take the screenshot tour in the language the environment chooses; write texts.json beside the PNGs."""
    if not os.environ.get("DISPLAY"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from kanon_engine import i18n
    from kanon_gui import screenshots
    from kanon_gui.app import create_application
    from kanon_gui.visible_text import visible_texts

    create_application(["kanon"])
    stops: list[dict] = []
    save = screenshots._Shooter.save

    def look(shooter, name, widget):
        path = save(shooter, name, widget)
        window = widget.window()
        texts = visible_texts(widget) + (visible_texts(window) if window is not widget else [])
        stops.append({"stop": name, "texts": texts, "clipped": clipped(window)})
        return path

    screenshots._Shooter.save = look
    screenshots.take_screenshots(out_dir)
    data = {"language": i18n.current_language(), "stops": stops}
    (out_dir / "texts.json").write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


# --- the parent: compare ------------------------------------------------------------------------------------
def _data_words() -> set[str]:
    """Words a data value can show in the sample tour (they stay as they are in every language)."""
    from kanon_engine.project.project_file import Project
    from kanon_gui.resources import sample_project, sample_register

    project = Project.load(sample_project())
    table, _warnings = project.load_table()
    words = {w for c in table.frame.columns for w in WORD.findall(str(c))}
    for col in table.frame.columns:
        for value in table.frame[col].dropna().astype(str).unique()[:5000]:
            words.update(WORD.findall(value))
    for h in project.hierarchies.values():
        words.update(w for v in h.matrix.ravel() for w in WORD.findall(str(v)))
    register = sample_register()
    words.update(WORD.findall(str(register)) + WORD.findall(str(sample_project())))
    words.update(WORD.findall(register.read_text(encoding="cp1252")))
    return words


def phrases(texts: list[str], data: set[str]) -> set[str]:
    """The tour's phrases: each text, tags removed and spaces collapsed, if it has a non-data word."""
    out = set()
    for text in texts:
        for part in html.unescape(TAGS.sub(" ", text)).split("\n"):
            p = " ".join(part.split())
            if any(w not in data for w in WORD.findall(p)):
                out.add(p)
    return out


def words(found: set[str], data: set[str]) -> set[str]:
    return {w for p in found for w in WORD.findall(p) if w not in data}


def run_tours(languages: list[str], screens: Path) -> dict[str, dict]:
    out = {}
    for lang in languages:
        folder = screens / lang
        folder.mkdir(parents=True, exist_ok=True)
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("KANON_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES")
        }
        env.update(HOW[lang])
        env.setdefault("LANG", "C.UTF-8")
        env["KANON_APP_DATA_DIR"] = tempfile.mkdtemp(prefix="kanon-bench-lang-")  # no saved choice
        subprocess.run([sys.executable, __file__, "--tour", str(folder)], env=env, check=True)
        out[lang] = json.loads((folder / "texts.json").read_text(encoding="utf-8"))
    return out


def _pdf_lines(pdf: Path) -> list[str]:
    """The PDF's text lines as pdftotext reads them (what an ethics board reads); none without it."""
    import shutil

    if shutil.which("pdftotext") is None:
        return []
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True).stdout
    return [" ".join(t.split()) for t in text.split("\n") if t.strip()]


def report_lines(shared: Path, out: Path) -> tuple[dict[str, list[str]], dict[str, str], set[str]]:
    """The report's text lines (tags, styles and charts removed) of anonymize on Adult in English and
    German, the whole HTML of each, and the words of Adult's data (column names, values, labels)."""
    import pandas as pd

    adult = shared / "datasets" / "adult"
    qi = ["age", "education", "marital-status", "native-country", "race", "sex", "workclass"]
    lines, pages = {}, {}
    for lang in ("en", "de"):
        path = out / f"adult_report_{lang}.html"
        args = [str(adult / "adult.csv"), "--qi", ",".join(qi), "--k", "5", "--algorithm", "optimal"]
        for q in qi:
            args += ["--hierarchy", f"{q}={adult / f'adult_hierarchy_{q}.csv'}"]
        pdf = out / f"adult_report_{lang}.pdf"
        args += ["--output", str(out / f"adult_{lang}.csv"), "--report-html", str(path), "--language", lang]
        args += ["--report-pdf", str(pdf)]
        subprocess.run(
            [sys.executable, "-m", "kanon_engine", "anonymize", *args],
            check=True,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        pages[lang] = path.read_text(encoding="utf-8")
        body = pages[lang].split("<body", 1)[1]
        body = re.sub(r"<(style|svg)\b.*?</\1>", " ", body, flags=re.S | re.I)
        text = html.unescape(TAGS.sub("\n", body))
        lines[lang] = [" ".join(t.split()) for t in text.split("\n") if WORD.search(t)]
        lines[f"{lang}-pdf"] = _pdf_lines(pdf)
        lines[f"{lang}-html-source"] = [t for t in pages[lang].split("\n") if t.strip()]
    frame = pd.read_csv(adult / "adult.csv", sep=None, engine="python", dtype=str)
    data = {w for c in frame.columns for w in WORD.findall(c)}
    for col in frame.columns:
        data.update(w for v in frame[col].dropna().unique() for w in WORD.findall(v))
    for f in adult.glob("adult_hierarchy_*.csv"):
        data.update(WORD.findall(f.read_text(encoding="utf-8")))
    # the workload's queries are written in the workload language (as the pseudo-locale test reads them)
    data |= {"COUNT", "SUM", "AVG", "MIN", "MAX", "WHERE", "AND", "BETWEEN", "IN", "LIKE", "WEIGHT"}
    return lines, pages, data | set(WORD.findall(str(adult)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tour", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--screens", type=Path)
    parser.add_argument("--languages", nargs="+", default=["en", "de", "fr", "es"])
    parser.add_argument("--no-report", action="store_true")
    parser.add_argument("--no-tour", action="store_true")
    args = parser.parse_args()
    if args.tour:
        tour(args.tour)
        return
    screens = args.screens or Path(tempfile.mkdtemp(prefix="kanon-bench-lang-"))
    if not args.no_tour:
        compare_tours(args.languages, screens)
    if not args.no_report and (args.shared / "datasets" / "adult").is_dir():
        compare_reports(args.shared, screens)
    print(f"screenshots and texts: {screens}")


def compare_tours(languages: list[str], screens: Path) -> None:
    """Print the tours' figures: phrases and words unchanged, the sample's count, texts that do not fit."""
    langs = ["en", *[x for x in languages if x != "en"]]
    tours = run_tours(langs, screens)
    data = _data_words()
    texts = {lang: [t for s in tours[lang]["stops"] for t in s["texts"]] for lang in langs}
    english = phrases(texts["en"], data)
    english_words = words(english, data)
    print(f"English tour: {len(english)} phrases, {len(english_words)} words (data values left out)")
    print(
        f"{'language':<9} {'chosen':<7} {'stops':>5} {'phrases same':>13} {'words same':>11} "
        f"{'2,000 as':>9} {'clipped':>8}"
    )
    for lang in langs:
        other = phrases(texts[lang], data)
        same_p = english & other
        same_w = english_words & words(other, data)
        flat = "\n".join(texts[lang])
        shown = next((f for f in TWO_THOUSAND[lang] if f in flat), "-")
        clips = sorted({c for s in tours[lang]["stops"] for c in s["clipped"]})
        print(
            f"{lang:<9} {tours[lang]['language']:<7} {len(tours[lang]['stops']):>5} "
            f"{100 * len(same_p) / len(english):>12.1f}% {100 * len(same_w) / len(english_words):>10.1f}% "
            f"{shown!r:>9} {len(clips):>8}"
        )
        if lang != "en":
            print(f"  words unchanged: {', '.join(sorted(same_w))}")
            print(f"  phrases unchanged: {sorted(same_p)[:40]}")
        for c in clips:
            print(f"  clipped: {c}")


def compare_reports(shared: Path, screens: Path) -> None:
    """Print the Adult report's figures: English lines unchanged in German, the record count."""
    screens.mkdir(parents=True, exist_ok=True)
    lines, pages, adult_words = report_lines(shared, screens)
    en, de = lines["en"], set(lines["de"])
    same = [t for t in en if t in de]
    worded = [t for t in en if any(w not in adult_words for w in WORD.findall(HEX.sub(" ", t)))]
    same_worded = [t for t in worded if t in de]
    print(
        f"Adult report: {len(en)} English text lines, {100 * len(same) / len(en):.1f}% unchanged in "
        f"German; leaving out lines of data only (column names, values, hash, queries): {len(worded)} lines, "
        f"{100 * len(same_worded) / max(len(worded), 1):.1f}% unchanged; records written "
        f"{'30.162' if '30.162' in pages['de'] else 'NOT as 30.162'} (de), "
        f"{'30,162' if '30,162' in pages['en'] else 'NOT as 30,162'} (en)"
    )
    print(f"  unchanged lines with words: {same_worded}")
    for kind, what in (("pdf", "PDF text lines (pdftotext -layout)"), ("html-source", "HTML file lines")):
        en_lines, de_lines = lines[f"en-{kind}"], set(lines[f"de-{kind}"])
        if en_lines:
            kept = [t for t in en_lines if t in de_lines]
            print(
                f"  {what}: {len(en_lines)} English, {100 * len(kept) / len(en_lines):.1f}% unchanged: "
                f"{kept[:12]}"
            )


if __name__ == "__main__":
    main()
