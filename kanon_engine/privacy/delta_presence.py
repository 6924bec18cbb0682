"""delta-presence: whether a person of the population is in the released data can be inferred with a
probability between delta_min and delta_max only (Nergiz, Atzori & Clifton 2007, "Hiding the presence of
individuals from shared databases", SIGMOD). The table is the population; a research subset (a column of
0 and 1, or a file of records, :mod:`.population_inputs`) is what is released. For every released class,
delta = (records of the subset in it) / (people of the population in it) must lie in [min, max], as ARX's
``DPresence`` checks it; people of the population in combinations without any released record show that
they are not in the release (delta = 0), which no suppression can hide, so with delta_min > 0 such a node
fails.

It protects membership in the data set, not which record is whose; only the subset is released. A merge
of classes gives a delta between the parts' (monotone without suppression); with suppression the searches
do not prune by it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec, parse_number
from kanon_engine.privacy.base import ClassStats, PrivacyModel, Requirement, number
from kanon_engine.privacy.population_inputs import RESEARCH_SUBSET

DELTA_PRESENCE = ParamSpec(
    "delta_presence",
    N_("delta-presence (min,max)"),
    "text",
    None,
    N_(
        "The lowest and highest probability, written min,max (for example 0,0.5), with which one can infer "
        "that a person of the population is in the released subset; needs the research subset."
    ),
)


def parse_bounds(value: Any) -> tuple[float, float]:
    """``min,max`` (or a pair) as two numbers with 0 <= min <= max <= 1; one sentence otherwise."""
    try:
        parts = value if isinstance(value, (tuple, list)) else str(value).replace(";", ",").split(",")
        low, high = (parse_number(p) for p in parts)
    except (TypeError, ValueError):
        low = high = float("nan")
    if not 0.0 <= low <= high <= 1.0:
        raise ConfigError(
            _(
                "delta-presence must be two numbers min,max with 0 <= min <= max <= 1; got '{value}'.",
                value=str(value),
            ),
            where="delta-presence",
        )
    return float(low), float(high)


@dataclass(frozen=True)
class DeltaPresence(PrivacyModel):
    """delta_min <= subset / population <= delta_max in every released class."""

    delta_presence: str
    research_subset: str = ""
    name: ClassVar[str] = "delta-presence"
    title: ClassVar[str] = N_("delta-presence")
    counts_persons: ClassVar[bool] = False
    params: ClassVar[tuple[ParamSpec, ...]] = (DELTA_PRESENCE, RESEARCH_SUBSET)
    requires: ClassVar[frozenset[Requirement]] = frozenset({Requirement.POPULATION})
    judges_release: ClassVar[bool] = True
    threat: ClassVar[str] = "presence"
    whole_records_refusal: ClassVar[str] = N_(
        "delta-presence is checked per group of one generalization of whole records, which "
        "{algorithm} does not make: choose optimal, heuristic, samarati, incognito or datafly."
    )

    def __post_init__(self) -> None:
        low, high = parse_bounds(self.delta_presence)
        object.__setattr__(self, "delta_presence", f"{low:g},{high:g}")
        if not self.research_subset:
            raise ConfigError(
                _("delta-presence needs the research subset (--research-subset COLUMN or FILE)."),
                where="research-subset",
            )

    @property
    def bounds(self) -> tuple[float, float]:
        return parse_bounds(self.delta_presence)

    def passes(self, stats: ClassStats) -> np.ndarray:
        low, high = self.bounds
        people = stats.count(Requirement.POPULATION)
        delta = np.where(stats.sizes > 0, stats.sizes / np.maximum(people, 1), 0.0)
        return (delta >= low) & (delta <= high)

    def release_suppression(
        self, stats: ClassStats, released: np.ndarray, allowance: int
    ) -> np.ndarray | None:
        """People in combinations the subset does not hold are seen to be absent (delta = 0)."""
        if self.bounds[0] > 0 and stats.count_outside(Requirement.POPULATION) > 0:
            return None
        return np.zeros(len(released), dtype=bool)

    def describe(self) -> str:
        low, high = self.bounds
        return _(
            "({low}, {high})-presence for the research subset {subset}: for every person of the whole "
            "table, the release shows them in it with a probability from {low} to {high}. It hides "
            "membership, not which record is whose.",
            low=formats.decimal(low, 6),
            high=formats.decimal(high, 6),
            subset=self.research_subset,
        )

    def short(self) -> str:
        low, high = self.bounds
        return _("delta-presence {low} to {high}", low=number(low), high=number(high))

    @classmethod
    def from_values(cls, values: Mapping[str, Any], sensitive: str | None) -> PrivacyModel | None:
        if not cls.chosen(values):
            return None
        return cls(values["delta_presence"], values.get("research_subset") or "")
