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
    SensitiveValueModel,
    number,
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
    above=True,
    presets=(1.0, 1.5, 2.0, 3.0),
)

#: The joint floor of :meth:`DeltaDisclosure.assess` is taken over the values of a class whose share is
#: at least these fractions of their cap, each set in turn (more fractions find a little more, at a cost)
_JOINT_RATIOS = (1.0, 0.75, 0.5)
#: each ratio's band: the values from it up to the ratio before (the sets grow band by band)
_JOINT_ABOVE = dict(zip(_JOINT_RATIOS, (np.inf, *_JOINT_RATIOS[:-1])))
#: ... for a set whose caps add up to at most this: the floor divides by 1 minus that sum, which must
#: not magnify the shares' rounding past the 1e-9 the floor is lowered by
_JOINT_CAP = 0.999


@dataclass(frozen=True)
class DeltaDisclosure(SensitiveValueModel):
    """|log2(p_class(s) / p_table(s))| < delta for every value s present in a class."""

    delta_disclosure: float
    sensitive: str | None = None
    name: ClassVar[str] = "delta-disclosure"
    title: ClassVar[str] = N_("delta-disclosure privacy")
    counts_persons: ClassVar[bool] = False
    params: ClassVar[tuple[ParamSpec, ...]] = (DELTA_DISCLOSURE,)
    monotone_without_suppression: ClassVar[bool] = False

    def check_settings(self) -> None:
        delta = DELTA_DISCLOSURE.number_in_range(self.delta_disclosure, finite=True)
        object.__setattr__(self, "delta_disclosure", delta)

    def _passes(self, stats: ClassStats, cls: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        ratio = np.abs(np.log(p / q) / np.log(2.0))
        bad = np.bincount(cls[ratio >= self.delta_disclosure], minlength=stats.n_classes)
        return bad == 0

    def passes(self, stats: ClassStats) -> np.ndarray:
        return self._passes(stats, *stats.shares(self.protected))

    def assess(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray]:
        """Per class: whether it passes, and a share of its records that every split of it suppresses.

        A value at share p above its cap r = 2^delta times its table share stays at r or above in some
        part of every split; parts below r hold less than r of their records in it, so at least (p - r)
        / (1 - r) of the class fails in any split. Jointly for a set V of values (caps under 1): the
        parts kept hold at most r_v of their m records in each v, so with f records suppressed, P - f <=
        (sum of V's records kept) <= R m = R (1 - f) in shares (P, R: V's shares and caps added up), and
        f >= (P - R) / (1 - R) when R < 1; this is larger than any one value's floor when several values
        are over their caps. V is taken as the values at least a given fraction of the way up to their
        cap (:data:`_JOINT_RATIOS`), each in turn. (A value too rare in a class proves nothing: a split
        can drop it.) The pairs and shares are read once for both answers."""
        cls, p, q = stats.shares(self.protected)
        ok = self._passes(stats, cls, p, q)
        return ok, forced_out(cls, p, q * 2.0**self.delta_disclosure, stats.n_classes)

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


def forced_out(cls: np.ndarray, p: np.ndarray, top: np.ndarray, n_classes: int) -> np.ndarray:
    """Per class, a share of its records that every split of it suppresses (:meth:`DeltaDisclosure.assess`
    says why), from the (class, share in the class, cap) of every value present, the pairs sorted by
    class; a little under the bound, for the shares' rounding. Vectorized over the pairs: per-class
    maxima by ``maximum.reduceat`` over runs of a class, the sets' sums by ``bincount``."""
    capped = top < 1.0
    over = np.flatnonzero((p >= top) & capped)
    share = np.zeros(n_classes)
    if not len(over):
        return share
    top_over = top[over]
    need = np.clip((p[over] - top_over) / np.maximum(1.0 - top_over, 1e-300) - 1e-9, 0.0, 1.0)
    at, runs = _runs(cls[over])
    share[at] = np.maximum.reduceat(need, runs)
    up = np.where(capped, p / top, 0.0)
    held = caps = np.zeros(n_classes)
    for ratio in _JOINT_RATIOS:  # descending: each set holds the one before
        band = np.flatnonzero((up >= ratio) & (up < _JOINT_ABOVE[ratio]))
        held = held + np.bincount(cls[band], p[band], n_classes)
        caps = caps + np.bincount(cls[band], top[band], n_classes)
        joint = (held - caps) / np.maximum(1.0 - caps, 1.0 - _JOINT_CAP)
        joint[caps > _JOINT_CAP] = 0.0
        np.maximum(share, np.clip(joint - 1e-9, 0.0, 1.0), out=share)
    return share


def _runs(cls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a sorted array and where each one's run starts."""
    first = np.empty(len(cls), dtype=bool)
    first[:1] = True
    np.not_equal(cls[1:], cls[:-1], out=first[1:])
    runs = np.flatnonzero(first)
    return cls[runs], runs
