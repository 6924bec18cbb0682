"""Average re-identification risk: the mean over the released records of the prosecutor risk 1/f (f the
size of a record's class), that is classes / records, at most a threshold (El Emam & Dankar 2008,
"Protecting privacy using k-anonymity", JAMIA 15(5); El Emam 2013, "Guide to the De-Identification of
Personal Health Information"); optionally also no more than a share of the records in classes whose risk
exceeds a highest risk (ARX's ``AverageReidentificationRisk`` with its two optional bounds).

Judged on the release as a whole: classes are suppressed from the smallest up, as few as the bounds allow
(:mod:`.release_risk`), in both readings of the release (records released with their values; the file,
where kept suppressed records form a group of ``*``). Merging classes lowers classes / records and moves
records out of small classes, so a node with nothing suppressed that passes has only passing
generalizations (monotone without suppression). With suppression that is not proven for the smallest-
first rule, so the searches do not prune by it (they stay exact by checking every node that could beat
the optimum).

Published thresholds (presets, with their sources in the glossary): 0.05 for a public use file (El Emam
et al. 2011, BMC Med Inform Decis Mak 11:53: "between 0.04 and 0.05"); 0.09 and 0.2, the probabilities
of groups of 11 and of 5, the cell sizes of El Emam 2013's precedents (11 for U.S. public releases, 5 the
"cell size of five" rule).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec, share_spec
from kanon_engine.privacy.base import (
    CELL_SIZE_PRECEDENTS,
    PUBLIC_USE_FILE,
    ClassStats,
    Preset,
    number,
)
from kanon_engine.privacy.release_risk import Ladder, ReleaseRiskModel, least_suppression

AVERAGE_RISK = share_spec(
    "average_risk",
    N_("Average risk"),
    N_(
        "The highest average re-identification risk allowed: groups / records of the release "
        "(the menu 'Published thresholds' gives them with their sources); empty to skip."
    ),
    (0.2, 0.1, 0.09, 0.075, 0.05),
    above=True,
)
HIGHEST_RISK = share_spec(
    "highest_risk",
    N_("Highest risk"),
    N_("Optional: a record's risk 1/f counts as high above this (for example 0.2, a group of fewer than 5)."),
    (0.5, 0.33, 0.2, 0.1),
    above=True,
)
RECORDS_AT_RISK = share_spec(
    "records_at_risk",
    N_("Records at high risk"),
    N_("Optional, with the highest risk: the largest share of records whose risk may be above it."),
    (0.0, 0.01, 0.05),
    percent=True,
)


def size_threshold(highest_risk: float) -> int:
    """The smallest class whose records are not at high risk (ARX's ``ParameterTranslation``): 1 / risk,
    rounded up unless the rounded-down size's risk is within 1 % of the given one."""
    size = 1.0 / highest_risk
    floor = math.floor(size)
    if 1.0 / floor - 1.0 / size >= 0.01 * highest_risk:
        floor += 1
    return int(floor)


@dataclass(frozen=True)
class AverageRisk(ReleaseRiskModel):
    """The release's average prosecutor risk (groups / records) is at most ``average_risk``; with
    ``highest_risk``, at most ``records_at_risk`` of its records are in groups smaller than 1 / that."""

    average_risk: float
    highest_risk: float | None = None
    records_at_risk: float | None = None
    name: ClassVar[str] = "average-risk"
    title: ClassVar[str] = N_("average re-identification risk")
    params: ClassVar[tuple[ParamSpec, ...]] = (AVERAGE_RISK, HIGHEST_RISK, RECORDS_AT_RISK)
    presets: ClassVar[tuple[Preset, ...]] = (
        Preset(
            N_("average risk 0.05: a public use file (El Emam et al. 2011)"),
            {"average_risk": 0.05, "highest_risk": None, "records_at_risk": None},
            PUBLIC_USE_FILE,
        ),
        Preset(
            N_("average risk 0.09: one in 11, the cell size of U.S. public releases"),
            {"average_risk": 0.09, "highest_risk": None, "records_at_risk": None},
            CELL_SIZE_PRECEDENTS,
        ),
        Preset(
            N_("average risk 0.2: one in 5, the cell size of five rule"),
            {"average_risk": 0.2, "highest_risk": None, "records_at_risk": None},
            CELL_SIZE_PRECEDENTS,
        ),
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "average_risk", AVERAGE_RISK.number_in_range(self.average_risk))
        if self.highest_risk is not None:
            object.__setattr__(self, "highest_risk", HIGHEST_RISK.number_in_range(self.highest_risk))
            if self.records_at_risk is not None:  # left out: no record above the highest risk (0)
                at_risk = RECORDS_AT_RISK.number_in_range(self.records_at_risk)
                object.__setattr__(self, "records_at_risk", at_risk)
        elif self.records_at_risk is not None:
            object.__setattr__(self, "records_at_risk", None)  # meaningless without a highest risk

    def release_suppression(
        self, stats: ClassStats, released: np.ndarray, allowance: int
    ) -> np.ndarray | None:
        return least_suppression(stats, released, allowance, self._holds)

    def _holds(self, lad: Ladder) -> np.ndarray:
        """Per prefix of suppressed smallest classes: both readings pass (vectorized over prefixes)."""
        t = self.average_risk
        own = (lad.records == 0) | (lad.kept <= t * lad.records)  # records released with their values
        star = lad.star > 0
        shown = lad.kept + star <= t * (lad.records + lad.star)  # the file: the * rows are one more group
        ok = own & (~star | shown)
        if self.highest_risk is None:
            return ok
        small = size_threshold(self.highest_risk)
        at_risk = np.concatenate([[0], np.cumsum(np.where(lad.sizes < small, lad.sizes, 0))])
        left = at_risk[-1] - at_risk  # records at risk among those still released
        cap = float(self.records_at_risk or 0.0)
        own_share = np.where(lad.records > 0, left / np.maximum(lad.records, 1), 0.0) <= cap + 1e-12
        star_risky = star & (lad.star < small)
        shown_share = (left + np.where(star_risky, lad.star, 0)) / np.maximum(lad.records + lad.star, 1)
        return ok & own_share & (~star | (shown_share <= cap + 1e-12))

    def describe(self) -> str:
        text = _(
            "Average re-identification risk at most {risk}: the released groups number at most {risk} "
            "times the released records (the mean of 1/group size over the records).",
            risk=formats.decimal(self.average_risk, 6),
        )
        if self.highest_risk is None:
            return text
        return (
            text
            + " "
            + _(
                "At most {share} of the records are in groups smaller than {size} (risk above {high}).",
                share=formats.percent(float(self.records_at_risk or 0.0), 2),
                size=size_threshold(self.highest_risk),
                high=formats.decimal(self.highest_risk, 6),
            )
        )

    def short(self) -> str:
        text = _("average risk <= {risk}", risk=number(self.average_risk))
        if self.highest_risk is None:
            return text
        return _(
            "{text}, at most {share} above {high}",
            text=text,
            share=formats.percent(float(self.records_at_risk or 0.0), 2),
            high=number(self.highest_risk),
        )

    @classmethod
    def param_visible(cls, name: str, values: Mapping[str, Any]) -> bool:
        if name == RECORDS_AT_RISK.name:
            return cls.chosen(values) and values.get(HIGHEST_RISK.name) is not None
        return super().param_visible(name, values)
