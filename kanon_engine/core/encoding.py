"""Integer encoding of quasi-identifiers and sensitive attributes, done once per run.

Every quasi-identifier value is replaced by the index of its leaf in the attribute's hierarchy, and every
hierarchy level by a lookup array (leaf index -> code at that level). Applying a full-domain
transformation (a vector of levels, Samarati 2001) is then one array lookup per column, never a Python
loop per row. Sensitive attributes are encoded as codes into their distinct values (ordered numerically
when they are numbers, which the ordered-distance t-closeness needs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.data.codes import code_column
from kanon_engine.data.table import Table
from kanon_engine.data.types import number_characters_only, parse_numbers
from kanon_engine.errors import ConfigError, HierarchyError
from kanon_engine.hierarchy.model import MISSING, Hierarchy
from kanon_engine.hierarchy.validate import require_valid
from kanon_engine.i18n import _, ngettext


@dataclass(frozen=True, eq=False)
class SensitiveColumn:
    """A sensitive attribute encoded as codes into ``values`` (numeric order when numeric)."""

    name: str
    codes: np.ndarray  # (n_rows,) int32
    values: tuple[str, ...]
    numeric: bool
    hierarchy: Hierarchy | None = None
    #: records of every row when the rows are distinct points with counts (None: one record each)
    weights: np.ndarray | None = None

    @cached_property
    def global_distribution(self) -> np.ndarray:
        """Share of each value in the whole table (the reference distribution of t-closeness)."""
        counts = np.bincount(self.codes, weights=self.weights, minlength=len(self.values)).astype(float)
        return counts / counts.sum()


@dataclass(frozen=True, eq=False)
class EncodedTable:
    """Quasi-identifiers as leaf codes plus per-level lookup arrays.

    ``codes[q]`` is the leaf index of every row in ``hierarchies[q]``; ``level_maps[q][j]`` maps a leaf
    index to the code of its generalization at level ``j`` (codes into ``hierarchies[q].level_codes[j][1]``).

    A row is one record, or, when ``weights`` is given, one *point*: a distinct combination of
    quasi-identifier and sensitive codes standing for ``weights[i]`` records (what a table source counts,
    :mod:`kanon_engine.sources`). Frequency sets, privacy models and metrics weigh every row by its
    records, so a table and its points give the same results; ``n_rows`` counts records, ``n_points``
    rows. ``leaf_counts`` (records per leaf of every QI) is given when the rows do not hold every leaf
    exactly (points counted at a coarser level than the leaves, see
    :func:`kanon_engine.sources.plan.points.count_points`).
    """

    qi: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...]
    codes: np.ndarray  # (n_qi, n_rows) int32
    sensitive: tuple[SensitiveColumn, ...] = field(default=())
    weights: np.ndarray | None = None  # (n_rows,) int64 records per row (None: one each)
    leaf_counts: tuple[np.ndarray, ...] | None = None
    #: points counted at coarser levels than the leaves: how finer nodes are checked (the engine,
    #: :class:`kanon_engine.sources.plan.floor.Floor`); None when the rows hold leaves
    below: Any = None
    #: the population the table was drawn from, for the models that compare with it (k-map on a
    #: population table, delta-presence): :class:`kanon_engine.core.population_counts.PopulationPoints`
    population: Any = None
    #: under the person role (:mod:`kanon_engine.core.persons`): the person of every row, a code
    #: 0..n_persons-1, or n_persons for a blank cell (each of its records a person of its own)
    persons: np.ndarray | None = None
    n_persons: int = 0
    #: how many distinct released rows of one person an attacker may know (0: all of them), see
    #: :mod:`kanon_engine.core.person_sets`
    person_knows: int = 1

    @cached_property
    def n_rows(self) -> int:
        """Records (the sum of the weights of weighted rows)."""
        return int(self.codes.shape[1]) if self.weights is None else int(self.weights.sum())

    @property
    def n_points(self) -> int:
        """Rows of ``codes`` (records, or distinct points with counts)."""
        return int(self.codes.shape[1])

    def point_weights(self) -> np.ndarray:
        """Records per row: the weights of weighted rows, else one each."""
        return self.weights if self.weights is not None else np.ones(self.n_points, dtype=np.int64)

    def leaf_histogram(self, q: int) -> np.ndarray:
        """Records per leaf of quasi-identifier ``q`` (float64)."""
        if self.leaf_counts is not None:
            return self.leaf_counts[q].astype(np.float64)
        n = len(self.hierarchies[q].values)
        return np.bincount(self.codes[q], weights=self.weights, minlength=n).astype(np.float64)

    @property
    def n_qi(self) -> int:
        return len(self.qi)

    @cached_property
    def heights(self) -> np.ndarray:
        return np.array([h.height for h in self.hierarchies], dtype=np.int64)

    @cached_property
    def level_maps(self) -> tuple[tuple[np.ndarray, ...], ...]:
        return tuple(tuple(codes for codes, _labels in h.level_codes) for h in self.hierarchies)

    @cached_property
    def level_sizes(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(len(labels) for _codes, labels in h.level_codes) for h in self.hierarchies)

    def sensitive_column(self, name: str) -> SensitiveColumn:
        for s in self.sensitive:
            if s.name == name:
                return s
        raise ConfigError(
            _("'{column}' is not a sensitive attribute of this run.", column=name),
            hint=_("Mark it as sensitive before asking for l-diversity or t-closeness on it."),
            where=name,
        )


def _factorize(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Hash-based codes of a column (O(n)) with missing values folded into the MISSING leaf."""
    codes, uniques = pd.factorize(series, sort=False, use_na_sentinel=True)
    values = np.asarray(uniques, dtype=object).astype(str)
    if (codes < 0).any():
        values = np.append(values, MISSING)
        codes = np.where(codes < 0, len(values) - 1, codes)
    return codes.astype(np.int64), values


def encode_quasi_identifier(series: pd.Series, hierarchy: Hierarchy) -> np.ndarray:
    """Leaf index of every value; a HierarchyError listing up to 10 values the hierarchy lacks.

    One hierarchy lookup per distinct value, gathered to the records through the column's codes (computed
    once per loaded column and shared with type detection and the workload: :mod:`kanon_engine.data.codes`).
    """
    coded = code_column(series)
    uniques = np.append(coded.values[:-1].astype(str), MISSING)  # a missing cell is the MISSING leaf
    leaf_of_unique = hierarchy.encode(uniques)
    uncovered = (leaf_of_unique < 0) & (coded.counts() > 0)
    require_covered(hierarchy, uniques[uncovered])
    return leaf_of_unique[coded.codes].astype(np.int32, copy=False)


def require_covered(hierarchy: Hierarchy, missing: np.ndarray) -> None:
    """A HierarchyError listing up to 10 values of the data (``missing``) the hierarchy lacks."""
    if len(missing):
        shown = ", ".join(_("(missing)") if v == MISSING else f"'{v}'" for v in missing[:10])
        if len(missing) > 10:
            shown = _("{values} and {n} more", values=shown, n=len(missing) - 10)
        raise HierarchyError(
            ngettext(
                "The hierarchy of '{column}' does not cover {n} value of the data: {values}.",
                "The hierarchy of '{column}' does not cover {n} values of the data: {values}.",
                len(missing),
                column=hierarchy.attribute,
                values=shown,
            ),
            hint=_("Add these values to the hierarchy, or build a new one from the data."),
            where=hierarchy.attribute,
        )


def _some_not_a_number(uniques: np.ndarray) -> bool:
    """Whether a value is no number however numbers are written: not one in Python's notation and
    holding a character that no local way of writing them uses (:data:`~kanon_engine.data.types.
    LOCAL_FORMATS`: digits, signs, a decimal point or comma, group separators), such as a letter or '<'.
    Such a column is not numeric, and trying every way of writing numbers on it costs 16 ms (Adult's
    salary class, '<=50K' and '>50K'), more than a whole search checks in 50 nodes."""
    text = pd.Series(uniques, dtype=object).astype(str).str.strip()
    plain = pd.to_numeric(text, errors="coerce")
    return bool((plain.isna().to_numpy() & ~number_characters_only(text)).any())


def sensitive_order(uniques: np.ndarray) -> tuple[tuple[str, ...], np.ndarray, bool]:
    """The values of a sensitive attribute in code order, the code of each of the sorted distinct strings
    ``uniques``, and whether they are numbers (then in numeric order, which the ordered-distance
    t-closeness needs; else in string order)."""
    if _some_not_a_number(uniques):
        return tuple(uniques), np.arange(len(uniques), dtype=np.int64), False
    numbers = pd.Series(parse_numbers(uniques))  # a decimal comma too (kanon_engine.data.types)
    numeric = bool(numbers.notna().all()) and len(uniques) > 0
    if not numeric:
        return tuple(uniques), np.arange(len(uniques), dtype=np.int64), False
    order = np.argsort(numbers.to_numpy(dtype=float), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return tuple(uniques[order]), rank.astype(np.int64), True


def encode_sensitive(series: pd.Series, name: str, hierarchy: Hierarchy | None = None) -> SensitiveColumn:
    """Codes of a sensitive attribute; values in numeric order when all non-missing values are numbers."""
    if hierarchy is not None:
        codes = encode_quasi_identifier(series, hierarchy)
        return SensitiveColumn(name, codes, hierarchy.values, False, hierarchy)
    first, values = _factorize(series)
    uniques, inverse_u = np.unique(values, return_inverse=True)
    ordered, rank, numeric = sensitive_order(uniques.astype(object))
    return SensitiveColumn(name, rank[inverse_u[first]].astype(np.int32), ordered, numeric)


def is_tree(h: Hierarchy) -> bool:
    """Whether every label of ``h`` has one parent at the next level (one array test per level)."""
    codes = h.level_codes
    for j in range(1, h.depth - 1):
        child, parent = codes[j][0], codes[j + 1][0]
        first = np.full(len(codes[j][1]), -1, dtype=np.int64)
        first[child] = parent
        if not np.array_equal(first[child], parent):
            return False
    return True


def encode_table(
    table: Table,
    qi: tuple[str, ...] | list[str],
    hierarchies: Mapping[str, Hierarchy],
    sensitive: tuple[str, ...] | list[str] = (),
    sensitive_hierarchies: Mapping[str, Hierarchy] | None = None,
) -> EncodedTable:
    """Encode the quasi-identifiers (with their hierarchies) and sensitive attributes of ``table``."""
    qi = tuple(qi)
    if not qi:
        raise ConfigError(
            _("No quasi-identifier was chosen."),
            hint=_(
                "Mark at least one column an outsider could know (age, sex, postcode) as quasi-identifier."
            ),
        )
    table.require_columns(qi, _("quasi-identifier"))
    table.require_columns(tuple(sensitive), _("sensitive attribute"))

    hs = []
    for q in qi:
        if q not in hierarchies:
            raise ConfigError(_("The quasi-identifier '{column}' has no hierarchy.", column=q), where=q)
        # roll-ups of frequency sets are only exact on trees: refuse a label with two parents (the full
        # validation says which; the vectorized test keeps a run on valid hierarchies cheap)
        if not is_tree(hierarchies[q]):
            require_valid(hierarchies[q])
        hs.append(hierarchies[q])
    codes = np.stack([encode_quasi_identifier(table.frame[q], h) for q, h in zip(qi, hs)])
    sens_h = sensitive_hierarchies or {}
    sens = tuple(encode_sensitive(table.frame[s], s, sens_h.get(s)) for s in sensitive)
    return EncodedTable(qi, tuple(hs), codes, sens)
