"""Validation: every rule a project must meet before it runs, checked in one place.

``validate(project, table)`` returns the :class:`Issue` list that the workbench shows inline (Run stays
disabled while any is an error) and that the CLI turns into its one-sentence error (exit code 2). Both
call the same function, so a rule can never hold in one and not the other.

Each rule is a short function below, called in order by :func:`validate`. Where the engine itself also
enforces a rule at run time, the rule is written once by the component that owns it and only called
from here: a parameter's type and range by its :class:`~kanon_engine.config.ParamSpec`, role conflicts
and the protected sensitive attribute by :class:`~kanon_engine.config.AnonymizationConfig`, k against
the table size by :func:`~kanon_engine.config.require_k_fits`, the shape and coverage of a hierarchy by
:func:`~kanon_engine.hierarchy.validate_hierarchy`, the lattice size an exhaustive search accepts by
:meth:`~kanon_engine.core.lattice.Lattice.require_size`.

Validating costs one ``value_counts`` per column and one hierarchy check per quasi-identifier; a
:class:`ColumnCache` keeps both (and the default hierarchies), so the workbench re-validates on every
edit without redoing them, and a worker can prepare them (:func:`analyze_table`,
:func:`prepare_hierarchy`) before they are needed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from kanon_engine.algorithms import algorithms, get_algorithm
from kanon_engine.config import require_k_fits, role_name
from kanon_engine.core.lattice import Lattice
from kanon_engine.data.dates import date_problems
from kanon_engine.data.persons import differing_warning, rows_not_persons_warning
from kanon_engine.data.roles import Role, RoleSuggestion, kind_words, suggest_roles
from kanon_engine.data.table import TableLike, line_of_value
from kanon_engine.data.types import ColumnType
from kanon_engine.errors import ConfigError, KanonError
from kanon_engine.hierarchy import HierarchyIssue, default_hierarchy, validate_hierarchy
from kanon_engine.hierarchy.model import ROOT, Hierarchy
from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import blank_to_none as blank_to_none  # re-exported: the form values
from kanon_engine.privacy import applicability_problems, k_of
from kanon_engine.privacy import model_values_of as model_values_of
from kanon_engine.privacy import models_from_values as models_from_values
from kanon_engine.project.project_file import Project
from kanon_engine.workload.exact import table_specs
from kanon_engine.workload.parser import WorkloadError, parse_workload

#: Columns with more distinct values than this get their default hierarchy and its checks prepared in a
#: worker before they become quasi-identifiers (building and checking takes about a second per 100,000).
PREPARE_IN_BACKGROUND = 20_000


@dataclass(frozen=True)
class Issue:
    """One validation finding: ``severity`` "error" (blocks a run) or "warning"; ``where`` is a column
    name, or one of "data", "roles", "models", "algorithm"."""

    severity: str
    message: str
    where: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


# --------------------------------------------------------------------------------- facts about a table
@dataclass(frozen=True)
class TableFacts:
    """What validation needs to know about a freshly loaded table, computed off the GUI thread:
    the engine's role suggestions and the value counts of every column (most frequent first)."""

    suggestions: tuple[RoleSuggestion, ...]
    counts: dict[str, pd.Series]
    defaults: dict[str, Hierarchy]


@runtime_checkable
class TypesFromCounts(Protocol):
    """A table whose column types are detected from its value counts when first asked (a table source,
    or a view of some of its columns)."""

    @property
    def columns(self) -> list[str]: ...

    def column_type(self, name: str) -> ColumnType: ...


def analyze_table(table: TableLike, default_for: tuple[str, ...] | list[str] = ()) -> TableFacts:
    """Role suggestions, per-column value counts and the default hierarchies of the columns
    ``default_for`` (pure pandas/engine: safe to run in a worker). On a 1,000,000-row table this is the
    costly part of opening a file, so it is done with the loading, not on the GUI thread. A table
    source (a file larger than memory) gives its value counts (read in one pass, see
    :meth:`~kanon_engine.sources.backends.base.TableSource.prefetch_value_counts`) and its first rows."""
    counts = {c: value_counts(table, c) for c in table.columns}
    if getattr(table, "frame", None) is None:  # a table source: the types come from the counts
        assert isinstance(table, TypesFromCounts)
        for c in table.columns:
            table.column_type(c)
    defaults = {
        c: default_hierarchy(c, pd.Series(counts[c].index, dtype=object), table.column_types.get(c))
        for c in default_for
        if c in counts
    }
    suggestions = suggest_roles(
        rows_to_look_at(table), counts=counts, column_types=table.column_types, n_rows=table.n_rows
    )
    return TableFacts(tuple(suggestions), counts, defaults)


@dataclass(frozen=True)
class PreparedHierarchy:
    """A column's hierarchy (its default when ``default``) and the engine's issues about it."""

    column: str
    hierarchy: Hierarchy
    issues: tuple[HierarchyIssue, ...]
    default: bool


def prepare_hierarchy(
    column: str, counts: pd.Series, column_type: Any, hierarchy: Hierarchy | None = None
) -> PreparedHierarchy:
    """Build the default hierarchy (unless one is given) and validate it against the column's distinct
    values: pure engine calls, safe in a worker."""
    values = pd.Series(counts.index, dtype=object)
    h = hierarchy if hierarchy is not None else default_hierarchy(column, values, column_type)
    return PreparedHierarchy(column, h, tuple(validate_hierarchy(h, values)), hierarchy is None)


#: Rows the role suggestions look at when the table is not held in memory (a larger-than-memory source).
SUGGESTION_ROWS = 20_000


def rows_to_look_at(table: Any) -> pd.DataFrame:
    """The loaded rows, or the first rows of a table source that does not hold them."""
    frame = getattr(table, "frame", None)
    return frame if frame is not None else table.preview(SUGGESTION_ROWS)


def value_counts(table: Any, column: str) -> pd.Series:
    """A column's value counts, most frequent first, missing values as NaN: from the loaded column, or
    from a table source's counts (read once per column)."""
    frame = getattr(table, "frame", None)
    if frame is not None:
        return frame[column].value_counts(dropna=False)
    values, counts, missing = table.value_counts(column)
    index = np.asarray(values, dtype=object)
    data = np.asarray(counts, dtype=np.int64)
    if missing:
        index, data = np.append(index, np.array([np.nan], dtype=object)), np.append(data, missing)
    # from arrays, not lists: a list of 10 million counts holds Python's lock for seconds (a worker
    # building it froze the window)
    s = pd.Series(data, index=pd.Index(index, dtype=object))
    return s.sort_values(ascending=False, kind="stable")


def date_issues_of(table: Any, column: str, user_typed: Iterable[str] = ()) -> list[Issue]:
    """The column's dates that do not fit one format, as issues: one parse per distinct value and known
    format, seconds for a column of millions of distinct values (safe in a worker)."""
    return [
        Issue("error", f"{text} {_(DATE_CHOICES)}", column)
        for _fit, text in date_problems(table, [column], user_typed)
    ]


class ColumnCache:
    """The costly facts validation needs about one table's columns, each computed once: value counts,
    default hierarchies, role suggestions and the issues of every hierarchy checked against the data.

    Hierarchies are frozen, so their issues are cached by identity: a new hierarchy object is checked
    again, the same one never is.
    """

    def __init__(self, table: TableLike, facts: TableFacts | None = None) -> None:
        self.table = table
        self._counts: dict[str, pd.Series] = {}
        self._defaults: dict[str, Hierarchy] = {}
        self._issues: dict[tuple[str, int], list[Issue]] = {}
        self._dates: dict[str, list[Issue]] = {}
        self._suggestions: dict[str, RoleSuggestion] | None = None
        #: the rows-vs-persons warnings of the last roles asked about (see _person_warnings)
        self.person_issues: dict[tuple[tuple[str, str], ...], list[Issue]] = {}
        if facts is not None:
            self._counts.update(facts.counts)
            self._defaults.update(facts.defaults)
            self._suggestions = {s.column: s for s in facts.suggestions}

    @property
    def suggestions(self) -> dict[str, RoleSuggestion]:
        if self._suggestions is None:
            t = self.table
            frame = rows_to_look_at(t)
            in_memory = getattr(t, "frame", None) is not None
            # a table not held in memory: every column's counts would be a pass over it; the first rows say
            counts = {c: self.distinct(c) for c in t.columns} if in_memory else None
            found = suggest_roles(frame, counts=counts, column_types=t.column_types)
            self._suggestions = {s.column: s for s in found}
        return self._suggestions

    def distinct(self, column: str) -> pd.Series:
        """Counts of the column's distinct values, most frequent first (missing values as NaN)."""
        if column not in self._counts:
            self._counts[column] = value_counts(self.table, column)
        return self._counts[column]

    def distinct_values(self, column: str) -> pd.Series:
        """The distinct values of a column as a Series (NaN for missing), most frequent first."""
        return pd.Series(self.distinct(column).index, dtype=object)

    def has_default(self, column: str) -> bool:
        return column in self._defaults

    def default_hierarchy(self, column: str) -> Hierarchy:
        """The default hierarchy for the column's type (built once)."""
        if column not in self._defaults:
            self._defaults[column] = default_hierarchy(
                column, self.distinct_values(column), self.table.column_types.get(column)
            )
        return self._defaults[column]

    def is_checked(self, column: str, hierarchy: Hierarchy) -> bool:
        return (column, id(hierarchy)) in self._issues

    def hierarchy_issues(self, column: str, hierarchy: Hierarchy) -> list[Issue]:
        """The hierarchy's issues against the column's values (checked once per hierarchy object)."""
        key = (column, id(hierarchy))
        if key not in self._issues:
            found = validate_hierarchy(hierarchy, self.distinct_values(column))
            self._issues[key] = [
                Issue(i.severity, i.message + self._line_of(column, i), column) for i in found
            ]
        return self._issues[key]

    def _line_of(self, column: str, issue: Any) -> str:
        """For a data value the hierarchy does not cover, the line it is first in (naming a footer)."""
        if issue.severity != "error" or issue.level != 0 or issue.value is None:
            return ""
        return line_of_value(self.table, column, issue.value)

    def date_issues(self, column: str, user_typed: Iterable[str] = ()) -> list[Issue]:
        """The column's dates that do not fit one format (:mod:`kanon_engine.data.dates`), checked once."""
        if column not in self._dates:
            self._dates[column] = date_issues_of(self.table, column, user_typed)
        return self._dates[column]

    def adopt_dates(self, column: str, issues: list[Issue]) -> None:
        """Keep a column's date issues checked by a worker (:func:`date_issues_of`)."""
        self._dates[column] = list(issues)

    def adopt(self, prepared: PreparedHierarchy) -> None:
        """Keep what a worker prepared (a default hierarchy and its issues)."""
        if prepared.default:
            self._defaults[prepared.column] = prepared.hierarchy
        key = (prepared.column, id(prepared.hierarchy))
        self._issues[key] = [Issue(i.severity, i.message, prepared.column) for i in prepared.issues]

    def hierarchy(self, project: Project, column: str) -> Hierarchy:
        """The hierarchy a run would use: the project's, else the default for the column's type."""
        h = project.hierarchies.get(column)
        return h if h is not None else self.default_hierarchy(column)


# ------------------------------------------------------------------------------------------ the rules
def validate(project: Project, table: TableLike | None, cache: ColumnCache | None = None) -> list[Issue]:
    """Every finding about running ``project`` on ``table``, errors first.

    ``cache`` keeps the costly per-column facts between calls (one is made when not given).
    """
    if table is None:
        return [Issue("error", _("Open a data file (File > Open) to begin."), "data")]
    cache = cache if cache is not None and cache.table is table else ColumnCache(table)
    qi = [c for c in table.columns if project.roles.get(c) == Role.QUASI_IDENTIFIER]
    found = (
        _quasi_identifier_rule(qi)
        + _date_rule(project, cache, qi)
        + _hierarchy_rules(project, table, cache, qi)
        + _identifier_warnings(project, table, cache)
        + released_unchanged_warnings(project.roles, cache.suggestions)
        + _k_rule(project, table)
        + _few_groups_warning(project, table)
        + _config_rule(project, table, cache, qi)
        + _algorithm_rules(project, table, cache, qi)
        + _workload_rule(project, table)
        + _person_warnings(project, table, cache)
    )
    return sorted(found, key=lambda i: not i.is_error)


def first_error(issues: list[Issue]) -> Issue | None:
    return next((i for i in issues if i.is_error), None)


def require_valid(project: Project, table: TableLike, cache: ColumnCache | None = None) -> list[Issue]:
    """Raise the first error of :func:`validate` as a ConfigError; return the warnings."""
    issues = validate(project, table, cache)
    error = first_error(issues)
    if error is not None:
        raise ConfigError(error.message, where=error.where)
    return issues


def _quasi_identifier_rule(qi: list[str]) -> list[Issue]:
    if qi:
        return []
    return [
        Issue(
            "error",
            _(
                "No quasi-identifier is chosen: mark the columns an outsider could know (age, sex, "
                "postcode, dates) as quasi-identifiers."
            ),
            "roles",
        )
    ]


#: What to do about a column whose dates do not fit one format, in the workbench and on the command line.
DATE_CHOICES = N_(
    "kanon reads a column with one date format and never guesses: fix the file, or pick the format or the "
    "type text (the import dialog, or --column-type COLUMN=date:FORMAT / COLUMN=text)."
)


def _date_rule(project: Project, cache: ColumnCache, qi: list[str]) -> list[Issue]:
    """A quasi-identifier read as dates (no hierarchy of its own) must have every value in one format:
    a date read under a guess would be generalized into the wrong month and released."""
    out: list[Issue] = []
    for col in qi:
        if col not in project.hierarchies:
            out.extend(cache.date_issues(col, project.column_types))
    return out


def _hierarchy_rules(project: Project, table: TableLike, cache: ColumnCache, qi: list[str]) -> list[Issue]:
    """The hierarchy of every quasi-identifier must be a tree covering the data (errors); a sensitive
    attribute's own hierarchy is only checked for warnings (it matters to hierarchical t-closeness)."""
    out: list[Issue] = []
    sensitive = [c for c in table.columns if project.roles.get(c) == Role.SENSITIVE]
    # local suppression generalizes nothing: a broken hierarchy is then only worth a warning
    used = getattr(algorithms().get(project.algorithm), "uses_hierarchies", True)
    for col in qi:
        issues = cache.hierarchy_issues(col, cache.hierarchy(project, col))
        out.extend(issues if used else [replace(i, severity="warning") for i in issues])
    for col in sensitive:
        h = project.hierarchies.get(col)
        if h is not None:
            out.extend(replace(i, severity="warning") for i in cache.hierarchy_issues(col, h))
    return out


def _person_warnings(project: Project, table: TableLike, cache: ColumnCache) -> list[Issue]:
    """Rows vs persons (issue 33): a column that repeats like a patient number while k counts rows, or
    a person whose patient-level values differ between rows; computed once per roles (cached)."""
    frame = getattr(table, "frame", None)
    if not getattr(table, "in_memory", True) or frame is None:
        return []
    key = tuple(sorted((c, str(r)) for c, r in project.roles.items()))
    if key not in cache.person_issues:
        persons = project.columns_with(Role.PERSON)
        if persons:
            texts = differing_warning(frame, persons[0]) if persons[0] in table.columns else []
            where = persons[0]
        else:
            roles = {c: project.roles.get(c, Role.INSENSITIVE) for c in table.columns}
            texts, where = rows_not_persons_warning(table, roles), "roles"
        cache.person_issues = {key: [Issue("warning", text, where) for text in texts]}
    return cache.person_issues[key]


_UNIQUE_RELEASED = N_(
    "'{column}' is {role}: its values would be released as they are, and almost every one is unique. If "
    "it identifies people (a code, a record number), make it an identifier (removed)."
)


def _identifier_warnings(project: Project, table: TableLike, cache: ColumnCache) -> list[Issue]:
    """A column whose nearly unique values suggest an identifier, while its current role would release
    them as they are (insensitive or sensitive). The warning follows the role: none once the column is
    removed (identifier) or generalized (quasi-identifier), and it names the role the user chose."""
    out = []
    for col in table.columns:
        s = cache.suggestions.get(col)
        role = project.roles.get(col, Role.INSENSITIVE)
        if s is not None and s.flagged and role in (Role.INSENSITIVE, Role.SENSITIVE):
            out.append(Issue("warning", _(_UNIQUE_RELEASED, column=col, role=role_name(role)), col))
    return out


#: Kinds of column that outsiders commonly know (dates, postcodes, ...): left insensitive, they are
#: released unchanged, which is warned about before a run and said in the report.
_KNOWABLE_KINDS = frozenset(
    {"date of birth", "age", "sex", "postcode", "town", "admission date", "nationality", "date"}
)
_UNCHANGED = N_(
    "'{column}' looks like {kind} and would be released unchanged (insensitive): an outsider may know it. "
    "Make it a quasi-identifier, unless you are sure nobody outside can know it."
)
_IDENTIFIER_RELEASED = N_(
    "'{column}' looks like {kind}, a direct identifier, but its role is {role}: it would be released. "
    "Make it an identifier (removed)."
)


def released_unchanged_warnings(
    roles: dict[str, Role], suggestions: dict[str, RoleSuggestion]
) -> list[Issue]:
    """Columns that look like something outsiders know (a date, a postcode, a name) but would be
    released as they are. Used before a run (a warning) and by the report (said to the ethics board)."""
    out = []
    for col, s in suggestions.items():
        role = roles.get(col, Role.INSENSITIVE)
        kind = kind_words(s.kind)
        if s.confident and s.role == Role.IDENTIFIER and role in (Role.INSENSITIVE, Role.SENSITIVE):
            text = _(_IDENTIFIER_RELEASED, column=col, kind=kind, role=role_name(role))
            out.append(Issue("warning", text, col))
        elif role == Role.INSENSITIVE and s.role == Role.QUASI_IDENTIFIER and s.kind in _KNOWABLE_KINDS:
            out.append(Issue("warning", _(_UNCHANGED, column=col, kind=kind), col))
    return out


#: A release with fewer groups than this says little (every value generalized to a few broad ranges).
HANDFUL = 5
_FEW_GROUPS = N_(
    "With k = {k} and {records} records the release can have at most {groups} groups, so it will say "
    "little about anyone. Lower k unless that is what you want."
)
_ONE_GROUP = N_(
    "With k = {k} and {records} records the release can have only one group: every value will be "
    "generalized to the same thing. Lower k unless that is what you want."
)


def _few_groups_warning(project: Project, table: TableLike) -> list[Issue]:
    k = k_of(project.models)
    if k < 2 or k > table.n_rows or table.n_rows // k >= HANDFUL:
        return []
    groups = table.n_rows // k
    template = _ONE_GROUP if groups == 1 else _FEW_GROUPS
    text = _(template, k=k, records=table.n_rows, groups=groups)
    return [Issue("warning", text, "models")]


def _k_rule(project: Project, table: TableLike) -> list[Issue]:
    k = k_of(project.models)
    try:
        require_k_fits(k, table.n_rows)
    except ConfigError as exc:
        return [Issue("error", str(exc), "models")]
    return []


def _config_rule(project: Project, table: TableLike, cache: ColumnCache, qi: list[str]) -> list[Issue]:
    """The run configuration builds: roles do not conflict, every named column exists, the models'
    sensitive attribute is marked sensitive (the rules of AnonymizationConfig)."""
    if not qi:
        return []
    hierarchies = {q: cache.hierarchy(project, q) for q in qi}
    try:
        project.with_changes(hierarchies={**project.hierarchies, **hierarchies}).config(table)
    except WorkloadError:
        return []  # reported by _workload_rule
    except KanonError as exc:
        return [Issue("error", str(exc), exc.where if exc.where in table.columns else "models")]
    return []


def _workload_rule(project: Project, table: TableLike) -> list[Issue]:
    """The workload reads (syntax, columns, types), and workload-aware Mondrian has one."""
    if not project.workload_text:
        aware = str(project.algorithm_params.get("workload_aware", "")).lower() in ("true", "1", "yes", "on")
        if project.algorithm == "mondrian" and aware:
            return [
                Issue(
                    "error",
                    _("Cutting along the workload needs a workload: write or open one in the Workload tab."),
                    "workload",
                )
            ]
        return []
    try:
        table_specs(table, parse_workload(project.workload_text, project.workload_file or _("the workload")))
    except WorkloadError as exc:
        return [Issue("error", str(exc), "workload")]
    return []


def _algorithm_rules(project: Project, table: TableLike, cache: ColumnCache, qi: list[str]) -> list[Issue]:
    """The algorithm exists, its parameters are valid, and an exhaustive search's lattice is not too
    large for it."""
    cls = algorithms().get(project.algorithm)
    if cls is None:
        message = _(
            "The algorithm '{algorithm}' is not available; choose another one.", algorithm=project.algorithm
        )
        return [Issue("error", message, "algorithm")]
    try:
        algorithm = get_algorithm(project.algorithm, **project.algorithm_params)
    except KanonError as exc:
        return [Issue("error", str(exc), "algorithm")]
    # a model the engine cannot count for, or this algorithm cannot apply (the models' own rules)
    problems = applicability_problems(project.models, algorithm)
    if problems:
        return [Issue("error", text, "models") for text in problems]
    named = _columns_rule(cls, project, qi)
    if named:
        return named
    limit = getattr(cls, "max_nodes", None)
    if not qi or not cls.full_domain or limit is None:
        return []
    try:
        Lattice.require_size(lattice_size(project, cache, qi), cls.name, limit)
    except KanonError as exc:
        return [Issue("error", str(exc), "algorithm")]
    return []


def _columns_rule(cls: Any, project: Project, qi: list[str]) -> list[Issue]:
    """A parameter that lists columns (local suppression's importance) names quasi-identifiers only."""
    for spec in cls.params:
        value = spec.coerce(project.algorithm_params.get(spec.name)) if spec.kind == "columns" else None
        unknown = [v for v in (value or "").split(",") if v and v not in qi]
        if unknown:
            message = _(
                "{label} names '{unknown}', which is not a quasi-identifier; the quasi-identifiers are "
                "{value}.",
                label=spec.shown_label,
                unknown=unknown[0],
                value=", ".join(qi) or _("not chosen yet"),
            )
            return [Issue("error", message, "algorithm")]
    return []


def lattice_size(project: Project, cache: ColumnCache, qi: list[str]) -> int:
    """Number of full-domain transformations: product of (height + 1) over the quasi-identifiers."""
    size = 1
    for q in qi:
        size *= cache.hierarchy(project, q).height + 1
    return size


# ------------------------------------------------------------------------------- after a run: the result
_COLUMN_LOST = N_(
    "'{column}' was generalized to its top level: every record shows * for it, so the release says "
    "nothing about it. Try {remedies}."
)
_COLUMN_LOST_CELLS = N_(
    "Every record shows * for '{column}', so the release says nothing about it. Try a smaller k or fewer "
    "quasi-identifiers (local suppression: name '{column}' among the columns to keep longest)."
)
_FEW_CLASSES = N_(
    "The release has only {classes} groups of records: almost everything was generalized away. Try "
    "{remedies}."
)
_ONE_CLASS = N_(
    "The release has a single group of records: every quasi-identifier was generalized away. Try {remedies}."
)
_MOSTLY_SUPPRESSED = N_(
    "{suppressed} of {records} records ({share}) were suppressed: the release keeps little of the data. "
    "Lower k or use broader hierarchies."
)
#: What may make a release keep more, as phrases after "Try" (each left out when it is the setting in use).
_REMEDIES = {
    "loss": N_("the Loss metric"),
    "hierarchy": N_("a finer hierarchy"),
    "suppression": N_("more suppression"),
    "some_suppression": N_("allowing some suppression"),
    "k": N_("a smaller k"),
    "fewer": N_("fewer quasi-identifiers"),
}


def remedies(result: Any, keys: tuple[str, ...]) -> str:
    """The remedies ``keys`` that are not the run's setting already, joined ("the Loss metric, a finer
    hierarchy or a smaller k"): never the metric in use, "allowing some suppression" where none is
    allowed and "more suppression" where some is (never at 100 % or for an algorithm without the
    setting), never a k smaller than 2."""
    params = getattr(result, "parameters", {}) or {}
    chosen = []
    for key in keys:
        if key == "loss" and params.get("metric", "loss") in (None, "loss"):
            continue
        if key == "suppression":
            if "suppression_limit" not in params:
                continue
            limit = float(params.get("suppression_limit") or 0.0)
            if limit >= 1.0:
                continue
            key = "some_suppression" if limit == 0.0 else key
        if key == "k" and int(result.config.k) <= 2:
            continue
        chosen.append(_(_REMEDIES[key]))
    return formats.join(chosen, either=True)


def result_warnings(result: Any, facts: Any = None) -> list[Issue]:
    """What makes a finished release useless or nearly so, in plain sentences: a quasi-identifier
    generalized to ``*`` throughout, fewer than a handful of groups, or most records suppressed.
    Shown after a run (workbench and CLI) and in the report; the groups and suppressed records are
    those of the release's ``facts`` (:mod:`kanon_engine.report.facts`) when given. The advice never
    suggests the setting in use (:func:`remedies`)."""
    out = []
    for q in _columns_lost(result):
        if getattr(result, "recoding", None) is not None:
            out.append(Issue("warning", _(_COLUMN_LOST_CELLS, column=q), q))
        else:
            what = remedies(result, ("loss", "hierarchy", "suppression", "k"))
            out.append(Issue("warning", _(_COLUMN_LOST, column=q, remedies=what), q))
    rel = (facts or {}).get("release") or {}
    classes = int(rel.get("classes", result.n_classes))
    suppressed = int(rel.get("records_suppressed", result.suppressed))
    released = result.records - suppressed
    if released and classes < HANDFUL:
        template = _ONE_CLASS if classes == 1 else _FEW_CLASSES
        what = remedies(result, ("k", "fewer", "suppression"))
        out.append(Issue("warning", _(template, classes=classes, remedies=what), "result"))
    if result.records and suppressed >= 0.5 * result.records:
        share = formats.percent(suppressed / result.records, 0)
        text = _(_MOSTLY_SUPPRESSED, suppressed=suppressed, records=result.records, share=share)
        out.append(Issue("warning", text, "result"))
    return out


def _columns_lost(result: Any) -> list[str]:
    """Quasi-identifiers released as ``*`` for every record (the top level of their hierarchy)."""
    cfg = result.config
    if result.transformation is not None:
        return [
            q
            for q, level in result.transformation.items()
            if cfg.hierarchies[q].height > 0 and level >= cfg.hierarchies[q].height
        ]
    if result.release is None:  # a run that streamed its rows: the released values of its classes
        plan = getattr(result, "plan", None)
        values = plan.class_values(result.n_classes) if plan is not None else {}
        return [q for q in cfg.quasi_identifiers if len(values.get(q, ())) and (values[q] == ROOT).all()]
    lost = []
    for q in cfg.quasi_identifiers:
        column = result.release[q] if q in result.release.columns else None
        if column is not None and len(column) and bool((column.astype(object) == ROOT).all()):
            lost.append(q)
    return lost
