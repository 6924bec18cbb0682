"""AppState: the ONE place that changes the project.

It holds the loaded :class:`~kanon_engine.data.table.Table`, the frozen
:class:`~kanon_engine.project.project_file.Project` (roles, hierarchies, models, algorithm), and the run
history.
Panels read it and ask it for changes; it replaces the project (never edits it in place) and emits
``project_changed``. Role and hierarchy edits go on :attr:`AppState.undo_stack`, each command storing
only the project fields it changed, so undoing a role change never reverts an unrelated setting.

Validation is the engine's :func:`~kanon_engine.project.validation.validate` (the CLI calls the same
function),
with the costly per-column facts kept in one :class:`~kanon_engine.project.validation.ColumnCache` per table;
:meth:`AppState.issues` adds the form values the engine refused, and Run stays disabled, with the reason
shown, while any error remains.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from kanon_engine.algorithms import algorithms, get_algorithm
from kanon_engine.config import AnonymizationConfig, role_name
from kanon_engine.data.roles import Role, RoleSuggestion
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError, KanonError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.i18n import N_, _, ngettext
from kanon_engine.privacy.models import PrivacyModel
from kanon_engine.project.project_file import PROJECT_FILE, Project, ReportDetails
from kanon_engine.project.public_list import PublicList
from kanon_engine.project.validation import (
    PREPARE_IN_BACKGROUND,
    ColumnCache,
    Issue,
    PreparedHierarchy,
    TableFacts,
    blank_to_none,
    lattice_size,
    model_values_of,
    models_from_values,
    validate,
)
from kanon_engine.release.fileio import InputGuard
from kanon_engine.report.describe import algorithm_name
from kanon_engine.result import AnonymizationResult
from kanon_engine.session.engines import is_streamed
from kanon_engine.session.runs import project_summary
from kanon_engine.sources.backends.settings import EngineSettings

LOG = logging.getLogger("kanon_gui.state")

#: The name of a run in the history: numbered across sessions, the algorithm in words.
RUN_LABEL = N_("#{number} {algorithm}, k = {k}")

#: Project fields that role/hierarchy commands may change (and restore on undo).
_EDIT_FIELDS = ("roles", "hierarchies", "hierarchy_files")


@dataclass(frozen=True)
class Run:
    """One finished run kept in the history: a label, its result and the table it ran on, and the
    fingerprint of its configuration (compared with the project's to tell whether it is out of date)."""

    label: str
    result: AnonymizationResult
    table: Table
    fingerprint: str = ""
    #: rebuilt from the project file when it was reopened (no lattice to show)
    restored: bool = False


@dataclass(frozen=True)
class RunRequest:
    """A frozen snapshot handed to a worker: everything a run needs, nothing of the GUI."""

    table: Table
    config: AnonymizationConfig
    algorithm: str
    params: dict[str, Any]

    def label(self) -> str:
        return f"{self.algorithm} k={self.config.k}"


class _ProjectEdit(QUndoCommand):
    """An undoable change of some project fields (old values kept for undo)."""

    def __init__(self, state: AppState, text: str, new: dict[str, Any]) -> None:
        # the text becomes the Edit menu's "Undo ..." item: a value such as "Gynäkologie & Geburtshilfe"
        # keeps its "&" instead of turning the next letter into a shortcut
        super().__init__(text.replace("&", "&&"))
        self.state = state
        self.new = new
        self.old = {f: getattr(state.project, f) for f in new}

    def redo(self) -> None:
        self.state._apply(self.new)

    def undo(self) -> None:
        self.state._apply(self.old)


class AppState(QObject):
    """The project being edited, the loaded table and the run history (see the module docstring)."""

    table_changed = Signal()
    project_changed = Signal()
    run_added = Signal(int)
    current_run_changed = Signal(int)
    path_changed = Signal()
    issues_changed = Signal()
    #: a run became out of date (its settings no longer match the project's), or current again
    stale_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self._table: Table | None = None
        #: the first rows of a table source that is not loaded whole (None: the table is in memory)
        self._preview: pd.DataFrame | None = None
        #: columns of a source summarized from its first rows only (nearly every value differs)
        self._sampled: frozenset[str] = frozenset()
        self._project = Project()
        self._saved = self._project
        self._path: Path | None = None
        self._runs: list[Run] = []
        self._current = -1
        self._cache: ColumnCache | None = None
        self._model_values: dict[str, Any] = model_values_of(self._project.models)
        self._model_error: str | None = None
        self._algo_values: dict[str, Any] = {}
        self._algo_error: str | None = None
        self._issues: list[Issue] | None = None
        self.load_warnings: list[str] = []
        self._fingerprint: tuple[Project, str | None] | None = None
        self._stale: frozenset[int] = frozenset()
        #: files read for the hierarchies since the table was loaded (protected like the data file)
        self._imported: list[tuple[Path, str]] = []
        #: every writer of the process refuses the files this project reads while this state exists
        self.input_guard = InputGuard().register()

    # --- reading -----------------------------------------------------------------------------------------
    @property
    def table(self) -> Table | None:
        return self._table

    @property
    def project(self) -> Project:
        return self._project

    @property
    def preview(self) -> pd.DataFrame | None:
        """The first rows of a table not loaded whole (a larger-than-memory source); None when the
        table is held in memory."""
        return self._preview

    def is_sampled(self, column: str) -> bool:
        """Whether the column's summary comes from the first rows only: nearly every value differs in a
        file not loaded whole, so it was not counted (see :func:`kanon_engine.session.profile_source`)."""
        return column in self._sampled

    def adopt_counts(self, column: str, counts: pd.Series) -> None:
        """A sampled column counted whole by a worker (before it becomes a quasi-identifier or
        sensitive attribute)."""
        if self._cache is None or column not in self.columns:
            return
        self._cache._counts[column] = counts
        self._sampled = self._sampled - {column}
        self._invalidate()

    @property
    def streamed(self) -> bool:
        """Whether the table is read by an engine without being loaded (DuckDB, Dask)."""
        return is_streamed(self._table)

    @property
    def project_path(self) -> Path | None:
        return self._path

    @property
    def runs(self) -> list[Run]:
        return list(self._runs)

    @property
    def current_index(self) -> int:
        return self._current

    @property
    def current_run(self) -> Run | None:
        return self._runs[self._current] if 0 <= self._current < len(self._runs) else None

    @property
    def columns(self) -> list[str]:
        return self._table.columns if self._table is not None else []

    def is_dirty(self) -> bool:
        """Whether the project differs from what was last saved or opened."""
        return self._table is not None and self._project != self._saved

    def role(self, column: str) -> Role:
        return self._project.roles.get(column, Role.INSENSITIVE)

    def columns_with(self, role: Role) -> list[str]:
        return [c for c in self.columns if self.role(c) == role]

    def suggestion(self, column: str) -> RoleSuggestion | None:
        return self._cache.suggestions.get(column) if self._cache is not None else None

    def model_values(self) -> dict[str, Any]:
        return dict(self._model_values)

    def algorithm_values(self) -> dict[str, Any]:
        return dict(self._algo_values)

    def distinct(self, column: str) -> pd.Series:
        """Counts of the column's distinct values, most frequent first (missing values as NaN), cached:
        every panel that needs distinct values (summary, validation, hierarchy editor) shares one
        ``value_counts`` per column."""
        assert self._cache is not None
        return self._cache.distinct(column)

    def distinct_values(self, column: str) -> pd.Series:
        """The distinct values of a column as a Series (NaN for missing), most frequent first."""
        assert self._cache is not None
        return self._cache.distinct_values(column)

    def has_explicit_hierarchy(self, column: str) -> bool:
        return column in self._project.hierarchies

    def hierarchy(self, column: str) -> Hierarchy | None:
        """The hierarchy a run would use: the project's, else the default for the column's type."""
        if self._cache is None or column not in self.columns:
            return self._project.hierarchies.get(column)
        return self._cache.hierarchy(self._project, column)

    def lattice_size(self) -> int:
        """Number of full-domain transformations: product of (height + 1) over the quasi-identifiers."""
        if self._cache is None:
            return 1
        return lattice_size(self._project, self._cache, self.columns_with(Role.QUASI_IDENTIFIER))

    # --- validation --------------------------------------------------------------------------------------
    def issues(self) -> list[Issue]:
        """Every validation finding, errors first (cached until the project or table changes): the
        engine's :func:`~kanon_engine.project.validation.validate`, plus form values the engine refused."""
        if self._issues is None:
            found = validate(self._project, self._table, self._cache)
            if self._model_error:  # the project keeps its last valid models until the form is fixed
                found = [i for i in found if i.where != "models"]
                found.append(Issue("error", self._model_error, "models"))
            if self._algo_error:
                found.append(Issue("error", self._algo_error, "algorithm"))
            self._issues = sorted(found, key=lambda i: not i.is_error)
        return list(self._issues)

    def errors(self) -> list[Issue]:
        return [i for i in self.issues() if i.is_error]

    def issues_for(self, where: str) -> list[Issue]:
        return [i for i in self.issues() if i.where == where]

    def run_blocker(self) -> str | None:
        """Why Run is disabled (the first error), or None when a run can start."""
        errs = self.errors()
        if not errs:
            return None
        more = (
            ngettext(" (and {n} more problem)", " (and {n} more problems)", len(errs) - 1)
            if len(errs) > 1
            else ""
        )
        return errs[0].message + more

    def needs_preparation(self, column: str) -> bool:
        """Whether making ``column`` a quasi-identifier would build or check a large hierarchy on the
        GUI thread (the window then prepares it in a worker first, see
        :func:`~kanon_engine.project.validation.prepare_hierarchy`)."""
        cache = self._cache
        if cache is None or column not in self.columns:
            return False
        if column in self._sampled:  # its values are counted whole first, in a worker
            return True
        if len(cache.distinct(column)) <= PREPARE_IN_BACKGROUND:
            return False
        h = self._project.hierarchies.get(column)
        if h is None:
            return not cache.has_default(column) or not cache.is_checked(
                column, cache.default_hierarchy(column)
            )
        return not cache.is_checked(column, h)

    def preparation_args(self, column: str) -> tuple:
        """Arguments of :func:`~kanon_engine.project.validation.prepare_hierarchy` for ``column`` (frozen data
        only, for a worker)."""
        assert self._table is not None
        return (
            column,
            self.distinct(column),
            self._table.column_types.get(column),
            self._project.hierarchies.get(column),
        )

    def adopt(self, prepared: PreparedHierarchy) -> None:
        """Keep what a worker prepared (default hierarchy and its issues) in the caches, unless the
        project moved on meanwhile (another hierarchy was chosen)."""
        if self._cache is None or prepared.column not in self.columns:
            return
        explicit = self._project.hierarchies.get(prepared.column)
        if (prepared.default and explicit is not None) or (
            not prepared.default and explicit is not prepared.hierarchy
        ):
            return
        self._cache.adopt(prepared)

    def adopt_dates(self, table: Any, column: str, issues: list) -> None:
        """Keep a column's date issues checked by a worker, unless another table was opened meanwhile."""
        if self._cache is not None and self._table is table and column in self.columns:
            self._cache.adopt_dates(column, issues)

    def _invalidate(self) -> None:
        self._issues = None
        self.issues_changed.emit()
        self._check_stale()

    # --- out-of-date results (issue 12, item 10) ---------------------------------------------------------
    def current_fingerprint(self) -> str | None:
        """The fingerprint of the configuration a run would use now (None while it cannot be built),
        cached per project object."""
        if self._fingerprint is None or self._fingerprint[0] is not self._project:
            try:
                value = self.config().fingerprint() if self._table is not None else None
            except KanonError:
                value = None
            self._fingerprint = (self._project, value)
        return self._fingerprint[1]

    def is_stale(self, index: int | None = None) -> bool:
        """Whether run ``index`` (default: the current run) was made with settings other than the
        project's now: it is then shown and exported as out of date until the user runs again."""
        index = self._current if index is None else index
        return index in self._stale

    def _check_stale(self) -> None:
        if not self._runs:
            stale: frozenset[int] = frozenset()
        else:
            now = self.current_fingerprint()
            stale = frozenset(i for i, run in enumerate(self._runs) if now is None or run.fingerprint != now)
        if stale != self._stale:
            self._stale = stale
            self.stale_changed.emit()

    # --- changing the project ----------------------------------------------------------------------------
    def input_files(self) -> list[tuple[Path, str]]:
        """The files this project reads (data, hierarchy files, imported hierarchies, the project
        file itself), each with what it is; no writer may replace them (saving may replace the
        project file)."""
        project = self._project
        if self._table is not None:
            project = project.with_changes(data_path=self._table.source)
        files = project.input_files() + list(self._imported)
        if self._path is not None:
            files.append((self._path, PROJECT_FILE))
        return files

    def note_input(self, path: str | Path, what: str) -> None:
        """Protect a file read into the project (an imported hierarchy) until another table is loaded."""
        self._imported.append((Path(path), what))
        self.input_guard.set(self.input_files())

    def _apply(self, fields: dict[str, Any]) -> None:
        """Replace the project with these field values (used by undo commands and plain setters)."""
        self._project = self._project.with_changes(**fields)
        self.input_guard.set(self.input_files())
        if "roles" in fields:
            self._rebuild_models()
        self._invalidate()
        self.project_changed.emit()
        self.path_changed.emit()

    def _edit(self, text: str, **fields: Any) -> None:
        self.undo_stack.push(_ProjectEdit(self, text, fields))

    def set_role(self, column: str, role: Role) -> None:
        """Give ``column`` a role (undoable)."""
        if self.role(column) == role:
            return
        roles = dict(self._project.roles)
        roles[column] = Role(role)
        self._edit(
            _("Set the role of '{column}' to {value}", column=column, value=role_name(role)), roles=roles
        )

    def set_joins(self, joins: list[Any]) -> None:
        """Patient tables joined onto the data on import (kept in the project); the first key becomes the
        person column (issue 33)."""
        roles = {**self._project.roles, joins[0].on: Role.PERSON} if joins else dict(self._project.roles)
        self._apply({"joins": tuple(joins), "roles": roles})

    def set_roles(self, roles: dict[str, Role], text: str | None = None) -> None:
        """Set several roles in one undoable step."""
        text = _("Set roles") if text is None else text
        merged = dict(self._project.roles)
        merged.update({c: Role(r) for c, r in roles.items()})
        if merged != self._project.roles:
            self._edit(text, roles=merged)

    def set_hierarchy(
        self, column: str, hierarchy: Hierarchy | None, text: str | None = None, file: str | None = None
    ) -> None:
        """Assign a hierarchy to ``column`` (None: back to the default), undoable.

        ``file`` keeps a reference to an ARX CSV in the project file instead of embedding the rows.
        """
        hier = dict(self._project.hierarchies)
        files = dict(self._project.hierarchy_files)
        if hierarchy is None:
            hier.pop(column, None)
        else:
            if hierarchy.attribute != column:
                hierarchy = Hierarchy(column, hierarchy.matrix)
            hier[column] = hierarchy
        files.pop(column, None)
        if file is not None and hierarchy is not None:
            files[column] = file
        self._edit(
            text or _("Change the hierarchy of '{column}'", column=column),
            hierarchies=hier,
            hierarchy_files=files,
        )

    def set_hierarchies(self, hierarchies: dict[str, Hierarchy], text: str) -> None:
        """Assign several hierarchies in one undoable step (e.g. load a folder of ARX files)."""
        hier = dict(self._project.hierarchies)
        files = dict(self._project.hierarchy_files)
        for col, h in hierarchies.items():
            hier[col] = h if h.attribute == col else Hierarchy(col, h.matrix)
            files.pop(col, None)
        self._edit(text, hierarchies=hier, hierarchy_files=files)

    def set_model_values(self, **values: Any) -> None:
        """Update the privacy-model form values (k, l, l_variant, c, t, t_distance, sensitive).

        Valid values replace the project's models; an invalid one is kept in the form and listed as an
        error (Run disabled) with the engine's message.
        """
        merged = {**self._model_values, **values}
        if merged == self._model_values and self._model_error is None:
            return
        self._model_values = merged
        try:
            models = self._build_models(merged)
        except KanonError as exc:
            self._model_error = str(exc)
            self._invalidate()
            self.project_changed.emit()
            return
        self._model_error = None
        self._apply({"models": models})

    def _rebuild_models(self) -> None:
        """Models depend on roles (the protected sensitive attribute): rebuild them after a role change."""
        try:
            models = self._build_models(self._model_values)
        except KanonError as exc:
            self._model_error = str(exc)
            return
        self._model_error = None
        if models != self._project.models:
            self._project = self._project.with_changes(models=models)

    def _build_models(self, v: dict[str, Any]) -> tuple[PrivacyModel, ...]:
        return models_from_values(v, self.columns_with(Role.SENSITIVE))

    def set_workload(self, text: str | None, file: str | None = None) -> None:
        """Use this workload of intended analyses for the runs (undoable); None or blank: none (runs are
        then measured with a generated workload)."""
        text = text if text and text.strip() else None
        if text == self._project.workload_text and file == self._project.workload_file:
            return
        self._edit(_("Change the workload"), workload_text=text, workload_file=file if text else None)

    def set_algorithm(self, name: str, values: dict[str, Any] | None = None) -> None:
        """Choose the algorithm and its parameter values (raw form values are checked by its specs).

        Values are remembered by parameter name across algorithms, so a parameter the algorithms share
        (the suppression limit, the metric) keeps what the user set when they switch back and forth,
        even through an algorithm that does not have it.
        """
        values = {**self._algo_values, **dict(values or {})}
        self._algo_values = values
        cls = algorithms().get(name)
        params = {}
        self._algo_error = None
        if cls is not None:
            known = {p.name for p in cls.params}
            raw = {k: blank_to_none(v) for k, v in values.items() if k in known}
            try:
                params = dict(get_algorithm(name, **raw).parameters)
            except KanonError as exc:
                self._algo_error = str(exc)
                params = dict(self._project.algorithm_params) if name == self._project.algorithm else {}
        if name == self._project.algorithm and params == self._project.algorithm_params:
            self._invalidate()
            self.project_changed.emit()
            return
        self._apply({"algorithm": name, "algorithm_params": params})

    def set_output(
        self,
        drop_suppressed: bool | None = None,
        shuffle_seed: int | None | str = "keep",
        protect_suppressed_group: bool | None = None,
    ) -> None:
        """Output options of the release (drop suppressed rows, shuffle seed, the group of kept
        suppressed records of at least k)."""
        changes: dict[str, Any] = {}
        if drop_suppressed is not None and drop_suppressed != self._project.drop_suppressed:
            changes["drop_suppressed"] = bool(drop_suppressed)
        protect = protect_suppressed_group
        if protect is not None and protect != self._project.protect_suppressed_group:
            changes["protect_suppressed_group"] = bool(protect)
        if shuffle_seed != "keep" and shuffle_seed != self._project.shuffle_seed:
            changes["shuffle_seed"] = shuffle_seed
        if changes:
            self._apply(changes)

    def set_public_list(self, public: PublicList | None) -> None:
        """The public list of the linkage demonstration and its join (kept in the project file; no
        writer may replace the list while the project names it)."""
        if public != self._project.public_list:
            self._apply({"public_list": public})

    def set_report_details(self, details: ReportDetails) -> None:
        """The report's sign-off fields: purpose, recipient, approved by (kept in the project file)."""
        if details != self._project.report:
            self._apply({"report": details})

    # --- data and projects -------------------------------------------------------------------------------
    def set_table(
        self,
        table: Table,
        facts: TableFacts | None = None,
        type_overrides: dict[str, tuple[Any, str | None]] | None = None,
        preview: pd.DataFrame | None = None,
        sampled: frozenset[str] = frozenset(),
    ) -> None:
        """A newly imported table: a fresh project with the engine's role suggestions pre-filled.

        Roles suggested by a column's name (a name is an identifier, a date of birth or a postcode a
        quasi-identifier, a diagnosis sensitive; in English, German, French and Spanish) and likely
        identifiers (almost unique values) are applied; every other column starts insensitive, with the
        suggestion made from its values shown beside it. Column types the user chose in the import
        dialog (``type_overrides``) are kept in the project, and so are the engine settings. A table
        source not loaded whole comes with its first rows (``preview``).
        """
        self._table = table
        self._preview = preview
        self._sampled = frozenset(sampled)
        self._cache = ColumnCache(table, facts)
        self._issues = None
        roles = {
            c: (s.role if s.role is not None and (s.confident or s.flagged) else Role.INSENSITIVE)
            for c, s in self._cache.suggestions.items()
        }
        for c in self._sampled:  # not counted whole: the user makes it a quasi-identifier (counted then)
            if roles.get(c) in (Role.QUASI_IDENTIFIER, Role.SENSITIVE):
                roles[c] = Role.INSENSITIVE
        keep = self._project
        project = Project(
            data_path=table.source,
            data_sha256=table.sha256,
            read_options=table.options,
            roles=roles,
            models=keep.models,
            algorithm=keep.algorithm,
            algorithm_params=dict(keep.algorithm_params),
            engine=keep.engine,
            column_types={c: (str(kind), fmt) for c, (kind, fmt) in (type_overrides or {}).items()},
        )
        self._replace_all(project, None)
        LOG.info("table loaded: %d rows, %d columns", table.n_rows, len(table.columns))
        self.table_changed.emit()
        self.project_changed.emit()

    def set_project(
        self,
        project: Project,
        table: Table,
        path: Path | None,
        warnings: list[str] | None = None,
        facts: TableFacts | None = None,
        preview: pd.DataFrame | None = None,
        sampled: frozenset[str] = frozenset(),
    ) -> None:
        """An opened project with its table (loaded by a worker, with its ``facts``; a table source not
        loaded whole with its first rows, ``preview``)."""
        self._table = table
        self._preview = preview
        self._sampled = frozenset(sampled)
        self._cache = ColumnCache(table, facts)
        self._issues = None
        roles = {c: project.roles.get(c, Role.INSENSITIVE) for c in table.columns}
        roles.update(project.roles)
        project = project.with_changes(roles=roles, data_sha256=project.data_sha256 or table.sha256)
        self._replace_all(project, path)
        self.load_warnings = list(warnings or [])
        self.table_changed.emit()
        self.project_changed.emit()

    def replace_table(
        self,
        table: Table,
        facts: TableFacts,
        preview: pd.DataFrame | None = None,
        sampled: frozenset[str] = frozenset(),
    ) -> None:
        """The same data opened again on another engine (the engine settings changed): the project
        (roles, hierarchies, settings, undo history) is kept; the runs of this session are closed, since
        their tables are (their figures stay in the project)."""
        self._table = table
        self._preview = preview
        self._sampled = frozenset(sampled)
        self._cache = ColumnCache(table, facts)
        self._issues = None
        self._runs.clear()
        self._current = -1
        self._stale = frozenset()
        self._fingerprint = None
        self.input_guard.set(self.input_files())
        self._invalidate()
        self.current_run_changed.emit(-1)
        self.table_changed.emit()
        self.project_changed.emit()

    def set_engine(self, settings: EngineSettings) -> None:
        """Where the rows are counted and the release written, and its settings (kept in the project
        file's ``engine`` section, as the command line's ``--engine`` reads it)."""
        if settings != self._project.engine:
            self._apply({"engine": settings})

    def _replace_all(self, project: Project, path: Path | None) -> None:
        self._project = project
        self._saved = project
        self._path = Path(path) if path is not None else None
        self._imported = []
        self.input_guard.set(self.input_files())
        self._model_values = model_values_of(project.models)
        self._model_error = None
        self._algo_values = dict(project.algorithm_params)
        self._algo_error = None
        self._runs.clear()
        self._current = -1
        self._stale = frozenset()
        self._fingerprint = None
        self.undo_stack.clear()
        self.load_warnings = []
        self._invalidate()
        self.current_run_changed.emit(-1)
        self.path_changed.emit()

    def save(self, path: Path, password: str | None = None) -> None:
        """Save the project atomically (the engine writes a temp file and renames it), readable by the
        user only; ``password`` seals it (authenticated encryption)."""
        path = Path(path)
        project = self._project
        if self._table is not None:
            project = project.with_changes(
                data_path=self._table.source, data_sha256=self._table.sha256, read_options=self._table.options
            )
        project.save(path, password)
        self._project = project
        self._saved = project
        self._path = path
        self.input_guard.set(self.input_files())
        LOG.info("project saved")
        self.path_changed.emit()

    def snapshot_project(self) -> Project:
        """The project as it would be saved now (for the autosave copy)."""
        return self._project

    def config(self) -> AnonymizationConfig:
        """The run configuration (engine's ``Project.config``), with the cached default hierarchy for
        quasi-identifiers that have none (the one the editor shows), so it is not rebuilt per call."""
        assert self._table is not None
        hier = dict(self._project.hierarchies)
        for q in self.columns_with(Role.QUASI_IDENTIFIER):
            if q not in hier:
                hier[q] = self.hierarchy(q)
        return self._project.with_changes(hierarchies=hier).config(self._table)

    # --- runs --------------------------------------------------------------------------------------------
    def run_request(self) -> RunRequest:
        """A frozen snapshot for a worker; raises the first blocking issue as a KanonError."""
        blocker = self.run_blocker()
        if blocker is not None:
            raise ConfigError(blocker)
        config = self.config()
        return RunRequest(self._table, config, self._project.algorithm, dict(self._project.algorithm_params))

    def add_run(
        self, result: AnonymizationResult, label: str | None = None, table: Table | None = None
    ) -> int:
        """Keep a finished run, make it current, and record its summary in the project."""
        table = table if table is not None else self._table
        assert table is not None
        label = label or _(
            RUN_LABEL,
            number=self.next_run_number(),
            algorithm=algorithm_name(result.algorithm),
            k=result.config.k,
        )
        summary = project_summary(result, label)
        self._runs.append(Run(label, result, table, summary.get("config_fingerprint", "")))
        self._project = self._project.with_changes(runs=tuple(self._project.runs) + (summary,))
        index = len(self._runs) - 1
        LOG.info(
            "run added: %s, %d classes, %d suppressed, %.2f s",
            result.algorithm,
            result.n_classes,
            result.suppressed,
            result.runtime_seconds,
        )
        self.run_added.emit(index)
        self.set_current_run(index)
        self._check_stale()  # the settings may have changed while it ran
        self.path_changed.emit()
        return index

    def next_run_number(self) -> int:
        """Runs are numbered across sessions: the project file keeps every earlier run's summary."""
        return len(self._project.runs) + 1

    def saved_runs_to_restore(self) -> list[dict[str, Any]]:
        """Summaries of the project's saved runs that were made with the settings it has now (the ones
        :func:`kanon_engine.project.restore.restore_run` can rebuild), latest last."""
        now = self.current_fingerprint()
        if now is None:
            return []
        return [dict(r) for r in self._project.runs if r.get("config_fingerprint") == now]

    def add_restored_run(self, result: AnonymizationResult, summary: dict[str, Any]) -> int:
        """Put a run rebuilt from the project file back into the history (its summary is already in the
        project, so nothing changes there)."""
        assert self._table is not None
        label = str(
            summary.get("label")
            or _(
                RUN_LABEL,
                number=len(self._runs) + 1,
                algorithm=algorithm_name(result.algorithm),
                k=result.config.k,
            )
        )
        fingerprint = str(summary.get("config_fingerprint", ""))
        self._runs.append(Run(label, result, self._table, fingerprint, restored=True))
        index = len(self._runs) - 1
        self.run_added.emit(index)
        self.set_current_run(index)
        self._check_stale()
        return index

    def set_current_run(self, index: int) -> None:
        if not -1 <= index < len(self._runs):
            raise IndexError(f"no run {index}")
        if index != self._current:
            self._current = index
            self.current_run_changed.emit(index)
