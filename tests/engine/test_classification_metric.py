"""The classification metric (Iyengar 2002, as ARX 3.9.2's MetricSDClassification computes it): ARX's own
figures on Adult, an independent pandas computation of every node of small random lattices, the optimal
search against brute force, and the figure recomputed from the written release."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.errors import KanonError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy import KAnonymity

ADULT_QI = ("age", "education", "marital-status", "native-country", "race", "sex", "workclass")


def independent_value(frame: pd.DataFrame, qi, hierarchies, levels, target, k, limit) -> float | None:
    """ARX's classification value of one node, computed on records with pandas (None: the node does not
    satisfy k-anonymity within the limit). No step 4: suppressed = the records of groups under k."""
    gen = pd.DataFrame(
        {
            q: frame[q].map(dict(zip(hierarchies[q].values, hierarchies[q].level_codes[lv][0])))
            for q, lv in zip(qi, levels)
        }
    )
    sizes = gen.groupby(list(qi))[qi[0]].transform("size")
    small = sizes < k
    if small.sum() > limit:
        return None
    kept = gen[~small].assign(_t=frame.loc[~small, target].to_numpy())
    penalty = 0.5 * float(small.sum())
    if target in qi:
        raise AssertionError("only non-QI targets here")
    for _key, group in kept.groupby(list(qi)):
        counts = group["_t"].value_counts().to_numpy()
        tie = len(counts) > 1 and counts[0] == counts[1]
        penalty += len(group) if tie else len(group) - counts[0]
    return penalty / len(frame)


def _random(seed: int, n: int = 300, two_valued: bool = False):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "a": [f"a{v}" for v in rng.integers(0, 12, n)],
            "b": [f"b{v}" for v in rng.integers(0, 6, n)],
            "c": [f"c{v}" for v in rng.integers(0, 4, n)],
        }
    )
    # a target that depends on a, so some transformations keep it predictable and others do not
    frame["y"] = np.where(rng.random(n) < 0.8, (frame["a"].str[1:].astype(int) // 4).astype(str), "x")
    if two_valued:  # the search's suppression-curve bound applies to a two-valued target only
        frame["y"] = np.where(rng.random(n) < 0.75, (frame["a"].str[1:].astype(int) % 2).astype(str), "x")
        frame.loc[frame["y"] == "x", "y"] = "1"
    hierarchies = {
        "a": Hierarchy.from_rows("a", [[f"a{v}", f"a{v // 4}x", f"a{v // 8}y", "*"] for v in range(12)]),
        "b": Hierarchy.from_rows("b", [[f"b{v}", f"b{v // 2}x", "*"] for v in range(6)]),
        "c": Hierarchy.from_rows("c", [[f"c{v}", "*"] for v in range(4)]),
    }
    return frame, ("a", "b", "c"), hierarchies


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k,limit_share", [(3, 0.0), (5, 0.04), (8, 0.1)])
@pytest.mark.parametrize("two_valued", [False, True])
def test_optimal_equals_brute_force(seed, k, limit_share, two_valued):
    """Every node of the lattice computed independently; the optimal search's figure is their minimum
    (with a two-valued target, the search also bounds nodes by their suppression curves)."""
    frame, qi, hs = _random(seed, two_valued=two_valued)
    config = AnonymizationConfig(qi, hs, (KAnonymity(k),), protect_suppressed_group=False)
    limit = int(np.floor(limit_share * len(frame) + 1e-9))
    values = [
        v
        for levels in itertools.product(*(range(hs[q].height + 1) for q in qi))
        if (v := independent_value(frame, qi, hs, levels, "y", k, limit)) is not None
    ]
    algo = get_algorithm("optimal", suppression_limit=limit_share, metric="classification", target="y")
    result = algo.run(Table.from_frame(frame), config)
    assert result.metrics["classification"] == pytest.approx(min(values), abs=1e-12)
    chosen = tuple(result.transformation[q] for q in qi)
    assert independent_value(frame, qi, hs, chosen, "y", k, limit) == pytest.approx(min(values), abs=1e-12)


def test_the_figure_is_recomputed_from_the_release():
    """The reported value equals ARX's formula applied to the released rows (step 4 on: whole groups)."""
    frame, qi, hs = _random(11, 500)
    config = AnonymizationConfig(qi, hs, (KAnonymity(6),))
    algo = get_algorithm("optimal", suppression_limit=0.05, metric="classification", target="y")
    result = algo.run(Table.from_frame(frame), config)
    release = result.release.assign(y=frame["y"].to_numpy())
    suppressed = (release[list(qi)] == "*").all(axis=1) & (result.row_class < 0)
    penalty = 0.5 * float(suppressed.sum())
    for _key, group in release[~suppressed].groupby(list(qi)):
        counts = group["y"].value_counts().to_numpy()
        tie = len(counts) > 1 and counts[0] == counts[1]
        penalty += len(group) if tie else len(group) - counts[0]
    assert result.metrics["classification"] == pytest.approx(penalty / len(frame), abs=1e-12)


@pytest.mark.parametrize(
    "k,levels,value",
    [
        (5, (2, 0, 1, 2, 1, 1, 2), 0.17863536900736027),
        (10, (3, 0, 1, 2, 1, 1, 2), 0.17976261521119308),
    ],
)
def test_arx_optimum_on_adult(adult_frame, adult_hierarchies, k, levels, value):
    """ARX 3.9.2's optimum under the classification metric (target salary-class, 5 % suppression)."""
    config = AnonymizationConfig(ADULT_QI, {q: adult_hierarchies[q] for q in ADULT_QI}, (KAnonymity(k),))
    algo = get_algorithm("optimal", suppression_limit=0.05, metric="classification", target="salary-class")
    result = algo.run(Table.from_frame(adult_frame), config)
    assert tuple(result.transformation[q] for q in ADULT_QI) == levels
    assert result.metrics["classification"] == pytest.approx(value, rel=1e-9)
    if k == 5:
        assert result.n_suppressed == 86


def test_heuristic_and_samarati_take_it_as_their_objective():
    frame, qi, hs = _random(3)
    config = AnonymizationConfig(qi, hs, (KAnonymity(4),), protect_suppressed_group=False)
    best = get_algorithm("optimal", suppression_limit=0.05, metric="classification", target="y")
    optimum = best.run(Table.from_frame(frame), config).metrics["classification"]
    for name in ("heuristic", "samarati"):
        algo = get_algorithm(name, suppression_limit=0.05, metric="classification", target="y")
        value = algo.run(Table.from_frame(frame), config).metrics["classification"]
        assert value >= optimum - 1e-12
    heuristic = get_algorithm("heuristic", suppression_limit=0.05, metric="classification", target="y")
    assert heuristic.run(Table.from_frame(frame), config).metrics["classification"] == pytest.approx(optimum)


def test_a_quasi_identifier_as_target_follows_arx():
    """A QI target is scored on the groups of the other QIs; at its top level every record costs 1."""
    frame, qi, hs = _random(5)
    config = AnonymizationConfig(qi, hs, (KAnonymity(3),), protect_suppressed_group=False)
    result = get_algorithm("optimal", suppression_limit=0.0, metric="classification", target="c").run(
        Table.from_frame(frame), config
    )
    release = result.release
    kept = release[(release[list(qi)] != "*").any(axis=1) | (result.row_class >= 0)]
    if result.transformation["c"] == hs["c"].height:
        expected = len(kept) / len(frame)
    else:
        penalty = 0.0
        for _key, group in kept.groupby(["a", "b"]):
            counts = group["c"].value_counts().to_numpy()
            tie = len(counts) > 1 and counts[0] == counts[1]
            penalty += len(group) if tie else len(group) - counts[0]
        expected = penalty / len(frame)
    assert result.metrics["classification"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "params,frame_change,message",
    [
        ({}, None, "needs the attribute the study will predict"),
        ({"target": "id"}, None, "is an identifier"),
        ({"target": "one"}, None, "holds a single value"),
        ({"target": "nosuch"}, None, "nosuch"),
        ({"target": "y", "suppress": "cells"}, None, "suppress whole records"),
    ],
)
def test_bad_targets_get_one_sentence(params, frame_change, message):
    frame, qi, hs = _random(1, 120)
    frame = frame.assign(id=[f"p{i}" for i in range(len(frame))], one="same")
    config = AnonymizationConfig(qi, hs, (KAnonymity(2),), identifiers=("id",))
    with pytest.raises(KanonError, match=message):
        get_algorithm("optimal", suppression_limit=0.05, metric="classification", **params).run(
            Table.from_frame(frame), config
        )
