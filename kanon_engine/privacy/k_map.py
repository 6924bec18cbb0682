"""k-map: every released class matches at least k people of the *population*, not only of the table
(Sweeney 2002; El Emam & Dankar 2008 call it the journalist's k-anonymity). Two forms, one form entry:

- with a **population table** that gives the real counts (:class:`KMapTable`): a class passes when the
  people of the table's population falling into it number at least k. Only as good as the table: a
  population table that is not the population the data were drawn from bounds nothing;
- with an **estimate** from the population size (:class:`KMapEstimate`, ARX's ``KMap`` with a cell-size
  estimator): a class of f records of a sample drawn with fraction n/N stands for a population class whose
  size is modeled as Poisson (or zero-truncated Poisson) with mean (n/N) k; ARX derives from the
  significance level (0.01) the class size k' that a class of the sample must reach so that a population
  class smaller than k is that unlikely, and k-map becomes k'-anonymity (k' <= k). An estimate, under a
  sampling model.

Both are monotone like k-anonymity (merging classes adds people; a class that fails splits into classes
that fail), so the searches prune by them. Only algorithms that release one generalization of whole
records apply them (the population is counted per class of a lattice node).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec, choice_spec, share_spec
from kanon_engine.privacy.base import (
    ClassStats,
    PrivacyModel,
    Requirement,
    int_param,
    number,
)
from kanon_engine.privacy.population_inputs import (
    POPULATION_SIZE,
    POPULATION_TABLE,
    population_size_of,
    population_words,
)

K_MAP = ParamSpec(
    "k_map",
    "k-map",
    "int",
    None,
    N_(
        "Each released group must match at least k people of the population (k-map); needs the population "
        "size (estimated) or a population table (counted); empty to skip."
    ),
    minimum=2,
    presets=(3, 5, 10, 20),
)
K_MAP_ESTIMATOR = choice_spec(
    "k_map_estimator",
    N_("k-map estimator"),
    "poisson",
    N_("How a population group's size is modeled from the sample's (ARX's default: Poisson)."),
    {"poisson": N_("Poisson"), "zero-truncated-poisson": N_("Zero-truncated Poisson")},
    refusal=N_("The k-map estimator must be one of {choices}; got '{value}'."),
)
K_MAP_SIGNIFICANCE = share_spec(
    "k_map_significance",
    N_("k-map significance"),
    N_("The accepted chance that an estimated group is smaller than k in the population (ARX: 0.01)."),
    (0.05, 0.01, 0.001),
    default=0.01,
)


def derived_k(k: int, records: int, population: int, estimator: str, significance: float) -> int:
    """ARX's k' for k-map by estimate (``KMap.calculateKPoisson`` / ``calculateKZeroPoisson``): with
    lambda = (n/N) k and c the first count whose cumulative probability reaches 1 - significance (Poisson
    from 0; zero-truncated Poisson from 1), k' = c + 2 (Poisson) or c + 1 (zero-truncated), at most k and n.
    """
    from scipy import stats as sps  # type: ignore[import-untyped]  # (0.7 s to import: only when asked)

    lam = records / population * k
    threshold = 1.0 - significance
    counts = np.arange(0, k + 1)
    if estimator == "poisson":
        cum = sps.poisson.cdf(counts, lam)
        step = 2
    else:
        counts = counts[1:]
        cum = np.cumsum(sps.poisson.pmf(counts, lam) / sps.poisson.sf(0, lam))
        step = 1
    reached = np.flatnonzero(cum >= threshold)
    value = int(counts[reached[0]]) + step if len(reached) else k
    return int(min(k, value, records))


class KMap(PrivacyModel):
    """What the two forms share: the form, the check of k, the words."""

    family: ClassVar[str] = "k-map"
    title: ClassVar[str] = N_("k-map")
    counts_persons: ClassVar[bool] = False
    params: ClassVar[tuple[ParamSpec, ...]] = (
        K_MAP,
        POPULATION_SIZE,
        POPULATION_TABLE,
        K_MAP_ESTIMATOR,
        K_MAP_SIGNIFICANCE,
    )
    monotone_with_suppression: ClassVar[bool] = True
    guards_identity: ClassVar[bool] = True
    threat: ClassVar[str] = "population"
    whole_records_refusal: ClassVar[str] = N_(
        "k-map is checked per group of one generalization of whole records, which {algorithm} does "
        "not make: choose optimal, heuristic, samarati, incognito or datafly."
    )
    #: the form's sentence for the report (a catalog id with {k} and the form's :meth:`words`)
    sentence: ClassVar[str]
    k_map: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "k_map", int_param("k_map", self.k_map, 2))
        self.check_settings()

    @abstractmethod
    def check_settings(self) -> None:
        """Check the form's other settings (after k), keeping them normalized; one ConfigError sentence."""

    @abstractmethod
    def words(self) -> dict[str, str]:
        """The form's settings as its sentence shows them, besides k."""

    def describe(self) -> str:
        return _(self.sentence, k=str(self.k_map), **self.words())

    @classmethod
    def from_values(cls, values: Mapping[str, Any], sensitive: str | None) -> PrivacyModel | None:
        """k-map on the population table when one is given, else by estimate."""
        if not cls.chosen(values):
            return None
        return (KMapTable if values.get("population_table") else KMapEstimate).built(values, sensitive)

    @classmethod
    def param_visible(cls, name: str, values: Mapping[str, Any]) -> bool:
        if name in (K_MAP_ESTIMATOR.name, K_MAP_SIGNIFICANCE.name):
            return cls.chosen(values) and not values.get("population_table")
        return super().param_visible(name, values)


@dataclass(frozen=True)
class KMapEstimate(KMap):
    """k-map by estimate: ARX's k' from the population size, then k'-anonymity."""

    k_map: int
    population_size: int | None = None
    k_map_estimator: str = "poisson"
    k_map_significance: float = 0.01
    name: ClassVar[str] = "k-map"
    sentence: ClassVar[str] = N_(
        "{k}-map by estimate: every released group stands for at least {k} people of a population of "
        "{population} with probability {confidence} ({estimator} model of group sizes, as ARX "
        "estimates it): an estimate under a sampling model, not a count."
    )

    def check_settings(self) -> None:
        missing = N_("k-map needs the size of the population (--population-size) or a population table.")
        object.__setattr__(self, "population_size", population_size_of(self.population_size, missing))
        K_MAP_ESTIMATOR.refuse_unknown(self.k_map_estimator)
        object.__setattr__(
            self, "k_map_significance", K_MAP_SIGNIFICANCE.number_in_range(self.k_map_significance)
        )

    def k_for(self, records: int) -> int:
        """The class size every released class must reach in a table of ``records`` records."""
        return derived_k(
            self.k_map, records, int(self.population_size or 0), self.k_map_estimator, self.k_map_significance
        )

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.sizes >= self.k_for(stats.enc.n_rows)

    def words(self) -> dict[str, str]:
        return {
            "population": population_words(int(self.population_size or 0)),
            "confidence": formats.percent(1.0 - self.k_map_significance, 1),
            "estimator": K_MAP_ESTIMATOR.choice_label(self.k_map_estimator),
        }

    def short(self) -> str:
        return _(
            "k-map = {k} (N = {n}, {estimator})",
            k=number(self.k_map),
            n=formats.count(int(self.population_size or 0)),
            estimator=self.k_map_estimator,
        )


@dataclass(frozen=True)
class KMapTable(KMap):
    """k-map on a population table: every released class holds at least ``k_map`` of its people."""

    k_map: int
    population_table: str = ""
    name: ClassVar[str] = "k-map-table"
    requires: ClassVar[frozenset[Requirement]] = frozenset({Requirement.POPULATION})
    sentence: ClassVar[str] = N_(
        "{k}-map on the population table {file}: every released group matches at least {k} people "
        "of it. Only as good as the table: it bounds nothing if that is not the population the data "
        "were drawn from."
    )

    def check_settings(self) -> None:
        if not self.population_table:
            raise ConfigError(
                _("k-map on a population table needs the table's file."), where="population-table"
            )

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.count(Requirement.POPULATION) >= self.k_map

    def words(self) -> dict[str, str]:
        return {"file": self.population_table}

    def short(self) -> str:
        return _("k-map = {k} (population table)", k=number(self.k_map))
