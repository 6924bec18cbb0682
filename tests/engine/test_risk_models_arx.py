"""Optimal with the risk-based models of issue 31 finds ARX 3.9.2's optimum on Adult (levels and DM),
for six models whose semantics kanon shares with ARX (tests/engine/arx_risk_optima.py; the bench
bench/bench_risk_models.py runs all of them with timings). Needs the shared datasets (KANON_SHARED)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kanon_engine.cli import main
from tests.engine.arx_risk_optima import ARX_OPTIMA, QI

CHECKED = (
    "avg=0.05,0.2,0.05",
    "sample=0.01",
    "pop=0.01:dankar:100000",
    "kmap=5:300000:ztp",
    "k=2+beta=1.0:enhanced",
    "profit-prosecutor",
)


@pytest.mark.parametrize("case", [c for c in ARX_OPTIMA if c.name in CHECKED], ids=lambda c: c.name)
def test_optimum_equals_arx_on_adult(case, adult_dir: Path, tmp_path: Path) -> None:
    hier = [f"--hierarchy={q}={adult_dir}/adult_hierarchy_{q}.csv" for q in (*QI, "occupation")]
    report = tmp_path / "r.json"
    args = ["anonymize", str(adult_dir / "adult.csv"), "--qi", ",".join(QI), *hier, "--metric", "dm"]
    args += ["--suppression-limit", str(case.suppression), *case.flags, "--output", str(tmp_path / "o.csv")]
    assert main([*args, "--report", str(report)]) == 0
    out = json.loads(report.read_text(encoding="utf-8"))
    assert tuple(out["transformation"][q] for q in QI) == case.levels
    assert round(out["discernibility"]) == case.dm
