"""(epsilon, delta)-differential privacy for a table of records, by SafePub (Bild, Kuhn, Prasser, "SafePub:
A Truthful Data Anonymization Algorithm With Strong Privacy Guarantees", PoPETs 2018(1):67-87).

Differential privacy promises that the release would be almost as likely if any one patient's record had
been left out of the table: whatever an attacker knows, the release tells them little more about that
patient than a release without them would. epsilon bounds "almost" (a factor exp(epsilon)); delta is the
small chance that the promise fails.

SafePub keeps each record with probability beta (drawn from the operating system's secure random
source), generalizes the sample with one full-domain transformation (chosen in advance with
``dp_levels``, or by the exponential mechanism over the lattice with ``dp_search_budget`` of epsilon) and
suppresses every class smaller than k. beta and k follow from (epsilon - search budget, delta)
(:mod:`.dp_parameters`). This module holds the model (its settings, its check, its words); the procedure
is an algorithm of its own (:mod:`kanon_engine.algorithms.safepub`) because the sampling and the random
choice of the transformation are what make the release private: no other algorithm can apply this model
(``unsupported_by``), and SafePub applies only this one plus k-anonymity.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec, share_spec
from kanon_engine.privacy.base import AlgorithmLike, ClassStats, PrivacyModel, float_or_nan, number
from kanon_engine.privacy.dp_parameters import DPParameters, derive

#: The algorithm that applies this model (:mod:`kanon_engine.algorithms.safepub`).
SAFEPUB = "safepub"

DP_EPSILON = ParamSpec(
    "dp_epsilon",
    N_("Differential privacy: epsilon"),
    "float",
    None,
    N_(
        "The privacy budget of a differentially private release (SafePub): how much more likely the "
        "release may become because any one patient is in the table; smaller is safer. 1 is common."
    ),
    minimum=0.0,
    above=True,
    presets=(0.5, 1.0, 2.0),
)
DP_DELTA = share_spec(
    "dp_delta",
    N_("Differential privacy: delta"),
    N_(
        "The small chance that the differential-privacy promise fails; far below one over the "
        "number of records."
    ),
    (1e-5, 1e-6),
    default=1e-5,
    above=True,
    below=True,
)
DP_SEARCH_BUDGET = ParamSpec(
    "dp_search_budget",
    N_("Differential privacy: search budget"),
    "float",
    0.1,
    N_(
        "The part of epsilon spent on choosing the generalization from the data (as ARX: 0.1); the rest "
        "goes to sampling. Ignored when the levels are fixed in advance."
    ),
    minimum=0.0,
)
DP_LEVELS = ParamSpec(
    "dp_levels",
    N_("Differential privacy: fixed levels"),
    "text",
    None,
    N_(
        "A generalization chosen in advance, such as age=2,zip=1 (other columns: level 0); then the "
        "whole epsilon goes to sampling. Empty: chosen from the data with the search budget."
    ),
)


@dataclass(frozen=True)
class DifferentialPrivacy(PrivacyModel):
    """(epsilon, delta)-differential privacy by SafePub: classes smaller than the derived k are suppressed
    (the model's per-class check); the sampling and the choice of the transformation are SafePub's."""

    dp_epsilon: float
    dp_delta: float = 1e-5
    dp_search_budget: float = 0.1
    dp_levels: str | None = None
    name: ClassVar[str] = "differential-privacy"
    title: ClassVar[str] = N_("differential privacy")
    params: ClassVar[tuple[ParamSpec, ...]] = (DP_EPSILON, DP_DELTA, DP_SEARCH_BUDGET, DP_LEVELS)
    monotone_with_suppression: ClassVar[bool] = True
    removes_suppressed: ClassVar[bool] = True

    def __post_init__(self) -> None:
        eps = DP_EPSILON.number_in_range(self.dp_epsilon, finite=True)
        delta = DP_DELTA.number_in_range(self.dp_delta)
        budget = float_or_nan(self.dp_search_budget)
        if not self.dp_levels and not 0 < budget < eps:
            raise ConfigError(
                _(
                    "The search budget must be above 0 and below epsilon ({epsilon}); got {value}: to spend "
                    "nothing on the search, fix the levels in advance (--dp-levels).",
                    epsilon=number(eps),
                    value=repr(self.dp_search_budget),
                ),
                where="dp_search_budget",
            )
        object.__setattr__(self, "dp_epsilon", eps)
        object.__setattr__(self, "dp_delta", delta)
        object.__setattr__(self, "dp_search_budget", budget)
        object.__setattr__(self, "dp_levels", self.dp_levels or None)

    @property
    def search_budget(self) -> float:
        """The part of epsilon the search spends: none when the levels are fixed in advance (the setting
        is kept, so the project still has it when the levels are cleared)."""
        return 0.0 if self.dp_levels else self.dp_search_budget

    @cached_property
    def derived(self) -> DPParameters:
        """beta and k for these settings (SafePub's Theorem 1, as ARX computes them)."""
        return derive(self.dp_epsilon, self.dp_delta, self.search_budget)

    def levels(self) -> dict[str, int]:
        """The fixed levels ``age=2,zip=1`` as a mapping (empty when the search chooses them)."""
        out: dict[str, int] = {}
        for item in (self.dp_levels or "").split(","):
            if not item.strip():
                continue
            column, _sep, level = item.partition("=")
            try:
                out[column.strip()] = int(level)
            except ValueError:
                raise ConfigError(
                    _(
                        "Write the fixed levels as column=level, such as age=2; got '{item}'.",
                        item=item.strip(),
                    ),
                    where="dp_levels",
                ) from None
        return out

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.sizes >= self.derived.k

    @property
    def min_class_size(self) -> int:
        return self.derived.k

    def unsupported_by(self, algorithm: AlgorithmLike) -> str | None:
        if algorithm.name == SAFEPUB:
            return None
        return _(
            "Differential privacy needs its own procedure (random sampling and a random choice of the "
            "generalization): choose the algorithm SafePub."
        )

    def describe(self) -> str:
        p = self.derived
        return _(
            "({epsilon}, {delta})-differential privacy (SafePub): each record was kept with probability "
            "{beta} and every group smaller than {k} records was removed.",
            epsilon=number(self.dp_epsilon),
            delta=formats.decimal(self.dp_delta, 12),
            beta=formats.decimal(p.beta, 4),
            k=str(p.k),
        )

    def short(self) -> str:
        return _(
            "epsilon = {epsilon}, delta = {delta}",
            epsilon=number(self.dp_epsilon),
            delta=formats.decimal(self.dp_delta, 12),
        )
