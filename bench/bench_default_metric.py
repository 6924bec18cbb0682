"""Which search objective should the workbench use by default? Measured, not guessed (issue 12, item 7).

For every objective, the optimal full-domain search runs on three tables: the bundled sample, Adult (the
field's benchmark, ARX's hierarchies) and the synthetic 20,000-row hospital export of
``tests/fixtures/hospital_export.py`` (default hierarchies, as a new user gets them), at k = 5 with no
suppression and with a 5 % suppression limit. Each release is then scored the same way, whatever
objective found it, on what makes a release usable:

- columns lost: quasi-identifiers released as ``*`` only (the harm a user sees first),
- generalization: the share of the hierarchies' height used, averaged over the quasi-identifiers,
- precision kept (Sweeney's Prec), the share of records suppressed, the number of groups,
- the run's CPU time.

Run:  python bench/bench_default_metric.py [--k 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.config import AnonymizationConfig  # noqa: E402
from kanon_engine.data.io import read_table  # noqa: E402
from kanon_engine.data.table import Table  # noqa: E402
from kanon_engine.hierarchy import default_hierarchy, read_arx_csv  # noqa: E402
from kanon_engine.metrics.loss import METRICS  # noqa: E402
from kanon_engine.privacy.models import KAnonymity  # noqa: E402
from kanon_engine.project.project_file import Project  # noqa: E402

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
HOSPITAL_QI = ["Geburtsdatum", "Geschlecht", "PLZ", "Aufnahmedatum", "Verweildauer"]


def sample_case(k: int) -> tuple[Table, AnonymizationConfig]:
    project = Project.load(ROOT / "resources" / "sample" / "sample_project.json")
    table, _ = project.load_table()
    return table, project.config(table).with_changes(models=(KAnonymity(k),))


def adult_case(k: int) -> tuple[Table, AnonymizationConfig] | None:
    folder = ROOT.parent / "shared" / "datasets" / "adult"
    if not (folder / "adult.csv").is_file():
        return None
    table = read_table(folder / "adult.csv")
    hier = {q: read_arx_csv(folder / f"adult_hierarchy_{q}.csv", q) for q in ADULT_QI}
    return table, AnonymizationConfig(tuple(ADULT_QI), hier, (KAnonymity(k),))


def hospital_case(k: int) -> tuple[Table, AnonymizationConfig]:
    from tests.fixtures.hospital_export import write_export

    path = Path(tempfile.mkdtemp()) / "krankenhaus_export.csv"
    table = read_table(write_export(path))
    hier = {
        q: default_hierarchy(q, pd.Series(table.frame[q].unique(), dtype=object), table.column_types.get(q))
        for q in HOSPITAL_QI
    }
    return table, AnonymizationConfig(
        tuple(HOSPITAL_QI), hier, (KAnonymity(k),), identifiers=("Fallnummer", "Patientenname")
    )


def score(result) -> dict[str, float]:
    """The same usability figures for every release, whatever objective found it."""
    cfg = result.config
    levels = result.transformation or {}
    heights = {q: cfg.hierarchies[q].height for q in cfg.quasi_identifiers}
    lost = sum(1 for q in cfg.quasi_identifiers if heights[q] and levels.get(q) == heights[q])
    used = [levels.get(q, 0) / heights[q] if heights[q] else 0.0 for q in cfg.quasi_identifiers]
    return {
        "lost": lost,
        "generalization": float(np.mean(used)),
        "precision": float(result.metrics["precision"]),
        "suppressed": result.suppressed / max(result.records, 1),
        "classes": result.n_classes,
    }


def run_case(name: str, table: Table, config: AnonymizationConfig, limit: float) -> list[dict]:
    rows = []
    for metric in METRICS:
        algo = get_algorithm("optimal", suppression_limit=limit, metric=metric)
        t0 = time.process_time()
        result = algo.run(table, config)
        cpu = time.process_time() - t0
        row = {"table": name, "suppression": limit, "metric": metric, **score(result), "cpu_s": cpu}
        row["levels"] = ",".join(str(result.transformation[q]) for q in config.quasi_identifiers)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args(argv)
    cases = [("sample", *sample_case(args.k)), ("hospital export", *hospital_case(args.k))]
    adult = adult_case(args.k)
    if adult is not None:
        cases.append(("Adult", *adult))
    rows = []
    for name, table, config in cases:
        print(f"{name}: {table.n_rows:,} records, quasi-identifiers {', '.join(config.quasi_identifiers)}")
        for limit in (0.0, 0.05):
            rows.extend(run_case(name, table, config, limit))
    frame = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    for (name, limit), part in frame.groupby(["table", "suppression"], sort=False):
        print(f"\n{name}, k = {args.k}, suppression limit {limit:.0%}")
        shown = part.drop(columns=["table", "suppression"]).copy()
        for col in ("generalization", "precision", "suppressed"):
            shown[col] = (100 * shown[col]).map(lambda x: f"{x:.1f} %")
        shown["cpu_s"] = shown["cpu_s"].map(lambda x: f"{x:.2f}")
        print(shown.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
