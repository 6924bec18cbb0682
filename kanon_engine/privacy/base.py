"""The contract every privacy model meets: :class:`PrivacyModel`, the per-class statistics it judges
(:class:`ClassStats`) and what it needs the engine to count (:class:`Requirement`).

A model judges the equivalence classes of a node all at once, on numpy arrays: ``passes`` gives one
boolean per class, ``assess`` adds how many of a failing class's records fail in every split of it (the
bound the searches prune with), and ``release_passes`` judges the release as a whole (for a model that is
not about single classes, such as an average risk). How to write one is in :mod:`kanon_engine.privacy`.
"""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Protocol

import numpy as np

from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import FrequencySet, Histograms, SensitiveCombos
from kanon_engine.core.persons import person_stats, reference_distribution, split_hists
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _, formats
from kanon_engine.params import ParamSpec


class Requirement(Enum):
    """What a model needs the engine to count per class, beyond the class sizes (its own numbers, such
    as a population size, are its parameters).

    ``SENSITIVE``: the histogram of the sensitive attribute the model names (``model.sensitive``);
    ``POPULATION``: the records of a population table in each class (k-map, population uniqueness);
    ``SUBSET``: the records of the research subset in each class (delta-presence);
    ``PERSONS``: the distinct persons in each class, when a person has several records.
    """

    SENSITIVE = "sensitive"
    POPULATION = "population"
    SUBSET = "subset"
    PERSONS = "persons"

    @property
    def words(self) -> str:
        """What it is, in the current language."""
        return _(_REQUIREMENT_WORDS[self])


_REQUIREMENT_WORDS = {
    Requirement.SENSITIVE: N_("a sensitive attribute"),
    Requirement.POPULATION: N_("the population the data were drawn from"),
    Requirement.SUBSET: N_("the research subset"),
    Requirement.PERSONS: N_("the person behind each record"),
}

#: What the engine's counting gives the models (:class:`ClassStats`). A model needing more is refused
#: before a run with a plain sentence; whoever teaches the engine to count a requirement adds it here and
#: fills :attr:`ClassStats.counts` with it.
SUPPLIED: frozenset[Requirement] = frozenset(
    {Requirement.SENSITIVE, Requirement.POPULATION, Requirement.SUBSET, Requirement.PERSONS}
)


@dataclass(eq=False)
class ClassStats:
    """What models need to know about the classes of one node: their sizes; per sensitive attribute a
    model looks at, the per-class histograms (:class:`~kanon_engine.core.frequency.Histograms`); and per
    other :class:`Requirement` the engine supplies, one more count per class (``counts``)."""

    enc: EncodedTable
    sizes: np.ndarray
    hists: dict[int, Histograms] = field(default_factory=dict)
    counts: dict[Requirement, np.ndarray] = field(default_factory=dict)
    #: per other :class:`Requirement`: what the engine counted outside every class of the node (the
    #: population's people in combinations no record of the table has)
    outside: dict[Requirement, int] = field(default_factory=dict)
    #: whether the release keeps its suppressed records (as rows of ``*``): then they are one more group
    #: of the release as an attacker sees it
    keeps_suppressed: bool = True
    #: the lattice node's frequency set, when the classes are one (its levels and representatives)
    freq: FrequencySet | None = None

    @property
    def n_classes(self) -> int:
        return int(len(self.sizes))

    @property
    def levels(self) -> tuple[int, ...]:
        """The generalization levels of the node (only for the classes of a lattice node)."""
        if self.freq is None:
            raise RuntimeError("these classes are not the classes of a lattice node")
        return self.freq.levels

    @property
    def leaves(self) -> np.ndarray:
        """One record's leaf codes per quasi-identifier and class (n_qi x classes), of a lattice node."""
        if self.freq is None:
            raise RuntimeError("these classes are not the classes of a lattice node")
        return self.freq.leaves()

    @classmethod
    def of(cls, enc: EncodedTable, fs: FrequencySet) -> ClassStats:
        """The statistics of a frequency set (its histograms must have been rolled up); under the person
        role, its persons per class and per value (:mod:`kanon_engine.core.persons`)."""
        hists, persons = split_hists(fs.hists or {}, fs.n_classes)
        counts = {} if persons is None else {Requirement.PERSONS: persons}
        return cls(enc, fs.counts, hists, counts, freq=fs)

    @property
    def people(self) -> np.ndarray:
        """Who is counted per class: distinct persons under the person role, else records."""
        return self.counts.get(Requirement.PERSONS, self.sizes)

    def totals(self, attribute: str) -> np.ndarray:
        """Per class, the sum of its histogram's counts (its records; under the person role, its
        persons counted once per value): what a class's distribution of the attribute divides by."""
        if Requirement.PERSONS not in self.counts:
            return self.sizes
        h = self.histograms(attribute)
        return np.bincount(h.cls, weights=h.cnt, minlength=self.n_classes)

    def reference(self, attribute: str) -> np.ndarray:
        """The whole table's distribution of the attribute (t-closeness's reference), each person
        counted once per value under the person role."""
        col = self.enc.sensitive_column(attribute)
        if Requirement.PERSONS not in self.counts:
            return col.global_distribution
        return reference_distribution(self.enc, self.enc.sensitive.index(col))

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
        codes = {a: enc.sensitive[a].codes[rows] for a in attributes}
        person = None if enc.persons is None else enc.persons[rows]
        return cls.of_groups(enc, group, n_groups, codes, person, w)

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
        codes = {a: combos.codes[a][combo] for a in attributes}
        # the last row of the combinations is the person (persons.py)
        person = None if enc.persons is None else combos.codes[-1][combo]
        return cls.of_groups(enc, group, n_groups, codes, person, weights)

    @classmethod
    def of_groups(
        cls,
        enc: EncodedTable,
        group: np.ndarray,
        n_groups: int,
        codes: Mapping[int, np.ndarray],
        person: np.ndarray | None,
        weights: np.ndarray | None,
    ) -> ClassStats:
        """What :meth:`from_rows` and :meth:`from_combos` share: statistics of groups of rows, row i in
        group ``group[i]`` with the sensitive codes ``codes[a][i]``, weighing ``weights[i]`` records (one
        when None) and, under the person role, of person ``person[i]``."""
        sizes = np.bincount(group, weights=weights, minlength=n_groups).astype(np.int64)
        if person is not None:  # persons per group, and per group and value
            full = np.ones(len(group), dtype=np.int64) if weights is None else weights
            hists_p, persons = person_stats(enc, group, n_groups, person, codes, full)
            return cls(enc, sizes, hists_p, {Requirement.PERSONS: persons})
        hists = {
            a: Histograms.from_rows(group, c, n_groups, len(enc.sensitive[a].values), weights)
            for a, c in codes.items()
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

    def shares(self, attribute: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per distinct pair of class and sensitive value: the class, the value's share in the class and
        its share in the whole table (what beta-likeness and delta-disclosure compare)."""
        cls, val, cnt = self.pairs(attribute)
        table = self.enc.sensitive_column(attribute).global_distribution[val]
        return cls, cnt / self.sizes[cls], table

    def count(self, requirement: Requirement) -> np.ndarray:
        """The per-class count the engine supplied for ``requirement`` (persons, subset, population)."""
        if requirement not in self.counts:
            raise RuntimeError(f"the engine did not count '{requirement.value}' for these classes")
        return self.counts[requirement]

    def count_outside(self, requirement: Requirement) -> int:
        """What the engine counted for ``requirement`` outside every class (0 when it counted nothing)."""
        return int(self.outside.get(requirement, 0))


#: What the workbench's model picker groups the models by: what the user protects against (catalog ids).
THREATS: dict[str, str] = {
    "singled-out": N_("Nobody singled out"),
    "population": N_("Population"),
    "sensitive": N_("Sensitive values"),
    "presence": N_("Presence in the data"),
}


#: One plain line per threat: what a model filed under it keeps an attacker from learning (catalog ids).
THREAT_EXPLANATIONS: dict[str, str] = {
    "singled-out": N_(
        "Nobody can be picked out of the release: every person hides in a group, or the chance of "
        "finding a person's record stays below a bound."
    ),
    "population": N_(
        "Nobody is unique in the population the data were drawn from: judged on an estimate from the "
        "population size, or on a population table (only as good as that table)."
    ),
    "sensitive": N_("Placing a person in a group reveals little about their sensitive value (a diagnosis)."),
    "presence": N_("An attacker cannot tell whether a person of the population is in the data at all."),
}


@dataclass(frozen=True)
class Preset:
    """A published threshold the model picker offers: its plain words, the form values it fills in (the
    project file then stores those values, not the preset) and its source as the glossary cites it
    (catalog ids)."""

    label: str
    values: Mapping[str, Any]
    source: str


#: Sources of the published thresholds the model picker offers (the glossary lists each with its presets).
CELL_SIZE_PRECEDENTS = N_(
    "K. El Emam, Guide to the De-Identification of Personal Health Information (CRC Press, 2013), "
    'chapter "Cell size precedents": a minimum cell size of 5 means a highest probability of '
    "re-identifying a record of 0.2; a cell size of 11 has been used for public releases in the United "
    "States, and 20 for public Canadian and U.S. patent data."
)
CMS_CELL_SIZE = N_(
    "Centers for Medicare & Medicaid Services, CMS Cell Size Suppression Policy (data use agreements, "
    "version of 8 May 2017): no cell holding a value from 1 to 10 may be reported."
)
PUBLIC_USE_FILE = N_(
    'K. El Emam, D. Paton, F. Dankar, G. Koru, "De-identifying a public use microdata file from the '
    'Canadian National Discharge Abstract Database", BMC Medical Informatics and Decision Making 11:53 '
    "(2011): the threshold for the probability of correct re-identification was set between 0.04 and 0.05."
)


class AlgorithmLike(Protocol):
    """What a model may ask of the algorithm that is to apply it (see :meth:`PrivacyModel.unsupported_by`;
    :class:`~kanon_engine.algorithms.base.Algorithm` has all of it)."""

    name: ClassVar[str]
    title: ClassVar[str]
    full_domain: ClassVar[bool]

    @property
    def parameters(self) -> dict[str, Any]: ...

    def works_on_records(self) -> bool: ...


class PrivacyModel(ABC):
    """A privacy model: the class attributes declare it to the registry (:mod:`kanon_engine.privacy`), the
    methods judge a node's classes. Subclasses are frozen dataclasses whose fields are the model's settings
    (those are what the project file stores, see :meth:`to_dict`)."""

    #: The registry key and the ``name`` of the model in a project file (never change a shipped one).
    name: ClassVar[str]
    #: Models offered as variants of one form (the l-diversity variants) share a family, ``params`` and
    #: ``from_values``; the registry builds one form entry per family. Default: the model's own name.
    family: ClassVar[str] = ""
    #: The family's words for people (a catalog id: ``N_("l-diversity")``).
    title: ClassVar[str] = ""
    #: The family's parameters: each is a CLI flag (``--`` + name), a field ``models.<name>`` of the flags'
    #: table, a field of the workbench's model form, checked by its spec. The first one switches the model
    #: on: its default None means "left out" (``--l none``); a model that is always on gives a default.
    params: ClassVar[tuple[ParamSpec, ...]] = ()
    #: What the engine must count per class for this model (:class:`Requirement`).
    requires: ClassVar[frozenset[Requirement]] = frozenset()
    #: True when a class that fails the model fails in every split of it, so a node whose failing classes
    #: are too many to suppress has only failing specializations, and a generalization of a node satisfying
    #: the model (with its suppression) also satisfies it (ARX: "monotonic with suppression").
    monotone_with_suppression: ClassVar[bool] = False
    #: True when a merge of passing classes passes, so a node whose classes all pass has only satisfying
    #: generalizations (ARX: "monotonic with generalization"). Searches prune by it: say False when unsure.
    monotone_without_suppression: ClassVar[bool] = True
    #: True when the model judges the release as a whole (:meth:`release_suppression`), not only class by
    #: class: only algorithms that release one generalization with whole records suppressed can apply it.
    judges_release: ClassVar[bool] = False
    #: True when a release under the model never holds a suppressed record, not even as ``*`` (differential
    #: privacy: a record left out is part of the randomness); a configuration with it drops them
    removes_suppressed: ClassVar[bool] = False
    #: True when the model bounds the risk of re-identification by itself (average risk, uniqueness,
    #: k-map, ...), so a run may do without k-anonymity (k = 1)
    guards_identity: ClassVar[bool] = False
    #: The threat the workbench's model picker files the model under (:data:`THREATS`)
    threat: ClassVar[str] = "singled-out"
    #: Published thresholds the picker offers for the model, each with its source (:class:`Preset`)
    presets: ClassVar[tuple[Preset, ...]] = ()
    #: Set for a model checked per group of one generalization of whole records (it counts a population
    #: or a subset per class of a lattice node): the sentence, a catalog id with ``{algorithm}``, that
    #: refuses an algorithm making none (:meth:`unsupported_by`)
    whole_records_refusal: ClassVar[str] = ""
    #: False when the model judges rows, not persons, under the person role (the risk-based models of
    #: issue 31 read class sizes in rows): a run with a person role refuses it
    counts_persons: ClassVar[bool] = True
    #: The dataclass field of each parameter whose field has another name (beta-likeness's parameter
    #: ``beta_variant`` is its field ``variant``: the project file keeps the field's name).
    fields_of_params: ClassVar[Mapping[str, str]] = {}
    sensitive: str | None = None

    # --- judging classes ------------------------------------------------------------------------------
    def passes(self, stats: ClassStats) -> np.ndarray:
        """One boolean per class: whether it passes (vectorized over all classes; no Python loop per
        class). A class that fails is suppressed, within the suppression limit. Default: every class
        passes (a model that only judges the release as a whole)."""
        return np.ones(stats.n_classes, dtype=bool)

    def assess(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray]:
        """Per class: whether it passes, and a lower bound on the share of its records that fail in
        every split of it (every record of a failing class, for a model monotone with suppression; none,
        unless a model knows better). A search adds these shares up over a node's classes: that many
        records must be suppressed in every specialization of the node."""
        ok = self.passes(stats)
        return ok, (~ok).astype(np.float64) if self.monotone_with_suppression else np.zeros(len(ok))

    def release_passes(self, stats: ClassStats, released: np.ndarray) -> bool:
        """Whether the release as a whole satisfies the model (only asked when ``judges_release``):
        ``released[i]`` is the number of records of class ``i`` in the release (0 for a suppressed class;
        fewer than its size when the group of suppressed records took some). Default: True."""
        return True

    def release_suppression(
        self, stats: ClassStats, released: np.ndarray, allowance: int
    ) -> np.ndarray | None:
        """The classes to suppress besides those already suppressed so that the release satisfies the
        model (one boolean per class; none: it satisfies it as it is), within ``allowance`` more records;
        None when it cannot. Only asked when ``judges_release``. Default: :meth:`release_passes`, nothing
        suppressed. The risk models suppress the smallest classes first (see
        :mod:`kanon_engine.privacy.release_risk`)."""
        if self.release_passes(stats, released):
            return np.zeros(len(released), dtype=bool)
        return None

    @property
    def min_class_size(self) -> int:
        """The smallest class that can pass (used by Mondrian to skip hopeless cuts)."""
        return 1

    @property
    def protected(self) -> str:
        """The sensitive attribute of a model that requires one (its constructor made sure of it)."""
        return need_sensitive(_(self.title) if self.title else self.name, self.sensitive)

    # --- words ----------------------------------------------------------------------------------------
    @abstractmethod
    def describe(self) -> str:
        """One plain-language sentence for the report and the GUI, in the current language."""

    def short(self) -> str:
        """The settings in a few words (``k = 5``, ``t = 0.2 on diagnosis (equal distance)``) for the run
        history, the comparison of runs and the report's settings; default: :meth:`describe`."""
        return self.describe()

    # --- the project file and the form ----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The model as the project file stores it: ``name`` and every dataclass field."""
        assert dataclasses.is_dataclass(self)
        return {"name": self.name, **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}}

    @classmethod
    def family_name(cls) -> str:
        return cls.family or cls.name

    @classmethod
    def chosen(cls, values: Mapping[str, Any]) -> bool:
        """Whether the form's values ask for this family (its first parameter is set)."""
        return bool(cls.params) and values.get(cls.params[0].name) is not None

    @classmethod
    def from_values(cls, values: Mapping[str, Any], sensitive: str | None) -> PrivacyModel | None:
        """The model the form's values ask for (values already checked by the family's specs), or None
        when they leave it out. Default: :meth:`built`."""
        if not cls.chosen(values):
            return None
        return cls.built(values, sensitive)

    @classmethod
    def built(cls, values: Mapping[str, Any], sensitive: str | None) -> PrivacyModel:
        """The dataclass built from the values of the parameters that are its fields (a blank one: its
        spec's default), and ``sensitive`` when the model needs a sensitive attribute."""
        assert dataclasses.is_dataclass(cls)
        fields = {f.name for f in dataclasses.fields(cls)}
        kwargs = {
            cls._field_of(spec.name): spec.default if values.get(spec.name) is None else values[spec.name]
            for spec in cls.params
            if cls._field_of(spec.name) in fields
        }
        if Requirement.SENSITIVE in cls.requires:
            kwargs["sensitive"] = sensitive
        return cls(**kwargs)

    def values(self) -> dict[str, Any]:
        """The form's values of this model (the inverse of :meth:`from_values`; ``sensitive`` apart)."""
        fields = {spec.name: self._field_of(spec.name) for spec in self.params}
        return {name: getattr(self, field) for name, field in fields.items() if hasattr(self, field)}

    @classmethod
    def _field_of(cls, param: str) -> str:
        return cls.fields_of_params.get(param, param)

    @classmethod
    def param_visible(cls, name: str, values: Mapping[str, Any]) -> bool:
        """Whether the form shows the parameter ``name`` given the current values: the first parameter
        always, the others once the family is chosen."""
        return bool(cls.params) and (name == cls.params[0].name or cls.chosen(values))

    # --- what it needs of the algorithm ---------------------------------------------------------------
    def unsupported_by(self, algorithm: AlgorithmLike) -> str | None:
        """A sentence saying why ``algorithm`` cannot apply this model, or None when it can. Default: a
        model that judges the release as a whole needs one generalization with whole records suppressed.
        A model with a search of its own (differential privacy's SafePub) refuses every other one."""
        if algorithm.full_domain and not algorithm.works_on_records():
            return None
        words = _(algorithm.title).split(" (")[0]
        if self.whole_records_refusal:
            return _(self.whole_records_refusal, algorithm=words)
        return whole_release_refusal(self, words) if self.judges_release else None


class SensitiveValueModel(PrivacyModel):
    """What the models of a sensitive attribute (l-diversity, t-closeness, beta-likeness,
    delta-disclosure) declare alike: the engine counts that attribute's values per class, the picker files
    them under "Sensitive values", and each is refused when none is named: after its own settings are
    checked (:meth:`check_settings`), so that a bad setting is said first. Each model declares the rest
    (its ``sensitive`` field among its dataclass fields, where its constructor wants it)."""

    requires: ClassVar[frozenset[Requirement]] = frozenset({Requirement.SENSITIVE})
    threat: ClassVar[str] = "sensitive"

    def __post_init__(self) -> None:
        self.check_settings()
        need_sensitive(self.family_name(), self.sensitive)

    @abstractmethod
    def check_settings(self) -> None:
        """Check the model's own settings and keep them normalized (the dataclass is frozen: with
        ``object.__setattr__``), or raise a ConfigError in one sentence."""


def whole_release_refusal(model: PrivacyModel, algorithm: str) -> str:
    """Why ``algorithm`` (its words) cannot apply a model that judges the release as a whole."""
    return _(
        "{model} judges the release as a whole, which {algorithm} cannot do: choose an algorithm that "
        "releases one generalization and suppresses whole records, such as optimal or datafly.",
        model=_(model.title) if model.title else model.name,
        algorithm=algorithm,
    )


# --- checks shared by the models' constructors -------------------------------------------------------
def int_param(name: str, value: Any, minimum: int) -> int:
    """``value`` as an integer of at least ``minimum`` (a whole float or text is accepted), or a
    ConfigError in one sentence: ``k must be an integer of at least 2; got 1.``"""
    is_int = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    f = value if is_int else float_or_nan(value)
    whole = is_int or (math.isfinite(f) and float(f).is_integer())
    if not whole or f < minimum:
        raise ConfigError(
            _(
                "{name} must be an integer of at least {low}; got {value}.",
                name=name,
                low=str(minimum),
                value=str(int(f)) if whole else repr(value),
            ),
            where=name,
        )
    return int(f)


def positive_param(value: Any, sentence: str, where: str) -> float:
    """``value`` as a finite number above 0, or a ConfigError in ``sentence`` (a catalog id with
    ``{value}``): ``beta must be a number above 0; got -1.``"""
    return number_above(value, 0.0, sentence, where, finite=True)


def number_above(value: Any, low: float, sentence: str, where: str, finite: bool = False) -> float:
    """``value`` as a number above ``low`` (infinity allowed unless ``finite``), or a ConfigError in
    ``sentence`` (a catalog id with ``{value}``): ``c must be a number > 0 ...; got -1.``"""
    v = float_or_nan(value)
    if not v > low or (finite and not math.isfinite(v)):
        raise ConfigError(_(sentence, value=repr(value)), where=where)
    return v


def float_or_nan(value: Any) -> float:
    """``value`` as a float; NaN when it is not a number (the caller's range check then refuses it)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def number(value: Any) -> str:
    """A setting as the short forms show it (``5``, ``0.2``, ``2,5`` in German)."""
    try:
        return formats.decimal(float(value), 6)
    except (TypeError, ValueError):
        return str(value)


def need_sensitive(model: str, sensitive: str | None) -> str:
    """The sensitive attribute a model protects, or a ConfigError saying none was named."""
    if not sensitive:
        raise ConfigError(
            _("{model} protects a sensitive attribute, but none was named.", model=model),
            hint=_("Mark a column (for example the diagnosis) as sensitive and choose it here."),
            where="sensitive",
        )
    return sensitive
