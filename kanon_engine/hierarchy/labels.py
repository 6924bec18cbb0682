"""How hierarchy values and labels are shown to people.

A hierarchy stores the missing value as the leaf ``""`` (:data:`~kanon_engine.hierarchy.model.MISSING`)
and its group as ``"(missing)"`` (:data:`~kanon_engine.hierarchy.builders.MISSING_LABEL`) at every level
below the root: tokens kept as they are in project and ARX files, never written into a release (the
release shows an empty cell). Every view that shows a hierarchy (the wizard's preview, the tree, the 2D
view's axis, the lattice) shows both in the interface's language through :func:`shown_label`, so no view
prints the English token (the walk of issue 27 found "(missing)" in a French masking preview).
"""

from __future__ import annotations

from typing import Any

from kanon_engine.hierarchy.builders import MISSING_LABEL
from kanon_engine.hierarchy.model import MISSING
from kanon_engine.i18n import _


def is_missing_label(value: Any) -> bool:
    """The missing leaf or the group of missing values."""
    return isinstance(value, str) and value in (MISSING, MISSING_LABEL)


def shown_label(value: Any) -> str:
    """A hierarchy value or group label as a view shows it ("(fehlend)" in German for both tokens)."""
    return _("(missing)") if is_missing_label(value) else str(value)
