"""An inline message strip (info / warning / error) shown at the place a message concerns.

Used instead of modal message boxes: the window stays usable, the message stays readable until
dismissed, and tests can read it.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

_STYLES = {
    "info": ("#e8f1fb", "#2b6cb0"),
    "warning": ("#fff6e0", "#b7791f"),
    "error": ("#fdecea", "#c0392b"),
}


class MessageBar(QFrame):
    """A dismissible one-paragraph message; hidden when empty."""

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MessageBar")
        self.level = "info"
        self._plain = ""
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        close = QToolButton()
        close.setText("\u2715")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss this message")
        close.clicked.connect(self.clear)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(self, text: str, level: str = "info", title: str = "") -> None:
        """Show ``text`` (plain text; ``title`` in bold before it) at ``level`` info/warning/error."""
        self.level = level if level in _STYLES else "info"
        bg, fg = _STYLES[self.level]
        self.setStyleSheet(
            f"#MessageBar {{ background: {bg}; border: 1px solid {fg}; border-radius: 4px; }}"
            f"#MessageBar QLabel {{ color: #222; }}"
        )
        body = escape(text)
        self.label.setText(f"<b style='color:{fg}'>{escape(title)}</b> {body}" if title else body)
        self.label.setToolTip(text)
        self._plain = (title + " " + text).strip()
        self.show()

    def text(self) -> str:
        """The message as plain text ("" when hidden)."""
        return self._plain

    def clear(self) -> None:
        self._plain = ""
        self.label.clear()
        self.hide()
        self.dismissed.emit()
