"""Every word on screen comes through a catalog: the pseudo-locale walk.

In the pseudo-locale every catalog message is wrapped and accented (``[!!Øpéñ!!]``) and Qt's own texts
are wrapped the same way (kanon_gui.language.PseudoTranslator). The walk is the screenshot tour (every
view and dialog, two runs, the export and save dialogs, the out-of-date banner) plus the menus, the
glossary, the About box, the crash dialog and the charts' menu; at each stop it reads every visible text
(labels, buttons, actions, group titles, tabs, headers, tooltips, placeholders, window titles, combo
items) and fails on any word that is neither inside a wrapped message nor a data value (column names,
cell values, hierarchy labels, file names, numbers). The report is walked the same way: its HTML in the
pseudo-locale has no English word outside the wrapped messages and the data.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget

from kanon_engine import i18n
from kanon_engine.project.project_file import Project
from kanon_gui.visible_text import menu_texts, visible_texts

pytestmark = pytest.mark.gui

WRAPPED = re.compile(r"\[!!((?!\[!!).)*?!!\]", re.DOTALL)
TAGS = re.compile(r"<[^<>]*>")
WORD = re.compile(r"[A-Za-zÀ-ÿ]{2,}")
UNCLOSED = re.compile(r"\[!![^\[\]!]*")
HEX = re.compile(r"\b[0-9a-f]{16,}\b")  # SHA-256 hashes
#: Names that are the same in every language (products, formats, standards, units of the field).
NAMES = {
    "kanon", "ARX", "CSV", "TSV", "XLSX", "Excel", "Parquet", "JSON", "HTML", "PDF", "PNG", "SVG", "SHA",
    "HMAC", "UTF", "Unicode", "Latin", "Windows", "DOS", "Mac", "Roman", "ISO", "cp", "DM", "AVG", "GCP",
    "NCP", "Ctrl", "Esc", "MB", "GB", "Mondrian", "Datafly", "Samarati", "Incognito", "Optimal", "Sweeney",
    "Prec", "Loss", "nbsp", "amp", "lt", "gt", "KANON", "LANG", "Deutsch", "Français", "Español",
    "English", "Pseudo",
}  # fmt: skip


def _words_of_data(table, project: Project) -> set[str]:
    """Every word a data value, a column name, a hierarchy label or a file name can show."""
    words: set[str] = set()
    frame = table.frame
    for col in frame.columns:
        words.update(WORD.findall(str(col)))
        for value in frame[col].dropna().astype(str).unique()[:5000]:
            words.update(WORD.findall(value))
    for h in project.hierarchies.values():
        for value in h.matrix.ravel():
            words.update(WORD.findall(str(value)))
    return words


def _stray_words(text: str, data: set[str]) -> list[str]:
    """Words of ``text`` that did not come through a catalog and are no data value."""
    rest = HEX.sub(" ", TAGS.sub(" ", text))
    while True:
        stripped = WRAPPED.sub(" ", rest)
        if stripped == rest:
            break
        rest = stripped
    # a wrapped message cut short on purpose (an algorithm's title up to its parenthesis) loses its end
    rest = UNCLOSED.sub(" ", rest)
    return [w for w in WORD.findall(rest) if w not in data and w not in NAMES]


class _Collector:
    def __init__(self, data: set[str]) -> None:
        self.data = data
        self.stray: dict[str, set[str]] = {}

    def look(self, where: str, widget: QWidget) -> None:
        for text in visible_texts(widget):
            words = _stray_words(text, self.data)
            if words:
                self.stray.setdefault(f"{where}: {text[:90]!r}", set()).update(words)


@pytest.fixture
def pseudo_language(qapp):
    from kanon_gui.language import install_language

    install_language(i18n.PSEUDO)
    yield
    install_language(i18n.SOURCE_LANGUAGE)


def test_every_visible_word_comes_through_a_catalog(
    qapp, qtbot, tmp_path, sample_dir, monkeypatch, pseudo_language
):
    from kanon_gui import screenshots
    from kanon_gui.dialogs.crash_dialog import CrashDialog
    from kanon_gui.glossary import glossary_html
    from kanon_gui.views.plot_menu import plot_menu

    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    data = _words_of_data(table, project) | set(WORD.findall(str(sample_dir / "sample_project.json")))
    # the linkage demo's public register (invented people; German column names) is data too
    from kanon_gui.resources import sample_register

    data |= set(WORD.findall(sample_register().read_text(encoding="cp1252")))
    collector = _Collector(data | {"ValueError"})  # the crash dialog's title is the error's name
    windows: list[QWidget] = []

    def look(shooter, name: str, widget: QWidget) -> Path:
        screenshots.settle(50)
        window = widget.window()
        if window not in windows:
            windows.append(window)
        collector.look(name, widget)
        if window is not widget:
            collector.look(name, window)
        shooter.saved.append(tmp_path / f"{name}.png")
        return shooter.saved[-1]

    monkeypatch.setattr(screenshots._Shooter, "save", look)
    monkeypatch.setattr(screenshots, "report_pages", lambda window, out_dir: [])
    screenshots.take_screenshots(tmp_path)

    from kanon_engine.i18n.glossary import glossary

    # the glossary names each term in the language's own glossary file (English in the pseudo-locale)
    terms = {w for e in glossary(i18n.PSEUDO) for w in WORD.findall(f"{e.term} {e.english}")}
    for text in (glossary_html(),):
        words = _stray_words(text, collector.data | terms)
        if words:
            collector.stray[f"glossary: {text[:90]!r}"] = set(words)
    crash = CrashDialog("ValueError", "Traceback (most recent call last): ...")
    qtbot.addWidget(crash)
    collector.look("crash dialog", crash)
    from PySide6.QtWidgets import QGraphicsView

    view = QGraphicsView()
    qtbot.addWidget(view)
    for text in menu_texts(plot_menu(view)):
        words = _stray_words(text, collector.data)
        if words:
            collector.stray[f"chart menu: {text!r}"] = set(words)

    report = "\n".join(f"{where} -> {sorted(words)}" for where, words in sorted(collector.stray.items()))
    assert not collector.stray, f"text on screen that no catalog holds:\n{report}"


def test_the_report_in_the_pseudo_locale_has_no_english_word(sample_dir) -> None:
    """Every word of the report's HTML comes through the catalog (the data aside)."""
    from kanon_engine.algorithms import get_algorithm
    from kanon_engine.report.build import build_report
    from kanon_engine.report.html import render_html

    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    config = project.config(table)
    result = get_algorithm(project.algorithm, **project.algorithm_params).run(table, config)
    with i18n.using(i18n.PSEUDO):
        html = render_html(build_report(table, result, project))
    body = html.split("<body>", 1)[1]
    data = _words_of_data(table, project) | set(WORD.findall(str(project.data_path)))
    words = sorted(set(_stray_words(body, data)))
    assert not words, f"report words that no catalog holds: {words}"


@pytest.mark.parametrize("algorithm", ["local-suppression", "local-recoding"])
def test_a_cell_level_report_with_a_workload_in_the_pseudo_locale_has_no_english_word(
    sample_dir, algorithm
) -> None:
    """The sections only some runs have: cell-level models (what * means, values changed) and the
    fitness for a generated workload."""
    from kanon_engine.algorithms import get_algorithm
    from kanon_engine.report.build import build_report
    from kanon_engine.report.html import render_html
    from kanon_engine.workload.evaluate import with_workload
    from kanon_engine.workload.generate import default_workload

    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    config = project.config(table)
    with i18n.using(i18n.PSEUDO):  # as the command line runs: its notes in the report's language
        result = get_algorithm(algorithm).run(table, config)
        result = with_workload(result, table, default_workload(table, config))
        html = render_html(build_report(table, result, project))
    body = html.split("<body>", 1)[1]
    data = _words_of_data(table, project) | set(WORD.findall(str(project.data_path)))
    # the workload's queries are written in the workload language (COUNT, WHERE, AND, BETWEEN, IN)
    data |= {"COUNT", "WHERE", "AND", "BETWEEN", "IN", "LIKE"}
    words = sorted(set(_stray_words(body, data)))
    assert not words, f"report words that no catalog holds: {words}"
