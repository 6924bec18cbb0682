"""Choose the engine for a data file, and say why (the user sees which engine ran and the reason).

``auto`` keeps a file in memory when loading it whole is expected to fit comfortably, and otherwise
uses DuckDB (embedded, larger than memory). The estimate is deliberately cautious: a loaded table and a
run take many times the file's size (measured: a 200 MB CSV of 3 million rows took 3.9 GB, about 20
times), so a file is kept in memory when ``IN_MEMORY_FACTOR`` times its size (text) or its rows times
its columns times ``BYTES_PER_CELL`` (Parquet) stays within half of this machine's memory.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kanon_engine.data.io import read_table
from kanon_engine.data.table import ReadOptions, Table, apply_type_overrides
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _, formats
from kanon_engine.release.fileio import reading
from kanon_engine.sources.backends.base import TableSource
from kanon_engine.sources.backends.dask_source import DaskSource
from kanon_engine.sources.backends.duckdb_source import DuckDBSource, physical_memory
from kanon_engine.sources.backends.memory import InMemorySource
from kanon_engine.sources.backends.settings import EngineSettings

#: Memory a loaded text file and its run take, per byte of the file (measured: about 20).
IN_MEMORY_FACTOR = 20
#: Memory per cell of a loaded Parquet file and its run (strings of about ten characters).
BYTES_PER_CELL = 120
#: Share of the machine's memory a run in memory may be expected to take.
MEMORY_SHARE = 0.5


def _gb(n: float) -> str:
    """A size in the language's way of writing numbers (12.3 GB, 12,3 GB)."""
    if n >= 1 << 30:
        return f"{formats.decimal(n / (1 << 30), 1, fixed=True)} GB"
    if n >= 10 << 20:
        return f"{formats.decimal(round(n / (1 << 20)), 0)} MB"
    return f"{formats.decimal(n / (1 << 20), 1, fixed=True)} MB"


def expected_memory(path: Path) -> int:
    """Bytes a run in memory is expected to take for this file."""
    with reading(path) as fh:  # a file the process may not read: one sentence, not a traceback
        magic = fh.read(4)
    size = path.stat().st_size
    if magic == b"PAR1":
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(path).metadata
        return int(meta.num_rows) * int(meta.num_columns) * BYTES_PER_CELL
    return size * IN_MEMORY_FACTOR


def choose_engine(path: str | Path, settings: EngineSettings) -> tuple[str, str]:
    """The engine to use for ``path`` and why (a sentence for the user)."""
    path = Path(path)
    if settings.engine != "auto":
        return settings.engine, _("chosen in the project or with --engine")
    if path.suffix.lower() in (".xlsx",) or not path.is_file():
        return "memory", _("Excel workbooks are read in memory") if path.is_file() else ""
    too_large = beyond_memory(path)
    if too_large:
        return "duckdb", _("{reason}, so DuckDB processes it without loading it whole", reason=too_large)
    return "memory", _("{name} ({size}) fits in memory", name=path.name, size=_gb(path.stat().st_size))


def beyond_memory(path: Path) -> str:
    """Why ``path`` is too large to load whole on this computer ("x.csv (9.5 GB) would need about
    190 GB in memory, more than half of this computer's 23 GB"), or "" when it fits (or cannot be
    told: an Excel workbook, a missing file)."""
    if path.suffix.lower() in (".xlsx",) or not path.is_file():
        return ""
    need = expected_memory(path)
    memory = physical_memory()
    if memory and need > MEMORY_SHARE * memory:
        return _(
            "{name} ({size}) would need about {need} in memory, more than half of this computer's {memory}",
            name=path.name,
            size=_gb(path.stat().st_size),
            need=_gb(need),
            memory=_gb(memory),
        )
    return ""


def open_source(
    path: str | Path,
    options: ReadOptions | None,
    settings: EngineSettings,
    column_types: dict[str, tuple[str, str | None]] | None = None,
) -> TableSource:
    """The table source of a data file on the engine ``settings`` name (or the one ``auto`` picks)."""
    engine, reason = choose_engine(path, settings)
    if engine == "memory":
        table = apply_type_overrides(read_table(path, options), column_types or {})
        return InMemorySource(table, reason)
    if engine == "duckdb":
        source: TableSource = DuckDBSource(
            path, options, memory_limit=settings.memory_limit, temp_dir=settings.temp_dir, reason=reason
        )
    elif engine == "dask":
        source = DaskSource(
            path, options, scheduler=settings.scheduler, workers=settings.workers, reason=reason
        )
    else:
        raise ConfigError(
            _("Unknown engine '{engine}'; choose auto, memory, duckdb or dask.", engine=engine),
            where="engine",
        )
    return with_column_types(source, column_types or {})


def with_column_types(source: TableSource, column_types: dict[str, tuple[str, str | None]]) -> TableSource:
    """The source with the user's type choices over the detected ones (a loaded table is re-wrapped;
    another engine's columns not chosen are detected from their value counts)."""
    if not column_types:
        return source
    if isinstance(source, InMemorySource):
        return InMemorySource(apply_type_overrides(source.table, column_types), source.reason)
    source.set_column_types(apply_type_overrides(Table(pd.DataFrame()), column_types).column_types)
    return source
