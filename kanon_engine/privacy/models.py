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

from kanon_engine.encoding import EncodedTable, SensitiveColumn
from kanon_engine.errors import ConfigError
from kanon_engine.frequency import NodeClasses, SensitiveCombos, class_value_counts

_EPS = 1e-12


@dataclass(eq=False)
class ClassStats:
    """What models need to know about the classes of one node; per-attribute counts computed lazily."""

    enc: EncodedTable
    classes: NodeClasses
    combos: SensitiveCombos
    _pairs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def sizes(self) -> np.ndarray:
        return self.classes.sizes

    @property
    def n_classes(self) -> int:
        return self.classes.n_classes

    def pairs(self, attribute: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class, value code, count) for every distinct pair of class and sensitive value."""
        if attribute not in self._pairs:
            idx = [s.name for s in self.enc.sensitive].index(attribute)
            n_values = len(self.enc.sensitive[idx].values)
            self._pairs[attribute] = class_value_counts(self.classes, self.combos, idx, n_values)
        return self._pairs[attribute]


class PrivacyModel(ABC):
    """A privacy model. ``passes`` returns one boolean per class."""

    name: ClassVar[str]
    #: True when a generalization of a node satisfying the model (with its suppression) also satisfies it.
    monotone_with_suppression: ClassVar[bool] = False
    sensitive: str | None = None

    @abstractmethod
    def passes(self, stats: ClassStats) -> np.ndarray: ...

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
            raise ConfigError(f"{name} must be an integer >= {minimum}; got {value!r}.", where=name)
        value = int(f)
    if value < minimum:
        raise ConfigError(f"{name} must be an integer >= {minimum}; got {value}.", where=name)
    return int(value)


def _need_sensitive(model: str, sensitive: str | None) -> str:
    if not sensitive:
        raise ConfigError(
            f"{model} protects a sensitive attribute, but none was named.",
            hint="Mark a column (for example the diagnosis) as sensitive and choose it here.",
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
        others = "1 other person" if self.k == 2 else f"{self.k - 1} others"
        return (
            f"{self.k}-anonymity: every person shares their quasi-identifier values with at least {others}."
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
        cls, _, _ = stats.pairs(self.sensitive)
        return np.bincount(cls, minlength=stats.n_classes) >= self.l

    @property
    def min_class_size(self) -> int:
        return self.l

    def describe(self) -> str:
        return (
            f"distinct {self.l}-diversity: every group holds at least {self.l} different values of "
            f"'{self.sensitive}'."
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
            raise ConfigError(f"l must be a number > 1 for entropy l-diversity; got {self.l!r}.", where="l")
        object.__setattr__(self, "l", lv)
        _need_sensitive("l-diversity", self.sensitive)

    def passes(self, stats: ClassStats) -> np.ndarray:
        cls, _, cnt = stats.pairs(self.sensitive)
        p = cnt / stats.sizes[cls]
        entropy = np.bincount(cls, weights=-p * np.log(p), minlength=stats.n_classes)
        return entropy >= math.log(self.l) - 1e-9

    @property
    def min_class_size(self) -> int:
        return math.ceil(self.l)

    def describe(self) -> str:
        return (
            f"entropy {self.l:g}-diversity: the values of '{self.sensitive}' in every group are at least as "
            f"varied as {self.l:g} equally frequent values."
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
                f"c must be a number > 0 for recursive (c,l)-diversity; got {self.c!r}.", where="c"
            )
        object.__setattr__(self, "c", cv)
        _need_sensitive("l-diversity", self.sensitive)

    def passes(self, stats: ClassStats) -> np.ndarray:
        cls, _, cnt = stats.pairs(self.sensitive)
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
        return (
            f"recursive ({self.c:g},{self.l})-diversity: in every group the most frequent value of "
            f"'{self.sensitive}' is rarer than {self.c:g} times the values from the {self.l}-th on together."
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
            raise ConfigError(f"t must be a number in (0, 1]; got {self.t!r}.", where="t")
        object.__setattr__(self, "t", tv)
        if self.distance not in T_DISTANCES:
            raise ConfigError(
                f"The t-closeness distance must be one of {', '.join(T_DISTANCES)}; got '{self.distance}'.",
                where="t-distance",
            )
        _need_sensitive("t-closeness", self.sensitive)

    def distances(self, stats: ClassStats) -> np.ndarray:
        """EMD of every class to the table's distribution."""
        col = stats.enc.sensitive_column(self.sensitive)
        cls, val, cnt = stats.pairs(self.sensitive)
        q = col.global_distribution
        p = cnt / stats.sizes[cls]
        n = stats.n_classes
        if self.distance == "equal":
            return 0.5 * (1.0 + np.bincount(cls, weights=np.abs(p - q[val]) - q[val], minlength=n))
        return _dense_emd(cls, val, p, q, n, col, self.distance)

    def passes(self, stats: ClassStats) -> np.ndarray:
        return self.distances(stats) <= self.t + 1e-9

    def describe(self) -> str:
        return (
            f"{self.t:g}-closeness ({self.distance} distance): the distribution of '{self.sensitive}' in "
            f"every group differs from the whole table's by at most {self.t:g}."
        )

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "t": self.t, "sensitive": self.sensitive, "distance": self.distance}


def _dense_emd(
    cls: np.ndarray,
    val: np.ndarray,
    p: np.ndarray,
    q: np.ndarray,
    n: int,
    col: SensitiveColumn,
    distance: str,
) -> np.ndarray:
    """Ordered or hierarchical EMD on dense (class x value) blocks, bounded to ~8M cells at a time."""
    m = len(q)
    out = np.zeros(n)
    block = max(1, 8_000_000 // max(m, 1))
    bounds = np.searchsorted(cls, np.arange(0, n + block, block))
    if distance == "hierarchical":
        if col.hierarchy is None:
            raise ConfigError(
                f"Hierarchical t-closeness needs a hierarchy for '{col.name}'.",
                hint="Assign a hierarchy to the sensitive attribute, or use the equal or ordered distance.",
                where=col.name,
            )
        h = col.hierarchy
        parents = [h.level_codes[j][0] for j in range(h.depth)]  # leaf -> code at level j
    for b, start in enumerate(range(0, n, block)):
        stop = min(start + block, n)
        lo, hi = bounds[b], bounds[b + 1] if b + 1 < len(bounds) else len(cls)
        dense = np.zeros((stop - start, m))
        dense[cls[lo:hi] - start, val[lo:hi]] = p[lo:hi]
        extra = dense - q[None, :]
        if distance == "ordered":
            out[start:stop] = np.abs(np.cumsum(extra, axis=1)).sum(axis=1) / max(m - 1, 1)
            continue
        height = h.height
        child_extra = extra  # extras of the nodes at level j-1, indexed by leaf at level 0
        child_codes = np.arange(m)
        cost = np.zeros(stop - start)
        for j in range(1, height + 1):
            # nodes at level j-1 -> their parent at level j
            n_child = int(child_codes.max()) + 1
            parent_of_child = np.zeros(n_child, dtype=np.int64)
            parent_of_child[child_codes] = parents[j]
            n_par = h.distinct_at(j)
            onehot = np.zeros((n_child, n_par))
            onehot[np.arange(n_child), parent_of_child] = 1.0
            pos = np.clip(child_extra, 0, None) @ onehot
            neg = np.clip(-child_extra, 0, None) @ onehot
            cost += (j / height) * np.minimum(pos, neg).sum(axis=1)
            child_extra = pos - neg
            child_codes = parents[j]
        out[start:stop] = cost
    return out


_MODELS: dict[str, type[PrivacyModel]] = {
    m.name: m for m in (KAnonymity, DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity, TCloseness)
}


def model_from_dict(d: dict[str, Any]) -> PrivacyModel:
    """Rebuild a model from its ``to_dict`` form (project files, CLI)."""
    d = dict(d)
    name = d.pop("name", None)
    if name not in _MODELS:
        raise ConfigError(f"Unknown privacy model '{name}'; known: {', '.join(_MODELS)}.", where="models")
    import inspect

    params = inspect.signature(_MODELS[name]).parameters
    unknown = [k for k in d if k not in params]
    if unknown:
        raise ConfigError(
            f"The privacy model '{name}' has no setting '{unknown[0]}'.",
            hint=f"Its settings are: {', '.join(params)}.",
            where=name,
        )
    needed = [p for p, v in params.items() if v.default is inspect.Parameter.empty and p not in d]
    if needed:
        raise ConfigError(
            f"The privacy model '{name}' needs its setting '{needed[0]}', which is missing.",
            hint=f'Add it to the model in the project file, for example "{needed[0]}": 5.',
            where=name,
        )
    return _MODELS[name](**d)


def all_monotone(models: tuple[PrivacyModel, ...] | list[PrivacyModel], suppression: bool) -> bool:
    """Whether "satisfies" is upward closed in the lattice for these models (enables pruning)."""
    return (not suppression) or all(m.monotone_with_suppression for m in models)
