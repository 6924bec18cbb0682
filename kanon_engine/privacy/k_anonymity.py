"""k-anonymity: every record shares its quasi-identifier values with at least k-1 others (Samarati &
Sweeney 1998; Sweeney 2002, "k-anonymity: a model for protecting privacy", IJUFKS 10(5)).

Every run has it, unless another model bounds re-identification by itself (average risk, uniqueness,
k-map: ``guards_identity``), when ``--k none`` leaves it out (as ARX allows): the suppressed group's rule
(Datafly's step 4), the class-count bound of the searches and the report's class-size chart all read its
k (:func:`k_of`, 0 without it). It is monotone with suppression (a
class of fewer than k records splits into classes of fewer than k), so the searches prune by it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kanon_engine.i18n import N_, _, ngettext
from kanon_engine.params import ParamSpec
from kanon_engine.privacy.base import (
    CELL_SIZE_PRECEDENTS,
    CMS_CELL_SIZE,
    ClassStats,
    Preset,
    PrivacyModel,
    int_param,
    number,
)

K = ParamSpec(
    "k",
    "k",
    "int",
    5,
    N_("Each person must share their quasi-identifier values with at least k-1 others."),
    minimum=2,
    presets=(2, 5, 10, 20, 50),
    optional=True,
)


@dataclass(frozen=True)
class KAnonymity(PrivacyModel):
    """Every record shares its quasi-identifier values with at least k-1 others."""

    k: int
    name: ClassVar[str] = "k-anonymity"
    title: ClassVar[str] = N_("k-anonymity")
    params: ClassVar[tuple[ParamSpec, ...]] = (K,)
    monotone_with_suppression: ClassVar[bool] = True
    guards_identity: ClassVar[bool] = True
    presets: ClassVar[tuple[Preset, ...]] = (
        Preset(N_("k = 5: the cell size of five rule"), {"k": 5}, CELL_SIZE_PRECEDENTS),
        Preset(N_("k = 11: no group of 1 to 10 (CMS, United States)"), {"k": 11}, CMS_CELL_SIZE),
        Preset(N_("k = 20: public Canadian and U.S. patent data"), {"k": 20}, CELL_SIZE_PRECEDENTS),
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", int_param("k", self.k, 2))

    def passes(self, stats: ClassStats) -> np.ndarray:
        """Records per class >= k; under the person role, distinct persons per class >= k."""
        return stats.people >= self.k

    @property
    def min_class_size(self) -> int:
        return self.k

    def describe(self) -> str:
        return ngettext(
            "{k}-anonymity: every person shares their quasi-identifier values with at least "
            "{n} other person.",
            "{k}-anonymity: every person shares their quasi-identifier values with at least {n} others.",
            self.k - 1,
            k=str(self.k),
        )

    def short(self) -> str:
        return _("k = {k}", k=number(self.k))


def k_of(models: Iterable[PrivacyModel]) -> int:
    """The k of a run: the largest k among its k-anonymity models (0 when it has none)."""
    return max((m.k for m in models if isinstance(m, KAnonymity)), default=0)
