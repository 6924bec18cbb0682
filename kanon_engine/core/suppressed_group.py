"""Datafly's step 4, "enforce k requirement on suppressed tuples" (Sweeney 2002; the seed's Datafly slides).

Suppressed records kept in the release show ``*`` in every quasi-identifier, so they look alike: they
form one group. When it holds more than 0 but fewer than k records, an attacker who knows the target
is among them narrows the target down to fewer than k records and learns their sensitive values. So the
group of kept suppressed records must hold 0 or at least k records; when it holds fewer, more records
are suppressed, as the slides say:

- with k-anonymity as the only model, the ``k - s`` missing records are taken from the released groups
  that have more than k records, largest group first (each stays at k or more, so it still passes).
  This is the fewest records there can be (exactly k), and it keeps "satisfies" monotone under
  generalization, so the lattice searches still prune (a coarser node can suppress the same records);
- with l-diversity or t-closeness, taking records out of a group could break it, so the smallest
  passing group is suppressed whole. Then a coarser node can need more suppression than a finer one,
  so the searches treat the models as not monotone (correct, slower).

Ties between groups of the same size go to the one whose generalized values come first (hierarchy
order), so the choice is the same in every run. Every search counts the extra suppression against the
suppression limit: a node is a solution only when the total fits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GroupRule:
    """The rule in force for one run: ``group_k`` 0 means off (or suppressed records are dropped)."""

    group_k: int
    k: int  # the size a trimmed group must keep
    trim: bool  # records may be taken out of groups (k-anonymity is the only model)

    def applies(self, suppressed: int) -> bool:
        return self.group_k > 0 and 0 < suppressed < self.group_k


def enforce(
    rule: GroupRule, sizes: np.ndarray, passes: np.ndarray, suppressed: int, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None, int]:
    """New pass mask, records taken out of each passing group (or None), and the records suppressed.

    ``order`` ranks the groups for ties (lower first). Call only when :meth:`GroupRule.applies`.
    """
    need = rule.group_k - suppressed
    passing = np.flatnonzero(passes)
    if rule.trim:
        surplus = np.maximum(sizes[passing] - rule.k, 0)
        if surplus.sum() >= need:
            rank = np.lexsort((order[passing], -sizes[passing]))  # largest first
            take = np.minimum(surplus[rank], np.maximum(need - (np.cumsum(surplus[rank]) - surplus[rank]), 0))
            trimmed = np.zeros(len(sizes), dtype=np.int64)
            trimmed[passing[rank]] = take
            return passes, trimmed, suppressed + need
    if not len(passing):
        return passes, None, suppressed
    smallest = passing[np.lexsort((order[passing], sizes[passing]))[0]]
    passes = passes.copy()
    passes[smallest] = False
    return passes, None, suppressed + int(sizes[smallest])


def trimmed_rows(row_class: np.ndarray, trimmed: np.ndarray) -> np.ndarray:
    """Mask of the records taken out of their group: the last ones of the group in input order."""
    out = np.zeros(len(row_class), dtype=bool)
    for c in np.flatnonzero(trimmed):
        rows = np.flatnonzero(row_class == c)
        out[rows[len(rows) - int(trimmed[c]) :]] = True
    return out
