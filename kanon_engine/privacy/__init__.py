"""Privacy models as plug-ins: one module per model (or per family of variants), and a registry.

Shipped: :mod:`.k_anonymity` (every run has it), :mod:`.l_diversity` (distinct, entropy and recursive
(c,l): one family, one form) and :mod:`.t_closeness` (equal, ordered and hierarchical distances). The
contract is in :mod:`.base`, the registry and the translation between the model form's flat values and
models in :mod:`.registry`. The CLI's flags, the project file, validation, the workbench's model form, the
run history and the report read the registry; none of them names a model.

How to add a privacy model
--------------------------
1. Write ``kanon_engine/privacy/<name>.py`` with a frozen dataclass subclassing
   :class:`~.base.PrivacyModel`; its fields are its settings (what the project file stores)::

       AVERAGE_RISK = share_spec("average_risk", N_("Average risk"),
                                 N_("The highest average re-identification risk allowed; empty to skip."),
                                 (0.1, 0.05), above=True)   # a ParamSpec above 0, at most 1 (params.py)

       @dataclass(frozen=True)
       class AverageRisk(PrivacyModel):
           \"\"\"What it demands and why; cite the paper.\"\"\"

           average_risk: float
           name = "average-risk"                 # registry key and project-file name: never change it
           title = N_("average re-identification risk")
           params = (AVERAGE_RISK,)              # flag --average-risk, form field, field models.average_risk
           requires = frozenset()                # or {Requirement.SENSITIVE}, POPULATION, SUBSET, PERSONS
           monotone_with_suppression = False     # be honest: the searches prune by these two
           monotone_without_suppression = True
           judges_release = True                 # judged on the whole release, not class by class

           def __post_init__(self):              # its range as the form and the CLI say it, same sentence
               object.__setattr__(self, "average_risk", AVERAGE_RISK.number_in_range(self.average_risk))

           def release_passes(self, stats, released):    # numpy over all classes, no loop per class
               return np.count_nonzero(released) <= self.average_risk * released.sum()

           def describe(self): return _("...one sentence for the report...", ...)
           def short(self): return _("average risk <= {r}", r=...)

   The first ParamSpec switches the model on (default None: left out; ``--average-risk none``). A
   per-class model implements ``passes(stats)`` (one boolean per class from ``stats.sizes``,
   ``stats.histograms(attribute)`` or ``stats.count(Requirement.X)``) and, when it knows a bound on the
   records failing in every split, ``assess``. Defaults that fit most models: ``from_values`` builds the
   dataclass from the parameters of the same names (``fields_of_params`` names a field that differs; a
   blank parameter takes its spec's default; plus ``sensitive`` when it requires one), ``values`` is its
   inverse, ``to_dict`` stores every field, ``param_visible`` shows the other parameters once the
   first is set. Variants of one family share ``family``, ``params`` and ``from_values`` (see
   :mod:`.l_diversity`). A choice is declared with ``params.choice_spec`` (each code beside its plain
   words, and its refusal) and checked in the constructor by ``spec.refuse_unknown(value)``; a number by
   ``spec.number_in_range(value)``, so the model takes exactly the range its field and flag state (a value
   the model cannot hold, such as a risk of 0, is declared with ``above=True``). Extra inputs
   are parameters too (a population size is a float; a research subset or population table is a file
   named by a "text" parameter). A model needing something the engine does not count yet lists it in
   ``requires``: it is refused with a plain sentence until the engine supplies it
   (:data:`.base.SUPPLIED`, :attr:`.base.ClassStats.counts`). A model that needs an algorithm of its own
   (differential privacy's SafePub) says why any other cannot apply it in ``unsupported_by(algorithm)``
   (a model checked per group of one generalization of whole records just sets
   ``whole_records_refusal``); validation and ``Algorithm.run`` both ask. Two kinds of model declare
   most of this alike and subclass a base that declares it once: a model of what a class reveals of a
   sensitive attribute subclasses :class:`~.base.SensitiveValueModel` (it requires the attribute, is
   filed under "Sensitive values", and is refused without one; it checks its own settings in
   ``check_settings``), a model of the whole release's re-identification risk subclasses
   :class:`~.release_risk.ReleaseRiskModel` (judges the release, guards identity, counts rows).
2. Add the class to ``BUILT_IN`` below. That gives it its CLI flags, its project-file round trip, its
   checks in validation, its fields in the workbench's model form and its sentence in the report and the
   run history. Put every user-visible string through ``N_``/``_`` and translate it
   (``python -m kanon_engine.i18n.maintain update``). tests/engine/test_privacy_plugin.py shows a model
   added from outside the package with :func:`register` and :func:`unregister`.

Model modules never import this package (it imports them), so the import graph stays acyclic.
"""

from __future__ import annotations

from kanon_engine.privacy.average_risk import AverageRisk
from kanon_engine.privacy.base import ClassStats, PrivacyModel, Requirement
from kanon_engine.privacy.beta_likeness import BetaLikeness
from kanon_engine.privacy.delta_disclosure import DeltaDisclosure
from kanon_engine.privacy.delta_presence import DeltaPresence
from kanon_engine.privacy.differential_privacy import DifferentialPrivacy
from kanon_engine.privacy.k_anonymity import KAnonymity, k_of
from kanon_engine.privacy.k_map import KMapEstimate, KMapTable
from kanon_engine.privacy.l_diversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from kanon_engine.privacy.population_uniqueness import PopulationUniqueness
from kanon_engine.privacy.profitability import JournalistProfitability, Profitability
from kanon_engine.privacy.registry import (
    all_monotone,
    applicability_problems,
    families,
    model_classes,
    model_from_dict,
    model_params,
    model_values_of,
    models_from_values,
    param_visible,
    register,
    require_applicable,
    require_identity_model,
    unregister,
    wants_sensitive,
)
from kanon_engine.privacy.sample_uniqueness import SampleUniqueness
from kanon_engine.privacy.t_closeness import TCloseness

#: The models kanon ships, in the order of the model form and of a run's models.
BUILT_IN: tuple[type[PrivacyModel], ...] = (
    KAnonymity,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    TCloseness,
    DifferentialPrivacy,
    AverageRisk,
    SampleUniqueness,
    PopulationUniqueness,
    KMapEstimate,
    KMapTable,
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    Profitability,
    JournalistProfitability,
)

for _cls in BUILT_IN:
    register(_cls)

__all__ = [
    "BUILT_IN",
    "AverageRisk",
    "BetaLikeness",
    "DeltaDisclosure",
    "DeltaPresence",
    "JournalistProfitability",
    "KMapEstimate",
    "KMapTable",
    "PopulationUniqueness",
    "Profitability",
    "SampleUniqueness",
    "ClassStats",
    "DifferentialPrivacy",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "KAnonymity",
    "PrivacyModel",
    "RecursiveCLDiversity",
    "Requirement",
    "TCloseness",
    "all_monotone",
    "applicability_problems",
    "families",
    "k_of",
    "model_classes",
    "model_from_dict",
    "model_params",
    "model_values_of",
    "models_from_values",
    "param_visible",
    "register",
    "require_applicable",
    "require_identity_model",
    "unregister",
    "wants_sensitive",
]
