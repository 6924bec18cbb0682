"""Measure kanon's start-up time (launch to first paint) and its memory after loading Adult.

    .venv/bin/python packaging/measure_startup.py [--bundle dist/linux/kanon/kanon] [--runs 5]

What is measured, exactly:

- **launch to first paint**: wall time from starting the process (``subprocess.Popen``) to the line
  ``first-paint <s>`` it prints at the first paint event of the main window, offscreen
  (``QT_QPA_PLATFORM=offscreen``, ``KANON_FIRST_PAINT=1``; the app quits right after that paint, see
  :func:`kanon_gui.selftest.report_first_paint`). The number after ``first-paint`` is the process's own
  age at that moment (from ``/proc``), printed beside it. Done for the frozen onedir bundle and, as the
  reference in the same run, for ``python main.py`` from the checkout. The first run of each is listed
  separately: it includes reading the files from disk when they are not in the page cache yet.
- **memory after loading Adult**: the app is started on a project file for the Adult extract (30,162
  rows, 9 quasi-identifier/sensitive columns, ARX hierarchies) with a real window (offscreen); its
  resident set size (VmRSS from /proc) is sampled every 0.1 s until the app's log says the load task
  ended and RSS has not grown by more than 1% for 3 s; VmHWM (peak) is read as well. Same for the
  frozen bundle and the checkout.

Needs ``kanon_gui/app.py`` to call ``selftest.report_first_paint(window)`` after ``window.show()``; the
script says so if the app does not print the line. Linux only (reads /proc). Prints figures, asserts
nothing: timing belongs in measurements, never in unit tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADULT_QI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation")


def _env(home: Path, **extra: str) -> dict[str, str]:
    drop = ("DISPLAY", "WAYLAND_DISPLAY", "KANON_FIRST_PAINT")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(
        QT_QPA_PLATFORM="offscreen",
        HOME=str(home),
        XDG_DATA_HOME=str(home / "share"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
    )
    env.update(extra)
    return env


def first_paint(cmd: list[str], home: Path, timeout: float = 30.0) -> tuple[float, float] | None:
    """(wall seconds from Popen to the first-paint line, the process's own age then), or None."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=_env(home, KANON_FIRST_PAINT="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    result = None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("first-paint "):
                result = (time.perf_counter() - start, float(line.split()[1]))
                break
            if time.perf_counter() - start > timeout:
                break
    finally:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return result


def _status(pid: int) -> dict[str, int]:
    out = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":", 1)
                out[key] = int(value.split()[0])  # kB
    return out


def _loaded(home: Path) -> bool:
    """Whether the app's log says the data was loaded (its load task ended)."""
    for log in home.rglob("kanon.log"):
        text = log.read_text(encoding="utf-8", errors="replace")
        if "(load) ended" in text or "table loaded:" in text:
            return True
    return False


def rss_after_load(cmd: list[str], home: Path, timeout: float = 90.0) -> dict[str, float] | None:
    """Start the app on the Adult project, wait until RSS is stable for 3 s; RSS and peak in MiB."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        stable_since, last = time.perf_counter(), 0
        while time.perf_counter() - start < timeout:
            time.sleep(0.1)
            if proc.poll() is not None:
                return None
            rss = _status(proc.pid).get("VmRSS", 0)
            if rss > last * 1.01:
                last, stable_since = rss, time.perf_counter()
            elif time.perf_counter() - stable_since >= 3.0 and _loaded(home):
                s = _status(proc.pid)
                return {
                    "rss_mib": s["VmRSS"] / 1024,
                    "peak_mib": s["VmHWM"] / 1024,
                    "stable_after_s": stable_since - start,
                }
        return None
    finally:
        proc.kill()
        proc.wait()


def adult_project(folder: Path, adult: Path) -> Path:
    """A kanon project for the Adult extract (absolute paths to the shared, read-only files)."""
    roles = {c: "quasi-identifier" for c in ADULT_QI}
    roles["salary-class"] = "sensitive"
    project = {
        "schema_version": 1,
        "data": {"path": str(adult / "adult.csv"), "sha256": None, "delimiter": ";", "encoding": "utf-8"},
        "roles": roles,
        "hierarchies": {c: {"file": str(adult / f"adult_hierarchy_{c}.csv")} for c in ADULT_QI},
        "models": [{"name": "k-anonymity", "k": 5}],
        "algorithm": {"name": "optimal", "suppression_limit": 0.02, "metric": "dm"},
        "output": {"drop_suppressed": False},
    }
    path = folder / "adult.kanon.json"
    path.write_text(json.dumps(project, indent=2), encoding="utf-8")
    return path


def _fmt(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", default=str(ROOT / "dist" / "linux" / "kanon" / "kanon"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=sys.executable, help="interpreter for the checkout reference")
    parser.add_argument(
        "--adult", default=os.environ.get("KANON_SHARED", str(ROOT.parent / "shared")) + "/datasets/adult"
    )
    args = parser.parse_args(argv)
    bundle = Path(args.bundle)
    targets = {"frozen onedir": [str(bundle)], "checkout (python main.py)": [args.python, "main.py"]}
    if not bundle.is_file():
        print(f"no bundle at {bundle} (bash packaging/build_linux.sh builds it): measuring the checkout only")
        del targets["frozen onedir"]
    with tempfile.TemporaryDirectory(prefix="kanon-measure-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        print(f"machine: {os.cpu_count()} cores, {os.uname().release}; runs per target: {args.runs}")
        for label, cmd in targets.items():
            runs = [first_paint(cmd, home) for _ in range(args.runs)]
            if any(r is None for r in runs):
                print(
                    f"{label}: no 'first-paint' line: kanon_gui/app.py must call "
                    "selftest.report_first_paint(window) after window.show()"
                )
                continue
            walls = [r[0] for r in runs]
            ages = [r[1] for r in runs]
            print(
                f"launch to first paint, {label}: first run {walls[0]:.2f} s; later runs median "
                f"{statistics.median(walls[1:] or walls):.2f} s (all: {_fmt(walls)}; process age at paint: "
                f"{_fmt(ages)})"
            )
        adult = Path(args.adult)
        if not (adult / "adult.csv").is_file():
            print(f"Adult not found at {adult}: memory not measured")
            return 0
        project = adult_project(Path(tmp), adult)
        with open(adult / "adult.csv", "rb") as fh:
            rows = sum(1 for _ in fh) - 1
        for label, cmd in targets.items():
            mem_home = Path(tmp) / f"home-{len(label)}"
            mem_home.mkdir()
            mem = rss_after_load(cmd + [str(project)], mem_home)
            if mem is None:
                print(f"memory after loading Adult, {label}: the app exited or never settled")
                continue
            print(
                f"memory after loading Adult ({rows:,} rows), {label}: RSS {mem['rss_mib']:.0f} MiB "
                f"(peak {mem['peak_mib']:.0f} MiB), settled {mem['stable_after_s']:.1f} s after launch"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
