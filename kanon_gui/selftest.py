"""``kanon --self-test``: prove an installed copy works, with no display and no network.

Why it exists: kanon is installed on air-gapped hospital machines from a file someone carried in, and
whoever installed it has no debugger there. One command answers "does this copy work?": it opens the
bundled sample (``resources/sample/sample_project.json``), anonymizes it with Datafly (Sweeney 2002,
"Achieving k-anonymity privacy protection using generalization and suppression") and, when registered,
Mondrian (LeFevre, DeWitt, Ramakrishnan 2006, "Mondrian multidimensional k-anonymity") at k=5, exports
each release and its de-identification report (HTML and PDF) into a temporary folder, and checks them:
every release file on disk is 5-anonymous by the independent
:func:`kanon_engine.core.table_check.check_table`,
every file is non-empty, the PDF is a PDF. It saves the sample project with a password and opens it
again (the ``cryptography`` package loads; a wrong password is refused). It also opens and closes the
main window offscreen (which catches modules a frozen bundle forgot) and checks that no network or
web-engine Qt module was loaded.

It prints one line per step and exits 0 when everything passed, 1 at the first failure (the step and a
plain reason are printed). The packaging smoke test and CI run it on the built bundle. It writes nothing
outside its temporary folder (or ``--output DIR``), never the user's settings or log.

``report_first_paint(window)`` is the start-up probe used to measure launch-to-first-paint: with the
environment variable ``KANON_FIRST_PAINT=1`` the window prints the seconds from process start to its
first paint event and quits (see packaging/measure_startup.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: The privacy level the self-test asks for.
K = 5
#: Qt modules an offline product must never load (checked after the workflow).
FORBIDDEN_MODULES = (
    "PySide6.QtNetwork",
    "PySide6.QtWebEngineCore",
    "PySide6.QtWebEngineWidgets",
    "PySide6.QtWebEngine",
    "PySide6.QtWebChannel",
    "PySide6.QtWebSockets",
)


class SelfTestFailure(Exception):
    """A check failed; the message is one plain sentence."""


class _Steps:
    """Runs named steps, printing ``ok``/``FAIL`` lines with the time each took."""

    def __init__(self, out: Any = None) -> None:
        self.out = out or sys.stdout
        self.count = 0

    def run(self, name: str, fn: Callable[[], str]) -> None:
        start = time.perf_counter()
        try:
            detail = fn()
        except Exception as exc:  # noqa: BLE001 - any failure is reported as the step's failure
            print(f"FAIL {name}: {type(exc).__name__}: {exc}", file=self.out, flush=True)
            raise SelfTestFailure(name) from exc
        self.count += 1
        print(f"ok   {name}: {detail} ({time.perf_counter() - start:.2f} s)", file=self.out, flush=True)


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kanon --self-test", description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-test", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--output",
        metavar="DIR",
        help="write the releases and reports into DIR and keep "
        "them (default: a temporary folder, removed afterwards)",
    )
    parser.add_argument("--no-window", action="store_true", help="skip opening the main window")
    return parser.parse_args(list(argv))


def _ensure_app() -> Any:
    """A QApplication (offscreen unless a platform was chosen) with the bundled fonts registered."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication(["kanon-self-test"])


def _nonempty(path: Path) -> int:
    if not path.is_file():
        raise SelfTestFailure(f"{path.name} was not written.")
    size = path.stat().st_size
    if size == 0:
        raise SelfTestFailure(f"{path.name} is empty.")
    return size


def _algorithm_runs() -> list[tuple[str, dict[str, Any]]]:
    """Datafly (with the sample project's suppression limit), Mondrian and local suppression (every
    record kept, '*' a value of its own) when they are registered."""
    from kanon_engine.algorithms import algorithms

    names = algorithms()
    runs: list[tuple[str, dict[str, Any]]] = [("datafly", {"suppression_limit": 0.05})]
    for name in ("mondrian", "local-suppression"):
        if name in names:
            runs.append((name, {}))
    return runs


def _check(frame: Any, qi: list[str], result: Any) -> Any:
    """k of a release as written: a cell-level one counts '*' as a value (all-'*' rows are a group)."""
    from kanon_engine.core.table_check import check_table
    from kanon_engine.hierarchy.model import ROOT

    return check_table(frame, qi, K, None if getattr(result, "cell_level", False) else ROOT)


def run_self_test(folder: Path, window: bool = True, out: Any = None) -> int:
    """Run every step, writing into ``folder``; returns the number of steps passed.

    Raises :class:`SelfTestFailure` at the first failing step (after printing its ``FAIL`` line).
    """
    steps = _Steps(out)
    ctx: dict[str, Any] = {}

    def qt() -> str:
        from PySide6 import __version__ as pyside_version

        from kanon_gui.resources import load_fonts, resources_dir

        ctx["app"] = _ensure_app()
        family = load_fonts()
        if not family:
            raise SelfTestFailure(f"the bundled font in {resources_dir() / 'fonts'} could not be loaded.")
        from PySide6.QtGui import QGuiApplication

        return f"PySide6 {pyside_version}, platform {QGuiApplication.platformName()}, font {family}"

    def load() -> str:
        from kanon_engine.project.project_file import Project
        from kanon_gui.resources import sample_project

        path = sample_project()
        project = Project.load(path)
        table, warnings = project.load_table()
        if warnings:
            raise SelfTestFailure(" ".join(warnings))
        ctx.update(project=project, table=table, project_path=path)
        return f"{path.name}: {table.n_rows:,} rows, {len(table.columns)} columns"

    steps.run("Qt and bundled font", qt)
    steps.run("languages", _languages_step)
    steps.run("open the sample project", load)
    for name, params in _algorithm_runs():
        _run_and_export(steps, ctx, name, params, folder)
    steps.run("XLSX and Parquet", lambda: _formats_step(ctx, folder))
    steps.run("protected project", lambda: _protected_step(ctx, folder))
    steps.run("utility study (scikit-learn, scipy)", lambda: _utility_step(ctx))
    if window:
        # the window reads and saves settings (its size): into the temporary folder, not the user's profile
        from kanon_gui.appdata import APP_DATA_ENV

        before = os.environ.get(APP_DATA_ENV)
        os.environ[APP_DATA_ENV] = str(folder / "app-data")
        try:
            steps.run("main window (offscreen)", _window_step)
        finally:
            if before is None:
                os.environ.pop(APP_DATA_ENV, None)
            else:
                os.environ[APP_DATA_ENV] = before
    steps.run("offline", _offline_step)
    return steps.count


def _run_and_export(
    steps: _Steps, ctx: dict[str, Any], name: str, params: dict[str, Any], folder: Path
) -> None:
    """Anonymize with ``name`` at k=5, export the release and the reports, check the files (each step
    through the engine's door, :mod:`kanon_engine.session`, as the window and the command line do)."""
    from kanon_engine import session
    from kanon_engine.algorithms import get_algorithm
    from kanon_engine.privacy import KAnonymity

    table = ctx["table"]
    project = ctx["project"]
    res: dict[str, Any] = {}

    def anonymize() -> str:
        config = project.config(table).with_changes(models=(KAnonymity(K),))
        result = session.run(table, config, get_algorithm(name, **params))
        check = _check(result.release, list(config.quasi_identifiers), result)
        if not check.k_anonymous:
            raise SelfTestFailure(f"the {name} release is not {K}-anonymous ({check.to_dict()}).")
        res["result"] = result
        ctx.setdefault("first_result", result)
        return (
            f"{result.n_classes:,} classes, {result.suppressed:,} suppressed, smallest class "
            f"{result.min_class_size}"
        )

    def export() -> str:
        from kanon_engine.data.io import read_table

        result = res["result"]
        path = folder / f"release_{name}.csv"
        session.export(table, project, result, session.ExportPlan(path))
        size = _nonempty(path)
        back = read_table(path)
        qi = list(result.config.quasi_identifiers)
        check = _check(back.frame, qi, result)
        if not check.k_anonymous:
            raise SelfTestFailure(f"{path.name} as written is not {K}-anonymous ({check.to_dict()}).")
        leaked = [c for c in result.config.identifiers if c in back.columns]
        if leaked:
            raise SelfTestFailure(f"{path.name} still holds the identifier columns {leaked}.")
        res["path"] = path
        return f"{path.name}: {back.n_rows:,} rows, {size:,} bytes, {K}-anonymous as read back"

    def report() -> str:
        html, pdf = folder / f"report_{name}.html", folder / f"report_{name}.pdf"
        plan = session.ExportPlan(
            res["path"], report_html=html, report_pdf=pdf, project_path=ctx["project_path"]
        )
        session.export(table, project, res["result"], plan)  # the release again (same bytes), cited
        html_size, pdf_size = _nonempty(html), _nonempty(pdf)
        text = html.read_text(encoding="utf-8")
        if "De-identification report" not in text or "<svg" not in text:
            raise SelfTestFailure(f"{html.name} lacks its title or its chart.")
        if not pdf.read_bytes()[:5] == b"%PDF-":
            raise SelfTestFailure(f"{pdf.name} is not a PDF file.")
        return f"{html.name} {html_size:,} bytes, {pdf.name} {pdf_size:,} bytes"

    steps.run(f"{name} at k={K}", anonymize)
    steps.run(f"{name}: export the release", export)
    steps.run(f"{name}: write the report (HTML, PDF)", report)


def _formats_step(ctx: dict[str, Any], folder: Path) -> str:
    """Write the first release as XLSX and Parquet and read both back: proves openpyxl and pyarrow work
    (a bundle that left out one of their libraries fails here, not on the user's first export)."""
    from kanon_engine.core.table_check import check_table
    from kanon_engine.data.io import read_table
    from kanon_engine.release.fileio import write_table

    result = ctx["first_result"]
    qi = list(result.config.quasi_identifiers)
    sizes = []
    for ext in ("xlsx", "parquet"):
        path = folder / f"release.{ext}"
        write_table(result.release, path)
        sizes.append(f"{path.name} {_nonempty(path):,} bytes")
        back = read_table(path)
        if back.n_rows != len(result.release) or list(back.columns) != list(result.release.columns):
            raise SelfTestFailure(f"{path.name} read back with a different shape or columns.")
        if not check_table(back.frame, qi, K).k_anonymous:
            raise SelfTestFailure(f"{path.name} as read back is not {K}-anonymous.")
    return ", ".join(sizes) + ", read back"


def _utility_step(ctx: dict[str, Any]) -> str:
    """The three classifiers on the original and the first release, predicting the sample's sensitive
    attribute: proves scikit-learn and scipy (which the classifiers, and local suppression's certificate,
    need) are in the bundle with their compiled parts."""
    from kanon_engine.data.roles import Role
    from kanon_engine.utility.study import fitness

    result, project = ctx["first_result"], ctx["project"]
    target = project.columns_with(Role.SENSITIVE)[0]
    rows = 600  # enough for five folds; the installers run this step under Wine too, so it stays short
    original, release = ctx["table"].frame.head(rows), result.release.head(rows)
    out = fitness(original, release, target, None, tuple(result.config.identifiers))
    cls = out["classification"]
    accuracies = [cls["release"][name]["accuracy"] for name in ("logistic_regression", "random_forest")]
    if not all(0.0 < a <= 1.0 for a in accuracies):
        raise SelfTestFailure(f"the classifiers gave accuracies outside (0, 1]: {accuracies}.")
    return f"{target}: majority {cls['majority']:.3f}, logistic regression {accuracies[0]:.3f} on the release"


def _protected_step(ctx: dict[str, Any], folder: Path) -> str:
    """Save the sample project with a password and open it again: proves the ``cryptography`` package
    (scrypt, AES-GCM; :mod:`kanon_engine.project.sealed`) loads in this copy, that the wrong password is
    refused with its plain sentence, and that no column name is readable in the file."""
    from kanon_engine.project.project_file import Project
    from kanon_engine.project.sealed import PasswordError

    project, path = ctx["project"], folder / "protected_project.json"
    project.save(path, password="self-test Pässwort 5")
    back = Project.load(path, password="self-test Pässwort 5")
    if back.to_dict(folder) != project.to_dict(folder):
        raise SelfTestFailure(f"{path.name} opened with its password differs from what was saved.")
    try:
        Project.load(path, password="self-test password 5")
    except PasswordError as exc:
        if exc.missing or not exc.message.startswith("The password does not open"):
            raise SelfTestFailure(f"a wrong password gave '{exc}' instead of its plain sentence.") from None
    else:
        raise SelfTestFailure(f"{path.name} opened with a wrong password.")
    text = path.read_text(encoding="utf-8")
    # a column name in a plain project file is a JSON string, quotes included (never in base64)
    readable = [c for c in ctx["table"].columns if f'"{c}"' in text]
    if readable or not Project.is_protected(path):
        raise SelfTestFailure(f"{path.name} is not sealed: the column names {readable} are readable.")
    return f"{path.name} {_nonempty(path):,} bytes, opened with its password, a wrong one refused"


def _window_step() -> str:
    """Open the main window offscreen, let it paint, close it: catches GUI modules a bundle forgot."""
    from PySide6.QtWidgets import QApplication

    from kanon_gui.main_window import MainWindow

    window = MainWindow()
    window.ask_before_close = False
    window.show()
    QApplication.processEvents()
    tabs = getattr(window, "tabs", None)
    count = tabs.count() if tabs is not None else 0
    names = [tabs.tabText(i).split(maxsplit=1)[-1].replace("&&", "&") for i in range(count)]
    window.close()
    QApplication.processEvents()
    window.deleteLater()
    QApplication.processEvents()
    return f"opened with {len(names)} tabs ({', '.join(names)}) and closed"


#: A message every catalog holds, and its translation: proves the catalog of each language is bundled
#: and read (a missing or unreadable catalog would fall back to English silently).
KNOWN_MESSAGE = "&File"
KNOWN_TRANSLATIONS = {"de": "&Datei", "fr": "&Fichier", "es": "&Archivo"}
#: 2,000 records as each language writes the number (CLDR through Babel).
KNOWN_COUNTS = {"en": "2,000", "de": "2.000", "fr": "2\u00a0000", "es": "2000"}


def _languages_step() -> str:
    """Every language kanon ships: its catalog is bundled and read, its number format is right, and Qt's
    own translation (file dialogs, standard buttons) is there."""
    from kanon_engine import i18n
    from kanon_engine.i18n import formats
    from kanon_gui.language import qt_translation_loaded

    found = i18n.available_languages()
    missing = sorted(set(KNOWN_TRANSLATIONS) - set(found))
    if missing:
        raise SelfTestFailure(f"the catalogs of {', '.join(missing)} are not in the bundle.")
    for code in found:
        with i18n.using(code):
            got = i18n._(KNOWN_MESSAGE)
            count = formats.count(2000)
        want = KNOWN_TRANSLATIONS.get(code, KNOWN_MESSAGE)
        if code in KNOWN_TRANSLATIONS and got != want:
            raise SelfTestFailure(f"the {code} catalog gives {got!r} for {KNOWN_MESSAGE!r}, not {want!r}.")
        if code in KNOWN_COUNTS and count != KNOWN_COUNTS[code]:
            raise SelfTestFailure(f"{code} writes 2000 as {count!r}, not {KNOWN_COUNTS[code]!r}.")
        if not qt_translation_loaded(code):
            raise SelfTestFailure(f"Qt's own {code} translation (qtbase_{code}.qm) is not in the bundle.")
    sizes = ", ".join(f"{c} {len(i18n.catalog(c))}" for c in found if c != i18n.SOURCE_LANGUAGE)
    return f"{', '.join(found)}; messages translated: {sizes}"


def _offline_step() -> str:
    loaded = sorted(m for m in sys.modules if m.startswith(FORBIDDEN_MODULES))
    if loaded:
        raise SelfTestFailure(f"network or web modules were loaded: {', '.join(loaded)}.")
    return "no network or web-engine Qt module loaded"


def main(argv: Sequence[str] | None = None) -> int:
    """``--self-test [--output DIR] [--no-window]``: 0 when every step passed, 1 otherwise."""
    args = _parse(sys.argv[1:] if argv is None else argv)
    start = time.perf_counter()
    frozen = "frozen bundle" if getattr(sys, "frozen", False) else "source checkout"
    print(f"kanon self-test ({frozen}, Python {sys.version.split()[0]}, {sys.platform})", flush=True)
    try:
        if args.output:
            folder = Path(args.output)
            folder.mkdir(parents=True, exist_ok=True)
            passed = run_self_test(folder, window=not args.no_window)
        else:
            with tempfile.TemporaryDirectory(prefix="kanon-self-test-") as tmp:
                passed = run_self_test(Path(tmp), window=not args.no_window)
    except SelfTestFailure as exc:
        print(f"self-test FAILED at step '{exc}' after {time.perf_counter() - start:.1f} s", flush=True)
        return 1
    print(f"self-test passed: {passed} steps in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


def headless_main(argv: Sequence[str]) -> int:
    """The frozen executable's headless modes, dispatched by :func:`kanon_gui.app.run` before any window:
    ``--self-test [...]`` (this module) and ``--render-pdf REPORT.html OUT.pdf`` (the child process
    :func:`kanon_engine.report.pdf.write_pdf` starts; see :mod:`kanon_gui.report_pdf`)."""
    if argv and argv[0] == "--render-pdf":
        from kanon_gui.report_pdf import main as render_pdf_main

        return render_pdf_main(list(argv))
    return main(argv)


# --- start-up probe ----------------------------------------------------------------------------------
def process_age() -> float:
    """Seconds since this process started (from the kernel's start time on Linux; else since import)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 of proc(5): starttime, in clock ticks since boot
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        return uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - _IMPORTED


_IMPORTED = time.perf_counter()


def report_first_paint(window: Any) -> None:
    """When ``KANON_FIRST_PAINT`` is set: print ``first-paint <seconds>`` at the first paint event of
    ``window`` or any widget in it (seconds since the process started) and quit the application once
    that paint is done."""
    if not os.environ.get("KANON_FIRST_PAINT"):
        return
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QWidget

    class _Probe(QObject):
        done = False

        def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
            if (
                not self.done
                and event.type() == QEvent.Type.Paint
                and isinstance(obj, QWidget)
                and (obj is window or window.isAncestorOf(obj))
            ):
                self.done = True
                print(f"first-paint {process_age():.3f}", flush=True)
                QTimer.singleShot(0, QApplication.quit)
            return False

    app = QApplication.instance()
    probe = _Probe(app)
    app.installEventFilter(probe)
