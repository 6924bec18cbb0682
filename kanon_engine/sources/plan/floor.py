"""Nodes finer than the points: checked through a coarser node, or by the engine.

When a table has more distinct combinations of quasi-identifier leaves than fit in memory (100 million
admissions are about as many combinations), the points are counted at a *floor*: levels at which they
fit (:func:`kanon_engine.sources.plan.points.choose_floor`). Every node at or above the floor rolls up from
them in memory as usual. A node N that is not above the floor is checked in two steps:

1. through N v F (each attribute at the higher of N's and the floor's level), which is above the floor: a
   record that must be suppressed at N v F must be suppressed at N too (its class at N is a part of its
   class at N v F, and every model's suppression floor holds for every specialization: see
   :attr:`kanon_engine.core.evaluation.NodeEvaluation.suppressed_floor`), so when N v F has more records to
   suppress than allowed, N fails without reading a row. This settles most nodes below the floor, whose
   classes are smaller still;
2. otherwise by the engine: one pass counts the records in classes smaller than k at N (N fails when they
   are too many), and only a node that passes k-anonymity is counted whole (at most n/k + MaxSup
   classes, which fit) and checked on its own points.

A node settled by the first step carries no metric bound of its own (its classes are not known), so the
search prunes a little less around it; the node chosen is the same as with every point in memory.
"""

from __future__ import annotations

from kanon_engine.core.evaluation import NodeEvaluation, NodeEvaluator
from kanon_engine.sources.backends.base import TableSource
from kanon_engine.sources.plan.points import PointSpec, points_at


class Floor:
    """How an evaluator checks nodes finer than its points (see the module docstring)."""

    def __init__(self, source: TableSource, spec: PointSpec, floor: tuple[int, ...]) -> None:
        self.source = source
        self.spec = spec
        self.floor = tuple(floor)
        self.engine_checks = 0

    def covers(self, levels: tuple[int, ...]) -> bool:
        """Whether the points can check ``levels`` (it is at or above the floor)."""
        return all(lv >= f for lv, f in zip(levels, self.floor))

    def evaluate(self, evaluator: NodeEvaluator, levels: tuple[int, ...], complete: bool) -> NodeEvaluation:
        join = tuple(max(lv, f) for lv, f in zip(levels, self.floor))
        checks = evaluator.checks
        coarse = evaluator.evaluate(join)
        evaluator.checks = checks + 1  # the check of ``levels``
        if coarse.suppressed_floor > evaluator.max_suppressed:
            return NodeEvaluation(
                levels,
                coarse.freq,
                coarse.passes,
                coarse.suppressed,
                False,
                coarse.suppressed_monotone,
                coarse.suppressed_floor,
                complete=False,
                bounded=False,
            )
        self.engine_checks += 1
        small, _checked = self.source.small_classes(self.spec.request(levels, sensitive=False), evaluator.k)
        if small > evaluator.max_suppressed:  # k-anonymity alone rules N and its specializations out
            return NodeEvaluation(
                levels, coarse.freq, coarse.passes, small, False, small, small, False, False
            )
        counted = points_at(self.source, self.spec, levels)
        own = NodeEvaluator(counted.enc, evaluator.models, evaluator.max_suppressed)
        ev = own.evaluate(levels, complete)
        ev.points = counted
        return ev
