"""packaging/windows/wheels.py: the Windows wheel set is derived from pyproject.toml's pins, with the
dependencies markers give Windows only (no network: wheels are tiny fakes with a METADATA file)."""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def _load():
    spec = importlib.util.spec_from_file_location(
        "kanon_windows_wheels", ROOT / "packaging/windows/wheels.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wheels = _load()


def _wheel(folder: Path, name: str, version: str, requires: list[str]) -> Path:
    path = folder / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    meta = "Metadata-Version: 2.1\nName: {}\nVersion: {}\n{}".format(
        name, version, "".join(f"Requires-Dist: {r}\n" for r in requires)
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{name}-{version}.dist-info/METADATA", meta)
    return path


def test_roots_are_the_pinned_dependencies_and_pyinstaller():
    roots = {r.name.lower(): str(r.specifier) for r in wheels.pinned_roots()}
    assert "pyinstaller" in roots and "pyside6-essentials" in roots and "numpy" in roots
    assert "pytest" not in roots and "ruff" not in roots  # test tools stay out of the bundle
    assert all(spec.startswith("==") for spec in roots.values())


def test_unpinned_dependency_is_refused(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[project]\ndependencies = ["numpy>=2"]\n'
        '[project.optional-dependencies]\ndev = ["pyinstaller==6.0"]\n'
    )
    with pytest.raises(SystemExit, match="numpy"):
        wheels.pinned_roots(pyproject)


def test_closure_follows_windows_markers(tmp_path):
    _wheel(
        tmp_path,
        "app",
        "1.0",
        [
            'winonly>=1; sys_platform == "win32"',
            'linuxonly; sys_platform == "linux"',
            "common==2.0",
            'extra-dep; extra == "fancy"',
        ],
    )
    _wheel(tmp_path, "common", "1.0", [])  # wrong version: must not be chosen
    _wheel(tmp_path, "common", "2.0", ['tz; platform_system == "Windows"'])
    _wheel(tmp_path, "winonly", "1.5", [])
    _wheel(tmp_path, "linuxonly", "1.0", [])
    _wheel(tmp_path, "extra-dep", "1.0", [])
    found, missing = wheels.closure([Requirement("app==1.0")], wheels.index(tmp_path))
    names = sorted(p.name.split("-")[0] + "-" + p.name.split("-")[1] for p in found)
    assert names == ["app-1.0", "common-2.0", "winonly-1.5"]
    assert [str(r) for r in missing] == ['tz; platform_system == "Windows"']


def test_closure_with_extras(tmp_path):
    _wheel(tmp_path, "app", "1.0", ['extra-dep; extra == "fancy"'])
    _wheel(tmp_path, "extra-dep", "1.0", [])
    found, missing = wheels.closure([Requirement("app[fancy]==1.0")], wheels.index(tmp_path))
    assert {p.name.split("-")[0] for p in found} == {"app", "extra_dep"}
    assert missing == []
