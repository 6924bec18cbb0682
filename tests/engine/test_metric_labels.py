"""Every reported metric under its true name, with its value, on a hand-computed example (issue 12, item 1).

The example: six records, age and sex, the levels (age 1, sex 0) applied with k = 2:

    (31, m) (32, m)            -> [30-39], m : a group of 2
    (41, f) (42, f) (41, f)    -> [40-49], f : a group of 3
    (31, f)                    -> [30-39], f : 1 record, below k, suppressed

Hierarchies: age 31, 32 -> 30-39; 41, 42 -> 40-49; then * (height 2). sex m, f -> * (height 1).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms.full_domain import apply_transformation
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.data.types import detect_types
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.metrics.labels import METRIC_LABELS, OBJECTIVE_LABELS, metric_label, show_metric
from kanon_engine.metrics.loss import METRICS
from kanon_engine.privacy.models import KAnonymity

AGE = Hierarchy.from_rows(
    "age", [["31", "30-39", "*"], ["32", "30-39", "*"], ["41", "40-49", "*"], ["42", "40-49", "*"]]
)
SEX = Hierarchy.from_rows("sex", [["m", "*"], ["f", "*"]])


@pytest.fixture(scope="module")
def result():
    frame = pd.DataFrame(
        {"age": ["31", "32", "41", "42", "41", "31"], "sex": ["m", "m", "f", "f", "f", "f"]}, dtype=object
    )
    table = Table(frame, column_types=detect_types(frame))
    # the one suppressed record stays alone: Datafly's step 4 (a kept suppressed group of >= k) is off
    # here so the example stays small; tests/engine/test_suppressed_group.py covers it
    config = AnonymizationConfig(
        ("age", "sex"), {"age": AGE, "sex": SEX}, (KAnonymity(2),), protect_suppressed_group=False
    )
    return apply_transformation(table, config, (1, 0), suppression_limit=1.0, metric="dm")


def _entropy() -> float:
    """Non-uniform entropy by hand: -log2(f(v)/f(group)) per record, frequencies in the input."""
    released_age = 3 * -math.log2(2 / 3) + 2 * -math.log2(1 / 3)  # 31, 41, 41 and 32, 42 at level 1
    suppressed_age = -math.log2(2 / 6)  # the suppressed 31 counts as *: f(31) / n
    suppressed_sex = -math.log2(4 / 6)  # its f counts as *: f(f) / n
    return released_age + suppressed_age + suppressed_sex


# (key, label name, value, value as shown)
EXPECTED = [
    ("discernibility", "Discernibility (DM)", 2 * 2 + 3 * 3 + 1 * 6, "19"),
    ("discernibility_star", "Discernibility without suppression penalty (DM*)", 4 + 9 + 1, "14"),
    # C_AVG as the Mondrian paper defines it: all 6 records / 2 groups / k; over released records 5/2/2
    ("cavg", "Average group size relative to k (C_AVG)", 6 / 2 / 2, "1.50"),
    (
        "cavg_released",
        "Average released group size relative to k (C_AVG over released records)",
        5 / 2 / 2,
        "1.25",
    ),
    # Prec = 1 - (5 records x (1/2 + 0/1) + 1 suppressed x 2) / (6 records x 2 QIs) = 0.625
    ("precision", "Precision kept (Sweeney's Prec)", 0.625, "62.5 %"),
    ("height", "Generalization steps (height in the lattice)", 1, "1"),
    ("entropy", "Information lost (non-uniform entropy, bits)", _entropy(), "7.09"),
    # Loss: age shares 2/4 for the 5 released records, 1 for the suppressed one: (3.5 - 6/4) / (6 - 6/4);
    # sex shares 1/2 and 1: (3.5 - 6/2) / (6 - 6/2); geometric mean of (1 + each) minus 1
    (
        "loss",
        "Information lost (Loss, as in ARX)",
        math.sqrt((1 + 2 / 4.5) * (1 + 0.5 / 3)) - 1,
        "29.8 %",
    ),
    ("intensity:age", "Generalization of age", 0.5, "50.0 %"),
    ("intensity:sex", "Generalization of sex", 0.0, "0.0 %"),
]


@pytest.mark.parametrize(("key", "name", "value", "shown"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_full_domain_metric_label_and_value(result, key: str, name: str, value: float, shown: str) -> None:
    assert result.suppressed == 1
    assert result.metrics[key] == pytest.approx(value)
    assert metric_label(key).name == name
    assert show_metric(key, result.metrics[key]) == shown


def test_precision_is_never_called_a_loss() -> None:
    """Prec is the precision kept: 100 % keeps every value. Its words must say so."""
    label = metric_label("precision")
    assert "loss" not in label.name.lower()
    assert label.lower_is_better is False
    assert "100 % keeps every original value" in label.meaning


def test_mondrian_metric_labels_and_values() -> None:
    """Ages 1-4, k = 2: strict Mondrian cuts once at the median, [1-2] and [3-4]; each range leaves
    open (2 - 1) / (4 - 1) = 1/3 of the domain."""
    from kanon_engine.algorithms import get_algorithm
    from kanon_engine.hierarchy import default_hierarchy

    frame = pd.DataFrame({"age": ["1", "2", "3", "4"]}, dtype=object)
    table = Table(frame, column_types=detect_types(frame))
    h = default_hierarchy("age", frame["age"], table.column_types["age"])
    config = AnonymizationConfig(("age",), {"age": h}, (KAnonymity(2),))
    res = get_algorithm("mondrian").run(table, config)
    assert sorted(res.release["age"].unique()) == ["[1-2]", "[3-4]"]
    cases = {
        "gcp": ("Range left open, on average (GCP)", 1 / 3, "33.3 %"),
        "ncp:age": ("Range left open for age (NCP)", 1 / 3, "33.3 %"),
        "partitions": ("Partitions made", 2, "2"),
        "splits": ("Cuts made", 1, "1"),
        "discernibility": ("Discernibility (DM)", 8, "8"),
        "cavg": ("Average group size relative to k (C_AVG)", 1.0, "1"),
    }
    for key, (name, value, shown) in cases.items():
        assert res.metrics[key] == pytest.approx(value), key
        assert metric_label(key).name == name
        assert show_metric(key, res.metrics[key]) == shown


def test_every_reported_metric_has_a_label(result) -> None:
    for key in result.metrics:
        label = metric_label(key)
        assert label.name != key and label.meaning, key


def test_every_objective_has_plain_words() -> None:
    # the search's choice of objective shows these words (algorithms.base's ``metric`` parameter)
    assert set(METRICS) <= set(OBJECTIVE_LABELS)
    assert set(METRIC_LABELS) >= {"discernibility", "precision", "loss", "entropy", "gcp"}


def test_missing_values_are_not_shown_as_nan() -> None:
    assert show_metric("precision", float("nan")) == "not available"
    assert show_metric("cavg", np.inf) == "infinite"


def test_report_prints_each_metric_under_its_true_name(result) -> None:
    import html as html_module

    from kanon_engine.report.build import build_report
    from kanon_engine.report.html import render_html

    html = html_module.unescape(render_html(build_report(result_table(result), result)))
    assert "Precision kept (Sweeney's Prec)" in html and "62.5 %" in html
    assert "Precision loss" not in html
    assert "Information lost (Loss, as in ARX)" in html and "29.8 %" in html
    assert "Generalization of age" in html and "50.0 %" in html


def result_table(result) -> Table:
    frame = pd.DataFrame(
        {"age": ["31", "32", "41", "42", "41", "31"], "sex": ["m", "m", "f", "f", "f", "f"]}, dtype=object
    )
    return Table(frame, column_types=detect_types(frame))
