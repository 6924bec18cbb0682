"""Linked tables: a stay table and a patient table joined on the patient key into one stay-level table.

Hospital extracts often come as two files: the patients (one row each: birth date, sex, postcode) and
their stays (one row per admission: dates, ward, diagnosis), linked by a patient number. kanon joins them
into one table with a row per stay, the patient's columns beside each stay's, and sets the patient
number as the person column (:mod:`kanon_engine.data.persons`), so k counts patients. The release keeps
the stay layout: one row per stay, in the stay table's order, the stay table's columns first.

What the join says, never hides:

- a key of the stay table that the patient table lacks: those stays get empty patient columns (the
  count of such keys is said);
- a patient without any stay: not in the release (said);
- a patient number twice in the patient table, or a column other than the key in both tables: refused
  in one sentence (a patient table has one row per patient; a column cannot come from two files).

The CLI spells it ``--join FILE ON COLUMN`` (three words, the middle one ``ON``); a project keeps it in
``data.join``. ``--join COLUMN=LIST_COLUMN`` (one word with ``=``) stays the linkage demonstration's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.data.io import read_table
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.i18n import _, ngettext


@dataclass(frozen=True)
class JoinSpec:
    """A patient table to join (``path``, read with its own detected options) on the column ``on``,
    which both tables have."""

    path: Path
    on: str

    def to_dict(self, rel: Any = str) -> dict[str, Any]:
        return {"path": rel(self.path), "on": self.on}

    @classmethod
    def from_dict(cls, d: Any, base_dir: Path | None, source: str) -> JoinSpec:
        if not isinstance(d, dict) or not d.get("path") or not d.get("on"):
            raise ConfigError(
                _("{source}: a joined table needs 'path' and 'on'.", source=source), where="data.join"
            )
        path = Path(d["path"])
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        return cls(path, str(d["on"]))


def join_tables(stays: Table, patients: Table, on: str) -> tuple[Table, list[str]]:
    """The stay-level table of ``stays`` with the columns of ``patients`` joined on ``on``, and the
    warnings about keys present in one table only (see the module docstring)."""
    stays.require_columns([on], _("key column"))
    patients.require_columns([on], _("key column"))
    both = [c for c in patients.columns if c != on and c in stays.columns]
    if both:
        raise DataError(
            _(
                "The column '{column}' is in both {stays} and {patients}; only the key '{on}' may be in "
                "both.",
                column=both[0],
                stays=stays.name(),
                patients=patients.name(),
                on=on,
            ),
            hint=_("Rename or remove it in one of the files."),
            where=both[0],
        )
    keys = patients.frame[on]
    twice = keys[keys.duplicated() & keys.notna()]
    if len(twice):
        raise DataError(
            _(
                "The patient table {patients} repeats a key of '{on}' (row {row}); a patient table has one "
                "row per patient.",
                patients=patients.name(),
                row=int(np.flatnonzero(keys.duplicated().to_numpy() & keys.notna().to_numpy())[0]) + 1,
                on=on,
            ),
            hint=_("Keep one row per patient in {patients}.", patients=patients.name()),
            where=on,
        )
    index = pd.Index(keys.astype(object))
    pos = index.get_indexer(stays.frame[on].astype(object))
    frame = stays.frame.reset_index(drop=True).copy()
    extra = [c for c in patients.columns if c != on]
    for c in extra:
        values = patients.frame[c].astype(object).to_numpy()
        frame[c] = pd.Series(np.where(pos >= 0, values[np.maximum(pos, 0)], None), dtype=object)
    warnings = _key_warnings(stays, patients, on, pos)
    types = {**{c: t for c, t in patients.column_types.items() if c in extra}, **stays.column_types}
    return replace(stays, frame=frame, column_types=types), warnings


def _key_warnings(stays: Table, patients: Table, on: str, pos: np.ndarray) -> list[str]:
    """What the join says about keys present in one table only."""
    out = []
    orphans = stays.frame[on][pos < 0]
    if len(orphans):
        n = int(orphans.nunique(dropna=False))
        out.append(
            ngettext(
                "{n} key of '{on}' in {stays} is not in {patients} ({rows} stays): their patient columns are "
                "empty.",
                "{n} keys of '{on}' in {stays} are not in {patients} ({rows} stays): their patient columns "
                "are empty.",
                n,
                on=on,
                stays=stays.name(),
                patients=patients.name(),
                rows=len(orphans),
            )
        )
    used = np.zeros(patients.n_rows, dtype=bool)
    used[pos[pos >= 0]] = True
    if not used.all():
        n = int((~used).sum())
        out.append(
            ngettext(
                "{n} patient of {patients} has no stay in {stays}: not in the release.",
                "{n} patients of {patients} have no stay in {stays}: not in the release.",
                n,
                patients=patients.name(),
                stays=stays.name(),
            )
        )
    return out


def join_files(stays: Table, specs: tuple[JoinSpec, ...] | list[JoinSpec]) -> tuple[Table, list[str]]:
    """``stays`` joined with every patient table of ``specs`` in turn (each read with detected options)."""
    warnings: list[str] = []
    for spec in specs:
        table, said = join_tables(stays, read_table(spec.path), spec.on)
        stays = table
        warnings += said
    return stays, warnings
