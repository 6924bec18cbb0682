"""Local recoding: the survey's CG model (cell generalization), every record kept.

Each record's quasi-identifiers are generalized on their own, only to values of the user's hierarchies
(the original value or one of its ancestors, never an invented range); different classes may use
different levels; nothing is suppressed except that a value generalized to its hierarchy's root shows
that root (usually ``*``). Every class, counting each released string (``*`` included) as a value of its
own, has at least k records and satisfies l-diversity / t-closeness when they are set.

The recoding minimizes the normalized certainty penalty by default (NCP, Xu et al. 2006,
"Utility-based anonymization using local recoding", KDD; ARX calls it "Loss"): per cell ``(leaves
covered - 1) / (leaves - 1)``; precision (levels climbed) and non-uniform entropy are the other
costs. It is found by cost-ordered peeling (:mod:`kanon_engine.algorithms.peeling`): the records that
can stay exact stay exact, the others climb the lattice one cheapest transformation at a time.
Measured on Adult (8 QIs, ARX's hierarchies), it was better than the alternatives tried: a
Mondrian-style top-down split into hierarchy children (about 30% more NCP) and ARX-style rounds of the
globally best transformation (several times more); see bench/bench_local.py.
"""

from __future__ import annotations

import numpy as np

from kanon_engine.algorithms.base import Algorithm, Job
from kanon_engine.algorithms.peeling import (
    GroupChecker,
    Peeler,
    frequency_rows,
    peeling_input,
    require_feasible,
)
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.persons import record_combos
from kanon_engine.i18n import N_, _
from kanon_engine.metrics.loss import EntropyTables
from kanon_engine.metrics.partition import hierarchy_ncp
from kanon_engine.params import choice_spec
from kanon_engine.release.cell_recoding import build_cell_result
from kanon_engine.result import AnonymizationResult, CellRecoding

CELL_COST = choice_spec(
    "cost",
    N_("Cost of a generalized value"),
    "ncp",
    N_(
        "What each generalized value costs: ncp the share of the hierarchy's values it covers (a group of "
        "5 ages out of 100 costs 0.04), precision the share of the hierarchy's levels climbed, entropy "
        "the information lost in bits. The recoding keeps the total cost low."
    ),
    {
        "ncp": N_("share of values covered (NCP)"),
        "precision": N_("share of levels climbed (precision)"),
        "entropy": N_("information lost (entropy, bits)"),
    },
)


def cell_costs(enc: EncodedTable, metric: str) -> tuple[np.ndarray, ...]:
    """Per quasi-identifier, the cost of releasing each leaf at each level (leaves x levels): NCP
    (Xu et al. 2006), Sweeney's precision (level / height) or the non-uniform entropy in bits (Gionis &
    Tassa 2009). All grow with the level, as peeling needs."""
    if metric == "precision":
        return tuple(
            np.tile(np.arange(h.depth) / max(h.height, 1), (len(h.values), 1)) for h in enc.hierarchies
        )
    if metric == "entropy":
        tables = EntropyTables(enc)
        return tuple(np.stack(tables.cost[q], axis=1) for q in range(enc.n_qi))
    return tuple(hierarchy_ncp(h) for h in enc.hierarchies)


class LocalRecoding(Algorithm):
    """Local recoding (CG) by cost-ordered peeling on the hierarchies; keeps every record."""

    name = "local-recoding"
    title = N_("Local recoding (keep every patient: generalize single values)")
    description = N_(
        "Keeps every record. Each record's values are generalized only as far as that record needs, "
        "within your hierarchies: common records keep their exact values, rare ones are shown as broader "
        "groups (e.g. 40-44 instead of 42), and a value may be generalized in one record and exact in "
        "another. Every group of identical released records has at least k records (a '*' counts as a "
        "value of its own). Minimizes the average generalization (NCP). Note: because levels differ "
        "between records, the file is harder to analyse than a full-domain release, and a generalized "
        "value hints that the record was unusual."
    )
    full_domain = False
    #: every record kept, recoded cell by cell (the workbench describes the job accordingly)
    cell_level = True
    params = (CELL_COST,)

    def _run(self, job: Job) -> AnonymizationResult:
        table, config, enc, progress, start = job
        combos = record_combos(enc)  # with the person of every row under the person role
        checker = GroupChecker(enc, config.models, combos)
        require_feasible(enc, checker, _("Local recoding"))
        record_row, rep = frequency_rows(enc, combos)
        cost = cell_costs(enc, self.parameters["cost"])
        peeling = Peeler(peeling_input(enc, combos, cost, record_row, rep), checker, None, progress).run()
        progress(0.95, _("building the release"))
        record_class = peeling.record_classes(record_row)
        levels = peeling.class_levels[record_class].astype(np.int8)
        rec = CellRecoding(enc.qi, levels, np.zeros(levels.shape, dtype=bool), "CG")
        used = len(rec.transformations())
        notes: tuple[str, ...] = (
            _(
                "Local recoding visited {steps} transformations; {used} of them are used by the released "
                "classes.",
                steps=peeling.steps,
                used=used,
            ),
        )
        if peeling.joined_top:
            notes += (
                _(
                    "{n} records were generalized further than they needed so that the rarest "
                    "records could be released together.",
                    n=peeling.joined_top,
                ),
            )
        return build_cell_result(
            self.name,
            self.parameters,
            table,
            config,
            enc,
            rec,
            start,
            nodes_checked=peeling.steps,
            notes=notes,
            extra_metrics={"transformations_used": float(used)},
        )
