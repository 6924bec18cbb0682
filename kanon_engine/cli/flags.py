"""The flags that set what a project file holds, and the ONE table that maps each flag to its field.

:func:`project_flags` is that table. Its rows come from the specs: one flag per
:class:`~kanon_engine.config.ParamSpec` of every registered privacy model
(:func:`kanon_engine.privacy.model_params`) and of every registered algorithm (both registries are walked
when the parser is built, so a model or an algorithm added later gets its flags for free), beside the
fixed flags for the data, the roles, the hierarchies and the output options.

A flag given on the command line overrides the project file (``--project``); a flag not given leaves
it alone. Every setting can be overridden in both directions: a switch has its opposite
(``--drop-suppressed`` / ``--keep-suppressed``, ``--shuffle SEED`` / ``--no-shuffle``, ``--x`` /
``--no-x`` for a yes/no parameter), and a setting that may be empty takes ``none`` (``--l none`` drops
l-diversity, ``--suppression-limit none`` removes the limit). Values are checked by their spec, so a bad
one gets the same sentence as in the workbench (``k must be an integer >= 2; got 1``).

Fields are named as in the project file (:meth:`~kanon_engine.project.project_file.Project.to_dict`):
``data.path``, ``data.delimiter``, ``roles.<role>``, ``hierarchies``, ``models.<form value>`` (the flat
values of :func:`~kanon_engine.privacy.model_values_of`: k, l, l_variant, c, t, t_distance, those of
any other registered model, and sensitive), ``algorithm.name``, ``algorithm.<parameter>``,
``output.drop_suppressed``, ``output.shuffle_seed``, ``output.report_language``, ``linkage.path``,
``linkage.join``, ``report.purpose``, ``report.recipient``, ``report.approved_by``. :func:`get_field`
reads one from a project; :func:`apply_flags` writes the given ones into a project.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kanon_engine.algorithms import algorithms
from kanon_engine.algorithms.base import Algorithm
from kanon_engine.algorithms.full_domain import FullDomainAlgorithm
from kanon_engine.cli.common import (
    PASSWORD_VARIABLE,
    check_outputs,
    delimiter,
    note_engine,
    pairs,
    split_list,
    warn,
)
from kanon_engine.config import ParamSpec
from kanon_engine.data.dates import check_dates, parse_column_type
from kanon_engine.data.join import JoinSpec
from kanon_engine.data.persons import PERSON_BLANKS, PERSON_KNOWS, knows_text, knows_value
from kanon_engine.data.roles import Role, merge_roles
from kanon_engine.data.table import ReadOptions, TableLike, loaded, require_mark_free
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy import read_arx_csv
from kanon_engine.i18n import N_, _, available_languages
from kanon_engine.privacy import model_params, model_values_of, models_from_values, wants_sensitive
from kanon_engine.project.project_file import Project
from kanon_engine.project.public_list import PublicList
from kanon_engine.sources import TableSource
from kanon_engine.sources.backends.choose import open_source, with_column_types
from kanon_engine.sources.backends.settings import ENGINE_PARAMS
from kanon_engine.workload.parser import parse_workload, read_workload_text

#: The word that empties a setting whose spec allows "nothing" (default None).
NONE_WORDS = ("none", "off")
#: The hidden flag ``--join FILE ON COLUMN`` is read as (:func:`join_words`).
JOIN_TABLE = "--join-table"


@dataclass(frozen=True)
class ProjectFlag:
    """One row of the table: the flag, the project-file field it sets, and how it reads its value.

    ``spec`` types and checks the value (None: a column list, a file or a name); ``off`` is the
    opposite flag of a switch; ``repeat``: the flag may be given several times (``COL=VALUE`` items).
    """

    option: str
    field: str
    help: str
    spec: ParamSpec | None = None
    off: str | None = None
    metavar: str | None = None
    repeat: bool = False

    @property
    def dest(self) -> str:
        return self.option.lstrip("-").replace("-", "_").lower()

    @property
    def switch(self) -> bool:
        """A yes/no flag (``--x`` / ``--no-x``)."""
        return self.spec is not None and self.spec.kind == "bool"


def _spec_flag(spec: ParamSpec, group: str) -> ProjectFlag:
    option = "--" + spec.name.replace("_", "-")
    # argparse formats help with %: a literal percent sign (a share written "5 %") is doubled
    words = f"{spec.help} ({_values_text(spec)})".replace("%", "%%")
    off = "--no-" + option[2:] if spec.kind == "bool" else None
    return ProjectFlag(option, f"{group}.{spec.name}", words, spec, off, _metavar(spec))


def _values_text(spec: ParamSpec) -> str:
    # what a text setting's value is (not "a number")
    text_values = {
        "scheduler": "an address such as tcp://HOST:8786, or a scheduler file",
        "memory_limit": "an amount such as 1GB or 512MB, at least 64MB",
        "temp_dir": "a folder",
    }
    if spec.percent:
        text = f"a share {_range_words(spec)}, or a percentage such as 5%"
    elif spec.kind == "choice":
        text = "one of " + ", ".join(spec.choices)
    elif spec.kind == "bool":
        text = "yes or no"
    elif spec.kind == "columns":
        text = "column names separated by commas"
    elif spec.kind == "text":
        text = text_values.get(spec.name, "text")
    elif spec.kind == "column":
        text = "a column name"
    else:
        text = "an integer" if spec.kind == "int" else "a number"
        words = _range_words(spec)
        text += f" {words}" if words else ""
    if spec.default is None and spec.kind != "bool":
        text += "; 'none' to leave it out"
    elif spec.optional:
        text += "; 'none' to leave it out when another model bounds re-identification"
    return text


def _range_words(spec: ParamSpec) -> str:
    """A number's range in the words of the spec's refusal (:data:`kanon_engine.params._RANGE_SENTENCES`):
    "from 0 to 1", "above 0 and at most 1", "of at least 2"; empty without bounds."""
    low_end, high_end = spec.range_ends()
    if (low_end, high_end) == ("least", "most"):
        return f"from {spec.minimum:g} to {spec.maximum:g}"
    words = {"least": "at least", "above": "above", "most": "at most", "below": "below"}
    ends = [f"{words[low_end]} {spec.minimum:g}"] if low_end else []
    ends += [f"{words[high_end]} {spec.maximum:g}"] if high_end else []
    text = " and ".join(ends)
    return f"of {text}" if text.startswith("at ") else text


def _metavar(spec: ParamSpec) -> str:
    metavars = {"int": "N", "float": "X", "choice": "NAME", "columns": "COLS", "column": "COL"}
    return metavars.get(spec.kind, spec.name.upper().replace("_", "-"))


def algorithm_specs(classes: list[type[Algorithm]] | None = None) -> list[ParamSpec]:
    """The ParamSpecs of every registered algorithm (or of ``classes``), each name once."""
    seen: dict[str, ParamSpec] = {}
    for cls in classes if classes is not None else algorithms().values():
        for spec in cls.params:
            seen.setdefault(spec.name, spec)
    return list(seen.values())


def _data_and_role_flags() -> tuple[ProjectFlag, ...]:
    """The rows of :func:`project_flags` for the data file, column types, roles and hierarchies."""
    return (
        ProjectFlag("INPUT", "data.path", "the table (CSV/TSV/XLSX/Parquet); default: the project's"),
        ProjectFlag(
            "--delimiter",
            "data.delimiter",
            "field delimiter of the table (detected when omitted; 'tab' for TSV)",
        ),
        ProjectFlag(
            "--identifier",
            "roles.identifier",
            "identifier columns (removed from the release), comma-separated",
            metavar="COLS",
        ),
        ProjectFlag("--qi", "roles.quasi-identifier", "quasi-identifiers, comma-separated", metavar="COLS"),
        ProjectFlag(
            "--sensitive", "roles.sensitive", "sensitive attributes, comma-separated", metavar="COLS"
        ),
        ProjectFlag(
            "--person",
            "roles.person",
            "the person column of a stay-level table (a patient number): k then counts distinct persons, "
            "not rows; removed from the release like an identifier",
            metavar="COLUMN",
        ),
        ProjectFlag(
            "--person-knows",
            "persons.knows",
            "how many different stays of one person an attacker may know: 1 (default), 2, 3 or all; every "
            "set of up to M released rows of a person is shared by at least k persons",
            PERSON_KNOWS,
            metavar="M",
        ),
        ProjectFlag(
            "--person-blanks",
            "persons.blanks",
            "a row without a person number: refuse (the default; the rows are named) or own (each such row "
            "is a person of its own)",
            PERSON_BLANKS,
            metavar="CHOICE",
        ),
        ProjectFlag(
            JOIN_TABLE,
            "data.join",
            "join a patient table onto the data on the patient key COLUMN (repeatable; also written --join "
            "FILE ON COLUMN): one row per stay, the key becomes the person column",
            metavar="FILE ON COLUMN",
            repeat=True,
        ),
        ProjectFlag(
            "--hierarchy",
            "hierarchies",
            "ARX hierarchy CSV of a column (repeatable)",
            metavar="COL=FILE",
            repeat=True,
        ),
        ProjectFlag(
            "--column-type",
            "data.column_types",
            "a column's type over the detected one: integer, decimal, text, or date with its format, "
            "e.g. birth=date:%%d.%%m.%%Y (repeatable)",
            metavar="COL=KIND[:FORMAT]",
            repeat=True,
        ),
    )


def _list_and_report_flags() -> tuple[ProjectFlag, ...]:
    """The public list of the linkage demonstration and its join, and the report's sign-off fields."""
    return (
        ProjectFlag(
            "--external",
            "linkage.path",
            "a public list (a voter register, a staff directory) joined with the data and the release to "
            "show the linkage attack (in the risk output and the reports)",
            metavar="FILE",
        ),
        ProjectFlag(
            "--join",
            "linkage.join",
            "join a quasi-identifier with a column of the public list named otherwise (repeatable; "
            "default: the same name, or the same kind of column such as PLZ and postcode). Written with "
            "three words, --join FILE ON COLUMN joins a patient table onto the data on the patient key "
            "(linked tables) and makes COLUMN the person column",
            metavar="COLUMN=LIST_COLUMN",
            repeat=True,
        ),
        ProjectFlag(
            "--purpose",
            "report.purpose",
            "the purpose of the release, for the report's sign-off",
            metavar="TEXT",
        ),
        ProjectFlag(
            "--recipient",
            "report.recipient",
            "who receives the release (person, institution), for the report's sign-off",
            metavar="TEXT",
        ),
        ProjectFlag(
            "--approved-by",
            "report.approved_by",
            "who approved the release (name, role), for the report's sign-off",
            metavar="NAME",
        ),
    )


def project_flags(algorithm_choice: bool = True) -> tuple[ProjectFlag, ...]:
    """THE table: every flag that sets a project-file field, and the field.

    ``algorithm_choice=False`` (``apply``: the levels are given, nothing is searched) leaves out
    ``--algorithm``, ``--param`` and the parameters only a search uses.
    """
    names = ", ".join(algorithms())
    specs = algorithm_specs() if algorithm_choice else list(FullDomainAlgorithm.params)
    return (
        *_data_and_role_flags(),
        *(_spec_flag(spec, "models") for spec in model_params()),
        ProjectFlag(
            "--protect",
            "models.sensitive",
            "the sensitive attribute the privacy models protect (l-diversity, t-closeness; needed when "
            "several are sensitive)",
            metavar="COLUMN",
        ),
        *(
            (ProjectFlag("--algorithm", "algorithm.name", f"the algorithm: {names}", metavar="NAME"),)
            if algorithm_choice
            else ()
        ),
        *(_spec_flag(spec, "algorithm") for spec in specs),
        *(
            (
                ProjectFlag(
                    "--param",
                    "algorithm",
                    "an algorithm parameter as NAME=VALUE (repeatable; each also has its own flag)",
                    metavar="NAME=VALUE",
                    repeat=True,
                ),
            )
            if algorithm_choice
            else ()
        ),
        *_output_flags(),
        *_list_and_report_flags(),
    )


def _output_flags() -> tuple[ProjectFlag, ...]:
    """The flags of the output options (suppressed records, row order, the report's language) and of the
    workload (fields ``output.*``, ``workload.file``)."""
    return (
        ProjectFlag(
            "--drop-suppressed",
            "output.drop_suppressed",
            "drop suppressed records instead of masking their quasi-identifiers with *",
            ParamSpec("drop_suppressed", N_("Drop suppressed records"), "bool", False, ""),
            off="--keep-suppressed",
        ),
        ProjectFlag(
            "--shuffle",
            "output.shuffle_seed",
            "shuffle the release's rows with this seed (--no-shuffle: keep the input's order)",
            ParamSpec("shuffle_seed", N_("Shuffle seed"), "int", None, "", minimum=0),
            off="--no-shuffle",
            metavar="SEED",
        ),
        *(_spec_flag(spec, "engine") for spec in ENGINE_PARAMS),
        ProjectFlag(
            "--protect-suppressed-group",
            "output.protect_suppressed_group",
            "the suppressed records kept in the release (all quasi-identifiers *) form a group of 0 or at "
            "least k records: Datafly's step 4, the default (--allow-small-suppressed-group: no such rule)",
            ParamSpec(
                "protect_suppressed_group", N_("Protect the group of suppressed records"), "bool", True, ""
            ),
            off="--allow-small-suppressed-group",
        ),
        ProjectFlag(
            "--suppression-mark",
            "output.suppression_mark",
            "what a suppressed value shows in the release (default '*'); choose another when a "
            "quasi-identifier holds '*' as a value",
            ParamSpec("suppression_mark", N_("Suppression mark"), "text", "*", ""),
            metavar="TEXT",
        ),
        ProjectFlag(
            "--language",
            "output.report_language",
            "the language of the HTML/PDF report and of this command's messages: "
            + ", ".join(available_languages())
            + " (default: the project's report language, else en)",
            ParamSpec(
                "report_language",
                N_("Report language"),
                "choice",
                None,
                "",
                choices=tuple(available_languages()),
            ),
            metavar="LANG",
        ),
        ProjectFlag(
            "--workload",
            "workload.file",
            "the analyses the release is meant for: a workload file, one aggregate query per line (see the "
            "README); its figures go in the reports, and workload_aware Mondrian cuts along it",
            off="--no-workload",
            metavar="FILE",
        ),
    )


# --- argparse --------------------------------------------------------------------------------------------
def add_project_flags(p: argparse.ArgumentParser, algorithm_choice: bool = True) -> None:
    """Add ``--project`` and every flag of :func:`project_flags` to a subcommand's parser (the table
    goes in ``args.flags``, for :func:`project_and_table`)."""
    flags = project_flags(algorithm_choice)
    p.set_defaults(flags=flags)
    p.add_argument("--project", help="a kanon project file (JSON) with roles, hierarchies and settings")
    for flag in flags:
        if flag.option == "INPUT":
            p.add_argument("input", nargs="?", metavar="INPUT", help=flag.help)
        elif flag.switch:
            assert flag.off is not None  # a switch has its off flag
            p.add_argument(flag.option, dest=flag.dest, action="store_true", default=None, help=flag.help)
            p.add_argument(flag.off, dest=flag.dest, action="store_false", default=None, help=_off_help(flag))
        elif flag.off is not None:
            p.add_argument(flag.option, dest=flag.dest, metavar=flag.metavar, help=flag.help)
            p.add_argument(flag.off, dest=flag.dest, action="store_const", const="none", help=_off_help(flag))
        elif flag.option == JOIN_TABLE:  # written --join FILE ON COLUMN (see join_words)
            p.add_argument(
                flag.option,
                dest=flag.dest,
                action="append",
                nargs=2,
                metavar=("FILE", "COLUMN"),
                help=flag.help,
            )
        else:
            action = "append" if flag.repeat else "store"
            p.add_argument(flag.option, dest=flag.dest, action=action, metavar=flag.metavar, help=flag.help)


def join_words(argv: list[str]) -> list[str]:
    """The command line with each ``--join FILE ON COLUMN`` (three words, the middle one ``ON`` in any
    case) written as the hidden ``--join-table FILE COLUMN``; every other ``--join`` (one word,
    ``COLUMN=LIST_COLUMN``) stays the linkage demonstration's. Two forms, one flag, never ambiguous: the
    word after the value decides."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--join" and i + 3 < len(argv) and argv[i + 2].upper() == "ON":
            out += [JOIN_TABLE, argv[i + 1], argv[i + 3]]
            i += 4
            continue
        out.append(argv[i])
        i += 1
    return out


def _off_help(flag: ProjectFlag) -> str:
    return f"the opposite of {flag.option} (overrides a project that sets it)"


def given(args: argparse.Namespace, flags: tuple[ProjectFlag, ...]) -> dict[str, tuple[ProjectFlag, Any]]:
    """The flags the command line gave, by field, with their values checked by their specs."""
    out: dict[str, tuple[ProjectFlag, Any]] = {}
    for flag in flags:
        raw = getattr(args, flag.dest, None)
        if raw is None:
            continue
        out[flag.field] = (flag, coerce(flag, raw))
    return out


def coerce(flag: ProjectFlag, raw: Any) -> Any:
    """A flag's value as its spec checks it (``none`` empties a setting that may be empty)."""
    spec = flag.spec
    if spec is None:
        return raw
    if isinstance(raw, str) and raw.strip().lower() in NONE_WORDS:
        if spec.default is None:
            return None
        if spec.optional:
            return "none"  # kept as the word: blank would mean the default (see ParamSpec.optional)
    try:
        return spec.coerce(raw)
    except ConfigError as exc:
        raise exc.prefixed(flag.option, where=flag.option) from None


# --- fields of a project ------------------------------------------------------------------------------
def get_field(project: Project, field: str) -> Any:
    """The value of a project-file field, as a flag sets it (the table's second column)."""
    group, _sep, key = field.partition(".")
    if group == "data":
        if key == "column_types":
            return dict(project.column_types)
        if key == "join":
            return [[str(j.path), j.on] for j in project.joins]
        return project.data_path if key == "path" else getattr(project.read_options, key)
    if group == "roles":
        return [c for c, r in project.roles.items() if r == Role(key)]
    if group == "hierarchies":
        return dict(project.hierarchy_files)
    if group == "models":
        return model_values_of(project.models)[key]
    if group == "algorithm":
        return project.algorithm if key == "name" else project.algorithm_params.get(key)
    if group == "engine":
        return getattr(project.engine, key)
    if group == "report":
        return getattr(project.report, key)
    if group == "linkage":
        public = project.public_list
        if public is None:
            return None if key == "path" else {}
        return public.path if key == "path" else dict(public.join)
    if group == "workload":
        return project.workload_file
    if group == "persons":
        return getattr(project, f"person_{key}")
    return getattr(project, key)  # output.*


def apply_flags(
    project: Project,
    values: dict[str, tuple[ProjectFlag, Any]],
    quiet: bool = False,
    project_name: str | None = None,
) -> Project:
    """The project with every given flag written into its field (flags win over the project file).

    ``quiet``: a parameter the project's algorithm does not take is left out without a warning (``apply``
    uses its suppression limit and metric itself, whatever the project's algorithm). ``project_name``
    names the project file in a role conflict."""
    project_name = _("the project") if project_name is None else project_name
    project = _apply_roles(project, values, project_name)
    project = _apply_column_types(project, values)
    project = _apply_hierarchies(project, values)
    project = _apply_models(project, values)
    project = _apply_algorithm(project, values, quiet)
    project = apply_engine(project, values)
    project = _apply_report_and_list(project, values)
    project = _apply_workload(project, values)
    project = _apply_persons(project, values)
    changes = {f.partition(".")[2]: v for f, (_flag, v) in values.items() if f.startswith("output.")}
    return project.with_changes(**changes) if changes else project


def _apply_report_and_list(project: Project, values: dict[str, tuple[ProjectFlag, Any]]) -> Project:
    """The report's sign-off fields, and the public list of the linkage demonstration: ``--external``
    names the file (its join is reset unless ``--join`` is given too), ``--join`` sets the join."""
    report = {f.partition(".")[2]: str(v) for f, (_flag, v) in values.items() if f.startswith("report.")}
    if report:
        project = project.with_changes(report=replace(project.report, **report))
    public = project.public_list
    if "linkage.path" in values:
        public = PublicList(Path(os.path.abspath(values["linkage.path"][1])))
    if "linkage.join" in values:
        if public is None:
            raise ConfigError(_("--join needs a public list: name it with --external FILE."), where="--join")
        public = replace(public, join=pairs(values["linkage.join"][1], "--join", comma_separated=True))
    return project.with_changes(public_list=public)


def _apply_persons(project: Project, values: dict[str, tuple[ProjectFlag, Any]]) -> Project:
    """``--person-knows``, ``--person-blanks``, and ``--join FILE ON COLUMN``: the patient tables
    joined onto the data; the key becomes the person column unless another one is given."""
    changes: dict[str, Any] = {}
    if "persons.knows" in values:
        changes["person_knows"] = knows_text(knows_value(values["persons.knows"][1]))
    if "persons.blanks" in values:
        changes["person_blanks"] = values["persons.blanks"][1]
    if "data.join" in values:
        changes["joins"] = tuple(JoinSpec(Path(os.path.abspath(f)), c) for f, c in values["data.join"][1])
    project = project.with_changes(**changes) if changes else project
    joins = project.joins
    if joins and not project.columns_with(Role.PERSON) and "data.join" in values:
        roles = {**project.roles, joins[0].on: Role.PERSON}
        project = project.with_changes(roles=roles)
    return project


def _apply_roles(project: Project, values: dict[str, tuple[ProjectFlag, Any]], project_name: str) -> Project:
    """A role flag replaces the project's columns of that role; a column given two roles (two flags, or
    a flag against the project's role) is refused (:func:`kanon_engine.data.roles.merge_roles`)."""
    given_roles: list[tuple[Role, str, list[str] | None]] = [
        (role, values[f"roles.{role.value}"][0].option, split_list(values[f"roles.{role.value}"][1]))
        if f"roles.{role.value}" in values
        else (role, "", None)
        for role in Role
    ]
    return project.with_changes(roles=merge_roles(dict(project.roles), given_roles, project_name))


def _apply_column_types(project: Project, values: dict[str, tuple[ProjectFlag, Any]]) -> Project:
    """``--column-type COL=KIND[:FORMAT]`` over the project's column types (the import dialog's choice)."""
    if "data.column_types" not in values:
        return project
    types = dict(project.column_types)
    for col, spec in pairs(values["data.column_types"][1], "--column-type").items():
        types[col] = parse_column_type(col, spec)
    return project.with_changes(column_types=types)


def _apply_hierarchies(project: Project, values: dict[str, tuple[ProjectFlag, Any]]) -> Project:
    if "hierarchies" not in values:
        return project
    hierarchies, files = dict(project.hierarchies), dict(project.hierarchy_files)
    for col, file in pairs(values["hierarchies"][1], "--hierarchy").items():
        hierarchies[col] = read_arx_csv(file, col)
        files[col] = os.path.abspath(file)
    return project.with_changes(hierarchies=hierarchies, hierarchy_files=files)


def _apply_models(project: Project, values: dict[str, tuple[ProjectFlag, Any]]) -> Project:
    """Model flags change the project's flat model values; the models are rebuilt from them."""
    flat = {f.partition(".")[2]: v for f, (_flag, v) in values.items() if f.startswith("models.")}
    if not flat:
        return project
    current = model_values_of(project.models)
    sensitive = project.columns_with(Role.SENSITIVE)
    if "sensitive" not in flat and current["sensitive"] not in sensitive:
        current["sensitive"] = None  # the project protected a column that is no longer sensitive
    merged = {**current, **flat}
    if wants_sensitive(merged) and merged["sensitive"] is None and len(sensitive) > 1:
        raise ConfigError(
            _("Several sensitive attributes were given; name the one to protect with --protect COLUMN."),
            where="--sensitive",
        )
    try:
        models = models_from_values(merged, sensitive)
    except ConfigError as exc:  # a value the model refuses (--average-risk 0): said with its flag
        given_by = values.get(f"models.{exc.where}")
        if given_by is None:
            raise
        raise exc.prefixed(given_by[0].option, where=given_by[0].option) from None
    return project.with_changes(models=models)


def apply_engine(project: Project, values: dict[str, tuple[ProjectFlag, Any]]) -> Project:
    """Engine flags change the project's engine settings."""
    changes = {f.partition(".")[2]: v for f, (_flag, v) in values.items() if f.startswith("engine.")}
    return project.with_changes(engine=replace(project.engine, **changes)) if changes else project


def _apply_algorithm(project: Project, values: dict[str, tuple[ProjectFlag, Any]], quiet: bool) -> Project:
    """The algorithm (its project parameters are kept only when it stays the same) and its parameters:
    a typed flag the algorithm does not take is ignored with a warning; ``--param`` is passed as given
    (the algorithm refuses a name it does not know)."""
    name = values["algorithm.name"][1] if "algorithm.name" in values else project.algorithm
    if "algorithm.name" not in values and values.get("models.dp_epsilon", (None, None))[1] is not None:
        name = "safepub"  # differential privacy has one procedure: --dp-epsilon alone chooses it
    cls = algorithms().get(name)
    accepted = {p.name for p in cls.params} if cls is not None else set()
    params = dict(project.algorithm_params) if name == project.algorithm else {}
    params = {k: v for k, v in params.items() if cls is None or k in accepted}
    for field, (flag, value) in values.items():
        group, _sep, key = field.partition(".")
        if group != "algorithm" or key in ("", "name"):
            continue
        if cls is not None and key not in accepted:
            if not quiet:
                warn([_("{option} does not apply to {name}; ignored.", option=flag.option, name=name)])
            continue
        params[key] = value
    if "algorithm" in values:
        params.update({k.replace("-", "_"): v for k, v in pairs(values["algorithm"][1], "--param").items()})
    return project.with_changes(algorithm=name, algorithm_params=params)


def _apply_workload(project: Project, values: dict[str, tuple[ProjectFlag, Any]]) -> Project:
    """``--workload FILE`` puts the file's text in the project (checked: a syntax error names its line);
    ``--no-workload`` removes the project's."""
    if "workload.file" not in values:
        return project
    file = values["workload.file"][1]
    if str(file).strip().lower() in NONE_WORDS:
        return project.with_changes(workload_text=None, workload_file=None)
    text = read_workload_text(file)
    parse_workload(text, Path(file).name)  # a mistake is reported now, with its line
    return project.with_changes(workload_text=text, workload_file=os.path.abspath(file))


# --- the project and table of a command -----------------------------------------------------------------
def project_and_table(args: argparse.Namespace) -> tuple[Project, TableSource]:
    """The project (``--project``, overridden by every flag given) and the table it runs on.

    ``args.flags`` is the subcommand's table (set by its ``register``). The table is INPUT, read with
    ``--delimiter``; without INPUT, the project's data file, read with the project's options
    (``--delimiter`` overriding its delimiter)."""
    # a password-protected project opens with the password in KANON_PROJECT_PASSWORD (never a flag:
    # command lines are visible to other users and kept in shell histories)
    password = os.environ.get(PASSWORD_VARIABLE) or None
    project = Project.load(Path(args.project), password) if getattr(args, "project", None) else Project()
    values = given(args, args.flags)
    project = apply_engine(project, values)
    if "data.join" in values:  # the patient tables are joined on as the table is read
        joins = tuple(JoinSpec(Path(os.path.abspath(f)), c) for f, c in values["data.join"][1])
        project = project.with_changes(joins=joins)
    table, project = _load_table(project, values)
    if getattr(args, "project", None):
        name = _("the project {file}", file=Path(args.project).name)
    else:
        name = _("the project")
    quiet = not any(f.option == "--algorithm" for f in args.flags)
    project = apply_flags(project, values, quiet=quiet, project_name=name)
    if "data.column_types" in values:
        table.require_columns(
            list(pairs(values["data.column_types"][1], "--column-type")), _("--column-type column")
        )
    table = with_column_types(table, project.column_types)
    _require_role_columns(project, table)
    qi = project.columns_with(Role.QUASI_IDENTIFIER)
    require_mark_free(table, qi, project.suppression_mark)  # before the hierarchies, which hold it too
    if table.in_memory:  # the dates of a table not held in memory are checked by its run
        check_dates(loaded(table), [q for q in qi if q not in project.hierarchies], project.column_types)
    return project, table


@contextlib.contextmanager
def run_inputs(args: argparse.Namespace) -> Iterator[tuple[Project, TableSource]]:
    """The project and table of a command that writes a run (``anonymize``, ``apply``): every output
    checked before any work starts, the engine named on stderr; a larger-than-memory engine removes its
    temporary files when the command is done."""
    project, table = project_and_table(args)
    with table:
        check_outputs(args, project)
        note_engine(table, args)
        yield project, table


def _load_table(project: Project, values: dict[str, tuple[ProjectFlag, Any]]) -> tuple[TableSource, Project]:
    d = delimiter(values["data.delimiter"][1]) if "data.delimiter" in values else None
    if "data.path" in values:
        path = Path(values["data.path"][1])
        table = open_source(path, ReadOptions(delimiter=d), project.engine)
        project = project.with_changes(data_path=path, data_sha256=table.sha256, read_options=table.options)
        table, said = project.joined(table)
        warn(said)
        return table, project
    if project.data_path is None:
        raise ConfigError(_("No input table: give INPUT or a --project that names one."), where="INPUT")
    if d is not None:
        project = project.with_changes(read_options=replace(project.read_options, delimiter=d))
    table, warnings = project.open_data()
    warn(warnings)
    return table, project.with_changes(read_options=table.options)


_ROLE_WORDS = {
    Role.IDENTIFIER: N_("identifier column"),
    Role.QUASI_IDENTIFIER: N_("quasi-identifier"),
    Role.SENSITIVE: N_("sensitive attribute"),
    Role.INSENSITIVE: N_("column"),
    Role.PERSON: N_("person column"),
}


def _require_role_columns(project: Project, table: TableLike) -> None:
    for col, role in project.roles.items():
        table.require_columns([col], _(_ROLE_WORDS[role]))
