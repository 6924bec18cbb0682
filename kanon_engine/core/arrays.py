"""Small array helpers that skip heavy machinery on small inputs.

- :func:`dot`: numpy hands ``a @ b`` of two float vectors to BLAS, and OpenBLAS wakes its threads for it:
  on a machine with other work on it a product over the 12,458 points of Adult took 14-92 ms instead of
  6 µs (issue 30), once per checked node. The engine's products are over one entry per point, class or
  record: they are summed in this thread.
- :func:`positions`: pandas' ``Index.get_indexer`` costs about 200 µs a call to set up, whatever the
  size; a run looks up the values of every column a few times (tens of values each, against hierarchies
  of tens of leaves), so a plain dictionary answers small lookups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

#: Lookups with at most this many keys and values use a dictionary (building it costs about 0.1 µs a key).
_SMALL = 50_000


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """The sum of ``a * b`` over two vectors of equal length, as a float, in this thread."""
    return float(np.einsum("i,i->", a, b, dtype=np.float64))


def positions(keys: Sequence[Any] | np.ndarray, values: Sequence[Any] | np.ndarray) -> np.ndarray:
    """The position (int64) of every value among ``keys`` (distinct), -1 where it is not one."""
    if len(keys) <= _SMALL and len(values) <= _SMALL:
        lut = dict(zip(keys, range(len(keys))))
        return np.fromiter((lut.get(v, -1) for v in values), dtype=np.int64, count=len(values))
    index = pd.Index(np.asarray(keys, dtype=object), dtype=object)
    return index.get_indexer(pd.Index(np.asarray(values, dtype=object), dtype=object))
