"""Local suppression with more time: tighter prices, a release with fewer ``*``, anytime.

Given a time limit, the time goes to two things in turn, and the best of each is kept:

- the prices of the lower bound (:class:`~kanon_engine.algorithms.local_bound.Ascent`): every step can
  only raise the bound proved, so the certificate tightens;
- a release guided by the prices: an integer program over the classes the prices say are worth using
  (the entries whose reduced cost ``*``-count minus price is smallest), plus every class of the best
  release so far, solved exactly by HiGHS (Huangfu & Hall 2018, Math. Prog. Comp. 10; through scipy's
  ``milp``). A Lagrangian heuristic in the sense of Beasley (1993, "Lagrangian relaxation", in Modern
  Heuristic Techniques for Combinatorial Problems): the relaxed problem picks the candidates, an exact
  solver the release. Since the best release is among the candidates, the program's answer is never
  worse; each round widens the candidates while the solver keeps finishing within the time left.

The model of the program (tuples t with m_t records, candidate entries e = (t, class c) with s_c ``*``):

    minimize   sum_e s_c x_e
    subject to sum_{e of t} x_e = m_t              every record released once
               sum_{e of c} x_e >= k y_c           an open class holds k records or more
               x_e <= m_t y_c                      a closed class holds none
               x_e integer in [0, m_t], y_c in {0, 1}

Every release it returns is checked record by record (each tuple's records released once, every class
empty or at least k) before it replaces the best one. HiGHS runs in a thread of its own (it releases
Python's lock), so progress is reported and Cancel is honoured while it works; a cancelled solve
finishes in the background within its time limit and its answer is dropped.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kanon_engine.algorithms.local_bound import (
    MAX_QI,
    Ascent,
    Certificate,
    SuppressionModel,
    bound_of,
    distinct_tuples,
    ranges,
    release_prices,
    trimmed,
)
from kanon_engine.algorithms.peeling import GroupChecker
from kanon_engine.core.encoding import EncodedTable
from kanon_engine.hierarchy.model import ROOT
from kanon_engine.i18n import N_, _, formats
from kanon_engine.progress import ProgressCallback

#: The first round's reduced-cost limit (in ``*``) for the candidate entries; then it grows by
#: ``WIDEN`` after a solve that finished, and shrinks by it after one that ran out of time.
FIRST_LIMIT = 0.5
WIDEN = 0.25
#: Seconds between two progress calls while the solver works (Cancel takes effect within this).
POLL = 0.2

#: The progress message while more time is spent (the best release and its certificate so far).
PROGRESS = N_("Best so far: {stars} '*', at most {gap} more than the fewest possible")
#: The note of a run whose time found a better release.
IMPROVED = N_("The time limit was spent on a release with fewer '*': {after} instead of {before}.")


@dataclass(frozen=True, eq=False)
class Assignment:
    """A release in the model's terms: ``count[i]`` records of tuple ``tup[i]`` released in class
    ``cls[i]``."""

    tup: np.ndarray
    cls: np.ndarray
    count: np.ndarray

    def stars(self, model: SuppressionModel) -> int:
        return int((model.c_stars[self.cls] * self.count).sum())

    def is_release(self, model: SuppressionModel) -> bool:
        """Every record released once, every class empty or holding k records or more."""
        per_tuple = np.bincount(self.tup, weights=self.count, minlength=len(model.m))
        sizes = np.bincount(self.cls, weights=self.count, minlength=model.n_classes)
        in_class = np.zeros(len(self.tup), dtype=bool)
        if len(self.tup):  # the class is one of the tuple's (same values on the kept attributes)
            first = model.c_ptr[self.cls]
            members = ranges(first, model.c_ptr[self.cls + 1] - first)
            owner = np.repeat(np.arange(len(self.tup)), model.c_ptr[self.cls + 1] - first)
            hit = model.c_tup[members] == self.tup[owner]
            in_class[owner[hit]] = True
        return bool(
            (self.count > 0).all()
            and np.array_equal(per_tuple, model.m)
            and ((sizes == 0) | (sizes >= model.k)).all()
            and in_class.all()
        )

    def patterns(self, model: SuppressionModel, record_tuple: np.ndarray) -> np.ndarray:
        """The pattern of ``*`` of every record (given its tuple): a tuple's records are shared out
        among its entries in record order."""
        order = np.argsort(record_tuple, kind="stable")
        e_order = np.lexsort((self.cls, self.tup))
        ends = np.cumsum(self.count[e_order])
        out = np.empty(len(record_tuple), dtype=np.int64)
        out[order] = model.c_pattern[
            self.cls[e_order[np.searchsorted(ends, np.arange(len(order)), side="right")]]
        ]
        return out


def assignment_of(
    model: SuppressionModel, record_tuple: np.ndarray, pattern: np.ndarray
) -> Assignment | None:
    """A release given per record (its tuple and pattern of ``*``) in the model's terms; None when one
    of its classes is not in the model (a pattern left out for size)."""
    d = model.n_qi
    key, count = np.unique(record_tuple * (1 << d) + pattern, return_counts=True)
    tup, pat = key >> d, key & ((1 << d) - 1)
    stars = np.bitwise_count(pat).astype(np.int64)
    if (stars > model.max_stars).any():
        return None
    # the tuple's entries with as many ``*``: one of them is the class
    lo = model.t_ptr[tup] + model.below[tup, stars]
    hi = model.t_ptr[tup] + model.below[tup, stars + 1]
    entries = ranges(lo, hi - lo)
    owner = np.repeat(np.arange(len(tup)), hi - lo)
    match = model.c_pattern[model.e_cls[entries]] == pat[owner]
    cls = np.full(len(tup), -1, dtype=np.int64)
    cls[owner[match]] = model.e_cls[entries[match]]
    if (cls < 0).any():
        return None
    return Assignment(tup, cls, count.astype(np.int64))


def candidates(model: SuppressionModel, prices: np.ndarray, best: Assignment, limit: float) -> np.ndarray:
    """The entries (tuple-major positions) of the program: reduced cost at most ``limit`` ``*`` at
    ``prices`` (ticks), every class of ``best``, and only classes whose candidates can reach k."""
    one = float(1 << model.bits)
    tup = np.repeat(np.arange(len(model.m)), np.diff(model.t_ptr))
    keep = model.e_stars - prices[tup] / one <= limit
    keep[_positions(model, best)] = True
    while True:
        ent = np.flatnonzero(keep)
        size = np.bincount(model.e_cls[ent], weights=model.m[tup[ent]], minlength=model.n_classes)
        short = size[model.e_cls[ent]] < model.k
        if not short.any():
            return ent
        keep[ent[short]] = False


def _positions(model: SuppressionModel, a: Assignment) -> np.ndarray:
    """Tuple-major positions of an assignment's entries."""
    lengths = model.t_ptr[a.tup + 1] - model.t_ptr[a.tup]
    entries = ranges(model.t_ptr[a.tup], lengths)
    owner = np.repeat(np.arange(len(a.tup)), lengths)
    hit = model.e_cls[entries] == a.cls[owner]
    return entries[hit]


def solve_program(
    model: SuppressionModel, entries: np.ndarray, seconds: float, poll: Callable[[], None]
) -> tuple[Assignment | None, bool]:
    """The least-``*`` release using only ``entries`` (see the module docstring), within ``seconds``;
    (the release or None when the solver found none, whether it proved it optimal). A solver still
    busy at the end of ``seconds`` (its own limit is four fifths of them) is left to finish in the
    background, its answer dropped."""
    from scipy.optimize import Bounds, LinearConstraint, milp  # type: ignore[import-untyped]
    from scipy.sparse import csr_matrix  # type: ignore[import-untyped]

    tup = np.searchsorted(model.t_ptr, entries, side="right") - 1
    classes, cls = np.unique(model.e_cls[entries], return_inverse=True)
    ne, nc = len(entries), len(classes)
    cols = np.arange(ne)
    m = model.m.astype(float)
    cost = np.concatenate([model.e_stars[entries].astype(float), np.zeros(nc)])
    once = csr_matrix((np.ones(ne), (tup, cols)), shape=(len(model.m), ne + nc))
    rows = np.concatenate([cls, np.arange(nc)])
    open_k = csr_matrix(
        (
            np.concatenate([np.ones(ne), np.full(nc, -float(model.k))]),
            (rows, np.concatenate([cols, ne + np.arange(nc)])),
        ),
        shape=(nc, ne + nc),
    )
    link = csr_matrix(
        (
            np.concatenate([np.ones(ne), -m[tup]]),
            (np.concatenate([cols, cols]), np.concatenate([cols, ne + cls])),
        ),
        shape=(ne, ne + nc),
    )
    constraints = [
        LinearConstraint(once, m, m),
        LinearConstraint(open_k, 0.0, np.inf),
        LinearConstraint(link, -np.inf, 0.0),
    ]
    bounds = Bounds(np.zeros(ne + nc), np.concatenate([m[tup], np.ones(nc)]))
    options = {"time_limit": max(0.8 * seconds, 0.1), "mip_rel_gap": 0.0, "presolve": True}
    out: dict[str, Any] = {}

    def work() -> None:
        out["result"] = milp(
            cost, constraints=constraints, integrality=np.ones(ne + nc), bounds=bounds, options=options
        )

    # not a daemon: the interpreter waits for it at exit (HiGHS's threads must not be torn down mid-solve)
    worker = threading.Thread(target=work, name="kanon-highs")
    worker.start()
    give_up = time.perf_counter() + seconds
    while worker.is_alive() and time.perf_counter() < give_up:
        worker.join(POLL)
        poll()
    res = out.get("result")  # None when given up
    if res is None or res.x is None:
        return None, False
    x = np.rint(res.x[:ne]).astype(np.int64)
    used = x > 0
    found = Assignment(tup[used], classes[cls[used]], x[used])
    return (found if found.is_release(model) else None), bool(res.status == 0)


class Improver:
    """The anytime loop (see the module docstring): price steps, then a program, in turn, until the
    deadline; ``report(best_stars, bound)`` is called after every step and while the solver works
    (it may raise :class:`~kanon_engine.errors.Cancelled`)."""

    def __init__(
        self,
        model: SuppressionModel,
        ascent: Ascent,
        best: Assignment | None,
        stars: int,
        deadline: float,
        report: Callable[[int, int], None],
        proved: int = 0,
    ) -> None:
        self.model, self.ascent, self.best, self.best_stars = model, ascent, best, stars
        self.proved = proved  # a bound proved before (the quick certificate's)
        self.deadline, self.report = deadline, report
        self.limit, self.solves, self.improved = FIRST_LIMIT, 0, 0
        self.last_solve = 0.0  # seconds of the last program solved to the end
        #: per program: reduced-cost limit, entries, seconds, solved to the end, its release's ``*``
        self.history: list[tuple[float, int, float, bool, int | None]] = []

    @property
    def bound(self) -> int:
        """The fewest ``*`` proved so far."""
        return max(self.proved, self.ascent.bound)

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def run(self) -> Assignment | None:
        """The best release found by the deadline (the start one when none is better; None when
        there is none to improve: then only the prices get the time)."""
        while self.left() > 0:
            self._price_steps(self._share())
            if self.bound >= self.best_stars:
                break  # the release is proved the fewest possible
            if self.best is not None and self.left() > self.last_solve / 2:
                self._program()
            elif self.ascent.solved:
                break
        return self.best

    def _share(self) -> float:
        """Seconds for the next run of price steps: a quarter of what is left at first, less later."""
        return self.left() / (4.0 if self.solves == 0 else 6.0)

    def _price_steps(self, seconds: float) -> None:
        end = min(time.perf_counter() + seconds, self.deadline)
        stall, best = 0, self.ascent.bound
        while time.perf_counter() < end and stall < 60 and not self.ascent.solved:
            self.ascent.step()
            self.report(self.best_stars, self.bound)
            stall = 0 if self.ascent.bound > best else stall + 1
            best = max(best, self.ascent.bound)

    def _program(self) -> None:
        assert self.best is not None
        entries = candidates(self.model, self.ascent.centre, self.best, self.limit)
        began = time.perf_counter()
        found, optimal = solve_program(
            self.model, entries, self.left(), lambda: self.report(self.best_stars, self.bound)
        )
        seconds = time.perf_counter() - began
        self.history.append(
            (self.limit, len(entries), seconds, optimal, None if found is None else found.stars(self.model))
        )
        if optimal:
            self.last_solve = seconds
        self.solves += 1
        if found is not None and found.stars(self.model) < self.best_stars:
            self.best, self.best_stars = found, found.stars(self.model)
            self.improved += 1
        self.limit = self.limit + WIDEN if optimal else max(self.limit - WIDEN / 2, WIDEN)
        self.report(self.best_stars, self.bound)


@dataclass(frozen=True, eq=False)
class Certified:
    """A local-suppression release with its certificate: the ``*`` of every record and quasi-
    identifier, the certificate, and notes on what more time did."""

    suppressed: np.ndarray
    certificate: Certificate | None  # None: more than MAX_QI quasi-identifiers
    notes: tuple[str, ...]


def certify(
    enc: EncodedTable,
    checker: GroupChecker,
    suppressed: np.ndarray,
    deadline: float | None,
    progress: ProgressCallback,
) -> Certified:
    """The certificate of the release ``suppressed`` (records x quasi-identifiers), and with a
    ``deadline`` (a ``time.perf_counter`` time) a better release and a tighter certificate found by then
    (only under k-anonymity alone: the program knows nothing of sensitive values, so with l-diversity or
    t-closeness the time goes to the certificate only)."""
    if enc.n_qi > MAX_QI:
        return Certified(suppressed, None, ())
    began = time.perf_counter()
    progress(0.0, _("proving how close the release is to the fewest '*' possible"))
    tuples, m, record_tuple = distinct_tuples(enc.codes)
    model = SuppressionModel(tuples, m, checker.k)
    per_record = suppressed.sum(axis=1)
    stars = int(per_record.sum())
    average = np.bincount(record_tuple, weights=per_record, minlength=len(m)) / np.maximum(m, 1)
    value, _prices, steps = trimmed(model, release_prices(model, average), stars)
    proved = bound_of(model, value)
    notes: tuple[str, ...] = ()
    if deadline is not None and time.perf_counter() < deadline:
        pattern = suppressed.astype(np.int64) @ (np.int64(1) << np.arange(enc.n_qi, dtype=np.int64))
        start = assignment_of(model, record_tuple, pattern)
        ascent = Ascent(model, 0.6 * average + 0.4 * model.fewest, stars)
        total = max(deadline - began, 1e-9)

        def report(best: int, bound: int) -> None:
            gap = (best - bound) / bound if bound > 0 else 0.0
            progress(
                min((time.perf_counter() - began) / total, 1.0),
                _(PROGRESS, stars=best, gap=formats.percent(np.ceil(max(gap, 0.0) * 1000) / 1000, 1)),
            )

        improver = Improver(model, ascent, start if checker.simple else None, stars, deadline, report, proved)
        best = improver.run()
        steps, proved = steps + ascent.steps, improver.bound
        if best is not None and improver.best_stars < stars:
            bits = (best.patterns(model, record_tuple)[:, None] >> np.arange(enc.n_qi)) & 1
            suppressed, notes = bits.astype(bool), (_(IMPROVED, before=stars, after=improver.best_stars),)
            stars = improver.best_stars
    proved = max(proved - literal_stars(enc), 0)
    certificate = Certificate(proved, stars, checker.k, steps, time.perf_counter() - began)
    return Certified(suppressed, certificate, notes)


def literal_stars(enc: EncodedTable) -> int:
    """Cells whose original value is the string ``*``: a release may keep one in a class with records
    whose value there was suppressed, which the model counts as one ``*`` more; the bound is lowered by
    as many, so it stays a bound of every release."""
    out = 0
    for q, h in enumerate(enc.hierarchies):
        if ROOT in h.values:
            out += int((enc.codes[q] == h.values.index(ROOT)).sum())
    return out
