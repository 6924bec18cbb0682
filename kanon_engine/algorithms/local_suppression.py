"""Local suppression: the survey's CS model (cell suppression, no generalization), every record kept.

Single values are replaced by ``*`` and nothing is generalized, as sdcMicro's ``localSuppression`` does
for statistical offices (Templ, Kowarik & Meindl 2015, "Statistical Disclosure Control for
Micro-Data Using the R Package sdcMicro", J. Stat. Softw. 67(4)). The goal is the fewest ``*`` cells
such that every class has at least k records *counting ``*`` as a value of its own* (the strict
reading: a record with age ``*`` is only in a class with other records whose age is ``*`` and whose
other values are the same). sdcMicro reads ``*`` as a wildcard matching any value; a strict release is
k-anonymous in that reading too (the report gives both counts).

The search is cost-ordered peeling (:mod:`kanon_engine.algorithms.peeling`) on the lattice of
suppression patterns (each quasi-identifier kept or ``*``: a two-level hierarchy per attribute), with
the cost of a pattern its number of ``*`` and, among patterns with as many, the less important
attributes suppressed first. A record whose group falls just short of k may be completed with spare
records of large classes when that costs fewer ``*`` than leaving the group's records to a pattern with
more ``*`` (donors). Whether donors pay off is a rule of thumb (a record left open pays at least one
more ``*``); it is run twice, eager and cautious (:data:`DONOR_GAINS`), and the release with fewer ``*``
is kept.

Every release comes with a certificate (:mod:`.local_bound`): a proved lower bound of the fewest ``*``
any release of the table at this k can have, by Lagrangian relaxation of the whole problem, with prices
built from the release itself (on Adult, about a third of a second: the default release is at most
4.9 % above the fewest possible at k=3 and 3.8 % at k=5). With ``time_limit`` the time left goes to
better prices (a tighter certificate) and to an integer program guided by them (a release with fewer
``*``, :mod:`.local_improve`); the best release found by then is kept (on Adult within 60 seconds on a
machine shared by eight sessions: 14,988 ``*`` at k=3 and 20,132 at k=5, proved within 2.0 % and 2.3 % of
the fewest possible).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from kanon_engine.algorithms.base import Algorithm, Job
from kanon_engine.algorithms.local_improve import certify
from kanon_engine.algorithms.peeling import (
    GroupChecker,
    Peeler,
    Peeling,
    PeelingInput,
    frequency_rows,
    peeling_input,
    require_feasible,
)
from kanon_engine.config import AnonymizationConfig, ParamSpec
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.persons import record_combos
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy.model import MISSING, Hierarchy
from kanon_engine.i18n import N_, _
from kanon_engine.progress import ProgressCallback
from kanon_engine.release.cell_recoding import build_cell_result
from kanon_engine.result import AnonymizationResult, CellRecoding

IMPORTANCE = ParamSpec(
    "importance",
    N_("Keep longest"),
    "columns",
    None,
    N_(
        "Quasi-identifiers in order of importance, most important first (suppressed last), separated by "
        "commas; the others follow, those with fewer different values first. Used when single values are "
        "suppressed (local suppression, or a full-domain algorithm suppressing values, not records)."
    ),
)

#: What a record of a group short of k must save for donors to complete the group (see the module
#: docstring): eager (donors when they cost fewer '*' than the group's records would pay by climbing one
#: level each) and cautious (half of that); neither is better on every table, the release keeps the one
#: with fewer '*'.
DONOR_GAINS = (1.0, 0.5)
#: Above this many distinct rows only the first gain is run (a million-row table stays within seconds).
SECOND_RUN_ROWS = 50_000
#: Seconds kept at the end of a run with a time limit to build the release (a loaded machine needs one).
FINISH_SECONDS = 1.0

TIME_LIMIT = ParamSpec(
    "time_limit",
    N_("Time limit (seconds)"),
    "float",
    None,
    N_(
        "More time for local suppression, in seconds: it is spent on finding a release with fewer '*' "
        "and on proving more tightly how close it is to the fewest possible; the best release found by "
        "then is kept. Empty: the usual run (about a second on 30,000 records)."
    ),
    minimum=0.1,
    maximum=86_400.0,
    presets=(10.0, 30.0, 60.0, 300.0),
)

#: The weight that makes importance break ties between patterns with as many ``*`` (never more).
_TIE = 1e-3


def flat_hierarchy(series: pd.Series, name: str) -> Hierarchy:
    """Two levels, each distinct value of the column and ``*`` (missing values as the empty leaf)."""
    values = series.astype(object)
    missing = values.isna()
    leaves = list(pd.unique(values[~missing].astype(str)))
    if missing.any() and MISSING not in leaves:
        leaves.append(MISSING)
    return Hierarchy.flat(name, leaves or [MISSING])


def importance_names(listed: str | None, qi: tuple[str, ...]) -> list[str]:
    """The attributes named in ``importance``, checked: quasi-identifiers, each once."""
    names = [v.strip() for v in (listed or "").split(",") if v.strip()]
    unknown = [v for v in names if v not in qi]
    if unknown:
        raise ConfigError(
            _(
                "{label} names '{unknown}', which is not a quasi-identifier; the quasi-identifiers are "
                "{value}.",
                label=IMPORTANCE.shown_label,
                unknown=unknown[0],
                value=", ".join(qi) or _("not chosen yet"),
            ),
            where="importance",
        )
    if len(set(names)) < len(names):
        dup = next(v for v in names if names.count(v) > 1)
        raise ConfigError(
            _("{label} names '{dup}' twice.", label=IMPORTANCE.shown_label, dup=dup), where="importance"
        )
    return names


def importance_order(enc: EncodedTable, listed: str | None) -> list[int]:
    """Quasi-identifier indices from most to least important (see the module docstring)."""
    first = [enc.qi.index(v) for v in importance_names(listed, enc.qi)]
    distinct = [int((np.bincount(enc.codes[q]) > 0).sum()) for q in range(enc.n_qi)]
    rest = sorted((q for q in range(enc.n_qi) if q not in first), key=lambda q: (distinct[q], q))
    return first + rest


class LocalSuppression(Algorithm):
    """Local suppression (CS): the fewest ``*`` cells for k-anonymity in the strict reading."""

    name = "local-suppression"
    title = N_("Local suppression (keep every patient: suppress single values)")
    description = N_(
        "Keeps every record and generalizes nothing: only single values that make a record stand out are "
        "replaced by '*', as few as possible, until every group of identical released records has at "
        "least k records (a '*' counts as a value of its own, so a record with age '*' only hides among "
        "records that also show age '*'). You can say which attributes to keep longest. Note: a '*' hints "
        "that the record was unusual."
    )
    full_domain = False
    #: every record kept, recoded cell by cell (the workbench describes the job accordingly)
    cell_level = True
    params = (IMPORTANCE, TIME_LIMIT)
    #: the quasi-identifiers' hierarchies are not used (validation only warns about them)
    uses_hierarchies = False

    def refuse_unfit(self, config: AnonymizationConfig) -> None:
        """The attributes to keep longest are checked first: each must be a quasi-identifier."""
        importance_names(self.parameters["importance"], getattr(config, "quasi_identifiers", ()))
        super().refuse_unfit(config)

    def record_hierarchies(self, records: Table, config: AnonymizationConfig) -> dict[str, Hierarchy]:
        """The quasi-identifiers need no hierarchy: each is encoded with two levels, its values and ``*``
        (the run is every cell-level model's, :meth:`Algorithm._run_on_records`)."""
        return {q: flat_hierarchy(records.frame[q], q) for q in config.quasi_identifiers}

    def _run(self, job: Job) -> AnonymizationResult:
        table, config, enc, progress, start = job
        order = importance_order(enc, self.parameters["importance"])
        combos = record_combos(enc)  # with the person of every row under the person role
        checker = GroupChecker(enc, config.models, combos)
        require_feasible(enc, checker, _("Local suppression"))
        record_row, rep = frequency_rows(enc, combos)
        cost = suppression_costs(enc, order)
        inp = peeling_input(enc, combos, cost, record_row, rep)
        limit = self.parameters["time_limit"]
        peeling = best_peeling(inp, checker, _share(progress, 0.0, 0.1 if limit else 0.9))
        suppressed = peeling.class_levels[peeling.record_classes(record_row)] > 0
        deadline = None if limit is None else start + float(limit) - FINISH_SECONDS
        certified = certify(enc, checker, suppressed, deadline, _share(progress, 0.1 if limit else 0.9, 0.95))
        progress(0.95, _("building the release"))
        rec = CellRecoding(enc.qi, np.zeros(suppressed.shape, dtype=np.int8), certified.suppressed, "CS")
        notes: tuple[str, ...] = (
            _(
                "Suppression order (kept longest first): {columns}.",
                columns=", ".join(enc.qi[q] for q in order),
            ),
        )
        if peeling.donated and certified.suppressed is suppressed:
            notes += (
                _(
                    "{n} records of large groups were given a '*' to complete a group that was "
                    "short of k (fewer '*' in all).",
                    n=peeling.donated,
                ),
            )
        notes += certified.notes
        result = build_cell_result(
            self.name, self.parameters, table, config, enc, rec, start, peeling.steps, notes
        )
        certificate = certified.certificate
        return dataclasses.replace(result, certificate=None if certificate is None else certificate.to_dict())


def _share(progress: ProgressCallback, low: float, high: float) -> ProgressCallback:
    """``progress`` for one part of the run: its fractions 0..1 map to ``low``..``high``."""
    return lambda fraction, message: progress(low + (high - low) * fraction, message)


def star_count(peeling: Peeling) -> int:
    """The ``*`` cells of a peeling: per class, its records times its suppressed attributes."""
    per_class = peeling.class_levels.sum(axis=1)
    return int((per_class[peeling.entry_class] * peeling.entry_count).sum())


def best_peeling(inp: PeelingInput, checker: GroupChecker, progress: ProgressCallback) -> Peeling:
    """Cost-ordered peeling with each of :data:`DONOR_GAINS` (the first only on very large frequency
    sets), the one with the fewest ``*`` (the first on a tie): deterministic, at most twice the time."""
    gains = DONOR_GAINS if len(inp.counts) <= SECOND_RUN_ROWS else DONOR_GAINS[:1]
    best: Peeling | None = None
    for i, gain in enumerate(gains):

        def part(share: float, message: str, i: int = i) -> None:
            progress(0.95 * (i + share) / len(gains), message)

        peeling = Peeler(inp, checker, donor_gain=gain, progress=part).run()
        if best is None or star_count(peeling) < star_count(best):
            best = peeling
    assert best is not None
    return best


def star_costs(order: list[int]) -> np.ndarray:
    """Per attribute, what one ``*`` costs: 1 plus a tie-break weight growing with the importance
    (``order``: most important first), the weights of all attributes summing to less than one ``*``,
    so importance only decides between choices with as many ``*``."""
    d = len(order)
    cost = np.ones(d)
    for i, q in enumerate(order):
        cost[q] += _TIE * (2.0 ** (d - 1 - i)) / (2.0**d)  # most important: the largest weight
    return cost


def suppression_costs(enc: EncodedTable, order: list[int]) -> tuple[np.ndarray, ...]:
    """Per attribute, (leaves, 2) costs: 0 to keep, :func:`star_costs` to suppress."""
    star = star_costs(order)
    out = []
    for q, h in enumerate(enc.hierarchies):
        c = np.zeros((len(h.values), 2))
        c[:, 1] = star[q]
        out.append(c)
    return tuple(out)
