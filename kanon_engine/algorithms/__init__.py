"""Anonymization algorithms, registered by name for the CLI and the GUI's picker."""

from kanon_engine.algorithms import full_domain  # noqa: F401  (registers datafly, samarati, incognito, optimal)
from kanon_engine.algorithms.base import Algorithm, algorithms, get_algorithm, register

try:  # Mondrian lands separately
    from kanon_engine.algorithms import mondrian  # noqa: F401
except ImportError:  # pragma: no cover
    pass

__all__ = ["Algorithm", "algorithms", "get_algorithm", "register"]
