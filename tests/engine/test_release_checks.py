"""``check`` and ``risk`` on a release file (issue 17, items 9 and 10).

Item 10: rows whose quasi-identifiers are all ``*`` look alike to an attacker, so they are one class for
k (a release generalized to the root is k-anonymous with one class, not "k 0, classes 0").
Item 9: ``risk --release`` refuses a release of another table and a population that lacks most of the
sample, and warns plainly about a release still holding identifiers or missing records.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.cli import main
from kanon_engine.core.table_check import check_table, release_classes

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"
QI = "age,sex,zip,admission_date"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# --- item 10 ------------------------------------------------------------------------------------------------
def test_a_release_generalized_to_the_root_is_one_class(capsys, tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("age,sex,disease\n" + "*,*,flu\n" * 5)
    code, out, _ = run(capsys, "check", tmp_path / "r.csv", "--qi", "age,sex", "--k", "5")
    report = json.loads(out)
    assert code == 0
    assert report["k"] == 5 and report["classes"] == 1 and report["suppressed"] == 5


def test_too_few_all_star_rows_are_a_class_below_k(capsys, tmp_path: Path) -> None:
    rows = ["30-39,F"] * 5 + ["40-49,M"] * 5 + ["*,*"] * 2
    (tmp_path / "r.csv").write_text("age,sex\n" + "\n".join(rows) + "\n")
    code, out, _ = run(capsys, "check", tmp_path / "r.csv", "--qi", "age,sex", "--k", "5")
    report = json.loads(out)
    assert code == 1 and report["k"] == 2 and report["classes"] == 3
    assert report["records_below_k"] == 2 and report["suppressed"] == 2


def test_release_classes_is_one_function_for_check_and_risk() -> None:
    frame = pd.DataFrame({"a": ["*", "x", "*", "x"], "b": ["*", "1", "*", "*"]})
    found = release_classes(frame, ["a", "b"])
    assert found.n_suppressed == 2 and list(found.sizes) == [2, 1, 1]
    assert found.suppressed_class == found.row_class[0] == found.row_class[2]
    raw = release_classes(frame, ["a", "b"], suppressed_marker=None)  # raw data: '*' is a value
    assert raw.n_suppressed == 0 and list(raw.sizes) == [2, 1, 1]
    assert check_table(frame, ["a", "b"], 1).classes == 3


def test_risk_counts_the_all_star_rows_as_suppressed_in_no_group(capsys, tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    shutil.copy(SAMPLE / "sample_patients.csv", data)
    frame = pd.read_csv(data, dtype=str, keep_default_na=False)
    release = frame.drop(columns=["patient_id", "name"])
    for q in QI.split(","):
        release[q] = "*"
    release.to_csv(tmp_path / "r.csv", index=False)
    code, out, err = run(capsys, "risk", data, "--qi", QI, "--identifier", "patient_id,name",
                         "--release", tmp_path / "r.csv")  # fmt: skip
    after = json.loads(out)["after"]
    assert code == 0, err
    assert after["classes"] == 0 and after["smallest_class"] == 0 and after["suppressed"] == 2000


# --- item 9 -------------------------------------------------------------------------------------------------
@pytest.fixture()
def small(tmp_path: Path) -> Path:
    """300 patients of the sample (the "table"); the whole sample is another table of 2,000."""
    frame = pd.read_csv(SAMPLE / "sample_patients.csv", dtype=str, keep_default_na=False)
    frame.iloc[:300].to_csv(tmp_path / "d.csv", index=False)
    return tmp_path / "d.csv"


def _release(capsys, data: Path, out: Path, *extra: str) -> None:
    code, _, err = run(capsys, "anonymize", data, "--qi", QI, "--identifier", "patient_id,name",
                       "--k", "5", "--output", out, *extra)  # fmt: skip
    assert code == 0, err


def _risk(capsys, data: Path, *extra) -> tuple[int, str, str]:
    return run(capsys, "risk", data, "--qi", QI, "--identifier", "patient_id,name", *extra)


def test_risk_refuses_a_release_of_another_table(capsys, small: Path, tmp_path: Path) -> None:
    _release(capsys, SAMPLE / "sample_patients.csv", tmp_path / "big.csv")
    code, out, err = _risk(capsys, small, "--release", tmp_path / "big.csv")
    assert code == 2 and out == "" and "Traceback" not in err
    assert "big.csv has 2,000 rows but d.csv has 300 records" in err and "not a release of this table" in err
    # same size, other patients: their diagnoses are not this table's
    other = pd.read_csv(tmp_path / "big.csv", dtype=str, keep_default_na=False).iloc[1000:1300]
    other.to_csv(tmp_path / "other.csv", index=False)
    code, _, err = _risk(capsys, small, "--release", tmp_path / "other.csv")
    assert code == 2 and "does not have" in err and "not a release of this table" in err


def test_risk_accepts_its_own_release_shuffled_and_dropped(capsys, small: Path, tmp_path: Path) -> None:
    _release(capsys, small, tmp_path / "r.csv", "--shuffle", "7")
    code, out, err = _risk(capsys, small, "--release", tmp_path / "r.csv")
    assert code == 0 and "warning" not in err and "warnings" not in json.loads(out)
    _release(capsys, small, tmp_path / "dropped.csv", "--drop-suppressed", "--suppression-limit", "0.1")
    n = len(pd.read_csv(tmp_path / "dropped.csv"))
    assert n < 300  # some records were suppressed and dropped
    code, out, err = _risk(capsys, small, "--release", tmp_path / "dropped.csv")
    assert code == 0
    assert f"has {n:,} rows for the 300 records" in err and json.loads(out)["warnings"]


def test_risk_warns_when_the_release_still_holds_an_identifier(capsys, small: Path, tmp_path: Path) -> None:
    _release(capsys, small, tmp_path / "r.csv")
    release = pd.read_csv(tmp_path / "r.csv", dtype=str, keep_default_na=False)
    release.insert(0, "name", pd.read_csv(small, dtype=str)["name"])
    release.to_csv(tmp_path / "leaky.csv", index=False)
    code, out, err = _risk(capsys, small, "--release", tmp_path / "leaky.csv")
    assert code == 0
    words = "leaky.csv still holds the identifier column 'name' with its original values (300 of 300 rows)"
    assert f"warning: {words}" in err and words in json.loads(out)["warnings"][0]


def test_risk_refuses_a_population_lacking_most_records(capsys, small: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(SAMPLE / "sample_patients.csv", dtype=str, keep_default_na=False)
    frame.iloc[1000:].to_csv(tmp_path / "elsewhere.csv", index=False)  # other people
    code, out, err = _risk(capsys, small, "--population", tmp_path / "elsewhere.csv")
    assert code == 2 and out == ""
    assert "elsewhere.csv lacks" in err and "of the 300 records of d.csv" in err
    assert "not the population this table was drawn from" in err
    frame.iloc[10:].to_csv(tmp_path / "most.csv", index=False)  # lacks only the first ten patients
    code, out, err = _risk(capsys, small, "--population", tmp_path / "most.csv")
    assert code == 0 and "warning: most.csv lacks" in err and json.loads(out)["warnings"]
    frame.to_csv(tmp_path / "all.csv", index=False)
    code, out, err = _risk(capsys, small, "--population", tmp_path / "all.csv")
    assert code == 0 and "warning" not in err
