"""Count a source into the points of a run (see :mod:`kanon_engine.sources.plan.points`), at the leaves or,
past the memory budget, at a floor whose finer nodes the engine checks
(:mod:`kanon_engine.sources.plan.floor`)."""

from __future__ import annotations

from kanon_engine.config import AnonymizationConfig
from kanon_engine.i18n import _
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.sources.backends.base import TableSource
from kanon_engine.sources.plan import points
from kanon_engine.sources.plan.floor import Floor
from kanon_engine.sources.plan.person_points import require_leaf_points
from kanon_engine.sources.plan.points import Counted, choose_floor, point_spec, points_at


def count_points(
    source: TableSource,
    config: AnonymizationConfig,
    progress: ProgressCallback = no_progress,
    budget: int | None = None,
    extra: tuple[str, ...] = (),
) -> Counted:
    """Count ``source`` into the points of ``config``'s quasi-identifiers and sensitive attributes: at
    the leaves, or, when those are more than ``budget`` (default :data:`POINT_BUDGET`), at the floor
    :func:`choose_floor` finds (then finer nodes are checked by the engine, see
    :mod:`kanon_engine.sources.plan.floor`). ``extra`` columns are counted like protected sensitive
    attributes (the classification metric's targets)."""
    spec = point_spec(source, config, progress, extra)
    progress(0.02, _("counting the records into groups"))
    budget = points.POINT_BUDGET if budget is None else budget
    floor = choose_floor(source, spec, budget, progress)
    require_leaf_points(config, floor, budget)  # persons are counted on the leaves
    counted = points_at(source, spec, floor, progress)
    if any(floor):
        object.__setattr__(counted.enc, "below", Floor(source, spec, floor))
    return counted
