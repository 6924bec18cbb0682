"""delta-disclosure privacy: in every class, the share of each sensitive value present is within a factor
2^delta of its share in the whole table, |log2(p_class(s) / p_table(s))| < delta (Brickell & Shmatikov
2008, "The cost of privacy: destruction of data-mining utility in anonymized data publishing", KDD), as
ARX's ``DDisclosurePrivacy`` checks it (values absent from a class are not judged).

It bounds what an attacker learns about a sensitive value, not who a record is. Not monotone: a merge can
dilute a value below 2^-delta of its share, so the searches check every node that could beat the optimum,
ruling out a node only by the records over-represented values force out of every split of it
(:meth:`DeltaDisclosure.assess`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec
from kanon_engine.privacy.base import (
    ClassStats,
    PrivacyModel,
    Requirement,
    need_sensitive,
    number,
    positive_param,
)

DELTA_DISCLOSURE = ParamSpec(
    "delta_disclosure",
    N_("delta (delta-disclosure)"),
    "float",
    None,
    N_(
        "In every group each sensitive value's share must stay within a factor 2^delta of its share in "
        "the whole table (delta-disclosure privacy); empty to skip."
    ),
    minimum=0.0,
    presets=(1.0, 1.5, 2.0, 3.0),
)


@dataclass(frozen=True)
class DeltaDisclosure(PrivacyModel):
    """|log2(p_class(s) / p_table(s))| < delta for every value s present in a class."""

    delta_disclosure: float
    sensitive: str | None = None
    name: ClassVar[str] = "delta-disclosure"
    title: ClassVar[str] = N_("delta-disclosure privacy")
    counts_persons: ClassVar[bool] = False
    params: ClassVar[tuple[ParamSpec, ...]] = (DELTA_DISCLOSURE,)
    requires: ClassVar[frozenset[Requirement]] = frozenset({Requirement.SENSITIVE})
    monotone_without_suppression: ClassVar[bool] = False
    threat: ClassVar[str] = "sensitive"

    def __post_init__(self) -> None:
        sentence = N_("delta must be a number above 0; got {value}.")
        delta = positive_param(self.delta_disclosure, sentence, "delta-disclosure")
        object.__setattr__(self, "delta_disclosure", delta)
        need_sensitive("delta-disclosure", self.sensitive)

    def _shares(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class, the value's share in that class, its share in the table) of every pair present."""
        cls, val, cnt = stats.pairs(self.protected)
        q = stats.enc.sensitive_column(self.protected).global_distribution[val]
        return cls, cnt / stats.sizes[cls], q

    def _passes(self, stats: ClassStats, cls: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        ratio = np.abs(np.log(p / q) / np.log(2.0))
        bad = np.bincount(cls[ratio >= self.delta_disclosure], minlength=stats.n_classes)
        return bad == 0

    def passes(self, stats: ClassStats) -> np.ndarray:
        return self._passes(stats, *self._shares(stats))

    def assess(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray]:
        """A value at share p above r = 2^delta times its table share stays at r or above in some part of
        every split; parts below r hold less than r of their records in it, so at least (p - r) / (1 - r)
        of the class fails in any split. (A value too rare in a class proves nothing: a split can drop
        it.) The pairs and shares are read once for both answers; only the pairs that force records out
        go through the (slow, unbuffered) per-class maximum."""
        cls, p, q = self._shares(stats)
        ok = self._passes(stats, cls, p, q)
        top = q * 2.0**self.delta_disclosure
        over = np.flatnonzero((p >= top) & (top < 1.0))
        top_over = top[over]
        need = (p[over] - top_over) / np.maximum(1.0 - top_over, 1e-300)
        share = np.zeros(stats.n_classes)
        np.maximum.at(share, cls[over], np.clip(need - 1e-9, 0.0, 1.0))
        return ok, share

    def describe(self) -> str:
        return _(
            "{delta}-disclosure privacy on '{column}': in every group, each value's share is within a "
            "factor 2^{delta} of its share in the whole table.",
            delta=formats.decimal(self.delta_disclosure, 6),
            column=self.sensitive,
        )

    def short(self) -> str:
        return _(
            "delta = {delta} on {sensitive}", delta=number(self.delta_disclosure), sensitive=self.sensitive
        )
