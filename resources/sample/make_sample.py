"""Write the bundled sample: a synthetic hospital admissions table, its ARX hierarchies and a project file.

Every person and value here is invented (fixed numpy seed, so the files are byte-for-byte reproducible).
The sample exists so the workbench and the CLI have something realistic to open on first start:
identifiers (patient_id, name), quasi-identifiers with natural hierarchies (age, sex, zip, admission_date),
a sensitive attribute (diagnosis) and insensitive columns (ward, length_of_stay).

Hierarchies use ARX's CSV format (Prasser & Kohlmayer, "Putting statistical disclosure control into
practice: the ARX data anonymization tool", 2015): one row per original value, ``;``-separated, column 0 the
value, column i its generalization at level i, last column the root ``*``.

Run from anywhere:  python resources/sample/make_sample.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from kanon_engine.release.fileio import atomic_write_bytes  # noqa: E402

SEED = 20240117
N_ROWS = 2000
DATA_FILE = "sample_patients.csv"
PROJECT_FILE = "sample_project.json"
FIRST_DAY, LAST_DAY = np.datetime64("2022-01-01"), np.datetime64("2024-12-31")

# ward -> (share of admissions, ward group, mean extra days of stay, {diagnosis: weight})
WARDS: dict[str, tuple[float, str, float, dict[str, float]]] = {
    "Cardiology": (
        0.14,
        "Medicine",
        4.0,
        {"Heart failure": 3, "Myocardial infarction": 2, "Atrial fibrillation": 3, "Hypertension": 2},
    ),
    "Oncology": (
        0.10,
        "Medicine",
        7.0,
        {"Breast cancer": 3, "Lung cancer": 3, "Colorectal cancer": 2, "Lymphoma": 1},
    ),
    "Neurology": (
        0.09,
        "Medicine",
        5.0,
        {"Stroke": 4, "Epilepsy": 2, "Multiple sclerosis": 1, "Migraine": 1},
    ),
    "Geriatrics": (
        0.10,
        "Medicine",
        8.0,
        {"Dementia": 3, "Hip fracture": 2, "Pneumonia": 3, "Heart failure": 2},
    ),
    "Orthopedics": (
        0.12,
        "Surgery",
        4.0,
        {"Hip fracture": 3, "Knee replacement": 3, "Spinal stenosis": 2, "Wrist fracture": 2},
    ),
    "General Surgery": (
        0.12,
        "Surgery",
        3.0,
        {"Appendicitis": 3, "Cholecystitis": 3, "Hernia": 3, "Bowel obstruction": 1},
    ),
    "Emergency": (
        0.13,
        "Acute care",
        0.5,
        {"Chest pain": 3, "Asthma": 2, "Concussion": 2, "Poisoning": 1, "Pneumonia": 2},
    ),
    "ICU": (0.05, "Acute care", 9.0, {"Sepsis": 4, "Respiratory failure": 3, "Trauma": 2}),
    "Pediatrics": (
        0.08,
        "Women and children",
        2.0,
        {"Bronchiolitis": 3, "Asthma": 3, "Gastroenteritis": 3, "Appendicitis": 1},
    ),
    "Maternity": (
        0.07,
        "Women and children",
        2.0,
        {"Childbirth": 6, "Caesarean section": 3, "Pre-eclampsia": 1},
    ),
}

# 3-digit zip prefixes (most with a leading zero) and the last two digits used under each.
ZIP_AREAS: dict[str, tuple[str, ...]] = {
    "021": ("08", "14", "15", "16", "38", "39", "41"),
    "024": ("45", "46", "53", "66"),
    "017": ("01", "02", "60", "70"),
    "018": ("01", "03", "40", "67"),
    "019": ("04", "15", "60"),
    "014": ("20", "53", "60"),
    "010": ("02", "20", "60"),
    "100": ("11", "12", "25"),
}

FIRST_NAMES = {
    "F": [
        "Anna",
        "Maria",
        "Laura",
        "Sofia",
        "Emma",
        "Olivia",
        "Grace",
        "Chloe",
        "Nora",
        "Alice",
        "Julia",
        "Hannah",
        "Leah",
        "Mia",
        "Clara",
        "Ruth",
        "Esther",
        "Irene",
        "Paula",
        "Sarah",
    ],
    "M": [
        "James",
        "Lucas",
        "Noah",
        "Daniel",
        "Samuel",
        "Oliver",
        "Henry",
        "Leo",
        "Adam",
        "Peter",
        "Thomas",
        "David",
        "Martin",
        "Jonas",
        "Felix",
        "Hugo",
        "Victor",
        "Simon",
        "Paul",
        "Elias",
    ],
}
LAST_NAMES = [
    "Smith",
    "Garcia",
    "Muller",
    "Rossi",
    "Novak",
    "Jensen",
    "Kowalski",
    "Dubois",
    "Silva",
    "Brown",
    "Nguyen",
    "Cohen",
    "Murphy",
    "Larsen",
    "Costa",
    "Fischer",
    "Moreau",
    "Walsh",
    "Berg",
    "Horvat",
    "Keller",
    "Lopez",
    "Meyer",
    "Okafor",
    "Petrov",
    "Quinn",
    "Romano",
    "Sato",
    "Varga",
    "Weber",
]


def _zip_universe() -> np.ndarray:
    """All zip codes the sample can hold (the zip hierarchy lists each of them)."""
    return np.array(sorted(p + s for p, tails in ZIP_AREAS.items() for s in tails))


def make_patients(rng: np.random.Generator, n: int = N_ROWS) -> pd.DataFrame:
    """Draw ``n`` invented admissions; columns are generated as whole arrays (no per-row loop)."""
    names = list(WARDS)
    shares = np.array([WARDS[w][0] for w in names])
    ward = rng.choice(np.array(names), size=n, p=shares / shares.sum())

    # Age depends on the ward: children in Pediatrics, mothers in Maternity, the old in Geriatrics.
    age = np.clip(np.rint(rng.normal(58, 18, n)), 18, 99).astype(np.int64)
    broad = np.clip(np.rint(rng.gamma(4.0, 11.0, n)), 1, 97).astype(np.int64)
    age = np.where(ward == "Emergency", broad, age)
    age = np.where(ward == "Pediatrics", rng.integers(0, 18, n), age)
    age = np.where(ward == "Maternity", np.clip(np.rint(rng.normal(31, 5, n)), 18, 45).astype(np.int64), age)
    age = np.where(ward == "Geriatrics", rng.integers(65, 100, n), age)

    sex = np.where(rng.random(n) < np.where(ward == "Cardiology", 0.42, 0.51), "F", "M")
    sex = np.where(ward == "Maternity", "F", sex)

    diagnosis = np.empty(n, dtype=object)
    extra_days = np.empty(n, dtype=np.float64)
    for w in names:  # one vectorized draw per ward, not per row
        mask = ward == w
        options = WARDS[w][3]
        weights = np.array(list(options.values()), dtype=np.float64)
        diagnosis[mask] = rng.choice(np.array(list(options)), size=int(mask.sum()), p=weights / weights.sum())
        extra_days[mask] = WARDS[w][2]
    length_of_stay = 1 + rng.poisson(extra_days)

    zips = _zip_universe()
    zip_weights = rng.dirichlet(np.full(zips.size, 2.0))
    zip_code = rng.choice(zips, size=n, p=zip_weights)

    n_days = int((LAST_DAY - FIRST_DAY).astype(np.int64)) + 1
    admission = FIRST_DAY + rng.integers(0, n_days, n).astype("timedelta64[D]")

    first = np.where(
        sex == "F",
        rng.choice(np.array(FIRST_NAMES["F"]), size=n),
        rng.choice(np.array(FIRST_NAMES["M"]), size=n),
    )
    last = rng.choice(np.array(LAST_NAMES), size=n)
    name = np.char.add(np.char.add(first.astype(str), " "), last.astype(str))

    return pd.DataFrame(
        {
            "patient_id": np.char.add("P", np.char.zfill(np.arange(1, n + 1).astype(str), 5)),
            "name": name,
            "age": age,
            "sex": sex,
            "zip": zip_code,
            "admission_date": np.datetime_as_string(admission, unit="D"),
            "ward": ward,
            "diagnosis": diagnosis.astype(str),
            "length_of_stay": length_of_stay.astype(np.int64),
        }
    )


def age_hierarchy() -> list[list[str]]:
    """Ages 0..99 in intervals of 5, 10 and 20 years, then ``*``."""

    def interval(a: int, width: int) -> str:
        low = a - a % width
        return f"{low}-{low + width - 1}"

    return [[str(a), interval(a, 5), interval(a, 10), interval(a, 20), "*"] for a in range(100)]


def zip_hierarchy() -> list[list[str]]:
    """Mask one more trailing digit per level (02138, 0213*, 021**, 02***, 0****), then ``*``."""
    return [[z] + [z[: 5 - i] + "*" * i for i in range(1, 5)] + ["*"] for z in _zip_universe()]


def date_hierarchy() -> list[list[str]]:
    """Every day of the sample's period, generalized to month, year, then ``*``."""
    days = np.datetime_as_string(np.arange(FIRST_DAY, LAST_DAY + 1), unit="D")
    return [[d, d[:7], d[:4], "*"] for d in days]


def sex_hierarchy() -> list[list[str]]:
    """F and M, then ``*``."""
    return [["F", "*"], ["M", "*"]]


def ward_hierarchy() -> list[list[str]]:
    """Wards grouped by department (Medicine, Surgery, ...), then ``*``."""
    return sorted([w, info[1], "*"] for w, info in WARDS.items())


HIERARCHIES = {
    "age": age_hierarchy,
    "sex": sex_hierarchy,
    "zip": zip_hierarchy,
    "admission_date": date_hierarchy,
    "ward": ward_hierarchy,
}


def project() -> dict:
    """The sample's project file (schema owned by kanon_engine.project.project_file; paths relative to this
    file)."""
    return {
        "schema_version": 1,
        "data": {"path": DATA_FILE, "sha256": None, "delimiter": ",", "encoding": "utf-8"},
        "roles": {
            "patient_id": "identifier",
            "name": "identifier",
            "age": "quasi-identifier",
            "sex": "quasi-identifier",
            "zip": "quasi-identifier",
            "admission_date": "quasi-identifier",
            "ward": "insensitive",
            "diagnosis": "sensitive",
            "length_of_stay": "insensitive",
        },
        "hierarchies": {col: {"file": f"hierarchy_{col}.csv"} for col in HIERARCHIES},
        "models": [{"name": "k-anonymity", "k": 5}],
        "algorithm": {"name": "optimal", "suppression_limit": 0.05, "metric": "precision"},
        "output": {"drop_suppressed": False},
    }


REGISTER_FILE = "sample_public_register.csv"
#: A separate seed, so the register never changes the other files.
REGISTER_SEED = 20240118
REGISTER_FROM_PATIENTS = 150
REGISTER_OTHERS = 150
REGISTER_EXTRA_NAMES = ["Jürgen Müller", "Zoë Lefèvre", "Inés Peña", "Søren Brøndum", "François Dœuf"]
REGISTER_EXTRA_SEX = ["M", "F", "F", "M", "M"]


def make_register(patients: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """An invented public register (a voter list) for the linkage demonstration: names with age, sex and
    postcode, as a German town hall exports it (its own column names: Name, Alter, Geschlecht,
    Postleitzahl). Half of its people are patients of the sample, the other half are not."""
    picked = patients.iloc[rng.choice(len(patients), REGISTER_FROM_PATIENTS, replace=False)]
    zips = _zip_universe()
    n = REGISTER_OTHERS
    sex = np.where(rng.random(n) < 0.5, "F", "M")
    sex[: len(REGISTER_EXTRA_NAMES)] = REGISTER_EXTRA_SEX
    first = np.where(
        sex == "F", rng.choice(np.array(FIRST_NAMES["F"]), n), rng.choice(np.array(FIRST_NAMES["M"]), n)
    )
    names = np.char.add(np.char.add(first.astype(str), " "), rng.choice(np.array(LAST_NAMES), n).astype(str))
    names = names.astype(object)
    names[: len(REGISTER_EXTRA_NAMES)] = REGISTER_EXTRA_NAMES
    others = pd.DataFrame(
        {
            "name": names,
            "age": rng.integers(18, 95, n),
            "sex": sex,
            "zip": rng.choice(zips, n),
        }
    )
    frame = pd.concat([picked[["name", "age", "sex", "zip"]], others], ignore_index=True)
    frame = frame.iloc[rng.permutation(len(frame))]
    return frame.set_axis(["Name", "Alter", "Geschlecht", "Postleitzahl"], axis=1)


def _write_atomic(path: Path, text: str) -> None:
    """Write via kanon's atomic writer (temp file + rename), so a reader never sees half a file."""
    atomic_write_bytes(path, text.encode("utf-8"))


def write_sample(out: Path) -> list[Path]:
    """Write the data, the hierarchies and the project file into ``out``; return the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    data = make_patients(np.random.default_rng(SEED))
    path = out / DATA_FILE
    _write_atomic(path, data.to_csv(index=False, lineterminator="\n"))
    written.append(path)
    for col, build in HIERARCHIES.items():
        path = out / f"hierarchy_{col}.csv"
        _write_atomic(path, "".join(";".join(row) + "\n" for row in build()))
        written.append(path)
    path = out / PROJECT_FILE
    _write_atomic(path, json.dumps(project(), indent=2) + "\n")
    written.append(path)
    register = make_register(data, np.random.default_rng(REGISTER_SEED))
    path = out / REGISTER_FILE  # Windows' encoding and semicolons, as exported where this list comes from
    text = register.to_csv(index=False, sep=";", lineterminator="\r\n")
    atomic_write_bytes(path, text.encode("cp1252"))
    written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent, help="output folder")
    args = parser.parse_args(argv)
    for path in write_sample(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
