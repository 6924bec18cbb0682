"""A privacy model added from outside the engine appears everywhere, through the registry alone.

The toy model of tests/toy_model.py ("at most N groups in the release") is registered with the public
:func:`kanon_engine.privacy.register` and, with no other file changed, it is a CLI flag, round-trips
through the project file, is a field of the workbench's model form, is applied by a search (the release
satisfies it; the search's pruning agrees with a brute force over the lattice) and is described in the
report. It is unregistered afterwards, and then it is gone from the flags again.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the form part builds a Qt widget, off screen

from kanon_engine.algorithms import get_algorithm  # noqa: E402
from kanon_engine.algorithms.optimal import Optimal  # noqa: E402
from kanon_engine.cli import main  # noqa: E402
from kanon_engine.cli.flags import project_flags  # noqa: E402
from kanon_engine.core.encoding import encode_table  # noqa: E402
from kanon_engine.core.evaluation import NodeEvaluator, evaluator_context, suppression_allowance  # noqa: E402
from kanon_engine.core.lattice import Lattice  # noqa: E402
from kanon_engine.data.roles import Role  # noqa: E402
from kanon_engine.data.table import Table  # noqa: E402
from kanon_engine.errors import ConfigError  # noqa: E402
from kanon_engine.metrics.loss import get_metric  # noqa: E402
from kanon_engine.privacy import (  # noqa: E402
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    Requirement,
    TCloseness,
    applicability_problems,
    model_classes,
    model_from_dict,
    model_params,
    model_values_of,
    models_from_values,
    register,
    registry,  # noqa: E402
    unregister,
)
from kanon_engine.project.project_file import Project  # noqa: E402
from kanon_engine.project.validation import validate  # noqa: E402
from kanon_engine.report.describe import models_short  # noqa: E402
from tests.toy_model import AtMostGroups  # noqa: E402

QI = ("age", "sex", "zip")


@pytest.fixture
def toy():
    """The toy model, registered for one test only."""
    register(AtMostGroups)
    yield AtMostGroups
    unregister(AtMostGroups)


def _frame(n: int = 240, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(str),
            "sex": rng.choice(["female", "male"], n),
            "zip": rng.choice([f"{z:05d}" for z in range(13000, 13060, 3)], n),
            "diagnosis": rng.choice(["flu", "asthma", "diabetes", "ulcer"], n),
        }
    ).astype(object)


def _groups(release: pd.DataFrame) -> int:
    """Groups of the release: distinct quasi-identifier combinations, suppressed rows (all *) apart."""
    kept = release[~(release[list(QI)].astype(str) == "*").all(axis=1)]
    return len(kept.drop_duplicates(subset=list(QI)))


def _config(table: Table, models: tuple) -> object:
    project = Project(
        roles={q: Role.QUASI_IDENTIFIER for q in QI} | {"diagnosis": Role.SENSITIVE}, models=models
    )
    return project.config(table)


def test_the_registry_is_the_only_door(toy) -> None:
    assert model_classes()["at-most-groups"] is toy
    assert model_params()[-1].name == "max_groups"
    models = models_from_values({"k": 2, "max_groups": "3"})
    assert models == (KAnonymity(2), AtMostGroups(3))
    assert models_from_values({"k": 2}) == (KAnonymity(2),)  # empty: left out
    with pytest.raises(ConfigError, match="Most groups must be an integer of at least 1; got 0"):
        models_from_values({"k": 2, "max_groups": 0})
    with pytest.raises(ValueError, match="already"):  # a parameter name belongs to one family
        other_spec = dataclasses.replace(AtMostGroups.params[0])  # same name, another spec
        register(
            type("Clash", (AtMostGroups,), {"name": "clash", "family": "clash", "params": (other_spec,)})
        )
    with pytest.raises(ValueError, match="'k-anonymity' is KAnonymity's"):  # and a name to one model
        register(type("Impostor", (AtMostGroups,), {"name": "k-anonymity", "family": "at-most-groups"}))
    assert model_classes()["k-anonymity"] is KAnonymity


def test_it_is_a_cli_flag_and_gone_when_unregistered(toy, capsys) -> None:
    flag = next(f for f in project_flags() if f.option == "--max-groups")
    assert flag.field == "models.max_groups" and flag.spec is toy.params[0]
    with pytest.raises(SystemExit):
        main(["anonymize", "--help"])
    assert "--max-groups" in capsys.readouterr().out
    unregister(toy)
    assert not any(f.option == "--max-groups" for f in project_flags())


def test_a_search_applies_it(toy) -> None:
    """Optimal with the toy model: the release has at most N groups, fewer than without it, and the
    node chosen is the best of every node a brute force finds satisfying both models (the toy is not
    monotone with suppression, so the search must not prune by it)."""
    table = Table.from_frame(_frame())
    free = Optimal(suppression_limit=0.05).run(table, _config(table, (KAnonymity(2),)))
    assert _groups(free.release) > 4
    config = _config(table, (KAnonymity(2), AtMostGroups(4)))
    result = Optimal(suppression_limit=0.05).run(table, config)
    assert _groups(result.release) <= 4
    best = _brute_force(table, config, 0.05)
    chosen = tuple(result.transformation[q] for q in QI)
    assert chosen in best


def _brute_force(table: Table, config, limit: float) -> set[tuple[int, ...]]:
    """The nodes of least loss among all nodes satisfying the models, checked one by one."""
    enc = encode_table(table, list(QI), dict(config.hierarchies), list(config.sensitive))
    evaluator = NodeEvaluator(
        enc, config.models, suppression_allowance(enc.n_rows, limit), suppressed_group_k=2
    )
    metric, ctx = get_metric("loss"), evaluator_context(evaluator)
    values = {}
    for levels in Lattice([h.height for h in enc.hierarchies]).levels:
        ev = evaluator.evaluate(tuple(int(x) for x in levels), complete=True)
        if ev.satisfies:
            values[tuple(int(x) for x in levels)] = float(metric.value(ev, ctx))
    least = min(values.values())
    return {node for node, value in values.items() if np.isclose(value, least)}


def test_it_round_trips_through_the_cli_the_project_file_and_the_report(toy, tmp_path: Path) -> None:
    data = tmp_path / "patients.csv"
    _frame().to_csv(data, index=False)
    out, project_file, html, report = (tmp_path / n for n in ("out.csv", "p.json", "r.html", "r.json"))
    code = main(
        ["anonymize", str(data), "--qi", ",".join(QI), "--sensitive", "diagnosis", "--k", "2",
         "--max-groups", "3", "--algorithm", "optimal", "--suppression-limit", "0.05",
         "--output", str(out), "--save-project", str(project_file), "--report-html", str(html),
         "--report", str(report)]
    )  # fmt: skip
    assert code == 0
    assert _groups(pd.read_csv(out, dtype=str)) <= 3
    # the project file holds the model as data, and reads back to the same models
    stored = json.loads(project_file.read_text(encoding="utf-8"))["models"]
    assert {"name": "at-most-groups", "max_groups": 3} in stored
    loaded = Project.load(project_file)
    assert AtMostGroups(3) in loaded.models
    assert Project.from_dict(loaded.to_dict(tmp_path), tmp_path).models == loaded.models
    # ... and a later run from the project keeps it (flags override only what they give)
    again = tmp_path / "again.csv"
    assert main(["anonymize", "--project", str(project_file), "--k", "3", "--output", str(again)]) == 0
    assert _groups(pd.read_csv(again, dtype=str)) <= 3
    # the report says it, in the model's own words
    sentence = AtMostGroups(3).describe()
    assert sentence in html.read_text(encoding="utf-8")
    assert {"name": "at-most-groups", "max_groups": 3} in json.loads(report.read_text())["models"]


def test_algorithms_that_cannot_apply_it_refuse_it(toy) -> None:
    """Mondrian judges cuts class by class: it refuses a model that judges the release as a whole, in
    validation and again when run."""
    table = Table.from_frame(_frame())
    project = Project(
        roles={q: Role.QUASI_IDENTIFIER for q in QI},
        models=(KAnonymity(2), AtMostGroups(3)),
        algorithm="mondrian",
    )
    errors = [i.message for i in validate(project, table) if i.is_error]
    assert any("judges the release as a whole" in e and "Mondrian" in e for e in errors), errors
    with pytest.raises(ConfigError, match="judges the release as a whole"):
        get_algorithm("mondrian").run(table, project.config(table))
    with pytest.raises(ConfigError, match="judges the release as a whole"):
        get_algorithm("optimal", suppress="cells").run(table, project.config(table))


def test_a_requirement_the_engine_does_not_count_is_refused(monkeypatch) -> None:
    """A model declaring a count the engine does not supply is refused in one sentence (every
    requirement is counted since issues 31 and 33: an engine without the population is simulated)."""
    monkeypatch.setattr(registry, "SUPPLIED", registry.SUPPLIED - {Requirement.POPULATION})

    class PerPopulation(AtMostGroups):
        requires = frozenset({Requirement.POPULATION})

    problems = applicability_problems([PerPopulation(3)], Optimal())
    assert problems == [
        "at most N groups needs the population the data were drawn from, which this version of kanon "
        "cannot count yet."
    ]


def test_it_is_a_field_of_the_workbench_form(toy, qtbot) -> None:
    pytest.importorskip("PySide6")
    from kanon_gui.state import AppState
    from kanon_gui.views.algorithm_panel import AlgorithmPanel

    state = AppState()
    state.set_table(Table.from_frame(_frame()))
    state.set_roles({q: Role.QUASI_IDENTIFIER for q in QI})
    panel = AlgorithmPanel(state)
    qtbot.addWidget(panel)
    form = panel.model_form
    assert "max_groups" in form.fields
    assert form.rows["max_groups"].isVisibleTo(panel)
    form.set_value("max_groups", "3")
    assert AtMostGroups(3) in state.project.models
    form.set_value("max_groups", "0")  # the spec's sentence under the field, and Run is blocked
    assert form.errors["max_groups"].text() == "Most groups must be an integer of at least 1; got 0."
    assert state.run_blocker() is not None
    form.set_value("max_groups", "")
    assert not any(isinstance(m, AtMostGroups) for m in state.project.models)


@pytest.mark.parametrize(
    ("model", "short"),
    [
        (DistinctLDiversity(3, "d"), "distinct l = 3 on d"),
        (EntropyLDiversity(2.5, "d"), "entropy l = 2.5 on d"),
        (RecursiveCLDiversity(3, 2, "d"), "recursive (c = 3, l = 2) on d"),
        (TCloseness(0.2, "d", "hierarchical"), "t = 0.2 on d (along the hierarchy)"),
    ],
)
def test_the_built_in_models_go_through_the_same_door(model, short) -> None:
    """Form values, project-file dict and short words of each shipped model, through the registry."""
    models = (KAnonymity(4), model)
    values = model_values_of(models)
    assert values["sensitive"] == "d" and values["k"] == 4
    assert models_from_values(values) == models
    assert model_from_dict(model.to_dict()) == model
    assert models_short(models) == f"k = 4; {short}"
