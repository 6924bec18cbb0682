"""Profitability: a game between the publisher and an attacker (Wan, Vorobeychik, Xia, Clayton,
Kantarcioglu, Ganta, Heatherly & Malin 2015, "A game theoretic framework for analyzing re-identification
risk", PLoS ONE 10(3)), as ARX's ``ProfitabilityProsecutor`` / ``ProfitabilityJournalist`` play it: a
class is released only when the publisher's expected payout for its records is positive,

    benefit x (1 - information loss) - (loss x p if gain x p - cost > 0 else 0),

with p the attacker's chance of success (1 / class size for the prosecutor, who knows the person is in the
data; 1 / people of the population in the class for the journalist, who needs a population table) and
the information loss of the class the entropy-based share of the domain its generalized values leave open
(log10 of the product of the shares, over log10 of the product of the domain sizes, plus 1). ARX's
defaults: benefit 1200, loss 300, gain 300, cost 4 (per record).

It weighs money, not a fixed bound: a record stays at risk whenever attacking it does not pay. Not
monotone either way (ARX: a coarser class can cost the publisher more than it saves); the searches check
every node that could beat the optimum.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec, choice_spec
from kanon_engine.privacy.base import ClassStats, PrivacyModel, Requirement
from kanon_engine.privacy.population_inputs import POPULATION_TABLE

PROFITABILITY = choice_spec(
    "profitability",
    N_("Profitability (attacker)"),
    None,
    N_(
        "Release a group only when it pays for the publisher against an attacker who knows the person is "
        "in the data (prosecutor) or matches a population table (journalist); empty to skip."
    ),
    {"prosecutor": N_("Prosecutor"), "journalist": N_("Journalist (needs a population table)")},
)


def _money(name: str, label: str, default: float, help_text: str) -> ParamSpec:
    return ParamSpec(name, label, "float", default, help_text, minimum=0.0)


PUBLISHER_BENEFIT = _money(
    "publisher_benefit",
    N_("Publisher benefit"),
    1200.0,
    N_("What publishing one record is worth (ARX: 1200)."),
)
PUBLISHER_LOSS = _money(
    "publisher_loss",
    N_("Publisher loss"),
    300.0,
    N_("What a re-identified record costs the publisher (ARX: 300)."),
)
ADVERSARY_GAIN = _money(
    "adversary_gain",
    N_("Attacker gain"),
    300.0,
    N_("What re-identifying one record is worth to the attacker (ARX: 300)."),
)
ADVERSARY_COST = _money(
    "adversary_cost", N_("Attacker cost"), 4.0, N_("What one attempt costs the attacker (ARX: 4).")
)
_MONEY = (PUBLISHER_BENEFIT, PUBLISHER_LOSS, ADVERSARY_GAIN, ADVERSARY_COST)


def information_loss(stats: ClassStats, levels: tuple[int, ...]) -> np.ndarray:
    """Entropy-based information loss of every class of a node (ARX's
    ``MetricSDNMEntropyBasedInformationLoss``): with share_q the fraction of the hierarchy's leaves under
    the class's value of quasi-identifier q, IL = log10(prod share_q) / log10(prod leaves_q) + 1."""
    enc = stats.enc
    top = float(sum(np.log10(len(h.values)) for h in enc.hierarchies))
    if top == 0 or not np.isfinite(top):
        return np.zeros(stats.n_classes)
    leaves = stats.leaves
    total = np.zeros(stats.n_classes)
    for q, h in enumerate(enc.hierarchies):
        codes = enc.level_maps[q][levels[q]]
        share = np.bincount(codes, minlength=enc.level_sizes[q][levels[q]]) / len(h.values)
        total += np.log10(share)[codes[leaves[q]]]
    return np.clip(total / top + 1.0, 0.0, 1.0)


@dataclass(frozen=True)
class Profitability(PrivacyModel):
    """A class is released only when the publisher's expected payout for it is positive (the prosecutor;
    :class:`JournalistProfitability` for the journalist)."""

    profitability: str = "prosecutor"
    population_table: str | None = None
    publisher_benefit: float = 1200.0
    publisher_loss: float = 300.0
    adversary_gain: float = 300.0
    adversary_cost: float = 4.0
    name: ClassVar[str] = "profitability"
    family: ClassVar[str] = "profitability"
    title: ClassVar[str] = N_("profitability")
    counts_persons: ClassVar[bool] = False
    params: ClassVar[tuple[ParamSpec, ...]] = (PROFITABILITY, POPULATION_TABLE, *_MONEY)
    monotone_without_suppression: ClassVar[bool] = False
    guards_identity: ClassVar[bool] = True
    whole_records_refusal: ClassVar[str] = N_(
        "Profitability weighs each group of one generalization of whole records, which {algorithm} "
        "does not make: choose optimal, heuristic, samarati, incognito or datafly."
    )
    #: the attacker this class plays
    attacker: ClassVar[str] = "prosecutor"

    def __post_init__(self) -> None:
        if self.profitability != self.attacker:
            raise ConfigError(
                _(
                    "The profitability attacker must be one of {choices}; got '{value}'.",
                    choices=", ".join(PROFITABILITY.choices),
                    value=self.profitability,
                ),
                where="profitability",
            )
        for spec in _MONEY:
            object.__setattr__(self, spec.name, spec.number_in_range(getattr(self, spec.name), finite=True))

    def success(self, stats: ClassStats) -> np.ndarray:
        """The attacker's chance of success per class: 1 / class size."""
        return 1.0 / stats.sizes.astype(np.float64)

    def passes(self, stats: ClassStats) -> np.ndarray:
        loss = information_loss(stats, stats.levels)
        success = self.success(stats)
        attacked = self.adversary_gain * success - self.adversary_cost > 0
        payout = self.publisher_benefit * (1.0 - loss) - np.where(
            attacked, self.publisher_loss * success, 0.0
        )
        return payout > 0

    def describe(self) -> str:
        attacker = (
            _("an attacker who matches a population table (journalist)")
            if self.profitability == "journalist"
            else _("an attacker who knows the person is in the data (prosecutor)")
        )
        return _(
            "Profitability against {attacker}: a group is released only when the publisher's expected "
            "payout is positive (benefit {benefit} per record, loss {loss} per re-identified record, "
            "attacker's gain {gain} and cost {cost}). It weighs money: a record stays at risk whenever "
            "attacking it does not pay.",
            attacker=attacker,
            benefit=formats.decimal(self.publisher_benefit, 2),
            loss=formats.decimal(self.publisher_loss, 2),
            gain=formats.decimal(self.adversary_gain, 2),
            cost=formats.decimal(self.adversary_cost, 2),
        )

    def short(self) -> str:
        return _("profitability ({attacker})", attacker=PROFITABILITY.choice_label(self.profitability))

    @classmethod
    def from_values(cls, values: Mapping[str, Any], sensitive: str | None) -> PrivacyModel | None:
        if not cls.chosen(values):
            return None
        money = {s.name: s.default if values.get(s.name) is None else values[s.name] for s in _MONEY}
        attacker = values["profitability"]
        table = values.get("population_table") or None
        if attacker == "journalist":
            return JournalistProfitability(attacker, table, **money)
        return Profitability(attacker, None, **money)


@dataclass(frozen=True)
class JournalistProfitability(Profitability):
    """Profitability against the journalist: the chance of success is 1 / people of the population in
    the class (1 / class size where the population table has none)."""

    name: ClassVar[str] = "profitability-journalist"
    requires: ClassVar[frozenset[Requirement]] = frozenset({Requirement.POPULATION})
    attacker: ClassVar[str] = "journalist"
    threat: ClassVar[str] = "population"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.population_table:
            raise ConfigError(
                _("Journalist profitability needs a population table (--population-table)."),
                where="population-table",
            )

    def success(self, stats: ClassStats) -> np.ndarray:
        people = stats.count(Requirement.POPULATION).astype(np.float64)
        return np.where(people == 0, 1.0 / stats.sizes, 1.0 / np.maximum(people, 1.0))
