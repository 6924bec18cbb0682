"""The people of a population counted per equivalence class, for the models that compare a table with the
population it was drawn from (k-map on a population table, delta-presence, journalist profitability).

The population is held as *points*: its distinct combinations of quasi-identifier leaf codes (encoded with
the run's hierarchies, so a population value the hierarchy does not know is refused by name) with the
people of each. At a lattice node, the points and the node's classes are generalized with the same lookup
arrays (:class:`~kanon_engine.core.frequency.CompositeLayout`) and grouped together once: a class's
population count is the people of the points that fall into it, and the people falling outside every
class (combinations that no record of the table has) are counted too (delta-presence needs them: an
attacker learns that such people are not in the release). One grouping over classes plus points per node;
no loop per class or per person (ARX keeps the same two counts per class, ``count`` and ``pcount``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from kanon_engine.core.encoding import EncodedTable
from kanon_engine.core.frequency import CompositeLayout, FrequencySet, group_columns, representatives
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _


@dataclass(frozen=True, eq=False)
class PopulationPoints:
    """A population as distinct combinations of quasi-identifier leaf codes (``codes``, one row per
    quasi-identifier, in the run's order) and the people holding each (``people``); ``name`` says what
    it is (a file, or the whole table) in messages."""

    codes: np.ndarray  # (n_qi, m) leaf codes
    people: np.ndarray  # (m,) int64
    name: str

    @property
    def size(self) -> int:
        return int(self.people.sum())

    @classmethod
    def of(cls, codes: np.ndarray, people: np.ndarray, sizes: list[int], name: str) -> PopulationPoints:
        """The points of rows of leaf codes (``codes``: n_qi x rows; ``people`` per row), equal rows
        merged."""
        if codes.shape[1] == 0:
            return cls(codes.astype(np.int32), np.zeros(0, dtype=np.int64), name)
        ids, n = group_columns([c.astype(np.int64) for c in codes], sizes)
        rep = representatives(ids, n)
        counts = np.bincount(ids, weights=people, minlength=n).astype(np.int64)
        return cls(codes[:, rep].astype(np.int32), counts, name)


class PopulationCounter:
    """Counts a population's people per class of any node of one encoded table."""

    def __init__(self, layout: CompositeLayout, points: PopulationPoints, requirement: object) -> None:
        self.layout = layout
        self.crep = layout.compose(points.codes)
        self.people = points.people
        self.total = int(points.people.sum())
        self.requirement = requirement

    def count(self, fs: FrequencySet) -> tuple[np.ndarray, int]:
        """People of the population in each class of ``fs``, and outside every class."""
        layout, nc = self.layout, fs.n_classes
        maps = [layout.generalize(g, fs.levels) for g in range(len(layout.groups))]
        cols = [m[np.concatenate([fs.crep[g], self.crep[g]])] for g, (m, _size) in enumerate(maps)]
        ids, n = group_columns(cols, [size for _m, size in maps])
        per_id = np.bincount(ids[nc:], weights=self.people, minlength=n).astype(np.int64)
        held = np.zeros(n, dtype=bool)
        held[ids[:nc]] = True
        return per_id[ids[:nc]], int(per_id[~held].sum())

    def fill(self, stats: object, fs: FrequencySet) -> None:
        """Put the counts of ``fs``'s classes into a :class:`~kanon_engine.privacy.base.ClassStats`."""
        per_class, outside = self.count(fs)
        stats.counts[self.requirement] = per_class  # type: ignore[attr-defined]
        stats.outside[self.requirement] = outside  # type: ignore[attr-defined]


def population_counter(
    enc: EncodedTable, layout: CompositeLayout, models: Iterable[object], requirement: object
) -> PopulationCounter | None:
    """The counter of the run's population when a model requires it (``requirement``: the privacy
    models' ``Requirement.POPULATION``; None when no model does); a ConfigError when a model needs one and
    the run has none (the run's inputs attach it: :mod:`kanon_engine.algorithms.population_source`)."""
    needing = [m for m in models if requirement in getattr(m, "requires", ())]
    if not needing:
        return None
    if enc.population is None:
        raise ConfigError(
            _(
                "{model} needs the population the data were drawn from, and none was given.",
                model=_(getattr(needing[0], "title", "")) or getattr(needing[0], "name", ""),
            ),
            hint=_("Give a population table (--population-table) or a research subset (--research-subset)."),
            where="population",
        )
    return PopulationCounter(layout, enc.population, requirement)
