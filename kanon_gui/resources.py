"""Where the bundled resources are (font, SVG icons, sample data), in a source checkout and in a
PyInstaller bundle, and the small helpers that load them.

Why a bundled font: air-gapped hospital machines may have no font at all, and then Qt draws every glyph
as an empty box without a warning. The TTF in ``resources/fonts`` is loaded before any window opens.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtGui import QFont, QFontDatabase, QIcon

from kanon_engine.resources import resources_dir


def sample_project() -> Path:
    """The bundled sample project offered when kanon starts without a file."""
    return resources_dir() / "sample" / "sample_project.json"


def sample_register() -> Path:
    """The bundled sample's public register (invented people), for the linkage attack demonstration."""
    return resources_dir() / "sample" / "sample_public_register.csv"


@cache
def icon(name: str) -> QIcon:
    """An SVG icon from ``resources/icons`` (scales to any DPI); an empty icon if it is missing."""
    path = resources_dir() / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.is_file() else QIcon()


def load_fonts() -> str | None:
    """Register the bundled TTF fonts and return the family to use (None if none could be loaded)."""
    family = None
    folder = resources_dir() / "fonts"
    for path in sorted(folder.glob("*.ttf")):
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id >= 0 and family is None:
            families = QFontDatabase.applicationFontFamilies(font_id)
            family = families[0] if families else None
    return family


def app_font(family: str | None, point_size: float = 9.5) -> QFont:
    """The application font: the bundled family at a readable size."""
    font = QFont(family) if family else QFont()
    font.setPointSizeF(point_size)
    return font
