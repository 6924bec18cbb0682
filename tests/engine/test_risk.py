"""Risk figures, homogeneity and "why unsafe", checked against independent plain-pandas recomputations.

Adult: optimal full-domain search at k = 5 with 5 % suppression on the 8 standard quasi-identifiers,
occupation sensitive. The references below use only pandas group-bys on the strings (and the helpers
of ``tests/engine/reference.py``), never the engine's grouping code.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.io import read_table
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy import default_hierarchy, read_arx_csv
from kanon_engine.metrics.explain import RecordExplainer, explain_record
from kanon_engine.metrics.risk import assess, compare, definitions, risk_figures
from tests.engine import reference as ref

QI = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"]


@dataclass
class Run:
    table: Table
    config: AnonymizationConfig
    result: object


@pytest.fixture(scope="module")
def adult(adult_dir: Path) -> Run:
    table = read_table(adult_dir / "adult.csv")
    hs = {q: read_arx_csv(adult_dir / f"adult_hierarchy_{q}.csv", q) for q in QI}
    config = AnonymizationConfig(tuple(QI), hs, build_models(5), sensitive=("occupation",))
    result = get_algorithm("optimal", suppression_limit=0.05, metric="dm").run(table, config)
    return Run(table, config, result)


def pandas_figures(frame: pd.DataFrame, qi: list[str], threshold: float, release: bool) -> dict:
    """Prosecutor/marketer figures and sample uniques with pandas group-bys only. In a release the
    all-* rows are suppressed records: they belong to no group (issue 27: one definition of a group)."""
    suppressed = ref.suppressed_rows(frame, qi) if release else np.zeros(len(frame), dtype=bool)
    sizes = frame[~suppressed].groupby(qi, dropna=False, sort=False).size().to_numpy()
    n = int(sizes.sum())
    return {
        "records": n,
        "suppressed": int(suppressed.sum()),
        "classes": len(sizes),
        "smallest_class": int(sizes.min()),
        "prosecutor_highest": 1 / sizes.min(),
        "prosecutor_average": float(np.mean([1 / s for s in sizes for _ in range(s)])),
        "records_above_threshold": int(sum(s for s in sizes if 1 / s > threshold)),
        "sample_uniques": int(sum(s for s in sizes if s == 1)),
        "marketer": len(sizes) / n,
    }


def pandas_homogeneity(frame: pd.DataFrame, qi: list[str], sensitive: str, release: bool) -> dict:
    """Homogeneity per class with a dense pandas pivot (classes x sensitive values); the suppressed rows
    of a release in no class, but in the whole table's distribution (t)."""
    whole = frame
    if release:
        frame = frame[~ref.suppressed_rows(frame, qi)]
    counts = frame.groupby([*qi, sensitive], dropna=False, sort=False).size().unstack(sensitive, fill_value=0)
    sizes = counts.sum(axis=1)
    p = counts.div(sizes, axis=0)
    q = whole[sensitive].value_counts(normalize=True).reindex(counts.columns, fill_value=0.0)
    distinct = (counts > 0).sum(axis=1)
    logs = np.log(p.where(p > 0, 1.0))
    entropy = -(p * logs).sum(axis=1)
    t_equal = 0.5 * ((p - q).abs().sum(axis=1) + (1 - q.sum()))
    return {
        "homogeneous_classes": int((distinct == 1).sum()),
        "homogeneous_records": int(sizes[distinct == 1].sum()),
        "distinct_l": int(distinct.min()),
        "entropy_l": float(np.exp(entropy).min()),
        "t_equal": float(t_equal.max()),
    }


@pytest.mark.parametrize("threshold", [0.2, 0.05])
def test_risk_after_matches_pandas(adult: Run, threshold: float) -> None:
    cmp = compare(adult.table, adult.result, threshold=threshold)
    got = cmp.after.figures.to_dict()
    want = pandas_figures(adult.result.release, QI, threshold, release=True)
    assert want["suppressed"] == adult.result.suppressed == 60
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-12), key
    # without a population table journalist risk is the prosecutor risk, marketer the average
    assert got["journalist_highest"] == got["prosecutor_highest"]
    assert got["journalist_records_above_threshold"] == got["records_above_threshold"]
    assert got["population"] == "the table itself"
    assert got["prosecutor_highest"] <= 1 / 5


def test_risk_before_matches_pandas(adult: Run) -> None:
    cmp = compare(adult.table, adult.result)
    got = cmp.before.figures.to_dict()
    want = pandas_figures(adult.table.frame, QI, 0.2, release=False)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-12), key
    assert got["sample_uniques"] > 8000  # Adult is mostly unique on 8 QIs
    # per-record risk agrees with 1/class size computed by pandas
    sizes = adult.table.frame.groupby(QI, dropna=False, sort=False)[QI[0]].transform("size").to_numpy()
    np.testing.assert_allclose(cmp.before.record_risk, 1 / sizes)


def test_homogeneity_matches_pandas(adult: Run) -> None:
    cmp = compare(adult.table, adult.result)
    for assessment, frame, release in (
        (cmp.before, adult.table.frame, False),
        (cmp.after, adult.result.release, True),
    ):
        (prof,) = assessment.homogeneity
        got = prof.to_dict()
        want = pandas_homogeneity(frame, QI, "occupation", release)
        for key, value in want.items():
            assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    assert cmp.before.homogeneity[0].homogeneous_classes > 0


def test_homogeneous_examples_reveal_the_value(seed_dir: Path) -> None:
    """A release where one class has a single disease: the example names the class and the value."""
    frame = pd.DataFrame(
        {
            "age": ["[30-40)"] * 3 + ["[40-50)"] * 3 + ["*"],
            "zip": ["537**"] * 6 + ["*"],
            "disease": ["flu", "flu", "flu", "flu", "cancer", "hiv", "flu"],
        }
    )
    a = assess(frame, ["age", "zip"], ["disease"])
    (prof,) = a.homogeneity
    assert a.figures.suppressed == 1 and a.figures.classes == 2  # the * row is suppressed: no group
    assert prof.homogeneous_classes == 1 and prof.homogeneous_records == 3
    assert prof.examples == [
        {"class": 0, "size": 3, "quasi_identifiers": {"age": "[30-40)", "zip": "537**"}, "value": "flu"},
    ]
    assert prof.to_dict()["distinct_l"] == 1


def test_ordered_t_for_numeric_sensitive() -> None:
    frame = pd.DataFrame({"q": ["a"] * 4 + ["b"] * 4, "s": ["1", "2", "3", "4", "1", "1", "4", "4"]})
    (prof,) = assess(frame, ["q"], ["s"], suppressed_marker=None).homogeneity
    whole = frame["s"]
    want = [ref.emd_ordered(frame["s"][frame["q"] == g], whole) for g in ("a", "b")]
    np.testing.assert_allclose(prof.t_ordered, want)
    assert prof.numeric


def test_population_table_gives_journalist_and_marketer(seed_dir: Path) -> None:
    """Patients released as two classes; the voter list as population: F = matching voters, >= f."""
    release = pd.DataFrame(
        {
            "age": ["*"] * 6,
            "sex": ["Male", "Female", "Male", "Male", "Female", "Male"],
            "zipcode": ["53344*"] * 6,
            "disease": list("abcdef"),
        }
    )
    voters = read_table(seed_dir / "voter_registration.csv")
    a = assess(release, ["age", "sex", "zipcode"], population=voters, population_name="voters")
    f = a.figures
    # females: f = 2, F = 3 voters (Zan, Dum, Su); males: f = 4, 2 voters -> F = max(2, 4) = 4
    assert sorted(a.population_sizes.tolist()) == [3, 4]
    assert f.journalist_highest == pytest.approx(1 / 3)
    assert f.marketer == pytest.approx((2 / 3 + 4 / 4) / 6)
    assert f.prosecutor_highest == pytest.approx(1 / 2)
    assert f.journalist_highest <= f.prosecutor_highest and f.marketer <= f.prosecutor_highest
    assert f.population == "voters (5 records)"


def test_risk_figures_edge_cases() -> None:
    with pytest.raises(ConfigError, match="threshold"):
        risk_figures(np.array([2, 3]), threshold=1.5)
    empty = risk_figures(np.array([], dtype=np.int64), suppressed=4)
    assert empty.records == 0 and empty.suppressed == 4 and empty.prosecutor_highest == 0.0
    f = risk_figures(np.array([1, 1, 5]), threshold=0.2)
    assert f.sample_uniques == 2 and f.records_above_threshold == 2 and f.smallest_class == 1
    assert f.prosecutor_average == pytest.approx(3 / 7)
    with pytest.raises(ConfigError, match="nope"):
        assess(pd.DataFrame({"a": ["1"]}), ["nope"])


def test_definitions_cover_every_figure() -> None:
    d = definitions()
    for key in (
        "prosecutor_highest",
        "prosecutor_average",
        "records_above_threshold",
        "journalist_highest",
        "marketer",
        "sample_uniques",
        "homogeneous_classes",
        "distinct_l",
        "entropy_l",
        "t_equal",
        "t_ordered",
    ):
        assert len(d[key]) > 40, key
    assert "population" in d["journalist_highest"] and "this table" in d["journalist_highest"]


# --- why unsafe --------------------------------------------------------------------------------------------
def _generalized_class_size(
    frame: pd.DataFrame, rows: dict[str, list[list[str]]], levels: dict[str, int], row: int
) -> int:
    maps = ref.hierarchy_maps(rows)
    gen = ref.generalize(frame, maps, levels)
    mine = gen.iloc[row]
    same = np.ones(len(gen), dtype=bool)
    for q in levels:
        same &= (gen[q] == mine[q]).to_numpy()
    return int(same.sum())


def test_explain_adult_unique_record(adult: Run) -> None:
    frame = adult.table.frame
    sizes = frame.groupby(QI, dropna=False, sort=False)[QI[0]].transform("size").to_numpy()
    explainer = RecordExplainer(adult.table, adult.config)
    np.testing.assert_array_equal(explainer.class_sizes(), sizes)
    rows = {q: adult.config.hierarchies[q].rows() for q in QI}
    for row in np.flatnonzero(sizes == 1)[:5]:
        ex = explainer.explain(int(row))
        assert not ex.safe and ex.class_size == 1
        # drop-one sizes and single-value counts, with pandas
        for a in ex.attributes:
            others = [q for q in QI if q != a.attribute]
            same = (frame[others] == frame.iloc[row][others]).all(axis=1)
            assert a.class_size_without == int(same.sum())
            assert a.records_with_value == int((frame[a.attribute] == frame.iloc[row][a.attribute]).sum())
        # the proposed generalization hides the record, with the size it claims
        got = _generalized_class_size(frame, rows, ex.levels, int(row))
        assert got == ex.class_size_generalized >= 5
        assert ex.height == sum(ex.levels.values())
        text = " ".join(ex.sentences())
        assert "unsafe" in text and "smallest generalization" in text


def test_explain_finds_the_lowest_node_by_brute_force(seed_dir: Path) -> None:
    table = read_table(seed_dir / "mondrian_patients.csv")
    qi = ("age", "sex", "zipcode")
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in qi}
    config = AnonymizationConfig(qi, hs, build_models(2), sensitive=("disease",))
    rows = {q: hs[q].rows() for q in qi}
    heights = [hs[q].height for q in qi]
    for row in range(table.n_rows):
        for k in (2, 3, 4):
            ex = explain_record(table, config, row, k)
            best = None
            for levels in itertools.product(*[range(h + 1) for h in heights]):
                size = _generalized_class_size(table.frame, rows, dict(zip(qi, levels)), row)
                if size >= k and (best is None or sum(levels) < best):
                    best = sum(levels)
            assert ex.height == best, (row, k)
            got = _generalized_class_size(table.frame, rows, ex.levels, row)
            assert got == ex.class_size_generalized >= k


def test_explain_safe_record_and_bad_row(seed_dir: Path) -> None:
    table = read_table(seed_dir / "mondrian_patients.csv")
    qi = ("sex",)
    config = AnonymizationConfig(qi, {"sex": default_hierarchy("sex", table.frame["sex"])}, build_models(2))
    ex = explain_record(table, config, 0)
    assert ex.safe and ex.levels is None and "shares these values with 3 other records" in ex.sentences()[0]
    with pytest.raises(ConfigError, match="no record 7"):
        explain_record(table, config, 6)
