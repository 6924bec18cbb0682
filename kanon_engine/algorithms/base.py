"""The one shape every algorithm has: parameters in the constructor, data in ``run``.

``Samarati(suppression_limit=0.02, metric="precision").run(table, config, progress=cb)`` returns a frozen
:class:`~kanon_engine.result.AnonymizationResult`. The picker, the CLI and one contract test treat every
registered algorithm alike.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from kanon_engine.config import AnonymizationConfig, ParamSpec
from kanon_engine.data.table import Table
from kanon_engine.encoding import EncodedTable, encode_table
from kanon_engine.errors import ConfigError
from kanon_engine.evaluation import NodeEvaluation, suppression_allowance
from kanon_engine.lattice import SearchRecord
from kanon_engine.metrics.loss import METRICS, MetricContext, generalization_intensity, node_metrics
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.release import full_domain_release
from kanon_engine.result import AnonymizationResult

SUPPRESSION_LIMIT = ParamSpec(
    "suppression_limit",
    "Suppression limit",
    "float",
    None,
    "Largest share of records that may be removed (suppressed) instead of generalizing further, "
    "from 0 (none) to 1.",
    minimum=0.0,
    maximum=1.0,
    presets=(0.0, 0.01, 0.02, 0.05, 0.1),
)
METRIC = ParamSpec(
    "metric",
    "Quality metric",
    "choice",
    "dm",
    "What 'best' means: dm counts how many records each record is confused with (plus a penalty per "
    "suppressed record), dm-star ignores suppression, cavg is the average group size relative to k, "
    "precision the average generalization, height the number of generalization steps, entropy the "
    "information lost in bits.",
    choices=tuple(METRICS),
)


class Algorithm(ABC):
    """Base class of every anonymization algorithm."""

    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    #: Full-domain algorithms explore the lattice; the others partition records (Mondrian).
    full_domain: ClassVar[bool] = True
    params: ClassVar[tuple[ParamSpec, ...]] = (SUPPRESSION_LIMIT, METRIC)

    def __init__(self, **params: Any) -> None:
        known = {p.name for p in self.params}
        for key in params:
            if key not in known:
                raise ConfigError(
                    f"The algorithm '{self.name}' has no parameter '{key}'; its parameters are "
                    f"{', '.join(sorted(known))}.",
                    where=key,
                )
        self.parameters: dict[str, Any] = {p.name: p.coerce(params.get(p.name)) for p in self.params}

    @property
    def metric_name(self) -> str:
        return self.parameters.get("metric", "dm")

    def suppression_allowance(self, n_rows: int, k: int) -> int:
        """Records that may be suppressed; no suppression unless a limit is given."""
        limit = self.parameters.get("suppression_limit")
        return suppression_allowance(n_rows, 0.0 if limit is None else limit)

    def run(
        self, table: Table, config: AnonymizationConfig, progress: ProgressCallback = no_progress
    ) -> AnonymizationResult:
        """Anonymize ``table``; the input table is never modified."""
        start = time.perf_counter()
        config.check_columns(table)
        progress(0.0, "encoding the quasi-identifiers")
        enc = encode_table(
            table,
            config.quasi_identifiers,
            config.hierarchies,
            config.sensitive,
            config.sensitive_hierarchies,
        )
        return self._run(table, config, enc, progress, start)

    @abstractmethod
    def _run(
        self,
        table: Table,
        config: AnonymizationConfig,
        enc: EncodedTable,
        progress: ProgressCallback,
        start: float,
    ) -> AnonymizationResult: ...

    def _finish(
        self,
        table: Table,
        config: AnonymizationConfig,
        enc: EncodedTable,
        ev: NodeEvaluation,
        ctx: MetricContext,
        start: float,
        checks: int,
        record: SearchRecord | None,
        notes: tuple[str, ...] = (),
    ) -> AnonymizationResult:
        """Build the release of the chosen full-domain node and everything reported about it."""
        release, row_class, sizes = full_domain_release(table, config, enc, ev, ctx.base)
        metrics = node_metrics(ev, ctx)
        for q, value in zip(enc.qi, generalization_intensity(np.asarray(ev.levels), enc.heights)):
            metrics[f"intensity:{q}"] = float(value)
        return AnonymizationResult(
            algorithm=self.name,
            parameters=dict(self.parameters),
            config=config,
            release=release,
            row_class=row_class,
            class_sizes=sizes,
            metrics=metrics,
            runtime_seconds=time.perf_counter() - start,
            transformation=dict(zip(enc.qi, (int(x) for x in ev.levels))),
            nodes_checked=checks,
            lattice=record,
            notes=notes,
        )


_REGISTRY: dict[str, type[Algorithm]] = {}


def register(cls: type[Algorithm]) -> type[Algorithm]:
    """Class decorator: make an algorithm known to the CLI and the GUI's picker."""
    _REGISTRY[cls.name] = cls
    return cls


def algorithms() -> dict[str, type[Algorithm]]:
    """Every registered algorithm by name (importing the package registers the built-in ones)."""
    import kanon_engine.algorithms  # noqa: F401  (registers)

    return dict(_REGISTRY)


def get_algorithm(name: str, **params: Any) -> Algorithm:
    known = algorithms()
    if name not in known:
        raise ConfigError(f"Unknown algorithm '{name}'; choose one of {', '.join(known)}.", where="algorithm")
    return known[name](**params)
