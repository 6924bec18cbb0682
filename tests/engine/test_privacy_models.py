"""Privacy models against worked examples from their papers and hand computations."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from kanon_engine.core.encoding import encode_table
from kanon_engine.core.frequency import base_frequency_set
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy.models import (
    ClassStats,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)


def stats_for(groups: list[list[str]], sensitive_hierarchy: Hierarchy | None = None) -> ClassStats:
    """One class per list of sensitive values; the QI 'g' names the class."""
    rows = [(f"c{i}", v) for i, values in enumerate(groups) for v in values]
    frame = pd.DataFrame(rows, columns=["g", "s"], dtype=object)
    h = Hierarchy.flat("g", sorted(frame["g"].unique()))
    enc = encode_table(
        Table.from_frame(frame),
        ["g"],
        {"g": h},
        ["s"],
        {"s": sensitive_hierarchy} if sensitive_hierarchy else None,
    )
    return ClassStats.of(enc, base_frequency_set(enc, sensitive=(0,)))


def by_class(stats: ClassStats, values: np.ndarray) -> dict[str, float]:
    """Map the model's per-class output back to class names (class ids are internal)."""
    h = stats.enc.hierarchies[0]
    fs = base_frequency_set(stats.enc)
    reps = fs.leaves()[0]
    return {h.values[reps[c]]: values[c] for c in range(fs.n_classes)}


def test_ordered_distance_matches_li_et_al_example():
    """Li, Li & Venkatasubramanian 2007, Sec. 4: Q uniform over 3k..11k; P1 = {3k,4k,5k} is 0.375 away,
    P2 = {6k,8k,11k} is 0.167 away under the ordered distance."""
    stats = stats_for([["3000", "4000", "5000"], ["6000", "8000", "11000"], ["7000", "9000", "10000"]])
    d = by_class(stats, TCloseness(1.0, "s", "ordered").distances(stats))
    assert d["c0"] == pytest.approx(0.375)
    assert d["c1"] == pytest.approx(0.1667, abs=1e-4)


def test_equal_distance_is_half_the_l1_distance():
    stats = stats_for([["3K", "4K", "5K"], ["6K", "8K", "11K"], ["7K", "9K", "10K"]])
    d = by_class(stats, TCloseness(1.0, "s", "equal").distances(stats))
    assert d["c0"] == pytest.approx(0.5 * (3 * (1 / 3 - 1 / 9) + 6 / 9))
    assert TCloseness(0.6, "s").passes(stats).tolist() == [False, False, False]


def _hier_emd(p: dict[str, float], q: dict[str, float], rows: list[list[str]]) -> float:
    """Li et al.'s hierarchical EMD, written directly from the paper's recursion on a dict tree."""
    height = len(rows[0]) - 1
    extra = {(0, r[0]): p.get(r[0], 0.0) - q.get(r[0], 0.0) for r in rows}
    cost = 0.0
    for j in range(1, height + 1):
        nodes = {r[j] for r in rows}
        nxt = {}
        for node in nodes:
            kids = {r[j - 1] for r in rows if r[j] == node}
            pos = sum(max(extra[(j - 1, c)], 0) for c in kids)
            neg = sum(max(-extra[(j - 1, c)], 0) for c in kids)
            cost += j / height * min(pos, neg)
            nxt[(j, node)] = pos - neg
        extra = nxt
    return cost


def test_hierarchical_distance_matches_the_papers_recursion():
    rows = [
        ["flu", "respiratory", "*"],
        ["pneumonia", "respiratory", "*"],
        ["bronchitis", "respiratory", "*"],
        ["gastritis", "digestive", "*"],
        ["ulcer", "digestive", "*"],
        ["cancer", "digestive", "*"],
    ]
    h = Hierarchy.from_rows("s", rows)
    groups = [
        ["gastritis", "ulcer", "cancer"],
        ["flu", "flu", "ulcer"],
        ["pneumonia", "bronchitis", "cancer"],
        ["flu", "gastritis", "bronchitis", "pneumonia", "ulcer", "cancer"],
    ]
    stats = stats_for(groups, h)
    d = by_class(stats, TCloseness(1.0, "s", "hierarchical").distances(stats))
    everyone = [v for g in groups for v in g]
    q = pd.Series(everyone).value_counts(normalize=True).to_dict()
    for i, g in enumerate(groups):
        p = pd.Series(g).value_counts(normalize=True).to_dict()
        assert d[f"c{i}"] == pytest.approx(_hier_emd(p, q, rows), abs=1e-12)
    assert d["c0"] > d["c2"]  # all digestive is further away than a mix


def test_l_diversity_variants_by_hand():
    groups = [["a", "a", "a", "b"], ["a", "b", "c", "d"], ["a", "a", "b", "b"], ["a"] * 6 + ["b", "c"]]
    stats = stats_for(groups)
    distinct = by_class(stats, DistinctLDiversity(2, "s").passes(stats))
    assert distinct == {"c0": True, "c1": True, "c2": True, "c3": True}
    assert by_class(stats, DistinctLDiversity(3, "s").passes(stats))["c0"] is np.False_
    ent = by_class(stats, EntropyLDiversity(2, "s").passes(stats))
    # entropy of (3/4, 1/4) = 0.562 < ln 2 = 0.693; (1/2, 1/2) = ln 2 exactly passes;
    # (6/8, 1/8, 1/8) = 0.736 passes although one value dominates (recursive diversity catches it)
    assert ent == {"c0": False, "c1": True, "c2": True, "c3": True}
    rec = by_class(stats, RecursiveCLDiversity(2, 2, "s").passes(stats))
    # r1 < c * (r2 + ... ): c0: 3 < 2*1 no; c1: 1 < 2*3 yes; c2: 2 < 2*2 yes; c3: 6 < 2*2 no
    assert rec == {"c0": False, "c1": True, "c2": True, "c3": False}
    assert math.isclose(EntropyLDiversity(2, "s").l, 2.0)


def test_models_round_trip_and_describe():
    from kanon_engine.privacy.models import model_from_dict

    for m in (
        KAnonymity(5),
        DistinctLDiversity(3, "d"),
        EntropyLDiversity(2.5, "d"),
        RecursiveCLDiversity(3, 2, "d"),
        TCloseness(0.2, "d", "ordered"),
    ):
        assert model_from_dict(m.to_dict()) == m
        assert m.describe()
