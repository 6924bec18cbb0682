"""Table sources: the row-wide steps of a run on one engine (pandas in memory, DuckDB, Dask).

See :mod:`kanon_engine.sources.base` for the seam, :mod:`kanon_engine.sources.points` for counting a
source into the points the algorithms work on, :mod:`kanon_engine.sources.plan` for the release plans an
algorithm returns, and :mod:`kanon_engine.sources.choose` for how an engine is chosen.
"""

from __future__ import annotations

from kanon_engine.data.table import Table
from kanon_engine.sources.base import TableSource
from kanon_engine.sources.memory import InMemorySource


def as_source(data: Table | TableSource) -> TableSource:
    """A table source for ``data``: itself, or a loaded table held in memory."""
    if isinstance(data, TableSource):
        return data
    return InMemorySource(data)


__all__ = ["InMemorySource", "TableSource", "as_source"]
