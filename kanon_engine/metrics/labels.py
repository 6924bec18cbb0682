"""What every reported metric is called, what it means, and how its value is shown: the one place.

An ethics board reads these words, so each name says exactly what the number is. Sweeney's precision,
for instance, is reported as the share of precision *kept* (1 = original values), never as a "loss".
The report, the workbench's views and the CLI's summaries all take their wording from here, and
``tests/engine/test_metric_labels.py`` pins every label and value on a hand-computed example.

Metric keys are those of :func:`kanon_engine.metrics.loss.node_metrics` (full-domain runs) and
:func:`kanon_engine.metrics.partition.partition_metrics` (Mondrian), plus per-attribute keys
``intensity:<column>`` and ``ncp:<column>``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MetricLabel:
    """How one metric is named and shown.

    ``name``: a short name (table rows, chart axes); ``meaning``: one plain sentence saying what the
    number is and which end is good; ``share``: the value is a fraction shown as a percentage;
    ``lower_is_better``: True / False, or None when neither end is better (a count, say).
    """

    name: str
    meaning: str
    share: bool = False
    lower_is_better: bool | None = True

    def show(self, value: Any) -> str:
        """The value as people read it: a percentage for shares, thousands separators for counts."""
        return format_metric(value, self.share)


def format_metric(value: Any, share: bool = False) -> str:
    """``0.8125`` -> ``81.3 %`` for a share; ``9268952.0`` -> ``9,268,952``; ``1.2345`` -> ``1.23``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return "not available"
    if math.isnan(x):
        return "not available"
    if math.isinf(x):
        return "infinite"
    if share:
        return f"{100 * x:.1f} %"
    if x.is_integer():
        return f"{x:,.0f}"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:,.3g}" if abs(x) < 1 else f"{x:,.2f}"


METRIC_LABELS: dict[str, MetricLabel] = {
    "discernibility": MetricLabel(
        "Discernibility (DM)",
        "Sum over the groups of the squared group size, plus the number of records for every "
        "suppressed record; lower keeps records easier to tell apart.",
    ),
    "discernibility_star": MetricLabel(
        "Discernibility without suppression penalty (DM*)",
        "Sum over all groups, suppressed ones included, of the squared group size; lower is better.",
    ),
    "cavg": MetricLabel(
        "Average group size relative to k (C_AVG)",
        "All records of the table (suppressed ones included) per released group, divided by k, as the "
        "Mondrian paper defines it; 1 is ideal (every group has exactly k records).",
    ),
    "cavg_released": MetricLabel(
        "Average released group size relative to k (C_AVG over released records)",
        "Released records per group, divided by k: C_AVG without the suppressed records; 1 is ideal.",
    ),
    "precision": MetricLabel(
        "Precision kept (Sweeney's Prec)",
        "Share of the hierarchies' precision the release keeps, over every record and "
        "quasi-identifier: 100 % keeps every original value, 0 % generalizes everything to *.",
        share=True,
        lower_is_better=False,
    ),
    "height": MetricLabel(
        "Generalization steps (height in the lattice)",
        "The sum of the generalization levels applied to the quasi-identifiers; 0 keeps the original values.",
    ),
    "entropy": MetricLabel(
        "Information lost (non-uniform entropy, bits)",
        "Bits of information lost over every record and quasi-identifier; 0 keeps the original values.",
    ),
    "loss": MetricLabel(
        "Information lost (Loss, as in ARX)",
        "How much of each quasi-identifier's range the released values leave open, suppressed records "
        "counting in full, combined over the attributes: 0 % keeps the original values, 100 % "
        "generalizes or suppresses everything.",
        share=True,
    ),
    "gcp": MetricLabel(
        "Range left open, on average (GCP)",
        "Share of each quasi-identifier's range that the released values leave open, averaged over "
        "records and quasi-identifiers: 0 % keeps the original values, 100 % releases only *.",
        share=True,
    ),
    "partitions": MetricLabel(
        "Partitions made",
        "Groups of records the partitioning made (partitions with the same released values are one "
        "group of the release).",
        lower_is_better=None,
    ),
    "discernibility_partitions": MetricLabel(
        "Discernibility of the partitions (DM*)",
        "Sum over the partitions of the squared partition size; lower is better.",
    ),
    "cavg_partitions": MetricLabel(
        "Average partition size relative to k",
        "Records per partition, divided by k; 1 is ideal.",
    ),
    "splits": MetricLabel(
        "Cuts made",
        "How many times the partitioning cut a group of records in two.",
        lower_is_better=None,
    ),
}

_PER_ATTRIBUTE: dict[str, tuple[str, str]] = {
    "intensity": (
        "Generalization of {column}",
        "Share of the height of the hierarchy of {column} that was used: 0 % keeps its original values, "
        "100 % releases it as *.",
    ),
    "ncp": (
        "Range left open for {column} (NCP)",
        "Share of the range of {column} that its released values leave open, averaged over the records: "
        "0 % keeps its original values, 100 % releases it as *.",
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
        return MetricLabel(name.format(column=column), meaning.format(column=column), share=True)
    return MetricLabel(key, "", lower_is_better=None)


def show_metric(key: str, value: Any) -> str:
    """A metric's value as shown on screen and in the report."""
    return metric_label(key).show(value)


#: Plain words for the search objectives (the ``metric`` parameter's codes), in one place.
OBJECTIVE_LABELS: dict[str, str] = {
    "loss": "Balanced information loss (Loss, as in ARX)",
    "dm": "Smallest groups (discernibility, DM)",
    "dm-star": "Smallest groups, ignoring suppression (DM*)",
    "cavg": "Group size closest to k (C_AVG)",
    "precision": "Most precision kept (Sweeney's precision)",
    "height": "Fewest generalization steps (height)",
    "entropy": "Least information lost in bits (entropy)",
}


def objective_label(code: str) -> str:
    """Plain words for a search objective code (the code itself when unknown)."""
    return OBJECTIVE_LABELS.get(code, code)
