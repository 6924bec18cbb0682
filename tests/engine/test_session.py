"""The one door (:mod:`kanon_engine.session`): what the workbench and the command line both call.

A lattice node is applied with the run's own settings, Datafly's default allowance taken from Datafly
itself; an export checks every output before it writes one and its JSON summary names the bytes it
wrote; the commands that read every record refuse a streamed table with one sentence, not a traceback.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from kanon_engine import session
from kanon_engine.algorithms import get_algorithm
from kanon_engine.cli import main
from kanon_engine.errors import KanonError
from kanon_engine.project.project_file import Project
from kanon_engine.release.export import ExportOptions
from kanon_engine.session.export import dumps


@pytest.fixture(scope="module")
def sample(sample_dir):
    project = Project.load(sample_dir / "sample_project.json")
    table, _warnings = project.load_table()
    return project, table


def test_a_node_keeps_the_runs_limit_and_datafly_its_own_allowance(sample):
    project, table = sample
    config = project.config(table)
    n = table.n_rows
    datafly = session.run(table, config, get_algorithm("datafly"))
    assert datafly.parameters["suppression_limit"] is None
    # Sweeney's original: up to k records, as Datafly.suppression_allowance says
    assert session.runs.node_suppression_limit(datafly, n) == config.k / n
    optimal = session.run(table, config, get_algorithm("optimal"))
    assert optimal.parameters["suppression_limit"] is None
    assert session.runs.node_suppression_limit(optimal, n) == 0.0
    limited = session.run(table, config, get_algorithm("optimal", suppression_limit=0.05))
    assert session.runs.node_suppression_limit(limited, n) == 0.05


def test_applying_the_runs_own_node_gives_its_release(sample):
    project, table = sample
    config = project.config(table)
    result = session.run(table, config, get_algorithm("datafly", suppression_limit=0.05))
    again = session.apply_node(result, table, result.transformation)
    assert again.transformation == result.transformation
    assert (again.suppressed, again.n_classes) == (result.suppressed, result.n_classes)
    assert again.release.equals(result.release)
    assert again.lattice is result.lattice  # the lattice view keeps showing the run's search


def test_an_export_checks_first_and_its_summary_names_what_it_wrote(sample, tmp_path):
    project, table = sample
    result = session.measure(session.run_project(project, table), table)
    assert result.workload is not None  # measured on the default workload: the rows are in memory
    clash = session.ExportPlan(tmp_path / "r.csv", ExportOptions(), report_json=tmp_path / "r.csv")
    with pytest.raises(KanonError):
        session.export(table, project, result, clash)
    assert not list(tmp_path.iterdir())  # nothing written
    plan = session.ExportPlan(tmp_path / "r.csv", ExportOptions(), report_json=tmp_path / "r.json")
    outcome = session.export(table, project, result, plan)
    assert outcome.written == (tmp_path / "r.csv", tmp_path / "r.json")
    summary = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert summary == json.loads(dumps(outcome.summary))  # the JSON report is the outcome's summary
    assert summary["release_sha256"] == hashlib.sha256((tmp_path / "r.csv").read_bytes()).hexdigest()
    assert summary["records"] == table.n_rows


@pytest.mark.parametrize(
    ("command", "what"),
    [(["risk"], "The risk assessment"), (["workload", "--anonymize"], "The workload's evaluation")],
)
def test_commands_reading_every_record_refuse_a_streamed_table(sample_dir, capsys, command, what):
    data = sample_dir / "sample_patients.csv"
    code = main([*command, str(data), "--qi", "age,sex", "--k", "2", "--engine", "duckdb"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{what} reads every record" in err and "--engine memory" in err
    assert "Traceback" not in err
