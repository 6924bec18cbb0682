"""Opening data for the workbench: a file or a project's data, loaded whole or, when it is larger than
memory (or the user chose DuckDB or Dask), opened as a *table source* and profiled (issue 15, item 5).

The engine decides (:func:`kanon_engine.sources.backends.choose.choose_engine`): a file that would not fit
in memory, or any file when the user chose DuckDB or Dask in the engine settings, is opened with
:func:`~kanon_engine.sources.backends.choose.open_source`, the function the command line opens it with.
What the workbench then needs is read in one pass by the engine: every column's value counts (the column
summaries, the role suggestions, the hierarchy builders and validation work on them, never on rows), the
row count, the file's SHA-256 (the project and the report name it) and the first rows (the grid's
preview). Runs and exports then go through the engine exactly as ``python -m kanon_engine anonymize
--engine duckdb`` does (the algorithms take the source; the export streams through the one release
writer). Everything here runs in a worker and touches no widget.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from kanon_engine.data.io import read_table
from kanon_engine.data.roles import Role, suggest_roles
from kanon_engine.data.table import ColumnKind, ReadOptions, Table, apply_type_overrides
from kanon_engine.data.types import detect_counts
from kanon_engine.errors import DataError
from kanon_engine.i18n import _
from kanon_engine.progress import ProgressCallback
from kanon_engine.project.project_file import Project
from kanon_engine.project.validation import TableFacts, analyze_table, value_counts
from kanon_engine.release.fileio import clean_stale_temp_files
from kanon_engine.session.engines import CHOSEN_IN_SETTINGS, engine_for
from kanon_engine.sources import TableSource
from kanon_engine.sources.backends.choose import beyond_memory, open_source
from kanon_engine.sources.backends.settings import EngineSettings

#: Rows of a large file shown in the data grid (read from the start of the file, never the whole file).
PREVIEW_ROWS = 500

#: Rows read first to tell the columns whose values almost all differ (see :func:`profile_source`).
SAMPLE_ROWS = 100_000
#: A column with more distinct values than this share of the first rows is not counted whole.
UNIQUE_SHARE = 0.5


@dataclass(frozen=True)
class OpenedData:
    """What opening a data file computes off the GUI thread: the table (loaded whole) or the table
    source (not loaded), the facts validation needs, for a source its first rows, and the columns whose
    values were only counted in the first rows (``sampled``: nearly every value differs)."""

    table: Table | TableSource
    facts: TableFacts
    preview: pd.DataFrame | None = None
    sampled: frozenset[str] = frozenset()


def refuse_too_large(path: Path) -> None:
    """A DataError, before any row is read, when the user chose the in-memory engine for a file beyond
    this computer's memory; it says how to open it instead."""
    too_large = beyond_memory(path)
    if too_large:
        raise DataError(
            _("{reason}, so it cannot be loaded whole.", reason=too_large),
            hint=_(
                "Choose the engine Automatic or DuckDB in the engine settings (Anonymize tab): the file is "
                "then read without loading it whole."
            ),
            where=path.name,
        )


def column_types_of(
    overrides: dict[str, tuple[ColumnKind, str | None]] | None,
) -> dict[str, tuple[str, str | None]]:
    """The import dialog's type choices as the project file keeps them (kind as text, format)."""
    return {c: (str(kind), fmt) for c, (kind, fmt) in (overrides or {}).items()}


def profile_source(
    source: TableSource,
    settings: EngineSettings,
    default_for: tuple[str, ...] | list[str],
    progress: ProgressCallback,
    keep: tuple[str, ...] | list[str] = (),
) -> OpenedData:
    """Everything the workbench shows of a source: the first rows, then every column's value counts in
    one pass over the rows; the source is closed (its temporary files removed) when this fails or is
    cancelled.

    A column whose values almost all differ in the first :data:`SAMPLE_ROWS` rows (a record number, a
    name) is not counted whole: its distinct values would be as many as the rows (10 million strings for
    a 10-million-row file: gigabytes, and tens of seconds in which Python holds its lock and the window
    stops answering). It is summarized from the first rows instead, and counted whole only if the user
    makes it a quasi-identifier or sensitive attribute (:func:`count_column`). Columns ``keep`` (the
    project's quasi-identifiers and sensitive attributes) are always counted whole."""
    try:
        if settings.engine != "auto":
            source.reason = _(CHOSEN_IN_SETTINGS)
        name = source.name()
        progress(0.0, _("reading the first rows of {file}", file=name))
        sample, more = first_rows(source, SAMPLE_ROWS)
        sampled = frozenset(c for c in source.columns if more and c not in keep and near_unique(sample[c]))
        progress(0.0, _("counting the values of every column of {file}", file=name))
        source.prefetch_value_counts([c for c in source.columns if c not in sampled], progress)
        chosen = source.column_types  # the user's type choices (import dialog, project) stay
        source.set_column_types(
            {c: detect_counts(*_sample_counts(sample[c]), c) for c in sampled if c not in chosen}
        )
        progress(0.9, _("computing the fingerprint (SHA-256) of {file}", file=name))
        _sha = source.sha256  # read in chunks once; the project and the report name it
        progress(0.95, _("summarizing the columns"))
        facts = _facts(source, sample, sampled, list(default_for))
    except BaseException:
        source.close()
        raise
    return OpenedData(source, facts, sample.head(PREVIEW_ROWS).reset_index(drop=True), sampled)


def first_rows(source: TableSource, n: int) -> tuple[pd.DataFrame, bool]:
    """The first ``n`` rows of a source as strings, and whether the file has more."""
    parts, rows = [], 0
    for batch in source.batches():
        parts.append(batch)
        rows += batch.num_rows
        if rows > n:
            break
    if not parts:
        return pd.DataFrame(columns=source.columns), False
    frame = pa.Table.from_batches(parts).slice(0, n).to_pandas()
    return frame, rows > n


def near_unique(values: pd.Series) -> bool:
    """Whether almost every value of the first rows differs (:data:`UNIQUE_SHARE`)."""
    return bool(values.nunique(dropna=True) > UNIQUE_SHARE * max(len(values), 1))


def _sample_counts(values: pd.Series) -> tuple[pd.Series, int]:
    return values.value_counts(dropna=True).sort_index(), int(values.isna().sum())


def _facts(
    source: TableSource, sample: pd.DataFrame, sampled: frozenset[str], default_for: list[str]
) -> TableFacts:
    """The facts of :func:`~kanon_engine.project.validation.analyze_table` for the columns counted whole, and
    for the others what the first rows say (their suggestions from the first rows alone)."""
    whole = [c for c in source.columns if c not in sampled]
    facts = analyze_table(_Columns(source, whole), [c for c in default_for if c in whole])
    counts = dict(facts.counts)
    counts.update({c: sample[c].value_counts(dropna=False) for c in sampled})
    found = {s.column: s for s in facts.suggestions}
    if sampled:
        rest = suggest_roles(sample[list(sampled)], column_types=source.column_types)
        found.update({s.column: s for s in rest})
    return TableFacts(tuple(found[c] for c in source.columns if c in found), counts, facts.defaults)


class _Columns:
    """Some columns of a source, as :func:`~kanon_engine.project.validation.analyze_table` reads them."""

    def __init__(self, source: TableSource, columns: list[str]) -> None:
        self._source, self.columns = source, columns

    def __getattr__(self, name: str) -> Any:
        return getattr(self._source, name)

    def preview(self, n: int) -> pd.DataFrame:
        return self._source.preview(n)[self.columns]


def count_column(
    source: TableSource, column: str, progress: ProgressCallback, typed: bool = False
) -> pd.Series:
    """Count a column of a source whole (worker side): a column the profile only sampled, before it
    becomes a quasi-identifier or sensitive attribute (its hierarchy needs every value). Its type is
    detected again from every value, unless the user chose it (``typed``)."""
    progress(0.0, _("counting every value of '{column}'", column=column))
    source.prefetch_value_counts([column], progress)
    if not typed:
        values, counts, missing = source.value_counts(column)
        whole = pd.Series(counts, index=pd.Index(values, dtype=object))
        source.set_column_types({column: detect_counts(whole, missing, column)})
    return value_counts(source, column)


def open_data(
    path: str | Path,
    options: ReadOptions | None,
    settings: EngineSettings,
    overrides: dict[str, tuple[ColumnKind, str | None]] | None,
    progress: ProgressCallback,
) -> OpenedData:
    """A data file the user opened: loaded whole with the type choices of the import dialog
    (``overrides``), or, beyond this computer's memory or on the engine the settings name, opened as a
    table source and profiled. The temporary files a crash left beside it (patient data) go first."""
    path = Path(path)
    clean_stale_temp_files(path.parent)
    if engine_for(path, settings) != "memory":  # a table source, profiled (the grid shows its first rows)
        source = open_source(path, options, settings, column_types_of(overrides))
        return profile_source(source, settings, (), progress)
    refuse_too_large(path)  # the in-memory engine chosen for a file beyond memory: said at once
    progress(0.0, _("reading {file}", file=path.name))
    table = read_table(path, options)
    progress(0.6, _("read {n_rows} rows; summarizing the columns", n_rows=table.n_rows))
    table = apply_type_overrides(table, overrides or {})
    return OpenedData(table, analyze_table(table))


def qi_without_hierarchy(project: Project) -> list[str]:
    """The project's quasi-identifiers that have no hierarchy of their own (they get a default one)."""
    return [
        c for c, r in project.roles.items() if r == Role.QUASI_IDENTIFIER and c not in project.hierarchies
    ]


def open_project_data(project: Project, progress: ProgressCallback) -> tuple[OpenedData, list[str]]:
    """The project's data, loaded whole or opened as a source on the engine its settings choose (the
    command line's :meth:`Project.open_data`) and profiled; with the warnings of reading it."""
    assert project.data_path is not None
    need_default = qi_without_hierarchy(project)
    if engine_for(project.data_path, project.engine) != "memory":
        progress(0.0, _("opening the project's data"))
        source, warnings = project.open_data()
        keep = [c for c, r in project.roles.items() if r in (Role.QUASI_IDENTIFIER, Role.SENSITIVE)]
        return profile_source(source, project.engine, need_default, progress, keep), warnings
    refuse_too_large(Path(project.data_path))  # beyond this computer's memory: said at once
    progress(0.0, _("reading the project's data"))
    table, warnings = project.load_table()
    progress(0.6, _("read {n_rows} rows; summarizing the columns", n_rows=table.n_rows))
    return OpenedData(table, analyze_table(table, need_default)), warnings
