"""Static checks of the translation calls: no user-facing sentence outside the catalog.

Every string literal in kanon_engine/ and kanon_gui/ that reads like words for a person (two words or
more, or one capitalised word shown by a Qt text setter) must be inside ``_()``, ``N_()``, ``ngettext``
or ``pgettext``, unless it is one of the kinds below that nobody reads on screen or in the report:

- docstrings, comments; log messages (``LOG.info(...)``: the log is for support, in English);
- the text of programming errors (``ValueError``, ``TypeError``, ... : a bug, shown only in the crash
  dialog's traceback) and ``assert`` messages;
- the command line's ``--help`` (argparse ``help=``, ``description=``, ``metavar=``): kanon's command
  line speaks English to scripts unless ``--language`` is given, and its help is read before that;
- the few reviewed lines of :data:`EXCEPTIONS`, each with the reason.

And: no f-string, ``%`` or ``.format`` *inside* a translation call (the catalog could not hold the
message; placeholders are named and filled after translation), and no module assigns ``_`` while it
imports the translation function of that name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("kanon_engine", "kanon_gui")
TRANSLATE = {"_", "N_", "Nn_", "ngettext", "pgettext"}
LOG_METHODS = {"debug", "info", "warning", "error", "exception", "critical", "log"}
PROGRAMMING_ERRORS = {
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "RuntimeError",
    "NotImplementedError",
    "AssertionError",
    "AttributeError",
    "LookupError",
    "argparse.ArgumentTypeError",
}
ARGPARSE_KEYWORDS = {
    "help",
    "description",
    "metavar",
    "epilog",
    "prog",
    "usage",
    "report_help",
    "release_help",
}
#: Calls and functions that make the command line's --help (English; see the module docstring).
HELP_CALLS = {"ProjectFlag", "add_output_flags"}
#: Calls whose string argument is a key, not text (the text is looked up from it).
KEY_CALLS = {"term", "setStyleSheet", "_task_failed", "text_of", "show_error", "Formatter", "log_error"}
HELP_FUNCTIONS = {"_values_text", "_range_words", "_off_help", "add_output_flags"}
#: Calls whose string argument is a regular expression, never shown (the command line's parser reads
#: argparse's English refusals with them, to say them in kanon's words: kanon_engine/cli/parser.py).
REGEX_CALLS = {"re.compile", "re.fullmatch", "re.match", "re.search"}
#: Qt setters and constructors whose text argument is shown on screen.
QT_TEXT_CALLS = {
    "setText",
    "setWindowTitle",
    "setToolTip",
    "setStatusTip",
    "setPlaceholderText",
    "setTitle",
    "setLabelText",
    "setTabText",
    "setTabToolTip",
    "setSuffix",
    "setPrefix",
    "setSpecialValueText",
    "setWhatsThis",
    "addAction",
    "addMenu",
    "addTab",
    "insertTab",
    "addItem",
    "addItems",
    "addRow",
    "addButton",
    "setHorizontalHeaderLabels",
    "setVerticalHeaderLabels",
    "setLabel",
    "show_message",
    "setFormat",
    "QLabel",
    "QPushButton",
    "QToolButton",
    "QCheckBox",
    "QRadioButton",
    "QGroupBox",
    "QAction",
    "QMenu",
    "QTableWidgetItem",
    "QListWidgetItem",
    "QTreeWidgetItem",
    "information",
    "warning",
    "critical",
    "question",
    "getText",
    "getSaveFileName",
    "getOpenFileName",
    "getExistingDirectory",
}
#: Reviewed: (file, literal) pairs that are shown but are not words of a language.
GENERATED_KEY = "generated: {n_queries} COUNT queries, selectivity {selectivity}, seed {seed}"
GENERATED_KEY_PATTERN = r"^generated: (\d+) COUNT queries, selectivity (\S+), seed (\S+)$"
WORKLOAD_EXAMPLE = "COUNT(*) WHERE age BETWEEN 30 AND 39 AND sex = 'F'"
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("kanon_engine/data/persons.py", "date of birth"): "a kind key of the column-name rules (patient-level)",
    **{
        ("kanon_engine/data/roles.py", kind): "a kind key of the column-name rules (shown through kind_words)"
        for kind in (
            "patient number",
            "insurance number",
            "date of birth",
            "admission date",
            "marital status",
        )
    },
    **{
        (
            "kanon_engine/project/validation.py",
            kind,
        ): "a kind key of the column-name rules (shown through kind_words)"
        for kind in ("date of birth", "admission date")
    },
    **{
        (path, kind): "a kind key of the outputs (shown through _KIND_PHRASES)"
        for path in ("kanon_engine/release/outputs.py", "kanon_engine/session/export.py")
        for kind in ("JSON report", "HTML report", "PDF report", "value mapping")
    },
    (
        "kanon_engine/workload/generate.py",
        GENERATED_KEY,
    ): "a generated workload's source key (describe_source)",
    ("kanon_engine/workload/generate.py", GENERATED_KEY_PATTERN): "the pattern that reads that key",
    ("kanon_engine/workload/query.py", "{} BETWEEN {} AND {}"): "a query in the workload language (keywords)",
    ("kanon_gui/views/workload_view.py", WORKLOAD_EXAMPLE): "a query in the workload language (keywords)",
    ("kanon_gui/views/workload_view.py", "DejaVu Sans Mono"): "a font's name",
    ("kanon_gui/views/linkage_view.py", "read public list"): "a task's name in the log",
    ("kanon_gui/views/linkage_view.py", "linkage demonstration"): "a task's name in the log",
    ("kanon_gui/main_window.py", "open project"): "a task's name in the log",
    ("kanon_gui/main_window.py", "apply node"): "a task's name in the log",
    ("kanon_gui/views/attributes_panel.py", "prepare hierarchy"): "a task's name in the log",
    ("kanon_gui/views/attributes_panel.py", "count a column"): "a task's name in the log",
    ("kanon_gui/views/risk_view.py", "risk analysis"): "a task's name in the log",
}
#: Whole files that are tools for developers, not for users.
TOOL_FILES = {
    "kanon_engine/i18n/maintain.py": "the catalog maintainer's command, for developers",
    "kanon_gui/screenshots.py": "the screenshot tour, a developer's tool (the pictures show the app's words)",
    "kanon_gui/selftest.py": "the installation check, for IT staff in a terminal (English, like a log)",
}

WORDS = re.compile(r"[A-Za-zÀ-ÿ]{2,}")
MARKUP = re.compile(r"""=['"]|^['"]\s|^\s*[\w-]+\s*:\s*[^;]+;|\{\s*[\w-]+\s*:""")  # markup, attributes, CSS
TAGS = re.compile(r"<[^<>]*>")
#: SQL the DuckDB source sends to its database (keywords and identifiers, never shown to a user)
SQL = re.compile(
    r"^\s*(SELECT|CREATE|DROP|SET|JOIN|LEFT JOIN|INSERT|WITH|CASE WHEN)\b|^\s*(CAST|count)\("
    r"|\b(GROUP|ORDER) BY\b|\bAS [a-z](\{\}|0)$"
)


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _name(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    return ""


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _is_exempt_call(call: ast.Call) -> bool:
    name = _name(call.func)
    last = name.rsplit(".", 1)[-1]
    if last in TRANSLATE:
        return True
    if last in LOG_METHODS and any(w in name.lower() for w in ("log", "logger", "logging")):
        return True
    if name in PROGRAMMING_ERRORS or last in PROGRAMMING_ERRORS or name in REGEX_CALLS:
        return True
    if last in HELP_CALLS or last in KEY_CALLS:
        return True
    return last in ("add_argument", "add_parser", "ArgumentParser", "add_subparsers", "add_argument_group")


def _reads_like_words(text: str, shown: bool) -> bool:
    if MARKUP.search(text):
        return False  # HTML / SVG markup and its attributes, not words
    if SQL.search(text):
        return False  # a database query, not words
    text = TAGS.sub(" ", text)  # <b>words</b> are words
    words = WORDS.findall(text)
    if len(words) >= 2 and " " in text.strip():
        return True
    return shown and len(words) == 1 and text.strip()[:1].isupper() and len(text.strip()) > 1


#: Qt calls whose first argument is always text on screen: even one lowercase word there is flagged.
FIRST_ARG_TEXT = {
    "setText",
    "setWindowTitle",
    "setToolTip",
    "setStatusTip",
    "setPlaceholderText",
    "setTitle",
    "setLabelText",
    "QLabel",
    "QPushButton",
    "QCheckBox",
    "QRadioButton",
    "QGroupBox",
}


def _first_arg_words(call: ast.Call) -> list[tuple[int, str]]:
    last = _name(call.func).rsplit(".", 1)[-1]
    if last not in FIRST_ARG_TEXT or not call.args:
        return []
    arg = call.args[0]
    if (
        isinstance(arg, ast.Constant)
        and isinstance(arg.value, str)
        and WORDS.search(TAGS.sub(" ", arg.value))
    ) and not MARKUP.search(arg.value):
        return [(arg.lineno, arg.value)]
    return []


def _literals_outside_calls(path: Path) -> list[tuple[int, str]]:
    """User-facing literals of one file that no translation call holds."""
    rel = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, exempt: bool, shown: bool) -> None:
        if isinstance(node, ast.Call):
            exempt = exempt or _is_exempt_call(node)
            if not exempt:
                found.extend(w for w in _first_arg_words(node) if (rel, w[1]) not in EXCEPTIONS)
            last = _name(node.func).rsplit(".", 1)[-1]
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.keyword) and child.arg in ARGPARSE_KEYWORDS:
                    visit(child, True, shown)
                else:
                    visit(child, exempt, shown or last in QT_TEXT_CALLS)
            return
        if isinstance(node, ast.Assert):
            return
        if isinstance(node, ast.FunctionDef) and node.name in HELP_FUNCTIONS:
            return
        if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Dict, ast.List, ast.Tuple)):
            visit(node.value, exempt, shown)  # {"a": "some words", ...}[key]: the values are text
            return
        if isinstance(node, (ast.Subscript, ast.Compare)) and not shown:
            return  # d["key words"], x == "some value": data, not text
        if isinstance(node, ast.Dict):
            for value in node.values:  # {"key words": ...}: keys are data, values may be text
                visit(value, exempt, shown)
            return
        if isinstance(node, ast.JoinedStr):  # an f-string: its words together, values left out
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            reviewed = (rel, text) in EXCEPTIONS
            if not exempt and not reviewed and _reads_like_words(text.replace("{}", "0"), shown):
                found.append((node.lineno, text))
            return
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            reviewed = (rel, text) in EXCEPTIONS
            if not exempt and not reviewed and id(node) not in docs and _reads_like_words(text, shown):
                found.append((node.lineno, text))
            return
        for child in ast.iter_child_nodes(node):
            visit(child, exempt, shown)

    visit(tree, False, False)
    return found


def _files() -> list[Path]:
    return [p for p in _sources() if p.relative_to(ROOT).as_posix() not in TOOL_FILES]


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_user_facing_literal_outside_a_translation_call(path: Path) -> None:
    found = _literals_outside_calls(path)
    shown = "\n".join(f"  line {line}: {text!r}" for line, text in found[:40])
    assert not found, (
        f"{len(found)} literal(s) in {path.name} read like words but are not translated:\n{shown}"
    )


def _translation_calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func).rsplit(".", 1)[-1] in TRANSLATE:
            yield node


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_translation_calls_hold_plain_literals(path: Path) -> None:
    """The message of ``_()`` is a literal (or a name holding an ``N_()`` literal), never built."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for call in _translation_calls(tree):
        name = _name(call.func).rsplit(".", 1)[-1]
        count = {"ngettext": 2, "pgettext": 2, "Nn_": 2}.get(name, 1)
        for arg in call.args[:count]:
            if isinstance(arg, (ast.JoinedStr, ast.BinOp)) or (
                isinstance(arg, ast.Call) and _name(arg.func).endswith("format")
            ):
                bad.append(f"line {call.lineno}: {ast.unparse(arg)[:80]}")
            elif name in ("N_", "Nn_") and not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                bad.append(f"line {call.lineno}: N_ of {ast.unparse(arg)[:80]}")
    assert not bad, "messages built inside a translation call:\n" + "\n".join(bad)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_underscore_is_not_reassigned_where_it_translates(path: Path) -> None:
    """``for _ in ...`` in a module that imports ``_`` would shadow the translation function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imports = any(
        isinstance(n, ast.ImportFrom) and any(a.name == "_" and a.asname is None for a in n.names)
        for n in ast.walk(tree)
    )
    if not imports:
        return
    bad = [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and n.id == "_" and isinstance(n.ctx, ast.Store)
    ]
    assert not bad, f"{path.name} assigns _ on lines {bad} but imports _ to translate"


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_is_translated_at_import(path: Path) -> None:
    """``_()`` at module level, in a class body or as a default argument runs once, at import, in whatever
    language is in force then: such text must be marked with ``N_`` and translated where it is used."""
    if "/i18n/" in path.as_posix():
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    bad = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _name(node.func) in ("_", "ngettext", "pgettext")):
            continue
        q, at_import = node, True
        while q in parents:
            q = parents[q]
            if isinstance(q, ast.arguments):
                break  # a default argument: evaluated when the function is defined
            if isinstance(q, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                at_import = False
                break
        if at_import:
            bad.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    assert not bad, "translated at import (use N_ and translate where shown):\n" + "\n".join(bad)
