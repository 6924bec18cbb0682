"""Fixtures shared by every test folder: where the read-only shared material and the bundled sample are.

/work/shared (datasets, seeds) sits beside the repository; the product never reads it, tests may. Point
KANON_SHARED elsewhere to use another copy. Tests that need it are skipped when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# The tests read English words unless a test chooses a language itself: a developer's German system
# locale must not change what they see (tests/engine/test_i18n.py checks the language rule itself).
os.environ["KANON_LANG"] = "en"


def _shared_root() -> Path:
    env = os.environ.get("KANON_SHARED")
    if env:
        return Path(env).expanduser().resolve()
    return REPO_ROOT.parent / "shared"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's root folder (where pyproject.toml is)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared read-only folder (``../shared`` or $KANON_SHARED); skips the test when it is absent."""
    root = _shared_root()
    if not root.is_dir():
        pytest.skip(f"shared material not found at {root} (set KANON_SHARED to its folder)")
    return root


@pytest.fixture(scope="session")
def adult_dir(shared_dir: Path) -> Path:
    """UCI Adult extract with ARX hierarchies ``adult_hierarchy_<col>.csv``; skips when absent."""
    path = shared_dir / "datasets" / "adult"
    if not (path / "adult.csv").is_file():
        pytest.skip(f"Adult dataset not found at {path}")
    return path


@pytest.fixture(scope="session")
def seed_dir(shared_dir: Path) -> Path:
    """Worked examples from the seed documents (``datasets/seed_examples``); skips when absent."""
    path = shared_dir / "datasets" / "seed_examples"
    if not path.is_dir():
        pytest.skip(f"seed examples not found at {path}")
    return path


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    """The bundled sample (``resources/sample``): data, ARX hierarchies and ``sample_project.json``."""
    return REPO_ROOT / "resources" / "sample"


#: The standard quasi-identifiers of the Adult benchmark (../shared/README.md); occupation is sensitive.
ADULT_QI = [
    "age",
    "education",
    "marital-status",
    "native-country",
    "race",
    "salary-class",
    "sex",
    "workclass",
]


@pytest.fixture(scope="session")
def adult_frame(adult_dir: Path):
    """Adult as strings (read once per test session; tests copy before changing it)."""
    import pandas as pd

    return pd.read_csv(adult_dir / "adult.csv", sep=";", dtype=str, keep_default_na=False)


@pytest.fixture(scope="session")
def adult_hierarchies(adult_dir: Path):
    """The ARX hierarchies of the 8 standard quasi-identifiers and of occupation."""
    from kanon_engine.hierarchy import read_arx_csv

    return {q: read_arx_csv(adult_dir / f"adult_hierarchy_{q}.csv", q) for q in [*ADULT_QI, "occupation"]}
