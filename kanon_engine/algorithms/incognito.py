"""Incognito (LeFevre, DeWitt & Ramakrishnan 2005, "Incognito: Efficient Full-Domain K-Anonymity",
SIGMOD): every k-anonymous full-domain generalization, bottom-up over growing subsets of the
quasi-identifier with subset-property pruning and roll-up of frequency sets."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from kanon_engine.algorithms.full_domain import LatticeSearchAlgorithm
from kanon_engine.algorithms.search import LatticeSearch
from kanon_engine.core.lattice import INFERRED_FAILS, NOT_EVALUATED
from kanon_engine.i18n import N_


class Incognito(LatticeSearchAlgorithm):
    """All safe full-domain generalizations, then the best one by the quality metric.

    Subset property: a generalization of a set of attributes can only be safe if it is safe on every
    subset, so a node of a subset of size s is only checked when all its (s-1)-subset nodes passed.
    """

    name = "incognito"
    title = N_("Incognito (all safe full-domain generalizations)")
    description = N_(
        "Finds every full-domain generalization that satisfies the privacy models, working up from "
        "single quasi-identifiers to all of them: a generalization of a set of attributes can only be "
        "safe if it is safe on every subset (the subset property). Returns all solutions, for the "
        "lattice view, and the best one by the quality metric."
    )
    max_nodes = 500_000

    def _search(self, search: LatticeSearch) -> int | None:
        lat = search.lattice
        if not search.monotone:
            # no subset property without monotonicity: every node is checked to list all solutions
            for index in lat.bottom_up_order():
                search.satisfies(int(index))
            return search.optimize()
        passed = np.zeros(lat.size, dtype=bool)
        for size in range(1, len(lat.max_levels) + 1):
            new_passed = np.zeros(lat.size, dtype=bool)
            for subset in combinations(range(len(lat.max_levels)), size):
                new_passed |= _check_subset(search, subset, passed)
            passed |= new_passed
        return search.optimize()


def _check_subset(search: LatticeSearch, subset: tuple[int, ...], passed: np.ndarray) -> np.ndarray:
    """Check the nodes of one attribute subset whose (size-1)-subset nodes all passed; the mask of
    those that satisfy the models. A node of the subset S is the full node with the attributes outside
    S at their top level."""
    lat = search.lattice
    top = lat.max_levels
    levels = lat.levels
    outside = np.ones(len(top), dtype=bool)
    outside[list(subset)] = False
    members = (levels[:, outside] == top[None, outside]).all(axis=1)
    candidates = members.copy()
    if len(subset) > 1:
        for a in subset:  # subset property: every (size-1)-subset node must be safe
            parent = levels.copy()
            parent[:, a] = top[a]
            candidates &= passed[parent @ lat.strides]
    # nodes of this subset ruled out by the subset property fail without a check
    search.status[members & ~candidates & (search.status == NOT_EVALUATED)] = INFERRED_FAILS
    found = np.zeros(lat.size, dtype=bool)
    for index in lat.bottom_up_order():
        if candidates[index] and search.satisfies(int(index)):
            found[index] = True
    return found
