"""Generalization hierarchies: the model, ARX-CSV import/export, validation, builders and tree edits.

``from kanon_engine.hierarchy import read_arx_csv, validate_hierarchy, default_hierarchy`` is the usual
entry; the builders and the tree editor functions live in :mod:`.builders` and :mod:`.tree`.
"""

from kanon_engine.hierarchy import builders, tree
from kanon_engine.hierarchy.arx_csv import read_arx_csv, write_arx_csv
from kanon_engine.hierarchy.builders import (
    MISSING_LABEL,
    date_hierarchy,
    default_hierarchy,
    grouping_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    masking_misfits,
    suggest_widths,
)
from kanon_engine.hierarchy.model import MISSING, ROOT, Hierarchy
from kanon_engine.hierarchy.validate import (
    HierarchyIssue,
    require_valid,
    uncovered_values,
    validate_hierarchy,
)

__all__ = [
    "MISSING",
    "MISSING_LABEL",
    "ROOT",
    "Hierarchy",
    "HierarchyIssue",
    "builders",
    "date_hierarchy",
    "default_hierarchy",
    "grouping_hierarchy",
    "interval_hierarchy",
    "masking_hierarchy",
    "masking_misfits",
    "read_arx_csv",
    "require_valid",
    "suggest_widths",
    "tree",
    "uncovered_values",
    "validate_hierarchy",
    "write_arx_csv",
]
