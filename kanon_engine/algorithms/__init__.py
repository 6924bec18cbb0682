"""Anonymization algorithms, registered by name for the CLI and the GUI's picker.

Importing this package registers the built-in algorithms: datafly, samarati, incognito and optimal
(full-domain, :mod:`.full_domain`) and mondrian / mondrian-relaxed (multidimensional, :mod:`.mondrian`).
"""

from kanon_engine.algorithms import full_domain, mondrian  # noqa: F401  (registration)
from kanon_engine.algorithms.base import Algorithm, algorithms, get_algorithm, register

#: Why kanon offers heuristics beside the exact search (shown by ``algorithms --verbose`` and the README).
HARDNESS_NOTE = (
    "Why no exact answer for big lattices: finding the best k-anonymous generalization is NP-hard "
    "(Meyerson & Williams 2004; the seed chapter), for full-domain generalization as for Mondrian's "
    "multidimensional partitions, so no method is known that finds it quickly on every table. kanon's "
    "optimal search is exact: it checks the lattice of full-domain generalizations with pruning, up to "
    "500,000 transformations (incognito the same, samarati 2,000,000). Past that limit it stops with a "
    "message instead of running for hours; use datafly (Sweeney's greedy climb, one path through the "
    "lattice) or mondrian (greedy median cuts, any table size), which are fast and always k-anonymous "
    "but not provably the best, or reduce the lattice (fewer quasi-identifiers, shallower hierarchies)."
)

__all__ = ["HARDNESS_NOTE", "Algorithm", "algorithms", "get_algorithm", "register"]
