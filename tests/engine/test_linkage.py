"""Linkage attack demo: the seeds' patients joined with the voter list, and the value-matching rules."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import algorithms, get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.io import read_table
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.hierarchy import Hierarchy, default_hierarchy
from kanon_engine.metrics.linkage import (
    Combos,
    count_matches,
    linkage_attack,
    match_blocks,
    parse_range,
    value_matches,
)

QI = ("age", "sex", "zipcode")


@pytest.fixture(scope="module")
def seeds(seed_dir: Path):
    patients = read_table(seed_dir / "mondrian_patients.csv")
    voters = read_table(seed_dir / "voter_registration.csv")
    hs = {q: default_hierarchy(q, patients.frame[q], patients.column_types.get(q)) for q in QI}
    config = AnonymizationConfig(QI, hs, build_models(2), sensitive=("disease",))
    return patients, voters, config


ALGORITHMS = ["datafly", "optimal"] + (["mondrian"] if "mondrian" in algorithms() else [])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_voters_singled_out_before_but_not_after_k2(seeds, algorithm: str) -> None:
    patients, voters, config = seeds
    result = get_algorithm(algorithm).run(patients, config)
    link = linkage_attack(
        voters, patients, result.release, quasi_identifiers=QI, hierarchies=config.hierarchies
    )
    assert link.columns == QI and link.external_records == 5
    # Lee (35, Male, 533449) matches exactly one patient: the flu patient
    assert link.before.singled_out == 1
    (lee,) = link.before.singled_out_rows
    assert voters.frame["name"].iloc[lee] == "Lee"
    assert link.before.candidates.tolist() == [1, 0, 0, 0, 0]
    # after a 2-anonymous release nobody is singled out; whoever matches has at least 2 candidates
    assert link.after.singled_out == 0
    matched = link.after.candidates[link.after.candidates > 0]
    assert (matched >= 2).all()
    assert link.after.candidates[lee] >= 2
    d = link.to_dict()
    assert d["before"]["people_singled_out"] == 1 and d["after"]["people_singled_out"] == 0
    assert "singles out 1 of them; with the release, 0." in link.summary()


def test_value_matching_rules() -> None:
    known = ["35", "36", "533447", "Female", "Married-civ-spouse", None, "35.0", "-3"]
    released = ["35", "[34-36)", "[36-38]", "5334**", "*", "{Female, Male}", "Married", "(-5--1)"]
    h = Hierarchy.from_rows("m", [["Married-civ-spouse", "Married", "*"], ["Never-married", "Single", "*"]])
    m = value_matches(known, released, h)
    want = {  # (known, released) pairs that match, besides "*" (column 4) and the missing value (row 5)
        ("35", "35"),
        ("35", "[34-36)"),
        ("36", "[36-38]"),
        ("533447", "5334**"),
        ("Female", "{Female, Male}"),
        ("Married-civ-spouse", "Married"),
        ("35.0", "35"),
        ("35.0", "[34-36)"),
        ("-3", "(-5--1)"),
    }
    for i, kv in enumerate(known):
        for j, rv in enumerate(released):
            expected = rv == "*" or kv is None or (kv, rv) in want
            assert m[i, j] == expected, (kv, rv)


def test_ranges_and_masks() -> None:
    assert parse_range("[30-40)") == (30.0, 40.0, True, False)
    assert parse_range("(1.5, 2.5]") == (1.5, 2.5, False, True)
    assert parse_range("30-40") is None and parse_range("abc") is None
    m = value_matches(["40", "30", "29.99"], ["[30-40)"])
    assert m[:, 0].tolist() == [False, True, False]
    m = value_matches(["2020-02-01", "2021-01-01", "x"], ["[2020-01-05 - 2020-03-01]"])
    assert m[:, 0].tolist() == [True, False, False]
    m = value_matches(["02138", "02139", "2138", "12138"], ["0213*", "02**8"])
    assert m.tolist() == [[True, True], [True, False], [False, False], [False, False]]


def test_count_matches_both_ways() -> None:
    external = pd.DataFrame({"age": ["35", "36", "50"], "sex": ["M", "F", "F"]})
    release = pd.DataFrame({"age": ["[30-40)", "[30-40)", "[30-40)", "*"], "sex": ["M", "M", "F", "*"]})
    per_ext, per_rel = count_matches(external, release, ["age", "sex"])
    assert per_ext.tolist() == [3, 2, 1]  # the "*" row matches everyone
    assert per_rel.tolist() == [1, 1, 1, 3]
    # many external rows, forcing several blocks, give the same counts as a direct loop
    rng = np.random.default_rng(1)
    big = pd.DataFrame({"age": rng.integers(20, 60, 5000).astype(str), "sex": rng.choice(["M", "F"], 5000)})
    per_ext, _ = count_matches(big, release, ["age", "sex"])
    ages = big["age"].astype(int)
    direct = ((ages >= 30) & (ages < 40)) * np.where(big["sex"] == "M", 2, 1) + 1
    np.testing.assert_array_equal(per_ext, direct.to_numpy())


def test_no_shared_column_is_a_plain_error(seeds) -> None:
    patients, _, _ = seeds
    other = pd.DataFrame({"name": ["x"], "town": ["y"]})
    with pytest.raises(ConfigError, match="shares no quasi-identifier"):
        linkage_attack(other, patients, quasi_identifiers=QI)


def _matrix_counts(known: pd.DataFrame, released: pd.DataFrame, cols: list[str], hs: dict) -> np.ndarray:
    """The general (matrix) path, per known row, for comparison with the hash-join fast path."""
    kc, rc = Combos.of(known, cols), Combos.of(released, cols)
    per = np.zeros(kc.n, dtype=np.int64)
    for block, m in match_blocks(kc, rc, [hs.get(c) for c in cols]):
        per[block] = m.astype(np.int64) @ rc.counts
    return per[kc.row_combo]


def test_fast_join_agrees_with_the_matrix_path() -> None:
    rng = np.random.default_rng(7)
    n = 400
    original = pd.DataFrame({"age": rng.integers(20, 40, n).astype(str), "sex": rng.choice(["M", "F"], n)})
    external = pd.DataFrame(
        {"age": rng.integers(15, 45, 300).astype(str), "sex": rng.choice(["M", "F", "X"], 300)}
    )
    h = Hierarchy.from_rows("age", [[str(a), f"[{a // 5 * 5}-{a // 5 * 5 + 5})", "*"] for a in range(15, 45)])
    release = pd.DataFrame({"age": h.generalize(original["age"], 1), "sex": original["sex"]})
    release.iloc[:7] = "*"  # suppressed records
    for rel, hs in ((original, {}), (release, {"age": h})):
        fast, _ = count_matches(external, rel, ["age", "sex"], hs)
        np.testing.assert_array_equal(fast, _matrix_counts(external, rel, ["age", "sex"], hs))
    # a missing value in the public list matches every released value: the matrix path is used
    external.loc[0, "sex"] = None
    fast, _ = count_matches(external, release, ["age", "sex"], {"age": h})
    np.testing.assert_array_equal(fast, _matrix_counts(external, release, ["age", "sex"], {"age": h}))


# --- the workbench's demo: join columns named differently, examples, progress (issue 12, item 14) -------
def test_join_suggestions_by_name_then_by_kind() -> None:
    from kanon_engine.metrics.linkage import suggest_join

    found = suggest_join(
        ["Name", "Zip Code", "Geschlecht", "Alter", "PLZ"], ["age", "sex", "zip_code", "postleitzahl"]
    )
    pairs = {s.column: s.list_column for s in found}
    # same name ignoring case and separators; same kind by the words of the names (German ones too)
    assert pairs == {"age": "Alter", "sex": "Geschlecht", "zip_code": "Zip Code", "postleitzahl": "PLZ"}
    reasons = {s.column: s.reason for s in found}
    assert reasons["zip_code"] == "'Zip Code' has the same name as the quasi-identifier 'zip_code'."
    assert reasons["sex"] == "'Geschlecht' and the quasi-identifier 'sex' both look like sex or gender."
    assert suggest_join(["town", "name"], ["age"]) == []


def test_join_on_differently_named_columns_gives_the_same_counts(seeds) -> None:
    patients, voters, config = seeds
    renamed = voters.frame.rename(columns={"age": "Alter", "sex": "Geschlecht", "zipcode": "PLZ"})
    join = {"age": "Alter", "sex": "Geschlecht", "zipcode": "PLZ"}
    result = get_algorithm("datafly").run(patients, config)
    by_name = linkage_attack(
        voters, patients, result.release, quasi_identifiers=QI, hierarchies=config.hierarchies
    )
    by_join = linkage_attack(renamed, patients, result.release, join=join, hierarchies=config.hierarchies)
    assert by_join.columns == QI and by_join.list_columns == ("Alter", "Geschlecht", "PLZ")
    np.testing.assert_array_equal(by_join.before.candidates, by_name.before.candidates)
    np.testing.assert_array_equal(by_join.after.candidates, by_name.after.candidates)
    assert by_join.to_dict()["list_columns"] == ["Alter", "Geschlecht", "PLZ"]
    with pytest.raises(DataError, match="no column 'Postcode'"):
        linkage_attack(renamed, patients, join={"zipcode": "Postcode"})


def test_counts_share_and_summary_with_thousands_separators() -> None:
    original = pd.DataFrame({"age": [str(a) for a in range(1200)], "sex": ["F"] * 1200})
    external = pd.DataFrame({"age": [str(a) for a in range(0, 2400, 2)], "sex": ["F"] * 1200})
    release = pd.DataFrame({"age": ["*"] * 1200, "sex": ["F"] * 1200})
    link = linkage_attack(external, original, release, columns=["age", "sex"])
    assert link.before.singled_out == 600 and link.before.singled_out_share == 0.5
    assert link.after.singled_out == 0 and link.after.smallest_group == 1200
    assert link.summary() == (
        "Joining a public list of 1,200 people with the original data on age, sex singles out 600 of "
        "them; with the release, 0."
    )
    assert link.to_dict()["before"]["share_singled_out"] == 0.5


def test_examples_show_the_list_and_the_release_never_the_original() -> None:
    from kanon_engine.metrics.linkage import linkage_examples

    original = pd.DataFrame(
        {
            "age": ["35", "36", "37", "50"],
            "sex": ["M", "F", "F", "M"],
            "disease": ["Flu", "HIV", "HIV", "Cold"],
        }
    )
    release = pd.DataFrame(
        {
            "age": ["[30-40)", "[30-40)", "[30-40)", "[50-60)"],
            "sex": ["*", "*", "*", "M"],
            "disease": ["Flu", "HIV", "HIV", "Cold"],
        }
    )
    external = pd.DataFrame(
        {"Name": ["Ann", "Bob", "Cid", "Dan"], "Age": ["36", "35", "50", "70"], "Sex": ["F", "M", "M", "M"]}
    )
    link = linkage_attack(external, original, release, join={"age": "Age", "sex": "Sex"})
    assert link.before.candidates.tolist() == [1, 1, 1, 0]
    assert link.after.candidates.tolist() == [3, 3, 1, 0]
    ex = linkage_examples(link, external, release, learned_columns=["disease"])
    # Cid (list row 3) is singled out by the release: first, with what the attacker learns
    assert [e.list_row for e in ex] == [3, 1, 2, 4]
    assert ex[0].known == {"Age": "50", "Sex": "M"} and (ex[0].before, ex[0].after) == (1, 1)
    assert ex[0].learned == {"disease": "Cold"}
    # Ann and Bob are singled out only by the original: a count, no value of their records
    assert ex[1].learned is None and (ex[1].before, ex[1].after) == (1, 3)
    assert ex[3].before == 0 and ex[3].after == 0
    assert len(linkage_examples(link, external, release, limit=2)) == 2


def test_progress_reaches_the_end_and_a_cancel_stops_the_join(seeds) -> None:
    from kanon_engine.errors import Cancelled

    patients, voters, config = seeds
    seen: list[float] = []
    linkage_attack(
        voters, patients, patients.frame, quasi_identifiers=QI, progress=lambda f, m: seen.append(f)
    )
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)

    def cancel(fraction: float, message: str) -> None:
        if fraction >= 0.5:
            raise Cancelled()

    with pytest.raises(Cancelled):
        linkage_attack(voters, patients, patients.frame, quasi_identifiers=QI, progress=cancel)
