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

Under the person role (issue 33) every count is of distinct persons, not records: a record is safe when
the records sharing its values belong to at least ``k`` persons, and the hiding generalization is the
lowest node where they do. Distinct persons do not add up over the lattice grid, so the grid of record
counts (an upper bound: a group never holds more persons than records) picks the candidate nodes, lowest
height first, and each candidate's persons are counted from the (combination, person) pairs.

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
from kanon_engine.data.persons import person_codes
from kanon_engine.data.records import named_values
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import Nn_, _, formats, plural_of

#: Lattices larger than this are not scanned for the smallest hiding generalization.
MAX_GRID_NODES = 5_000_000
#: Under the person role, most candidate nodes whose persons are counted one by one.
MAX_PERSON_NODES = 4096


@dataclass(frozen=True)
class AttributeRarity:
    """One quasi-identifier of the record: its value, how common it is, and the class without it."""

    attribute: str
    value: str
    records_with_value: int
    class_size_without: int

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: The explanation's counted sentences, by what they count: persons (True: the person role) or records.
_SAFE = {
    True: Nn_(
        "Record {row} ({combo}) shares these values with {n} other person, so it is in a "
        "group of at least k = {k} persons.",
        "Record {row} ({combo}) shares these values with {n} other persons, so it is in a "
        "group of at least k = {k} persons.",
    ),
    False: Nn_(
        "Record {row} ({combo}) shares these values with {n} other record, so it is in a "
        "group of at least k = {k}.",
        "Record {row} ({combo}) shares these values with {n} other records, so it is in a "
        "group of at least k = {k}.",
    ),
}
_SHARED_WITH = {
    True: Nn_("only {n} other person has these values", "only {n} other persons have these values"),
    False: Nn_("only {n} other record shares these values", "only {n} other records share these values"),
}
_SHARED_BY = {
    True: Nn_(
        "{column} = {value} is held by only {n} person", "{column} = {value} is held by only {n} persons"
    ),
    False: Nn_(
        "{column} = {value} is shared by only {n} record", "{column} = {value} is shared by only {n} records"
    ),
}
_HELD_BY = {
    True: Nn_("{column} = {value} held by {n} person", "{column} = {value} held by {n} persons"),
    False: Nn_("{column} = {value} in {n} record", "{column} = {value} in {n} records"),
}
_WITHOUT = {
    True: Nn_(
        "Without {column} it would share its values with {n} other person.",
        "Without {column} it would share its values with {n} other persons.",
    ),
    False: Nn_(
        "Without {column} it would share its values with {n} other record.",
        "Without {column} it would share its values with {n} other records.",
    ),
}
_GENERALIZED = {
    True: Nn_(
        "The smallest generalization that hides it ({n} step: {shown}) puts it in a group of {size} persons.",
        "The smallest generalization that hides it ({n} steps: {shown}) puts it in a group of "
        "{size} persons.",
    ),
    False: Nn_(
        "The smallest generalization that hides it ({n} step: {shown}) puts it in a group of {size} records.",
        "The smallest generalization that hides it ({n} steps: {shown}) puts it in a group of {size} "
        "records.",
    ),
}


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
    #: the counts are of distinct persons (the person role), not of records
    persons: bool = False

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
            others = self.class_size - 1
            out = [plural_of(_SAFE[self.persons], others, row=self.row + 1, combo=combo, k=self.k)]
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
            who = (
                _("no other person in the data has these values")
                if self.persons
                else _("no other record in the data shares these values")
            )
        else:
            who = plural_of(_SHARED_WITH[self.persons], others)
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
            parts = formats.join_clauses([self._shared_by(a) for a in rare_alone])
            out.append(_("On its own, {parts}.", parts=parts))
        else:
            rarest = sorted(self.attributes, key=lambda a: a.records_with_value)[:3]
            parts = ", ".join(self._held_by(a) for a in rarest)
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
                out.append(self._without(a))
        return out

    def _shared_by(self, a: AttributeRarity) -> str:
        return plural_of(_SHARED_BY[self.persons], a.records_with_value, column=a.attribute, value=a.value)

    def _held_by(self, a: AttributeRarity) -> str:
        return plural_of(_HELD_BY[self.persons], a.records_with_value, column=a.attribute, value=a.value)

    def _without(self, a: AttributeRarity) -> str:
        return plural_of(_WITHOUT[self.persons], a.class_size_without - 1, column=a.attribute)

    def _generalization_sentence(self) -> str:
        changed = {q: lv for q, lv in (self.levels or {}).items() if lv > 0}
        shown = (
            ", ".join(_("{column} as {value}", column=q, value=self.generalized_values[q]) for q in changed)
            if self.generalized_values
            else ""
        )
        steps = sum(changed.values())
        return plural_of(_GENERALIZED[self.persons], steps, shown=shown, size=self.class_size_generalized)

    def to_dict(self) -> dict[str, Any]:
        return {
            **named_values(self, "row", "k", "class_size", "safe", "values"),
            "attributes": [a.to_dict() for a in self.attributes],
            **named_values(self, "levels", "generalized_values", "class_size_generalized", "height"),
            "counts": "persons" if self.persons else "records",
            "explanation": self.sentences(),
        }


class RecordExplainer:
    """Explains records of one table under one configuration (encodes the table once, for the GUI).
    Under the person role (``config.person``) it counts distinct persons (module docstring)."""

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
        self._pairs = None if config.person is None else _ComboPersons.of(self._row_combo, n, table, config)

    def class_sizes(self) -> np.ndarray:
        """Size of the original class of every record (input order): its distinct persons under the
        person role."""
        per_combo = self._counts if self._pairs is None else self._pairs.per_combo
        return per_combo[self._row_combo]

    def persons_of(self, rows: np.ndarray) -> int:
        """Distinct persons of the records selected by the boolean ``rows`` (input order), under the
        person role (a release's group, say)."""
        assert self._pairs is not None
        return self._pairs.of_rows(rows)

    def _who(self, combos: np.ndarray) -> int:
        """Records (persons, under the person role) of the combinations selected by ``combos``."""
        return int(self._counts[combos].sum()) if self._pairs is None else self._pairs.among(combos)

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
        class_size = self._who((join == 0).all(axis=0))
        rarities = []
        for q in range(e.n_qi):
            others = np.delete(join, q, axis=0)
            without = (others == 0).all(axis=0) if len(others) else np.ones(join.shape[1], dtype=bool)
            rarities.append(
                AttributeRarity(qi[q], values[qi[q]], self._who(join[q] == 0), self._who(without))
            )
        rarities.sort(key=lambda a: (-a.class_size_without, a.records_with_value))
        persons = self._pairs is not None
        basic = Explanation(row, k, class_size, values, tuple(rarities), persons=persons)
        if class_size >= k:
            return basic
        if self._grid_size > MAX_GRID_NODES:
            note = _(
                "The lattice has {grid_size} generalizations, too many to search for the smallest one "
                "that hides this record.",
                grid_size=self._grid_size,
            )
            return dataclasses.replace(basic, notes=(note,))
        found = self._smallest(join, k)
        if isinstance(found, str):
            return dataclasses.replace(basic, notes=(found,))
        lv, size = found
        levels = {q: int(x) for q, x in zip(qi, lv)}
        gen = {q: str(e.hierarchies[i].matrix[e.codes[i, row], int(lv[i])]) for i, q in enumerate(qi)}
        return dataclasses.replace(
            basic, levels=levels, generalized_values=gen, class_size_generalized=size, height=int(lv.sum())
        )

    def _smallest(self, join: np.ndarray, k: int) -> tuple[np.ndarray, int] | str:
        """The lowest node whose class of the record reaches ``k`` (the largest class among the lowest;
        first on ties) and that class's size, or why there is none (a sentence)."""
        grid = self.class_size_grid(join)
        flat = grid.reshape(-1)
        ok = np.flatnonzero(flat >= k)  # by records: under the person role, the candidates
        levels_all = np.stack(np.unravel_index(ok, grid.shape), axis=1)
        heights = levels_all.sum(axis=1)
        if self._pairs is not None:
            return self._smallest_in_persons(join, k, levels_all, heights)
        if not len(ok):
            return _(
                "Even the most general transformation leaves it in a group smaller than {k}; only "
                "suppression can hide it.",
                k=k,
            )
        cands = np.flatnonzero(heights == heights.min())
        pick = cands[np.argmax(flat[ok[cands]])]
        return levels_all[pick], int(flat[ok[pick]])

    def _smallest_in_persons(
        self, join: np.ndarray, k: int, levels_all: np.ndarray, heights: np.ndarray
    ) -> tuple[np.ndarray, int] | str:
        """:meth:`_smallest` counting persons: the candidates (enough records) lowest first, each
        counted from the (combination, person) pairs, up to :data:`MAX_PERSON_NODES` of them."""
        order = np.argsort(heights, kind="stable")
        best: tuple[np.ndarray, int] | None = None
        for seen, i in enumerate(order):
            if best is not None and heights[i] > best[0].sum():
                break
            if seen >= MAX_PERSON_NODES:
                return _(
                    "Too many generalizations hold enough records to count the persons of each; the "
                    "smallest one that hides this record was not searched."
                )
            size = self._who((join <= levels_all[i][:, None]).all(axis=0))
            if size >= k and (best is None or size > best[1]):
                best = (levels_all[i], size)
        if best is None:
            return _(
                "Even the most general transformation leaves it in a group of fewer than {k} persons; only "
                "suppression can hide it.",
                k=k,
            )
        return best

    def class_size_grid(self, join: np.ndarray) -> np.ndarray:
        """The record's class size in records at every lattice node, as an array shaped by the levels."""
        grid = np.zeros(tuple(int(r) for r in self._radix), dtype=np.int64)
        inside = (join < self._radix[:, None]).all(axis=0)
        np.add.at(grid, tuple(join[:, inside]), self._counts[inside])
        for axis in range(grid.ndim):
            np.cumsum(grid, axis=axis, out=grid)
        return grid


@dataclass(frozen=True)
class _ComboPersons:
    """The distinct (combination, person) pairs of a table's records, for counting persons: a blank
    person cell, when the user chose so, is one person per record (its pair weighs its records)."""

    combo: np.ndarray
    person: np.ndarray
    weight: np.ndarray  # 1, or the records of a blank cell's pair
    per_combo: np.ndarray  # distinct persons per combination
    blank: int  # the code of a blank cell
    row_person: np.ndarray  # the person of every record

    @classmethod
    def of(cls, row_combo: np.ndarray, n: int, table: Table, config: AnonymizationConfig) -> _ComboPersons:
        assert config.person is not None
        person, blank = person_codes(table.frame[config.person], config.person_blanks)
        ids, n_ids = group_columns([row_combo, person], [n, blank + 1])
        rep = representatives(ids, n_ids)
        records = np.bincount(ids, minlength=n_ids)
        combo, who = row_combo[rep], person[rep]
        weight = np.where(who == blank, records, 1).astype(np.int64)
        per_combo = np.bincount(combo, weights=weight, minlength=n).astype(np.int64)
        return cls(combo, who, weight, per_combo, blank, person)

    def among(self, combos: np.ndarray) -> int:
        """Distinct persons of the records of the selected combinations."""
        sel = combos[self.combo]
        blank = self.person == self.blank
        named = sel & ~blank
        return int(len(np.unique(self.person[named]))) + int(self.weight[sel & blank].sum())

    def of_rows(self, rows: np.ndarray) -> int:
        """Distinct persons of the selected records (a blank cell's record is a person of its own)."""
        who = self.row_person[rows]
        blank = who == self.blank
        return int(len(np.unique(who[~blank]))) + int(blank.sum())


def _text(v: Any) -> str:
    return "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)


def explain_record(table: Table, config: AnonymizationConfig, row: int, k: int | None = None) -> Explanation:
    """Explain one record (encodes the table; use :class:`RecordExplainer` for many records)."""
    return RecordExplainer(table, config).explain(row, k)
