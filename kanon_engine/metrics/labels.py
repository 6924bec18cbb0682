"""What every reported metric is called, what it means, and how its value is shown: the one place.

An ethics board reads these words, so each name says exactly what the number is. Sweeney's precision,
for instance, is reported as the share of precision *kept* (1 = original values), never as a "loss".
The report, the workbench's views and the CLI's summaries all take their wording from here, and
``tests/engine/test_metric_labels.py`` pins every label and value on a hand-computed example.

Metric keys are those of :func:`kanon_engine.metrics.loss.node_metrics` (full-domain runs) and
:func:`kanon_engine.metrics.partition.partition_metrics` (Mondrian), plus per-attribute keys
``intensity:<column>`` and ``ncp:<column>``; cell-level releases
(:func:`kanon_engine.release.cell_recoding.cell_metrics`) add the values replaced by * (``suppressed_cells``
and
``suppressed_cells:<column>``), the records touched and generalized, and the transformations used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from kanon_engine.i18n import N_, _, formats


@dataclass(frozen=True)
class MetricLabel:
    """How one metric is named and shown.

    ``name``: a short name (table rows, chart axes); ``meaning``: one plain sentence saying what the
    number is and which end is good, both in the current language (the fields hold the catalog's
    English ids); ``share``: the value is a fraction shown as a percentage; ``lower_is_better``: True /
    False, or None when neither end is better (a count, say).
    """

    name_id: str
    meaning_id: str
    share: bool = False
    lower_is_better: bool | None = True

    @property
    def name(self) -> str:
        return _(self.name_id)

    @property
    def meaning(self) -> str:
        return _(self.meaning_id) if self.meaning_id else ""

    def show(self, value: Any) -> str:
        """The value as people read it: a percentage for shares, thousands separators for counts."""
        return format_metric(value, self.share)


def format_metric(value: Any, share: bool = False) -> str:
    """``0.8125`` -> ``81.3 %`` for a share; ``9268952.0`` -> ``9,268,952``; ``1.2345`` -> ``1.23``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return _("not available")
    if math.isnan(x):
        return _("not available")
    if math.isinf(x):
        return _("infinite")
    if share:
        return formats.percent(x, 1)
    if x.is_integer() or abs(x) >= 1000:
        return formats.count(x)
    if abs(x) < 1:
        return formats.decimal(float(f"{x:.3g}"), 6)
    return formats.decimal(x, 2, fixed=True)


METRIC_LABELS: dict[str, MetricLabel] = {
    "discernibility": MetricLabel(
        N_("Discernibility (DM)"),
        N_(
            "Sum over the groups of the squared group size, plus the number of records for every "
            "suppressed record; lower keeps records easier to tell apart."
        ),
    ),
    "discernibility_star": MetricLabel(
        N_("Discernibility without suppression penalty (DM*)"),
        N_("Sum over all groups, suppressed ones included, of the squared group size; lower is better."),
    ),
    "cavg": MetricLabel(
        N_("Average group size relative to k (C_AVG)"),
        N_(
            "All records of the table (suppressed ones included) per released group, divided by k, as the "
            "Mondrian paper defines it; 1 is ideal (every group has exactly k records)."
        ),
    ),
    "cavg_released": MetricLabel(
        N_("Average released group size relative to k (C_AVG over released records)"),
        N_("Released records per group, divided by k: C_AVG without the suppressed records; 1 is ideal."),
    ),
    "precision": MetricLabel(
        N_("Precision kept (Sweeney's Prec)"),
        N_(
            "Share of the hierarchies' precision the release keeps, over every record and "
            "quasi-identifier: 100 % keeps every original value, 0 % generalizes everything to *."
        ),
        share=True,
        lower_is_better=False,
    ),
    "height": MetricLabel(
        N_("Generalization steps (height in the lattice)"),
        N_(
            "The sum of the generalization levels applied to the quasi-identifiers; 0 keeps the original "
            "values."
        ),
    ),
    "entropy": MetricLabel(
        N_("Information lost (non-uniform entropy, bits)"),
        N_("Bits of information lost over every record and quasi-identifier; 0 keeps the original values."),
    ),
    "loss": MetricLabel(
        N_("Information lost (Loss, as in ARX)"),
        N_(
            "How much of each quasi-identifier's range the released values leave open, suppressed records "
            "counting in full, combined over the attributes: 0 % keeps the original values, 100 % "
            "generalizes or suppresses everything."
        ),
        share=True,
    ),
    "classification": MetricLabel(
        N_("Records a classifier would get wrong (classification metric)"),
        N_(
            "Share of records whose value of the study's target differs from the most frequent value of "
            "their group (all of a group's records when two values tie), suppressed records counting one "
            "half, as in ARX: 0 % means every group predicts its records' target."
        ),
        share=True,
    ),
    "gcp": MetricLabel(
        N_("Range left open, on average (GCP)"),
        N_(
            "Share of each quasi-identifier's range that the released values leave open, averaged over "
            "records and quasi-identifiers: 0 % keeps the original values, 100 % releases only *."
        ),
        share=True,
    ),
    "partitions": MetricLabel(
        N_("Partitions made"),
        N_(
            "Groups of records the partitioning made (partitions with the same released values are one "
            "group of the release)."
        ),
        lower_is_better=None,
    ),
    "discernibility_partitions": MetricLabel(
        N_("Discernibility of the partitions (DM*)"),
        N_("Sum over the partitions of the squared partition size; lower is better."),
    ),
    "cavg_partitions": MetricLabel(
        N_("Average partition size relative to k"),
        N_("Records per partition, divided by k; 1 is ideal."),
    ),
    "splits": MetricLabel(
        N_("Cuts made"),
        N_("How many times the partitioning cut a group of records in two."),
        lower_is_better=None,
    ),
    # releases that keep every record and recode single values (local recoding and suppression, and
    # the full-domain algorithms with cell suppression)
    "suppressed_cells": MetricLabel(
        N_("Values replaced by *"),
        N_(
            "Single quasi-identifier values replaced by * in records that were kept; fewer keeps more detail."
        ),
    ),
    "star_cells": MetricLabel(
        N_("Values shown as *"),
        N_(
            "Quasi-identifier values the release shows as *: replaced by *, or generalized to a hierarchy "
            "root that reads *."
        ),
    ),
    "records_touched": MetricLabel(
        N_("Records with a value replaced by *"),
        N_("Records kept in the release with at least one quasi-identifier value replaced by *."),
    ),
    "records_generalized": MetricLabel(
        N_("Records with a value generalized"),
        N_("Records with at least one quasi-identifier value released as a broader group."),
    ),
    "transformations_used": MetricLabel(
        N_("Transformations used"),
        N_("Different combinations of generalization levels (and of values replaced by *) the records use."),
        lower_is_better=None,
    ),
}

_PER_ATTRIBUTE: dict[str, tuple[str, str]] = {
    "intensity": (
        N_("Generalization of {column}"),
        N_(
            "Share of the height of the hierarchy of {column} that was used: 0 % keeps its original "
            "values, 100 % releases it as *."
        ),
    ),
    "ncp": (
        N_("Range left open for {column} (NCP)"),
        N_(
            "Share of the range of {column} that its released values leave open, averaged over the "
            "records: 0 % keeps its original values, 100 % releases it as *."
        ),
    ),
    "suppressed_cells": (
        N_("Values of {column} replaced by *"),
        N_("Records kept in the release whose value of {column} was replaced by *."),
    ),
}


def metric_label(key: str) -> MetricLabel:
    """The label of a metric key (``precision``, ``intensity:Geburtsdatum``, ...).

    An unknown key keeps its own name (so a new metric is never hidden), with no claim about it.
    """
    if key in METRIC_LABELS:
        return METRIC_LABELS[key]
    kind, sep, column = key.partition(":")
    if sep and kind in _PER_ATTRIBUTE:
        name, meaning = _PER_ATTRIBUTE[kind]
        share = kind != "suppressed_cells"  # a count, not a share
        return MetricLabel(_(name, column=column), _(meaning, column=column), share=share)
    return MetricLabel(key, "", lower_is_better=None)


def show_metric(key: str, value: Any) -> str:
    """A metric's value as shown on screen and in the report."""
    return metric_label(key).show(value)


#: Plain words for the search objectives (the ``metric`` parameter's codes), in one place.
OBJECTIVE_LABELS: dict[str, str] = {
    "loss": N_("Balanced information loss (Loss, as in ARX)"),
    "dm": N_("Smallest groups (discernibility, DM)"),
    "dm-star": N_("Smallest groups, ignoring suppression (DM*)"),
    "cavg": N_("Group size closest to k (C_AVG)"),
    "precision": N_("Most precision kept (Sweeney's precision)"),
    "height": N_("Fewest generalization steps (height)"),
    "entropy": N_("Least information lost in bits (entropy)"),
    "classification": N_("Target still predictable (classification metric)"),
}


#: What the search objective's value at a lattice node *is* (the lattice view's metric filter and node
#: descriptions): the same names as the report's metrics where the value is one of them.
OBJECTIVE_VALUES: dict[str, MetricLabel] = {
    "loss": METRIC_LABELS["loss"],
    "precision": MetricLabel(
        N_("Precision lost (1 minus Sweeney's Prec)"),
        N_(
            "Share of the hierarchies' precision the release gives up, over every record and "
            "quasi-identifier: 0 % keeps every original value, 100 % generalizes everything to *."
        ),
        share=True,
    ),
    "dm": METRIC_LABELS["discernibility"],
    "dm-star": METRIC_LABELS["discernibility_star"],
    "cavg": METRIC_LABELS["cavg"],
    "height": METRIC_LABELS["height"],
    "entropy": METRIC_LABELS["entropy"],
    "classification": METRIC_LABELS["classification"],
}


def objective_value_label(code: str) -> MetricLabel:
    """How the value of search objective ``code`` at a lattice node is named and shown."""
    return OBJECTIVE_VALUES.get(code, MetricLabel(OBJECTIVE_LABELS.get(code, code), "", lower_is_better=None))


def decimals_to_tell_apart(values: Any, share: bool = False, most: int = 6) -> int:
    """Decimals a number field needs so that distinct ``values`` show distinct (in percent for a
    share): enough for the smallest gap between two of them, at least one for a share, none for whole
    numbers, at most ``most``."""
    x = np.asarray(values, dtype=float)
    x = np.unique(x[np.isfinite(x)] * (100.0 if share else 1.0))
    if not share and np.all(x == np.round(x)):
        return 0
    gaps = np.diff(x)
    gaps = gaps[gaps > 1e-12]
    if not len(gaps):
        return 1 if share else 2
    need = int(math.ceil(-math.log10(float(gaps.min())))) if gaps.min() < 1 else 0
    return int(min(most, max(1 if share else 0, need)))
