"""SafePub's scores of every lattice node (issue 32): the roll-up of
:mod:`kanon_engine.algorithms.lattice_sums` against a direct pandas computation on random tables with
random tree hierarchies, on records and on counted points, with one key and with keys split into blocks,
and with no height kept in memory."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import lattice_sums, safepub
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.evaluation import NodeEvaluator
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy import DifferentialPrivacy, KAnonymity
from kanon_engine.sources import as_source, encode_records
from kanon_engine.sources.plan.counting import count_points


def _hierarchy(name: str, rng: np.random.Generator) -> Hierarchy:
    """A random tree over 2-20 leaves: 1-2 levels of random groupings of the level below, then '*'."""
    n_leaves = int(rng.integers(2, 21))
    rows = [[f"{name}{i}"] for i in range(n_leaves)]
    labels = [row[0] for row in rows]
    for level in range(int(rng.integers(1, 3))):
        distinct = sorted(set(labels))
        parent = {v: f"{name}L{level}g{int(rng.integers(0, max(1, len(distinct) // 2)))}" for v in distinct}
        labels = [parent[v] for v in labels]
        for row, label in zip(rows, labels):
            row.append(label)
    for row in rows:
        row.append("*")
    return Hierarchy.from_rows(name, rows)


def _random_case(seed: int) -> tuple[Table, AnonymizationConfig, DifferentialPrivacy]:
    """2-4 quasi-identifiers with skewed values (so some classes pass k and some do not), 50-1,000 rows."""
    rng = np.random.default_rng(seed)
    names = [f"q{i}" for i in range(int(rng.integers(2, 5)))]
    hierarchies = {q: _hierarchy(q, rng) for q in names}
    n = int(rng.integers(50, 1001))
    frame = pd.DataFrame(
        {
            q: rng.choice([row[0] for row in h.rows()], n, p=rng.dirichlet(np.full(len(h.values), 0.3)))
            for q, h in hierarchies.items()
        }
    )
    model = DifferentialPrivacy(float(rng.uniform(0.5, 3.0)), 1e-5, 0.1)
    config = AnonymizationConfig(tuple(names), hierarchies, (KAnonymity(2), model))
    return Table.from_frame(frame), config, model


def _pandas_scores(
    frame: pd.DataFrame, config: AnonymizationConfig, k: int, n: int
) -> dict[tuple[int, ...], tuple[float, float, float]]:
    """(discernibility, precision, entropy) of every node straight from the definitions (SafePub,
    Section 5; the entropy score as ARX 3.9 computes it), on the generalized values grouped by pandas:
    -(sum of kept sizes squared + n * suppressed); -(1/d) * sum_i (kept * l_i / h_i + suppressed); and
    -(sum over attributes below their top of the squared kept records per value + n * every value shown
    as * or removed)."""
    qi = list(config.quasi_identifiers)
    heights = [config.hierarchies[q].height for q in qi]
    out = {}
    for node in itertools.product(*(range(h + 1) for h in heights)):
        generalized = pd.DataFrame(
            {q: config.hierarchies[q].generalize(frame[q], lv) for q, lv in zip(qi, node)}
        )
        size = generalized.groupby(qi)[qi[0]].transform("size").to_numpy()
        sizes = generalized.groupby(qi).size().to_numpy().astype(np.int64)
        kept, suppressed = sizes[sizes >= k], int(sizes[sizes < k].sum())
        disc = -float(int((kept * kept).sum()) + n * suppressed)
        prec = -sum(int(kept.sum()) * lv / h + suppressed for lv, h in zip(node, heights)) / len(qi)
        hidden, squares = 0, 0
        for q, lv, h in zip(qi, node, heights):
            shown = generalized.loc[size >= k, q]
            if lv == h and h > 0:
                hidden += len(shown) + suppressed
            else:
                per_value = shown.value_counts().to_numpy().astype(np.int64)
                squares += int((per_value * per_value).sum())
                hidden += suppressed
        out[node] = (disc, prec, -float(squares + n * hidden))
    return out


def _engine_scores(table: Table, config: AnonymizationConfig, model: DifferentialPrivacy, points: bool):
    """Both scores of every node as SafePub computes them, by lattice node."""
    enc = count_points(as_source(table), config).enc if points else encode_records(table, config)
    out = {}
    for score in ("discernibility", "precision", "entropy"):
        evaluator = NodeEvaluator(enc, config.models, enc.n_rows)
        lattice, scores, _s = safepub.SafePub(dp_score=score).lattice_scores(enc, config, model, evaluator)
        out[score] = {lattice.node(i): float(scores[i]) for i in range(lattice.size)}
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("points", [False, True])
def test_scores_of_every_node_match_pandas(seed: int, points: bool) -> None:
    table, config, model = _random_case(seed)
    k = max(model.derived.k, 2)
    expected = _pandas_scores(table.frame, config, k, table.n_rows)
    got = _engine_scores(table, config, model, points)
    assert set(got["discernibility"]) == set(expected)
    for node, (disc, prec, entropy) in expected.items():
        assert got["discernibility"][node] == disc, node  # integers: exactly
        assert got["precision"][node] == pytest.approx(prec, rel=1e-12, abs=1e-9), node
        assert got["entropy"][node] == entropy, node


@pytest.mark.parametrize("seed", range(3))
def test_keys_split_into_blocks_and_no_height_kept(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Radices too large for one key (every attribute a block of its own), and no height's frequency sets
    kept (every node rolled up from the bottom): the same scores."""
    table, config, model = _random_case(100 + seed)
    k = max(model.derived.k, 2)
    expected = _pandas_scores(table.frame, config, k, table.n_rows)
    monkeypatch.setattr(lattice_sums, "MAX_KEY_SPACE", 2)
    assert lattice_sums.KeyPlan(encode_records(table, config)).n_blocks == len(config.quasi_identifiers)
    got = _engine_scores(table, config, model, points=True)
    assert got["discernibility"] == {node: d for node, (d, _p, _e) in expected.items()}
    assert got["entropy"] == {node: e for node, (_d, _p, e) in expected.items()}
    monkeypatch.setattr(lattice_sums, "HEIGHT_BYTES", 0)
    got = _engine_scores(table, config, model, points=False)
    assert got["discernibility"] == {node: d for node, (d, _p, _e) in expected.items()}
    assert got["entropy"] == {node: e for node, (_d, _p, e) in expected.items()}


def test_class_sums_count_every_record_once() -> None:
    """kept + suppressed is the sample at every node, and classes never grow in number upwards."""
    table, config, model = _random_case(7)
    enc = encode_records(table, config)
    evaluator = NodeEvaluator(enc, config.models, enc.n_rows)
    lattice = safepub.Lattice(enc.heights, tuple(enc.qi))
    sums = lattice_sums.class_sums(enc, evaluator.base, lattice, 3)
    assert np.all(sums.kept + sums.suppressed == table.n_rows)
    assert sums.classes[0] == evaluator.base.n_classes and sums.classes[-1] == 1
    for i in range(lattice.size):
        for j in lattice.successors(i):
            assert sums.classes[j] <= sums.classes[i]
