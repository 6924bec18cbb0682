"""The fewest ``*`` cells of a k-anonymous local-suppression release, solved exactly by an integer program
(HiGHS through ``scipy.optimize.milp``), built from the released strings with pandas: independent of
the engine's model (no class is left out beforehand, a literal ``*`` value counts as a released ``*``
string, so records are grouped exactly as an attacker sees the file). Used by the tests and by
``bench/local_certificate.py --exact``.

Variables: x[t, r] records of distinct row t released as string tuple r (one per pattern of ``*``),
y[r] whether r is released. Minimize the ``*`` cells made; every record released once; an open r
holds k records or more (sum_t x >= k y), a closed one none (x <= count(t) y).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_matrix


def exact_min_stars(
    frame: pd.DataFrame, qi: list[str], k: int, seconds: float = 60.0
) -> tuple[int | None, bool]:
    """(The fewest ``*`` cells made, whether HiGHS proved it optimal); (None, False) when no solution
    was found within ``seconds``."""
    rows = frame[qi].astype(str)
    distinct = rows.value_counts(sort=False).reset_index(name="count")
    counts = distinct["count"].to_numpy(dtype=float)
    values = distinct[qi].to_numpy(dtype=object)
    n_t, d = values.shape
    tup, key, cost = [], [], []
    for pattern in itertools.product([False, True], repeat=d):
        mask = np.array(pattern)
        shown = np.where(mask[None, :], "*", values)
        made = int(mask.sum())
        for t in range(n_t):
            tup.append(t)
            key.append("\x1f".join(shown[t]))
            cost.append(made - int((values[t][mask] == "*").sum()))  # a literal * is not made
    released, cls = np.unique(np.array(key, dtype=object), return_inverse=True)
    pair = pd.DataFrame({"t": tup, "c": cls, "cost": cost}).groupby(["t", "c"], as_index=False)["cost"].min()
    t, c, w = pair["t"].to_numpy(), pair["c"].to_numpy(), pair["cost"].to_numpy(dtype=float)
    ne, nc = len(t), len(released)
    cols = np.arange(ne)
    once = csr_matrix((np.ones(ne), (t, cols)), shape=(n_t, ne + nc))
    size = csr_matrix(
        (
            np.concatenate([np.ones(ne), np.full(nc, -float(k))]),
            (np.concatenate([c, np.arange(nc)]), np.concatenate([cols, ne + np.arange(nc)])),
        ),
        shape=(nc, ne + nc),
    )
    link = csr_matrix(
        (
            np.concatenate([np.ones(ne), -counts[t]]),
            (np.concatenate([cols, cols]), np.concatenate([cols, ne + c])),
        ),
        shape=(ne, ne + nc),
    )
    res = milp(
        np.concatenate([w, np.zeros(nc)]),
        constraints=[
            LinearConstraint(once, counts, counts),
            LinearConstraint(size, 0, np.inf),
            LinearConstraint(link, -np.inf, 0),
        ],
        integrality=np.ones(ne + nc),
        bounds=Bounds(0, np.concatenate([counts[t], np.ones(nc)])),
        options={"time_limit": seconds, "mip_rel_gap": 0.0},
    )
    if res.x is None:
        return None, False
    return int(round(res.fun)), bool(res.status == 0)


def strict_classes_ok(release: pd.DataFrame, qi: list[str], k: int) -> bool:
    """Every group of identical released strings (``*`` a value of its own) holds k records or more."""
    return bool(release[qi].astype(str).value_counts().min() >= k)


def stars_in(release: pd.DataFrame, qi: list[str]) -> int:
    """The ``*`` cells of a released file."""
    return int((release[qi].astype(str) == "*").to_numpy().sum())
