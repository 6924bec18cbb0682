"""Anonymization algorithms and their registry (the CLI's ``--algorithm``, the workbench's picker).

One module per algorithm: :mod:`.datafly`, :mod:`.samarati`, :mod:`.incognito`, :mod:`.optimal`,
:mod:`.heuristic` (full domain: one level per quasi-identifier, sharing :mod:`.full_domain` and the
lattice machinery of :mod:`.search`), :mod:`.mondrian` (multidimensional partitioning, strict and
relaxed), and the cell-level models that keep every record: :mod:`.local_recoding` (CG) and
:mod:`.local_suppression` (CS), sharing :mod:`.peeling`; with ``suppress="cells"`` the full-domain ones
release the AG_CS model (:mod:`.cell_suppression`).

Adding an algorithm
-------------------
1. Write ``kanon_engine/algorithms/<name>.py`` with one class (scikit-learn's manners, see
   :mod:`.base`)::

       class LocalSuppression(Algorithm):
           \"\"\"What it does and why; cite the paper.\"\"\"

           name = "local-suppression"           # registry key, CLI value, project-file value
           title = "Local suppression (...)"    # the picker's words
           description = "..."                  # one paragraph for the picker and `algorithms -v`
           full_domain = False                  # True: releases one lattice node (has max_nodes)
           params = (SUPPRESSION_LIMIT, MY_SPEC)  # one ParamSpec per constructor keyword, in order:
                                                  # the base's __init__ stores them (run() validates)

           def _run(self, job: Job) -> AnonymizationResult:
               table, config, enc, progress, start = job   # the points, counted (see base.Job)
               p = self.parameters          # checked and converted by the specs
               ...                          # call progress(fraction, message) often (it cancels)

   A full-domain algorithm subclasses :class:`~.full_domain.FullDomainAlgorithm` (suppression limit
   and metric; :func:`~.full_domain.full_domain_result` builds the release of the chosen node); a
   lattice search subclasses :class:`~.full_domain.LatticeSearchAlgorithm` and only writes ``_search``.
2. Add the class to ``BUILT_IN`` below: that one line gives it a CLI flag for each of its ParamSpecs,
   a parameter form in the workbench, a place in ``python -m kanon_engine algorithms`` and in the
   contract tests run over every registered algorithm (tests/engine/test_algorithms.py).

Algorithm modules never import this package (it imports them), so the import graph stays acyclic.
"""

from __future__ import annotations

from typing import Any

from kanon_engine.algorithms.base import Algorithm
from kanon_engine.algorithms.datafly import Datafly
from kanon_engine.algorithms.heuristic import Heuristic
from kanon_engine.algorithms.incognito import Incognito
from kanon_engine.algorithms.local_recoding import LocalRecoding
from kanon_engine.algorithms.local_suppression import LocalSuppression
from kanon_engine.algorithms.mondrian.algorithm import Mondrian, MondrianRelaxed
from kanon_engine.algorithms.optimal import Optimal
from kanon_engine.algorithms.safepub import SafePub
from kanon_engine.algorithms.samarati import Samarati
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import N_, _, formats

#: The algorithms kanon ships, in the order the picker and ``algorithms`` list them.
BUILT_IN: tuple[type[Algorithm], ...] = (
    Optimal,
    Heuristic,
    Samarati,
    Incognito,
    Datafly,
    Mondrian,
    MondrianRelaxed,
    LocalRecoding,
    LocalSuppression,
    SafePub,
)

_REGISTRY: dict[str, type[Algorithm]] = {}


def register(cls: type[Algorithm]) -> type[Algorithm]:
    """Make an algorithm known to the CLI and the picker (usable as a class decorator outside this
    package, e.g. by a plug-in or a test)."""
    _REGISTRY[cls.name] = cls
    return cls


for _cls in BUILT_IN:
    register(_cls)


def algorithms() -> dict[str, type[Algorithm]]:
    """Every registered algorithm by name."""
    return dict(_REGISTRY)


def title_of(cls: type | None, default: str) -> str:
    """An algorithm class's title (its catalog id; ``default`` when it has none)."""
    return str(getattr(cls, "title", default))


def description_of(cls: type | None) -> str:
    """An algorithm class's description in the current language ("" when it has none)."""
    text = str(getattr(cls, "description", ""))
    return _(text) if text else ""


def get_algorithm(name: str, **params: Any) -> Algorithm:
    """The algorithm ``name`` with raw parameter values (form text, CLI strings) checked and converted by
    its specs: a ConfigError names an unknown algorithm, an unknown parameter or a bad value."""
    cls = _REGISTRY.get(name)
    if cls is None:
        raise ConfigError(
            _("Unknown algorithm '{name}'; choose one of {names}.", name=name, names=", ".join(_REGISTRY)),
            where="algorithm",
        )
    known = {p.name for p in cls.params}
    for key in params:
        if key not in known:
            raise ConfigError(
                _(
                    "The algorithm '{name}' has no parameter '{key}'; its parameters are {known}.",
                    name=name,
                    key=key,
                    known=", ".join(sorted(known)),
                ),
                where=key,
            )
    return cls(**{p.name: p.coerce(params.get(p.name)) for p in cls.params})


#: Why kanon offers heuristics beside the exact search (shown by ``algorithms --verbose`` and the README).
HARDNESS_NOTE = N_(
    "Why no exact answer for big lattices: finding the best k-anonymous generalization is NP-hard "
    "(Meyerson & Williams 2004; the seed chapter), for full-domain generalization as for Mondrian's "
    "multidimensional partitions, so no method is known that finds it quickly on every table. kanon's "
    "optimal search is exact: it checks the lattice of full-domain generalizations with pruning, up to "
    "{optimal} transformations (incognito {incognito}, samarati {samarati}). Past that limit it stops with a "
    "message instead of running for hours; use datafly (Sweeney's greedy climb, one path through the "
    "lattice) or mondrian (greedy median cuts, any table size), which are fast and always k-anonymous "
    "but not provably the best, or reduce the lattice (fewer quasi-identifiers, shallower hierarchies)."
)


def hardness_note() -> str:
    """:data:`HARDNESS_NOTE` with each exact search's limit as its class says it (one constant each)."""

    found = algorithms()
    limits = {
        n: formats.count(int(getattr(found[n], "max_nodes", 0) or 0))
        for n in ("optimal", "incognito", "samarati")
    }
    return _(HARDNESS_NOTE, **limits)


__all__ = [
    "BUILT_IN",
    "HARDNESS_NOTE",
    "hardness_note",
    "Algorithm",
    "algorithms",
    "get_algorithm",
    "register",
]
