"""A proven lower bound of the fewest ``*`` any local-suppression release can have, by Lagrangian relaxation.

The problem (local suppression, the strict reading of ``*``; records aggregated into distinct tuples t of
quasi-identifier values, m_t records each): a *class* c is a pattern of suppressed attributes (s_c of
them) with the values of the kept ones; only classes whose tuples hold k records or more over the whole
table can ever be released, every other class stays empty. Then

    minimize   sum_{t,c} s_c x[t,c]
    subject to sum_c x[t,c] = m_t                             every record released exactly once
               x[t,c] in {0..m_t}, sum_t x[t,c] in {0} U [k, inf)   a class holds 0 or >= k records

Pricing "released exactly once" with any multipliers u (one per tuple) instead of imposing it gives, for
EVERY u, a lower bound of the optimum (weak duality; Geoffrion 1974, "Lagrangean relaxation for integer
programming", Math. Prog. Study 2; Fisher 1981, Management Science 27(1)):

    L(u) = sum_t u_t m_t + sum_c min(0, best_c(u)),
    best_c(u) = least sum_t (s_c - u_t) x[t,c] over 0 <= x[t,c] <= m_t, sum_t x[t,c] >= k.

best_c is solved exactly by a greedy rule: every record of the tuples with s_c - u_t < 0, and when they
are fewer than k, the k-th record made up with the class's highest-priced other records (the sub-problem
is a knapsack with unit weights, whose greedy solution is optimal). Every class of every pattern is in the
model (:class:`SuppressionModel`); on a table too large for that, the patterns with the most ``*`` are
left out and every price is capped at one more ``*`` than the most a kept pattern has: a left-out class
then has s_c >= u_t for all its tuples, so best_c >= 0 and leaving it out changes nothing.

Exact arithmetic, by construction: prices are integers in units of 2^-B ``*`` (*ticks*), every product
and sum is an integer far below 2^53 (B is chosen from the table's size so that it is), so the float64
sums are exact, and the bound reported is the smallest integer >= L(u), the optimum being an integer.

The prices are improved by subgradient steps (Polyak's step towards the release's ``*`` count, halved
after steps without progress; Held, Wolfe & Crowder 1974, Math. Prog. 6). The default run starts from
prices built from the release itself (half its ``*`` per record, half each record's fewest possible) and
takes a handful of steps; a run with a time limit takes hundreds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from kanon_engine.algorithms.peeling import exclusive_segment_cumsum
from kanon_engine.core.frequency import dense_ids, group_columns
from kanon_engine.i18n import _, formats

#: Largest number of (tuple, class) entries the model holds; past it the patterns with the most ``*`` are
#: left out (see the module docstring): about 0.2 GB, and a second on a million records.
MAX_ENTRIES = 8_000_000
#: Most quasi-identifiers a model is built for (patterns are bit masks of one 64-bit integer, and a
#: tuple-pattern key must fit too); a wider table's release gets no certificate.
MAX_QI = 40


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(starts[i], starts[i] + lengths[i])`` (no Python loop)."""
    lengths = lengths.astype(np.int64, copy=False)
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    shift = np.repeat(starts.astype(np.int64) - (ends - lengths), lengths)
    return np.arange(total, dtype=np.int64) + shift


def distinct_tuples(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``codes`` (n_qi, n_records) as columns, their record counts, and the tuple
    of every record."""
    row, n = group_columns(list(codes), [int(c.max(initial=0)) + 1 for c in codes])
    rep = np.empty(n, dtype=np.int64)
    rep[row] = np.arange(len(row))
    return codes[:, rep], np.bincount(row, minlength=n).astype(np.int64), row


def pattern_classes(
    tuples: np.ndarray, m: np.ndarray, k: int, max_stars: int
) -> Iterator[tuple[int, np.ndarray, np.ndarray, int]]:
    """Every pattern with at most ``max_stars`` ``*`` and its classes that hold k records: (pattern,
    tuples, their class numbered within the pattern, classes).

    A depth-first walk adding kept attributes one at a time: a class of a pattern is a class of the
    pattern with one attribute fewer kept, split by that attribute's value (one multiply-add and one
    regrouping), and a tuple whose class holds fewer than k records stays so in every pattern keeping
    more (its class only splits), so it is dropped from the walk below (the a-priori property of
    frequent itemsets, Agrawal & Srikant 1994).
    """
    d, n_t = tuples.shape
    sizes = [int(c.max(initial=0)) + 1 for c in tuples]
    full = (1 << d) - 1

    def walk(
        kept: int, last: int, rows: np.ndarray, ids: np.ndarray, n: int
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, int]]:
        size = np.bincount(ids, weights=m[rows], minlength=n)
        ok = size >= k
        if not ok.all():
            if not ok.any():
                return
            keep = ok[ids]
            rows, ids, n = rows[keep], (np.cumsum(ok) - 1)[ids[keep]], int(ok.sum())
        yield full ^ kept, rows, ids, n
        for q in range(last + 1, d):
            child, n_child = dense_ids(ids * sizes[q] + tuples[q, rows], n * sizes[q])
            yield from walk(kept | 1 << q, q, rows, child, n_child)

    # every pattern kept from its ``d - max_stars`` lowest kept attributes, then attributes above them
    for root in combinations(range(d), d - max_stars):
        cols = [tuples[q] for q in root]
        ids, n = group_columns(cols, [sizes[q] for q in root]) if root else (np.zeros(n_t, np.int64), 1)
        yield from walk(sum(1 << q for q in root), root[-1] if root else -1, np.arange(n_t), ids, n)


class SuppressionModel:
    """Distinct tuples and every class that can be released, as two indexes of the same entries.

    Tuple-major: the entries of tuple t are ``t_ptr[t]:t_ptr[t+1]``, by increasing ``*`` count
    (``e_stars``, classes ``e_cls``); ``below[t, j]`` counts the entries of t with fewer than j ``*``.
    Class-major: the tuples of class c are ``c_tup[c_ptr[c]:c_ptr[c+1]]``, its ``*`` count
    ``c_stars[c]`` and pattern ``c_pattern[c]`` (bit q set: attribute q suppressed).
    ``max_stars`` is the most ``*`` of a pattern in the model (every pattern: the number of attributes).
    """

    def __init__(self, tuples: np.ndarray, m: np.ndarray, k: int) -> None:
        self.tuples, self.m, self.k = tuples, m.astype(np.int64), int(k)
        d, n_t = tuples.shape
        self.n_qi = d
        self.max_stars = d
        while self.max_stars > 0 and n_t * sum(comb(d, s) for s in range(self.max_stars + 1)) > MAX_ENTRIES:
            self.max_stars -= 1
        self._index(list(pattern_classes(tuples, self.m, self.k, self.max_stars)), n_t)
        self.records = int(self.m.sum())
        #: per tuple, the fewest ``*`` of a class it can be released in (max_stars + 1: none kept)
        self.fewest = np.full(n_t, self.max_stars + 1, dtype=np.int64)
        some = self.t_ptr[1:] > self.t_ptr[:-1]
        self.fewest[some] = self.e_stars[self.t_ptr[:-1][some]]
        #: prices above this are never useful (left-out patterns) or never needed (all patterns)
        self.cap = self.max_stars + 1 if self.max_stars < d else 2 * d + 2
        #: ticks per ``*``: every sum of the evaluation stays an integer below 2^52
        span = (d + self.cap + 1) * max(self.records, 1) * 4
        self.bits = int(max(0, min(20, 52 - span.bit_length())))

    def _index(self, found: list[tuple[int, np.ndarray, np.ndarray, int]], n_t: int) -> None:
        """Both indexes from the patterns' entries (in any order of patterns)."""
        levels = [bin(p).count("1") for p, _t, _c, _n in found]
        below = np.zeros((self.max_stars + 2, n_t), dtype=np.int64)
        for (_p, t, _c, _n), s in zip(found, levels):
            below[s + 1, t] += 1  # a pattern holds each tuple once
        self.below = np.cumsum(below, axis=0).T.copy()
        self.t_ptr = np.concatenate([[0], self.below[:, -1]]).cumsum()
        self.e_cls = np.empty(int(self.t_ptr[-1]), dtype=np.int64)
        self.e_stars = np.empty(int(self.t_ptr[-1]), dtype=np.int8)
        # the next free place of each tuple's entries with s ``*``, one array per s
        fill = [self.t_ptr[:-1] + self.below[:, s] for s in range(self.max_stars + 1)]
        c_tup, c_sizes, offset = [], [], 0
        for (_p, t, cls, n), s in zip(found, levels):
            at = fill[s][t]
            self.e_cls[at] = cls + offset
            self.e_stars[at] = s
            fill[s][t] = at + 1
            # the class's tuples together (in any order): a radix sort of 16-bit keys when they fit
            order = np.argsort(cls.astype(np.int16), kind="stable") if n < 1 << 15 else np.argsort(cls)
            c_tup.append(t[order])
            c_sizes.append(np.bincount(cls, minlength=n))
            offset += n
        empty = np.zeros(0, np.int64)
        per_class = [n for _p, _t, _c, n in found]
        self.c_tup = np.concatenate(c_tup) if c_tup else empty
        self.c_ptr = np.concatenate([[0], np.concatenate(c_sizes) if c_sizes else empty]).cumsum()
        self.c_stars = np.repeat(np.array(levels, dtype=np.int64), per_class)
        self.c_pattern = np.repeat(np.array([p for p, _t, _c, _n in found], dtype=np.int64), per_class)
        self.n_classes = offset

    @property
    def entries(self) -> int:
        return len(self.e_cls)

    @property
    def complete(self) -> bool:
        """Every pattern is in the model (none left out for size)."""
        return self.max_stars == self.n_qi

    def ticks(self, prices: np.ndarray) -> np.ndarray:
        """Prices in ``*`` rounded to ticks, within [0, cap]."""
        scale = float(1 << self.bits)
        return np.clip(np.rint(np.asarray(prices, dtype=float) * scale), 0, self.cap * scale).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Relaxed:
    """The Lagrangian at one vector of prices: its value in ticks, the records of each tuple the
    opened classes use (for the subgradient), and the opened classes with their (tuple, records)."""

    value: int
    used: np.ndarray
    opened: np.ndarray
    entry_class: np.ndarray
    entry_tuple: np.ndarray
    entry_records: np.ndarray


def evaluate(model: SuppressionModel, u: np.ndarray) -> Relaxed:
    """L(u) for prices ``u`` in ticks (see the module docstring), exactly; only the entries that can
    be negative and the classes they touch are visited."""
    one = np.int64(1) << np.int64(model.bits)
    level = np.clip((u - 1) >> model.bits, -1, model.max_stars)  # entries with s < u: s <= level
    n_neg = model.below[np.arange(len(u)), level + 1]
    neg = ranges(model.t_ptr[:-1], n_neg)
    t = np.repeat(np.arange(len(u), dtype=np.int64), n_neg)
    classes, inv = np.unique(model.e_cls[neg], return_inverse=True)
    w = model.m[t]
    val = model.e_stars[neg] * one - u[t]
    have = np.bincount(inv, weights=w, minlength=len(classes)).astype(np.int64)
    best = np.bincount(inv, weights=val * w, minlength=len(classes))
    f_cls, f_tup, f_take, f_val = _fill(model, u, classes, have)
    pos = np.searchsorted(classes, f_cls)
    best += np.bincount(pos, weights=f_take * f_val, minlength=len(classes))
    best_ticks = np.rint(best).astype(np.int64)
    opened = best_ticks < 0
    value = int((u * model.m).sum()) + int(best_ticks[opened].sum())
    keep_neg, keep_fill = opened[inv], opened[pos]
    entry_class = np.concatenate([classes[inv[keep_neg]], f_cls[keep_fill]])
    entry_tuple = np.concatenate([t[keep_neg], f_tup[keep_fill]])
    entry_records = np.concatenate([w[keep_neg], f_take[keep_fill]])
    used = np.bincount(entry_tuple, weights=entry_records, minlength=len(u)).astype(np.int64)
    return Relaxed(value, used, classes[opened], entry_class, entry_tuple, entry_records)


def _fill(
    model: SuppressionModel, u: np.ndarray, classes: np.ndarray, have: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For the classes holding fewer than k records at a negative cost: the records that make up k,
    cheapest first (highest price), among the class's tuples whose cost is not negative (class, tuple,
    records, cost per record in ticks). The members costing less than one ``*`` are tried first: a
    class they complete needs no look at its other members."""
    short = have < model.k
    cls = classes[short]
    need = model.k - have[short]
    lengths = model.c_ptr[cls + 1] - model.c_ptr[cls]
    member = ranges(model.c_ptr[cls], lengths)
    owner = np.repeat(np.arange(len(cls)), lengths)
    tup = model.c_tup[member]
    one = np.int64(1) << np.int64(model.bits)
    val = model.c_stars[cls[owner]] * one - u[tup]
    rest = val >= 0
    owner, tup, val = owner[rest], tup[rest], val[rest]
    near = val < one
    take = np.zeros(len(tup), dtype=np.int64)
    take[near] = _cheapest(owner[near], val[near], model.m[tup[near]], need, model.cap * one)
    got = np.bincount(owner, weights=take, minlength=len(cls))
    far = got[owner] < need[owner]  # not completed by the near ones: every member of the class
    take[far] = _cheapest(owner[far], val[far], model.m[tup[far]], need, model.cap * one)
    used = take > 0
    return cls[owner[used]], tup[used], take[used], val[used]


def _cheapest(
    owner: np.ndarray, val: np.ndarray, weight: np.ndarray, need: np.ndarray, span: int
) -> np.ndarray:
    """Records taken from each element (``weight`` at most) so that each owner gets ``need[owner]``
    records at the least total ``val`` (``0 <= val < span``): the cheapest first."""
    order = np.argsort(owner * np.int64(span) + val)
    o, w = owner[order], weight[order]
    take = np.empty(len(o), dtype=np.int64)
    take[order] = np.clip(need[o] - exclusive_segment_cumsum(o, w), 0, w) if len(o) else 0
    return take


def bound_of(model: SuppressionModel, value: int) -> int:
    """The smallest integer at least L (given in ticks): the fewest ``*`` it proves."""
    return -((-value) >> model.bits)


class Ascent:
    """Ascent on the prices by the volume algorithm (Barahona & Anbil 2000, "The volume algorithm:
    producing primal solutions with a subgradient method", Math. Prog. 87(3)), a subgradient method
    that moves along an average of the recent relaxed solutions rather than the last one: on this
    problem, whose relaxed solutions jump between many classes of equal cost, plain subgradient steps
    (Held, Wolfe & Crowder 1974) stall far below it.

    Each :meth:`step` moves from the best prices met (the centre) by Polyak's step towards ``target``
    (a release's ``*`` count) along ``m - used``, where ``used`` is the average of the records each
    tuple has in the opened classes; evaluates L there and keeps it when it is better. The step's
    scale grows by a tenth after a better bound whose subgradient still points the same way and
    shrinks by a third after 20 steps without one.
    """

    def __init__(self, model: SuppressionModel, start: np.ndarray, target: float) -> None:
        self.model = model
        self.target = float(target)
        self.centre = model.ticks(start)
        first = evaluate(model, self.centre)
        self.best_value, self.steps, self.last = first.value, 1, first
        self.average = first.used.astype(float)
        self.scale, self.misses = 0.1, 0

    @property
    def bound(self) -> int:
        """The fewest ``*`` proved so far."""
        return max(bound_of(self.model, self.best_value), 0)

    @property
    def solved(self) -> bool:
        """The averaged relaxed solution releases every record once: no step can move the prices."""
        g = self.model.m - self.average
        return bool(float(g @ g) < 1e-9)

    def step(self) -> Relaxed:
        """One move of the prices and one evaluation; the evaluation."""
        model = self.model
        if self.solved:
            self.steps += 1
            return self.last
        g = model.m - self.average
        norm = float(g @ g)
        one = float(1 << model.bits)
        gap = max(self.target - self.best_value / one, 1.0)
        u = model.ticks(self.centre / one + self.scale * gap / norm * g)
        r = evaluate(model, u)
        self.last, self.steps = r, self.steps + 1
        self.average = 0.1 * r.used + 0.9 * self.average
        if r.value > self.best_value:
            if float((model.m - r.used) @ g) > 0:
                self.scale = min(self.scale * 1.1, 2.0)
            self.best_value, self.centre, self.misses = r.value, u, 0
        else:
            self.misses += 1
            if self.misses >= 20:
                self.scale, self.misses = self.scale * 0.66, 0
        return r


def release_prices(model: SuppressionModel, stars: np.ndarray) -> np.ndarray:
    """Prices built from a release: each tuple's ``*`` per record in the release (``stars``, an
    average), but at most one ``*`` above the fewest its records can have. On Adult this start alone
    proves 14,254 (k=3) and 19,393 (k=5), where the records' own fewest prove 13,832 and 18,416."""
    return np.minimum(stars, model.fewest + 1.0)


def trimmed(
    model: SuppressionModel, start: np.ndarray, target: float, steps: int = 3
) -> tuple[int, np.ndarray, int]:
    """A few cheap steps from ``start``: only the prices of tuples whose records the opened classes use
    more than once go down (Polyak's step towards ``target``; raising the others opens many classes of
    equal cost at once and loses more than it gains). The best L in ticks, its prices, the steps run."""
    u = model.ticks(start)
    best = evaluate(model, u)
    best_u, scale, run = u, 0.5, 1
    one = float(1 << model.bits)
    for _step in range(steps - 1):
        g = np.minimum(model.m - best.used, 0).astype(float)
        norm = float(g @ g)
        if norm == 0:
            break
        u = model.ticks(best_u / one + scale * max(target - best.value / one, 1.0) / norm * g)
        r = evaluate(model, u)
        run += 1
        if r.value > best.value:
            best, best_u = r, u
        else:
            scale /= 2
    return best.value, best_u, run


@dataclass(frozen=True)
class Certificate:
    """How close a release is to the fewest ``*`` possible: ``lower_bound`` is proved (no release of
    the table at this k has fewer ``*``), ``stars`` is the release's. ``method`` names the proof."""

    lower_bound: int
    stars: int
    k: int
    price_steps: int
    seconds: float
    method: str = "lagrangian-relaxation"

    @property
    def gap(self) -> float | None:
        """How many more ``*`` than the bound, as a share of the bound (0: proved the fewest; None:
        nothing useful proved)."""
        if self.stars <= self.lower_bound:
            return 0.0
        return None if self.lower_bound <= 0 else (self.stars - self.lower_bound) / self.lower_bound

    def to_dict(self) -> dict[str, object]:
        """The JSON report's ``certificate`` (keys are a contract)."""
        gap = self.gap
        return {
            "lower_bound": self.lower_bound,
            "gap": None if gap is None else round(gap, 6),
            "method": self.method,
            "suppressed_cells": self.stars,
            "k": self.k,
            "price_steps": self.price_steps,
            "seconds": round(self.seconds, 3),
        }


def certificate_sentence(certificate: dict[str, object] | None) -> str:
    """The certificate in one plain sentence for the workbench and the report ("" when there is none
    or it proves nothing useful). The share is rounded up: "at most" stays true."""
    if not certificate or certificate.get("gap") is None:
        return ""
    gap = float(certificate["gap"])  # type: ignore[arg-type]
    bound = int(certificate["lower_bound"])  # type: ignore[call-overload]
    k = int(certificate.get("k", 0))  # type: ignore[call-overload]
    if gap <= 0:
        return _(
            "This is the fewest '*' possible: no release of this table with groups of at least {k} "
            "records has fewer than {bound}.",
            k=k,
            bound=formats.count(bound),
        )
    return _(
        "At most {gap} more '*' than the fewest possible: no release of this table with groups of at "
        "least {k} records can have fewer than {bound} '*'.",
        gap=formats.percent(np.ceil(gap * 1000) / 1000, 1),
        k=k,
        bound=formats.count(bound),
    )
