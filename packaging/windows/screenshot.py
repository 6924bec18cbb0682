"""Wait until a window has been drawn on an X display, then save a screenshot of the whole screen.

usage: python packaging/windows/screenshot.py OUT.png [--timeout SECONDS]

Used by the packaging smoke test to photograph kanon's real Windows window, drawn by Wine inside a
virtual desktop on Xvfb. The window counts as drawn when at least a fifth of the screen differs from the
desktop background and three grabs a second apart are the same (the window has stopped painting). Runs
with the project's Linux .venv (PySide6, xcb platform) on the display named by DISPLAY. Exit code 0 with
the picture saved, 1 when nothing settled before the timeout (the last grab is saved all the same).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

#: Share of the screen that must differ from the background before the window counts as shown.
MIN_COVERED = 0.2
#: Identical grabs in a row (a second apart) before the picture is taken.
STABLE_GRABS = 3
#: Grab on a coarse grid: enough to tell a window from the desktop, cheap to compare.
STEP = 8


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--timeout", type=float, default=120.0)
    return parser.parse_args(argv)


def _sample(image) -> tuple[tuple[int, ...], float]:
    """Pixels on a coarse grid and the share of them that differ from the most common one."""
    pixels = tuple(
        image.pixel(x, y) for y in range(0, image.height(), STEP) for x in range(0, image.width(), STEP)
    )
    counts: dict[int, int] = {}
    for p in pixels:
        counts[p] = counts.get(p, 0) + 1
    background = max(counts.values()) if counts else 0
    return pixels, 1.0 - background / max(len(pixels), 1)


def main(argv: list[str] | None = None) -> int:
    args = _parse(sys.argv[1:] if argv is None else argv)
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication(["kanon-screenshot"])
    screen = app.primaryScreen()
    deadline = time.monotonic() + args.timeout
    previous: tuple[int, ...] | None = None
    same = 0
    image = None
    while time.monotonic() < deadline:
        image = screen.grabWindow(0).toImage()
        pixels, covered = _sample(image)
        same = same + 1 if covered >= MIN_COVERED and pixels == previous else 0
        if same >= STABLE_GRABS - 1:
            image.save(args.out)
            print(
                f"screenshot {args.out}: {image.width()}x{image.height()}, {covered:.0%} of the screen drawn"
            )
            return 0
        previous = pixels if covered >= MIN_COVERED else None
        time.sleep(1.0)
    if image is not None:
        image.save(args.out)
    print(f"screenshot {args.out}: no window settled within {args.timeout:.0f} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
