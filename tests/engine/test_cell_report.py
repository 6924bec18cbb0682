"""What a cell-level release says about itself (report, risk, CLI), pinned on hand-computed examples."""

from __future__ import annotations

import json

import pandas as pd

from kanon_engine.algorithms import get_algorithm
from kanon_engine.cli import main
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.metrics.risk import compare
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.release.cell_recoding import wildcard_reading
from kanon_engine.report.build import build_report
from kanon_engine.report.html import render_html
from kanon_engine.report.sentences import MINIMALITY_WARNING, STAR_MEANING


def _four_patients():
    frame = pd.DataFrame(
        {"age": ["30", "40", "50", "50"], "sex": ["F", "F", "M", "M"], "diagnosis": ["a", "b", "a", "c"]},
        dtype=object,
    )
    qi = ("age", "sex")
    config = AnonymizationConfig(
        qi, {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in qi}, (KAnonymity(2),)
    )
    table = Table.from_frame(frame)
    return table, get_algorithm("local-suppression").run(table, config)


def test_wildcard_and_strict_readings_by_hand():
    """Strict: (*,F) and (30,F) are two groups of 2. Wildcard: every record matches all 4."""
    release = pd.DataFrame({"a": ["*", "*", "30", "30"], "b": ["F", "F", "F", "F"]}, dtype=object)
    r = wildcard_reading(release, ["a", "b"], 3)
    assert r["strict_smallest_class"] == 2 and r["strict_records_below_k"] == 4
    assert r["smallest_frequency"] == 4 and r["records_below_k"] == 0
    assert r["records_with_star"] == 2


def test_report_names_the_model_and_counts_cells():
    table, result = _four_patients()
    report = build_report(table, result)
    res = report["result"]
    assert res["model"]["name"] == "CS" and "cell suppression" in res["model"]["description"]
    cl, facts = res["cell_level"], report["facts"]["release"]
    assert facts["star_cells_per_attribute"] == {"age": 2, "sex": 0}
    assert facts["star_cells"] == 2 and facts["records_with_star"] == 2
    assert facts["star_cells_by_cause"]["value_suppressed"] == 2
    assert cl["readings"]["strict_smallest_class"] == 2 and cl["readings"]["smallest_frequency"] == 2
    assert res["suppressed"] == 0 and res["smallest_class"] == 2
    summary = " ".join(report["summary"])
    assert "2 values (25.0 % of the quasi-identifier values) in 2 records are shown as *: age 2." in summary
    assert "Every record is kept (CS:" in summary
    assert STAR_MEANING in summary and MINIMALITY_WARNING in summary
    html = render_html(report)
    assert "Model: <b>CS</b>" in html and "minimality attack" in html
    assert "What * means here" in html and "* matching any value (sdcMicro)" in html


def test_risk_counts_star_as_a_value_on_cell_level_releases():
    """A single * is a value of its own in a cell-level release, but rows that are * everywhere are
    suppressed there too: they belong to no group (one definition of a group everywhere)."""
    frame = pd.DataFrame({"a": list("xyzw"), "b": list("1234")}, dtype=object)
    qi = ("a", "b")
    config = AnonymizationConfig(
        qi, {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in qi}, (KAnonymity(2),)
    )
    table = Table.from_frame(frame)
    result = get_algorithm("local-suppression").run(table, config)
    assert (result.release[list(qi)] == "*").all().all()  # nothing else makes groups of 2
    risk = compare(table, result)
    assert risk.after.star_is_value and risk.after.to_dict()["star_counted_as_value"] is True
    assert risk.after.figures.suppressed == 4 and risk.after.figures.classes == 0
    assert build_report(table, result)["facts"]["release"]["records_suppressed"] == 4
    full_domain = get_algorithm("optimal", suppression_limit=1.0).run(table, config)
    assert compare(table, full_domain).after.star_is_value is False


def test_cli_local_suppression_and_cells(tmp_path):
    frame = pd.DataFrame({"age": ["30", "40", "50", "50"], "sex": ["F", "F", "M", "M"]}, dtype=object)
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    out, rep = tmp_path / "r.csv", tmp_path / "r.json"
    code = main(
        [
            "anonymize",
            str(data),
            "--qi",
            "age,sex",
            "--k",
            "2",
            "--algorithm",
            "local-suppression",
            "--param",
            "importance=sex,age",
            "--output",
            str(out),
            "--report",
            str(rep),
        ]
    )
    assert code == 0
    summary = json.loads(rep.read_text())
    assert summary["model"] == "CS" and summary["suppressed_cells"] == 2
    assert summary["suppressed_cells_per_attribute"] == {"age": 2, "sex": 0}
    assert summary["parameters"]["importance"] == "sex,age"
    assert main(["check", str(out), "--qi", "age,sex", "--k", "2"]) == 0
    # --suppress is a parameter of the full-domain algorithms: ignored (with a warning) for the others
    ok = main(
        [
            "anonymize",
            str(data),
            "--qi",
            "age,sex",
            "--k",
            "2",
            "--algorithm",
            "local-suppression",
            "--suppress",
            "cells",
            "--importance",
            "age",
        ]
    )
    assert ok == 0


def test_a_column_lost_to_stars_is_said_plainly():
    """Local suppression that stars one column everywhere warns in its own words (no hierarchy advice)."""
    from kanon_engine.project.validation import result_warnings

    frame = pd.DataFrame({"a": list("xyzw"), "b": ["1", "1", "2", "2"]}, dtype=object)
    qi = ("a", "b")
    config = AnonymizationConfig(
        qi, {q: Hierarchy.flat(q, sorted(set(frame[q]))) for q in qi}, (KAnonymity(2),)
    )
    result = get_algorithm("local-suppression").run(Table.from_frame(frame), config)
    assert list(result.release["a"]) == ["*"] * 4 and list(result.release["b"]) == ["1", "1", "2", "2"]
    warnings = [i.message for i in result_warnings(result)]
    assert warnings[:1] == [
        "Every record shows * for 'a', so the release says nothing about it. Try a smaller k or fewer "
        "quasi-identifiers (local suppression: name 'a' among the columns to keep longest)."
    ]


def test_run_settings_say_a_cell_level_release_suppresses_no_record():
    """The settings line shown in history tips and compare-runs: a release that keeps every record says
    so; a full-domain run says what happens to its suppressed records."""
    from kanon_engine.report.describe import run_settings

    table, result = _four_patients()
    assert ("Suppressed records are", "none: every record is kept, single values shown as *") in run_settings(
        result
    )
    full = get_algorithm("optimal", suppression_limit=1.0).run(table, result.config)
    assert ("Suppressed records are", "kept, shown as *") in run_settings(full)
    dropped = get_algorithm("optimal", suppression_limit=1.0).run(
        table, result.config.with_changes(drop_suppressed=True)
    )
    assert ("Suppressed records are", "left out of the file") in run_settings(dropped)
