"""The one shape every algorithm has: parameters in the constructor, data in ``run`` (scikit-learn's
manners: Buitinck et al. 2013, "API design for machine learning software").

``Samarati(suppression_limit=0.02, metric="precision").run(table, config, progress=cb)`` returns a frozen
:class:`~kanon_engine.result.AnonymizationResult`. The constructor names every parameter (so
``help(Samarati)`` lists them) and only stores them; ``run`` checks them with their
:class:`~kanon_engine.config.ParamSpec` (a ConfigError that names the parameter and the value) before it
touches the data. The picker, the CLI and one contract test treat every registered algorithm alike; how
to add one is in :mod:`kanon_engine.algorithms`.
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

from kanon_engine.algorithms.person_support import require_person_support, with_person_facts
from kanon_engine.algorithms.population_source import attach_population, prepare_inputs
from kanon_engine.config import AnonymizationConfig, ParamSpec, require_k_fits
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.i18n import N_, _
from kanon_engine.metrics.labels import OBJECTIVE_LABELS
from kanon_engine.metrics.loss import DEFAULT_METRIC, METRICS
from kanon_engine.params import share_spec
from kanon_engine.privacy import require_applicable
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources import TableSource, as_source, encode_records, records_in_memory
from kanon_engine.sources.plan.counting import count_points
from kanon_engine.sources.plan.finish import finish_result

SUPPRESSION_LIMIT = share_spec(
    "suppression_limit",
    N_("Suppression limit"),
    N_(
        "Largest share of records that may be removed (suppressed) instead of generalizing further, "
        "from 0 % (none) to 100 %; write 5 %, 5% or 0.05. With cell suppression, the largest share of "
        "quasi-identifier values that may be replaced by '*'."
    ),
    (0.0, 0.01, 0.02, 0.05, 0.1),
    percent=True,
)
METRIC = ParamSpec(
    "metric",
    N_("Quality metric"),
    "choice",
    DEFAULT_METRIC,
    N_(
        "What 'best' means among the safe releases. Loss (the default, as in ARX) weighs how much of "
        "every quasi-identifier's range is left open and how many records are suppressed, so no single "
        "column is sacrificed; discernibility prefers small groups (and may turn whole columns into *); "
        "precision the fewest generalization levels; entropy the fewest bits lost."
    ),
    choices=tuple(METRICS),
    choice_labels=tuple(OBJECTIVE_LABELS.get(m, m) for m in METRICS),
)
TARGET = ParamSpec(
    "target",
    N_("Target of the study"),
    "column",
    None,
    N_(
        "For the classification metric: the attribute the study will predict; a group is best when its "
        "records share one value of it. It may be an insensitive or a sensitive column, or a "
        "quasi-identifier."
    ),
)


def target_columns(parameters: dict[str, Any]) -> tuple[str, ...]:
    """The classification metric's target attributes, when that metric is chosen (else none)."""
    if parameters.get("metric") != "classification" or not parameters.get("target"):
        return ()
    return tuple(c.strip() for c in str(parameters["target"]).split(",") if c.strip())


class Job(NamedTuple):
    """One run as :meth:`Algorithm.run` hands it to the algorithm proper (``_run``), once the parameters
    are checked and the rows counted: ``_run(self, job)`` starts with ``table, config, enc, progress,
    start = job``.

    ``table`` is the source (column types, names; for the cell-level models the loaded table, whose
    records they recode), ``enc`` the points (weighted rows, see :mod:`kanon_engine.sources.plan.points`),
    ``progress`` the callback to call often (it cancels), ``start`` when ``run`` began (for
    :attr:`AnonymizationResult.runtime_seconds`)."""

    table: Table | TableSource
    config: AnonymizationConfig
    enc: EncodedTable
    progress: ProgressCallback
    start: float


class Algorithm(ABC):
    """Base class of every anonymization algorithm.

    A subclass declares ``name`` (the registry key, also the CLI's ``--algorithm`` value), ``title``
    and ``description`` (the picker's words), ``full_domain`` and ``params``, the
    :class:`~kanon_engine.config.ParamSpec` of each constructor argument: the base's ``__init__`` takes
    them as keywords (in that order, with their defaults: ``help()`` shows them) and stores each under
    its own name, nothing else, so a subclass writes no constructor. ``_run`` does the work on data that
    ``run`` has checked and encoded.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    #: Full-domain algorithms pick one node of the generalization lattice; the others (Mondrian)
    #: recode classes of records each in their own way.
    full_domain: ClassVar[bool] = True
    params: ClassVar[tuple[ParamSpec, ...]] = ()
    #: the constructor's keywords as ``help()`` and the contract test read them (see ``__init_subclass__``)
    __signature__: ClassVar[inspect.Signature | None] = None

    def __init__(self, **values: Any) -> None:
        """Store each parameter under its own name, its spec's default when not given; nothing is
        checked here (``run`` checks them), so ``Samarati(metric="speed")`` is made and refused when run."""
        known = {p.name for p in self.params}
        unknown = [name for name in values if name not in known]
        if unknown:  # as Python says it of a written-out constructor
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument '{unknown[0]}'")
        for spec in self.params:
            setattr(self, spec.name, values.get(spec.name, spec.default))

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """The constructor is ``params`` read by :meth:`__init__`, so its signature is made from them: one
        keyword-only argument per spec, in order, with the spec's default (a subclass that writes its own
        ``__init__`` keeps that one's)."""
        super().__init_subclass__(**kwargs)
        keywords = [
            inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default) for p in cls.params
        ]
        cls.__signature__ = inspect.Signature(keywords) if cls.__init__ is Algorithm.__init__ else None

    def get_params(self) -> dict[str, Any]:
        """The parameters as given to the constructor (scikit-learn's ``get_params``)."""
        return {p.name: getattr(self, p.name) for p in self.params}

    @property
    def parameters(self) -> dict[str, Any]:
        """The parameters checked and converted by their specs; a ConfigError names a bad one."""
        return {p.name: p.coerce(getattr(self, p.name)) for p in self.params}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def run(
        self,
        table: Table | TableSource,
        config: AnonymizationConfig,
        progress: ProgressCallback = no_progress,
    ) -> AnonymizationResult:
        """Anonymize ``table`` (a loaded table, or a table source of any engine); the input is never
        modified.

        The parameters, the columns and k against the table size are checked first, so a bad value
        fails at once with a message naming it, never halfway through a search. The rows are read twice:
        counted into points (:func:`~kanon_engine.sources.plan.points.count_points`), on which the algorithm
        works, and, for a table in memory, turned into the release by the plan the algorithm returns.
        """
        start = time.perf_counter()
        self.parameters  # noqa: B018 - validates every parameter (raises a ConfigError naming it)
        self.refuse_unfit(config)
        source = as_source(table)
        if self.works_on_records():
            return with_person_facts(self._run_on_records(source, config, progress, start), source)
        config.check_columns(source)
        source = prepare_inputs(source, config)  # the research subset, the population (checked)
        return with_person_facts(self._run_source(source, config, progress, start), source)

    def refuse_unfit(self, config: AnonymizationConfig) -> None:
        """Refuse, before the data is touched, what this algorithm cannot do with ``config``: a model it
        cannot apply, a person role it cannot honour (local suppression adds its attributes to keep
        longest that are not quasi-identifiers)."""
        require_applicable(config.models, self)
        require_person_support(config, self)

    def _run_source(
        self, source: TableSource, config: AnonymizationConfig, progress: ProgressCallback, start: float
    ) -> AnonymizationResult:
        """Count the points, run the algorithm on them, and tie its plan back to the rows (Mondrian
        overrides it for tables whose points exceed the memory budget)."""
        counted = count_points(source, config, progress, extra=self.counted_columns(config))
        require_k_fits(config.k, counted.enc.n_rows)
        enc = attach_population(counted.enc, source)
        result = self._run(Job(source, config, enc, progress, start))
        return finish_result(source, counted, result, start)

    def counted_columns(self, config: AnonymizationConfig) -> tuple[str, ...]:
        """Columns beyond the quasi-identifiers and protected sensitive attributes whose values the run
        counts per class (the classification metric's targets that are not quasi-identifiers)."""
        return ()

    def works_on_records(self) -> bool:
        """Whether this run recodes single cells of single records (the survey's CG, CS and AG_CS
        models): such a run needs every record, not the counted points, and so a table in memory."""
        return bool(getattr(self, "cell_level", False)) or self.parameters.get("suppress") == "cells"

    def _run_on_records(
        self, source: TableSource, config: AnonymizationConfig, progress: ProgressCallback, start: float
    ) -> AnonymizationResult:
        """The run of a cell-level model: on the loaded table's records, encoded one row each."""
        cell_level = getattr(self, "cell_level", False)
        what = _(self.title).split(" (")[0] if cell_level else _("Cell suppression")
        records = records_in_memory(source, what)
        config.check_table(records)
        progress(0.0, _("encoding the quasi-identifiers"))
        enc = encode_records(records, config, self.record_hierarchies(records, config))
        result = self._run(Job(records, config, enc, progress, start))
        return dataclasses.replace(result, engine=source.engine, engine_reason=source.reason)

    def record_hierarchies(self, records: Table, config: AnonymizationConfig) -> Mapping[str, Hierarchy]:
        """The hierarchies a cell-level run encodes the quasi-identifiers with: the configuration's (local
        suppression recodes no value, so its own have two levels, each value and ``*``)."""
        return config.hierarchies

    @abstractmethod
    def _run(self, job: Job) -> AnonymizationResult:
        """The algorithm proper, on the points of ``job`` (see :class:`Job`); it returns a result whose
        ``plan`` says the class of every point, and ``run`` makes the release from it."""
