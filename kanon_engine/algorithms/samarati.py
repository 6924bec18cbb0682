"""Samarati's algorithm: the lowest generalization height with a solution, by binary search (Samarati
2001, "Protecting Respondents' Identities in Microdata Release", IEEE TKDE 13(6))."""

from __future__ import annotations

from kanon_engine.algorithms.full_domain import LatticeSearchAlgorithm
from kanon_engine.algorithms.search import LatticeSearch


class Samarati(LatticeSearchAlgorithm):
    """Samarati's binary search on lattice height with MaxSup (the suppression allowance).

    With monotone models, if some node at height h satisfies them, some node at every height above does
    too, so the lowest such height is found by binary search; without monotonicity heights are tried
    bottom up. Among the nodes at that height the best by the quality metric is kept.
    """

    name = "samarati"
    title = "Samarati (lowest generalization height)"
    description = (
        "Searches for the lowest level of generalization (the height in the lattice) at which some "
        "full-domain generalization satisfies the privacy models within the suppression limit, by binary "
        "search over heights, as in Samarati's 2001 paper; among the solutions at that height it keeps "
        "the best by the quality metric. Minimal generalization, fast, not always the best quality."
    )
    max_nodes = 2_000_000

    def _search(self, search: LatticeSearch) -> int | None:
        lat = search.lattice

        def feasible(height: int) -> bool:
            return any(search.satisfies(int(i)) for i in lat.at_height(height))

        if search.monotone:
            lo, hi = 0, lat.max_height
            if not feasible(hi):
                return None
            while lo < hi:
                mid = (lo + hi) // 2
                if feasible(mid):
                    hi = mid
                else:
                    lo = mid + 1
            height = lo
        else:
            height = next((h for h in range(lat.max_height + 1) if feasible(h)), None)
            if height is None:
                return None
        return search.optimize(lat.heights == height)
