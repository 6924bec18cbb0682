"""The command line's project flags, walked row by row over the one table that maps each flag to its
project-file field (kanon_engine.cli.flags.project_flags): every flag exists, parses, lands in the
project file, loads back the same, and overrides a project in both directions. Algorithms registered
later get their flags from their ParamSpecs, with nothing else to write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from kanon_engine.algorithms import algorithms
from kanon_engine.cli import build_parser, main
from kanon_engine.cli.flags import ProjectFlag, get_field, project_and_table, project_flags
from kanon_engine.config import ParamSpec
from kanon_engine.project.project_file import Project
from tests.engine.test_algorithms import _Declared  # a toy algorithm that only declares its params

ROWS = 40


@pytest.fixture
def data(tmp_path: Path) -> Path:
    frame = pd.DataFrame(
        {
            "id": [f"P{i:03d}" for i in range(ROWS)],
            "name": [f"N{i}" for i in range(ROWS)],
            "age": [str(20 + i % 8) for i in range(ROWS - 1)] + ["99"],  # one record alone in its class
            "sex": ["F", "M"] * (ROWS // 2),
            "diag": ["flu", "cold", "asthma", "gout"] * (ROWS // 4),
            "ward": ["A", "B", "C", "D", "E"] * (ROWS // 5),
        }
    )
    path = tmp_path / "data.csv"
    frame.to_csv(path, sep=";", index=False)
    (tmp_path / "age.csv").write_text(
        "".join(f"{a};{a // 4 * 4}-{a // 4 * 4 + 3};*\n" for a in range(20, 28))
    )
    pd.DataFrame({"id": [f"P{i:03d}" for i in range(ROWS)], "birth": ["1970"] * ROWS}).to_csv(
        tmp_path / "patients.csv", sep=";", index=False
    )
    (tmp_path / "w.txt").write_text("COUNT(*) WHERE age >= 22 AND sex = 'F'\n")
    return path


BASE = ["--qi", "age,sex", "--identifier", "id", "--sensitive", "diag,ward", "--protect", "diag"]


def sample(flag: ProjectFlag, data: Path) -> tuple[list[str], Any]:
    """Command-line words that set ``flag`` to a value other than its default, and that value as the
    project file keeps it; companions set what the flag needs to matter (l for its variant, ...)."""
    spec = flag.spec
    if flag.option == "INPUT":
        return [str(data)], data.resolve()
    words = {
        "--delimiter": (["--delimiter", ";"], ";"),
        "--identifier": (["--identifier", "id,name"], ["id", "name"]),
        "--qi": (["--qi", "sex"], ["sex"]),
        "--sensitive": (["--sensitive", "diag", "--protect", "diag"], ["diag"]),
        "--hierarchy": (
            ["--hierarchy", f"age={data.parent / 'age.csv'}"],
            {"age": str(data.parent / "age.csv")},
        ),
        "--protect": (["--protect", "ward", "--l", "2"], "ward"),
        "--column-type": (["--column-type", "ward=text"], {"ward": ("categorical", None)}),
        "--algorithm": (["--algorithm", "datafly"], "datafly"),
        "--param": (["--algorithm", "mondrian", "--param", "summary=mean"], "mean"),
        "--external": (
            ["--external", str(data.parent / "voters.csv")],
            (data.parent / "voters.csv").resolve(),
        ),
        "--join": (
            [
                "--external",
                str(data.parent / "voters.csv"),
                "--join",
                "age=Alter",
                "--join",
                "sex=Geschlecht",
            ],
            {"age": "Alter", "sex": "Geschlecht"},
        ),
        "--purpose": (["--purpose", "Study of hospital stays, 2024"], "Study of hospital stays, 2024"),
        "--recipient": (
            ["--recipient", "Dr. Ana Ruiz, Institut für Statistik"],
            "Dr. Ana Ruiz, Institut für Statistik",
        ),
        "--approved-by": (
            ["--approved-by", "M. Keller, data protection officer"],
            "M. Keller, data protection officer",
        ),
        "--workload": (["--workload", str(data.parent / "w.txt")], str(data.parent / "w.txt")),
        "--person": (["--person", "id", "--identifier", "name"], ["id"]),
        "--delta-presence": (["--delta-presence", "0,0.5", "--research-subset", "ward"], "0,0.5"),
        "--research-subset": (["--research-subset", "ward", "--delta-presence", "0,0.5"], "ward"),
        "--join-table": (  # what --join FILE ON COLUMN is read as
            ["--join-table", str(data.parent / "patients.csv"), "id", "--identifier", "name"],
            [[str(data.parent / "patients.csv"), "id"]],
        ),
    }
    if flag.option in words:
        return words[flag.option]
    assert spec is not None, f"{flag.option} has no spec and no sample"
    value = _other_value(spec)
    # a yes/no flag whose default is yes is set the other way by its opposite (--no-x)
    text = [flag.off if spec.default else flag.option] if spec.kind == "bool" else [flag.option, str(value)]
    return text + _companions(flag, spec), value


def _other_value(spec: ParamSpec) -> Any:
    if spec.kind == "bool":
        return not spec.default
    if spec.kind == "choice":
        return next(c for c in spec.choices if c != spec.default)
    if spec.kind == "columns":
        return "sex,age"
    if spec.presets:
        return next(p for p in reversed(spec.presets) if p != spec.default)
    if spec.kind in ("text", "column"):
        return f"{spec.name}-x"
    low = spec.minimum if spec.minimum is not None else 0
    return low + (3 if spec.kind == "int" else 0.5)


def _companions(flag: ProjectFlag, spec: ParamSpec) -> list[str]:
    group = flag.field.partition(".")[0]
    if group == "algorithm":  # an algorithm that takes the parameter
        name = next(n for n, cls in algorithms().items() if spec in cls.params)
        return ["--algorithm", name]
    return {
        "l_variant": ["--l", "2"],
        "c": ["--l", "2", "--l-variant", "recursive"],
        "t_distance": ["--t", "0.3"],
        "dp_delta": ["--dp-epsilon", "1"],
        "dp_search_budget": ["--dp-epsilon", "1"],
        "dp_levels": ["--dp-epsilon", "1"],
        "person_knows": ["--person", "id", "--identifier", "name"],
        "person_blanks": ["--person", "id", "--identifier", "name"],
        # the risk models (issue 31): the model a setting belongs to, and the population it needs
        "highest_risk": ["--average-risk", "0.05"],
        "records_at_risk": ["--average-risk", "0.05", "--highest-risk", "0.2"],
        "population_uniqueness": ["--population-size", "100000"],
        "population_model": ["--population-uniqueness", "0.01", "--population-size", "100000"],
        "population_size": ["--population-uniqueness", "0.01"],
        "k_map": ["--population-size", "100000"],
        "population_table": ["--k-map", "3"],
        "k_map_estimator": ["--k-map", "3", "--population-size", "100000"],
        "k_map_significance": ["--k-map", "3", "--population-size", "100000"],
        "beta_variant": ["--beta", "1.0"],
        "publisher_benefit": ["--profitability", "prosecutor"],
        "publisher_loss": ["--profitability", "prosecutor"],
        "adversary_gain": ["--profitability", "prosecutor"],
        "adversary_cost": ["--profitability", "prosecutor"],
    }.get(spec.name, [])


#: a model's required input is cleared together with the model (alone it would leave the model invalid)
_CLEARED_WITH = {
    "population_size": ["--population-uniqueness", "none"],
    "population_table": ["--k-map", "none"],
    "research_subset": ["--delta-presence", "none"],
}


def project_of(argv: list[str], command: str = "anonymize") -> Project:
    args = build_parser().parse_args([command, *argv])
    return project_and_table(args)[0]


def round_trip(project: Project, path: Path) -> Project:
    project.save(path)
    return Project.load(path)


def rows(algorithm_choice: bool = True) -> list[ProjectFlag]:
    return list(project_flags(algorithm_choice))


@pytest.mark.parametrize("flag", rows(), ids=lambda f: f.option)
def test_every_flag_parses_lands_in_the_project_file_and_loads_back(flag: ProjectFlag, data: Path, tmp_path):
    words, expected = sample(flag, data)
    inputs = [] if flag.option == "INPUT" else [str(data)]
    project = project_of([*inputs, *BASE, *words])
    loaded = round_trip(project, tmp_path / "p.json")
    field = "algorithm.summary" if flag.option == "--param" else flag.field
    got = get_field(loaded, field)
    if isinstance(expected, Path):
        got = Path(got).resolve()
    assert got == expected, f"{flag.option} -> {field}: {got!r} != {expected!r}"
    assert get_field(project, field) == get_field(loaded, field) or isinstance(expected, Path)


@pytest.mark.parametrize("flag", [f for f in rows() if f.spec is not None], ids=lambda f: f.option)
def test_every_setting_can_be_overridden_back(flag: ProjectFlag, data: Path, tmp_path):
    """A project that holds the other value is brought back by a flag: the opposite switch
    (--keep-suppressed, --no-shuffle, --no-x), 'none' for a setting that may be empty, or the default."""
    spec = flag.spec
    words, value = sample(flag, data)
    saved = tmp_path / "p.json"
    round_trip(project_of([str(data), *BASE, *words]), saved)
    if spec.kind == "bool":
        back, expected = [flag.option if spec.default else flag.off], spec.default
    elif flag.off is not None:
        back, expected = [flag.off], None
    elif spec.default is None:
        back, expected = [flag.option, "none", *_CLEARED_WITH.get(spec.name, [])], None
    else:
        back, expected = [flag.option, str(spec.default)], spec.default
    project = project_of(["--project", str(saved), *back])
    assert get_field(round_trip(project, tmp_path / "q.json"), flag.field) == expected != value


def test_every_flag_is_in_the_help(capsys):
    for command in ("anonymize", "risk"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        for flag in rows():
            assert (flag.option if flag.option != "INPUT" else "INPUT") in text, (command, flag.option)
            assert flag.off is None or flag.off in text


def test_apply_has_the_full_domain_flags_only():
    options = {f.option for f in rows(algorithm_choice=False)}
    assert {
        "--k",
        "--l",
        "--t",
        "--suppression-limit",
        "--metric",
        "--keep-suppressed".replace("keep", "drop"),
    } <= options
    assert not {"--algorithm", "--param", "--summary"} & options


def test_an_algorithm_registered_later_gets_its_flags(data: Path, monkeypatch: pytest.MonkeyPatch):
    import kanon_engine.algorithms as registry

    monkeypatch.setitem(registry._REGISTRY, _Declared.name, _Declared)
    project = project_of([str(data), *BASE, "--algorithm", _Declared.name, "--rounds", "5", "--careful-mode"])
    assert project.algorithm_params == {"rounds": 5, "careful_mode": True}
    with pytest.raises(Exception, match="Rounds must be an integer of at least 1; got 0"):
        project_of([str(data), *BASE, "--algorithm", _Declared.name, "--rounds", "0"])


# --- the bugs the table fixes, end to end ----------------------------------------------------------------
def run(capsys, *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_algorithms_lists_the_flags_anonymize_takes(capsys, data: Path, tmp_path: Path):
    code, out, _ = run(capsys, "algorithms", "-v")
    assert code == 0 and "--summary" in out
    release = tmp_path / "r.csv"
    code, out, err = run(capsys, "anonymize", data, *BASE, "--k", "4", "--algorithm", "mondrian",
                         "--summary", "mean", "--output", release)  # fmt: skip
    assert code == 0, err
    assert "age_mean" in pd.read_csv(release, dtype=str).columns


def test_delimiter_overrides_the_projects(capsys, data: Path, tmp_path: Path):
    saved = tmp_path / "p.json"
    round_trip(project_of([str(data), *BASE, "--delimiter", ";"]), saved)
    doc = json.loads(saved.read_text())
    doc["data"]["delimiter"] = ","  # the project reads the file wrongly ...
    saved.write_text(json.dumps(doc))
    code, _, err = run(capsys, "anonymize", "--project", saved, "--k", "4", "--output", tmp_path / "r.csv")
    assert code == 2 and "delimiter" in err  # ... and says so
    code, _, err = run(capsys, "anonymize", "--project", saved, "--delimiter", ";", "--k", "4",
                       "--output", tmp_path / "r.csv")  # fmt: skip
    assert code == 0, err  # ... and --delimiter puts it right


def test_keep_suppressed_overrides_a_project_that_drops(capsys, data: Path, tmp_path: Path):
    saved = tmp_path / "p.json"
    round_trip(project_of([str(data), *BASE, "--drop-suppressed", "--suppression-limit", "0.2"]), saved)
    assert Project.load(saved).drop_suppressed
    # kept, the suppressed records form a group of at least k (Datafly's step 4): 1 + 3 more
    for flags, suppressed, kept in (([], 1, ROWS - 1), (["--keep-suppressed"], 4, ROWS)):
        out = tmp_path / "r.csv"
        code, stdout, err = run(capsys, "apply", "--project", saved, "--levels", "age=0,sex=0", "--k", "4",
                                "--output", out, *flags)  # fmt: skip
        assert code == 0, err
        assert json.loads(stdout)["suppressed"] == suppressed
        assert len(pd.read_csv(out, sep=",", dtype=str)) == kept


def test_a_column_in_two_role_flags_is_refused(data: Path):
    with pytest.raises(
        Exception, match="'diag' is given both as an identifier .* and as a sensitive attribute"
    ):
        project_of([str(data), *BASE, "--identifier", "id,diag"])


def test_apply_uses_the_projects_metric_and_limit(capsys, data: Path, tmp_path: Path):
    saved = tmp_path / "p.json"
    round_trip(project_of([str(data), *BASE, "--metric", "precision", "--suppression-limit", "0"]), saved)
    report = tmp_path / "r.json"
    code, _, err = run(capsys, "apply", "--project", saved, "--levels", "age=0,sex=0", "--report", report)
    assert code == 0, err
    assert json.loads(report.read_text())["parameters"]["metric"] == "precision"
    code, _, err = run(capsys, "apply", "--project", saved, "--levels", "age=0,sex=0", "--k", "30")
    assert code == 3 and "at most 0 suppressed" not in err and "suppression limit allows" in err


def test_save_project_keeps_what_the_run_used(capsys, data: Path, tmp_path: Path):
    saved = tmp_path / "used.kanon.json"
    code, _, err = run(capsys, "anonymize", data, *BASE, "--k", "4", "--algorithm", "datafly",
                       "--suppression-limit", "0.1", "--save-project", saved)  # fmt: skip
    assert code == 0, err
    project = Project.load(saved)
    assert project.algorithm == "datafly" and project.algorithm_params["suppression_limit"] == 0.1
    assert get_field(project, "models.k") == 4 and get_field(project, "roles.quasi-identifier") == [
        "age",
        "sex",
    ]


def test_a_typed_flag_the_algorithm_does_not_take_is_ignored_aloud(capsys, data: Path):
    code, _, err = run(capsys, "anonymize", data, *BASE, "--k", "4", "--algorithm", "mondrian",
                       "--suppression-limit", "0.1")  # fmt: skip
    assert code == 0 and "warning: --suppression-limit does not apply to mondrian; ignored." in err
