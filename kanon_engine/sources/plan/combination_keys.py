"""Integer keys of combinations of codes, numbered by the combinations that occur.

A row's point (or a row's class at a node) is found by the key of its codes among the sorted keys of the
points. The key used to be the mixed-radix number of the codes, which needs the product of the columns'
sizes to fit in 64 bits: 10 quasi-identifiers of hundreds to thousands of values each (1.5e27 possible
combinations, 20,000 records) were refused, however few combinations occur (issue 30).

:class:`CombinationKeys` keeps the mixed-radix number while it fits, and where the next column would take
it past 64 bits it replaces the running key by its rank among the running keys of the combinations it was
built from (a dense code of what occurs: the column-by-column factorization of Incognito's frequency sets,
LeFevre, DeWitt & Ramakrishnan 2005). Ranks keep the order, so the keys of lexicographically sorted
combinations are sorted, and with few columns or small domains (Adult) there is no cut and the keys are
the mixed-radix numbers themselves. A row whose combination is not one of them gets no key (-1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Largest running key space (one int64 per row; past it the running key is replaced by its rank).
MAX_KEY_SPACE = 1 << 62


@dataclass(frozen=True, eq=False)
class CombinationKeys:
    """How combinations of code columns (column ``j`` below ``sizes[j]``) get int64 keys that sort as the
    combinations do (first column most significant).

    ``cuts`` lists, for every column before which the running key was replaced by its rank, that column
    and the sorted distinct running keys of the combinations the keys were made for."""

    sizes: tuple[int, ...]
    cuts: tuple[tuple[int, np.ndarray], ...] = ()

    @classmethod
    def of(cls, codes: np.ndarray, sizes: Sequence[int]) -> tuple[CombinationKeys, np.ndarray]:
        """The keys of the combinations ``codes`` (columns, m) and the key of each of them."""
        radix = tuple(max(int(s), 1) for s in sizes)
        cuts = []
        key = np.zeros(codes.shape[1], dtype=np.int64)
        space = 1
        for j, (col, size) in enumerate(zip(codes, radix)):
            if space * size >= MAX_KEY_SPACE:
                table, rank = np.unique(key, return_inverse=True)
                cuts.append((j, table))
                key, space = rank.astype(np.int64, copy=False).reshape(-1), len(table)
            key *= size
            key += col
            space *= size
        return cls(radix, tuple(cuts)), key

    def keys(self, codes: np.ndarray) -> np.ndarray:
        """The key of every combination of ``codes`` (columns, m); -1 for one whose first columns match
        none of the combinations the keys were made for (so it matches no key either)."""
        key = np.zeros(codes.shape[1], dtype=np.int64)
        unknown = np.zeros(codes.shape[1], dtype=bool)
        cut_at = dict(self.cuts)
        for j, (col, size) in enumerate(zip(codes, self.sizes)):
            table = cut_at.get(j)
            if table is not None:
                if len(table) == 0:
                    unknown[:] = True
                    key[:] = 0
                else:
                    pos = np.minimum(np.searchsorted(table, key), len(table) - 1)
                    unknown |= table[pos] != key
                    key = pos.astype(np.int64, copy=False)
            key *= size
            key += col
        key[unknown] = -1
        return key

    def without_combinations(self) -> CombinationKeys:
        """The same numbering holding none of its combinations (a stand-in that never looks a row up)."""
        empty = np.zeros(0, dtype=np.int64)
        return CombinationKeys(self.sizes, tuple((j, empty) for j, _table in self.cuts))
