"""Start the kanon workbench window.

Kept tiny on purpose: everything lives in ``kanon_gui`` (the window) and ``kanon_engine`` (the
computation), so PyInstaller and ``python main.py`` start the same code.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Hand the command line to the GUI and return its exit code."""
    from kanon_gui.app import run

    return int(run(sys.argv) or 0)


if __name__ == "__main__":
    sys.exit(main())
