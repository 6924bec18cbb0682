"""What came out of a run: the release, its classes, metrics, and what the algorithm explored."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.frequency import group_columns, representatives
from kanon_engine.core.lattice import SearchRecord
from kanon_engine.i18n import N_, _, ngettext
from kanon_engine.release.build import release_row_order
from kanon_engine.workload.evaluate import WorkloadEvaluation


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


#: The models of k-anonymity named in the survey (Saroha 2014, sections 2.3-2.5, after Ciriani et al.):
#: how values are generalized (attribute-wide: AG, per cell: CG) and what is suppressed (tuples: TS,
#: single cells: CS). Mondrian's partitions are LeFevre et al.'s multidimensional recoding.
SURVEY_MODELS: dict[str, str] = {
    "AG_TS": N_(
        "attribute generalization with tuple suppression: one generalization level per attribute for the "
        "whole table; whole records that still stand out are suppressed"
    ),
    "AG_CS": N_(
        "attribute generalization with cell suppression: one generalization level per attribute for the "
        "whole table; single values of the records that still stand out are replaced by *"
    ),
    "CG": N_(
        "cell generalization (local recoding): each record's values are generalized on their own, only to "
        "values of the hierarchies; no record is removed"
    ),
    "CS": N_(
        "cell suppression (local suppression): nothing is generalized; single values are replaced by *; "
        "no record is removed"
    ),
    "multidimensional": N_(
        "multidimensional recoding (Mondrian): groups of records are released as ranges or hierarchy "
        "groups of their own; no record is removed"
    ),
}


#: The same models in a few plain words, for the workbench's tables and lines (the codes alone, "CG" or
#: "AG_TS", meant nothing to the walk's users); :func:`model_label` shows them with the code.
SURVEY_MODEL_NAMES: dict[str, str] = {
    "AG_TS": N_("same level for the whole table, records suppressed"),
    "AG_CS": N_("same level for the whole table, single values suppressed"),
    "CG": N_("each record generalized on its own"),
    "CS": N_("single values suppressed, nothing generalized"),
    "multidimensional": N_("groups of records with ranges of their own"),
}


def model_label(code: str) -> str:
    """A survey model in plain words with its code: "each record generalized on its own (CG)"."""
    name = SURVEY_MODEL_NAMES.get(code)
    if name is None:
        return code
    if code == "multidimensional":
        return _(name)
    return _("{name} ({code})", name=_(name), code=code)


def model_description(code: str) -> str:
    """The survey model's one-sentence description (a tooltip)."""
    return _(SURVEY_MODELS[code]) if code in SURVEY_MODELS else ""


@dataclass(frozen=True, eq=False)
class CellRecoding:
    """How every cell of the quasi-identifiers was released (cell-level models: CG, CS, AG_CS).

    ``levels[i, j]`` is the hierarchy level at which record ``i``'s value of quasi-identifier ``j`` is
    released (0: the original value); ``suppressed[i, j]`` marks a cell released as ``*``. ``model`` is
    the survey's name (see :data:`SURVEY_MODELS`). In such a release ``*`` is a value of its own: the
    classes are records with identical released strings (the strict reading).
    """

    qi: tuple[str, ...]
    levels: np.ndarray  # (n_records, n_qi) int8
    suppressed: np.ndarray  # (n_records, n_qi) bool
    model: str

    @property
    def suppressed_cells(self) -> int:
        return int(self.suppressed.sum())

    def suppressed_per_attribute(self) -> dict[str, int]:
        counts = self.suppressed.sum(axis=0)
        return {q: int(c) for q, c in zip(self.qi, counts)}

    @property
    def records_touched(self) -> int:
        """Records with at least one suppressed cell."""
        return int(self.suppressed.any(axis=1).sum())

    @property
    def records_generalized(self) -> int:
        """Records with at least one cell generalized (released above level 0, not suppressed)."""
        return int(((self.levels > 0) & ~self.suppressed).any(axis=1).sum())

    def in_words(self) -> str:
        """ "every record kept, 1,234 values replaced by *" (and/or records generalized), for status
        lines."""
        parts = [_("every record kept")]
        if self.suppressed_cells or not self.records_generalized:
            parts.append(
                ngettext(
                    "{n} value replaced by *",
                    "{n} values replaced by *",
                    self.suppressed_cells,
                    n=self.suppressed_cells,
                )
            )
        if self.records_generalized:
            parts.append(
                ngettext(
                    "{n} record generalized",
                    "{n} records generalized",
                    self.records_generalized,
                    n=self.records_generalized,
                )
            )
        return ", ".join(parts)

    def transformations(self, row_class: np.ndarray | None = None) -> list[dict[str, Any]]:
        """The transformations the records use, most used first: per QI the level (or ``"*"`` when the
        cell is suppressed), with the number of records using it (and of classes, given the class of
        every record)."""

        d = len(self.qi)
        code = np.where(self.suppressed, -1, self.levels.astype(np.int64)) + 1
        if not len(code):
            return []
        top = int(code.max()) + 1
        ids, n_ids = group_columns([code[:, j] for j in range(d)], [top] * d)
        counts = np.bincount(ids, minlength=n_ids)
        rep = representatives(ids, n_ids)
        classes = None
        if row_class is not None:  # distinct (transformation, class) pairs per transformation
            pair, n_pairs = group_columns([ids, row_class], [n_ids, int(row_class.max(initial=0)) + 1])
            classes = np.bincount(ids[representatives(pair, n_pairs)], minlength=n_ids)
        out = []
        for t in np.argsort(-counts, kind="stable"):
            row = code[rep[t]]
            entry: dict[str, Any] = {
                "levels": {q: ("*" if c == 0 else int(c) - 1) for q, c in zip(self.qi, row)},
                "records": int(counts[t]),
            }
            if classes is not None:
                entry["classes"] = int(classes[t])
            out.append(entry)
        return out


@dataclass(frozen=True, eq=False)
class AnonymizationResult:
    """A finished run. ``row_class[i]`` is the class of input row ``i`` (-1 when suppressed).

    ``release`` and ``row_class`` are held when the table is in memory; a run on a larger-than-memory
    engine holds neither (both None): its ``plan`` (:mod:`kanon_engine.sources.plan.release_plan`) streams
    the release
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
    workload: WorkloadEvaluation | None = None
    #: False when levels were applied as they are (``apply`` without k): no privacy model is claimed.
    models_enforced: bool = True
    #: how every row's release is computed (a release plan); the engine that ran and why
    plan: Any = None
    engine: str = "memory"
    engine_reason: str = ""
    n_records: int | None = None
    n_suppressed: int | None = None
    recoding: CellRecoding | None = None
    #: under the person role, the persons of the release
    #: (:class:`~kanon_engine.metrics.person_risk.PersonFacts`); None without it
    persons: Any | None = None
    #: how close a local-suppression release is to the fewest ``*`` possible (``lower_bound``, ``gap``,
    #: ``method``, ...: :meth:`kanon_engine.algorithms.local_bound.Certificate.to_dict`); None otherwise
    certificate: dict[str, Any] | None = None
    #: what a differentially private run promised and spent (SafePub: epsilon, delta, search_budget,
    #: beta, k, records_sampled, ...); None for every other run
    differential_privacy: dict[str, Any] | None = None

    @classmethod
    def finished(
        cls,
        algorithm: str,
        parameters: dict[str, Any],
        config: AnonymizationConfig,
        start: float,
        **found: Any,
    ) -> AnonymizationResult:
        """The result of a run that began at ``start`` (``time.perf_counter()``) and ends now: what every
        algorithm's result says alike (its name, a copy of its checked parameters, the configuration, the
        time it took), and what this run ``found``, by field name. Without ``release`` and ``row_class``
        the release is made later from the result's ``plan`` (full-domain and Mondrian runs)."""
        found.setdefault("release", None)
        found.setdefault("row_class", None)
        return cls(
            algorithm=algorithm,
            parameters=dict(parameters),
            config=config,
            runtime_seconds=time.perf_counter() - start,
            **found,
        )

    @property
    def in_memory(self) -> bool:
        """Whether the release is held (else it is streamed from the source by an export)."""
        return self.release is not None and self.row_class is not None

    @property
    def model(self) -> str:
        """The survey's name of the model the release follows (a key of :data:`SURVEY_MODELS`)."""
        if self.recoding is not None:
            return self.recoding.model
        if self.partitions is not None:
            return "multidimensional"
        return "AG_TS"

    @property
    def cell_level(self) -> bool:
        """True when records are recoded cell by cell (every record kept, ``*`` a value of its own)."""
        return self.recoding is not None

    def release_table(self) -> pd.DataFrame:
        """The release's rows. A run whose engine streamed the rows holds none (its release is written
        from the source, see :mod:`kanon_engine.sources.plan.sink`): a ValueError says so."""
        if self.release is None:
            raise ValueError("this run's engine streamed the rows: it holds no release table")
        return self.release

    def classes_of_rows(self) -> np.ndarray:
        """The class of every input record (-1: suppressed). A run whose engine streamed the rows holds
        none (it has ``n_records`` and ``n_suppressed``): a ValueError says so."""
        if self.row_class is None:
            raise ValueError("this run's engine streamed the rows: it holds no class per record")
        return self.row_class

    @property
    def records(self) -> int:
        return len(self.classes_of_rows()) if self.n_records is None else int(self.n_records)

    @property
    def suppressed_mask(self) -> np.ndarray:
        return self.classes_of_rows() < 0

    @property
    def release_rows(self) -> np.ndarray:
        """The input row of every release row (drop and shuffle undone by indexing with it)."""
        return release_row_order(self.records, self.suppressed_mask, self.config)

    @property
    def suppressed(self) -> int:
        return int(self.suppressed_mask.sum()) if self.n_suppressed is None else int(self.n_suppressed)

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
        out["model"] = self.model
        if self.recoding is not None:
            rec = self.recoding
            out["suppressed_cells"] = rec.suppressed_cells
            out["suppressed_cells_per_attribute"] = rec.suppressed_per_attribute()
            out["records_touched"] = rec.records_touched
            out["records_generalized"] = rec.records_generalized
            out["transformations_used"] = len(rec.transformations())
        if self.certificate is not None:
            out["certificate"] = dict(self.certificate)
        if self.lattice is not None:
            out["lattice"] = {"size": int(len(self.lattice.status)), "status_counts": self.lattice.counts()}
        if self.notes:
            out["notes"] = list(self.notes)
        if self.workload is not None:
            out["workload"] = self.workload.to_dict()
        if self.differential_privacy is not None:  # issue 32's contract: epsilon ... records_sampled
            dp = out["differential_privacy"] = dict(self.differential_privacy)
            # "suppressed" names the records removed in groups under k, not those the sampling left out
            out["suppressed"] = dp["records_suppressed_in_small_groups"]
            out["records_left_out_by_sampling"] = dp["records_left_out_by_sampling"]
        if self.persons is not None:
            out["persons"] = self.persons.to_dict()
        return out
