"""Start the workbench: ``run(argv) -> exit code``.

``python main.py``                 open the window; with no file it offers the bundled sample
``python main.py FILE``            open a data file (CSV/TSV/XLSX/Parquet, through the import dialog) or a
                                   ``.json`` project
``python main.py --screenshots D`` headless tour: open the sample (or FILE), walk every main view, run an
                                   algorithm, and save one PNG per view into D
``python main.py --self-test``     headless check of an installation (see kanon_gui.selftest)
``python main.py --render-pdf H P`` render an HTML report to PDF (used by the CLI in a child process)

Before any window: the language is chosen (:mod:`kanon_gui.language`), the bundled font is
registered (machines without fonts would show empty boxes), the
log goes to the app data folder, and unexpected exceptions are routed to the crash dialog.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from kanon_engine.i18n import _

LOG = logging.getLogger("kanon_gui.app")


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kanon", description="kanon anonymization workbench")
    parser.add_argument(
        "file", nargs="?", help="a data file (CSV, TSV, XLSX, Parquet) or a kanon project (.json)"
    )
    parser.add_argument(
        "--screenshots",
        metavar="DIR",
        help="save one PNG per view into DIR and exit (headless tour of the sample)",
    )
    return parser.parse_args(argv)


def create_application(argv: list[str] | None = None):
    """The QApplication with kanon's names, bundled font and icon (reused if one exists)."""
    from PySide6.QtWidgets import QApplication

    from kanon_gui.resources import app_font, icon, load_fonts

    app = QApplication.instance() or QApplication(list(argv or ["kanon"]))
    app.setOrganizationName("kanon")
    app.setApplicationName("kanon")
    app.setApplicationDisplayName("kanon")
    family = load_fonts()
    if family:
        app.setFont(app_font(family))
    app.setWindowIcon(icon("kanon"))
    from kanon_gui.language import install_language

    install_language()  # KANON_LANG, else the saved choice, else the system's language, else English
    from kanon_gui.wheel_guard import install_wheel_guard

    install_wheel_guard(app)  # the wheel scrolls panels, never changes an unfocused combo or spin box
    return app


def _quiet_offscreen_warnings() -> None:
    """The offscreen platform warns "does not support propagateSizeHints()" for every window shown;
    drop that one message in the headless tour and pass every other message through."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(_mode, _context, message: str) -> None:
        if "propagateSizeHints" not in message:
            sys.stderr.write(message + "\n")

    qInstallMessageHandler(handler)


def run(argv: list[str] | None = None) -> int:
    """Run the workbench (or the screenshot tour); returns the process exit code."""
    argv = list(sys.argv if argv is None else argv)
    if argv[1:2] in (["--self-test"], ["--render-pdf"]):
        # headless modes of the installed app: no window, no display needed
        from kanon_gui import selftest

        return selftest.headless_main(argv[1:])
    args = _parse(argv[1:])
    if args.screenshots and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    app = create_application(argv[:1])
    if args.screenshots:
        _quiet_offscreen_warnings()

    from kanon_gui.appdata import setup_logging
    from kanon_gui.errors import ExceptionHook

    log_path = setup_logging()
    LOG.info("kanon starting (log: %s)", log_path)
    hook = ExceptionHook()
    hook.install()
    if args.screenshots:
        from kanon_gui.screenshots import take_screenshots

        try:
            saved = take_screenshots(Path(args.screenshots), Path(args.file) if args.file else None)
        except Exception as exc:  # noqa: BLE001 - headless mode reports on stderr and fails
            import traceback

            traceback.print_exc()
            print(_("screenshots failed: {reason}", reason=exc), file=sys.stderr)
            return 1
        finally:
            hook.uninstall()
        for path in saved:
            print(path)
        return 0

    from kanon_gui.main_window import MainWindow

    window = MainWindow()
    hook.parent = window
    window.show()
    from kanon_gui.selftest import report_first_paint

    report_first_paint(window)  # only with KANON_FIRST_PAINT=1: prints the start-up time and quits
    if args.file:
        window.open_path(args.file)
    else:
        window.show_message(
            _(
                "Open a data file with File > Open (Ctrl+O), or start with the bundled sample: File > "
                "Open the sample."
            ),
            "info",
        )
    code = app.exec()
    hook.uninstall()
    return int(code)
