"""Anonymization algorithms, registered by name for the CLI and the GUI's picker.

Importing this package registers the built-in algorithms: datafly, samarati, incognito and optimal
(full-domain, :mod:`.full_domain`), mondrian / mondrian-relaxed (multidimensional, :mod:`.mondrian`) and
local-recoding / local-suppression (cell level, every record kept: :mod:`.local_recoding`,
:mod:`.local_suppression`, sharing :mod:`.peeling`).
"""

from kanon_engine.algorithms import (  # noqa: F401  (registration)
    full_domain,
    local_recoding,
    local_suppression,
    mondrian,
)
from kanon_engine.algorithms.base import Algorithm, algorithms, get_algorithm, register

__all__ = ["Algorithm", "algorithms", "get_algorithm", "register"]
