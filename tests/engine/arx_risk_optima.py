"""ARX 3.9.2's optima for the risk-based models on Adult (8 quasi-identifiers, the shared ARX hierarchies,
metric DM = ARX's non-monotone discernibility, Optimal = ARX's Flash), as printed by the driver built
against ARX's source (/work/notes/riskmodels/ArxDriver.java, ``search MODEL SUPP``; figures in
/work/notes/riskmodels/arx_table.txt and arx_more.txt), with the kanon flags of the same model.

Levels are in :data:`QI` order. Only models whose semantics kanon shares with ARX are listed: SNB (ARX's
solver returns 0 on Adult, kanon solves the equations) and the models on a research subset (ARX counts
the records outside the subset as suppressed in its DM) are left out.
"""

from __future__ import annotations

from typing import NamedTuple

QI = ("age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass")


class ArxOptimum(NamedTuple):
    name: str  # ARX's driver spec
    flags: tuple[str, ...]  # kanon's flags for the same model
    suppression: float
    levels: tuple[int, ...]
    dm: int


NO_K = ("--k", "none")

ARX_OPTIMA: tuple[ArxOptimum, ...] = (
    ArxOptimum("k=5", ("--k", "5"), 0.05, (0, 3, 2, 2, 1, 0, 0, 2), 9_268_952),
    ArxOptimum("avg=0.05", (*NO_K, "--average-risk", "0.05"), 0.0, (0, 1, 1, 2, 1, 1, 0, 2), 2_689_984),
    ArxOptimum(
        "avg=0.05,0.2,0.05",
        (*NO_K, "--average-risk", "0.05", "--highest-risk", "0.2", "--records-at-risk", "0.05"),
        0.05,
        (0, 1, 1, 2, 1, 1, 0, 2),
        2_689_984,
    ),
    ArxOptimum("avg=0.09", (*NO_K, "--average-risk", "0.09"), 0.05, (0, 0, 1, 2, 1, 1, 0, 2), 1_583_302),
    ArxOptimum(
        "sample=0.01", (*NO_K, "--sample-uniqueness", "0.01"), 0.05, (0, 0, 2, 2, 1, 1, 0, 2), 2_407_968
    ),
    ArxOptimum(
        "sample=0.05", (*NO_K, "--sample-uniqueness", "0.05"), 0.0, (0, 0, 1, 2, 1, 0, 0, 2), 1_221_440
    ),
    ArxOptimum(
        "pop=0.01:dankar:100000",
        (
            *NO_K,
            "--population-uniqueness",
            "0.01",
            "--population-model",
            "dankar",
            "--population-size",
            "100000",
        ),
        0.05,
        (0, 0, 1, 2, 1, 1, 0, 2),
        1_583_302,
    ),
    ArxOptimum(
        "pop=0.01:pitman:1000000",
        (
            *NO_K,
            "--population-uniqueness",
            "0.01",
            "--population-model",
            "pitman",
            "--population-size",
            "1000000",
        ),
        0.05,
        (0, 0, 1, 2, 1, 0, 0, 1),
        982_036,
    ),
    ArxOptimum(
        "pop=0.02:zayatz:100000",
        (
            *NO_K,
            "--population-uniqueness",
            "0.02",
            "--population-model",
            "zayatz",
            "--population-size",
            "100000",
        ),
        0.05,
        (0, 0, 1, 2, 1, 0, 0, 2),
        1_221_440,
    ),
    ArxOptimum(
        "kmap=10:100000",
        (*NO_K, "--k-map", "10", "--population-size", "100000"),
        0.05,
        (0, 3, 2, 2, 1, 1, 0, 2),
        13_357_407,
    ),
    ArxOptimum(
        "kmap=5:300000:ztp",
        (*NO_K, "--k-map", "5", "--population-size", "300000", "--k-map-estimator", "zero-truncated-poisson"),
        0.05,
        (0, 3, 2, 2, 1, 0, 0, 2),
        8_907_056,
    ),
    ArxOptimum(
        "k=2+beta=1.0:enhanced",
        ("--k", "2", "--sensitive", "occupation", "--beta", "1.0", "--beta-variant", "enhanced"),
        0.05,
        (4, 3, 1, 2, 1, 0, 1, 2),
        357_470_177,
    ),
    ArxOptimum(
        "k=2+beta=2.0:basic",
        ("--k", "2", "--sensitive", "occupation", "--beta", "2.0", "--beta-variant", "basic"),
        0.05,
        (4, 2, 0, 2, 1, 0, 1, 2),
        146_178_212,
    ),
    ArxOptimum(
        "k=2+delta=1.5",
        ("--k", "2", "--sensitive", "occupation", "--delta-disclosure", "1.5"),
        0.05,
        (4, 3, 2, 2, 0, 1, 1, 2),
        689_936_696,
    ),
    ArxOptimum("profit-prosecutor", (*NO_K, "--profitability", "prosecutor"), 0.05, (0,) * 8, 485_542),
)
