"""An attacker who knows several stays of a person: k-anonymity of persons' sets of released rows.

Under the person role every class holds rows of at least k persons (:mod:`kanon_engine.core.persons`):
an attacker who knows one stay of their target finds at least k candidates. An attacker who knows M
stays of the target (two admissions, say) looks for the persons whose released rows contain all M
combinations, and may find fewer. ``--person-knows M`` asks: **for every set of up to M distinct
released rows of one person** (distinct released combinations of quasi-identifier values, *items*),
**at least k persons have released rows containing that set**; with ``all``, a person's whole set of
released rows. This is k^m-anonymity of set-valued data (Terrovitis, Mamoulis & Kalnis 2008, "Privacy-
preserving anonymization of set-valued data", VLDB) with the persons as transactions and the released
combinations as items; M = 1 is the person role's k-anonymity.

**The suppression rule.** Classes with fewer than k persons are suppressed whole first (M = 1). Then,
as long as a set of up to M items of some person is held by fewer than k persons, that person's rows in
the rarest item of the set (the released combination fewest persons hold; ties: the combination that
comes first in hierarchy order) are suppressed, for every such set at once; a class left with fewer than
k persons is then suppressed whole, and the sets are counted again. Each round suppresses rows, so it
ends. Suppressed rows count against the suppression limit as rows. The suppressed rows themselves
(``*`` everywhere) are one group that holds 0 or at least k persons (Datafly's step 4, counted in
persons); they are not an item of the sets.

**Monotone under generalization without suppression.** Let node B generalize node A and let every set
of up to M items of every person hold at A (nothing suppressed). Take a person p and a set S' of up to M
distinct items of p at B. Each item of S' is the generalization of at least one item of p at A; choose
one for each: a set S of |S'| distinct items of p at A, which at least k persons hold. Each of them holds,
at B, the generalizations of S, which are S'. So S' is held by at least k persons: B satisfies the model.
The searches therefore infer that every generalization of a node that satisfies it with nothing
suppressed satisfies it too. **Not monotone with suppression**: the rule above is greedy, and a coarser
node can need more suppressed rows than a finer one, so the searches do not prune by satisfaction then;
they prune only by the rows suppressed at M = 1 (classes with fewer than k persons split into classes
with fewer than k persons, so every specialization suppresses at least those rows). The optimal search
stays exact (tests/engine/test_persons.py compares it with a brute force over the lattice).

**Not covered**: an attacker who knows the order or the dates of a person's stays beyond what the
quasi-identifiers release, more than M stays, or which of a person's stays were suppressed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import FrequencySet, Histograms, group_columns
from kanon_engine.core.persons import PERSON_KEY, PersonPairs, PersonValues, suppressed_persons
from kanon_engine.core.suppressed_group import GroupRule, enforce
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.privacy.base import ClassStats, PrivacyModel
from kanon_engine.privacy.k_anonymity import KAnonymity, k_of

#: ``knows`` for a person's whole set of released rows (as :data:`kanon_engine.data.persons.ALL`).
ALL = 0
#: Most (person, set) entries one round may count (8 bytes each, a few arrays): past it the run stops
#: with a sentence instead of exhausting memory.
MAX_SETS = 40_000_000


def enforce_sets(
    pairs: PersonPairs,
    passes: np.ndarray,
    k: int,
    knows: int,
    order: Callable[[], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Apply the suppression rule (module docstring) at one node: the classes released after it, and
    per pair of ``pairs`` whether its rows are cut out of a class that stays released. ``passes``: the
    classes passing every per-class model; ``order``: the rank of every class (hierarchy order), for
    ties, computed only when needed."""
    passes = passes.copy()
    alive = passes[pairs.cls]
    named = pairs.val != pairs.blank
    n = len(passes)
    rank: np.ndarray | None = None
    while True:
        people = np.bincount(pairs.cls[alive], weights=pairs.weights()[alive], minlength=n)
        small = passes & (people < k)
        if small.any():  # M = 1 first: a class with fewer than k persons goes whole
            passes &= ~small
            alive &= passes[pairs.cls]
            continue
        items = np.flatnonzero(alive & named)
        bad = _violations(pairs, items, k, knows)
        if not len(bad):
            break
        rank = order() if rank is None else rank
        alive[_rarest(pairs, items, bad, people, rank)] = False
    return passes, ~alive & passes[pairs.cls]


def _violations(pairs: PersonPairs, items: np.ndarray, k: int, knows: int) -> list[np.ndarray]:
    """The sets held by fewer than k persons, as arrays of item indices (positions in ``items``), one
    array per set size (each row of an array is one person's set)."""
    cls = pairs.cls[items]
    person = pairs.val[items]
    if knows == ALL:
        return _whole_profiles(cls, person, k)
    out = []
    for size in range(2, knows + 1):
        sets = _subsets(person, size)
        if not len(sets):
            break
        n_cls = int(cls.max()) + 1
        ids, n_ids = group_columns([cls[sets[:, j]] for j in range(size)], [n_cls] * size)
        support = np.bincount(ids, minlength=n_ids)  # a person holds a set of its own items once
        out.append(sets[support[ids] < k])
    return [s for s in out if len(s)]


def _subsets(person: np.ndarray, size: int) -> np.ndarray:
    """All ``size``-subsets of positions within runs of equal ``person`` (positions ascending), as rows
    of a (count, size) array, generated with numpy (no loop per person)."""
    n = len(person)
    start = np.flatnonzero(np.r_[True, person[1:] != person[:-1]]) if n else np.zeros(0, np.int64)
    end = np.repeat(np.r_[start[1:], n], np.diff(np.r_[start, n])) if n else start
    sets = np.arange(n, dtype=np.int64)[:, None]
    for _step in range(size - 1):
        last = sets[:, -1]
        extra = end[last] - last - 1  # positions after the last one, in the same person
        total = int(extra.sum())
        if total > MAX_SETS:
            raise ConfigError(
                _(
                    "Some persons have so many released rows that checking every {m} of them means "
                    "{n} combinations; choose a smaller number of stays an attacker knows.",
                    m=size,
                    n=total,
                ),
                where="person_knows",
            )
        base = np.repeat(sets, extra, axis=0)
        offset = np.arange(total) - np.repeat(np.cumsum(extra) - extra, extra)
        sets = np.column_stack([base, base[:, -1] + 1 + offset])
    return sets


def _whole_profiles(cls: np.ndarray, person: np.ndarray, k: int) -> list[np.ndarray]:
    """The whole sets of persons with at least two items held (as subsets) by fewer than k persons."""
    n = len(person)
    if not n:
        return []
    start = np.flatnonzero(np.r_[True, person[1:] != person[:-1]])
    length = np.diff(np.r_[start, n])
    profile = _profile_ids(cls, start, length)
    same = np.bincount(profile)[profile]  # persons with exactly this set already hold it
    rare = np.flatnonzero((length >= 2) & (same < k))
    if not len(rare):
        return []
    support = _superset_support(cls, person, start, length, rare)
    bad = rare[support < k]
    out = []
    for size in np.unique(length[bad]):
        who = bad[length[bad] == size]
        out.append(start[who][:, None] + np.arange(size)[None, :])
    return out


def _profile_ids(cls: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """An id per person, equal for persons with the same set of items (items sorted per person): built
    one position at a time, each step grouping (id so far, item at this position)."""
    ids = length.astype(np.int64)
    n_ids = int(ids.max()) + 1
    for t in range(int(length.max())):
        has = length > t
        item = np.full(len(ids), -1, dtype=np.int64)
        item[has] = cls[start[has] + t]
        ids, n_ids = group_columns([ids, item + 1], [n_ids, int(cls.max()) + 2])
    return ids


def _superset_support(
    cls: np.ndarray, person: np.ndarray, start: np.ndarray, length: np.ndarray, rare: np.ndarray
) -> np.ndarray:
    """For every person of ``rare`` (indices of persons), how many persons hold all its items: the
    candidates are the persons of its rarest item, and a candidate counts when every item of the set is
    among its own (one sorted lookup of (candidate, item) keys), in chunks of bounded size."""
    width = int(cls.max()) + 1
    keys = person.astype(np.int64) * width + cls  # sorted: items are sorted by person, then class
    holders = np.argsort(cls, kind="stable")  # item positions grouped by class
    by_class = np.r_[0, np.cumsum(np.bincount(cls, minlength=width))]
    counts = np.diff(by_class)
    out = np.zeros(len(rare), dtype=np.int64)
    for lo in range(0, len(rare), 4096):
        who = rare[lo : lo + 4096]
        pos = _positions(start[who], length[who])  # (person in chunk, its items)
        owner = np.repeat(np.arange(len(who)), length[who])
        item_cls = cls[pos]
        best = np.full(len(who), np.iinfo(np.int64).max)
        np.minimum.at(best, owner, counts[item_cls] * width + item_cls)
        rarest = best % width
        cand_n = counts[rarest]
        cand_owner = np.repeat(np.arange(len(who)), cand_n)
        cand_pos = holders[_positions(by_class[rarest], cand_n)]
        cand_person = person[cand_pos]
        # every (candidate, item of the owner's set): is the item the candidate's?
        per_owner = length[who][cand_owner]
        c_rep = np.repeat(np.arange(len(cand_owner)), per_owner)
        first_item = np.r_[0, np.cumsum(length[who])][:-1][cand_owner]
        item_idx = _positions(first_item, per_owner)
        probe = cand_person[c_rep].astype(np.int64) * width + item_cls[item_idx]
        found = np.searchsorted(keys, probe)
        hit = keys[np.minimum(found, len(keys) - 1)] == probe
        held = np.bincount(c_rep, weights=hit, minlength=len(cand_owner)) == per_owner
        out[lo : lo + len(who)] = np.bincount(cand_owner, weights=held, minlength=len(who))
    return out


def _positions(first: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``first[i], first[i] + 1, ..., first[i] + count[i] - 1`` for every i, concatenated."""
    total = int(count.sum())
    offset = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    return np.repeat(first, count) + offset


def _rarest(
    pairs: PersonPairs, items: np.ndarray, bad: list[np.ndarray], people: np.ndarray, rank: np.ndarray
) -> np.ndarray:
    """The pair to cut for every violating set: the person's pair in the set's rarest item (fewest
    persons, then first in hierarchy order)."""
    out = []
    n_rank = int(rank.max()) + 1 if len(rank) else 1
    for sets in bad:
        cls = pairs.cls[items[sets]]
        score = people[cls].astype(np.int64) * n_rank + rank[cls]
        out.append(items[sets[np.arange(len(sets)), np.argmin(score, axis=1)]])
    return np.unique(np.concatenate(out)) if out else np.zeros(0, dtype=np.int64)


# --- the node's suppression under the person role (called by the evaluator) -----------------------------
def suppress_for_persons(
    enc: EncodedTable,
    fs: FrequencySet,
    passes: np.ndarray,
    rule: GroupRule,
    models: tuple[PrivacyModel, ...],
    order: Callable[[], np.ndarray],
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, int]:
    """The released classes of a node under the person role, the pairs cut out of released classes
    (``knows`` > 1, see :func:`enforce_sets`; None when none), the records cut per class (None when
    none) and the records suppressed in all. Cutting rows can make a class fail l-diversity or
    t-closeness, so the other models are asked again about what is left. Then Datafly's step 4 in
    persons: the kept suppressed rows form one group of 0 or at least k persons, else the smallest
    released class is suppressed whole (it holds k persons: one is enough)."""
    pairs = (fs.hists or {})[PERSON_KEY]
    assert isinstance(pairs, PersonPairs)
    cut = None
    k = k_of(models)
    if enc.person_knows != 1:
        passes, cut = enforce_sets(pairs, passes, k, enc.person_knows, order)
        if cut.any() and any(not isinstance(m, KAnonymity) for m in models):
            passes = passes & _passing_without(enc, fs, pairs, cut, models)
            cut &= passes[pairs.cls]
    suppressed_people = suppressed_persons(fs, passes, cut)
    if rule.group_k > 0 and 0 < suppressed_people < rule.group_k and passes.any():
        passes, _none, _n = enforce(rule, fs.counts, passes, 0, order())
        if cut is not None:
            cut &= passes[pairs.cls]
    trimmed = None
    if cut is not None and cut.any():
        trimmed = np.bincount(pairs.cls[cut], weights=pairs.cnt[cut], minlength=fs.n_classes).astype(np.int64)
    suppressed = int(fs.counts[~passes].sum()) + (0 if trimmed is None else int(trimmed.sum()))
    return passes, cut if trimmed is not None else None, trimmed, suppressed


def _passing_without(
    enc: EncodedTable,
    fs: FrequencySet,
    pairs: PersonPairs,
    cut: np.ndarray,
    models: tuple[PrivacyModel, ...],
) -> np.ndarray:
    """Per class, whether what is left of it after the cut pairs passes every model."""
    p1 = pairs.n_values
    cut_keys = np.sort(pairs.cls[cut].astype(np.int64) * p1 + pairs.val[cut])
    hists: dict[int, Histograms] = {PERSON_KEY: _subset(pairs, ~cut)}
    for a, h in (fs.hists or {}).items():
        if isinstance(h, PersonValues):
            keys = h.cls.astype(np.int64) * p1 + h.val % h.persons
            pos = np.minimum(np.searchsorted(cut_keys, keys), len(cut_keys) - 1)
            hists[a] = _subset(h, cut_keys[pos] != keys)
    counts = fs.counts - np.bincount(pairs.cls[cut], weights=pairs.cnt[cut], minlength=fs.n_classes)
    left = dataclasses.replace(fs, counts=counts.astype(np.int64), hists=hists)
    stats = ClassStats.of(enc, left)
    ok = np.ones(fs.n_classes, dtype=bool)
    for m in models:
        ok &= m.passes(stats)
    return ok


def _subset(h: Histograms, keep: np.ndarray) -> Histograms:
    """The entries of ``h`` (pairs or triples) selected by ``keep``, same kind and order."""
    return dataclasses.replace(h, cls=h.cls[keep], val=h.val[keep], cnt=h.cnt[keep])
