""" "Why is this record unsafe?": the values that make a record rare, and the least generalization that
would hide it.

For a record of the original table we report

- its class size: how many records share all its quasi-identifier values;
- for every quasi-identifier, how many records share that value alone, and how large the class would
  be if that quasi-identifier were left out ("drop one"): the attributes whose removal enlarges the class
  most are the ones that make the record rare;
- the smallest full-domain generalization (a node of the lattice of Samarati 2001, lowest height
  first, then largest class) under which the record's class holds at least ``k`` records, and the
  values the record would show there.

How it stays fast: a hierarchy is a tree, so once two values share a label at level ``j`` they share it
at every higher level. For every distinct combination of quasi-identifier values we compute the lowest
level at which it joins the record on each attribute (its *join vector*). A combination is in the
record's class at node ``L`` exactly when its join vector is ``<= L``, so the record's class size at
every node of the lattice is a cumulative sum of the combinations' counts over the lattice grid (one
``np.cumsum`` per attribute), with no loop over nodes or records.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.encoding import EncodedTable, encode_table
from kanon_engine.core.frequency import group_columns, representatives
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _, formats, ngettext

#: Lattices larger than this are not scanned for the smallest hiding generalization.
MAX_GRID_NODES = 5_000_000


@dataclass(frozen=True)
class AttributeRarity:
    """One quasi-identifier of the record: its value, how common it is, and the class without it."""

    attribute: str
    value: str
    records_with_value: int
    class_size_without: int

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Explanation:
    """Why record ``row`` (0-based, input order) is or is not safe at ``k``."""

    row: int
    k: int
    class_size: int
    values: dict[str, str]
    attributes: tuple[AttributeRarity, ...]  # most "guilty" first (largest class without it)
    levels: dict[str, int] | None = None  # smallest generalization that hides the record
    generalized_values: dict[str, str] | None = None
    class_size_generalized: int | None = None
    height: int | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def safe(self) -> bool:
        return self.class_size >= self.k

    def culprits(self) -> list[str]:
        """The attributes whose removal alone would make the class reach ``k``; if none, the one whose
        removal enlarges it most."""
        enough = [a.attribute for a in self.attributes if a.class_size_without >= self.k]
        if enough or not self.attributes:
            return enough
        best = self.attributes[0]
        return [best.attribute] if best.class_size_without > self.class_size else []

    def sentences(self) -> list[str]:
        """A plain-language explanation, one point per sentence."""
        combo = ", ".join(f"{q} = {self.values[q]}" for q in self.values)
        if self.safe:
            out = [
                ngettext(
                    "Record {row} ({combo}) shares these values with {n} other record, so it is in a "
                    "group of at least k = {k}.",
                    "Record {row} ({combo}) shares these values with {n} other records, so it is in a "
                    "group of at least k = {k}.",
                    self.class_size - 1,
                    row=self.row + 1,
                    combo=combo,
                    k=self.k,
                )
            ]
        else:
            out = self._unsafe_sentences(combo)
        if self.levels is not None and not self.safe:
            out.append(self._generalization_sentence())
        out.extend(self.notes)
        return out

    def _unsafe_sentences(self, combo: str) -> list[str]:
        """Why the record is unsafe: who shares its values, which values are rare, which column to drop."""
        others = self.class_size - 1
        if others == 0:
            who = _("no other record in the data shares these values")
        else:
            who = ngettext(
                "only {n} other record shares these values",
                "only {n} other records share these values",
                others,
            )
        out = [
            _(
                "Record {row} ({combo}) is unsafe: {who}, fewer than k - 1 = {needed}.",
                row=self.row + 1,
                combo=combo,
                who=who,
                needed=self.k - 1,
            )
        ]
        rare_alone = [a for a in self.attributes if a.records_with_value < self.k]
        if rare_alone:
            parts = formats.join_clauses(
                [
                    ngettext(
                        "{column} = {value} is shared by only {n} record",
                        "{column} = {value} is shared by only {n} records",
                        a.records_with_value,
                        column=a.attribute,
                        value=a.value,
                    )
                    for a in rare_alone
                ]
            )
            out.append(_("On its own, {parts}.", parts=parts))
        else:
            rarest = sorted(self.attributes, key=lambda a: a.records_with_value)[:3]
            parts = ", ".join(
                ngettext(
                    "{column} = {value} in {n} record",
                    "{column} = {value} in {n} records",
                    a.records_with_value,
                    column=a.attribute,
                    value=a.value,
                )
                for a in rarest
            )
            out.append(
                _(
                    "Each value on its own is common (the rarest: {parts}); it is their combination that is "
                    "rare.",
                    parts=parts,
                )
            )
        culprits = self.culprits()
        for a in self.attributes:
            if a.attribute in culprits:
                out.append(
                    ngettext(
                        "Without {column} it would share its values with {n} other record.",
                        "Without {column} it would share its values with {n} other records.",
                        a.class_size_without - 1,
                        column=a.attribute,
                    )
                )
        return out

    def _generalization_sentence(self) -> str:
        changed = {q: lv for q, lv in (self.levels or {}).items() if lv > 0}
        shown = (
            ", ".join(_("{column} as {value}", column=q, value=self.generalized_values[q]) for q in changed)
            if self.generalized_values
            else ""
        )
        return ngettext(
            "The smallest generalization that hides it ({n} step: {shown}) puts it in a group of {size} "
            "records.",
            "The smallest generalization that hides it ({n} steps: {shown}) puts it in a group of {size} "
            "records.",
            sum(changed.values()),
            shown=shown,
            size=self.class_size_generalized,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "k": self.k,
            "class_size": self.class_size,
            "safe": self.safe,
            "values": self.values,
            "attributes": [a.to_dict() for a in self.attributes],
            "levels": self.levels,
            "generalized_values": self.generalized_values,
            "class_size_generalized": self.class_size_generalized,
            "height": self.height,
            "explanation": self.sentences(),
        }


class RecordExplainer:
    """Explains records of one table under one configuration (encodes the table once, for the GUI)."""

    def __init__(self, table: Table, config: AnonymizationConfig, enc: EncodedTable | None = None) -> None:
        self.table = table
        self.config = config
        if enc is None:
            enc = encode_table(table, config.quasi_identifiers, config.hierarchies)
        self.enc = enc
        e = self.enc
        sizes = [h.distinct_at(0) for h in e.hierarchies]
        self._row_combo, n = group_columns([e.codes[q] for q in range(e.n_qi)], sizes)
        rep = representatives(self._row_combo, n)
        self._combo_codes = e.codes[:, rep]  # (n_qi, n_combos) leaf codes
        self._counts = np.bincount(self._row_combo, minlength=n).astype(np.int64)
        self._radix = e.heights + 1
        self._grid_size = int(np.prod(self._radix, dtype=object))

    def class_sizes(self) -> np.ndarray:
        """Size of the original class of every record (input order)."""
        return self._counts[self._row_combo]

    def join_levels(self, row: int) -> np.ndarray:
        """(n_qi, n_combos): lowest level from which on each combination shares the record's label
        (height + 1 when it never does, e.g. a hierarchy whose top level is not a single root)."""
        e = self.enc
        out = np.empty(self._combo_codes.shape, dtype=np.int64)
        for q in range(e.n_qi):
            mine = e.codes[q, row]
            top = int(e.heights[q])
            joined = np.full(self._combo_codes.shape[1], top + 1, dtype=np.int64)
            still = np.ones(self._combo_codes.shape[1], dtype=bool)
            for j in range(top, -1, -1):  # from the root down, while the labels still agree
                maps = e.level_maps[q][j]
                still &= maps[self._combo_codes[q]] == maps[mine]
                joined[still] = j
            out[q] = joined
        return out

    def explain(self, row: int, k: int | None = None) -> Explanation:
        """Explain record ``row`` (0-based input order) at ``k`` (default: the configuration's k)."""
        n = self.table.n_rows
        if not 0 <= row < n:
            raise ConfigError(
                _("There is no record {n}: the table has {n2} records.", n=row + 1, n2=n), where="row"
            )
        k = int(self.config.k if k is None else k)
        e = self.enc
        join = self.join_levels(row)
        qi = e.qi
        values = {q: _text(self.table.frame[q].iloc[row]) for q in qi}
        exact = (join == 0).all(axis=0)
        class_size = int(self._counts[exact].sum())
        rarities = []
        for q in range(e.n_qi):
            others = np.delete(join, q, axis=0)
            without = (others == 0).all(axis=0) if len(others) else np.ones(join.shape[1], dtype=bool)
            rarities.append(
                AttributeRarity(
                    qi[q],
                    values[qi[q]],
                    int(self._counts[join[q] == 0].sum()),
                    int(self._counts[without].sum()),
                )
            )
        rarities.sort(key=lambda a: (-a.class_size_without, a.records_with_value))
        if class_size >= k:
            return Explanation(row, k, class_size, values, tuple(rarities))
        if self._grid_size > MAX_GRID_NODES:
            note = (
                _(
                    "The lattice has {grid_size} generalizations, too many to search for the smallest one "
                    "that hides this record.",
                    grid_size=self._grid_size,
                ),
            )
            return Explanation(row, k, class_size, values, tuple(rarities), notes=note)
        grid = self.class_size_grid(join)
        flat = grid.reshape(-1)
        ok = np.flatnonzero(flat >= k)
        if not len(ok):
            return Explanation(
                row,
                k,
                class_size,
                values,
                tuple(rarities),
                notes=(
                    _(
                        "Even the most general transformation leaves it in a group smaller than {k}; only "
                        "suppression can hide it.",
                        k=k,
                    ),
                ),
            )
        levels_all = np.stack(np.unravel_index(ok, grid.shape), axis=1)
        heights = levels_all.sum(axis=1)
        best_h = heights.min()
        cands = np.flatnonzero(heights == best_h)
        pick = cands[np.argmax(flat[ok[cands]])]  # largest class among the lowest; first on ties
        lv = levels_all[pick]
        levels = {q: int(x) for q, x in zip(qi, lv)}
        gen = {q: str(e.hierarchies[i].matrix[e.codes[i, row], int(lv[i])]) for i, q in enumerate(qi)}
        return Explanation(
            row, k, class_size, values, tuple(rarities), levels, gen, int(flat[ok[pick]]), int(best_h)
        )

    def class_size_grid(self, join: np.ndarray) -> np.ndarray:
        """The record's class size at every lattice node, as an array shaped by the levels."""
        grid = np.zeros(tuple(int(r) for r in self._radix), dtype=np.int64)
        inside = (join < self._radix[:, None]).all(axis=0)
        np.add.at(grid, tuple(join[:, inside]), self._counts[inside])
        for axis in range(grid.ndim):
            np.cumsum(grid, axis=axis, out=grid)
        return grid


def _text(v: Any) -> str:
    return "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)


def explain_record(table: Table, config: AnonymizationConfig, row: int, k: int | None = None) -> Explanation:
    """Explain one record (encodes the table; use :class:`RecordExplainer` for many records)."""
    return RecordExplainer(table, config).explain(row, k)
