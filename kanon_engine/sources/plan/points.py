"""Count a source into *points*: the distinct combinations of quasi-identifier leaves and sensitive values,
each with its number of records. Engine-independent: the source only encodes and counts.

The points are an :class:`~kanon_engine.core.encoding.EncodedTable` whose rows carry weights, so every
algorithm, privacy model and metric runs on them as on the records (a weighted row stands for its
records), and every engine hands the algorithms the same arrays (sorted lexicographically by their
codes). On Adult 30,162 records are 29,000 points with the sensitive attribute, 12,458 without; a table
replicated 30 times has the same points with 30 times the counts.

Value -> code tables (:class:`~kanon_engine.sources.backends.base.ColumnCoding`) are built from each column's
value counts before any row is encoded, so a value a hierarchy does not cover is reported at once, with
the same message as for a loaded table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.arrays import positions
from kanon_engine.core.encoding import EncodedTable, SensitiveColumn, require_covered, sensitive_order
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy.model import MISSING, Hierarchy
from kanon_engine.hierarchy.validate import require_valid
from kanon_engine.i18n import N_, _
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.sources.backends.base import ColumnCoding, CountRequest, PointCounts, TableSource
from kanon_engine.sources.plan.combination_keys import CombinationKeys
from kanon_engine.sources.plan.person_points import person_coding


def leaf_coding(source: TableSource, name: str, hierarchy: Hierarchy) -> ColumnCoding:
    """Value -> leaf index of a quasi-identifier (or a sensitive attribute with a hierarchy); a
    HierarchyError naming the values the hierarchy lacks."""
    values, _counts, missing = source.value_counts(name)
    found = positions(hierarchy.values, [*values, MISSING])
    leaf, missing_leaf = found[:-1], int(found[-1])
    uncovered = list(values[leaf < 0])
    if missing and missing_leaf < 0:
        uncovered.append(MISSING)
    require_covered(hierarchy, np.asarray(uncovered, dtype=object))
    return ColumnCoding(name, tuple(values), leaf.astype(np.int32), missing_leaf, len(hierarchy.values))


def sensitive_coding(source: TableSource, name: str) -> tuple[ColumnCoding, tuple[str, ...], bool]:
    """Value -> code of a sensitive attribute without hierarchy (numeric order when all are numbers), the
    values by code, and whether they are numeric."""
    values, _counts, missing = source.value_counts(name)
    uniques = np.asarray(sorted(set(values) | ({MISSING} if missing else set())), dtype=object)
    ordered, rank, numeric = sensitive_order(uniques)
    found = positions(uniques, [*values, MISSING])
    codes = rank[found[:-1]] if len(values) else np.zeros(0, dtype=np.int64)
    miss = int(rank[found[-1]]) if missing else -1
    coding = ColumnCoding(name, tuple(values), codes.astype(np.int32), miss, max(len(uniques), 1))
    return coding, ordered, numeric


@dataclass(eq=False)
class Counted:
    """The points of a run: the weighted encoded table the algorithms see, and how rows map to points.

    ``codings`` encode a row's quasi-identifiers then sensitive attributes; ``floor`` is the level of
    every quasi-identifier the points were counted at (all 0: points hold leaves). A row's point is found
    by its key (:meth:`point_of`), the key ``coder`` gives its codes at the floor
    (:class:`~kanon_engine.sources.plan.combination_keys.CombinationKeys`), among the sorted keys of the
    points.
    """

    enc: EncodedTable
    codings: tuple[ColumnCoding, ...]
    floor: tuple[int, ...]
    keys: np.ndarray  # (n_points,) sorted key of every point
    coder: CombinationKeys
    rows: np.ndarray | None = None  # the point of every input row, when the engine gave it (in memory)
    #: False for a stand-in that holds no points (Mondrian cut by the engine keeps each box's points
    #: only while it runs): nothing about the original data may be read from it
    holds_points: bool = True

    def floor_codes(self, codes: np.ndarray) -> np.ndarray:
        """Row codes (leaves, sensitive codes) mapped to the floor's levels."""
        if not any(self.floor):
            return codes
        out = codes.copy()
        for q, lv in enumerate(self.floor):
            if lv:
                out[q] = self.enc.level_maps[q][lv][codes[q]]
        return out

    def point_of(self, codes: np.ndarray) -> np.ndarray:
        """The point of every row given its codes (n_columns, m); every row has one."""
        key = self.coder.keys(self.floor_codes(codes))
        pos = np.searchsorted(self.keys, key)
        pos = np.minimum(pos, len(self.keys) - 1)
        if not np.array_equal(self.keys[pos], key):
            raise ConfigError(
                _("The table changed while it was being anonymized (a row matches no counted group)."),
                hint=_("Run the anonymization again."),
            )
        return pos


def _check_config(config: AnonymizationConfig) -> None:
    if not config.quasi_identifiers:
        raise ConfigError(
            _("No quasi-identifier was chosen."),
            hint=_(
                "Mark at least one column an outsider could know (age, sex, postcode) as quasi-identifier."
            ),
        )
    for q in config.quasi_identifiers:
        if q not in config.hierarchies:
            raise ConfigError(_("The quasi-identifier '{column}' has no hierarchy.", column=q), where=q)
        require_valid(config.hierarchies[q])


#: Most points a run holds in memory (about 60 bytes each in a search, plus roll-ups; more than a
#: 10-million-row table can have): past it the points are counted at coarser levels
#: (:func:`choose_floor`) and finer nodes are checked by the engine.
POINT_BUDGET = 12_000_000


@dataclass(frozen=True, eq=False)
class PointSpec:
    """What the points of a run are made of: the codings (quasi-identifiers, then sensitive attributes),
    the hierarchies, and the values, order and hierarchy of every sensitive attribute."""

    qi: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...]
    codings: tuple[ColumnCoding, ...]
    sensitive: tuple[tuple[str, tuple[str, ...], bool, Hierarchy | None], ...]
    leaf_counts: tuple[np.ndarray, ...]
    #: under the person role the last coding is the person's (:mod:`.person_points`), and how many
    #: distinct released rows of one person an attacker may know
    persons: int | None = None
    person_knows: int = 1

    def request(self, levels: tuple[int, ...], sensitive: bool = True) -> CountRequest:
        """Count the quasi-identifiers at ``levels`` (hierarchy levels) and (unless told not to) the
        sensitive values."""
        maps: list[np.ndarray | None] = []
        sizes: list[int] = []
        for h, lv, c in zip(self.hierarchies, levels, self.codings):
            codes, labels = h.level_codes[lv]
            maps.append(None if lv == 0 else codes)
            sizes.append(c.size if lv == 0 else len(labels))
        if not sensitive:
            return CountRequest(self.codings[: len(self.qi)], tuple(maps), tuple(sizes))
        rest = self.codings[len(self.qi) :]
        return CountRequest(self.codings, (*maps, *(None,) * len(rest)), (*sizes, *(c.size for c in rest)))


def point_spec(
    source: TableSource,
    config: AnonymizationConfig,
    progress: ProgressCallback,
    extra: tuple[str, ...] = (),
) -> PointSpec:
    """Value counts of the run's columns (one pass) and the codings built from them; ``extra`` columns
    are counted like the protected sensitive attributes."""
    _check_config(config)
    qi = tuple(config.quasi_identifiers)
    source.require_columns(qi, N_("quasi-identifier"))
    source.require_columns(tuple(config.sensitive), N_("sensitive attribute"))
    # only the sensitive attributes a privacy model looks at are counted: the others would only multiply
    # the points (a diagnosis makes nearly every combination of quasi-identifiers several points)
    protected = {m.sensitive for m in config.models if m.sensitive}
    sens = tuple(s for s in config.sensitive if s in protected)
    source.require_columns(tuple(extra), N_("target of the study"))
    sens += tuple(c for c in dict.fromkeys(extra) if c not in sens and c not in qi)
    progress(0.0, _("counting the values of every column"))
    source.prefetch_value_counts([*qi, *sens])
    hs = tuple(config.hierarchies[q] for q in qi)
    codings = [leaf_coding(source, q, h) for q, h in zip(qi, hs)]
    sens_h = config.sensitive_hierarchies or {}
    meta: list[tuple[str, tuple[str, ...], bool, Hierarchy | None]] = []
    for s in sens:
        h = sens_h.get(s)
        if h is not None:
            codings.append(leaf_coding(source, s, h))
            meta.append((s, h.values, False, h))
        else:
            coding, values, numeric = sensitive_coding(source, s)
            codings.append(coding)
            meta.append((s, values, numeric, None))
    leaf_counts = tuple(_leaf_counts(source, c) for c in codings[: len(qi)])
    person = person_coding(source, config)  # the person role: one more coded column, counted last
    if person is None:
        return PointSpec(qi, hs, tuple(codings), tuple(meta), leaf_counts)
    codings.append(person)
    return PointSpec(qi, hs, tuple(codings), tuple(meta), leaf_counts, person.size - 1, config.person_knows)


def points_at(
    source: TableSource, spec: PointSpec, levels: tuple[int, ...], progress: ProgressCallback = no_progress
) -> Counted:
    """The points counted at ``levels``: each stands for its group with the group's first leaf."""
    request = spec.request(levels)
    return counted_from(spec, levels, source.count(request, progress))


def counted_from(spec: PointSpec, levels: tuple[int, ...], counts: PointCounts) -> Counted:
    """The points of ``counts`` (counted by ``spec.request(levels)``) as the weighted encoded table the
    algorithms see."""
    n_qi = len(spec.qi)
    leaves = np.empty((n_qi, counts.n_points), dtype=np.int32)
    for q, (h, lv) in enumerate(zip(spec.hierarchies, levels)):
        leaves[q] = counts.codes[q] if lv == 0 else first_leaf(h, lv)[counts.codes[q]]
    weights = counts.counts
    sensitive = tuple(
        SensitiveColumn(name, counts.codes[n_qi + i], values, numeric, h, weights)
        for i, (name, values, numeric, h) in enumerate(spec.sensitive)
    )
    enc = EncodedTable(spec.qi, spec.hierarchies, leaves, sensitive, weights, spec.leaf_counts)
    if spec.persons is not None:  # the person of every point (its last code)
        persons = counts.codes[n_qi + len(spec.sensitive)].astype(np.int64)
        enc = replace(enc, persons=persons, n_persons=spec.persons, person_knows=spec.person_knows)
    coder, keys = CombinationKeys.of(counts.codes, spec.request(levels).sizes)
    return Counted(enc, spec.codings, tuple(levels), keys, coder, counts.rows)


def first_leaf(hierarchy: Hierarchy, level: int) -> np.ndarray:
    """The first leaf of every label of a level (it generalizes as the whole group does: a tree)."""
    codes, labels = hierarchy.level_codes[level]
    out = np.full(len(labels), -1, dtype=np.int32)
    leaf = np.arange(len(codes), dtype=np.int32)
    out[codes[::-1]] = leaf[::-1]
    return out


def distinct_per_level(spec: PointSpec) -> list[np.ndarray]:
    """Number of distinct values present in the data for every QI at every level."""
    out = []
    for h, counts in zip(spec.hierarchies, spec.leaf_counts):
        present = counts > 0
        out.append(np.array([len(np.unique(h.level_codes[j][0][present])) for j in range(h.depth)]))
    return out


def floor_path(spec: PointSpec) -> list[tuple[int, ...]]:
    """Candidate floors from the leaves up: each raises the attribute with the most distinct values at
    its level (Datafly's choice, Sweeney 2002), which merges the most combinations; known from the value
    counts alone."""
    levels = [0] * len(spec.qi)
    distinct = distinct_per_level(spec)
    path = [tuple(levels)]
    while True:
        open_qi = [q for q in range(len(levels)) if levels[q] < spec.hierarchies[q].height]
        if not open_qi:
            return path
        q = max(open_qi, key=lambda a: (distinct[a][levels[a]], -a))
        levels[q] += 1
        path.append(tuple(levels))


def choose_floor(
    source: TableSource, spec: PointSpec, budget: int, progress: ProgressCallback = no_progress
) -> tuple[int, ...]:
    """The levels to count the points at: the leaves when their distinct combinations fit ``budget``;
    otherwise the first candidate of :func:`floor_path` whose combinations fit, counted exactly (the
    next one tried if it does not fit after all).

    An engine whose exact counts each read every row (``costly_counts``: DuckDB) starts from the
    candidate the value counts predict to fit (:func:`expected_combinations`), so one pass usually
    decides, and the engine keeps that pass's groups for counting the points. Otherwise the leaves are
    counted exactly and the other candidates estimated by the engine (exact in memory)."""
    path = floor_path(spec)
    requests = [spec.request(levels) for levels in path]
    if getattr(source, "costly_counts", False):
        estimates = [expected_combinations(spec, levels) for levels in path]
    else:
        n = source.distinct_count(requests[0], progress)
        if n <= budget:
            return path[0]
        estimates = [n, *source.estimate_distinct(requests[1:], progress)]
    for levels, request, estimate in zip(path, requests, estimates):
        if estimate > budget:
            continue
        n = source.distinct_count(request, progress)
        progress(
            0.04,
            _(
                "{n} groups at levels {levels} (at most {budget} are held in memory)",
                n=n,
                levels=str(levels),
                budget=budget,
            ),
        )
        if n <= budget:
            return levels
    return path[-1]


def expected_combinations(spec: PointSpec, levels: tuple[int, ...]) -> float:
    """The distinct combinations ``n`` records would have at ``levels`` if the attributes were
    independent and uniform over the values present: ``S (1 - exp(-n / S))`` for ``S`` combinations
    possible (the expected number of occupied cells, Feller's occupancy problem). Skew and correlation
    make the true number smaller, so a candidate predicted to fit nearly always does."""
    n = float(spec.leaf_counts[0].sum()) if spec.leaf_counts else 0.0
    space = 1.0
    for distinct, lv in zip(distinct_per_level(spec), levels):
        space *= max(int(distinct[lv]), 1)
    for coding in spec.codings[len(spec.qi) :]:
        space *= max(coding.size, 1)
    return float(space * -np.expm1(-n / space)) if space > 0 else 0.0


def _leaf_counts(source: TableSource, coding: ColumnCoding) -> np.ndarray:
    """Records per code of a coded column, from its value counts."""
    _values, counts, missing = source.value_counts(coding.name)
    out = np.bincount(coding.codes, weights=counts, minlength=coding.size).astype(np.int64)
    if missing and coding.missing >= 0:
        out[coding.missing] += missing
    return out
