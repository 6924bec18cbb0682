"""The PDF report: the HTML report rendered by Qt in a child process (the engine never imports Qt),
through ``python -m kanon_gui.report_pdf`` or, in a frozen bundle, the app's ``--render-pdf`` switch;
the file is checked whole before it replaces anything."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import kanon_engine
from kanon_engine.errors import DataError
from kanon_engine.i18n import _, current_language
from kanon_engine.release.fileio import atomic_path
from kanon_engine.release.pdf_check import verify_pdf

#: Seconds allowed to the PDF renderer process.
PDF_TIMEOUT = 180


def pdf_command(html_path: Path, pdf_path: Path, name: str | None = None) -> list[str]:
    """The command that renders ``html_path`` to ``pdf_path`` (``name``: the report's file name for
    messages): the frozen app's ``--render-pdf`` switch, or ``python -m kanon_gui.report_pdf``."""
    tail = [str(html_path), str(pdf_path), *([name] if name else [])]
    if getattr(sys, "frozen", False):
        return [sys.executable, "--render-pdf", *tail]
    return [sys.executable, "-m", "kanon_gui.report_pdf", *tail]


def write_pdf(html_path: str | Path, pdf_path: str | Path, timeout: float = PDF_TIMEOUT) -> Path:
    """Render an HTML report to PDF with Qt in a child process (offscreen; no network, no browser).

    The child writes into a temporary file beside ``pdf_path``; the file is checked (a whole PDF with
    its pages, :func:`kanon_engine.release.pdf_check.verify_pdf`) before it replaces ``pdf_path``, so a full
    disk
    or a crash never leaves a cut-short report nor removes the previous one. A failure (Qt missing,
    display libraries missing, disk full) becomes a plain DataError.
    """
    html_path, pdf_path = Path(html_path), Path(pdf_path)
    with atomic_path(pdf_path) as tmp:
        _render_pdf(html_path, tmp, pdf_path.name, timeout)
        verify_pdf(tmp, pdf_path.name)
    return pdf_path


def _render_pdf(html_path: Path, out: Path, name: str, timeout: float) -> None:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["KANON_LANG"] = current_language()  # the renderer's messages in the report's language
    root = str(Path(kanon_engine.__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        proc = subprocess.run(
            pdf_command(html_path.resolve(), out.resolve(), name),
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise DataError(
            _(
                "Making the PDF report {name} took longer than {seconds} s and was stopped.",
                name=name,
                seconds=int(timeout),
            ),
            hint=_("Write the HTML report instead and print it to PDF."),
            where=name,
        ) from None
    except OSError as exc:
        raise DataError(
            _(
                "The PDF report {name} could not be made: {reason}.",
                name=name,
                reason=str(exc.strerror or exc),
            ),
            where=name,
        ) from None
    if proc.returncode != 0 or not out.is_file():
        lines = [ln for ln in (proc.stderr or "").strip().splitlines() if ln.strip()]
        if lines:
            reason = lines[-1].removeprefix("error: ")
        else:
            reason = _("the renderer stopped (code {code})", code=str(proc.returncode))
        if f" {name} " in reason:  # the renderer's own sentence names the report and says it all
            raise DataError(reason, where=name)
        raise DataError(
            _("The PDF report {name} could not be made: {reason}", name=name, reason=reason),
            hint=_("Write the HTML report instead and print it to PDF."),
            where=name,
        )
