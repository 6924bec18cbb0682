"""Samarati's algorithm: the lowest generalization height with a solution, by binary search (Samarati
2001, "Protecting Respondents' Identities in Microdata Release", IEEE TKDE 13(6)), bounded as the seed
survey's future work proposes (Saroha 2014, section 4.0.1: Sweeney's algorithm gives the limits of
Samarati's search)."""

from __future__ import annotations

import numpy as np

from kanon_engine.algorithms.base import METRIC, SUPPRESSION_LIMIT, TARGET
from kanon_engine.algorithms.cell_suppression import SUPPRESS
from kanon_engine.algorithms.datafly import greedy_climb
from kanon_engine.algorithms.full_domain import LatticeSearchAlgorithm
from kanon_engine.algorithms.local_suppression import IMPORTANCE
from kanon_engine.algorithms.search import LatticeSearch
from kanon_engine.config import ParamSpec
from kanon_engine.i18n import N_, _

BOUNDED = ParamSpec(
    "bounded",
    N_("Bound the search"),
    "bool",
    True,
    N_(
        "Search only between the lowest height the attributes force one by one and the height of Datafly's "
        "solution (the survey's suggested combination of Samarati and Sweeney): the same result, fewer "
        "heights probed."
    ),
)


class Samarati(LatticeSearchAlgorithm):
    """Samarati's binary search on lattice height with MaxSup (the suppression allowance).

    With monotone models, if some node at height h satisfies them, some node at every height above does
    too, so the lowest such height is found by binary search; without monotonicity heights are tried
    bottom up. Among the nodes at that height the best by the quality metric is kept.

    ``bounded`` (default): the binary search runs between two heights known without probing whole
    heights. Above: the height of Datafly's solution (Sweeney's greedy climb satisfies the models, so the
    lowest satisfying height is at most its height). Below: the sum over attributes of the lowest level
    each needs while every other attribute is fully generalized (with monotone models no satisfying node
    has an attribute below that level). The heights probed are reported in the result's notes.
    """

    name = "samarati"
    title = N_("Samarati (lowest generalization height)")
    description = N_(
        "Searches for the lowest level of generalization (the height in the lattice) at which some "
        "full-domain generalization satisfies the privacy models within the suppression limit, by binary "
        "search over heights, as in Samarati's 2001 paper; among the solutions at that height it keeps "
        "the best by the quality metric. Minimal generalization, fast, not always the best quality. "
        "The search is bounded by Datafly's solution above and by what each attribute needs on its own "
        "below."
    )
    params = (SUPPRESSION_LIMIT, METRIC, SUPPRESS, IMPORTANCE, BOUNDED, TARGET)
    max_nodes = 2_000_000

    def _search(self, search: LatticeSearch) -> int | None:
        lat = search.lattice
        #: heights whose nodes were probed, in order, and the bounds of the binary search (for the notes)
        self.probed: list[int] = []
        self.bounds: tuple[int, int] | None = None

        def feasible(height: int) -> bool:
            self.probed.append(height)
            return any(search.satisfies(int(i)) for i in lat.at_height(height))

        if search.monotone:
            lo, hi = 0, lat.max_height
            if self.parameters["bounded"]:
                upper = datafly_climb(search)
                if upper is None:
                    return None
                lo, hi = attribute_floor(search), int(sum(upper))
            elif not feasible(hi):
                return None
            self.bounds = (lo, hi)
            while lo < hi:
                mid = (lo + hi) // 2
                if feasible(mid):
                    hi = mid
                else:
                    lo = mid + 1
            height = lo
        else:
            found = next((h for h in range(lat.max_height + 1) if feasible(h)), None)
            if found is None:
                return None
            height = found
        return search.optimize(lat.heights == height)

    def _notes(self, search: LatticeSearch) -> tuple[str, ...]:
        notes = list(super()._notes(search))
        probed = ", ".join(str(h) for h in self.probed) or "none"
        if self.bounds is not None and self.parameters["bounded"]:
            lo, hi = self.bounds
            notes.append(
                _(
                    "Binary search between heights {lo} (what each attribute needs on its own) and {hi} "
                    "(Datafly's solution); heights probed: {probed}.",
                    lo=lo,
                    hi=hi,
                    probed=probed,
                )
            )
        else:
            notes.append(_("Heights probed: {probed}.", probed=probed))
        return tuple(notes)


def datafly_climb(search: LatticeSearch) -> tuple[int, ...] | None:
    """Sweeney's greedy climb on a search's lattice (checks go through the search, so they are counted
    and tagged): the satisfying node it reaches, or None when even the top fails."""
    lat = search.lattice
    return greedy_climb(search.enc, lambda levels: search.satisfies(lat.index(levels)))


def attribute_floor(search: LatticeSearch) -> int:
    """Sum over attributes of the lowest level at which the attribute satisfies the models while every
    other attribute is at its top: no satisfying node lies below it (monotone models)."""
    lat = search.lattice
    top = lat.max_levels.astype(np.int64)
    total = 0
    for q in range(len(top)):
        lo, hi = 0, int(top[q])
        while lo < hi:
            mid = (lo + hi) // 2
            levels = top.copy()
            levels[q] = mid
            if search.satisfies(lat.index(levels)):
                hi = mid
            else:
                lo = mid + 1
        total += lo
    return total
