"""Reproducible hospital tables with many quasi-identifiers, for the benchmarks of large lattices.

Both start from the bundled sample's generator (``resources/sample/make_sample.py``: invented admissions,
fixed seed) drawn with 20,000 rows, plus invented columns drawn from their own fixed seed, so every run
builds the same table byte for byte. Nothing is written to disk.

- :func:`hospital_7qi`: 7 quasi-identifiers (sex, age, zip, ward, length of stay, admission date,
  insurance) whose lattice has 2*5*6*3*5*6*3 = 16,200 transformations; diagnosis is sensitive. The
  workbench case of the issue (l = 3, t = 0.15).
- :func:`hospital_10qi`: 10 quasi-identifiers with 7 levels each (ages, lengths of stay, weights and
  heights in nested intervals, three dates by day/10-day period/month/quarter/half-year/year, the
  admission time by 10 minutes/half hour/hour/4 hours/half day, a 6-digit postcode and a 6-character
  referring practice masked digit by digit): 7**10 = 282,475,249 transformations, far past what an
  exhaustive search can visit.

Run it to print the lattice sizes: python bench/wide_tables.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT_DIR))
sys.path.insert(0, str(ROOT_DIR / "resources" / "sample"))

from make_sample import SEED, make_patients, sex_hierarchy, ward_hierarchy  # noqa: E402

from kanon_engine.data.table import Table  # noqa: E402
from kanon_engine.hierarchy import interval_hierarchy, masking_hierarchy  # noqa: E402
from kanon_engine.hierarchy.model import Hierarchy  # noqa: E402

N_ROWS = 20_000
INSURANCE = {"Public A": "Public", "Public B": "Public", "Private A": "Private", "Private B": "Private"}


def _base(n: int) -> tuple[pd.DataFrame, np.random.Generator]:
    frame = make_patients(np.random.default_rng(SEED), n)
    rng = np.random.default_rng(SEED + 1)
    frame["insurance"] = rng.choice(np.array(list(INSURANCE)), size=n, p=[0.45, 0.25, 0.2, 0.1])
    return frame, rng


def _dates_7(name: str, values: pd.Series) -> Hierarchy:
    """Day -> 10-day period -> month -> quarter -> half-year -> year -> *."""
    days = pd.to_datetime(pd.Series(sorted(values.unique())), format="%Y-%m-%d")
    dekad = np.minimum((days.dt.day - 1) // 10, 2) + 1
    rows = [
        [
            d.strftime("%Y-%m-%d"),
            f"{d:%Y-%m} (part {p})",
            f"{d:%Y-%m}",
            f"{d.year}-Q{(d.month - 1) // 3 + 1}",
            f"{d.year}-H{(d.month - 1) // 6 + 1}",
            str(d.year),
            "*",
        ]
        for d, p in zip(days, dekad)
    ]
    return Hierarchy.from_rows(name, rows)


def _dates_6(name: str, values: pd.Series) -> Hierarchy:
    """Day -> month -> quarter -> half-year -> year -> *."""
    h = _dates_7(name, values)
    return Hierarchy.from_rows(name, [[r[0], *r[2:]] for r in h.rows()])


def hospital_7qi(n: int = N_ROWS) -> tuple[Table, dict[str, Hierarchy], list[str]]:
    """The 7-QI table (16,200 transformations); diagnosis is the sensitive attribute."""
    frame, _ = _base(n)
    frame = frame.astype({"age": str, "length_of_stay": str})
    sample_rows = {"sex": sex_hierarchy(), "ward": ward_hierarchy()}
    hs = {c: Hierarchy.from_rows(c, rows) for c, rows in sample_rows.items()}
    hs["age"] = interval_hierarchy("age", frame["age"], (5, 10, 20))
    hs["zip"] = masking_hierarchy("zip", frame["zip"])
    hs["length_of_stay"] = interval_hierarchy("length_of_stay", frame["length_of_stay"], (2, 4, 8))
    hs["admission_date"] = _dates_6("admission_date", frame["admission_date"])
    hs["insurance"] = Hierarchy.from_rows("insurance", [[k, v, "*"] for k, v in INSURANCE.items()])
    qi = ["sex", "age", "zip", "ward", "length_of_stay", "admission_date", "insurance"]
    keep = ["patient_id", *qi, "diagnosis"]
    return Table.from_frame(frame[keep]), hs, qi


def hospital_10qi(n: int = N_ROWS) -> tuple[Table, dict[str, Hierarchy], list[str]]:
    """The 10-QI table (7**10 = 282,475,249 transformations); diagnosis is sensitive."""
    frame, rng = _base(n)
    admission = pd.to_datetime(frame["admission_date"])
    frame["discharge_date"] = (admission + pd.to_timedelta(frame["length_of_stay"], unit="D")).dt.strftime(
        "%Y-%m-%d"
    )
    birth = admission - pd.to_timedelta(frame["age"] * 365.25 + rng.integers(0, 365, n), unit="D")
    frame["birth_date"] = birth.dt.strftime("%Y-%m-%d")
    frame["postcode"] = np.char.zfill(rng.integers(100_000, 160_000, n).astype(str), 6)
    practices = np.array([f"{a}{b:05d}" for a in "ABCD" for b in rng.integers(0, 4000, 60)])
    frame["practice"] = rng.choice(practices, size=n)
    frame["weight"] = np.clip(rng.normal(76, 16, n), 35, 160).round().astype(int).astype(str)
    frame["height"] = np.clip(rng.normal(170, 10, n), 140, 205).round().astype(int).astype(str)
    frame = frame.astype({"age": str, "length_of_stay": str})
    widths = (2, 4, 8, 16, 32)
    hs = {c: interval_hierarchy(c, frame[c], widths) for c in ("age", "length_of_stay", "weight", "height")}
    hs.update({c: masking_hierarchy(c, frame[c]) for c in ("postcode", "practice")})
    hs.update({c: _dates_7(c, frame[c]) for c in ("admission_date", "discharge_date", "birth_date")})
    qi = [
        "age",
        "postcode",
        "admission_date",
        "discharge_date",
        "birth_date",
        "length_of_stay",
        "weight",
        "height",
        "practice",
        "admission_time",
    ]
    minutes = rng.integers(0, 24 * 60, n)
    frame["admission_time"] = [f"{m // 60:02d}:{m % 60:02d}" for m in minutes]
    hs["admission_time"] = _times_7(frame["admission_time"])
    keep = ["patient_id", *qi, "diagnosis"]
    return Table.from_frame(frame[keep]), hs, qi


def _times_7(values: pd.Series) -> Hierarchy:
    """Minute -> 10 minutes -> half hour -> hour -> 4 hours -> half day -> *."""

    def span(m: int, width: int) -> str:
        lo = m - m % width
        hi = lo + width - 1
        return f"{lo // 60:02d}:{lo % 60:02d}-{hi // 60:02d}:{hi % 60:02d}"

    rows = []
    for text in sorted(values.unique()):
        m = int(text[:2]) * 60 + int(text[3:])
        rows.append([text, span(m, 10), span(m, 30), span(m, 60), span(m, 240), span(m, 720), "*"])
    return Hierarchy.from_rows("admission_time", rows)


def lattice_size(hs: dict[str, Hierarchy], qi: list[str]) -> int:
    return int(np.prod([hs[q].depth for q in qi], dtype=object))


if __name__ == "__main__":
    for build in (hospital_7qi, hospital_10qi):
        table, hs, qi = build()
        size = lattice_size(hs, qi)
        print(f"{build.__name__}: {table.n_rows:,} rows, {len(qi)} QIs, {size:,} transformations")
