"""Sample uniqueness: at most a share of the released records are alone in their class (a *sample
unique*: identifiable by its quasi-identifier values among the released records). ARX's
``SampleUniqueness``.

Judged on the release as a whole, with the smallest classes (the uniques first) suppressed as few as
needed (:mod:`.release_risk`), in both readings of the release. Merging classes only removes uniques, so
the model is monotone without suppression; with suppression the searches do not prune by it. It says
nothing about the population: a record unique in the sample may share its values with many people outside
it, and one that is not may still be unique in the population (see population uniqueness).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec, share_spec
from kanon_engine.privacy.base import ClassStats, number
from kanon_engine.privacy.release_risk import Ladder, ReleaseRiskModel, least_suppression

SAMPLE_UNIQUENESS = share_spec(
    "sample_uniqueness",
    N_("Sample uniqueness"),
    N_("The largest share of released records that may be alone in their group; empty to skip."),
    (0.05, 0.01, 0.001),
    percent=True,
    above=True,
)


@dataclass(frozen=True)
class SampleUniqueness(ReleaseRiskModel):
    """At most ``sample_uniqueness`` of the released records are alone in their group."""

    sample_uniqueness: float
    name: ClassVar[str] = "sample-uniqueness"
    title: ClassVar[str] = N_("sample uniqueness")
    params: ClassVar[tuple[ParamSpec, ...]] = (SAMPLE_UNIQUENESS,)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "sample_uniqueness", SAMPLE_UNIQUENESS.number_in_range(self.sample_uniqueness)
        )

    def release_suppression(
        self, stats: ClassStats, released: np.ndarray, allowance: int
    ) -> np.ndarray | None:
        return least_suppression(stats, released, allowance, self._holds)

    def _holds(self, lad: Ladder) -> np.ndarray:
        """Per prefix of suppressed smallest classes: the share of uniques passes in both readings."""
        ones = np.concatenate([[0], np.cumsum(lad.sizes == 1)])
        left = ones[-1] - ones  # uniques still released
        u = self.sample_uniqueness + 1e-12
        own = left <= u * lad.records
        star = lad.star > 0
        shown = left + (lad.star == 1) <= u * (lad.records + lad.star)
        return own & (~star | shown)

    def describe(self) -> str:
        return _(
            "Sample uniqueness at most {share}: no more than that share of the released records is alone "
            "in its group.",
            share=formats.percent(self.sample_uniqueness, 3),
        )

    def short(self) -> str:
        return _("sample uniques <= {share}", share=number(self.sample_uniqueness))
