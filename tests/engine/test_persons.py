"""The person role (issue 33): k counts distinct persons, M stays known, every algorithm, brute force.

Every release is checked by an independent pandas checker on the release rows (a group-by on the
released quasi-identifier values with the original person column beside them), never by the engine's
own counts.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.search import LatticeSearch
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.core.evaluation import NodeEvaluator, evaluator_context, suppression_allowance
from kanon_engine.core.lattice import Lattice
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError, DataError, InfeasibleError
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.metrics.loss import get_metric
from kanon_engine.privacy import AverageRisk, KAnonymity
from kanon_engine.sources import encode_records

QI = ("birth_year", "sex", "area", "month")


def stays(n_patients: int = 400, seed: int = 0, mean_stays: float = 3.0) -> pd.DataFrame:
    """A stay-level table: birth year, sex and area are the patient's, month and ward the stay's."""
    rng = np.random.default_rng(seed)
    birth = rng.integers(1940, 2000, n_patients)
    sex = rng.choice(["F", "M"], n_patients)
    area = rng.integers(10, 30, n_patients)
    n = rng.geometric(1 / mean_stays, n_patients)
    pid = np.repeat(np.arange(n_patients), n)
    m = len(pid)
    return pd.DataFrame(
        {
            "patient_id": [f"P{p:05d}" for p in pid],
            "birth_year": birth[pid].astype(str),
            "sex": sex[pid],
            "area": area[pid].astype(str),
            "month": rng.integers(1, 13, m).astype(str),
            "ward": rng.choice(list("ABCD"), m),
            "diagnosis": rng.choice(["I10", "E11", "J45", "C50", "F32"], m),
        }
    )


def config(table: Table, person: str | None = "patient_id", qi=QI, **kw) -> AnonymizationConfig:
    hierarchies = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in qi}
    models = kw.pop("models", build_models(kw.pop("k", 5)))
    ids = () if person else ("patient_id",)
    return AnonymizationConfig(qi, hierarchies, models, identifiers=ids, person=person, **kw)


def released(table: Table, result) -> pd.DataFrame:
    """The released rows (suppressed ones left out) with the original person beside them, aligned by
    the release's own row order."""
    rel = result.release.reset_index(drop=True)
    rows = result.release_rows
    out = rel[list(result.config.quasi_identifiers)].astype(str).copy()
    out["person"] = table.frame["patient_id"].to_numpy()[rows]
    kept = result.row_class[rows] >= 0
    return out[kept]


def persons_per_class(table: Table, result) -> pd.Series:
    rel = released(table, result)
    return rel.groupby(list(result.config.quasi_identifiers)).person.nunique()


def check_sets(table: Table, result, k: int, m: int | None) -> None:
    """Every set of up to m released combinations of one person (None: the whole set) is held by at
    least k persons: pure Python over the release."""
    rel = released(table, result)
    combo = rel[list(result.config.quasi_identifiers)].apply(tuple, axis=1)
    items = combo.groupby(rel.person).agg(lambda s: frozenset(s))
    profiles = list(items)
    for mine in profiles:
        sizes = [len(mine)] if m is None else range(1, min(m, len(mine)) + 1)
        for size in sizes:
            for subset in itertools.combinations(sorted(mine), size):
                held = sum(1 for other in profiles if set(subset) <= other)
                assert held >= k, (subset, held)


@pytest.fixture(scope="module")
def table() -> Table:
    return Table(stays())


def test_row_level_mondrian_has_a_class_of_fewer_persons_and_the_person_role_fixes_it(table) -> None:
    rows = get_algorithm("mondrian").run(table, config(table, None))
    assert persons_per_class(table, rows).min() < 5  # what issue 33 is about
    persons = get_algorithm("mondrian").run(table, config(table))
    assert persons_per_class(table, persons).min() >= 5
    assert "patient_id" not in persons.release.columns
    assert persons.persons.smallest == persons_per_class(table, persons).min()


@pytest.mark.parametrize(
    "name, params",
    [
        ("optimal", {"suppression_limit": 0.05}),
        ("heuristic", {"suppression_limit": 0.05}),
        ("samarati", {"suppression_limit": 0.05}),
        ("incognito", {"suppression_limit": 0.05}),
        ("datafly", {"suppression_limit": 0.05}),
        ("mondrian", {}),
        ("mondrian-relaxed", {}),
        ("local-recoding", {}),
        ("local-suppression", {}),
    ],
)
def test_every_algorithm_releases_classes_of_k_persons(table, name, params) -> None:
    result = get_algorithm(name, **params).run(table, config(table))
    counts = persons_per_class(table, result)
    assert counts.min() >= 5, name
    assert "patient_id" not in result.release.columns
    assert result.persons.smallest == int(counts.min())
    supp = (result.row_class < 0).sum()
    if supp and not result.config.drop_suppressed:  # step 4 in persons: the * group holds >= k persons
        group = table.frame.loc[result.row_class < 0, "patient_id"].nunique()
        assert group >= 5


@pytest.mark.parametrize("m", [2, 3, None])
def test_an_attacker_who_knows_several_stays(table, m) -> None:
    knows = 0 if m is None else m
    result = get_algorithm("optimal", suppression_limit=0.1).run(table, config(table, person_knows=knows))
    check_sets(table, result, 5, m)
    assert result.suppressed == int((result.row_class < 0).sum())
    assert result.suppressed <= suppression_allowance(result.records, 0.1)


def brute_force(enc, cfg, limit: float, metric: str) -> float:
    """The best metric value over every node of the lattice that satisfies the models, each node
    checked on its own by a fresh evaluator (no pruning, no cache shared with the search)."""
    allowance = suppression_allowance(enc.n_rows, limit)
    lattice = Lattice(enc.heights, enc.qi)
    best = np.inf
    m = get_metric(metric)
    for index in range(lattice.size):
        ev_ = NodeEvaluator(enc, cfg.models, allowance, suppressed_group_k=cfg.suppressed_group_k)
        ev = ev_.evaluate(lattice.node(index), complete=True)
        if ev.satisfies:
            best = min(best, m.value(ev, evaluator_context(ev_)))
    return best


@pytest.mark.parametrize("knows", [1, 2, 0])
@pytest.mark.parametrize("metric", ["loss", "dm"])
def test_the_optimal_search_equals_brute_force(knows, metric) -> None:
    small = Table(stays(60, seed=3, mean_stays=2.5))
    cfg = config(small, qi=("birth_year", "sex", "area"), k=3, person_knows=knows)
    enc = encode_records(small, cfg)
    expected = brute_force(enc, cfg, 0.1, metric)
    search = LatticeSearch(
        enc,
        cfg.models,
        suppression_allowance(enc.n_rows, 0.1),
        get_metric(metric),
        suppressed_group_k=cfg.suppressed_group_k,
    )
    search.descend()
    search.tag_lattice(prune=True)
    best = search.optimize()
    assert best is not None
    assert search.values[best] == pytest.approx(expected)
    result = get_algorithm("optimal", suppression_limit=0.1, metric=metric).run(small, cfg)
    assert result.metrics[{"dm": "discernibility", "loss": "loss"}[metric]] == pytest.approx(expected)


def test_l_diversity_counts_each_person_once_per_value() -> None:
    """Five stays of one patient with one diagnosis are one value held by one person."""
    rows = []
    for p in range(6):
        rows += [{"patient_id": f"P{p}", "age": "40", "diagnosis": "flu" if p else "cancer"}] * (
            5 if p == 0 else 1
        )
    t = Table(pd.DataFrame(rows))
    h = {"age": default_hierarchy("age", t.frame["age"], t.column_types.get("age"))}
    models = build_models(2, sensitive="diagnosis", l=1.9, l_variant="entropy")
    by_rows = AnonymizationConfig(("age",), h, models, sensitive=("diagnosis",), identifiers=("patient_id",))
    by_persons = AnonymizationConfig(("age",), h, models, sensitive=("diagnosis",), person="patient_id")
    # rows: 5 cancer + 5 flu, entropy log 2 (passes l=1.9); persons: 1 cancer + 5 flu (fails)
    assert get_algorithm("optimal").run(t, by_rows).suppressed == 0
    with pytest.raises(InfeasibleError):
        get_algorithm("optimal").run(t, by_persons)


def test_bad_input_is_one_sentence(table) -> None:
    frame = table.frame.copy()
    frame.loc[[3, 8], "patient_id"] = None
    blank = Table(frame)
    with pytest.raises(DataError, match=r"blank in 2 rows \(rows 4, 9\)"):
        get_algorithm("optimal").run(blank, config(blank))
    own = get_algorithm("optimal", suppression_limit=0.05).run(blank, config(blank, person_blanks="own"))
    assert own.persons.persons == frame.patient_id.dropna().nunique() + 2  # each blank row a person
    with pytest.raises(ConfigError, match="marked both"):
        config(table, qi=("birth_year", "patient_id"))
    with pytest.raises(ConfigError, match="keeps every row"):
        get_algorithm("mondrian").run(table, config(table, person_knows=2))
    with pytest.raises(ConfigError, match="Cell suppression cannot count persons"):
        get_algorithm("optimal", suppress="cells").run(table, config(table))
    # the risk-based models judge rows (issue 31): refused under the person role, not silently per row
    with pytest.raises(ConfigError, match="average re-identification risk counts rows, not patients"):
        get_algorithm("optimal").run(table, config(table, models=(KAnonymity(2), AverageRisk(0.1))))


def test_linked_tables_join_into_a_stay_level_table(tmp_path) -> None:
    """A patient table and a stay table joined on the patient key: one row per stay in the stay
    table's order, the patient's columns beside it, keys present in one table only said."""
    from kanon_engine.data.io import read_table
    from kanon_engine.data.join import JoinSpec, join_files

    frame = stays(50, seed=5)
    patients = frame.drop_duplicates("patient_id")[["patient_id", "birth_year", "sex", "area"]]
    patients = pd.concat(
        [patients, pd.DataFrame([{"patient_id": "P99999", "birth_year": "1950", "sex": "F", "area": "11"}])]
    )
    visits = frame[["patient_id", "month", "ward", "diagnosis"]].copy()
    visits.loc[0, "patient_id"] = "P77777"  # a stay whose patient is not in the patient table
    patients.to_csv(tmp_path / "patients.csv", index=False)
    visits.to_csv(tmp_path / "stays.csv", index=False)
    joined, warnings = join_files(
        read_table(tmp_path / "stays.csv"), [JoinSpec(tmp_path / "patients.csv", "patient_id")]
    )
    assert list(joined.frame.columns[:4]) == ["patient_id", "month", "ward", "diagnosis"]
    assert len(joined.frame) == len(visits)
    expect = frame.iloc[1:][["birth_year", "sex", "area"]].reset_index(drop=True)
    got = joined.frame.iloc[1:][["birth_year", "sex", "area"]].astype(str).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expect.astype(str), check_dtype=False)
    assert joined.frame.loc[0, ["birth_year", "sex", "area"]].isna().all()
    assert len(warnings) == 2 and "P77777" not in " ".join(warnings)  # counts, never patient values
    assert "1 key" in warnings[0] and "1 patient" in warnings[1]
    twice = pd.concat([patients, patients.iloc[:1]])
    twice.to_csv(tmp_path / "twice.csv", index=False)
    with pytest.raises(DataError, match="repeats a key"):
        join_files(read_table(tmp_path / "stays.csv"), [JoinSpec(tmp_path / "twice.csv", "patient_id")])


def test_cli_join_file_on_column_and_person_flags(tmp_path, capsys) -> None:
    """``--join FILE ON COLUMN`` (three words) joins the patient table and sets the person column;
    ``--join COLUMN=LIST_COLUMN`` stays the linkage form. The written release, checked with pandas
    against the stays' patient numbers row by row: every class, the ``*`` group included, >= k persons."""
    import json

    from kanon_engine.cli import main
    from kanon_engine.cli.flags import join_words

    assert join_words(["--join", "age=Alter", "x.csv"]) == ["--join", "age=Alter", "x.csv"]
    assert join_words(["--join", "p.csv", "on", "pid"]) == ["--join-table", "p.csv", "pid"]
    frame = stays(300, seed=1)
    frame.drop_duplicates("patient_id")[["patient_id", "birth_year", "sex", "area"]].to_csv(
        tmp_path / "patients.csv", index=False
    )
    frame[["patient_id", "month", "ward", "diagnosis"]].to_csv(tmp_path / "stays.csv", index=False)
    out, rep = tmp_path / "release.csv", tmp_path / "r.json"
    args = ["anonymize", str(tmp_path / "stays.csv"), "--join", str(tmp_path / "patients.csv"), "ON"]
    args += ["patient_id", "--qi", "birth_year,sex,area,month", "--k", "5", "--suppression-limit", "10%"]
    args += ["--person-knows", "2", "--output", str(out), "--report", str(rep)]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    release = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert "patient_id" not in release.columns and len(release) == len(frame)
    release["person"] = frame["patient_id"].to_numpy()
    per_class = release.groupby(list(QI)).person.nunique()
    assert per_class.min() >= 5
    assert printed["persons"]["min_persons_per_class"] == per_class[per_class.index != ("*",) * 4].min()
    assert printed["persons"]["person_knows"] == 2
    assert json.loads(rep.read_text())["persons"]["column"] == "patient_id"


def test_report_speaks_of_persons_and_warns_when_k_counts_rows(table) -> None:
    """The report's persons (figures recomputed here from the release rows with pandas), its sentences,
    and the warning on a row-level run of a table with several rows per person."""
    from kanon_engine.report.build import build_report

    result = get_algorithm("optimal", suppression_limit=0.05).run(table, config(table))
    report = build_report(table, result)
    p = report["persons"]
    rel = result.release.reset_index(drop=True)[list(QI)].astype(str)
    rel["person"] = table.frame["patient_id"].to_numpy()[result.release_rows]
    per_class = rel.groupby(list(QI)).person.nunique()  # the * group, when kept, one class of its own
    assert p["min_persons_per_class"] == per_class[per_class.index != ("*",) * 4].min()
    assert p["risk"]["prosecutor_highest"] == pytest.approx(1 / per_class.min())
    assert p["risk"]["persons"] == rel.person.nunique()
    assert any("k counts persons, not rows" in s for s in report["summary"])
    assert any("Not covered" in s for s in report["summary"])
    rows = build_report(
        table, get_algorithm("optimal", suppression_limit=0.05).run(table, config(table, None))
    )
    assert rows["persons"] is None
    assert any("'patient_id' repeats" in w for w in rows["warnings"])


def test_a_person_whose_patient_values_differ_is_said_not_guessed(table) -> None:
    from kanon_engine.data.roles import Role
    from kanon_engine.project.project_file import Project
    from kanon_engine.project.validation import validate

    frame = table.frame.rename(columns={"birth_year": "birth_date"}).copy()
    first = frame.index[frame.patient_id == frame.patient_id.value_counts().index[0]]  # several stays
    frame.loc[first[-1], "birth_date"] = "1899"  # one stay of one patient says another birth date
    t = Table(frame)
    roles = {"patient_id": Role.PERSON, "birth_date": Role.QUASI_IDENTIFIER, "sex": Role.QUASI_IDENTIFIER}
    texts = [i.message for i in validate(Project(roles=roles), t)]
    assert any("'birth_date' differs between the rows of 1 person of 'patient_id'" in x for x in texts)
    roles["patient_id"] = Role.IDENTIFIER
    texts = [
        i.message
        for i in validate(
            Project(roles=roles), Table(table.frame.rename(columns={"birth_year": "birth_date"}))
        )
    ]
    assert any("'patient_id' repeats across rows" in x for x in texts)
