"""What came out of a run: the release, its classes, metrics, and what the algorithm explored."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.config import AnonymizationConfig
from kanon_engine.lattice import SearchRecord
from kanon_engine.release import release_row_order


@dataclass(eq=False)
class PartitionRecord:
    """Mondrian's partitions as boxes, for the 2D viewer and reports.

    ``lower``/``upper`` are (n_partitions, n_qi) bounds in each QI's order (numeric value for numeric
    QIs, ordinal day for dates, leaf position in tree order for categorical ones), inclusive; ``sizes``
    the records per partition; ``classes`` the release's class of every partition (partitions with
    identical released values are one class), so a viewer never has to guess it.
    """

    qi: tuple[str, ...]
    lower: np.ndarray
    upper: np.ndarray
    sizes: np.ndarray
    numeric: tuple[bool, ...]
    labels: list[tuple[str, ...]] = field(default_factory=list)  # released value per partition and QI
    classes: np.ndarray | None = None  # class id of every partition (None: not known)

    def boxes(self) -> list[dict[str, Any]]:
        return [
            {
                "size": int(self.sizes[i]),
                "bounds": {
                    q: [float(self.lower[i, j]), float(self.upper[i, j])] for j, q in enumerate(self.qi)
                },
            }
            for i in range(len(self.sizes))
        ]


@dataclass(frozen=True, eq=False)
class AnonymizationResult:
    """A finished run. ``row_class[i]`` is the class of input row ``i`` (-1 when suppressed).

    ``release`` and ``row_class`` are held when the table is in memory; a run on a larger-than-memory
    engine holds neither (both None): its ``plan`` (:mod:`kanon_engine.sources.plan`) streams the release
    from the source when it is exported, and ``records``/``suppressed`` come from the counts.
    """

    algorithm: str
    parameters: dict[str, Any]
    config: AnonymizationConfig
    release: pd.DataFrame | None
    row_class: np.ndarray | None
    class_sizes: np.ndarray
    metrics: dict[str, float]
    runtime_seconds: float
    transformation: dict[str, int] | None = None
    nodes_checked: int = 0
    lattice: SearchRecord | None = None
    partitions: PartitionRecord | None = None
    notes: tuple[str, ...] = ()
    #: how well the release answers the workload of intended analyses
    #: (:class:`~kanon_engine.workload.evaluate.WorkloadEvaluation`; None until measured)
    workload: Any | None = None
    #: False when levels were applied as they are (``apply`` without k): no privacy model is claimed.
    models_enforced: bool = True
    #: how every row's release is computed (a release plan); the engine that ran and why
    plan: Any = None
    engine: str = "memory"
    engine_reason: str = ""
    n_records: int | None = None
    n_suppressed: int | None = None

    @property
    def in_memory(self) -> bool:
        """Whether the release is held (else it is streamed from the source by an export)."""
        return self.release is not None and self.row_class is not None

    @property
    def records(self) -> int:
        return int(len(self.row_class)) if self.n_records is None else int(self.n_records)

    @property
    def suppressed_mask(self) -> np.ndarray:
        return self.row_class < 0

    @property
    def release_rows(self) -> np.ndarray:
        """The input row of every release row (drop and shuffle undone by indexing with it)."""
        return release_row_order(self.records, self.suppressed_mask, self.config)

    @property
    def suppressed(self) -> int:
        return int((self.row_class < 0).sum()) if self.n_suppressed is None else int(self.n_suppressed)

    @property
    def released_records(self) -> int:
        """Rows of the release: every record, or those not suppressed when suppressed ones are dropped."""
        return self.records - (self.suppressed if self.config.drop_suppressed else 0)

    @property
    def n_classes(self) -> int:
        return int(len(self.class_sizes))

    @property
    def min_class_size(self) -> int:
        return int(self.class_sizes.min()) if len(self.class_sizes) else 0

    def summary(self) -> dict[str, Any]:
        """The JSON report's core (keys are a contract: scripts read them)."""
        out: dict[str, Any] = {
            "algorithm": self.algorithm,
            # the report's keys are a contract: "privacy_models_enforced" has always sat in parameters
            "parameters": self.parameters
            if self.models_enforced
            else {**self.parameters, "privacy_models_enforced": False},
            "models": [m.to_dict() for m in self.config.models] if self.models_enforced else [],
            "quasi_identifiers": list(self.config.quasi_identifiers),
            "sensitive": list(self.config.sensitive),
            "identifiers_removed": list(self.config.identifiers),
            "records": self.records,
            "suppressed": self.suppressed,
            "released_records": self.released_records,
            "classes": self.n_classes,
            "min_class_size": self.min_class_size,
            "discernibility": self.metrics.get("discernibility"),
            "cavg": self.metrics.get("cavg"),
            "transformation": self.transformation,
            "nodes_checked": self.nodes_checked,
            "runtime_seconds": round(self.runtime_seconds, 6),
            "metrics": self.metrics,
            "config_fingerprint": self.config.fingerprint(),
            "engine": self.engine,
        }
        if self.lattice is not None:
            out["lattice"] = {"size": int(len(self.lattice.status)), "status_counts": self.lattice.counts()}
        if self.notes:
            out["notes"] = list(self.notes)
        if self.workload is not None:
            out["workload"] = self.workload.to_dict()
        return out
