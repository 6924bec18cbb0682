"""The inputs about the population that some models need besides the table, declared once and shared:

- the **population size** N (k-map with an estimate, population uniqueness): a number, with ARX's region
  figures as presets;
- a **population table** (k-map with real counts, journalist profitability): a file with the quasi-
  identifier columns, one row per person (or a ``count`` column giving the people of each row);
- a **research subset** (delta-presence): which records of the table are released, as a column of 0 and
  1, or a file of those records. The table is then the population and only the subset is released (as
  in ARX, where the table is the population and a ``DataSubset`` marks the sample).

:func:`kanon_engine.algorithms.population_source.prepare_inputs` turns them into what a run counts
with (before any row is read for the search): the table restricted to the research subset, and the
population as points
(:class:`~kanon_engine.core.population_counts.PopulationPoints`) with the run's hierarchies. Each bad
input is one sentence naming the file, column, row or value: a population smaller than the table, a
subset column that is not 0/1, a population table lacking a combination of the data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.core.encoding import encode_quasi_identifier
from kanon_engine.core.frequency import group_columns
from kanon_engine.core.population_counts import PopulationPoints
from kanon_engine.data.io import read_table
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec
from kanon_engine.privacy.base import int_param
from kanon_engine.privacy.population_estimates import REGION_NAMES, REGIONS

#: The column of a population table that gives the people of each row (optional).
COUNT_COLUMN = "count"

POPULATION_SIZE = ParamSpec(
    "population_size",
    N_("Population size"),
    "int",
    None,
    N_(
        "How many people live in the population the data were drawn from (at least the records of the "
        "table); the presets are ARX's figures for regions."
    ),
    minimum=1,
    presets=tuple(REGIONS.values()),
    preset_labels=tuple(REGION_NAMES.values()),
)
POPULATION_TABLE = ParamSpec(
    "population_table",
    N_("Population table"),
    "text",
    None,
    N_(
        "A file of the population the data were drawn from, with the quasi-identifier columns: one row "
        "per person, or a column 'count' with the people of each row. Only as good as the table."
    ),
)
RESEARCH_SUBSET = ParamSpec(
    "research_subset",
    N_("Research subset"),
    "text",
    None,
    N_(
        "Which records are released: a column of the table holding 1 for them and 0 for the others, or "
        "a file of those records. The whole table is then the population."
    ),
)


def population_words(size: int) -> str:
    """A population size as people read it, with its region's name when it is one of ARX's figures."""
    for key, value in REGIONS.items():
        if value == size:
            return _("{region} ({n} people)", region=_(REGION_NAMES[key]), n=formats.count(size))
    return _("{n} people", n=formats.count(size))


def population_size_of(size: Any, missing: str) -> int:
    """The population size a model was given, a whole number of at least 1, or a ConfigError: the
    sentence ``missing`` (a catalog id) when none was given."""
    if size is None:
        raise ConfigError(_(missing), where="population-size")
    return int_param("population_size", size, 1)


def require_population_size(size: int, records: int, where: str = "population-size") -> None:
    """A population is at least as large as the table drawn from it (one sentence otherwise)."""
    if size < records:
        raise ConfigError(
            _(
                "The population ({population}) is smaller than the table, which has {records} records.",
                population=formats.count(size),
                records=formats.count(records),
            ),
            hint=_("Give the number of people in the population the table was drawn from."),
            where=where,
        )


def encode_population(
    frame: pd.DataFrame, config: Any, name: str, people: np.ndarray | None = None
) -> PopulationPoints:
    """The population's points: its rows' quasi-identifiers as leaf codes of the run's hierarchies."""
    qi = config.quasi_identifiers
    missing = [q for q in qi if q not in frame.columns]
    if missing:
        raise DataError(
            _("The population table {name} has no column '{column}'.", name=name, column=missing[0]),
            hint=_("It needs every quasi-identifier: {columns}.", columns=", ".join(qi)),
            where=missing[0],
        )
    codes = np.stack([encode_quasi_identifier(frame[q], config.hierarchies[q]) for q in qi])
    weights = np.ones(len(frame), dtype=np.int64) if people is None else people
    sizes = [len(config.hierarchies[q].values) for q in qi]
    return PopulationPoints.of(codes, weights, sizes, name)


def read_population(path: str, config: Any) -> PopulationPoints:
    """A population table file as points (a column ``count``, when present, gives each row's people)."""
    file = Path(path)
    if not file.is_file():
        raise DataError(
            _("The population table '{path}' does not exist.", path=str(path)),
            hint=_("Give the path of a CSV file with the quasi-identifier columns."),
            where="population-table",
        )
    frame = read_table(file).frame
    people = None
    if COUNT_COLUMN in frame.columns:
        counts = pd.to_numeric(frame[COUNT_COLUMN], errors="coerce")
        bad = np.flatnonzero(~(counts.notna() & (counts >= 0) & (counts == counts.round())).to_numpy())
        if len(bad):
            raise DataError(
                _(
                    "The column 'count' of {file} must hold whole numbers of people; row {row} has "
                    "'{value}'.",
                    file=file.name,
                    row=int(bad[0]) + 1,
                    value=str(frame[COUNT_COLUMN].iloc[bad[0]]),
                ),
                where=COUNT_COLUMN,
            )
        people = counts.to_numpy(dtype=np.int64)
    return encode_population(frame, config, file.name, people)


def require_combinations(enc: Any, population: PopulationPoints) -> None:
    """Every combination of quasi-identifier values of the data is in the population (a population that
    lacks one cannot be the population the data were drawn from): one sentence naming the first lacking."""
    sizes = [len(h.values) for h in enc.hierarchies]
    both = np.concatenate([enc.codes, population.codes], axis=1).astype(np.int64)
    ids, n = group_columns(list(both), sizes)
    held = np.zeros(n, dtype=bool)
    held[ids[enc.n_points :][population.people > 0]] = True
    lacking = np.flatnonzero(~held[ids[: enc.n_points]])
    if len(lacking):
        row = enc.codes[:, lacking[0]]
        values = ", ".join(f"{q} = {h.values[int(c)]}" for q, h, c in zip(enc.qi, enc.hierarchies, row))
        raise DataError(
            _(
                "The population {name} lacks a combination present in the data: {values}.",
                name=population.name,
                values=values,
            ),
            hint=_("A population table must hold every person of the data; check that it is the right file."),
            where="population-table",
        )


def in_memory_table(source: Any) -> Any:
    """The loaded table of an in-memory source (a research subset needs one): one sentence otherwise."""
    if not getattr(source, "in_memory", False):
        raise ConfigError(
            _("A research subset needs the table in memory; choose the in-memory engine (--engine memory)."),
            where="research-subset",
        )
    return source.table


def subset_rows(frame: pd.DataFrame, subset: str) -> np.ndarray:
    """The rows of the research subset: a column of 0 and 1, or a file of those records."""
    if subset in frame.columns:
        values = frame[subset].astype(str).str.strip()
        bad = np.flatnonzero(~values.isin(["0", "1"]).to_numpy())
        if len(bad):
            raise DataError(
                _(
                    "The research-subset column '{column}' must hold only 0 and 1; row {row} has '{value}'.",
                    column=subset,
                    row=int(bad[0]) + 1,
                    value=str(frame[subset].iloc[bad[0]]),
                ),
                where=subset,
            )
        keep = (values == "1").to_numpy()
    else:
        keep = _rows_of_file(frame, subset)
    if not keep.any():
        raise DataError(_("The research subset '{subset}' holds no record.", subset=subset), where=subset)
    return keep


def _rows_of_file(frame: pd.DataFrame, path: str) -> np.ndarray:
    """The rows of ``frame`` a file of records names (each file row one distinct equal row of the table)."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(
            _("The research subset '{subset}' is neither a column of the table nor a file.", subset=path),
            where="research-subset",
        )
    sub = read_table(file).frame
    common = [c for c in frame.columns if c in sub.columns]
    left = frame[common].astype(str).assign(_n=frame.groupby(common, sort=False).cumcount().to_numpy())
    right = sub[common].astype(str).assign(_n=sub.groupby(common, sort=False).cumcount().to_numpy())
    left["_row"] = np.arange(len(frame))
    right["_sub"] = np.arange(len(sub))
    merged = right.merge(left, on=[*common, "_n"], how="left")
    lost = merged["_row"].isna().to_numpy()
    if lost.any():
        raise DataError(
            _(
                "Row {row} of the research subset {file} is not a record of the table.",
                row=int(merged["_sub"].to_numpy()[lost][0]) + 1,
                file=file.name,
            ),
            where="research-subset",
        )
    keep = np.zeros(len(frame), dtype=bool)
    keep[merged["_row"].to_numpy(dtype=np.int64)] = True
    return keep
