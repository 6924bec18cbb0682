"""Which engine reads a table and why, in one line: the workbench's status line, its views and the export
dialog say it with these words (the command line says it with ``note: engine: ...``, see
:func:`kanon_engine.cli.common.note_engine`).

The engine itself is chosen by :func:`kanon_engine.sources.backends.choose.choose_engine`; these are its
names and sentences on screen.
"""

from __future__ import annotations

from pathlib import Path

from kanon_engine.errors import KanonError
from kanon_engine.i18n import N_, _, word_of
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources import InMemorySource, TableSource
from kanon_engine.sources.backends.choose import choose_engine
from kanon_engine.sources.backends.settings import ENGINE_TITLES, EngineSettings

#: Why the engine ran, when the user chose it in the engine settings (the engine's own sentence names
#: the command line).
CHOSEN_IN_SETTINGS = N_("chosen in the engine settings")
#: The engines' short names, in the line that says which engine ran and why.
ENGINE_NAMES = {"memory": N_("In memory"), "duckdb": N_("DuckDB"), "dask": N_("Dask")}
#: The line that says which engine reads the rows and why (the reason is the engine's own sentence).
ENGINE_LINE = N_("Engine: {engine} — {reason}.")
LOADED_WHOLE = N_("the table is loaded whole")
#: Shown by every view that needs the rows of a run in memory when the run streamed them.
NEEDS_ROWS = N_(
    "This view needs the records in memory; this run was made by {engine}, which reads the file without "
    "loading it. The metrics, the groups and the lattice are in the Results and Analysis tabs; export "
    "the release to see its rows."
)


def is_streamed(table: object) -> bool:
    """True when ``table`` is a source whose rows are not held in memory (DuckDB, Dask)."""
    return isinstance(table, TableSource) and not table.in_memory


def engine_for(path: str | Path, settings: EngineSettings) -> str:
    """The engine a data file opens on with these settings (memory, duckdb or dask)."""
    return choose_engine(path, settings)[0]


def engine_name(engine: str) -> str:
    """The engine's short name on screen (In memory, DuckDB, Dask)."""
    return word_of(ENGINE_NAMES, engine)


def engine_title(engine: str) -> str:
    """The engine's name on screen (In memory (pandas), DuckDB (larger than memory), Dask (a cluster))."""
    return word_of(ENGINE_TITLES, engine)


def engine_sentence(table: object | None) -> str:
    """Which engine reads the rows of ``table`` and why, in one line for the user."""
    if table is None:
        return ""
    if not isinstance(table, TableSource) or table.in_memory:
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


def result_engine_sentence(result: AnonymizationResult) -> str:
    """Which engine ran ``result`` and why, in one line."""
    reason = result.engine_reason or _(LOADED_WHOLE)
    return _(ENGINE_LINE, engine=engine_name(result.engine), reason=reason)


def needs_rows_text(result: AnonymizationResult | None) -> str:
    """The one sentence a view shows instead of what it would draw from the rows of a streamed run."""
    return _(NEEDS_ROWS, engine=engine_title(getattr(result, "engine", "duckdb")))
