"""Correctness of every algorithm: contract, brute force on small lattices, seeds' worked examples, Adult."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import algorithms, get_algorithm
from kanon_engine.algorithms.base import Algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.core.lattice import Lattice
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError, InfeasibleError
from kanon_engine.hierarchy import read_arx_csv
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.params import ParamSpec
from kanon_engine.privacy.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from tests.conftest import ADULT_QI
from tests.engine import reference as ref

FULL_DOMAIN = ["datafly", "samarati", "incognito", "optimal"]


# --- small random problems -----------------------------------------------------------------------------
@st.composite
def problems(draw):
    """A random table of 2..28 rows with 1..3 QIs, random tree hierarchies, one sensitive attribute."""
    n_qi = draw(st.integers(1, 3))
    rows_by_qi: dict[str, list[list[str]]] = {}
    for q in range(n_qi):
        n_leaves = draw(st.integers(1, 5))
        height = draw(st.integers(1, 3))
        rows = [[f"v{q}{i}"] for i in range(n_leaves)]
        groups = list(range(n_leaves))
        for j in range(1, height):
            distinct = sorted(set(groups))
            n_parents = draw(st.integers(1, len(distinct)))
            parent = {g: draw(st.integers(0, n_parents - 1)) for g in distinct}
            groups = [parent[g] for g in groups]
            for r, g in zip(rows, groups):
                r.append(f"q{q}L{j}g{g}")
        for r in rows:
            r.append("*")
        rows_by_qi[f"q{q}"] = rows
    n = draw(st.integers(2, 28))
    data = {}
    for q, rows in rows_by_qi.items():
        picks = draw(st.lists(st.integers(0, len(rows) - 1), min_size=n, max_size=n))
        data[q] = [rows[i][0] for i in picks]
    data["s"] = [str(x) for x in draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))]
    frame = pd.DataFrame(data, dtype=object)
    k = draw(st.integers(2, max(2, min(4, n))))
    kind = draw(
        st.sampled_from(["k", "distinct", "entropy", "recursive", "t-equal", "t-ordered", "t-hierarchical"])
    )
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    return frame, rows_by_qi, k, kind, limit


def _models(kind: str, k: int):
    return {
        "k": (KAnonymity(k),),
        "distinct": (KAnonymity(k), DistinctLDiversity(2, "s")),
        "entropy": (KAnonymity(k), EntropyLDiversity(1.5, "s")),
        "recursive": (KAnonymity(k), RecursiveCLDiversity(2.0, 2, "s")),
        "t-equal": (KAnonymity(k), TCloseness(0.4, "s", "equal")),
        "t-ordered": (KAnonymity(k), TCloseness(0.3, "s", "ordered")),
        "t-hierarchical": (KAnonymity(k), TCloseness(0.25, "s", "hierarchical")),
    }[kind]


def _config(rows_by_qi, models) -> AnonymizationConfig:
    hs = {q: Hierarchy.from_rows(q, rows) for q, rows in rows_by_qi.items()}
    sensitive = ("s",) if any(m.sensitive for m in models) else ()
    hierarchical = any(getattr(m, "distance", None) == "hierarchical" for m in models)
    s_hierarchy = {"s": Hierarchy.from_rows("s", ref.S_HIERARCHY)} if hierarchical else {}
    return AnonymizationConfig(
        tuple(rows_by_qi), hs, models, sensitive=sensitive, sensitive_hierarchies=s_hierarchy
    )


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["dm", "dm-star", "cavg", "precision", "height", "entropy"]))
def test_full_domain_algorithms_against_brute_force(problem, metric):
    """optimal finds the brute-force optimum, incognito the exact set of satisfying nodes, samarati the
    minimal height; every release passes the independent checker."""
    frame, rows_by_qi, k, kind, limit = problem
    models = _models(kind, k)
    config = _config(rows_by_qi, models)
    table = Table.from_frame(frame)
    max_supp = int(math.floor(limit * len(frame) + 1e-9))
    nodes = ref.brute_force(frame, rows_by_qi, [m.to_dict() for m in models], max_supp)
    satisfying = [nd for nd in nodes if nd["satisfies"]]
    if k > len(frame):
        return
    for name in ("optimal", "incognito", "samarati"):
        algo = get_algorithm(name, suppression_limit=limit, metric=metric)
        if not satisfying:
            with pytest.raises(InfeasibleError):
                algo.run(table, config)
            continue
        result = algo.run(table, config)
        ok, why = ref.release_satisfies(
            result.release, frame, list(rows_by_qi), [m.to_dict() for m in models], max_supp
        )
        assert ok, f"{name}: {why}"
        chosen = next(nd for nd in nodes if nd["levels"] == tuple(result.transformation.values()))
        assert chosen["satisfies"]
        if name == "optimal" or name == "incognito":
            best = min(nd[metric] for nd in satisfying)
            assert chosen[metric] == pytest.approx(best, rel=1e-9, abs=1e-9), name
        if name == "incognito":
            lattice = Lattice(result.lattice.max_levels)
            found = {lattice.node(i) for i in result.lattice.satisfying()}
            assert found == {nd["levels"] for nd in satisfying}
        if name == "samarati":
            low = min(nd["height"] for nd in satisfying)
            assert chosen["height"] == low
            best_at = min(nd[metric] for nd in satisfying if nd["height"] == low)
            assert chosen[metric] == pytest.approx(best_at, rel=1e-9, abs=1e-9)
        assert result.suppressed == chosen["suppressed"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_datafly_release_satisfies_model(problem):
    frame, rows_by_qi, k, kind, limit = problem
    models = _models(kind, k)
    config = _config(rows_by_qi, models)
    table = Table.from_frame(frame)
    try:
        result = get_algorithm("datafly", suppression_limit=limit).run(table, config)
    except InfeasibleError:
        nodes = ref.brute_force(
            frame, rows_by_qi, [m.to_dict() for m in models], int(math.floor(limit * len(frame) + 1e-9))
        )
        top = nodes[-1]
        assert not top["satisfies"], "Datafly gave up although the top node satisfies"
        return
    ok, why = ref.release_satisfies(
        result.release,
        frame,
        list(rows_by_qi),
        [m.to_dict() for m in models],
        int(math.floor(limit * len(frame) + 1e-9)),
    )
    assert ok, why


# --- contract over every registered algorithm ----------------------------------------------------------
@pytest.fixture(scope="module")
def adult_sample(adult_frame, adult_hierarchies):
    return adult_frame.iloc[:3000].reset_index(drop=True), adult_hierarchies


CONTRACT_MODELS = {
    "k5": lambda: (KAnonymity(5),),
    "k5-distinct-l3": lambda: (KAnonymity(5), DistinctLDiversity(3, "occupation")),
    "k3-entropy-l2": lambda: (KAnonymity(3), EntropyLDiversity(2, "occupation")),
    "k3-recursive": lambda: (KAnonymity(3), RecursiveCLDiversity(3, 2, "occupation")),
    "k5-t0.3": lambda: (KAnonymity(5), TCloseness(0.3, "occupation", "equal")),
}


@pytest.mark.parametrize("model_name", list(CONTRACT_MODELS))
@pytest.mark.parametrize("algorithm", sorted(algorithms()))
def test_contract(adult_sample, algorithm, model_name):
    """The release satisfies the models (independent checker), respects the suppression limit, leaves
    the input untouched and is deterministic."""
    if algorithm == "safepub":
        pytest.skip("random by design and applies differential privacy only: tests/engine/test_safepub.py")
    frame, hierarchies = adult_sample
    qi = ["age", "sex", "race", "marital-status", "education"]
    models = CONTRACT_MODELS[model_name]()
    config = AnonymizationConfig(
        tuple(qi), {q: hierarchies[q] for q in qi}, models, sensitive=("occupation",)
    )
    table = Table.from_frame(frame)
    before = table.frame.copy()
    cls = algorithms()[algorithm]
    params = {"suppression_limit": 0.05} if any(p.name == "suppression_limit" for p in cls.params) else {}
    try:
        first = get_algorithm(algorithm, **params).run(table, config)
    except InfeasibleError:
        pytest.skip(f"{algorithm} finds no solution for {model_name} on this sample")
    second = get_algorithm(algorithm, **params).run(table, config)
    pd.testing.assert_frame_equal(table.frame, before)
    pd.testing.assert_frame_equal(first.release, second.release)
    max_supp = int(math.floor(0.05 * len(frame) + 1e-9)) if params else 0
    if algorithm == "datafly" and not params:
        max_supp = max(m.k for m in models if isinstance(m, KAnonymity))
    ok, why = ref.release_satisfies(first.release, frame, qi, [m.to_dict() for m in models], max_supp)
    assert ok, why
    assert first.suppressed <= max_supp
    assert "occupation" in first.release.columns
    assert len(first.release) == len(frame)


def test_identifiers_never_reach_the_release(seed_dir):
    frame = pd.read_csv(seed_dir / "salary_employees.csv", dtype=str, keep_default_na=False)
    table = Table.from_frame(frame)
    from kanon_engine.hierarchy import default_hierarchy

    qi = ("gender", "age", "zip")
    hs = {q: default_hierarchy(q, frame[q], table.column_types.get(q)) for q in qi}
    config = AnonymizationConfig(qi, hs, (KAnonymity(2),), identifiers=("id", "name", "address"))
    for name in algorithms():
        if name == "safepub":  # needs differential privacy and more records: tests/engine/test_safepub.py
            continue
        result = get_algorithm(name).run(table, config)
        assert not {"id", "name", "address"} & set(result.release.columns), name


# --- seeds -----------------------------------------------------------------------------------------------
def _sweeney(seed_dir):
    frame = pd.read_csv(seed_dir / "datafly_sweeney.csv", dtype=str, keep_default_na=False)
    qi = ("race", "birth_date", "gender", "zip")
    hs = {q: read_arx_csv(seed_dir / f"datafly_sweeney_hierarchy_{q}.csv", q) for q in qi}
    return frame, qi, hs


def test_datafly_reproduces_sweeneys_example(seed_dir):
    """Seed slides: Datafly generalizes birth_date to the year, then suppresses t7 and t8."""
    frame, qi, hs = _sweeney(seed_dir)
    config = AnonymizationConfig(qi, hs, (KAnonymity(2),), drop_suppressed=True)
    result = get_algorithm("datafly").run(Table.from_frame(frame), config)
    expected = pd.read_csv(seed_dir / "datafly_sweeney_expected.csv", dtype=str, keep_default_na=False)
    assert result.transformation == {"race": 0, "birth_date": 1, "gender": 0, "zip": 0}
    # generalized columns are categorical (codes + labels); compare the values
    pd.testing.assert_frame_equal(
        result.release.reset_index(drop=True).astype(object), expected.astype(object), check_dtype=False
    )


def test_datafly_with_limit_keeps_generalizing(seed_dir):
    """With a suppression limit of 0, Datafly goes on until no outlier is left."""
    frame, qi, hs = _sweeney(seed_dir)
    config = AnonymizationConfig(qi, hs, (KAnonymity(2),))
    result = get_algorithm("datafly", suppression_limit=0.0).run(Table.from_frame(frame), config)
    assert result.suppressed == 0
    assert ref.release_satisfies(result.release, frame, list(qi), [{"name": "k-anonymity", "k": 2}], 0)[0]


# --- Adult, the field's benchmark --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def adult(adult_frame, adult_hierarchies):
    return Table.from_frame(adult_frame), adult_hierarchies


def test_optimal_matches_arx_on_adult(adult):
    """ARX 3.9.2: k=5, 5% suppression, DM with suppression penalty -> DM 9,268,952 at these levels."""
    table, hs = adult
    config = AnonymizationConfig(tuple(ADULT_QI), {q: hs[q] for q in ADULT_QI}, (KAnonymity(5),))
    result = get_algorithm("optimal", suppression_limit=0.05, metric="dm").run(table, config)
    assert result.metrics["discernibility"] == 9_268_952
    assert result.transformation == {
        "age": 0,
        "education": 3,
        "marital-status": 2,
        "native-country": 2,
        "race": 1,
        "salary-class": 0,
        "sex": 0,
        "workclass": 2,
    }
    assert result.suppressed == 60
    assert result.n_classes == 230


@pytest.mark.parametrize(
    "k,limit,metric,extra",
    [
        (10, 0.02, "precision", None),
        (5, 0.0, "entropy", None),
        (5, 0.05, "cavg", None),
        (3, 0.05, "dm", ("distinct", 3)),
    ],
)
def test_optimal_equals_exhaustive_on_adult(adult, k, limit, metric, extra):
    """On the full Adult lattice (4,320 nodes), the pruned search equals checking every node."""
    from kanon_engine.algorithms.search import LatticeSearch
    from kanon_engine.core.encoding import encode_table
    from kanon_engine.core.evaluation import suppression_allowance
    from kanon_engine.metrics.loss import get_metric

    table, hs = adult
    models = build_models(k, "occupation", extra[1], extra[0]) if extra else (KAnonymity(k),)
    sensitive = ("occupation",) if extra else ()
    config = AnonymizationConfig(tuple(ADULT_QI), {q: hs[q] for q in ADULT_QI}, models, sensitive=sensitive)
    result = get_algorithm("optimal", suppression_limit=limit, metric=metric).run(table, config)
    enc = encode_table(table, ADULT_QI, config.hierarchies, sensitive)
    search = LatticeSearch(enc, models, suppression_allowance(enc.n_rows, limit), get_metric(metric))
    values = []
    for i in range(search.lattice.size):
        ev = search.evaluator.evaluate(search.lattice.levels[i])
        if ev.satisfies:
            values.append(search.metric.value(ev, search.ctx))
    assert search.metric.value(
        search.evaluation(search.lattice.index(tuple(result.transformation.values()))), search.ctx
    ) == pytest.approx(min(values), rel=1e-12)


# --- errors ------------------------------------------------------------------------------------------------
def test_k_larger_than_table(seed_dir):
    frame, qi, hs = _sweeney(seed_dir)
    config = AnonymizationConfig(qi, hs, (KAnonymity(50),))
    with pytest.raises(ConfigError, match="k = 50 is larger than the table, which has 12 records"):
        get_algorithm("optimal").run(Table.from_frame(frame), config)


def test_bad_parameters_name_the_value():
    with pytest.raises(ConfigError, match=r"k must be an integer of at least 2; got 1"):
        KAnonymity(1)
    with pytest.raises(
        ConfigError,
        match=r"Suppression limit must be a share from 0 % to 100 % \(such as 5 %, 5% or 0.05\); got 1.5",
    ):
        get_algorithm("optimal", suppression_limit=1.5)
    with pytest.raises(ConfigError, match="Unknown algorithm 'magic'"):
        get_algorithm("magic")
    with pytest.raises(ConfigError, match="metric must be one of"):
        get_algorithm("optimal", metric="speed")


@pytest.mark.parametrize("name", sorted(algorithms()))
def test_parameters_are_named_in_the_constructor(name):
    """scikit-learn's manners: every ParamSpec is a keyword of __init__ with the same default, stored
    under its own name; the constructor checks nothing, run() does."""
    import inspect

    cls = algorithms()[name]
    signature = inspect.signature(cls)
    assert list(signature.parameters) == [p.name for p in cls.params]
    for spec in cls.params:
        param = signature.parameters[spec.name]
        assert param.kind is inspect.Parameter.KEYWORD_ONLY and param.default == spec.default
    algo = cls()
    assert algo.get_params() == {p.name: p.default for p in cls.params}
    assert repr(algo).startswith(f"{cls.__name__}(")
    bad = cls(**{cls.params[0].name: "not a value"})  # stored as given ...
    assert bad.get_params()[cls.params[0].name] == "not a value"
    with pytest.raises(
        ConfigError
    ) as refused:  # ... refused by run, naming it by its label, where by its name
        bad.run(Table.from_frame(pd.DataFrame({"a": ["x", "y"]})), None)  # type: ignore[arg-type]
    assert refused.value.where == cls.params[0].name and cls.params[0].label in str(refused.value)


class _Declared(Algorithm):
    """A toy algorithm that only declares its parameters (no constructor of its own)."""

    name = "declared-only"
    title = "Declared"
    description = "A test's."
    full_domain = False
    params = (
        ParamSpec("rounds", "Rounds", "int", 3, "How many rounds.", minimum=1),
        ParamSpec("careful_mode", "Careful", "bool", False, "Be careful."),
    )

    def _run(self, job):  # pragma: no cover - never run here
        raise NotImplementedError


class _Written(_Declared):
    """A subclass that writes its own constructor keeps its own signature."""

    def __init__(self, *, rounds: int = 7) -> None:
        self.rounds = rounds
        self.careful_mode = True


def test_the_constructor_is_made_from_the_params():
    """The base's constructor stores the declared keywords (defaults for the others, nothing checked)
    and refuses any other, as a written-out constructor would; the signature help() shows is the
    params'."""
    import inspect

    assert str(inspect.signature(_Declared)) == "(*, rounds=3, careful_mode=False)"
    assert _Declared(careful_mode=True).get_params() == {"rounds": 3, "careful_mode": True}
    assert _Declared(rounds="many").rounds == "many"  # stored as given, refused by run
    with pytest.raises(TypeError, match="_Declared\\(\\) got an unexpected keyword argument 'round'"):
        _Declared(round=4)
    assert str(inspect.signature(_Written)) == "(*, rounds: 'int' = 7) -> 'None'"
    assert _Written().get_params() == {"rounds": 7, "careful_mode": True}


def test_help_shows_the_parameters():
    from kanon_engine.algorithms.samarati import Samarati

    assert "suppression_limit" in str(__import__("inspect").signature(Samarati))
    s = Samarati(suppression_limit=0.02, metric="precision")
    assert s.parameters == {
        "suppression_limit": 0.02,
        "metric": "precision",
        "suppress": "records",
        "importance": None,
        "bounded": True,
        "target": None,
    }


def test_apply_without_k_claims_no_model(seed_dir):
    from kanon_engine.algorithms.full_domain import apply_transformation

    frame, qi, hs = _sweeney(seed_dir)
    config = AnonymizationConfig(qi, hs, (KAnonymity(2),))
    result = apply_transformation(Table.from_frame(frame), config, (0, 0, 0, 0), enforce=False)
    assert not result.models_enforced and result.suppressed == 0
    summary = result.summary()
    assert summary["models"] == [] and summary["parameters"]["privacy_models_enforced"] is False
    assert "privacy_models_enforced" not in result.parameters


def test_lattice_too_large_is_refused():
    from kanon_engine.core.lattice import Lattice as L

    with pytest.raises(InfeasibleError, match="too many for optimal.*heuristic search"):
        L.require_size(10**7, "optimal")


def test_progress_is_reported_and_cancel_stops(adult):
    from kanon_engine.errors import Cancelled

    table, hs = adult
    config = AnonymizationConfig(tuple(ADULT_QI), {q: hs[q] for q in ADULT_QI}, (KAnonymity(5),))
    calls: list[float] = []

    def progress(fraction: float, message: str) -> None:
        calls.append(fraction)
        if len(calls) == 25:
            raise Cancelled()

    with pytest.raises(Cancelled):
        get_algorithm("optimal", suppression_limit=0.05).run(table, config, progress=progress)
    assert len(calls) == 25
    assert all(0.0 <= f <= 1.0 for f in calls)
    seen: list[str] = []
    result = get_algorithm("optimal", suppression_limit=0.0).run(
        table, config, progress=lambda f, m: seen.append(m)
    )
    # at least once per checked node
    assert sum(1 for m in seen if m.startswith("checking node")) == result.nodes_checked > 10


def test_result_release_row_order_and_shuffle(seed_dir):
    frame, qi, hs = _sweeney(seed_dir)
    config = AnonymizationConfig(qi, hs, (KAnonymity(2),))
    plain = get_algorithm("optimal", suppression_limit=0.2).run(Table.from_frame(frame), config)
    assert plain.release["id"].tolist() == frame["id"].tolist()
    shuffled = get_algorithm("optimal", suppression_limit=0.2).run(
        Table.from_frame(frame), config.with_changes(shuffle_seed=7)
    )
    assert sorted(shuffled.release["id"]) == sorted(frame["id"])
    assert shuffled.release["id"].tolist() != frame["id"].tolist()
    assert np.array_equal(np.sort(plain.class_sizes), np.sort(shuffled.class_sizes))


def test_samarati_is_not_pruned_by_solutions_at_other_heights():
    """Regression (found by the brute-force property test): a solution checked during the binary search
    at a greater height has a better DM than every solution at the lowest height; it must not prune them."""
    q0 = ["v00"] * 16 + ["v01", "v01", "v02", "v03", "v03", "v02", "v00"]
    q1 = ["v10"] * 19 + ["v11", "v11", "v12", "v12"]
    frame = pd.DataFrame({"q0": q0, "q1": q1, "q2": ["v20"] * 23}, dtype=object)
    rows = {
        "q0": [["v00", "*"], ["v01", "*"], ["v02", "*"], ["v03", "*"]],
        "q1": [["v10", "g0", "*"], ["v11", "g0", "*"], ["v12", "g1", "*"]],
        "q2": [["v20", "*"]],
    }
    config = _config(rows, (KAnonymity(2),))
    samarati = get_algorithm("samarati", suppression_limit=0.0, metric="dm")
    result = samarati.run(Table.from_frame(frame), config)
    nodes = ref.brute_force(frame, rows, [{"name": "k-anonymity", "k": 2}], 0)
    low = min(nd["height"] for nd in nodes if nd["satisfies"])
    assert sum(result.transformation.values()) == low
