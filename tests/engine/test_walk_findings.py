"""The steward's walk (issue 27, findings 1-7): each wrong statement, pinned by a test of what is said now.

The walk's export is a hospital extract (``tests.engine.test_facts_text.hospital``: birth years, sexes
with blanks, postcodes with "inconnu", diagnoses); the runs go through the command line as the steward's
did, or through the same engine calls the workbench makes.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.cli import main
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.table import Table, apply_type_overrides
from kanon_engine.data.types import ColumnKind, detect_column, parse_numbers
from kanon_engine.errors import DataError
from kanon_engine.hierarchy import Hierarchy, default_hierarchy, masking_hierarchy
from kanon_engine.i18n import using
from kanon_engine.metrics.risk import compare
from kanon_engine.project.validation import result_warnings
from kanon_engine.release.export import ExportOptions, export_release
from kanon_engine.report.build import build_report
from kanon_engine.report.html import render_html
from tests.engine.test_facts_text import hospital

QI = ("birth", "sex", "postcode")


def _config(table: Table, k: int = 5, **models) -> AnonymizationConfig:
    hs = {q: default_hierarchy(q, table.frame[q], table.column_types.get(q)) for q in QI}
    return AnonymizationConfig(
        QI, hs, build_models(k, **models), sensitive=("diagnosis",), identifiers=("stay",)
    )


@pytest.fixture(scope="module")
def stays() -> Table:
    return Table.from_frame(hospital(800, seed=5))


def test_finding_1_every_star_is_counted_whatever_put_it_there(stays: Table, tmp_path: Path) -> None:
    """Local recoding puts '*' by generalizing to the root, not by suppressing: the report, the JSON and
    the workbench count them all (no "Values replaced by * 0" beside a file full of '*')."""
    result = get_algorithm("local-recoding").run(stays, _config(stays))
    written = export_release(stays, result, tmp_path / "r.csv")
    file = pd.read_csv(tmp_path / "r.csv", dtype=str, keep_default_na=False)
    stars = int((file[list(QI)] == "*").to_numpy().sum())
    with_star = int((file[list(QI)] == "*").any(axis=1).sum())
    rel = written.facts["release"]
    assert stars > 0 and rel["star_cells"] == stars and rel["records_with_star"] == with_star
    assert result.recoding is not None and result.recoding.suppressed_cells == 0  # the bookkeeping
    assert sum(rel["star_cells_by_cause"].values()) == stars
    report = build_report(stays, result, release=written.to_dict())
    html = render_html(report)
    assert f">{stars:,}</td>" in html or f">{stars}</td>" in html
    assert "Values replaced by *" not in html


def test_finding_2_row_order_is_read_from_the_written_order(stays: Table, tmp_path: Path) -> None:
    """Shuffling chosen at export (the export dialog) while the run kept the input order: the report says
    shuffled, with the rows that kept their place counted in the file."""
    result = get_algorithm("optimal").run(stays, _config(stays))
    written = export_release(stays, result, tmp_path / "r.csv", ExportOptions(shuffle=True, shuffle_seed=3))
    rel = written.facts["release"]
    assert rel["row_order"] == "shuffled" and rel["rows_in_place"] < 10
    html = render_html(build_report(stays, result, release=written.to_dict()))
    assert "as in the input" not in html and "shuffled (" in html
    plain = export_release(stays, result, tmp_path / "p.csv", ExportOptions(shuffle=False))
    assert plain.facts["release"]["row_order"] == "input"


def test_finding_3_the_sensitive_sentence_states_the_measured_share() -> None:
    """Groups of 5 with 4 of one diagnosis and 1 other: 2 values in every group, but 80 % share one. The
    words say so, never "does not reveal"."""
    frame = pd.DataFrame(
        {"q": ["a"] * 5 + ["b"] * 5, "diagnosis": ["x", "x", "x", "x", "y", "z", "z", "z", "z", "w"]},
        dtype=object,
    )
    table = Table.from_frame(frame)
    config = AnonymizationConfig(
        ("q",), {"q": Hierarchy.flat("q", ["a", "b"])}, build_models(5), sensitive=("diagnosis",)
    )
    result = get_algorithm("optimal").run(table, config)
    report = build_report(table, result)
    assert report["facts"]["sensitive"]["diagnosis"] == {
        "min_distinct": 2,
        "max_share": 0.8,
        "homogeneous_classes": 0,
        "homogeneous_records": 0,
    }
    summary = " ".join(report["summary"])
    assert "at most 80.0 % of a group share one" in summary and "does not reveal" not in summary
    with using("fr"):
        assert "80,0" in " ".join(build_report(table, result)["summary"])


def test_finding_4_one_definition_of_a_group(stays: Table) -> None:
    """With suppressed records masked, the report's figures, its risk table and the risk assessment count
    the same groups: the suppressed records belong to none."""
    result = get_algorithm("optimal", suppression_limit=0.1).run(stays, _config(stays, k=8))
    assert result.suppressed > 0
    report = build_report(stays, result)
    groups = report["facts"]["release"]["classes"]
    assert groups == result.n_classes == report["result"]["classes"]
    assert compare(stays, result).after.figures.classes == groups
    assert report["risk"]["after"]["classes"] == groups
    html = render_html(report)
    assert html.count(f">{groups}</td>") >= 2  # the result and the risk tables


def test_finding_5_advice_never_names_the_setting_in_use(stays: Table) -> None:
    config = _config(stays, k=5, sensitive="diagnosis", l=3)
    for metric, said in (("loss", False), ("dm", True)):
        result = get_algorithm("optimal", metric=metric, suppression_limit=0.0).run(stays, config)
        text = " ".join(i.message for i in result_warnings(result))
        assert "generalized to its top level" in text  # the walk's case: a column lost to '*'
        assert ("the Loss metric" in text) is said, text


def test_finding_6_postcodes_mask_as_postcodes() -> None:
    values = pd.Series(["69001", "06400", "69003", "inconnu", None, "69001"] * 3)
    h = masking_hierarchy("cp", values)
    labels = {str(v) for j in range(1, h.depth) for v in h.matrix[:, j]}
    assert "069**" not in labels and "064**" in labels and "inconn*" not in labels
    assert not any(len(v) > 5 for v in labels if v not in ("*", "(missing)"))
    assert len({tuple(h.matrix[:, j]) for j in range(h.depth)}) == h.depth


def test_finding_7_french_numbers_are_numbers_and_a_bad_decimal_column_is_refused() -> None:
    column = pd.Series(["1 234,50", "12,5", "3\u202f001,00", "7,25", None])
    found = detect_column(column, "Coût (€)")
    assert found.kind == ColumnKind.DECIMAL and found.share == 1.0
    assert list(parse_numbers(column, found.number_format)[:4]) == [1234.5, 12.5, 3001.0, 7.25]
    frame = pd.DataFrame({"cost": ["12,5", "n/a", "7", "abc"], "x": list("abcd")})
    table = Table.from_frame(frame)
    with pytest.raises(DataError) as err:
        apply_type_overrides(table, {"cost": ("decimal", None)})
    assert "decimal numbers, but 2 of its 4 values are not one, the first 'n/a' on line 3" in str(err.value)


def test_the_walk_through_the_command_line(tmp_path: Path) -> None:
    """The steward's two runs, CLI and French report: local recoding k=5, then optimal with distinct
    3-diversity and shuffled rows; each JSON's facts match the file written."""
    data = tmp_path / "sejours.csv"
    hospital(800, seed=9).to_csv(data, index=False, sep=";", lineterminator="\r\n", encoding="utf-8-sig")
    base = ["anonymize", str(data), "--identifier", "stay", "--qi", ",".join(QI), "--sensitive", "diagnosis"]
    for name, flags in (
        ("lr", ["--algorithm", "local-recoding", "--k", "5"]),
        ("opt", ["--algorithm", "optimal", "--k", "5", "--l", "3", "--shuffle", "11"]),
    ):
        out, rep, html = tmp_path / f"{name}.csv", tmp_path / f"{name}.json", tmp_path / f"{name}.html"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            argv = [*base, *flags, "--output", str(out), "--report", str(rep), "--report-html", str(html)]
            assert main([*argv, "--language", "fr"]) == 0
        facts = json.loads(rep.read_text(encoding="utf-8"))["facts"]["release"]
        file = pd.read_csv(out, dtype=str, keep_default_na=False)
        assert facts["star_cells"] == int((file[list(QI)] == "*").to_numpy().sum())
        assert facts["row_order"] == ("shuffled" if name == "opt" else "input")
        order = "mélangé (" if name == "opt" else "comme dans l&#39;entrée"
        assert order in html.read_text(encoding="utf-8")
        assert np.isfinite(facts["risk"]["prosecutor_highest"])


def test_finding_7_mondrian_cuts_french_decimals_as_numbers(tmp_path: Path) -> None:
    """Weights written "67,6" are numbers to Mondrian: its ranges keep the file's own text as bounds."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {
            "poids": [f"{x:.1f}".replace(".", ",") for x in rng.normal(72, 12, 300)],
            "sexe": rng.choice(["F", "M"], 300),
            "diagnostic": rng.choice(["I10", "E11", "J45"], 300),
        }
    )
    data, out, rep = tmp_path / "d.csv", tmp_path / "r.csv", tmp_path / "r.json"
    frame.to_csv(data, index=False, sep=";")
    argv = ["anonymize", str(data), "--qi", "poids,sexe", "--k", "5", "--algorithm", "mondrian"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main([*argv, "--output", str(out), "--report", str(rep)]) == 0
    released = pd.read_csv(out, dtype=str, keep_default_na=False)["poids"]
    assert released.str.fullmatch(r"\[\d+,\d-\d+,\d\]|\d+,\d").all()  # ranges of numbers, or one number
    groups = json.loads(rep.read_text(encoding="utf-8"))["facts"]["release"]["classes"]
    assert groups > 10  # cut along the numbers, not one group of text-like values
