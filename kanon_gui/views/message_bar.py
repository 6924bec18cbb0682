"""An inline message strip (info / warning / error) shown at the place a message concerns.

Used instead of modal message boxes: the window stays usable, the message stays readable until
dismissed, and tests can read it.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from kanon_engine.i18n import _

#: Seconds an information message stays before the strip clears itself.
INFO_SECONDS = 30

_STYLES = {
    "info": ("#e8f1fb", "#2b6cb0"),
    "warning": ("#fff6e0", "#b7791f"),
    "error": ("#fdecea", "#c0392b"),
}


class MessageBar(QFrame):
    """A dismissible one-paragraph message; an empty strip of the same height when there is none."""

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MessageBar")
        self.level = "info"
        self._plain = ""
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.RichText)  # the text is escaped below: never raw entities
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        more = QToolButton()
        more.setObjectName("MessageMore")
        more.setAutoRaise(True)
        more.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        more.clicked.connect(self.toggle_expanded)
        more.hide()
        layout.addWidget(more, 0, Qt.AlignmentFlag.AlignBottom)
        self.more_button = more
        self._expanded = False
        self._title = ""
        self._body = ""
        close = QToolButton()
        close.setText("\u2715")
        close.setAutoRaise(True)
        close.setToolTip(_("Dismiss this message"))
        close.clicked.connect(self.clear)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.close_button = close
        # The strip keeps its place when empty, so a message coming or going (a run starting, say)
        # never moves the tabs under the mouse: only its contents are hidden.
        # Two lines of text fit; a longer message ends in "…" with a button that opens it whole (the
        # strip then grows; the walk of issue 27 found a French warning cut off mid-sentence).
        self.setFixedHeight(self._height(2))
        self._set_empty(True)
        # An information goes away by itself after a while; a warning or an error stays until
        # dismissed or replaced (a later action shows its own message or clears the strip).
        self._expiry = QTimer(self)
        self._expiry.setSingleShot(True)
        self._expiry.setInterval(INFO_SECONDS * 1000)
        self._expiry.timeout.connect(self.clear)

    def show_message(self, text: str, level: str = "info", title: str = "") -> None:
        """Show ``text`` (plain text; ``title`` in bold before it) at ``level`` info/warning/error."""
        self.level = level if level in _STYLES else "info"
        bg, fg = _STYLES[self.level]
        self.setStyleSheet(
            f"#MessageBar {{ background: {bg}; border: 1px solid {fg}; border-radius: 4px; }}"
            "#MessageBar QLabel { color: #222; }"
        )
        self._title, self._body, self._expanded = title, text, False
        self.label.setToolTip(text)
        self._plain = (title + " " + text).strip()
        self._set_empty(False)
        self._fit()
        if self.level == "info":
            self._expiry.start()
        else:
            self._expiry.stop()

    def _height(self, lines: int) -> int:
        return lines * self.label.fontMetrics().lineSpacing() + 16

    def _lines(self, text: str) -> int:
        """Lines ``text`` takes in the label at its present width."""
        width = max(50, self.label.width())
        fm = self.label.fontMetrics()
        rect = fm.boundingRect(0, 0, width, 100_000, int(Qt.TextFlag.TextWordWrap), text)
        return max(1, round(rect.height() / fm.lineSpacing()))

    def _html(self, body: str, cut: bool) -> str:
        _bg, fg = _STYLES[self.level]
        text = escape(body) + (" \u2026" if cut else "")
        return f"<b style='color:{fg}'>{escape(self._title)}</b> {text}" if self._title else text

    def _fit(self) -> None:
        """The whole message when it fits in two lines or is opened; else its first words and "…"."""
        if not self._plain:
            return
        whole = self._lines(self._plain)
        fits = whole <= 2
        self.more_button.setVisible(not fits)
        self.more_button.setText(_("Less") if self._expanded else _("More"))
        if fits or self._expanded:
            self.label.setText(self._html(self._body, False))
            self.setFixedHeight(self._height(max(2, whole) if self._expanded else 2))
            return
        words = self._body.split(" ")
        lo, hi = 0, len(words)
        prefix = (self._title + " ").lstrip()
        while lo < hi:  # the most words that still fit in two lines with "…"
            mid = (lo + hi + 1) // 2
            if self._lines(prefix + " ".join(words[:mid]) + " \u2026") <= 2:
                lo = mid
            else:
                hi = mid - 1
        self.label.setText(self._html(" ".join(words[:lo]), True))
        self.setFixedHeight(self._height(2))

    def toggle_expanded(self) -> None:
        """Open the whole message (the strip grows) or close it back to two lines."""
        self._expanded = not self._expanded
        self._fit()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit()

    def text(self) -> str:
        """The message as plain text ("" when hidden)."""
        return self._plain

    def clear(self) -> None:
        self._expiry.stop()
        self._plain = ""
        self._expanded = False
        self.more_button.hide()
        self.setFixedHeight(self._height(2))
        self.label.clear()
        self._set_empty(True)
        self.dismissed.emit()

    def _set_empty(self, empty: bool) -> None:
        """An empty strip is a blank space of the same height (no frame, no close button)."""
        if empty:
            self.setStyleSheet("#MessageBar { background: transparent; border: none; }")
        self.close_button.setVisible(not empty)
        self.label.setVisible(not empty)
