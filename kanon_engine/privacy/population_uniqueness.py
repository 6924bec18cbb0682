"""Population uniqueness: the estimated share of the population that is unique on the released
quasi-identifiers is at most a threshold (ARX's ``PopulationUniqueness``), by one of four estimators over
the release's class sizes (:mod:`kanon_engine.privacy.population_estimates`: Pitman, Zayatz, SNB, or
Dankar et al.'s rule among them, ARX's default) for a population of a given size.

Judged on the release as a whole: the records released with their values (suppressed records are left
out, as in ARX). When the estimate is too high, the smallest classes are suppressed by ARX's bisection
over their number, within the suppression limit, and the estimate is checked again where it ends
(:func:`~kanon_engine.privacy.release_risk.bisect_suppression`). An estimator without a solution fails the
release unless it has no sample unique (then every estimate is 0): no estimate is not a low estimate.

Not monotone under generalization (ARX: only Zayatz's is), neither with suppression: the searches never
infer satisfaction from another node for it and check every node that could beat the optimum. What it
gives is an estimate under a model of the population; the report says which estimator and population size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec, choice_spec, share_spec
from kanon_engine.privacy.base import ClassStats, number
from kanon_engine.privacy.population_estimates import (
    DANKAR_PITMAN_FRACTION,
    ESTIMATORS,
    SizeHistogram,
    dankar,
    pitman,
    snb,
    zayatz,
)
from kanon_engine.privacy.population_inputs import POPULATION_SIZE, population_size_of, population_words
from kanon_engine.privacy.release_risk import Ladder, ReleaseRiskModel, bisect_suppression

POPULATION_UNIQUENESS = share_spec(
    "population_uniqueness",
    N_("Population uniqueness"),
    N_(
        "The largest estimated share of the population that may be unique on the released "
        "quasi-identifiers; needs the population size; empty to skip."
    ),
    (0.05, 0.01, 0.001),
    percent=True,
    above=True,
)
#: The estimators' names for people (the form, the report and the short form).
ESTIMATOR_WORDS = dict(
    zip(
        ESTIMATORS,
        (
            N_("Pitman (1996)"),
            N_("Zayatz (1991)"),
            N_("SNB (Chen & Keller-McNulty 1998)"),
            N_("Dankar et al. (2012): chooses among them"),
        ),
        strict=True,
    )
)
POPULATION_MODEL = choice_spec(
    "population_model",
    N_("Population estimator"),
    "dankar",
    N_(
        "How the share of population uniques is estimated: Dankar et al.'s rule picks among the others "
        "by the sampling fraction (ARX's default)."
    ),
    ESTIMATOR_WORDS,
    refusal=N_("The population estimator must be one of {choices}; got '{value}'."),
)


def estimate(histogram: SizeHistogram, population: float, estimator: str) -> float | None:
    """The share of population uniques by ``estimator`` (Dankar's rule without falling back to Zayatz
    when Pitman has no solution, as ARX's privacy model does); None when it has no solution."""
    if estimator == "pitman":
        return pitman(histogram, population)
    if estimator == "zayatz":
        return zayatz(histogram, population)
    if estimator == "snb":
        return snb(histogram, population)
    return dankar(histogram, population, fallback=False)[0]


@dataclass(frozen=True)
class PopulationUniqueness(ReleaseRiskModel):
    """The estimated share of population uniques of the release is at most ``population_uniqueness``."""

    population_uniqueness: float
    population_size: int | None = None
    population_model: str = "dankar"
    name: ClassVar[str] = "population-uniqueness"
    title: ClassVar[str] = N_("population uniqueness")
    params: ClassVar[tuple[ParamSpec, ...]] = (POPULATION_UNIQUENESS, POPULATION_MODEL, POPULATION_SIZE)
    monotone_without_suppression: ClassVar[bool] = False
    threat: ClassVar[str] = "population"

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "population_uniqueness", POPULATION_UNIQUENESS.number_in_range(self.population_uniqueness)
        )
        missing = N_("Population uniqueness needs the size of the population (--population-size).")
        object.__setattr__(self, "population_size", population_size_of(self.population_size, missing))
        POPULATION_MODEL.refuse_unknown(self.population_model)

    def release_suppression(
        self, stats: ClassStats, released: np.ndarray, allowance: int
    ) -> np.ndarray | None:
        return bisect_suppression(stats, released, allowance, self._holds)

    def _holds(self, lad: Ladder, p: int) -> bool:
        """Whether the release with its ``p`` smallest classes suppressed passes."""
        h = SizeHistogram.of(lad.sizes[p:])
        if h.classes_of_size(1) == 0:
            return True
        population = float(self.population_size or 0)
        if self.population_model == "dankar" and h.records / population > DANKAR_PITMAN_FRACTION:
            # Dankar's choice there is the smaller of Zayatz and SNB: Zayatz within the bound settles it
            z = zayatz(h, population)
            if z is not None and 0.0 < z <= self.population_uniqueness:
                return True
        share = estimate(h, population, self.population_model)
        return share is not None and 0.0 < share <= self.population_uniqueness

    def describe(self) -> str:
        return _(
            "Population uniqueness at most {share}: estimated by {estimator} for a population of "
            "{population}, no more than that share of the population is unique on the released "
            "quasi-identifiers (an estimate under a model of the population, not a count).",
            share=formats.percent(self.population_uniqueness, 3),
            estimator=_(ESTIMATOR_WORDS[self.population_model]),
            population=population_words(int(self.population_size or 0)),
        )

    def short(self) -> str:
        return _(
            "population uniques <= {share} ({estimator}, N = {n})",
            share=number(self.population_uniqueness),
            estimator=self.population_model,
            n=formats.count(int(self.population_size or 0)),
        )
