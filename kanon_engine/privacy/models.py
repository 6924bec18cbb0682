"""Privacy models, evaluated per equivalence class on frequency sets.

Every model answers one question for every class of a node at once: does this class pass? A class that
fails any model is suppressed (within the suppression limit). The same model objects serve the
full-domain algorithms (classes of a lattice node) and Mondrian (a cut is allowable when both sides pass).

- k-anonymity: Samarati & Sweeney 1998; Sweeney 2002.
- l-diversity (distinct, entropy, recursive (c,l)): Machanavajjhala et al. 2007, "l-Diversity: Privacy
  Beyond k-Anonymity", ACM TKDD 1(1).
- t-closeness with the Earth Mover's Distance (equal, ordered and hierarchical ground distances):
  Li, Li & Venkatasubramanian 2007, "t-Closeness: Privacy Beyond k-Anonymity and l-Diversity", ICDE.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from kanon_engine.core.encoding import EncodedTable, SensitiveColumn
from kanon_engine.core.frequency import (
    FrequencySet,
    Histograms,
    SensitiveCombos,
    group_columns,
    representatives,
)
from kanon_engine.errors import ConfigError, shown_value
from kanon_engine.i18n import N_, _, formats, ngettext

_EPS = 1e-12


@dataclass(eq=False)
class ClassStats:
    """What models need to know about the classes of one node: their sizes and, per sensitive attribute a
    model looks at, the per-class histograms (:class:`~kanon_engine.core.frequency.Histograms`)."""

    enc: EncodedTable
    sizes: np.ndarray
    hists: dict[int, Histograms] = field(default_factory=dict)

    @property
    def n_classes(self) -> int:
        return int(len(self.sizes))

    @classmethod
    def of(cls, enc: EncodedTable, fs: FrequencySet) -> ClassStats:
        """The statistics of a frequency set (its histograms must have been rolled up)."""
        return cls(enc, fs.counts, fs.hists or {})

    @classmethod
    def from_rows(
        cls,
        enc: EncodedTable,
        rows: np.ndarray,
        group: np.ndarray,
        n_groups: int,
        attributes: tuple[int, ...],
        weights: np.ndarray | None = None,
    ) -> ClassStats:
        """Statistics of groups of records (``group[i]`` is the group of record ``rows[i]``), for
        partitioning algorithms that do not work on a lattice. Rows of a weighted table weigh their
        records (``weights[i]`` for ``rows[i]`` when given, e.g. a point split between two groups)."""
        w = None if enc.weights is None else enc.weights[rows] if weights is None else weights
        sizes = np.bincount(group, weights=w, minlength=n_groups).astype(np.int64)
        hists = {
            a: Histograms.from_rows(
                group, enc.sensitive[a].codes[rows], n_groups, len(enc.sensitive[a].values), w
            )
            for a in attributes
        }
        return cls(enc, sizes, hists)

    @classmethod
    def from_combos(
        cls,
        enc: EncodedTable,
        group: np.ndarray,
        n_groups: int,
        combo: np.ndarray,
        weights: np.ndarray,
        combos: SensitiveCombos,
        attributes: tuple[int, ...],
    ) -> ClassStats:
        """Statistics of groups of frequency rows (row i: ``weights[i]`` records with the sensitive
        combination ``combo[i]``, in group ``group[i]``), for the cell-level algorithms."""
        sizes = np.bincount(group, weights=weights, minlength=n_groups).astype(np.int64)
        hists = {
            a: Histograms.from_rows(
                group, combos.codes[a][combo], n_groups, len(enc.sensitive[a].values), weights
            )
            for a in attributes
        }
        return cls(enc, sizes, hists)

    def histograms(self, attribute: str) -> Histograms:
        idx = [s.name for s in self.enc.sensitive].index(attribute)
        if idx not in self.hists:
            raise RuntimeError(f"the histograms of '{attribute}' were not rolled up")
        return self.hists[idx]

    def pairs(self, attribute: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class, value code, count) for every distinct pair of class and sensitive value, sorted."""
        h = self.histograms(attribute)
        return h.cls, h.val, h.cnt


class PrivacyModel(ABC):
    """A privacy model. ``passes`` returns one boolean per class."""

    name: ClassVar[str]
    #: True when a class that fails the model fails in every split of it, so a node whose failing classes
    #: are too many to suppress has only failing specializations, and a generalization of a node satisfying
    #: the model (with its suppression) also satisfies it (ARX: "monotonic with suppression").
    monotone_with_suppression: ClassVar[bool] = False
    #: True when a merge of passing classes passes, so a node whose classes all pass has only satisfying
    #: generalizations (ARX: "monotonic with generalization"; true of every model here).
    monotone_without_suppression: ClassVar[bool] = True
    sensitive: str | None = None

    @abstractmethod
    def passes(self, stats: ClassStats) -> np.ndarray: ...

    def assess(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray]:
        """Per class: whether it passes, and a lower bound on the share of its records that fail in
        every split of it (every record of a failing class, for a model monotone with suppression; none,
        unless a model knows better). A search adds these shares up over a node's classes: that many
        records must be suppressed in every specialization of the node."""
        ok = self.passes(stats)
        return ok, (~ok).astype(np.float64) if self.monotone_with_suppression else np.zeros(len(ok))

    @abstractmethod
    def describe(self) -> str:
        """One plain-language sentence for the report and the GUI."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]: ...

    @property
    def min_class_size(self) -> int:
        """The smallest class that can pass (used by Mondrian to skip hopeless cuts)."""
        return 1


def _int_param(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        try:
            f = float(value)
        except (TypeError, ValueError):
            f = math.nan
        if not f.is_integer():
            raise ConfigError(
                _(
                    "{name} must be an integer >= {low}; got {value}.",
                    name=name,
                    low=str(minimum),
                    value=repr(value),
                ),
                where=name,
            )
        value = int(f)
    if value < minimum:
        raise ConfigError(
            _(
                "{name} must be an integer >= {low}; got {value}.",
                name=name,
                low=str(minimum),
                value=str(value),
            ),
            where=name,
        )
    return int(value)


def _need_sensitive(model: str, sensitive: str | None) -> str:
    if not sensitive:
        raise ConfigError(
            _("{model} protects a sensitive attribute, but none was named.", model=model),
            hint=_("Mark a column (for example the diagnosis) as sensitive and choose it here."),
            where="sensitive",
        )
    return sensitive


@dataclass(frozen=True)
class KAnonymity(PrivacyModel):
    """Every record shares its quasi-identifier values with at least k-1 others."""

    k: int
    name: ClassVar[str] = "k-anonymity"
    monotone_with_suppression: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _int_param("k", self.k, 2))

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.sizes >= self.k

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

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "k": self.k}


@dataclass(frozen=True)
class DistinctLDiversity(PrivacyModel):
    """Each class holds at least l distinct values of the sensitive attribute.

    Monotone also with suppression: merging a passing class with anything keeps >= l distinct values.
    """

    l: int  # noqa: E741  (the paper's name)
    sensitive: str | None = None
    name: ClassVar[str] = "distinct-l-diversity"
    monotone_with_suppression: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", _int_param("l", self.l, 2))
        _need_sensitive("l-diversity", self.sensitive)

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.histograms(self.sensitive).distinct(stats.n_classes) >= self.l

    @property
    def min_class_size(self) -> int:
        return self.l

    def describe(self) -> str:
        return _(
            "distinct {l}-diversity: every group holds at least {l} different values of '{column}'.",
            l=formats.decimal(self.l, 6),
            column=self.sensitive,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "l": self.l, "sensitive": self.sensitive}


@dataclass(frozen=True)
class EntropyLDiversity(PrivacyModel):
    """The entropy of the sensitive values in each class is at least log(l).

    Monotone without suppression (entropy is concave, so a merge of passing classes passes); with
    suppression a merge of a passing and a failing class can fail, so searches may not prune by it.
    """

    l: float  # noqa: E741
    sensitive: str | None = None
    name: ClassVar[str] = "entropy-l-diversity"

    def __post_init__(self) -> None:
        try:
            lv = float(self.l)
        except (TypeError, ValueError):
            lv = math.nan
        if not lv > 1:
            raise ConfigError(
                _("l must be a number > 1 for entropy l-diversity; got {value}.", value=repr(self.l)),
                where="l",
            )
        object.__setattr__(self, "l", lv)
        _need_sensitive("l-diversity", self.sensitive)

    def entropies(self, stats: ClassStats) -> np.ndarray:
        """Entropy (natural log) of the sensitive values of every class."""
        cls, _values, cnt = stats.pairs(self.sensitive)
        p = cnt / stats.sizes[cls]
        return np.bincount(cls, weights=-p * np.log(p), minlength=stats.n_classes)

    def passes(self, stats: ClassStats) -> np.ndarray:
        return self.entropies(stats) >= math.log(self.l) - 1e-9

    def assess(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray]:
        """Entropy is concave: a class's entropy is at least the weighted mean of its parts', so parts
        passing (entropy >= log l) hold at most a share H / log l of its records, and at least
        1 - H / log l of them fail in every split."""
        h = self.entropies(stats)
        log_l = math.log(self.l)
        ok = h >= log_l - 1e-9
        return ok, np.where(ok, 0.0, np.clip(1.0 - (h + 1e-9) / log_l, 0.0, 1.0))

    @property
    def min_class_size(self) -> int:
        return math.ceil(self.l)

    def describe(self) -> str:
        return _(
            "entropy {l}-diversity: the values of '{column}' in every group are at least as "
            "varied as {l} equally frequent values.",
            l=formats.decimal(self.l, 6),
            column=self.sensitive,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "l": self.l, "sensitive": self.sensitive}


@dataclass(frozen=True)
class RecursiveCLDiversity(PrivacyModel):
    """Recursive (c,l)-diversity: r1 < c (r_l + r_{l+1} + ... + r_m), r_i the i-th largest count."""

    c: float
    l: int  # noqa: E741
    sensitive: str | None = None
    name: ClassVar[str] = "recursive-cl-diversity"

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", _int_param("l", self.l, 2))
        try:
            cv = float(self.c)
        except (TypeError, ValueError):
            cv = math.nan
        if not cv > 0:
            raise ConfigError(
                _("c must be a number > 0 for recursive (c,l)-diversity; got {value}.", value=repr(self.c)),
                where="c",
            )
        object.__setattr__(self, "c", cv)
        _need_sensitive("l-diversity", self.sensitive)

    def passes(self, stats: ClassStats) -> np.ndarray:
        cls, _values, cnt = stats.pairs(self.sensitive)
        n = stats.n_classes
        order = np.lexsort((-cnt, cls))
        cls_s, cnt_s = cls[order], cnt[order]
        starts = np.searchsorted(cls_s, np.arange(n))
        rank = np.arange(len(cls_s)) - starts[cls_s]
        r1 = np.zeros(n)
        r1[cls_s[rank == 0]] = cnt_s[rank == 0]
        tail = np.bincount(cls_s, weights=np.where(rank >= self.l - 1, cnt_s, 0), minlength=n)
        return r1 < self.c * tail

    @property
    def min_class_size(self) -> int:
        return self.l

    def describe(self) -> str:
        return _(
            "recursive ({c},{l})-diversity: in every group the most frequent value of "
            "'{column}' is rarer than {c} times the values from the {l}-th on together.",
            c=formats.decimal(self.c, 6),
            l=formats.decimal(self.l, 6),
            column=self.sensitive,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "c": self.c, "l": self.l, "sensitive": self.sensitive}


T_DISTANCES = ("equal", "ordered", "hierarchical")


@dataclass(frozen=True)
class TCloseness(PrivacyModel):
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

    def __post_init__(self) -> None:
        try:
            tv = float(self.t)
        except (TypeError, ValueError):
            tv = math.nan
        if not 0 < tv <= 1:
            raise ConfigError(
                _("t must be a number above 0 and at most 1; got {value}.", value=shown_value(self.t)),
                where="t",
            )
        object.__setattr__(self, "t", tv)
        if self.distance not in T_DISTANCES:
            raise ConfigError(
                _(
                    "The t-closeness distance must be one of {choices}; got '{value}'.",
                    choices=", ".join(T_DISTANCES),
                    value=self.distance,
                ),
                where="t-distance",
            )
        _need_sensitive("t-closeness", self.sensitive)

    def distances(self, stats: ClassStats) -> np.ndarray:
        """EMD of every class to the table's distribution, for all classes at once."""
        col = stats.enc.sensitive_column(self.sensitive)
        cls, val, cnt = stats.pairs(self.sensitive)
        q = col.global_distribution
        p = cnt / stats.sizes[cls]
        n = stats.n_classes
        if self.distance == "equal":
            return 0.5 * (1.0 + np.bincount(cls, weights=np.abs(p - q[val]) - q[val], minlength=n))
        if self.distance == "ordered":
            return _ordered_emd(cls, val, cnt, stats.sizes, q)
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

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "t": self.t, "sensitive": self.sensitive, "distance": self.distance}


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


_MODELS: dict[str, type[PrivacyModel]] = {
    m.name: m for m in (KAnonymity, DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity, TCloseness)
}


def model_from_dict(d: dict[str, Any]) -> PrivacyModel:
    """Rebuild a model from its ``to_dict`` form (project files, CLI)."""
    d = dict(d)
    name = d.pop("name", None)
    if name not in _MODELS:
        raise ConfigError(
            _("Unknown privacy model '{name}'; known: {known}.", name=str(name), known=", ".join(_MODELS)),
            where="models",
        )
    import inspect

    params = inspect.signature(_MODELS[name]).parameters
    unknown = [k for k in d if k not in params]
    if unknown:
        raise ConfigError(
            _("The privacy model '{name}' has no setting '{setting}'.", name=name, setting=unknown[0]),
            hint=_("Its settings are: {settings}.", settings=", ".join(params)),
            where=name,
        )
    needed = [p for p, v in params.items() if v.default is inspect.Parameter.empty and p not in d]
    if needed:
        raise ConfigError(
            _(
                "The privacy model '{name}' needs its setting '{setting}', which is missing.",
                name=name,
                setting=needed[0],
            ),
            hint=_('Add it to the model in the project file, for example "{setting}": 5.', setting=needed[0]),
            where=name,
        )
    return _MODELS[name](**d)


def all_monotone(models: tuple[PrivacyModel, ...] | list[PrivacyModel], suppression: bool) -> bool:
    """Whether "satisfies" is upward closed in the lattice for these models (enables pruning)."""
    return (not suppression) or all(m.monotone_with_suppression for m in models)
