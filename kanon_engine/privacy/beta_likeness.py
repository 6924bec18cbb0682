"""beta-likeness: in every class, no sensitive value is much more frequent than in the whole table, by
relative gain (Cao & Karras 2012, "Publishing microdata with a robust privacy guarantee", PVLDB 5(11)):
for every value s present in a class, (p_class(s) - p_table(s)) / p_table(s) <= beta (basic), or
<= min(beta, -ln p_table(s)) (enhanced: rare values may not gain more than their own information content),
as ARX's ``BasicBLikeness`` and ``EnhancedBLikeness`` check it.

It bounds what an attacker learns about a sensitive value, not who a record is: pair it with k-anonymity
or a risk model. A merge of classes gives each value a share between the parts' shares, so a merge of
passing classes passes (monotone without suppression); with suppression the searches prune with the share
of a class's records that fail in every split of it (:meth:`BetaLikeness.assess`).
Checked for all classes at once on the sparse histograms (one pass over the (class, value) pairs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec, choice_spec
from kanon_engine.privacy.base import (
    ClassStats,
    SensitiveValueModel,
    number,
)

BETA = ParamSpec(
    "beta",
    N_("beta (beta-likeness)"),
    "float",
    None,
    N_(
        "No sensitive value may be more than beta times more frequent (relative gain) in a group than in "
        "the whole table (beta-likeness); empty to skip."
    ),
    minimum=0.0,
    above=True,
    presets=(0.5, 1.0, 2.0, 5.0),
)
BETA_VARIANT = choice_spec(
    "beta_variant",
    N_("beta-likeness variant"),
    "enhanced",
    N_(
        "basic: every value's gain at most beta; enhanced: rare values' gain also at most -ln of their share."
    ),
    {"basic": N_("Basic"), "enhanced": N_("Enhanced (rare values held tighter)")},
    refusal=N_("The beta-likeness variant must be one of {choices}; got '{value}'."),
)


@dataclass(frozen=True)
class BetaLikeness(SensitiveValueModel):
    """Every value present in a class gains at most beta relative to its share in the table."""

    beta: float
    sensitive: str | None = None
    variant: str = "enhanced"
    name: ClassVar[str] = "beta-likeness"
    title: ClassVar[str] = N_("beta-likeness")
    counts_persons: ClassVar[bool] = False
    params: ClassVar[tuple[ParamSpec, ...]] = (BETA, BETA_VARIANT)
    fields_of_params: ClassVar[dict[str, str]] = {"beta_variant": "variant"}

    def check_settings(self) -> None:
        beta = BETA.number_in_range(self.beta, finite=True)
        object.__setattr__(self, "beta", beta)
        BETA_VARIANT.refuse_unknown(self.variant)

    def _shares(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per (class, value) pair: the class, the value's share in the class, the highest share it may
        have, and whether it fails."""
        cls, p, q = stats.shares(self.protected)
        limit = np.minimum(self.beta, -np.log(q)) if self.variant == "enhanced" else self.beta
        return cls, p, q * (1.0 + limit), (p - q) / q > limit

    def passes(self, stats: ClassStats) -> np.ndarray:
        cls, _p, _top, bad = self._shares(stats)
        return np.bincount(cls[bad], minlength=stats.n_classes) == 0

    def assess(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray]:
        """A value over its highest share r in a class (share p) stays over it in some part of every split,
        and parts holding it at most at r can take at most r of their records: at least (p - r) / (1 - r)
        of the class's records are in failing parts of any split (the bound the searches prune with)."""
        cls, p, top, bad = self._shares(stats)
        ok = np.bincount(cls[bad], minlength=stats.n_classes) == 0
        need = np.where(bad & (top < 1.0), (p - top) / np.maximum(1.0 - top, 1e-300), 0.0)
        share = np.zeros(stats.n_classes)
        np.maximum.at(share, cls, np.clip(need - 1e-9, 0.0, 1.0))
        return ok, share

    def describe(self) -> str:
        text = (
            N_(
                "Enhanced {beta}-likeness on '{column}': in every group, no value of it is more frequent "
                "than in the whole table by a relative gain above {beta} (nor, for rare values, above -ln "
                "of their share)."
            )
            if self.variant == "enhanced"
            else N_(
                "Basic {beta}-likeness on '{column}': in every group, no value of it is more frequent than "
                "in the whole table by a relative gain above {beta}."
            )
        )
        return _(text, beta=formats.decimal(self.beta, 6), column=self.sensitive)

    def short(self) -> str:
        return _(
            "beta = {beta} on {sensitive} ({variant})",
            beta=number(self.beta),
            sensitive=self.sensitive,
            variant=BETA_VARIANT.choice_label(self.variant),
        )
