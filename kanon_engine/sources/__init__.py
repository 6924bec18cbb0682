"""Table sources: the row-wide steps of a run on one engine (pandas in memory, DuckDB, Dask).

See :mod:`kanon_engine.sources.backends.base` for the seam, :mod:`kanon_engine.sources.plan.points` for
counting a
source into the points the algorithms work on, :mod:`kanon_engine.sources.plan.release_plan` for the release
plans an
algorithm returns, and :mod:`kanon_engine.sources.backends.choose` for how an engine is chosen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from kanon_engine.core.encoding import encode_table
from kanon_engine.data.persons import person_codes
from kanon_engine.data.table import Table, loaded
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.sources.backends.base import TableSource
from kanon_engine.sources.backends.memory import InMemorySource


def as_source(data: Table | TableSource) -> TableSource:
    """A table source for ``data``: itself, or a loaded table held in memory."""
    if isinstance(data, TableSource):
        return data
    return InMemorySource(data)


def records_in_memory(source: TableSource, what: str) -> Table:
    """The loaded table behind ``source``, for the models that recode single cells of single records
    (cell suppression, local recoding): they work on records, not on counted points, so they need the
    table in memory; any other engine gets one sentence saying so."""
    if not source.in_memory:
        raise ConfigError(
            _(
                "{algorithm} changes single values of single records, so it needs the table in memory; "
                "choose the in-memory engine (--engine memory) or an algorithm that releases one "
                "transformation.",
                algorithm=what,
            ),
            where="engine",
        )
    return source.table  # type: ignore[attr-defined]


def rows_in_memory(source: TableSource, what: str) -> Table:
    """The loaded table behind ``source`` for a command that reads every record (the risk assessment, the
    workload's answers); any other engine gets one sentence saying so, not a traceback."""
    if not source.in_memory:
        raise ConfigError(
            _(
                "{what} reads every record, so it needs the table in memory; choose the in-memory engine "
                "(--engine memory).",
                what=what,
            ),
            where="engine",
        )
    return loaded(source)


def encode_records(
    table: Table, config: AnonymizationConfig, hierarchies: Mapping[str, Hierarchy] | None = None
) -> EncodedTable:
    """The records of a loaded table encoded one row each (no weights), for the cell-level models, on
    the quasi-identifiers' ``hierarchies`` (the configuration's unless given: local suppression's have
    two levels, each value and ``*``)."""
    hierarchies = config.hierarchies if hierarchies is None else hierarchies
    enc = encode_table(
        table, config.quasi_identifiers, hierarchies, config.sensitive, config.sensitive_hierarchies
    )
    return with_persons(enc, table, config)


def with_persons(enc: EncodedTable, table: Table, config: AnonymizationConfig) -> EncodedTable:
    """``enc`` (a loaded table's records, one row each) with the person of every record under the person
    role (:mod:`kanon_engine.data.persons`)."""
    if config.person is None:
        return enc
    table.require_columns([config.person], _("person column"))
    persons, n = person_codes(table.frame[config.person], config.person_blanks)
    return replace(enc, persons=persons, n_persons=n, person_knows=config.person_knows)


if TYPE_CHECKING:
    from kanon_engine.config import AnonymizationConfig
    from kanon_engine.core.encoding import EncodedTable
    from kanon_engine.hierarchy.model import Hierarchy

__all__ = [
    "InMemorySource",
    "TableSource",
    "as_source",
    "encode_records",
    "records_in_memory",
    "with_persons",
    "rows_in_memory",
]
