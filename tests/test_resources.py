"""The bundled resources are complete and consistent: the sample is reproducible from its script, its
hierarchies cover its data, the project file points at files that exist, icons are well-formed SVG and the
font ships with its license. Pure stdlib + pandas: runs without Qt."""

from __future__ import annotations

import csv
import importlib.util
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

RESOURCES = Path(__file__).resolve().parents[1] / "resources"
ICONS = [
    "open",
    "save",
    "run",
    "cancel",
    "export",
    "report",
    "hierarchy",
    "lattice",
    "partitions",
    "chart",
    "risk",
    "kanon",
]


def _load_make_sample():
    spec = importlib.util.spec_from_file_location("make_sample", RESOURCES / "sample" / "make_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_hierarchy(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh, delimiter=";"))


def test_sample_is_reproducible_from_its_script(tmp_path: Path, sample_dir: Path) -> None:
    written = _load_make_sample().write_sample(tmp_path)
    assert len(written) == 8
    for path in written:
        committed = sample_dir / path.name
        assert committed.is_file(), f"{committed} is missing: run resources/sample/make_sample.py"
        assert path.read_bytes() == committed.read_bytes(), (
            f"{committed.name} differs from what make_sample.py writes: rerun the script"
        )


def test_sample_project_points_at_existing_files(sample_dir: Path) -> None:
    project = json.loads((sample_dir / "sample_project.json").read_text(encoding="utf-8"))
    assert project["schema_version"] == 1
    assert (sample_dir / project["data"]["path"]).is_file()
    data = pd.read_csv(sample_dir / project["data"]["path"], dtype=str, keep_default_na=False)
    assert set(project["roles"]) == set(data.columns)
    qis = {col for col, role in project["roles"].items() if role == "quasi-identifier"}
    assert qis == {"age", "sex", "zip", "admission_date"}
    assert qis <= set(project["hierarchies"])
    for spec in project["hierarchies"].values():
        assert (sample_dir / spec["file"]).is_file()


def test_sample_data_shape(sample_dir: Path) -> None:
    data = pd.read_csv(sample_dir / "sample_patients.csv", dtype=str, keep_default_na=False)
    assert len(data) == 2000
    assert data["patient_id"].is_unique
    assert data["zip"].str.fullmatch(r"\d{5}").all()
    assert data["zip"].str.startswith("0").any(), "the sample must exercise zips with leading zeros"
    assert data["admission_date"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert set(data["sex"]) == {"F", "M"}
    ages = data["age"].astype(int)
    assert ages.between(0, 99).all()
    assert (data["length_of_stay"].astype(int) >= 1).all()


@pytest.mark.parametrize("column", ["age", "sex", "zip", "admission_date", "ward"])
def test_sample_hierarchies_cover_the_data_and_are_well_formed(sample_dir: Path, column: str) -> None:
    rows = _read_hierarchy(sample_dir / f"hierarchy_{column}.csv")
    assert rows, "empty hierarchy"
    assert len({len(r) for r in rows}) == 1, "every row needs the same number of levels"
    assert all(r[-1] == "*" for r in rows), "the last level is the root '*'"
    values = [r[0] for r in rows]
    assert len(values) == len(set(values)), "a value may appear only once"
    # Each level's value determines the next level's (a tree, not a graph).
    for level in range(1, len(rows[0]) - 1):
        parent: dict[str, str] = {}
        for r in rows:
            assert parent.setdefault(r[level], r[level + 1]) == r[level + 1]
    data = pd.read_csv(sample_dir / "sample_patients.csv", dtype=str, keep_default_na=False)
    assert set(data[column]) <= set(values)


def test_icons_are_24px_svg() -> None:
    for name in ICONS:
        root = ET.parse(RESOURCES / "icons" / f"{name}.svg").getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg", name
        assert root.get("viewBox") == "0 0 24 24", name


def test_font_ships_with_its_license() -> None:
    fonts = sorted((RESOURCES / "fonts").glob("*.ttf"))
    assert fonts, "bundle a TTF so text renders on machines without fonts"
    for font in fonts:
        assert font.read_bytes()[:4] == b"\x00\x01\x00\x00", f"{font.name} is not a TrueType font"
    license_text = (RESOURCES / "fonts" / "LICENSE-DejaVu.txt").read_text(encoding="utf-8")
    assert "Bitstream" in license_text
