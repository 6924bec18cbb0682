"""The researcher's view (kanon_engine.utility): released cells read back, classifiers against
independent scikit-learn runs and the majority baseline, summaries against pandas, contingency tables,
the CLI's JSON, and one sentence for each bad request."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from kanon_engine.cli import main
from kanon_engine.errors import KanonError
from kanon_engine.utility.classifiers import CLASSIFIERS, design, folds_for, majority, relative_accuracy
from kanon_engine.utility.contingency import contingency
from kanon_engine.utility.study import fitness
from kanon_engine.utility.summaries import summarize
from kanon_engine.utility.values import categories, intervals, is_numeric, label_interval, midpoints


@pytest.mark.parametrize(
    "label,expected",
    [
        ("39", (39, 39)),
        ("30-39", (30, 39)),
        ("[30-39]", (30, 39)),
        ("[30, 40[", (30, 40)),
        ("[30, 40)", (30, 40)),
        ("1,5", (1.5, 1.5)),
        ("-5--1", (-5, -1)),
        ("10..20", (10, 20)),
    ],
)
def test_labels_name_their_interval(label, expected):
    assert label_interval(label) == pytest.approx(expected)


@pytest.mark.parametrize("label", ["Married", "*", "", "2021-03-04 to x"])
def test_other_labels_are_no_numbers(label):
    assert np.isnan(label_interval(label)).all()


def test_cells_read_back():
    s = pd.Series(["30-39", "*", None, "42", "Bachelors"])
    lo, hi = intervals(s)
    assert np.allclose(lo[[0, 3]], [30, 42]) and np.isnan(lo[[1, 2, 4]]).all()
    assert midpoints(s)[0] == 34.5
    assert categories(s).isna().tolist() == [False, True, True, False, False]
    assert is_numeric(pd.Series(["1", "2", "3", "*"])) and not is_numeric(pd.Series(["a", "1"]))


def _toy(n=600, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 70, n)
    sex = rng.choice(["F", "M"], n)
    y = np.where((age > 45) ^ (rng.random(n) < 0.15), "high", "low")
    original = pd.DataFrame({"age": age.astype(str), "sex": sex, "y": y})
    release = original.copy()
    release["age"] = [f"{a // 10 * 10}-{a // 10 * 10 + 9}" for a in age]
    release.loc[:20, ["age", "sex"]] = "*"
    return original, release


def test_classifiers_match_an_independent_run_and_beat_the_baseline():
    original, release = _toy()
    result = fitness(original, release, "y")
    cls = result["classification"]
    y = original["y"]
    assert cls["majority"] == pytest.approx(y.value_counts().max() / len(y))
    for name in CLASSIFIERS:
        assert cls["original"][name]["accuracy"] > cls["majority"] + 0.1
        assert 0.0 <= cls["release"][name]["brier"] <= 0.5 and 0.5 <= cls["release"][name]["auc"] <= 1.0
    # logistic regression again, by hand, on the same folds and the same one-hot + scaled features
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    d = design(original, ["age", "sex"], [True, False], "y")
    right = 0
    for train, test in folds_for(d.y, "t"):
        scale = StandardScaler().fit(d.numbers[train])
        onehot = OneHotEncoder(handle_unknown="ignore").fit(d.codes[train])

        def features(rows, scale=scale, onehot=onehot):
            return np.column_stack(
                [scale.transform(d.numbers[rows]), onehot.transform(d.codes[rows]).toarray()]
            )

        model = LogisticRegression(max_iter=300, tol=1e-3).fit(features(train), d.y[train])
        right += int((model.predict(features(test)) == d.y[test]).sum())
    assert cls["original"]["logistic_regression"]["accuracy"] == pytest.approx(right / len(d.y), abs=2e-3)
    rel = cls["release"]["random_forest"]
    expected = relative_accuracy(
        rel["accuracy"], cls["original"]["random_forest"]["accuracy"], cls["majority"]
    )
    assert rel["relative_accuracy"] == pytest.approx(expected)


def test_deterministic():
    original, release = _toy()
    assert fitness(original, release, "y") == fitness(original, release, "y")


def test_summaries_against_pandas():
    original, release = _toy()
    out = summarize(original, release, ["age", "sex", "y"])
    ages = original["age"].astype(float)
    assert out["age"]["original"]["mean"] == pytest.approx(ages.mean())
    assert out["age"]["original"]["median"] == pytest.approx(ages.median())
    assert out["age"]["original"]["q1"] == pytest.approx(ages.quantile(0.25))
    rel = out["age"]["release"]
    assert rel["estimated"] and rel["missing"] == 21
    kept = release["age"][release["age"] != "*"]
    assert rel["mean"] == pytest.approx(kept.map(lambda v: int(v[:2]) + 4.5).mean())
    assert rel["min"] == kept.map(lambda v: int(v[:2])).min()
    assert out["sex"]["original"]["mode"] == original["sex"].mode()[0]
    # 21 records of 600 lost their sex: the equal-distance EMD moves exactly their share
    assert out["sex"]["distance"] == pytest.approx(21 / 600)
    assert out["y"]["distance"] == pytest.approx(0.0)


def test_postcodes_are_categories_not_numbers():
    """Codes with a leading zero (postcodes) are summarized by their mode and distinct values: a median
    postcode would mean nothing (the sample's zip showed 'median 1,960')."""
    codes = pd.Series(["02108", "10011", "01002", "02108", "94110"] * 20)
    assert not is_numeric(codes)
    assert is_numeric(pd.Series(["25", "30", "41"] * 20))
    frame = pd.DataFrame({"zip": codes, "y": ["a", "b"] * 50})
    release = frame.assign(zip=codes.str[:3] + "**")
    out = summarize(frame, release, ["zip"])
    assert out["zip"]["original"]["mode"] == "02108" and "median" not in out["zip"]["original"]


def test_contingency_counts_both_tables():
    original, release = _toy()
    table = contingency(original, release, "sex", "y")
    assert np.array(table["original"]["counts"]).sum() == len(original)
    assert table["release"]["rows"][-1] == "missing"
    before = pd.crosstab(original["sex"], original["y"])
    side = table["original"]
    for i, row in enumerate(side["rows"]):
        assert side["counts"][i] == [int(before.loc[row, col]) for col in side["columns"]]


def test_cli_writes_the_json(tmp_path, capsys):
    original, release = _toy()
    data, rel, report = tmp_path / "d.csv", tmp_path / "r.csv", tmp_path / "u.json"
    original.to_csv(data, index=False)
    release.to_csv(rel, index=False)
    code = main(
        [
            "utility",
            str(data),
            "--release",
            str(rel),
            "--target",
            "y",
            "--features",
            "age,sex",
            "--contingency",
            "age,sex",
            "--report",
            str(report),
        ]
    )
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(report.read_text())
    assert set(printed["classification"]["original"]) == set(CLASSIFIERS)
    assert printed["classification"]["majority"] == pytest.approx(majority(design(original, [], [], "y").y))
    assert printed["features"] == ["age", "sex"] and "contingency" in printed


@pytest.mark.parametrize(
    "change,target,features,message",
    [
        (None, "one", None, "single value"),
        (None, "pid", None, "identifier"),
        (None, "y", ["age", "y"], "include the target"),
        ("extra", "y", None, "does not have"),
        (None, "y", ["nosuch"], "not in the release"),
    ],
)
def test_bad_requests_get_one_sentence(change, target, features, message):
    original, release = _toy(200)
    original = original.assign(one="same", pid=[f"p{i}" for i in range(len(original))])
    release = release.assign(one="same")
    if change == "extra":
        release = release.assign(extra="x")
    with pytest.raises(KanonError, match=message):
        fitness(original, release, target, features, identifiers=("pid",))


def test_cli_error_is_one_sentence(tmp_path, capsys):
    original, release = _toy(100)
    data, rel = tmp_path / "d.csv", tmp_path / "r.csv"
    original.to_csv(data, index=False)
    release.drop(columns="y").to_csv(rel, index=False)
    assert main(["utility", str(data), "--release", str(rel), "--target", "y"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and len(err.splitlines()) == 1 and "Traceback" not in err


def test_the_run_report_carries_the_same_figures_as_the_utility_command(tmp_path, capsys):
    """anonymize --target: the JSON report's fitness equals `utility` on the written release, and the
    HTML report has the section."""
    original, _release = _toy(400)
    original = original.assign(zip=[f"{i % 7:05d}" for i in range(len(original))])
    data = tmp_path / "d.csv"
    original.to_csv(data, index=False)
    out, report, html = tmp_path / "r.csv", tmp_path / "r.json", tmp_path / "r.html"
    args = [
        "anonymize",
        str(data),
        "--qi",
        "age,zip",
        "--k",
        "3",
        "--suppression-limit",
        "0.05",
        "--metric",
        "classification",
        "--target",
        "y",
        "--output",
        str(out),
        "--report",
        str(report),
        "--report-html",
        str(html),
    ]
    assert main(args) == 0
    capsys.readouterr()
    fit = json.loads(report.read_text())["fitness"]
    assert main(["utility", str(data), "--release", str(out), "--target", "y"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert fit["classification"] == again["classification"]
    assert fit["summary"].keys() == again["summary"].keys()
    text = html.read_text()
    assert "Fitness for the study" in text and "Random forest" in text
    section = text[text.index("Fitness for the study") :]
    assert "<table" in section and "'header'" not in section  # tables, not their data printed raw


def test_blank_cells_in_a_loaded_table_are_missing_not_a_traceback():
    """A loaded table's text columns hold <NA> for blank cells: the study reads them as missing (the walk
    on a German export with blank postcodes stopped with an IndexError)."""
    original, release = _toy()
    original = original.astype("string")
    release = release.astype("string")
    original.loc[::7, "sex"] = pd.NA
    release.loc[::5, "sex"] = pd.NA
    out = fitness(original, release, "y")
    assert out["summary"]["sex"]["original"]["mode"] in ("F", "M")
    assert 0.0 < out["classification"]["release"]["logistic_regression"]["accuracy"] <= 1.0
