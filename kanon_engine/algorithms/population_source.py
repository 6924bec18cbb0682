"""The population inputs of a run tied to its source, before any row is counted for the search (the
inputs themselves, and their checks, are :mod:`kanon_engine.privacy.population_inputs`): the table
restricted to the research subset (delta-presence: only the subset is released, the whole table is the
population, as ARX's ``DataSubset``), and the population's points attached to the encoded table."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from kanon_engine.i18n import _
from kanon_engine.privacy.population_inputs import (
    encode_population,
    in_memory_table,
    read_population,
    require_combinations,
    require_population_size,
    subset_rows,
)
from kanon_engine.sources import InMemorySource


def prepare_inputs(source: Any, config: Any) -> Any:
    """The source a run counts (the research subset's records when a model names one) with the population
    attached as ``source.population_points`` (None when no model needs one); every population input
    checked first."""
    models = config.models
    subset = next((m.research_subset for m in models if getattr(m, "research_subset", None)), None)
    table_file = next((m.population_table for m in models if getattr(m, "population_table", None)), None)
    population = None
    if subset is not None:
        table = in_memory_table(source)
        frame = table.frame
        keep = subset_rows(frame, subset)
        population = encode_population(frame, config, _("the whole table"))
        source = restricted_source(source, table, keep)
    elif table_file is not None:
        population = read_population(table_file, config)
    for m in models:
        size = getattr(m, "population_size", None)
        if size is not None:
            require_population_size(int(size), source.n_rows)
    source.population_points = population
    return source


def attach_population(enc: Any, source: Any) -> Any:
    """The encoded points of a run with the population of its source (see :func:`prepare_inputs`), after
    checking that the population holds every combination of the data."""
    population = getattr(source, "population_points", None)
    if population is None:
        return enc
    require_combinations(enc, population)
    return dataclasses.replace(enc, population=population)


def restricted_source(source: Any, table: Any, keep: np.ndarray) -> Any:
    """An in-memory source of the subset's records only (the release holds nothing else)."""
    frame = table.frame.loc[keep].reset_index(drop=True)
    return InMemorySource(dataclasses.replace(table, frame=frame), getattr(source, "reason", ""))
