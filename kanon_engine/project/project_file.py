"""The project file: one versioned JSON document shared by the GUI (File > Save) and the CLI (--project).

It holds a reference to the data (path relative to the project file, SHA-256 and read options), the
role of every column, the hierarchies (embedded as ARX rows, or a reference to an ARX CSV file), the
privacy models, the algorithm and its parameters, output options, and summaries of past runs. Never
pickle: a project file is data, safe to open from anyone. Saved atomically; older schema versions are
migrated on load.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.io import read_table
from kanon_engine.data.join import JoinSpec, join_files
from kanon_engine.data.persons import blanks_value, knows_text, knows_value
from kanon_engine.data.roles import Role
from kanon_engine.data.table import ReadOptions, Table, TableLike, apply_type_overrides
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.hierarchy import default_hierarchy, read_arx_csv
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.i18n import N_, _
from kanon_engine.privacy import KAnonymity, PrivacyModel, model_from_dict
from kanon_engine.project.public_list import PUBLIC_LIST_FILE, PublicList
from kanon_engine.project.sealed import is_sealed, seal, unseal
from kanon_engine.release.fileio import atomic_write_text, same_file
from kanon_engine.sources.backends.base import TableSource
from kanon_engine.sources.backends.choose import open_source
from kanon_engine.sources.backends.memory import InMemorySource
from kanon_engine.sources.backends.settings import EngineSettings
from kanon_engine.workload import parse_workload

SCHEMA_VERSION = 2


def column_values(table: TableLike, column: str) -> pd.Series:
    """A column's values to build a hierarchy from: the loaded column, or, for a table source that does
    not hold its rows, its distinct values (missing as None): the builders only look at distinct values."""
    frame = getattr(table, "frame", None)  # a loaded table, or a source holding its rows
    if frame is not None:
        return frame[column]
    assert isinstance(table, TableSource)
    values, _counts, missing = table.value_counts(column)
    return pd.Series([*values, *([None] if missing else [])], dtype=object)


#: What a project file is called among the protected inputs (saving may replace it; nothing else may).
PROJECT_FILE = N_("the project file")


@dataclass(frozen=True)
class ReportDetails:
    """What the report's sign-off says besides the date and signature: why the data is released, to
    whom, and who approved it (the workbench's "Report details", the CLI's ``--purpose``,
    ``--recipient`` and ``--approved-by``). Empty fields are left blank to be filled in by hand."""

    purpose: str = ""
    recipient: str = ""
    approved_by: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"purpose": self.purpose, "recipient": self.recipient, "approved_by": self.approved_by}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> ReportDetails:
        d = d or {}
        return cls(*(str(d.get(k) or "") for k in ("purpose", "recipient", "approved_by")))


@dataclass(frozen=True)
class Project:
    """Everything needed to repeat a run, except the data itself."""

    data_path: Path | None = None
    data_sha256: str | None = None
    read_options: ReadOptions = field(default_factory=ReadOptions)
    #: column -> (kind, date format) chosen by the user, applied over type detection on load
    column_types: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    roles: dict[str, Role] = field(default_factory=dict)
    hierarchies: dict[str, Hierarchy] = field(default_factory=dict)
    hierarchy_files: dict[str, str] = field(default_factory=dict)  # column -> file as written
    models: tuple[PrivacyModel, ...] = (KAnonymity(5),)
    algorithm: str = "optimal"
    algorithm_params: dict[str, Any] = field(default_factory=dict)
    drop_suppressed: bool = False
    shuffle_seed: int | None = None
    #: what a suppressed cell shows in the release (see AnonymizationConfig.suppression_mark)
    suppression_mark: str = "*"
    #: the language of the de-identification report (None: English on the command line, the
    #: interface's language in the workbench); see kanon_engine.i18n
    report_language: str | None = None
    #: the engine runs go through (auto, memory, duckdb, dask) and its settings
    engine: EngineSettings = field(default_factory=EngineSettings)
    runs: tuple[dict[str, Any], ...] = ()
    #: the report's sign-off fields (purpose, recipient, approved by)
    report: ReportDetails = field(default_factory=ReportDetails)
    #: the public list of the linkage demonstration (Risk tab, ``--external``), if any
    public_list: PublicList | None = None
    #: the workload of intended analyses, as its text (see :mod:`kanon_engine.workload.parser`), and the
    #: file it was read from (kept so the user knows where it came from; the text is what counts)
    workload_text: str | None = None
    workload_file: str | None = None
    #: kept suppressed records form one group of 0 or >= k records (Datafly's step 4)
    protect_suppressed_group: bool = True
    #: the person role's settings (used when a column has the role "person"; see
    #: :mod:`kanon_engine.data.persons`): stays an attacker knows ("1".."3", "all"), blank person cells
    person_knows: str = "1"
    person_blanks: str = "refuse"
    #: patient tables joined onto the data on the patient key (``--join FILE ON COLUMN``, ``data.join``;
    #: :mod:`kanon_engine.data.join`)
    joins: tuple[Any, ...] = ()
    #: the folder relative hierarchy files are read from (the project file's); not saved, not compared
    base_dir: Path | None = field(default=None, compare=False, repr=False)

    # --- roles ------------------------------------------------------------------------------------------
    def columns_with(self, role: Role) -> tuple[str, ...]:
        return tuple(c for c, r in self.roles.items() if r == role)

    def with_changes(self, **changes: Any) -> Project:
        return replace(self, **changes)

    # --- data -------------------------------------------------------------------------------------------
    def input_files(self) -> list[tuple[Path, str]]:
        """The files a run of this project reads (data, hierarchy files), each with what it is: no
        writer may replace them (see :class:`kanon_engine.release.fileio.InputGuard`)."""
        out: list[tuple[Path, str]] = []
        if self.data_path is not None:
            out.append((Path(self.data_path), _("the data file")))
        for col in self.hierarchy_files:
            out.append((self._hierarchy_path(col), _("the hierarchy file of '{column}'", column=col)))
        if self.public_list is not None:
            out.append((self.public_list.resolved(self.base_dir), _(PUBLIC_LIST_FILE)))
        for join in self.joins:
            out.append((Path(join.path), _("the joined patient table")))
        return out

    def _hierarchy_path(self, column: str) -> Path:
        """The hierarchy file of ``column``; a relative name is taken from the project file's folder."""
        path = Path(self.hierarchy_files[column])
        if not path.is_absolute() and self.base_dir is not None:
            path = self.base_dir / path
        return path

    def load_table(self) -> tuple[Table, list[str]]:
        """Read the data the project points to; warnings (e.g. the file changed since saving)."""
        if self.data_path is None:
            raise ConfigError(_("The project does not name a data file."), where="data")
        table = read_table(self.data_path, self.read_options)
        sha256 = table.sha256
        table, joined = self.joined(table)
        table = apply_type_overrides(table, self.column_types)
        return table, self._changed(sha256) + joined

    def joined(self, table: Any) -> tuple[Any, list[str]]:
        """``table`` with the project's patient tables joined on (:mod:`kanon_engine.data.join`), and
        what the join says; unchanged without joins. A join needs the table in memory."""
        if not self.joins:
            return table, []
        if isinstance(table, Table):
            return join_files(table, self.joins)
        if not getattr(table, "in_memory", False):
            raise ConfigError(
                _("Joining a patient table needs the data in memory; choose the memory engine."),
                where="data.join",
            )
        joined, said = join_files(table.table, self.joins)
        return InMemorySource(joined, table.reason), said

    def _changed(self, sha256: str | None) -> list[str]:
        """The warning when the data file is not the one the project was saved with."""
        if self.data_sha256 and sha256 and sha256 != self.data_sha256 and self.data_path is not None:
            return [
                _(
                    "The data file {name} has changed since the project was saved (its SHA-256 differs).",
                    name=self.data_path.name,
                )
            ]
        return []

    def open_data(self) -> tuple[Any, list[str]]:
        """The project's data as a table source on the project's engine (see
        :func:`kanon_engine.sources.backends.choose.open_source`); warnings as :meth:`load_table`'s."""

        if self.data_path is None:
            raise ConfigError(_("The project does not name a data file."), where="data")
        source = open_source(self.data_path, self.read_options, self.engine, self.column_types)
        changed = self._changed(source.sha256 if self.data_sha256 else None)
        source, joined = self.joined(source)
        return source, changed + joined

    def config(self, table: TableLike) -> AnonymizationConfig:
        """The run configuration; quasi-identifiers without a hierarchy get the default one for their type."""
        qi = self.columns_with(Role.QUASI_IDENTIFIER)
        sensitive = self.columns_with(Role.SENSITIVE)
        table.require_columns(list(self.roles), _("column named in the project"))
        hierarchies = {}
        for q in qi:
            h = self.hierarchies.get(q)
            if h is None:
                h = default_hierarchy(q, column_values(table, q), table.column_types.get(q))
            hierarchies[q] = h
        sens_h = {s: self.hierarchies[s] for s in sensitive if s in self.hierarchies}
        workload = None
        if self.workload_text:
            source = Path(self.workload_file).name if self.workload_file else _("the project's workload")
            workload = parse_workload(self.workload_text, source)
        return AnonymizationConfig(
            quasi_identifiers=qi,
            hierarchies=hierarchies,
            models=self.models,
            sensitive=sensitive,
            identifiers=self.columns_with(Role.IDENTIFIER),
            drop_suppressed=self.drop_suppressed,
            shuffle_seed=self.shuffle_seed,
            suppression_mark=self.suppression_mark,
            sensitive_hierarchies=sens_h,
            workload=workload,
            protect_suppressed_group=self.protect_suppressed_group,
            **self._person_settings(),
        )

    def _person_settings(self) -> dict[str, Any]:
        """The person role's arguments of the run configuration (none without a person column)."""
        persons = self.columns_with(Role.PERSON)
        if not persons:
            return {}
        if len(persons) > 1:
            raise ConfigError(
                _(
                    "Only one column can be the person column; {columns} are given.",
                    columns=", ".join(f"'{c}'" for c in persons),
                ),
                where=persons[1],
            )
        return {"person": persons[0], "person_knows": self.person_knows, "person_blanks": self.person_blanks}

    # --- (de)serialization ------------------------------------------------------------------------------
    def to_dict(self, base_dir: Path | None = None) -> dict[str, Any]:
        def rel(p: Path | None) -> str | None:
            if p is None:
                return None
            if base_dir is not None:
                try:
                    return Path(p).resolve().relative_to(base_dir.resolve()).as_posix()
                except ValueError:
                    pass
            return str(p)

        o = self.read_options
        hier: dict[str, Any] = {}
        for col, h in self.hierarchies.items():
            if col in self.hierarchy_files:
                # a file named relative to where the project was read from is named relative to where
                # it is written now (Save as into another folder must not lose the hierarchies)
                file = self.hierarchy_files[col]
                hier[col] = {"file": file if Path(file).is_absolute() else rel(self._hierarchy_path(col))}
            else:
                hier[col] = {"rows": h.rows()}
        return {
            "schema_version": SCHEMA_VERSION,
            "data": {
                "path": rel(self.data_path),
                "sha256": self.data_sha256,
                "delimiter": o.delimiter,
                "encoding": o.encoding,
                "quotechar": o.quotechar,
                "header": o.header,
                "sheet": o.sheet,
                "column_types": {c: {"kind": k, "date_format": f} for c, (k, f) in self.column_types.items()},
                **({"join": [j.to_dict(rel) for j in self.joins]} if self.joins else {}),
            },
            **(
                {"persons": {"knows": self.person_knows, "blanks": self.person_blanks}}
                if self.columns_with(Role.PERSON)
                else {}
            ),
            "roles": {c: r.value for c, r in self.roles.items()},
            "hierarchies": hier,
            "models": [m.to_dict() for m in self.models],
            "algorithm": {"name": self.algorithm, **self.algorithm_params},
            "output": {
                "drop_suppressed": self.drop_suppressed,
                "shuffle_seed": self.shuffle_seed,
                "protect_suppressed_group": self.protect_suppressed_group,
                **({"report_language": self.report_language} if self.report_language else {}),
                **({"suppression_mark": self.suppression_mark} if self.suppression_mark != "*" else {}),
            },
            "workload": {"text": self.workload_text, "file": self.workload_file}
            if self.workload_text
            else None,
            "engine": self.engine.to_dict(),
            "report": self.report.to_dict(),
            "linkage": self.public_list.to_dict(rel) if self.public_list is not None else None,
            "runs": list(self.runs),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], base_dir: Path, source: str = "project") -> Project:
        d = migrate(d, source)
        data = d.get("data") or {}
        path = data.get("path")
        data_path = None if not path else (base_dir / path if not Path(path).is_absolute() else Path(path))
        column_types: dict[str, tuple[str, str | None]] = {}
        for col, spec in (data.get("column_types") or {}).items():
            kind = spec.get("kind") if isinstance(spec, dict) else None
            if kind not in ("integer", "decimal", "date", "categorical"):
                raise ConfigError(
                    _(
                        "{source}: the type '{kind}' of column '{column}' is unknown; use integer, "
                        "decimal, date or categorical.",
                        source=source,
                        kind=kind,
                        column=col,
                    ),
                    where=col,
                )
            column_types[col] = (kind, spec.get("date_format"))
        roles = _roles_from_dict(d.get("roles") or {}, source)
        hierarchies: dict[str, Hierarchy] = {}
        files: dict[str, str] = {}
        for col, spec in (d.get("hierarchies") or {}).items():
            if "rows" in spec:
                hierarchies[col] = Hierarchy.from_rows(col, spec["rows"])
            elif "file" in spec:
                f = Path(spec["file"])
                hierarchies[col] = read_arx_csv(f if f.is_absolute() else base_dir / f, col)
                files[col] = spec["file"]
            else:
                raise ConfigError(
                    _(
                        "{source}: the hierarchy of '{column}' needs 'rows' or 'file'.",
                        source=source,
                        column=col,
                    ),
                    where=col,
                )
        models = tuple(model_from_dict(m) for m in (d.get("models") or [{"name": "k-anonymity", "k": 5}]))
        algo = dict(d.get("algorithm") or {})
        name = algo.pop("name", "optimal")
        out = d.get("output") or {}
        return cls(
            data_path=data_path,
            data_sha256=data.get("sha256"),
            read_options=ReadOptions(
                delimiter=data.get("delimiter"),
                encoding=data.get("encoding"),
                quotechar=data.get("quotechar"),
                header=data.get("header", True),
                sheet=data.get("sheet"),
            ),
            column_types=column_types,
            roles=roles,
            hierarchies=hierarchies,
            hierarchy_files=files,
            models=models,
            algorithm=name,
            algorithm_params=algo,
            drop_suppressed=bool(out.get("drop_suppressed", False)),
            shuffle_seed=out.get("shuffle_seed"),
            suppression_mark=str(out.get("suppression_mark") or "*"),
            engine=EngineSettings.from_dict(d.get("engine")),
            protect_suppressed_group=bool(out.get("protect_suppressed_group", True)),
            report_language=out.get("report_language") or None,
            runs=tuple(d.get("runs") or ()),
            report=ReportDetails.from_dict(d.get("report")),
            public_list=PublicList.from_dict(d.get("linkage"), base_dir, source),
            workload_text=(d.get("workload") or {}).get("text"),
            workload_file=(d.get("workload") or {}).get("file"),
            base_dir=base_dir,
            **_persons_from_dict(d, data, base_dir, source),
        )

    def save(self, path: Path, password: str | None = None) -> None:
        """Write atomically (temp file + rename): a crash never leaves half a project. Never over the
        project's own data or hierarchy files, nor any other protected input (a registered project
        file may be replaced: that is saving it).

        A project holds patient values (every distinct value of the hierarchies), so the file is
        written for its owner only (0600); with a ``password`` it is sealed with authenticated
        encryption (:mod:`kanon_engine.project.sealed`).
        """
        path = Path(path)
        text = json.dumps(self.to_dict(path.parent), indent=2, ensure_ascii=False) + "\n"
        if password:
            text = seal(text, password)
        atomic_write_text(
            path,
            text,
            encoding="utf-8",
            protect=self.input_files(),
            may_replace=(PROJECT_FILE,),
            private=True,
        )

    @staticmethod
    def is_protected(path: Path) -> bool:
        """Whether the project file at ``path`` is sealed with a password (False if unreadable)."""

        try:
            return is_sealed(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return False

    @classmethod
    def load(cls, path: Path, password: str | None = None) -> Project:
        """Read a project file; a sealed one needs its ``password`` (a PasswordError otherwise)."""

        path = Path(path)
        d = _read_json(path)
        if is_sealed(d):
            d = _parse_json(unseal(d, password, path.name), path)
        if not isinstance(d, dict):
            raise DataError(
                _("The project file {name} is not a kanon project.", name=path.name), where=str(path)
            )
        try:
            project = cls.from_dict(d, path.parent, path.name)
        except (AttributeError, TypeError, ValueError, KeyError):  # a section of the wrong shape
            raise DataError(
                _(
                    "The project file {name} is not a kanon project (a section holds a value of the "
                    "wrong kind).",
                    name=path.name,
                ),
                hint=_("Open a copy saved earlier, or save the project again from the workbench."),
                where=str(path),
            ) from None
        if project.data_path is not None and same_file(project.data_path, path):
            raise DataError(
                _("The project file {name} names itself as its data file.", name=path.name),
                hint=_("Name the table (CSV, Excel or Parquet) in its data path, then open it again."),
                where=str(path),
            )
        return project


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(_("The project file {path} does not exist.", path=path), where=str(path)) from None
    except UnicodeDecodeError as exc:
        raise _not_json(path, exc) from None
    except OSError as exc:
        raise DataError(
            _("The project file {name} cannot be read: {value}.", name=path.name, value=exc.strerror or exc),
            where=str(path),
        ) from None
    return _parse_json(text, path)


def _parse_json(text: str, path: Path) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_once(path.name))
    except RecursionError:
        raise DataError(
            _("The project file {name} is not a kanon project (it is nested too deeply).", name=path.name),
            where=str(path),
        ) from None
    except json.JSONDecodeError as exc:
        raise _not_json(path, exc) from None


def _not_json(path: Path, reason: Exception) -> DataError:
    """The sentence for a project file that is not JSON (at a line and column), or not text."""
    if isinstance(reason, json.JSONDecodeError):
        text = _(
            "The project file {name} is not a kanon project (not valid JSON at line {line}, column "
            "{column}).",
            name=path.name,
            line=reason.lineno,
            column=reason.colno,
        )
    else:
        text = _(
            "The project file {name} is not a kanon project (not valid JSON: {reason}).",
            name=path.name,
            reason=reason,
        )
    return DataError(
        text,
        hint=_("Open a copy saved earlier, or save the project again from the workbench."),
        where=str(path),
    )


def _v1_to_v2(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 adds the report's sign-off fields (``report``) and the linkage demonstration's public
    list (``linkage``); a schema-1 project has neither."""
    return {**d, "schema_version": 2, "report": ReportDetails().to_dict(), "linkage": None}


#: version -> the step that brings a document of that version to the next one.
MIGRATIONS = {1: _v1_to_v2}


def _once(source: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """A JSON object hook refusing a key given twice (JSON keeps the last silently): in ``roles`` that
    would be a column with two roles, of which one would be dropped without a word."""
    role_names = {r.value for r in Role}

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                first = out[key]
                if isinstance(first, str) and isinstance(value, str) and {first, value} <= role_names:
                    raise ConfigError(
                        _(
                            "{source}: the column '{key}' is given two roles, '{first}' and '{value}'; a "
                            "column has one role.",
                            source=source,
                            key=key,
                            first=first,
                            value=value,
                        ),
                        hint=_("Keep one of the two lines in the project file's roles."),
                        where=key,
                    )
                raise ConfigError(
                    _(
                        "{source}: '{key}' is given twice in one section of the project file.",
                        source=source,
                        key=key,
                    ),
                    hint=_("Keep one of the two entries."),
                    where=key,
                )
            out[key] = value
        return out

    return hook


def migrate(d: dict[str, Any], source: str = "project") -> dict[str, Any]:
    """Bring an older project document to the current schema (each step one function of
    :data:`MIGRATIONS`); a newer one is refused, since saving it would drop what this version does not
    know."""
    version = d.get("schema_version", 1)
    if not isinstance(version, int) or version < 1:
        raise ConfigError(
            _(
                "{source} has an unknown schema version ({version}); it is not a kanon project file.",
                source=source,
                version=repr(version),
            ),
            where="schema_version",
        )
    if version > SCHEMA_VERSION:
        raise ConfigError(
            _(
                "{source} was written by a newer kanon (schema {version}); this version reads up to "
                "{schema_version}.",
                source=source,
                version=version,
                schema_version=SCHEMA_VERSION,
            ),
            hint=_("Update kanon to open it."),
            where="schema_version",
        )
    while version < SCHEMA_VERSION:
        d = MIGRATIONS[version](d)
        version = d["schema_version"]
    return d


def _persons_from_dict(
    d: dict[str, Any], data: dict[str, Any], base_dir: Path, source: str
) -> dict[str, Any]:
    """The person settings (``persons``) and joined patient tables (``data.join``) of a project file."""
    persons = d.get("persons") or {}
    joins = data.get("join") or []
    return {
        "person_knows": knows_text(knows_value(persons.get("knows", "1"))),
        "person_blanks": blanks_value(persons.get("blanks")),
        "joins": tuple(JoinSpec.from_dict(j, base_dir, source) for j in joins),
    }


def _roles_from_dict(given: dict[str, Any], source: str) -> dict[str, Role]:
    """The project file's roles; an unknown role is an error naming the column."""
    roles: dict[str, Role] = {}
    for col, role in given.items():
        try:
            roles[col] = Role(role)
        except ValueError:
            raise ConfigError(
                _(
                    "{source}: the role '{role}' of column '{column}' is unknown; use identifier, "
                    "quasi-identifier, sensitive or insensitive.",
                    source=source,
                    role=role,
                    column=col,
                ),
                where=col,
            ) from None
    return roles
