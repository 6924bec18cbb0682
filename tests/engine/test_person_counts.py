"""Distinct persons per class, as the node evaluator counts them, against pandas (issue 33, item 6).

The evaluator rolls person pairs up without merging and decides k from bounds, merging only the pairs
of the classes the bounds leave open (:mod:`kanon_engine.core.persons`). These property tests check on
random stay-level tables, with blank person cells counted as persons of their own, that after any
sequence of checked nodes (each rolled up from whichever cached node the evaluator picks) the classes
that pass k are exactly those with at least k distinct persons, and that the persons per class equal a
pandas group-by on the generalized values.
"""

from __future__ import annotations

import hashlib
import hmac

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.core.evaluation import NodeEvaluator
from kanon_engine.core.lattice import Lattice
from kanon_engine.core.persons import PERSON_KEY, RolledPairs, split_hists
from kanon_engine.data.io import read_table
from kanon_engine.data.table import Table
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.metrics.explain import RecordExplainer
from kanon_engine.release.export import ExportOptions, export_release
from kanon_engine.sources import encode_records

QI = ("age", "zip", "month")


@st.composite
def stay_tables(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 80))
    persons = draw(st.integers(1, 25))
    ints = st.lists(st.integers(0, 10**6), min_size=n, max_size=n)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    pid = np.array(draw(ints)) % persons
    blanks = draw(st.floats(0, 0.3))
    frame = pd.DataFrame(
        {
            "patient": [f"P{p}" for p in pid],
            # the patient's values (one per person), and a stay's
            "age": (20 + rng.integers(0, 60, persons)[pid]).astype(str),
            "zip": rng.choice(np.array(["10115", "10117", "20095", "20097", "80331"]), persons)[pid],
            "month": rng.integers(1, 13, n).astype(str),
        }
    )
    frame.loc[rng.random(n) < blanks, "patient"] = ""
    return frame


def pandas_persons(frame: pd.DataFrame, enc, levels: tuple[int, ...]) -> pd.Series:
    """Distinct persons per generalized combination (a blank cell is a person of its own)."""
    keys = [enc.level_maps[q][lv][enc.codes[q]] for q, lv in enumerate(levels)]
    person = frame["patient"].where(frame["patient"] != "", "blank-" + frame.index.astype(str))
    return (
        pd.DataFrame({"person": person.to_numpy(), **{str(q): k for q, k in enumerate(keys)}})
        .groupby([str(q) for q in range(len(levels))])["person"]
        .nunique()
    )


def engine_persons(enc, fs, levels: tuple[int, ...], per_class: np.ndarray) -> pd.Series:
    leaves = fs.leaves()
    keys = [enc.level_maps[q][lv][leaves[q]] for q, lv in enumerate(levels)]
    index = pd.MultiIndex.from_arrays(keys, names=[str(q) for q in range(len(levels))])
    return pd.Series(per_class, index=index, name="person")


@settings(max_examples=60, deadline=None)
@given(frame=stay_tables(), k=st.integers(2, 5), order=st.lists(st.integers(0, 10**6), max_size=12))
def test_persons_per_class_equal_pandas_after_any_roll_ups(frame: pd.DataFrame, k: int, order) -> None:
    table = Table(frame)
    hierarchies = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in QI}
    cfg = AnonymizationConfig(QI, hierarchies, build_models(k), person="patient", person_blanks="own")
    enc = encode_records(table, cfg)
    # everything may be suppressed and no step 4: a class passes exactly when it holds k persons
    evaluator = NodeEvaluator(enc, cfg.models, enc.n_rows)
    lattice = Lattice(enc.heights, enc.qi)
    for pick in order:
        levels = tuple(int(x) for x in lattice.node(pick % lattice.size))
        ev = evaluator.evaluate(levels, complete=True)
        pairs = ev.freq.hists[PERSON_KEY]
        expected = pandas_persons(frame, enc, levels)
        if isinstance(pairs, RolledPairs):  # the bounds hold before anything is merged
            got = engine_persons(enc, ev.freq, levels, pairs.low)
            assert (got.sort_index() <= expected.sort_index()).all()
            got = engine_persons(enc, ev.freq, levels, pairs.high)
            assert (got.sort_index() >= expected.sort_index()).all()
        passing = engine_persons(enc, ev.freq, levels, ev.passes).sort_index()
        assert passing.tolist() == (expected.sort_index() >= k).tolist()
        _hists, per_class = split_hists(ev.freq.hists, ev.freq.n_classes)
        got = engine_persons(enc, ev.freq, levels, per_class).sort_index()
        assert got.to_dict() == expected.sort_index().to_dict()
        if isinstance(pairs, RolledPairs):  # and the merged pairs say the same
            merged = pairs.merged()
            again = np.bincount(merged.cls, weights=merged.weights(), minlength=ev.freq.n_classes)
            assert again.astype(np.int64).tolist() == per_class.tolist()


def test_why_is_this_record_unsafe_counts_persons() -> None:
    """The explainer under the person role: every count is distinct persons (pandas), the words say
    persons, and the hiding generalization is the lowest node whose group holds k persons."""
    rng = np.random.default_rng(7)
    persons = 40
    pid = np.sort(rng.integers(0, persons, 150))
    frame = pd.DataFrame(
        {
            "patient": [f"P{p}" for p in pid],
            "age": (20 + rng.integers(0, 60, persons)[pid]).astype(str),
            "zip": rng.choice(np.array(["10115", "10117", "20095", "20097"]), persons)[pid],
            "month": rng.integers(1, 13, len(pid)).astype(str),
        }
    )
    table = Table(frame)
    hierarchies = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in QI}
    k = 3
    cfg = AnonymizationConfig(QI, hierarchies, build_models(k), person="patient")
    explainer = RecordExplainer(table, cfg)
    combo = frame[list(QI)].apply(tuple, axis=1)
    per_row = frame.groupby(combo)["patient"].transform("nunique")
    assert explainer.class_sizes().tolist() == per_row.tolist()
    assert (per_row < frame.groupby(combo)["patient"].transform("size")).any()  # rows would differ
    enc = explainer.enc
    lattice = Lattice(enc.heights, enc.qi)
    for row in np.flatnonzero(per_row.to_numpy() < k)[:5]:
        ex = explainer.explain(int(row))
        assert not ex.safe and ex.persons and ex.to_dict()["counts"] == "persons"
        assert ex.class_size == per_row[row]
        for a in ex.attributes:
            assert a.records_with_value == frame.loc[frame[a.attribute] == a.value, "patient"].nunique()
        assert "person" in " ".join(ex.sentences())
        assert ex.levels is not None

        lv = [ex.levels[q] for q in QI]
        assert group_persons(frame, enc, int(row), lv) == ex.class_size_generalized >= k
        lower = [tuple(lattice.node(i)) for i in range(lattice.size)]
        assert all(group_persons(frame, enc, int(row), n) < k for n in lower if sum(n) < sum(lv))


def group_persons(frame: pd.DataFrame, enc, row: int, levels) -> int:
    """Distinct persons of the records that share record ``row``'s values at ``levels`` (pandas)."""
    gen = [enc.level_maps[q][lv][enc.codes[q]] for q, lv in enumerate(levels)]
    same = np.all([g == g[row] for g in gen], axis=0)
    return int(frame.loc[same, "patient"].nunique())


KEY = b"a key of thirty-two bytes, 256 b"


def test_pseudonymized_person_column(tmp_path) -> None:
    """Under the person role the person column is removed like an identifier, or, with a key, written
    as keyed pseudonyms (HMAC-SHA256, recomputed here with hmac): a patient's rows share one pseudonym,
    two patients never do, no patient number leaks, a blank stays blank, and the written file itself
    shows every released group held by at least k pseudonymous persons."""
    rng = np.random.default_rng(11)
    persons = 60
    pid = np.sort(rng.integers(0, persons, 240))
    frame = pd.DataFrame(
        {
            "patient": [f"P{p:03d}" for p in pid],
            "age": (20 + rng.integers(0, 60, persons)[pid]).astype(str),
            "zip": rng.choice(np.array(["10115", "10117", "20095", "20097"]), persons)[pid],
            "month": rng.integers(1, 13, len(pid)).astype(str),
        }
    )
    frame.loc[[3, 100], "patient"] = ""
    source = tmp_path / "stays.csv"
    frame.to_csv(source, index=False)
    table = read_table(source)
    hierarchies = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in QI}
    k = 4
    cfg = AnonymizationConfig(QI, hierarchies, build_models(k), person="patient", person_blanks="own")
    result = get_algorithm("optimal", suppression_limit=0.1).run(table, cfg)

    plain = export_release(table, result, tmp_path / "plain.csv")
    assert "patient" not in pd.read_csv(tmp_path / "plain.csv", dtype=str).columns
    assert plain.pseudonymized == ()

    summary = export_release(table, result, tmp_path / "pseudo.csv", ExportOptions(pseudonymize_key=KEY))
    back = pd.read_csv(tmp_path / "pseudo.csv", dtype=str, keep_default_na=False)
    assert summary.pseudonymized == ("patient",) and "patient" in back.columns
    # written in input order (no shuffle, nothing dropped); a blank cell is read as missing
    original = table.frame["patient"].fillna("").astype(str).to_numpy()
    assert len(back) == len(original)
    want = [hmac.new(KEY, p.encode(), hashlib.sha256).hexdigest() if p else "" for p in original]
    assert back["patient"].tolist() == want
    assert not (set(original) - {""}) & set(back["patient"])  # no patient number leaks
    named = back["patient"] != ""
    assert back.loc[named].groupby("patient").ngroups == len(set(original) - {""})  # one per patient
    # persons counted from the written file: every released group holds k of them (a blank: one each)
    kept = ~np.asarray(result.suppressed_mask)
    who = back["patient"].where(named, "blank-" + back.index.astype(str))
    groups = pd.DataFrame({"who": who, **{q: back[q] for q in QI}})[kept].groupby(list(QI))["who"].nunique()
    assert len(groups) and groups.min() >= k
