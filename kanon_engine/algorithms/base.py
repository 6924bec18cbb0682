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
import time
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from kanon_engine.config import AnonymizationConfig, ParamSpec, require_k_fits
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.data.table import Table
from kanon_engine.i18n import N_, _
from kanon_engine.metrics.labels import OBJECTIVE_LABELS
from kanon_engine.metrics.loss import DEFAULT_METRIC, METRICS
from kanon_engine.privacy import require_applicable
from kanon_engine.privacy.population_inputs import attach_population, prepare_inputs
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources import TableSource, as_source, encode_records, records_in_memory
from kanon_engine.sources.plan.counting import count_points
from kanon_engine.sources.plan.finish import finish_result

SUPPRESSION_LIMIT = ParamSpec(
    "suppression_limit",
    N_("Suppression limit"),
    "float",
    None,
    N_(
        "Largest share of records that may be removed (suppressed) instead of generalizing further, "
        "from 0 % (none) to 100 %; write 5 %, 5% or 0.05. With cell suppression, the largest share of "
        "quasi-identifier values that may be replaced by '*'."
    ),
    minimum=0.0,
    maximum=1.0,
    presets=(0.0, 0.01, 0.02, 0.05, 0.1),
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


class Algorithm(ABC):
    """Base class of every anonymization algorithm.

    A subclass declares ``name`` (the registry key, also the CLI's ``--algorithm`` value), ``title``
    and ``description`` (the picker's words), ``full_domain`` and ``params``, the
    :class:`~kanon_engine.config.ParamSpec` of each constructor argument, in signature order and with
    the same defaults (a contract test checks both). ``__init__`` stores each argument under its own
    name and does nothing else; ``_run`` does the work on data that ``run`` has checked and encoded.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    #: Full-domain algorithms pick one node of the generalization lattice; the others (Mondrian)
    #: recode classes of records each in their own way.
    full_domain: ClassVar[bool] = True
    params: ClassVar[tuple[ParamSpec, ...]] = ()

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
        require_applicable(config.models, self)  # a model this algorithm cannot apply is refused now
        source = as_source(table)
        if self.works_on_records():
            return self._run_on_records(source, config, progress, start)
        config.check_columns(source)
        source = prepare_inputs(source, config)  # the research subset, the population (checked)
        return self._run_source(source, config, progress, start)

    def _run_source(
        self, source: TableSource, config: AnonymizationConfig, progress: ProgressCallback, start: float
    ) -> AnonymizationResult:
        """Count the points, run the algorithm on them, and tie its plan back to the rows (Mondrian
        overrides it for tables whose points exceed the memory budget)."""
        counted = count_points(source, config, progress)
        require_k_fits(config.k, counted.enc.n_rows)
        enc = attach_population(counted.enc, source)
        result = self._run(source, config, enc, progress, start)
        return finish_result(source, counted, result, start)

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
        result = self._run(records, config, encode_records(records, config), progress, start)  # type: ignore[arg-type]
        return dataclasses.replace(result, engine=source.engine, engine_reason=source.reason)

    @abstractmethod
    def _run(
        self,
        table: TableSource,
        config: AnonymizationConfig,
        enc: EncodedTable,
        progress: ProgressCallback,
        start: float,
    ) -> AnonymizationResult:
        """The algorithm proper, on the points (``enc``: weighted rows, see
        :mod:`kanon_engine.sources.plan.points`); it returns a result whose ``plan`` says the class of every
        point, and ``run`` makes the release from it. ``table`` is the source (column types, names);
        ``start`` is ``run``'s start time (for :attr:`AnonymizationResult.runtime_seconds`)."""
