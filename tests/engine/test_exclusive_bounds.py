"""A setting whose model refuses its lowest value (a risk of 0, an epsilon of 0) says so wherever it is
offered: the CLI's help and the form's sentence say "above 0", and the lowest value is refused in the very
same sentence by the CLI flag, by a project file and by the workbench form's validation (rough41, item 1).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from kanon_engine.cli import main
from kanon_engine.cli.flags import project_flags
from kanon_engine.errors import ConfigError, KanonError
from kanon_engine.params import ParamSpec
from kanon_engine.privacy.average_risk import AVERAGE_RISK, AverageRisk
from kanon_engine.privacy.differential_privacy import DP_DELTA, DifferentialPrivacy
from kanon_engine.project.project_file import Project


@dataclass(frozen=True)
class Bounded:
    """One setting with an exclusive lower bound: its flag, the value refused, the model a project file
    names it in, the flags it needs beside it, the words of its range and the refusal expected."""

    name: str
    refused: str
    model: dict[str, Any]
    range_words: str
    sentence: str
    needs: list[str] = field(default_factory=list)


_RISK = "must be a number above 0 and at most 1; got 0."
_SHARE = "must be a share above 0 % and at most 100 % (such as 5 %, 5% or 0.05); got 0."
_SHARE_WORDS = "a share above 0 and at most 1, or a percentage such as 5%"
CASES = [
    Bounded(
        "average_risk",
        "0",
        {"name": "average-risk", "average_risk": 0},
        "a number above 0 and at most 1",
        f"Average risk {_RISK}",
    ),
    Bounded(
        "highest_risk",
        "0",
        {"name": "average-risk", "average_risk": 0.05, "highest_risk": 0},
        "a number above 0 and at most 1",
        f"Highest risk {_RISK}",
        ["--average-risk", "0.05"],
    ),
    Bounded(
        "sample_uniqueness",
        "0",
        {"name": "sample-uniqueness", "sample_uniqueness": 0},
        _SHARE_WORDS,
        f"Sample uniqueness {_SHARE}",
    ),
    Bounded(
        "population_uniqueness",
        "0",
        {"name": "population-uniqueness", "population_uniqueness": 0, "population_size": 100_000},
        _SHARE_WORDS,
        f"Population uniqueness {_SHARE}",
        ["--population-size", "100000"],
    ),
    Bounded(
        "t",
        "0",
        {"name": "t-closeness", "t": 0, "sensitive": "diagnosis"},
        "a number above 0 and at most 1",
        f"t {_RISK}",
    ),
    Bounded(
        "delta_disclosure",
        "0",
        {"name": "delta-disclosure", "delta_disclosure": 0, "sensitive": "diagnosis"},
        "a number above 0",
        "delta (delta-disclosure) must be a number above 0; got 0.",
    ),
    Bounded(
        "beta",
        "0",
        {"name": "beta-likeness", "beta": 0, "sensitive": "diagnosis"},
        "a number above 0",
        "beta (beta-likeness) must be a number above 0; got 0.",
    ),
    Bounded(
        "l",
        "1",
        {"name": "entropy-l-diversity", "l": 1, "sensitive": "diagnosis"},
        "a number above 1",
        "l must be a number above 1; got 1.",
        ["--l-variant", "entropy"],
    ),
    Bounded(
        "c",
        "0",
        {"name": "recursive-cl-diversity", "l": 2, "c": 0, "sensitive": "diagnosis"},
        "a number above 0",
        "c (recursive l-diversity) must be a number above 0; got 0.",
        ["--l", "2", "--l-variant", "recursive"],
    ),
    Bounded(
        "dp_epsilon",
        "0",
        {"name": "differential-privacy", "dp_epsilon": 0},
        "a number above 0",
        "Differential privacy: epsilon must be a number above 0; got 0.",
    ),
    Bounded(
        "dp_delta",
        "0",
        {"name": "differential-privacy", "dp_epsilon": 1, "dp_delta": 0},
        "a number above 0 and below 1",
        "Differential privacy: delta must be a number above 0 and below 1; got 0.",
        ["--dp-epsilon", "1"],
    ),
]


def _flag(name: str):
    return next(f for f in project_flags() if f.spec is not None and f.spec.name == name)


def _ids(case: Bounded) -> str:
    return case.name


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_the_cli_help_says_the_range_the_model_takes(case: Bounded) -> None:
    words = _flag(case.name).help
    assert f"({case.range_words}" in words, words
    assert ">=" not in words and "<=" not in words


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_the_cli_flag_refuses_the_lowest_value_in_the_models_sentence(
    case: Bounded, sample_dir, tmp_path, capsys
) -> None:
    option = _flag(case.name).option
    args = [
        "anonymize",
        "--project",
        str(sample_dir / "sample_project.json"),
        "--output",
        str(tmp_path / "o.csv"),
    ]
    assert main([*args, *case.needs, option, case.refused]) == 2
    err = capsys.readouterr().err
    assert f"{option}: {case.sentence}" in err, err
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_a_project_file_refuses_the_lowest_value_in_the_same_sentence(
    case: Bounded, sample_dir, tmp_path
) -> None:
    data = json.loads((sample_dir / "sample_project.json").read_text(encoding="utf-8"))
    data["models"] = [{"name": "k-anonymity", "k": 2}, case.model]
    data["data"]["path"] = str(sample_dir / data["data"]["path"])
    for spec in data["hierarchies"].values():  # the sample's files, beside the sample
        spec["file"] = str(sample_dir / spec["file"])
    path = tmp_path / "p.kanon.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(KanonError) as refused:
        Project.load(path)
    assert case.sentence in str(refused.value)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_the_form_refuses_the_lowest_value_in_the_same_sentence(case: Bounded, qtbot) -> None:
    pytest.importorskip("PySide6")
    from kanon_gui.state import AppState
    from kanon_gui.views.algorithm_panel import AlgorithmPanel

    panel = AlgorithmPanel(AppState())
    qtbot.addWidget(panel)
    form = panel.model_form
    form.set_value(case.name, case.refused)
    assert form.errors[case.name].text() == case.sentence
    assert not form.validate()


def test_only_the_bound_itself_is_refused() -> None:
    """Just inside an exclusive bound is taken, by the spec and by the model alike; the bound is not."""
    assert AVERAGE_RISK.coerce("0,000001") == 1e-6 and AverageRisk(1e-6).average_risk == 1e-6
    assert AVERAGE_RISK.coerce("1") == 1.0 and AverageRisk(1).average_risk == 1.0
    assert DP_DELTA.coerce("0.999") == 0.999 and DifferentialPrivacy(1.0, 0.999).dp_delta == 0.999
    for refused in ("1", "-0.1", "nan"):
        with pytest.raises(ConfigError, match="above 0 and below 1"):
            DP_DELTA.coerce(refused)
    with pytest.raises(ConfigError, match="above 0 and below 1; got 1."):
        DifferentialPrivacy(1.0, 1)
    with pytest.raises(ValueError, match="exclusive bound"):  # an integer says "at least 1", not "above 0"
        ParamSpec("n", "n", "int", None, "", minimum=0, above=True)
