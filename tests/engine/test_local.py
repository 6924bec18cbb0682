"""Cell-level models: local recoding (CG), local suppression (CS), checked by the independent checker
(tests/engine/reference.py), by exhaustive search on tiny tables, on the seeds' examples and on Adult."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError, InfeasibleError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy import model_from_dict
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.sources import as_source
from tests.conftest import ADULT_QI
from tests.engine import reference as ref
from tests.engine.test_algorithms import _config, _models, problems

LOCAL = ["local-recoding", "local-suppression"]


def _rows_for(name: str, rows_by_qi):
    """The hierarchies the checker allows: the user's for local recoding, none for local suppression."""
    return rows_by_qi if name == "local-recoding" else None


# --- random tables -------------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(LOCAL))
def test_random_tables_pass_the_independent_checker(problem, name):
    """Every record kept, every cell truthful, every class (``*`` a value of its own) passes every
    model; infeasible only when the whole table fails the models."""
    frame, rows_by_qi, k, kind, _ = problem
    models = _models(kind, k)
    config = _config(rows_by_qi, models)
    table = Table.from_frame(frame)
    dicts = [m.to_dict() for m in models]
    if k > len(frame):
        with pytest.raises(ConfigError):
            get_algorithm(name).run(table, config)
        return
    try:
        result = get_algorithm(name).run(table, config)
    except InfeasibleError:
        assert not ref.group_passes(frame, dicts, frame), "refused although the whole table passes"
        return
    ok, why = ref.cell_release_check(
        result.release, frame, list(rows_by_qi), _rows_for(name, rows_by_qi), dicts
    )
    assert ok, f"{name}: {why}"
    assert result.suppressed == 0 and result.cell_level
    assert result.model == ("CG" if name == "local-recoding" else "CS")
    rec = result.recoding
    stars = sum(int((result.release[q].astype(object) == "*").sum()) for q in rows_by_qi)
    if name == "local-suppression":
        assert rec.suppressed_cells == stars == int(result.metrics["suppressed_cells"])
        assert not rec.levels.any()
    else:
        assert not rec.suppressed.any()
    assert int(result.metrics["star_cells"]) == stars


# --- exhaustive search on tiny tables ------------------------------------------------------------------
def _tiny_tables(count: int, seed: int = 19):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        d = int(rng.integers(2, 4))
        n = int(rng.integers(4, 8 if d == 2 else 7))
        k = int(rng.integers(2, 4))
        data = {f"q{j}": [f"v{int(x)}" for x in rng.integers(0, 3, n)] for j in range(d)}
        yield pd.DataFrame(data, dtype=object), k


def test_local_suppression_is_close_to_the_fewest_stars():
    """On 150 random tiny tables the exhaustive minimum of ``*`` cells (strict reading) bounds local
    suppression: never below it (that would be a wrong release), optimal on most tables and a few percent
    above the minimum in total (measured: optimal on 140 of 150, 1.2% more '*' in all, worst 8 for 5)."""
    got_total = best_total = optimal = tables = 0
    worst = 1.0
    for frame, k in _tiny_tables(150):
        qi = list(frame.columns)
        config = AnonymizationConfig(
            tuple(qi), {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in qi}, (KAnonymity(k),)
        )
        result = get_algorithm("local-suppression").run(Table.from_frame(frame), config)
        got = result.recoding.suppressed_cells
        ok, why = ref.cell_release_check(result.release, frame, qi, None, [{"name": "k-anonymity", "k": k}])
        assert ok, why
        best = ref.min_suppressed_cells(frame, qi, k, upper=got)
        assert best is not None and got >= best
        tables += 1
        got_total += got
        best_total += best
        optimal += got == best
        worst = max(worst, (got + 1) / (best + 1))
    assert optimal >= 0.9 * tables
    assert got_total <= 1.03 * best_total
    assert worst <= 1.6


# --- semantics -----------------------------------------------------------------------------------------
def test_star_is_a_value_of_its_own():
    """Two records that differ only in age: k=2 cannot be reached by starring one age (strict reading:
    the starred record would be alone); both ages are starred."""
    frame = pd.DataFrame({"age": ["30", "40", "50", "50"], "sex": ["F", "F", "M", "M"]}, dtype=object)
    qi = ["age", "sex"]
    config = AnonymizationConfig(
        tuple(qi), {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in qi}, (KAnonymity(2),)
    )
    result = get_algorithm("local-suppression").run(Table.from_frame(frame), config)
    assert list(result.release["age"]) == ["*", "*", "50", "50"]
    assert list(result.release["sex"]) == ["F", "F", "M", "M"]
    assert result.recoding.suppressed_per_attribute() == {"age": 2, "sex": 0}
    assert result.recoding.records_touched == 2
    assert list(result.class_sizes) == [2, 2]


def test_importance_chooses_what_is_suppressed():
    """Either attribute's '*' resolves these records; the one listed first is kept."""
    frame = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["1", "2", "1", "2"]}, dtype=object)
    qi = ["a", "b"]
    config = AnonymizationConfig(
        tuple(qi), {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in qi}, (KAnonymity(2),)
    )
    table = Table.from_frame(frame)
    keep_a = get_algorithm("local-suppression", importance="a,b").run(table, config)
    keep_b = get_algorithm("local-suppression", importance="b").run(table, config)
    assert list(keep_a.release["a"]) == ["x", "x", "y", "y"] and set(keep_a.release["b"]) == {"*"}
    assert list(keep_b.release["b"]) == ["1", "2", "1", "2"] and set(keep_b.release["a"]) == {"*"}
    with pytest.raises(ConfigError, match="Keep longest names 'c'"):
        get_algorithm("local-suppression", importance="c").run(table, config)


@pytest.mark.parametrize("name", LOCAL)
@pytest.mark.parametrize(
    ("model", "refusal"),
    [
        ({"name": "average-risk", "average_risk": 0.2}, "judges the release as a whole"),
        ({"name": "differential-privacy", "dp_epsilon": 1.0}, "choose the algorithm SafePub"),
    ],
)
def test_cell_level_models_refuse_what_they_cannot_apply(name, model, refusal):
    """Both cell-level models run through the base's record run, which refuses, before touching the data,
    a model they cannot apply: local suppression used to release a table under average risk or
    differential privacy that it had never checked against them."""
    frame = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["1", "2", "1", "2"]}, dtype=object)
    config = AnonymizationConfig(
        ("a", "b"),
        {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in ("a", "b")},
        (model_from_dict(model), KAnonymity(2)),
    )
    with pytest.raises(ConfigError, match=refusal) as refused:
        get_algorithm(name).run(Table.from_frame(frame), config)
    assert refused.value.where == "models"


def test_local_suppression_reads_its_records_once_whatever_the_input():
    """The run on a loaded table and on its in-memory source give the same release, classes and person
    facts (the person facts are counted from the source the base's run hands over)."""
    frame = pd.DataFrame(
        {"p": ["1", "1", "2", "3", "4", "5"], "a": ["x", "x", "y", "y", "z", "z"], "b": list("121212")},
        dtype=object,
    )
    config = AnonymizationConfig(
        ("a", "b"),
        {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in ("a", "b")},
        (KAnonymity(2),),
        person="p",
    )
    table = Table.from_frame(frame)
    direct = get_algorithm("local-suppression").run(table, config)
    sourced = get_algorithm("local-suppression").run(as_source(table), config)
    assert direct.release.equals(sourced.release)
    assert direct.persons is not None and direct.persons.to_dict() == sourced.persons.to_dict()
    assert sourced.engine == "memory"


def test_local_recoding_uses_only_hierarchy_labels(seed_dir):
    """Sweeney's Datafly example: every released cell is a label of the record's own hierarchy row."""
    from kanon_engine.hierarchy import read_arx_csv

    frame = pd.read_csv(seed_dir / "datafly_sweeney.csv", dtype=str, keep_default_na=False)
    qi = ["race", "birth_date", "gender", "zip"]
    hs = {q: read_arx_csv(seed_dir / f"datafly_sweeney_hierarchy_{q}.csv", q) for q in qi}
    config = AnonymizationConfig(tuple(qi), hs, (KAnonymity(2),))
    result = get_algorithm("local-recoding").run(Table.from_frame(frame), config)
    rows = {q: hs[q].rows() for q in qi}
    ok, why = ref.cell_release_check(result.release, frame, qi, rows, [{"name": "k-anonymity", "k": 2}])
    assert ok, why
    assert len(result.release) == len(frame)


def test_adult_local_recoding_quality(adult_frame, adult_hierarchies):
    """Adult, 8 QIs, ARX hierarchies, k=5: NCP below the issue's target (ARX's 0.0329 less 10%); the
    release passes the independent checker with a row-id column kept as it is."""
    frame = adult_frame.copy()
    frame.insert(0, "row_id", [str(i) for i in range(len(frame))])
    config = AnonymizationConfig(
        tuple(ADULT_QI), {q: adult_hierarchies[q] for q in ADULT_QI}, (KAnonymity(5),)
    )
    result = get_algorithm("local-recoding").run(Table.from_frame(frame), config)
    assert result.metrics["gcp"] <= 0.0296
    assert list(result.release["row_id"]) == list(frame["row_id"])
    rows = {q: adult_hierarchies[q].rows() for q in ADULT_QI}
    ok, why = ref.cell_release_check(result.release, frame, ADULT_QI, rows, [{"name": "k-anonymity", "k": 5}])
    assert ok, why


def test_lagrangian_lower_bound_is_valid():
    """The Lagrangian bound (kanon_engine/algorithms/local_bound.py, run long by
    ``bench/lagrange_bound.py``) never exceeds the fewest ``*`` found by exhaustive search: for random
    prices (weak duality holds for any) and after its price steps, which also never fall below the
    simple per-record bound and reach the minimum on most tables."""
    from bench.lagrange_bound import lagrange_bound
    from kanon_engine.algorithms.local_bound import SuppressionModel, distinct_tuples, evaluate

    rng = np.random.default_rng(3)
    tight = 0
    for frame, k in _tiny_tables(60, seed=23):
        qi = list(frame.columns)
        best = ref.min_suppressed_cells(frame, qi, k)
        codes = np.stack([pd.factorize(frame[q])[0] for q in qi])
        tuples, m, _row = distinct_tuples(codes)
        model = SuppressionModel(tuples, m, k)
        for _ in range(5):
            u = model.ticks(rng.uniform(-1.0, len(qi) + 2.0, len(m)))
            assert evaluate(model, u).value <= best << model.bits
        bound = lagrange_bound(codes, k, best + 1, 200)
        assert bound.trivial <= bound.cells <= best
        tight += bound.cells == best
    assert tight >= 30
