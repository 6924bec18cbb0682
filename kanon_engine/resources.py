"""Where the bundled resources are (report templates, font, icons, sample data): next to the packages in a
source checkout, inside ``sys._MEIPASS`` in a PyInstaller bundle. No Qt: the engine's report templates
are found the same way as the workbench's icons."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The ``resources`` folder: next to the package in a checkout, inside ``_MEIPASS`` when frozen."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        candidate = Path(frozen) / "resources"
        if candidate.is_dir():
            return candidate
    return Path(__file__).resolve().parents[1] / "resources"
