"""The globally optimal full-domain search: the best transformation by the quality metric among all that
satisfy the privacy models (the problem ARX solves with Flash; Kohlmayer et al. 2012, "Flash: Efficient,
Stable and Optimal k-Anonymity", PASSAT; El Emam et al. 2009, OLA)."""

from __future__ import annotations

from kanon_engine.algorithms.full_domain import LatticeSearchAlgorithm
from kanon_engine.algorithms.search import LatticeSearch


class Optimal(LatticeSearchAlgorithm):
    """Globally optimal full-domain search (Flash/OLA style tagging plus branch and bound).

    Steps down from the top for an early incumbent, then (with monotone models) tags the lattice with
    few checks, since a generalization of a safe node is safe, and finally branches and bounds: a node
    whose metric lower bound cannot beat the incumbent is never checked.
    """

    name = "optimal"
    title = "Optimal (globally best full-domain generalization)"
    description = (
        "Finds the full-domain generalization with the best quality metric among all that satisfy the "
        "privacy models within the suppression limit. It first finds a good solution by stepping down "
        "from the coarsest generalization, then classifies the lattice with few checks (if a "
        "generalization is safe, every coarser one is too) and skips those that cannot beat the best "
        "found. Use it when the lattice has up to a few hundred thousand nodes: it gives "
        "the provably best result of its kind."
    )
    max_nodes = 500_000

    def _search(self, search: LatticeSearch) -> int | None:
        search.descend()
        search.tag_lattice(prune=True)
        return search.optimize()
