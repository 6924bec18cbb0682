"""Write a synthetic hospital admissions table of N rows, in chunks, to Parquet and/or CSV, with its
hierarchies and a project file: the input of ``bench/bench_scale.py``.

Eight quasi-identifiers of realistic cardinality (age 0-99, sex, 5-digit postcode from 2,500 codes with
leading zeros, admission date over five years, ethnicity, ward, insurance, marital status), a sensitive
diagnosis (400 ICD-10 categories, Zipf-like), an identifier and two insensitive columns. Values are drawn
independently per row from skewed distributions (numpy, seeded), so almost every row is unique on all
eight quasi-identifiers, as in real registries. Memory stays bounded by one chunk.

    python bench/make_hospital.py --rows 10000000 --out /data/hosp10m --formats parquet,csv
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

QI = ("age", "sex", "zip", "admission_date", "ethnicity", "ward", "insurance", "marital_status")
N_ZIPS = 2500
START = dt.date(2019, 1, 1)
DAYS = 5 * 365 + 1
ETHNICITY = ("White", "Black", "Asian", "Hispanic", "Mixed", "Other")
WARDS = {
    "Medicine": (
        "General Medicine",
        "Cardiology",
        "Pulmonology",
        "Nephrology",
        "Gastroenterology",
        "Geriatrics",
    ),
    "Surgery": ("General Surgery", "Orthopedics", "Neurosurgery", "Vascular Surgery", "Urology", "ENT"),
    "Women and children": ("Obstetrics", "Gynecology", "Pediatrics", "Neonatology"),
    "Critical care": ("ICU", "CCU", "Burns", "Stroke Unit"),
    "Other": ("Psychiatry", "Oncology", "Rehabilitation", "Dermatology"),
}
INSURANCE = ("public", "private", "self-pay", "other")
MARITAL = ("single", "married", "divorced", "widowed", "unknown")


def _zipf(rng: np.random.Generator, n: int, size: int, a: float = 1.1) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1) ** a
    return rng.choice(n, size=size, p=weights / weights.sum())


def domains(seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    zips = np.sort(rng.choice(np.arange(1000, 99999), N_ZIPS, replace=False))
    letters = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    dx = np.unique(
        [f"{letters[i % 26]}{j:02d}" for i, j in zip(rng.integers(0, 26, 2000), rng.integers(0, 100, 2000))]
    )[:400]
    wards = np.array([w for ws in WARDS.values() for w in ws], dtype=object)
    return {
        "zip": np.array([f"{z:05d}" for z in zips], dtype=object),
        "date": np.array(
            [(START + dt.timedelta(days=int(d))).isoformat() for d in range(DAYS)], dtype=object
        ),
        "dx": np.asarray(dx, dtype=object),
        "ward": wards,
    }


def chunk(rng: np.random.Generator, start: int, n: int, dom: dict[str, np.ndarray]) -> pa.Table:
    """``n`` rows starting at row ``start``."""
    age = np.clip(np.round(rng.gamma(4.0, 12.0, n)), 0, 99).astype(np.int64)
    cols = {
        "patient_id": pa.array(np.char.add("P", np.char.zfill(np.arange(start, start + n).astype(str), 9))),
        "age": pa.array(age.astype(str)),
        "sex": pa.array(np.where(rng.random(n) < 0.51, "F", "M")),
        "zip": pa.array(dom["zip"][_zipf(rng, N_ZIPS, n, 0.6)]),
        "admission_date": pa.array(dom["date"][rng.integers(0, DAYS, n)]),
        "ethnicity": pa.array(np.array(ETHNICITY, dtype=object)[_zipf(rng, len(ETHNICITY), n, 1.5)]),
        "ward": pa.array(dom["ward"][_zipf(rng, len(dom["ward"]), n, 0.8)]),
        "insurance": pa.array(np.array(INSURANCE, dtype=object)[_zipf(rng, len(INSURANCE), n, 1.2)]),
        "marital_status": pa.array(np.array(MARITAL, dtype=object)[_zipf(rng, len(MARITAL), n, 0.9)]),
        "diagnosis": pa.array(dom["dx"][_zipf(rng, len(dom["dx"]), n, 1.05)]),
        "length_of_stay": pa.array(
            np.clip(np.round(rng.exponential(5.0, n)) + 1, 1, 90).astype(np.int64).astype(str)
        ),
    }
    return pa.table(cols)


def write_hierarchies(out: Path, dom: dict[str, np.ndarray]) -> dict[str, str]:
    """ARX hierarchy files (``;``-separated, leaf first) for the eight quasi-identifiers."""

    def save(name: str, rows: list[list[str]]) -> str:
        path = out / f"hierarchy_{name}.csv"
        path.write_text("".join(";".join(r) + "\n" for r in rows), encoding="utf-8")
        return path.name

    files = {}
    ages = []
    for a in range(100):
        lo5, lo10, lo20 = a // 5 * 5, a // 10 * 10, a // 20 * 20
        ages.append([str(a), f"[{lo5}-{lo5 + 4}]", f"[{lo10}-{lo10 + 9}]", f"[{lo20}-{lo20 + 19}]", "*"])
    files["age"] = save("age", ages)
    files["sex"] = save("sex", [["F", "*"], ["M", "*"]])
    files["zip"] = save(
        "zip", [[z, z[:4] + "*", z[:3] + "**", z[:2] + "***", z[:1] + "****", "*"] for z in dom["zip"]]
    )
    dates = []
    for d in dom["date"]:
        y, m = d[:4], d[5:7]
        q = (int(m) - 1) // 3 + 1
        dates.append([d, f"{y}-{m}", f"{y}-Q{q}", y, "*"])
    files["admission_date"] = save("admission_date", dates)
    files["ethnicity"] = save("ethnicity", [[e, "*"] for e in ETHNICITY])
    files["ward"] = save("ward", [[w, dept, "*"] for dept, ws in WARDS.items() for w in ws])
    files["insurance"] = save("insurance", [[i, "*"] for i in INSURANCE])
    files["marital_status"] = save("marital_status", [[m, "*"] for m in MARITAL])
    return files


def write_project(out: Path, data: str, files: dict[str, str], name: str) -> Path:
    project = {
        "schema_version": 1,
        "data": {"path": data},
        "roles": {
            "patient_id": "identifier",
            **dict.fromkeys(QI, "quasi-identifier"),
            "diagnosis": "sensitive",
            "length_of_stay": "insensitive",
        },
        "hierarchies": {q: {"file": f} for q, f in files.items()},
        "models": [{"name": "k-anonymity", "k": 10}],
        "algorithm": {"name": "optimal", "suppression_limit": 0.02, "metric": "dm"},
    }
    path = out / name
    path.write_text(json.dumps(project, indent=2), encoding="utf-8")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True, help="folder for the data, hierarchies and projects")
    ap.add_argument("--formats", default="parquet", help="parquet, csv or both (comma-separated)")
    ap.add_argument("--chunk", type=int, default=2_000_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    dom = domains()
    files = write_hierarchies(args.out, dom)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    rng = np.random.default_rng(args.seed)
    writers: dict[str, object] = {}
    t0 = time.perf_counter()
    for start in range(0, args.rows, args.chunk):
        t = chunk(rng, start, min(args.chunk, args.rows - start), dom)
        if "parquet" in formats:
            if "parquet" not in writers:
                writers["parquet"] = pq.ParquetWriter(
                    args.out / "hospital.parquet", t.schema, compression="zstd"
                )
            writers["parquet"].write_table(t, row_group_size=1 << 20)
        if "csv" in formats:
            if "csv" not in writers:
                writers["csv"] = pacsv.CSVWriter(args.out / "hospital.csv", t.schema)
            writers["csv"].write_table(t)
        done = start + t.num_rows
        print(f"  {done:,} rows  {time.perf_counter() - t0:.0f} s", flush=True)
    for w in writers.values():
        w.close()
    for fmt in formats:
        write_project(args.out, f"hospital.{fmt}", files, f"project_{fmt}.json")
    print(
        f"wrote {args.rows:,} rows as {', '.join(formats)} to {args.out} in {time.perf_counter() - t0:.0f} s"
    )


if __name__ == "__main__":
    main()
