"""The person column in a run's points (:mod:`kanon_engine.sources.plan.points`).

Under the person role a point is a distinct combination of quasi-identifier leaves, sensitive values
*and person*, so every point belongs to one person and the frequency sets can count distinct persons per
class (:mod:`kanon_engine.core.persons`). The person column is coded like the others, from its value
counts (one pass, any engine); a blank cell is refused (the rows are named when the table is in memory)
or, when the user chose so, gets the code after the last person: each of its records a person of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.persons import blank_mask, blank_rows_error
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.sources.backends.base import ColumnCoding, TableSource


def person_coding(source: TableSource, config: AnonymizationConfig) -> ColumnCoding | None:
    """Value -> person code of the run's person column (None without the person role): codes 0..P-1
    for the persons, P for a blank cell."""
    name = config.person
    if name is None:
        return None
    source.require_columns([name], _("person column"))
    values, _counts, missing = source.value_counts(name)
    text = np.asarray(values, dtype=object).astype(str)
    blank = np.char.strip(text.astype("U")) == "" if len(text) else np.zeros(0, dtype=bool)
    if (missing or blank.any()) and config.person_blanks != "own":
        raise _blank_rows(source, name, int(missing) + int(_counts[blank].sum()))
    n = int((~blank).sum())
    codes = np.full(len(values), n, dtype=np.int64)
    codes[~blank] = np.arange(n)
    return ColumnCoding(name, tuple(values), codes.astype(np.int32), n, n + 1)


def _blank_rows(source: Any, name: str, total: int) -> Exception:
    """The error naming the rows with a blank person (their numbers when the rows are in memory)."""
    frame = getattr(source, "frame", None)
    if frame is None:
        return blank_rows_error(name, np.zeros(0, dtype=np.int64), total)
    return blank_rows_error(name, np.flatnonzero(blank_mask(frame[name])))


def require_leaf_points(config: AnonymizationConfig, floor: tuple[int, ...], groups: int) -> None:
    """Persons are counted on points that hold the leaves: a table too large for its distinct
    combinations (points counted at coarser levels) is refused with the person role."""
    if config.person is not None and any(floor):
        raise ConfigError(
            _(
                "Counting persons needs every distinct combination of values in memory, but this table has "
                "more than {budget} of them.",
                budget=groups,
            ),
            hint=_("Use fewer quasi-identifiers, or run without the person role."),
            where=config.person,
        )
