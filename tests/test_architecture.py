"""Architecture rules that code review alone would let slip.

1. ``kanon_engine`` never imports Qt, pyqtgraph or the GUI, so the engine runs headless (CLI, CI, servers)
   and tests/engine passes with no Qt installed. Checked twice: statically (every import statement in the
   source, wherever it is, including inside functions) and dynamically (import every engine module in a
   fresh interpreter whose import system refuses those packages, which also catches indirect imports).
2. No product code uses network modules: kanon handles patient data and promises to work offline.
3. No import cycles among the product's modules, counting imports inside functions too (a cycle hidden
   behind a function-level import is still a cycle: the two modules cannot be understood, tested or
   moved apart). A package's ``__init__`` may import its own submodules; a submodule importing its own
   package's ``__init__`` back is a cycle like any other.
4. No function of the product is longer than 80 lines: a longer one does several jobs, and should say
   so by being several functions with names.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
ENGINE = REPO_ROOT / "kanon_engine"
GUI = REPO_ROOT / "kanon_gui"

GUI_MODULES = ("PySide6", "PySide2", "PyQt5", "PyQt6", "shiboken6", "pyqtgraph", "kanon_gui")
NETWORK_MODULES = (
    "socket",
    "ssl",
    "urllib.request",
    "http.client",
    "http.server",
    "ftplib",
    "smtplib",
    "xmlrpc.client",
    "requests",
    "urllib3",
    "httpx",
    "aiohttp",
    "PySide6.QtNetwork",
    "PySide6.QtWebEngineCore",
    "PySide6.QtWebEngineWidgets",
)


def imported_modules(source: str, filename: str = "<string>") -> Iterator[tuple[int, str]]:
    """Yield (line, dotted module name) for every absolute import in ``source``.

    ``from a import b`` yields both ``a`` and ``a.b`` (b may be a submodule, as in ``from urllib import
    request``). ``__import__("x")`` and ``importlib.import_module("x")`` with a literal name count too.
    Relative imports stay inside the package, so they are skipped.
    """
    tree = ast.parse(source, filename=filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module is None:
                continue
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", "")
            first = node.args[0]
            literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
            if name in ("__import__", "import_module") and literal:
                yield node.lineno, first.value


def matches(module: str, forbidden: tuple[str, ...]) -> str | None:
    """The forbidden name that ``module`` is or lies under, else None."""
    for name in forbidden:
        if module == name or module.startswith(name + "."):
            return name
    return None


def violations(files: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    """``path:line imports module`` for every forbidden import in ``files``."""
    found = []
    for path in files:
        for line, module in imported_modules(path.read_text(encoding="utf-8"), str(path)):
            if matches(module, forbidden):
                found.append(f"{path.relative_to(REPO_ROOT)}:{line} imports {module}")
    return sorted(set(found))


def python_files(package: Path) -> list[Path]:
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


# ------------------------------------------------------------------------------- the checker itself


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import PySide6.QtCore", {"PySide6.QtCore"}),
        ("from PySide6 import QtWidgets", {"PySide6", "PySide6.QtWidgets"}),
        ("def f():\n    import pyqtgraph as pg", {"pyqtgraph"}),
        ("from urllib import request", {"urllib", "urllib.request"}),
        ("import importlib\nimportlib.import_module('socket')", {"importlib", "socket"}),
        ("__import__('http.client')", {"http.client"}),
        ("from . import lattice\nfrom .data import table", set()),
    ],
)
def test_imported_modules_sees_every_form_of_import(source: str, expected: set[str]) -> None:
    assert {module for _, module in imported_modules(source)} == expected


def test_matches_respects_package_boundaries() -> None:
    assert matches("PySide6.QtCore", GUI_MODULES) == "PySide6"
    assert matches("kanon_gui", GUI_MODULES) == "kanon_gui"
    assert matches("kanon_guide", GUI_MODULES) is None
    assert matches("urllib.parse", NETWORK_MODULES) is None
    assert matches("urllib.request", NETWORK_MODULES) == "urllib.request"
    assert matches("socketserver", NETWORK_MODULES) is None


def test_violations_reports_file_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "REPO_ROOT", tmp_path)
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy\n\nfrom pyqtgraph import PlotWidget\n", encoding="utf-8")
    assert violations([bad], GUI_MODULES) == [
        "bad.py:3 imports pyqtgraph",
        "bad.py:3 imports pyqtgraph.PlotWidget",
    ]


# ------------------------------------------------------------------------------------- the rules


def test_engine_has_source_files() -> None:
    assert (ENGINE / "__init__.py").is_file()
    assert len(python_files(ENGINE)) >= 1


def test_engine_source_never_imports_gui_modules() -> None:
    found = violations(python_files(ENGINE), GUI_MODULES)
    assert not found, "kanon_engine must stay free of Qt/pyqtgraph/kanon_gui:\n" + "\n".join(found)


BLOCKED_IMPORT_PROBE = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys, traceback

    BLOCKED = set(json.loads(sys.argv[1]))

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"blocked by test_architecture: {name}")
            return None

    sys.meta_path.insert(0, Blocker())
    import kanon_engine

    failures = {}
    names = ["kanon_engine"]
    for info in pkgutil.walk_packages(kanon_engine.__path__, "kanon_engine."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue  # importing __main__ would run the CLI; the static check covers it
        names.append(info.name)
        try:
            importlib.import_module(info.name)
        except BaseException:
            failures[info.name] = traceback.format_exc(limit=-3)
    leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    print(json.dumps({"imported": names, "failures": failures, "leaked": leaked}))
    """
)


def test_engine_modules_import_with_gui_packages_blocked() -> None:
    blocked = sorted({name.split(".")[0] for name in GUI_MODULES})
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKED_IMPORT_PROBE, json.dumps(blocked)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"the import probe crashed:\n{proc.stderr}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "kanon_engine" in report["imported"]
    assert not report["leaked"], f"GUI modules got imported: {report['leaked']}"
    details = "\n".join(f"--- {name}\n{tb}" for name, tb in report["failures"].items())
    assert not report["failures"], (
        "these kanon_engine modules fail to import with PySide6/pyqtgraph/kanon_gui blocked "
        "(a 'blocked by test_architecture' line means a GUI import; anything else is a plain bug):\n"
        + details
    )


def test_product_code_uses_no_network_modules() -> None:
    files = python_files(ENGINE) + (python_files(GUI) if GUI.is_dir() else [])
    found = violations(files, NETWORK_MODULES)
    assert not found, "kanon must work offline; remove these network imports:\n" + "\n".join(found)


# ------------------------------------------------------------------------------------- import cycles
def module_graph(packages: list[Path]) -> dict[str, set[str]]:
    """``module -> product modules it imports`` for every module of ``packages``, counting every import
    statement wherever it is (top level, functions, ``TYPE_CHECKING`` blocks). ``from a import b``
    points at ``a.b`` when that is a module, else at ``a``."""
    files: dict[str, Path] = {}
    for package in packages:
        for path in python_files(package):
            parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join(parts)] = path

    def resolve(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets = {resolve(name) for _, name in imported_modules(path.read_text(encoding="utf-8"), str(path))}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def test_cycle_finder_sees_cycles_through_function_level_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "REPO_ROOT", tmp_path)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg import a\n", encoding="utf-8")
    (pkg / "a.py").write_text("from pkg.b import f\n", encoding="utf-8")
    (pkg / "b.py").write_text("def f():\n    from pkg import a\n", encoding="utf-8")
    (pkg / "c.py").write_text("import pkg.a\n", encoding="utf-8")
    graph = module_graph([pkg])
    assert graph["pkg.b"] == {"pkg", "pkg.a"} and graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == [["pkg", "pkg.a", "pkg.b"]]


def test_no_import_cycles_in_the_product() -> None:
    found = cycles(module_graph([ENGINE, GUI]))
    assert found == [], "import cycles (function-level imports included):\n" + "\n".join(
        " <-> ".join(c) for c in found
    )


# ------------------------------------------------------------------------------------- short functions
MAX_FUNCTION_LINES = 80


def long_functions(files: list[Path], limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``path:line name (N lines)`` for every function or method longer than ``limit`` lines."""
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_of_the_product_is_over_80_lines() -> None:
    files = python_files(ENGINE) + python_files(GUI) + [REPO_ROOT / "main.py"]
    found = long_functions(files)
    assert not found, (
        f"split these into functions with names (at most {MAX_FUNCTION_LINES} lines):\n" + "\n".join(found)
    )


# ------------------------------------------------------------------------------------- engine layers
#: The engine's layers, lowest first. A module imports from its own layer and the layers below, never
#: from a layer above (function-level and ``TYPE_CHECKING`` imports included), so each layer can be read,
#: tested and replaced knowing only what is under it. A unit is a folder or module under kanon_engine
#: (the longest that matches a module names its layer). Two folders hold two layers each, named apart:
#: ``release/`` (its file layer, the one guarded writer and the formats, which the readers of data use
#: too; above everything else, the export of a run) and ``core/`` (the node check, which joins counts,
#: privacy models and metrics). The order was read off the imports (issue 28) and is the README's.
ENGINE_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("kanon_engine", "errors", "progress", "resources", "params", "i18n")),
    ("files", ("release.fileio", "release.writer", "release.outputs", "release.pdf_check")),
    ("data", ("data", "hierarchy")),
    ("counting core", ("core",)),
    ("models and analyses", ("privacy", "workload")),
    ("what to do", ("config",)),
    ("measures", ("metrics",)),
    ("node check", ("core.evaluation", "core.person_sets")),
    ("release building", ("release.build", "release.cell_recoding", "result", "report.facts")),
    ("sources", ("sources",)),
    ("algorithms", ("algorithms",)),
    ("export", ("release",)),
    ("presentation", ("present",)),
    ("project", ("project",)),
    ("utility for studies", ("utility",)),
    ("report", ("report",)),
    ("session", ("session",)),
    ("command line", ("cli", "__main__")),
)


def layer_of(module: str) -> int | None:
    """The index in :data:`ENGINE_LAYERS` of an engine module (None outside the engine or unassigned)."""
    if module != "kanon_engine" and not module.startswith("kanon_engine."):
        return None
    name = module.removeprefix("kanon_engine").lstrip(".") or "kanon_engine"
    best: tuple[int, int] | None = None
    for index, (_title, units) in enumerate(ENGINE_LAYERS):
        for unit in units:
            inside = name == unit or name.startswith(unit + ".")
            if inside and (best is None or len(unit) > best[0]):
                best = (len(unit), index)
    return None if best is None else best[1]


def imports_nothing(path: Path) -> bool:
    """A module with no import statement (a package's docstring-only ``__init__``) couples nothing."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return not any(isinstance(n, ast.Import | ast.ImportFrom) for n in ast.walk(tree))


def module_path(module: str) -> Path:
    base = REPO_ROOT.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """``a (layer) -> b (higher layer)`` for every import that climbs, and the modules with no layer."""
    found = []
    for module in sorted(graph):
        mine = layer_of(module)
        if mine is None:
            found.append(f"{module} has no layer in ENGINE_LAYERS")
            continue
        for target in sorted(graph[module]):
            theirs = layer_of(target)
            if theirs is not None and theirs > mine and not imports_nothing(module_path(target)):
                found.append(f"{module} ({ENGINE_LAYERS[mine][0]}) -> {target} ({ENGINE_LAYERS[theirs][0]})")
    return found


def test_layer_checker_sees_a_climbing_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "REPO_ROOT", tmp_path)
    pkg = tmp_path / "kanon_engine"
    (pkg / "core").mkdir(parents=True)
    (pkg / "release").mkdir()
    (pkg / "__init__.py").write_text('"""root"""\n', encoding="utf-8")
    (pkg / "core" / "__init__.py").write_text('"""core"""\n', encoding="utf-8")
    (pkg / "release" / "__init__.py").write_text('"""release"""\n', encoding="utf-8")
    (pkg / "release" / "writer.py").write_text("X = 1\n", encoding="utf-8")
    export = "from kanon_engine.release.writer import X\n"
    (pkg / "release" / "export.py").write_text(export, encoding="utf-8")
    check = "def f():\n    from kanon_engine.release.export import X\n"
    check += "    from kanon_engine.release import writer\n"
    (pkg / "core" / "check.py").write_text(check, encoding="utf-8")
    assert layer_violations(module_graph([pkg])) == [
        "kanon_engine.core.check (counting core) -> kanon_engine.release.export (export)"
    ]


def test_engine_imports_never_climb_a_layer() -> None:
    found = layer_violations(module_graph([ENGINE]))
    assert not found, (
        "these imports go from a lower layer of the engine to a higher one (see ENGINE_LAYERS; move the "
        "shared piece down, or the module up):\n" + "\n".join(found)
    )


# ------------------------------------------------------------------------------------- private names
def private_imports(files: list[Path]) -> list[str]:
    """``path:line module._name`` for every private name (one leading underscore; ``_`` itself is the
    message lookup) a product module takes from another product module, by ``from m import _name`` or as
    ``m._name`` of an imported module."""
    products = ("kanon_engine", "kanon_gui")

    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__") and name != "_"

    found = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        where = path.relative_to(REPO_ROOT)
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in products:
                for alias in node.names:
                    if private(alias.name):
                        found.append(f"{where}:{node.lineno} {node.module}.{alias.name}")
                    modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                modules.update(a.asname or a.name for a in node.names if a.name.split(".")[0] in products)
        for node in ast.walk(tree):
            named = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            if named and private(node.attr) and node.value.id in modules:
                found.append(f"{where}:{node.lineno} {node.value.id}.{node.attr}")
    return sorted(found)


def test_private_name_finder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "REPO_ROOT", tmp_path)
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from kanon_engine.i18n import _, N_\nfrom kanon_engine.data.io import _read_head, read_table\n"
        "from kanon_engine.release import fileio\nfileio._try_lock(3)\nfrom os import _exit\n",
        encoding="utf-8",
    )
    assert private_imports([bad]) == [
        "bad.py:2 kanon_engine.data.io._read_head",
        "bad.py:4 fileio._try_lock",
    ]


def test_no_module_takes_a_private_name_of_another() -> None:
    files = python_files(ENGINE) + python_files(GUI)
    found = private_imports(files)
    assert not found, (
        "a name another module needs is that module's API: drop its underscore (and give it a "
        "docstring):\n" + "\n".join(found)
    )


# ------------------------------------------------------------------------------------- function-level imports
#: Modules an engine function may import where it needs them rather than at the top of its module: heavy
#: ones only some paths need (XLSX, Parquet, DuckDB, Dask, encryption, CLDR data), optional ones (Dask is
#: ``kanon[cluster]``) and platform ones. Any other import goes at the top, where a reader sees what a
#: module depends on; a function-level import of an engine module hides an edge of the layers above.
DEFERRED_IMPORTS = (
    "openpyxl",
    "pyarrow.parquet",
    "pyarrow.dataset",
    "duckdb",
    "distributed",
    "dask",
    "cryptography",
    "babel",
    "fcntl",
    "msvcrt",
    "resource",
    "ctypes",
    "scipy",
    "sklearn",
    "threadpoolctl",
)
#: Files other branches of issue 28 rewrite at the same time (the report's split, the privacy models, the
#: run plan's guard): their function-level imports are checked once those land. Remove a line when it has.
REWRITTEN_ELSEWHERE: tuple[str, ...] = ()


def function_level_imports(files: list[Path]) -> list[str]:
    """``path:line function imports module`` for every import inside a function of a module not in
    :data:`DEFERRED_IMPORTS`."""
    found = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    if not matches(name, DEFERRED_IMPORTS):
                        found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno} {fn.name} imports {name}")
    return sorted(set(found))


def test_function_level_import_finder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "REPO_ROOT", tmp_path)
    mod = tmp_path / "m.py"
    mod.write_text(
        "import json\n\ndef f():\n    import duckdb\n    from pyarrow import parquet\n"
        "    from kanon_engine.data import io\n    import hashlib\n",
        encoding="utf-8",
    )
    assert function_level_imports([mod]) == [
        "m.py:5 f imports pyarrow",
        "m.py:6 f imports kanon_engine.data",
        "m.py:7 f imports hashlib",
    ]


def test_function_level_imports_only_defer_heavy_or_optional_modules() -> None:
    files = [p for p in python_files(ENGINE) if str(p.relative_to(REPO_ROOT)) not in REWRITTEN_ELSEWHERE]
    found = function_level_imports(files)
    assert not found, (
        "import these at the top of the module (a function-level import is for the heavy, optional or "
        "platform modules of DEFERRED_IMPORTS):\n" + "\n".join(found)
    )
