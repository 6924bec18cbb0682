"""t-closeness: the distribution of the sensitive attribute in every class is within t of the whole
table's, by the Earth Mover's Distance (Li, Li & Venkatasubramanian 2007, "t-Closeness: Privacy Beyond
k-Anonymity and l-Diversity", ICDE), with the paper's three ground distances: equal (categories),
ordered (numbers) and hierarchical (along the attribute's hierarchy). All three are computed for every
class at once on the sparse histograms (no class x value matrix).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kanon_engine.core.encoding import SensitiveColumn
from kanon_engine.core.frequency import group_columns, representatives
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec, choice_spec, share_spec
from kanon_engine.privacy.base import (
    ClassStats,
    SensitiveValueModel,
    number,
)

T = share_spec(
    "t",
    "t",
    N_(
        "The sensitive values in each group must be distributed within distance t "
        "of the whole table's (t-closeness); empty to skip."
    ),
    (0.1, 0.2, 0.3),
    above=True,
)
T_DISTANCE = choice_spec(
    "t_distance",
    N_("t-closeness distance"),
    "equal",
    N_("equal for categories, ordered for numbers, hierarchical using the attribute's hierarchy."),
    {
        "equal": N_("Equal distance (categories)"),
        "ordered": N_("Ordered distance (numbers)"),
        "hierarchical": N_("Along the hierarchy"),
    },
    refusal=N_("The t-closeness distance must be one of {choices}; got '{value}'."),
)
#: the short form's words for each distance
_DISTANCE_SHORT = {
    "equal": N_("equal distance"),
    "ordered": N_("ordered distance"),
    "hierarchical": N_("along the hierarchy"),
}


@dataclass(frozen=True)
class TCloseness(SensitiveValueModel):
    """The distribution of the sensitive attribute in each class is within EMD t of the whole table's.

    Ground distances (Li et al. 2007): ``equal`` (categorical: D = 1/2 sum |p_i - q_i|), ``ordered``
    (numeric: D = 1/(m-1) sum_i |sum_{j<=i} (p_j - q_j)|) and ``hierarchical`` (using the sensitive
    attribute's hierarchy: D = sum over inner nodes N of height(N)/H * min(pos_extra(N), neg_extra(N))).
    Monotone without suppression (EMD to a fixed distribution is convex in the class distribution).
    """

    t: float
    sensitive: str | None = None
    distance: str = "equal"
    name: ClassVar[str] = "t-closeness"
    title: ClassVar[str] = N_("t-closeness")
    params: ClassVar[tuple[ParamSpec, ...]] = (T, T_DISTANCE)
    fields_of_params: ClassVar[dict[str, str]] = {"t_distance": "distance"}

    def check_settings(self) -> None:
        object.__setattr__(self, "t", T.number_in_range(self.t))
        T_DISTANCE.refuse_unknown(self.distance)

    def distances(self, stats: ClassStats) -> np.ndarray:
        """EMD of every class to the table's distribution, for all classes at once."""
        col = stats.enc.sensitive_column(self.protected)
        cls, val, cnt = stats.pairs(self.protected)
        q = stats.reference(self.protected)  # each person once per value under the person role
        totals = stats.totals(self.protected)
        p = cnt / totals[cls]
        n = stats.n_classes
        if self.distance == "equal":
            return 0.5 * (1.0 + np.bincount(cls, weights=np.abs(p - q[val]) - q[val], minlength=n))
        if self.distance == "ordered":
            return _ordered_emd(cls, val, cnt, totals, q)
        return _hierarchical_emd(cls, val, p, q, n, col)

    def passes(self, stats: ClassStats) -> np.ndarray:
        return self.distances(stats) <= self.t + 1e-9

    def assess(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray]:
        """The EMD to a fixed distribution is convex and at most 1, so a class at distance d split into
        parts of which a share W pass satisfies d <= W t + (1 - W): at least (d - t) / (1 - t) of its
        records fail in every split."""
        d = self.distances(stats)
        ok = d <= self.t + 1e-9
        if self.t >= 1:
            return ok, np.zeros(len(d))
        return ok, np.where(ok, 0.0, np.clip((d - self.t - 1e-9) / (1.0 - self.t), 0.0, 1.0))

    def describe(self) -> str:
        distance = {
            "equal": N_("equal distance"),
            "ordered": N_("ordered distance"),
            "hierarchical": N_("hierarchical distance"),
        }.get(self.distance, self.distance)
        return _(
            "{t}-closeness ({distance}): the distribution of '{column}' in "
            "every group differs from the whole table's by at most {t}.",
            t=formats.decimal(self.t, 6),
            distance=_(distance),
            column=self.sensitive,
        )

    def short(self) -> str:
        distance = _DISTANCE_SHORT.get(self.distance)
        return _(
            "t = {t} on {sensitive} ({distance})",
            t=number(self.t),
            sensitive=self.sensitive,
            distance=_(distance) if distance else self.distance,
        )


def distribution_distance(counts: np.ndarray, reference: np.ndarray, ordered: bool) -> float:
    """The EMD between one distribution (``counts`` over the values of ``reference``'s domain, in the
    domain's order) and ``reference`` (shares summing to 1), with t-closeness's equal or ordered ground
    distance: the same formulas the model applies to every class (the researcher's summaries compare a
    release's distribution with the original's by it)."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    if total <= 0:
        return 0.0
    val = np.flatnonzero(counts > 0)
    cls = np.zeros(len(val), dtype=np.int64)
    if ordered:
        return float(_ordered_emd(cls, val, counts[val], np.array([total]), reference)[0])
    p = counts[val] / total
    return max(0.0, float(0.5 * (1.0 + np.abs(p - reference[val]).sum() - reference[val].sum())))


def _ordered_emd(
    cls: np.ndarray, val: np.ndarray, cnt: np.ndarray, sizes: np.ndarray, q: np.ndarray
) -> np.ndarray:
    """Ordered-distance EMD, D = 1/(m-1) sum_i |P_i - Q_i| with P, Q the cumulative distributions over
    the m ordered values (Li et al. 2007), on the sparse histograms.

    Between two values a class holds, its cumulative share P is a constant c, and the global one Q only
    grows, so the sum of |c - Q_i| over that run of values is two prefix-sum differences split where Q
    crosses c (one binary search per histogram entry): no dense class x value matrix.
    """
    m = len(q)
    n = len(sizes)
    cq = np.cumsum(q)
    sq = np.concatenate([[0.0], np.cumsum(cq)])  # sq[x] = sum of Q_i for i < x
    if len(cls) == 0:
        return np.zeros(n)
    # cumulative count within the class (exact integers), then the share
    run = np.cumsum(cnt)
    first = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
    run = run - np.repeat(run[first] - cnt[first], np.diff(np.r_[first, len(cls)]))
    c = run / sizes[cls]
    lo = val
    hi = np.where(np.r_[cls[1:] == cls[:-1], False], np.r_[val[1:], 0], m)
    split = np.clip(np.searchsorted(cq, c, side="left"), lo, hi)
    seg = c * (split - lo) - (sq[split] - sq[lo]) + (sq[hi] - sq[split]) - c * (hi - split)
    total = np.bincount(cls, weights=seg, minlength=n)
    total[cls[first]] += sq[val[first]]  # values below a class's first value: P = 0
    return total / max(m - 1, 1)


def _hierarchical_emd(
    cls: np.ndarray, val: np.ndarray, p: np.ndarray, q: np.ndarray, n: int, col: SensitiveColumn
) -> np.ndarray:
    """Hierarchical-distance EMD (Li et al. 2007) on the sparse histograms.

    The paper's cost, the sum over inner nodes N of height(N)/H * min(pos_extra(N), neg_extra(N)), equals
    1/(2H) times the sum over every non-root node N of |P(N) - Q(N)| (P, Q the shares of the class and of
    the table under N): min(pos, neg) = (sum over children of |extra| - |extra(N)|) / 2, and the terms
    telescope level by level. So the distance is one L1 distance per level of the hierarchy.
    """
    if col.hierarchy is None:
        raise ConfigError(
            _("Hierarchical t-closeness needs a hierarchy for '{column}'.", column=col.name),
            hint=_("Assign a hierarchy to the sensitive attribute, or use the equal or ordered distance."),
            where=col.name,
        )
    h = col.hierarchy
    if h.height == 0:
        return np.zeros(n)
    total = np.zeros(n)
    for j in range(h.height):
        codes, labels = h.level_codes[j]
        width = len(labels)
        node = codes[val].astype(np.int64)
        qj = np.bincount(codes, weights=q, minlength=width)
        ids, n_ids = group_columns([cls, node], [n, width])
        share = np.bincount(ids, weights=p, minlength=n_ids)
        rep = representatives(ids, n_ids)
        c, v = cls[rep], node[rep]
        total += 1.0 + np.bincount(c, weights=np.abs(share - qj[v]) - qj[v], minlength=n)
    return total / (2 * h.height)
