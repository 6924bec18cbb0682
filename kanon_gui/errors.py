"""The one place where exceptions become what the user sees.

Typed engine errors (:class:`kanon_engine.errors.KanonError`) are expected: they carry a plain-language
message and a hint, and are shown inline where they concern (message bar, import dialog, algorithm
panel). Anything else is a bug: it opens the crash dialog with the traceback to copy, never a silent
console print. Logging keeps the kind of error and the traceback, not the message (engine messages
quote data values, which must not reach the log).
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from types import TracebackType

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication, QWidget

from kanon_engine.errors import Cancelled, KanonError
from kanon_engine.i18n import N_, _

LOG = logging.getLogger("kanon_gui.errors")

_TITLES = {
    "data": N_("The data cannot be used"),
    "hierarchy": N_("A hierarchy needs attention"),
    "config": N_("A setting needs attention"),
    "infeasible": N_("No release satisfies these settings"),
    "cancelled": N_("Cancelled"),
}


def is_expected(exc: BaseException) -> bool:
    """True for errors the engine raises on purpose (shown as plain messages, not as a crash)."""
    return isinstance(exc, KanonError)


def error_title(exc: BaseException) -> str:
    """A short title for an expected error, by its kind."""
    kind = getattr(exc, "kind", "")
    return _(_TITLES[kind]) if kind in _TITLES else _("Something went wrong")


def error_text(exc: BaseException) -> str:
    """The message and what to do, as one paragraph."""
    if isinstance(exc, KanonError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return _("The computer ran out of memory. Close other programs, or use fewer rows or columns.")
    if isinstance(exc, OSError):
        name = getattr(exc, "filename", None) or _("the file")
        return _("{name} could not be read or written: {reason}.", name=name, reason=str(exc.strerror or exc))
    return f"{type(exc).__name__}: {exc}"


def log_error(exc: BaseException, context: str = "") -> None:
    """Log the kind of an expected error, or the traceback of an unexpected one (no message text)."""
    if isinstance(exc, Cancelled):
        LOG.info("%s: cancelled", context or "task")
    elif isinstance(exc, KanonError):
        LOG.info("%s: %s error (%s)", context or "task", exc.kind, type(exc).__name__)
    else:
        frames = "".join(traceback.format_tb(exc.__traceback__))
        LOG.error("%s: unexpected %s\n%s", context or "task", type(exc).__name__, frames)


def format_traceback(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> str:
    return "".join(traceback.format_exception(exc_type, exc, tb))


class _CrashRelay(QObject):
    """Carries exceptions from any thread to the GUI thread, where the crash dialog opens."""

    crashed = Signal(str, str)  # title, traceback text


class ExceptionHook:
    """Installs ``sys.excepthook`` and ``threading.excepthook``: unexpected exceptions open the crash
    dialog (one at a time; later ones while it is open are appended to it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self.parent = parent
        self.relay = _CrashRelay()
        self.relay.crashed.connect(self._show)
        self._dialog = None
        self._previous = (sys.excepthook, threading.excepthook)

    def install(self) -> None:
        sys.excepthook = self._hook
        threading.excepthook = self._thread_hook

    def uninstall(self) -> None:
        sys.excepthook, threading.excepthook = self._previous

    def _hook(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        text = format_traceback(exc_type, exc, tb)
        LOG.error("unexpected %s\n%s", exc_type.__name__, "".join(traceback.format_tb(tb)))
        sys.stderr.write(text)
        self.relay.crashed.emit(f"{exc_type.__name__}: {exc}", text)

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        self._hook(args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback)

    def _show(self, title: str, text: str) -> None:
        """Open the crash dialog (or add to the open one), parented to a window that still exists."""
        from kanon_gui.dialogs.crash_dialog import CrashDialog

        if self._dialog is not None and self._dialog.isVisible():
            self._dialog.append(text)
            return
        self._dialog = CrashDialog(title, text, _live_window(self.parent))
        # open() is not modal-blocking: the event loop keeps running (and the test suite too)
        QTimer.singleShot(0, self._dialog.open)


def _live_window(preferred: QWidget | None) -> QWidget | None:
    """A parent for the crash dialog: ``preferred`` or the active window, if its C++ object still exists
    and it is on screen. A closed dialog of a destroyed window can still be "active" for a moment, and
    parenting to it crashes the process (seen in the test suite)."""
    for candidate in (preferred, QApplication.activeWindow()):
        if candidate is not None and shiboken6.isValid(candidate) and candidate.isVisible():
            return candidate
    return None
