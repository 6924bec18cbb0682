"""Files larger than memory in the workbench (issue 15, item 5): opened as a *table source* instead of
being loaded whole.

The engine decides (:func:`kanon_engine.sources.backends.choose.choose_engine`): a file that would not fit in
memory, or any file when the user chose DuckDB or Dask in the engine settings, is opened with
:func:`~kanon_engine.sources.backends.choose.open_source`, the function the command line opens it with. What
the
workbench then needs is read in one pass by the engine, in a worker: every column's value counts (the
column summaries, the role suggestions, the hierarchy builders and validation work on them, never on
rows), the row count, the file's SHA-256 (the project and the report name it) and the first rows (the
grid's preview). Runs and exports then go through the engine exactly as ``python -m kanon_engine
anonymize --engine duckdb`` does (the algorithms take the source; the export streams through the one
release writer).

Everything here is worker-side or plain text: no widget is touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from kanon_engine.data.roles import suggest_roles
from kanon_engine.data.table import ColumnKind, ReadOptions, Table
from kanon_engine.data.types import detect_counts
from kanon_engine.errors import DataError, KanonError
from kanon_engine.i18n import N_, _
from kanon_engine.progress import ProgressCallback
from kanon_engine.project.validation import TableFacts, analyze_table
from kanon_engine.sources import InMemorySource, TableSource
from kanon_engine.sources.backends.choose import beyond_memory, choose_engine, open_source
from kanon_engine.sources.backends.settings import ENGINE_TITLES, EngineSettings

#: Rows of a large file shown in the data grid (read from the start of the file, never the whole file).
PREVIEW_ROWS = 500

#: Why the engine ran, when the user chose it in the engine settings (the engine's own sentence names
#: the command line).
CHOSEN_IN_SETTINGS = N_("chosen in the engine settings")


#: Rows read first to tell the columns whose values almost all differ (see :func:`profile_source`).
SAMPLE_ROWS = 100_000
#: A column with more distinct values than this share of the first rows is not counted whole.
UNIQUE_SHARE = 0.5


@dataclass(frozen=True)
class OpenedData:
    """What opening a data file computes off the GUI thread: the table (loaded whole) or the table
    source (not loaded), the facts validation needs, for a source its first rows, and the columns whose
    values were only counted in the first rows (``sampled``: nearly every value differs)."""

    table: Any
    facts: TableFacts
    preview: pd.DataFrame | None = None
    sampled: frozenset[str] = frozenset()


def is_streamed(table: Any) -> bool:
    """True when ``table`` is a source whose rows are not held in memory (DuckDB, Dask)."""
    return isinstance(table, TableSource) and not table.in_memory


def engine_for(path: str | Path, settings: EngineSettings) -> str:
    """The engine a data file opens on with these settings (memory, duckdb or dask)."""
    return choose_engine(path, settings)[0]


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


def column_types_of(overrides: dict[str, tuple[ColumnKind, str | None]] | None) -> dict[str, tuple]:
    """The import dialog's type choices as the project file keeps them (kind as text, format)."""
    return {c: (str(kind), fmt) for c, (kind, fmt) in (overrides or {}).items()}


def open_streamed(
    path: str | Path,
    options: ReadOptions | None,
    settings: EngineSettings,
    overrides: dict[str, tuple[ColumnKind, str | None]] | None,
    progress: ProgressCallback,
) -> OpenedData:
    """Open ``path`` as a table source on the engine ``settings`` choose and profile it (worker side)."""
    source = open_source(path, options, settings, column_types_of(overrides))
    return profile_source(source, settings, (), progress)


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
    from kanon_engine.project.validation import value_counts

    progress(0.0, _("counting every value of '{column}'", column=column))
    source.prefetch_value_counts([column], progress)
    if not typed:
        values, counts, missing = source.value_counts(column)
        whole = pd.Series(counts, index=pd.Index(values, dtype=object))
        source.set_column_types({column: detect_counts(whole, missing, column)})
    return value_counts(source, column)


#: The engines' short names, in the line that says which engine ran and why.
ENGINE_NAMES = {"memory": N_("In memory"), "duckdb": N_("DuckDB"), "dask": N_("Dask")}
#: The line that says which engine reads the rows and why (the reason is the engine's own sentence).
ENGINE_LINE = N_("Engine: {engine} — {reason}.")
LOADED_WHOLE = N_("the table is loaded whole")


def engine_name(engine: str) -> str:
    """The engine's short name on screen (In memory, DuckDB, Dask)."""
    return _(ENGINE_NAMES[engine]) if engine in ENGINE_NAMES else engine


def engine_title(engine: str) -> str:
    """The engine's name on screen (In memory (pandas), DuckDB (larger than memory), Dask (a cluster))."""
    return _(ENGINE_TITLES[engine]) if engine in ENGINE_TITLES else engine


def engine_sentence(table: Table | TableSource | None) -> str:
    """Which engine reads the rows of ``table`` and why, in one line for the user."""
    if table is None:
        return ""
    if not is_streamed(table):
        return _(ENGINE_LINE, engine=engine_name(InMemorySource.engine), reason=_(LOADED_WHOLE))
    reason = table.reason or _(CHOSEN_IN_SETTINGS)
    return _(ENGINE_LINE, engine=engine_name(table.engine), reason=reason)


def engine_line_for(path: str | Path, settings: EngineSettings) -> str:
    """The engine line of a file about to be opened, when it will not be loaded whole ("" when it will:
    the import dialog then says nothing more)."""
    try:
        engine, reason = choose_engine(path, settings)
    except (KanonError, OSError):
        return ""
    if engine == InMemorySource.engine:
        return ""
    reason = reason if settings.engine == "auto" else _(CHOSEN_IN_SETTINGS)
    return _(ENGINE_LINE, engine=engine_name(engine), reason=reason)


def result_engine_sentence(result: Any) -> str:
    """Which engine ran ``result`` and why, in one line."""
    reason = result.engine_reason or _(LOADED_WHOLE)
    return _(ENGINE_LINE, engine=engine_name(result.engine), reason=reason)


#: Shown by every view that needs the rows of a run in memory when the run streamed them.
NEEDS_ROWS = N_(
    "This view needs the records in memory; this run was made by {engine}, which reads the file without "
    "loading it. The metrics, the groups and the lattice are in the Results and Analysis tabs; export "
    "the release to see its rows."
)


def needs_rows_text(result: Any) -> str:
    """The one sentence a view shows instead of what it would draw from the rows of a streamed run."""
    return _(NEEDS_ROWS, engine=engine_title(getattr(result, "engine", "duckdb")))
