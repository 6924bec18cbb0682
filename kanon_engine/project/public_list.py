"""The public list of a project's linkage demonstration: which file, how it is read, which columns join.

A project may name a *public list* (a voter register, a staff directory: names with age, sex, postcode)
to show the linkage attack of Sweeney 2002 on its release (:mod:`kanon_engine.metrics.linkage`). The project
file
keeps it (``linkage``: path, read options, join), the workbench's Risk tab and the command line
(``--external FILE``, ``--join COLUMN=LIST_COLUMN``) use it, and every writer refuses to overwrite it
(it is one of :meth:`kanon_engine.project.project_file.Project.input_files`). It is read through the same
import
path as the data (:func:`kanon_engine.data.io.read_table`: encoding and delimiter detected unless saved).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kanon_engine.data.io import read_table
from kanon_engine.data.table import ReadOptions, Table, TableLike
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _
from kanon_engine.metrics.linkage import LinkageResult, linkage_attack, suggest_join
from kanon_engine.result import AnonymizationResult

#: What the public list is called among the protected inputs ("... cannot be replaced: it is ...").
PUBLIC_LIST_FILE = N_("the public list")


@dataclass(frozen=True)
class PublicList:
    """A public list file, how to read it, and the join: data column -> the list's column (empty: the
    columns :func:`~kanon_engine.metrics.linkage.suggest_join` proposes)."""

    path: Path
    read_options: ReadOptions = field(default_factory=ReadOptions)
    join: dict[str, str] = field(default_factory=dict)

    def resolved(self, base_dir: Path | None) -> Path:
        """The file's path, a relative one taken from ``base_dir`` (the project file's folder)."""
        if self.path.is_absolute() or base_dir is None:
            return self.path
        return base_dir / self.path

    def to_dict(self, rel: Callable[[Path | None], str | None]) -> dict[str, Any]:
        """The project file's ``linkage`` section (``rel`` writes the path relative to the project)."""
        o = self.read_options
        return {
            "path": rel(self.path),
            "delimiter": o.delimiter,
            "encoding": o.encoding,
            "sheet": o.sheet,
            "join": dict(self.join),
        }

    @classmethod
    def from_dict(
        cls, d: Mapping[str, Any] | None, base_dir: Path | None = None, source: str = "project"
    ) -> PublicList | None:
        """The ``linkage`` section of a project file (None when it names no file); a relative path is
        taken from ``base_dir``, the project file's folder."""
        if not d or not d.get("path"):
            return None
        join = d.get("join") or {}
        if not isinstance(join, dict) or not all(isinstance(v, str) for v in join.values()):
            raise ConfigError(
                _(
                    "{source}: the public list's join must map data columns to the list's columns.",
                    source=source,
                ),
                where="linkage.join",
            )
        options = ReadOptions(delimiter=d.get("delimiter"), encoding=d.get("encoding"), sheet=d.get("sheet"))
        path = Path(d["path"])
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        return cls(path, options, {str(k): v for k, v in join.items()})


def read_public_list(public: PublicList, base_dir: Path | None = None) -> Table:
    """Read the list as data files are read (encoding and delimiter detected unless the project saved
    them); a missing or unreadable file is a plain DataError naming it."""
    return read_table(public.resolved(base_dir), public.read_options)


def join_of(
    public: PublicList | None, list_table: Table, quasi_identifiers: tuple[str, ...]
) -> dict[str, str]:
    """The join to use: the saved one (its quasi-identifiers only), else the suggested pairs."""
    saved = dict(public.join) if public is not None else {}
    if saved:
        return {c: v for c, v in saved.items() if c in quasi_identifiers}
    return {s.column: s.list_column for s in suggest_join(list_table.columns, quasi_identifiers)}


def link_release(
    list_table: Table,
    table: TableLike,
    result: AnonymizationResult,
    join: Mapping[str, str],
    progress: Callable[[float, str], None] | None = None,
) -> LinkageResult:
    """The linkage demonstration of a run: ``list_table`` joined on ``join`` with the original ``table``
    and with ``result``'s release (released labels match the values below them in the hierarchies)."""
    if not join:
        raise ConfigError(
            _(
                "The public list {file} shares no quasi-identifier with the data, so no join is possible.",
                file=list_table.name(),
            ),
            hint=_("Choose the list's column to join with each quasi-identifier."),
            where="linkage.join",
        )
    config = result.config
    return linkage_attack(
        list_table, table, result.release, hierarchies=config.hierarchies, join=join, progress=progress
    )


def project_linkage(project: Any, table: TableLike, result: AnonymizationResult) -> LinkageResult | None:
    """The demonstration of the project's public list for ``result`` (None when it names none): what the
    command line's reports show, as the workbench's export does."""
    public = getattr(project, "public_list", None)
    if public is None:
        return None
    list_table = read_public_list(public, getattr(project, "base_dir", None))
    return link_release(
        list_table, table, result, join_of(public, list_table, result.config.quasi_identifiers)
    )
