"""l-diversity: the sensitive values of every class are well represented (Machanavajjhala et al. 2007,
"l-Diversity: Privacy Beyond k-Anonymity", ACM TKDD 1(1)), in the paper's three variants, offered as one
form (``--l``, ``--l-variant``, ``--c``):

- distinct: at least l different values; monotone also with suppression (a merge keeps them);
- entropy: the entropy of the values is at least log(l); concave, so monotone without suppression, and
  :meth:`EntropyLDiversity.assess` bounds the records failing in every split;
- recursive (c,l): the most frequent value is rarer than c times the values from the l-th on together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from kanon_engine.i18n import N_, _
from kanon_engine.params import ParamSpec, choice_spec
from kanon_engine.privacy.base import (
    ClassStats,
    PrivacyModel,
    SensitiveValueModel,
    int_param,
    number,
)

L = ParamSpec(
    "l",
    "l",
    "float",
    None,
    N_(
        "Each group must hold at least l well-represented values of the "
        "sensitive attribute (l-diversity); empty to skip."
    ),
    minimum=1.0,
    above=True,
    presets=(2, 3, 5),
)
L_VARIANT = choice_spec(
    "l_variant",
    N_("l-diversity variant"),
    "distinct",
    N_(
        "distinct: l different values; entropy: entropy at least log(l); recursive: the most frequent "
        "value is not too dominant (needs c)."
    ),
    {
        "distinct": N_("Distinct (at least l different values)"),
        "entropy": N_("Entropy (values evenly spread)"),
        "recursive": N_("Recursive (no value dominates, with c)"),
    },
)
C = ParamSpec(
    "c",
    N_("c (recursive l-diversity)"),
    "float",
    2.0,
    N_("The c of recursive (c,l)-diversity."),
    minimum=0.0,
    above=True,
)


class LDiversity(SensitiveValueModel):
    """What the three variants share: the form, the sensitive attribute, the words, the smallest class."""

    family: ClassVar[str] = "l-diversity"
    title: ClassVar[str] = N_("l-diversity")
    params: ClassVar[tuple[ParamSpec, ...]] = (L, L_VARIANT, C)
    fields_of_params: ClassVar[dict[str, str]] = {"l_variant": "variant"}
    #: the value of ``l_variant`` that picks this class
    variant: ClassVar[str]
    #: the short form's words (a catalog id with {l}, {c} and {sensitive})
    short_words: ClassVar[str]
    #: the sentence of :meth:`describe` (a catalog id with {l}, {c} and {column})
    sentence: ClassVar[str]
    l: float  # noqa: E741  (the paper's name)

    @classmethod
    def from_values(cls, values: Mapping[str, Any], sensitive: str | None) -> PrivacyModel | None:
        """The variant ``l_variant`` names, with a whole l as an integer."""
        if not cls.chosen(values):
            return None
        l_value = values["l"]
        whole = {"l": int(l_value) if float(l_value).is_integer() else l_value}
        variant = _VARIANTS[values.get("l_variant") or L_VARIANT.default]
        return variant.built({**values, **whole}, sensitive)

    @classmethod
    def param_visible(cls, name: str, values: Mapping[str, Any]) -> bool:
        if name == "c":
            return cls.chosen(values) and values.get("l_variant") == "recursive"
        return super().param_visible(name, values)

    def words(self) -> dict[str, Any]:
        """The settings as the variant's sentence and short words show them."""
        settings = {"l": number(self.l), "c": number(getattr(self, "c", ""))}
        return {**settings, "sensitive": self.sensitive, "column": self.sensitive}

    def describe(self) -> str:
        return _(self.sentence, **self.words())

    def short(self) -> str:
        return _(self.short_words, **self.words())

    @property
    def min_class_size(self) -> int:
        """A class of fewer than l records cannot hold l values, nor entropy log(l)."""
        return math.ceil(self.l)


@dataclass(frozen=True)
class DistinctLDiversity(LDiversity):
    """Each class holds at least l distinct values of the sensitive attribute.

    Monotone also with suppression: merging a passing class with anything keeps >= l distinct values.
    """

    l: int  # noqa: E741  (the paper's name)
    sensitive: str | None = None
    name: ClassVar[str] = "distinct-l-diversity"
    variant: ClassVar[str] = "distinct"
    short_words: ClassVar[str] = N_("distinct l = {l} on {sensitive}")
    sentence: ClassVar[str] = N_(
        "distinct {l}-diversity: every group holds at least {l} different values of '{column}'."
    )
    monotone_with_suppression: ClassVar[bool] = True

    def check_settings(self) -> None:
        object.__setattr__(self, "l", int_param("l", self.l, 2))

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.histograms(self.protected).distinct(stats.n_classes) >= self.l


@dataclass(frozen=True)
class EntropyLDiversity(LDiversity):
    """The entropy of the sensitive values in each class is at least log(l).

    Monotone without suppression (entropy is concave, so a merge of passing classes passes); with
    suppression a merge of a passing and a failing class can fail, so searches may not prune by it.
    """

    l: float  # noqa: E741
    sensitive: str | None = None
    name: ClassVar[str] = "entropy-l-diversity"
    variant: ClassVar[str] = "entropy"
    short_words: ClassVar[str] = N_("entropy l = {l} on {sensitive}")
    sentence: ClassVar[str] = N_(
        "entropy {l}-diversity: the values of '{column}' in every group are at least as "
        "varied as {l} equally frequent values."
    )

    def check_settings(self) -> None:
        object.__setattr__(self, "l", L.number_in_range(self.l))

    def entropies(self, stats: ClassStats) -> np.ndarray:
        """Entropy (natural log) of the sensitive values of every class."""
        cls, _values, cnt = stats.pairs(self.protected)
        p = cnt / stats.totals(self.protected)[cls]  # each person once per value under the person role
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


@dataclass(frozen=True)
class RecursiveCLDiversity(LDiversity):
    """Recursive (c,l)-diversity: r1 < c (r_l + r_{l+1} + ... + r_m), r_i the i-th largest count."""

    c: float
    l: int  # noqa: E741
    sensitive: str | None = None
    name: ClassVar[str] = "recursive-cl-diversity"
    variant: ClassVar[str] = "recursive"
    short_words: ClassVar[str] = N_("recursive (c = {c}, l = {l}) on {sensitive}")
    sentence: ClassVar[str] = N_(
        "recursive ({c},{l})-diversity: in every group the most frequent value of "
        "'{column}' is rarer than {c} times the values from the {l}-th on together."
    )

    def check_settings(self) -> None:
        object.__setattr__(self, "l", int_param("l", self.l, 2))
        object.__setattr__(self, "c", C.number_in_range(self.c))

    def passes(self, stats: ClassStats) -> np.ndarray:
        cls, _values, cnt = stats.pairs(self.protected)
        n = stats.n_classes
        order = np.lexsort((-cnt, cls))
        cls_s, cnt_s = cls[order], cnt[order]
        starts = np.searchsorted(cls_s, np.arange(n))
        rank = np.arange(len(cls_s)) - starts[cls_s]
        r1 = np.zeros(n)
        r1[cls_s[rank == 0]] = cnt_s[rank == 0]
        tail = np.bincount(cls_s, weights=np.where(rank >= self.l - 1, cnt_s, 0), minlength=n)
        return r1 < self.c * tail


_VARIANTS: dict[str, type[LDiversity]] = {
    cls.variant: cls for cls in (DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity)
}
