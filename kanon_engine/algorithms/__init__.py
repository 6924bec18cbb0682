"""Anonymization algorithms, registered by name for the CLI and the GUI's picker.

Importing this package registers the built-in algorithms: datafly, samarati, incognito and optimal
(full-domain, :mod:`.full_domain`) and mondrian / mondrian-relaxed (multidimensional, :mod:`.mondrian`).
"""

from kanon_engine.algorithms import full_domain, mondrian  # noqa: F401  (registration)
from kanon_engine.algorithms.base import Algorithm, algorithms, get_algorithm, register

__all__ = ["Algorithm", "algorithms", "get_algorithm", "register"]
