"""A column as integer codes over its distinct values, computed once per column and shared.

Type detection (counts of distinct values), the search's encoding (the leaf of every record), the
generated workload (distinct values with their counts) and the workload's exact answers (distinct rows)
all start from the same thing: each record's code into the column's distinct values. On Adult x30 one
hash pass costs 10-15 ms a column; done once instead of four times, it saves a few tenths of a second of
a whole run.

A column loaded from a file is held by pyarrow, whose arrays are immutable: its codes are kept with the
array (and dropped when the array goes), so every later caller gets them for free; any other column
(a pandas object column, which could be changed in place) is coded on each call.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa


@dataclass(frozen=True, eq=False)
class ColumnCodes:
    """``values[codes[i]]`` is record ``i``'s value; the last slot of ``values`` is None and stands for a
    missing cell (whether or not the column has one).

    A column of Arrow text keeps its distinct values as ``text`` (Arrow strings, every one used, no
    missing slot), and makes ``values`` of them when first asked: the load's type detection reads the
    text, and a column of a million distinct names is not turned into a million Python strings until
    the search or the release needs them."""

    codes: np.ndarray  # (rows,) the smallest signed integer type that holds them, below len(values)
    given: np.ndarray | None = field(default=None, repr=False)  # ``values``, when not made from ``text``
    text: pa.ChunkedArray | None = None

    @cached_property
    def values(self) -> np.ndarray:
        """(distinct + 1,) object, the distinct values in order of first appearance, then None."""
        if self.given is not None:
            return self.given
        assert self.text is not None
        return np.append(self.text.to_numpy(), np.array([None], dtype=object))

    @property
    def size(self) -> int:
        """``len(values)``: the distinct values and the missing slot."""
        if self.given is not None:
            return len(self.given)
        assert self.text is not None
        return len(self.text) + 1

    def counts(self) -> np.ndarray:
        """Records per value (the missing slot last)."""
        return np.bincount(self.codes, minlength=self.size)


def code_column(column: pd.Series) -> ColumnCodes:
    """The column's codes: a categorical column's own (its categories as values), else one hash pass in
    order of first appearance; a loaded (pyarrow) column's codes are computed once and kept."""
    arrow = _immutable_data(column)
    if arrow is None:
        return _code(column)
    key = id(arrow)
    found = _KEPT.get(key)
    if found is None:
        found = _code(column)
        _KEPT[key] = found
        weakref.finalize(arrow, _KEPT.pop, key, None)
    return found


_KEPT: dict[int, ColumnCodes] = {}


def _immutable_data(column: pd.Series) -> object | None:
    arrow = getattr(column.array, "_pa_array", None)
    if arrow is None or isinstance(column.dtype, pd.CategoricalDtype):
        return None
    return arrow


def _code(column: pd.Series) -> ColumnCodes:
    text = None
    if isinstance(column.dtype, pd.CategoricalDtype):  # (categories may be unused: no ``text``)
        codes, uniques = column.array.codes, column.array.categories
    else:
        codes, uniques = pd.factorize(column, sort=False, use_na_sentinel=True)
        text = getattr(uniques.array, "_pa_array", None)
        if text is not None and not (pa.types.is_string(text.type) or pa.types.is_large_string(text.type)):
            text = None
    given = (
        None
        if text is not None
        else np.append(np.asarray(uniques, dtype=object), np.array([None], dtype=object))
    )
    codes = np.where(codes < 0, len(uniques), codes)
    return ColumnCodes(codes.astype(_code_type(len(uniques) + 1), copy=False), given, text)


def _code_type(n_values: int) -> type[np.signedinteger]:
    """The smallest integer type holding codes below ``n_values``: a column of a few dozen distinct values
    costs one byte a record while its codes are kept."""
    for dtype in (np.int8, np.int16, np.int32):
        if n_values <= np.iinfo(dtype).max:
            return dtype
    return np.int64
