"""Re-identification risk and attribute-disclosure (homogeneity) measures of a table, before and after.

Identity disclosure (who is this record?) is measured under the three attacker models of El Emam &
Dankar 2008 ("Protecting Privacy Using k-Anonymity", JAMIA 15(5)) and Dankar & El Emam 2010 ("A method
for evaluating marketer re-identification risk", EDBT/ICDT workshops):

- *prosecutor*: the attacker knows their target is in the released file. A record in an equivalence
  class of ``f`` records (records sharing its quasi-identifier values) is re-identified with
  probability ``1/f``;
- *journalist*: the attacker does not know whether the target is in the file and matches against a
  population register; a class that ``F`` people of the population match is re-identified with
  probability ``1/F``. **Without a population table the population is the table itself** (``F = f``),
  so journalist risk equals prosecutor risk: say so in the report;
- *marketer*: the attacker re-identifies as many records as possible and counts the expected share of
  correct matches: ``(1/n) sum_j f_j / F_j``, which is ``classes / n`` when the population is the table.

Attribute disclosure (what does the attacker learn?) is the *homogeneity attack* of Machanavajjhala et
al. 2007 ("l-Diversity: Privacy Beyond k-Anonymity", ACM TKDD): a class whose sensitive attribute has a
single value reveals it to anyone who can place a person in the class. For each class we report the l it
reaches (distinct values; entropy l = exp(entropy)) and its t (Earth Mover's Distance to the whole
table's distribution, Li, Li & Venkatasubramanian 2007: equal distance, and ordered distance for numbers).

Released tables mark suppressed records with ``*`` in every quasi-identifier. Such a row (whatever put
its ``*`` there: a suppressed record, or one generalized to the top of every hierarchy, which a reader
cannot tell apart) belongs to no group, here as in every figure kanon states about a release (one
definition: :mod:`kanon_engine.report.facts`); ``suppressed`` says how many there are. (The k check of
:mod:`kanon_engine.core.table_check` still requires those rows to be 0 or at least k, Sweeney's Datafly
step 4.) In releases that keep every record and suppress single cells (cell-level models) a single ``*``
is a value of its own (``star_is_value``, the reading their k was checked in), and the figures say so.
Everything is computed on class ids with numpy (no loop per record).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from kanon_engine.core.encoding import encode_sensitive
from kanon_engine.core.frequency import group_columns, representatives
from kanon_engine.core.table_check import release_classes
from kanon_engine.data.records import named_values
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy.model import ROOT, Hierarchy
from kanon_engine.i18n import N_, _, ngettext
from kanon_engine.metrics.linkage import count_matches
from kanon_engine.privacy.population_estimates import PopulationUniques, population_uniques
from kanon_engine.privacy.population_inputs import require_population_size

#: Default threshold for "records at risk": more than a 1 in 5 chance of re-identification (the k = 5 line).
DEFAULT_THRESHOLD = 0.2


def definitions() -> dict[str, str]:
    """Plain-language definitions of every figure, keyed like :meth:`RiskFigures.to_dict` (for reports),
    in the current language."""
    return {key: _(text) for key, text in _DEFINITIONS.items()}


#: The definitions (catalog ids; :func:`definitions` translates them).
_DEFINITIONS = {
    "equivalence_class": (
        N_(
            "Group (equivalence class): records that share the same values of every quasi-identifier; "
            "an outsider who knows those values cannot tell them apart."
        )
    ),
    "prosecutor_highest": (
        N_(
            "Prosecutor risk, highest: the attacker knows their target is in the file. A record in a "
            "group of f records is re-identified with probability 1/f; this is the largest such "
            "probability (1/smallest group)."
        )
    ),
    "prosecutor_average": (
        N_(
            "Prosecutor risk, average: the mean of 1/f over all released records, which equals the "
            "number of groups divided by the number of records."
        )
    ),
    "records_above_threshold": (
        N_(
            "Records at risk: released records whose prosecutor risk 1/f is above the threshold (for "
            "example 0.2, a 1 in 5 chance)."
        )
    ),
    "journalist_highest": (
        N_(
            "Journalist risk, highest: the attacker does not know whether the target is in the file "
            "and matches against a population register; a group matched by F people of the population "
            "is re-identified with probability 1/F. Without a population table the population is "
            "taken to be this table (F = f), so it equals the prosecutor risk."
        )
    ),
    "marketer": (
        N_(
            "Marketer risk: the expected share of records an attacker who links every record to the "
            "population register re-identifies correctly, (1/n) x sum of f/F over the groups; equal "
            "to groups / records when the population is this table."
        )
    ),
    "sample_uniques": (
        N_(
            "Sample uniques: records that are alone in their group (f = 1), identifiable by their "
            "quasi-identifier values alone."
        )
    ),
    "suppressed": (
        N_(
            "Suppressed records: records whose quasi-identifiers were all removed (shown as *); they "
            "belong to no group and are not counted in the figures above."
        )
    ),
    "star_counted_as_value": (
        N_(
            "In a release that keeps every record and suppresses single values (local suppression, local "
            "recoding, cell suppression), * counts as a value of its own: a record showing * is grouped "
            "only with records showing * in the same place and the same other values (the strict "
            "reading, in which k was checked). Records whose values are all * are suppressed and belong "
            "to no group. Reading * as matching any value (sdcMicro's reading) can only make groups larger."
        )
    ),
    "homogeneous_classes": (
        N_(
            "Homogeneous groups: groups whose sensitive attribute has one single value. Anyone who "
            "can place a person in such a group learns that value (the homogeneity attack), however "
            "large the group is."
        )
    ),
    "distinct_l": (
        N_(
            "Distinct l reached: the fewest different sensitive values found in any group (distinct "
            "l-diversity)."
        )
    ),
    "entropy_l": (
        N_(
            "Entropy l reached: the smallest exp(entropy) of the sensitive values in any group; a "
            "group with l equally frequent values has entropy l = l (entropy l-diversity)."
        )
    ),
    "t_equal": (
        N_(
            "t reached (equal distance): the largest Earth Mover's Distance between the distribution "
            "of the sensitive values in a group and in the whole table, counting every pair of "
            "different values as distance 1 (half the sum of the absolute differences; t-closeness)."
        )
    ),
    "t_ordered": (
        N_(
            "t reached (ordered distance): the same for a numeric attribute, where moving between the "
            "i-th and j-th smallest values costs |i - j| / (m - 1)."
        )
    ),
}


@dataclass(frozen=True)
class RiskFigures:
    """Identity-disclosure figures of one table (see :func:`definitions`)."""

    records: int  # released records assessed (suppressed ones excluded)
    suppressed: int
    classes: int
    smallest_class: int
    prosecutor_highest: float
    prosecutor_average: float
    threshold: float
    records_above_threshold: int
    journalist_highest: float
    journalist_records_above_threshold: int
    marketer: float
    sample_uniques: int
    population: str  # "the table itself" or a description of the population table

    @property
    def share_above_threshold(self) -> float:
        return self.records_above_threshold / self.records if self.records else 0.0

    @property
    def share_sample_uniques(self) -> float:
        return self.sample_uniques / self.records if self.records else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Every figure under its own name, the two shares after the counts they divide."""
        return named_values(
            self,
            "records",
            "suppressed",
            "classes",
            "smallest_class",
            "prosecutor_highest",
            "prosecutor_average",
            "threshold",
            "records_above_threshold",
            "share_above_threshold",
            "journalist_highest",
            "journalist_records_above_threshold",
            "marketer",
            "sample_uniques",
            "share_sample_uniques",
            "population",
        )


@dataclass(frozen=True, eq=False)
class SensitiveProfile:
    """Homogeneity of one sensitive attribute: per class, the l and t it reaches, and the classes that
    reveal their value (one value only). Arrays are indexed by class id."""

    attribute: str
    numeric: bool
    distinct_l: np.ndarray  # int per class
    entropy_l: np.ndarray  # float per class
    t_equal: np.ndarray
    t_ordered: np.ndarray | None
    homogeneous: np.ndarray  # class ids with a single value
    homogeneous_records: int
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def homogeneous_classes(self) -> int:
        return int(len(self.homogeneous))

    def to_dict(self) -> dict[str, Any]:
        def reached(a: np.ndarray | None, fn: Any) -> float | None:
            return None if a is None or not len(a) else float(fn(a))

        return {
            "attribute": self.attribute,
            "numeric": self.numeric,
            "homogeneous_classes": self.homogeneous_classes,
            "homogeneous_records": self.homogeneous_records,
            "distinct_l": reached(self.distinct_l, np.min),
            "entropy_l": reached(self.entropy_l, np.min),
            "t_equal": reached(self.t_equal, np.max),
            "t_ordered": reached(self.t_ordered, np.max),
            "examples": self.examples,
        }


@dataclass(frozen=True, eq=False)
class RiskAssessment:
    """Risk of one table: figures, per-record prosecutor risk, classes and homogeneity findings."""

    qi: tuple[str, ...]
    figures: RiskFigures
    row_class: np.ndarray  # class of every row of the table assessed (the all-* rows share one)
    class_sizes: np.ndarray
    population_sizes: np.ndarray  # F per class (== class_sizes without a population table)
    homogeneity: tuple[SensitiveProfile, ...] = ()
    #: records the population table lacks (their class matches fewer of its rows than it holds)
    population_missing: int = 0
    #: True for cell-level releases: '*' is a value of its own, all-'*' rows a class of kept records
    star_is_value: bool = False
    #: estimated shares of population uniques (:func:`with_population_uniques`), None when no population
    #: size was given
    population_uniques: PopulationUniques | None = None

    @property
    def record_risk(self) -> np.ndarray:
        """Prosecutor risk 1/f of every row (NaN for suppressed rows)."""
        out = np.full(len(self.row_class), np.nan)
        kept = self.row_class >= 0
        out[kept] = 1.0 / self.class_sizes[self.row_class[kept]]
        return out

    def risk_distribution(
        self, bins: Sequence[float] = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.34, 0.5, 1.0)
    ) -> list[dict[str, Any]]:
        """Records per prosecutor-risk band ``(low, high]`` (the first band includes its low end)."""
        risk = 1.0 / self.class_sizes
        edges = np.asarray(bins, dtype=float)
        idx = np.clip(np.searchsorted(edges, risk, side="left") - 1, 0, len(edges) - 2)
        counts = np.bincount(idx, weights=self.class_sizes, minlength=len(edges) - 1).astype(np.int64)
        return [
            {"low": float(edges[i]), "high": float(edges[i + 1]), "records": int(counts[i])}
            for i in range(len(edges) - 1)
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "quasi_identifiers": list(self.qi),
            **self.figures.to_dict(),
            "risk_distribution": self.risk_distribution(),
            "homogeneity": [h.to_dict() for h in self.homogeneity],
            "star_counted_as_value": self.star_is_value,
        } | ({"population_uniques": self.population_uniques.to_dict()} if self.population_uniques else {})


#: The population when no population table is given (kept in English in the figures, shown through _()).
POPULATION_IS_TABLE = N_("the table itself")


def risk_figures(
    class_sizes: np.ndarray,
    suppressed: int = 0,
    threshold: float = DEFAULT_THRESHOLD,
    population_sizes: np.ndarray | None = None,
    population: str = POPULATION_IS_TABLE,
) -> RiskFigures:
    """Prosecutor, journalist and marketer figures from the sizes ``f`` (and population sizes ``F``)."""
    if not 0.0 <= threshold <= 1.0:
        raise ConfigError(
            _(
                "The risk threshold must be a probability between 0 and 1; got {threshold}.",
                threshold=threshold,
            ),
            where="threshold",
        )
    f = np.asarray(class_sizes, dtype=np.int64)
    F = f if population_sizes is None else np.maximum(np.asarray(population_sizes, dtype=np.int64), f)
    n = int(f.sum())
    if n == 0:
        return RiskFigures(0, int(suppressed), 0, 0, 0.0, 0.0, threshold, 0, 0.0, 0, 0.0, 0, population)
    prosecutor = 1.0 / f
    journalist = 1.0 / F
    return RiskFigures(
        records=n,
        suppressed=int(suppressed),
        classes=int(len(f)),
        smallest_class=int(f.min()),
        prosecutor_highest=float(prosecutor.max()),
        prosecutor_average=float(len(f) / n),
        threshold=float(threshold),
        records_above_threshold=int(f[prosecutor > threshold].sum()),
        journalist_highest=float(journalist.max()),
        journalist_records_above_threshold=int(f[journalist > threshold].sum()),
        marketer=float((f / F).sum() / n),
        sample_uniques=int(f[f == 1].sum()),
        population=population,
    )


def sensitive_profile(
    frame: pd.DataFrame,
    row_class: np.ndarray,
    class_sizes: np.ndarray,
    attribute: str,
    qi: Sequence[str] = (),
    max_examples: int = 20,
) -> SensitiveProfile:
    """The l and t every class reaches for ``attribute``, and its homogeneous classes.

    The reference distribution of t is that of all rows of ``frame`` (suppressed rows included: they are
    part of the table and keep their sensitive values).
    """
    if attribute not in frame.columns:
        raise ConfigError(
            _("The sensitive attribute '{column}' is not a column of the table.", column=attribute),
            where=attribute,
        )
    col = encode_sensitive(frame[attribute], attribute)
    m = len(col.values)
    n_classes = len(class_sizes)
    kept = row_class >= 0
    cls_rows, val_rows = row_class[kept], col.codes[kept].astype(np.int64)
    pair, n_pairs = group_columns([cls_rows, val_rows], [max(n_classes, 1), max(m, 1)])
    if n_pairs == 0:
        empty = np.zeros(0)
        return SensitiveProfile(
            attribute,
            col.numeric,
            empty.astype(int),
            empty,
            empty,
            empty if col.numeric else None,
            np.zeros(0, np.int64),
            0,
        )
    counts = np.bincount(pair, minlength=n_pairs).astype(float)
    rep = representatives(pair, n_pairs)
    cls, val = cls_rows[rep], val_rows[rep]
    order = np.lexsort((val, cls))
    cls, val, counts = cls[order], val[order], counts[order]
    sizes = class_sizes.astype(float)
    p = counts / sizes[cls]
    distinct = np.bincount(cls, minlength=n_classes).astype(np.int64)
    entropy = np.bincount(cls, weights=-p * np.log(p), minlength=n_classes)
    q = col.global_distribution
    t_equal = 0.5 * (1.0 + np.bincount(cls, weights=np.abs(p - q[val]) - q[val], minlength=n_classes))
    t_ordered = _ordered_emd(cls, val, p, q, n_classes) if col.numeric else None
    homogeneous = np.flatnonzero(distinct == 1)
    examples = _examples(frame, row_class, class_sizes, homogeneous, attribute, qi, max_examples)
    return SensitiveProfile(
        attribute,
        col.numeric,
        distinct,
        np.exp(entropy),
        np.clip(t_equal, 0.0, 1.0),
        t_ordered,
        homogeneous,
        int(class_sizes[homogeneous].sum()),
        examples,
    )


def _ordered_emd(cls: np.ndarray, val: np.ndarray, p: np.ndarray, q: np.ndarray, n: int) -> np.ndarray:
    """Ordered-distance EMD per class on dense blocks of at most ~4M cells (Li et al. 2007)."""
    m = len(q)
    out = np.zeros(n)
    block = max(1, 4_000_000 // max(m, 1))
    for start in range(0, n, block):
        stop = min(start + block, n)
        lo, hi = np.searchsorted(cls, [start, stop])
        dense = np.zeros((stop - start, m))
        dense[cls[lo:hi] - start, val[lo:hi]] = p[lo:hi]
        out[start:stop] = np.abs(np.cumsum(dense - q[None, :], axis=1)).sum(axis=1) / max(m - 1, 1)
    return out


def _examples(
    frame: pd.DataFrame,
    row_class: np.ndarray,
    class_sizes: np.ndarray,
    classes: np.ndarray,
    attribute: str,
    qi: Sequence[str],
    limit: int,
) -> list[dict[str, Any]]:
    """The largest homogeneous classes: their QI values, size and the value they reveal."""
    if not len(classes) or limit <= 0:
        return []
    chosen = classes[np.argsort(-class_sizes[classes], kind="stable")[:limit]]
    rep = representatives(np.where(row_class >= 0, row_class, len(class_sizes)), len(class_sizes) + 1)
    out = []
    for c in chosen:
        row = frame.iloc[int(rep[c])]
        value = row[attribute]
        out.append(
            {
                "class": int(c),
                "size": int(class_sizes[c]),
                "quasi_identifiers": {q: _cell(row[q]) for q in qi},
                "value": _cell(value),
            }
        )
    return out


def _cell(v: Any) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)


def assess(
    frame: Any,
    qi: Sequence[str],
    sensitive: Sequence[str] = (),
    *,
    threshold: float = DEFAULT_THRESHOLD,
    population: pd.DataFrame | None = None,
    population_name: str | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    suppressed_marker: str | None = ROOT,
    max_examples: int = 20,
    star_is_value: bool = False,
) -> RiskAssessment:
    """Risk of a table (a release, or raw data with ``suppressed_marker=None``) on ``qi``.

    With ``population`` (a table of the population the file was drawn from, holding the quasi-
    identifiers), ``F`` is the number of its rows each class matches (a released range or hierarchy
    label matches the values below it, see :mod:`kanon_engine.metrics.linkage`), at least ``f``.
    """
    population_name = _("a population table") if population_name is None else population_name
    df: pd.DataFrame = getattr(frame, "frame", frame)
    qi = tuple(qi)
    unknown = [c for c in (*qi, *sensitive) if c not in df.columns]
    if unknown:
        raise ConfigError(
            _("The column '{missing}' is not in the table assessed.", missing=unknown[0]), where=unknown[0]
        )
    found = release_classes(df, qi, suppressed_marker)
    row_class, sizes, suppressed = _without_suppressed(found)
    pop_sizes = sizes
    pop_text = POPULATION_IS_TABLE
    missing = 0
    if population is not None:
        pdf: pd.DataFrame = getattr(population, "frame", population)
        absent = [c for c in qi if c not in pdf.columns]
        if absent:
            raise ConfigError(
                _("The population table has no column '{absent}'.", absent=absent[0]), where=absent[0]
            )
        kept = np.flatnonzero(row_class >= 0)
        rep = kept[representatives(row_class[kept], len(sizes))] if len(kept) else kept
        _counts, per_class = count_matches(pdf, df.iloc[rep], qi, hierarchies)
        missing = int(np.maximum(sizes - per_class, 0).sum())
        pop_sizes = np.maximum(per_class, sizes)
        pop_text = ngettext(
            "{name} ({n} record)", "{name} ({n} records)", len(pdf), name=population_name, n=len(pdf)
        )
    figures = risk_figures(sizes, suppressed, threshold, pop_sizes, pop_text)
    profiles = tuple(sensitive_profile(df, row_class, sizes, s, qi, max_examples) for s in sensitive)
    return RiskAssessment(qi, figures, row_class, sizes, pop_sizes, profiles, missing, star_is_value)


def with_population_uniques(assessment: RiskAssessment, population_size: int) -> RiskAssessment:
    """The assessment with the estimated shares of population uniques of its released classes
    (suppressed records left out, as ARX's risk analysis leaves them) for a population of
    ``population_size`` people (:func:`kanon_engine.privacy.population_estimates.population_uniques`: Pitman,
    Zayatz, SNB and Dankar et al.'s choice). A population smaller than the table is refused."""
    require_population_size(int(population_size), int(assessment.class_sizes.sum()))
    found = population_uniques(assessment.class_sizes, int(population_size))
    return dataclasses.replace(assessment, population_uniques=found)


_Comparison = TypeVar("_Comparison", "RiskComparison", "CountedRiskComparison")


def population_size_of(config: Any) -> int | None:
    """The population size the run's privacy models assume (k-map, population uniqueness; the first
    that names one), None when no model names a population size."""
    sizes = (getattr(m, "population_size", None) for m in getattr(config, "models", ()))
    return next((int(s) for s in sizes if s), None)


def with_population(risk: _Comparison, population_size: int | None) -> _Comparison:
    """Both assessments of a :class:`RiskComparison` (or :class:`CountedRiskComparison`) with their
    estimated population uniques (:func:`with_population_uniques`) for ``population_size`` people;
    unchanged without a population size, an assessment that is missing or already has them kept."""
    if not population_size:
        return risk

    def add(a: RiskAssessment) -> RiskAssessment:
        return a if a.population_uniques is not None else with_population_uniques(a, int(population_size))

    before = None if risk.before is None else add(risk.before)
    return dataclasses.replace(risk, before=before, after=add(risk.after))


def _without_suppressed(found: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """Class of every row (-1: suppressed, every quasi-identifier ``*``), the groups' sizes without the
    suppressed rows, and how many rows are suppressed."""
    cls = found.suppressed_class
    if cls is None:
        return found.row_class, found.sizes, 0
    keep = np.ones(len(found.sizes), dtype=bool)
    keep[cls] = False
    renumber = np.cumsum(keep) - 1
    row_class = np.where(found.suppressed, -1, renumber[found.row_class])
    return row_class, found.sizes[keep], found.n_suppressed


@dataclass(frozen=True, eq=False)
class RiskComparison:
    """Risk of the original data and of the release, on the same quasi-identifiers."""

    before: RiskAssessment
    after: RiskAssessment

    def to_dict(self) -> dict[str, Any]:
        return {"before": self.before.to_dict(), "after": self.after.to_dict()}


def compare(
    table: Any,
    result: Any,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    population: pd.DataFrame | None = None,
    population_name: str | None = None,
    max_examples: int = 20,
) -> RiskComparison:
    """Risk before (``table`` as loaded, every record) and after (``result.release`` as published)."""
    population_name = _("a population table") if population_name is None else population_name
    cfg = result.config
    original: pd.DataFrame = getattr(table, "frame", table)
    before = assess(
        original,
        cfg.quasi_identifiers,
        cfg.sensitive,
        threshold=threshold,
        population=population,
        population_name=population_name,
        suppressed_marker=None,
        max_examples=max_examples,
    )
    after = assess(
        result.release,
        cfg.quasi_identifiers,
        cfg.sensitive,
        threshold=threshold,
        population=population,
        population_name=population_name,
        hierarchies=cfg.hierarchies,
        max_examples=max_examples,
        star_is_value=bool(getattr(result, "cell_level", False)),
    )
    if cfg.drop_suppressed and result.suppressed:  # records left out of the file are suppressed too
        figures = dataclasses.replace(after.figures, suppressed=after.figures.suppressed + result.suppressed)
        after = dataclasses.replace(after, figures=figures)
    return RiskComparison(before, after)


# --- runs that streamed their rows: risk from the counts ----------------------------------------------
# A run on a larger-than-memory engine holds no rows, but identity disclosure under the prosecutor model
# depends only on the class sizes (El Emam & Dankar 2008): the figures and the distribution above come from
# them alone. What needs the values of the records (homogeneity, a population table, "why is this record
# unsafe") is not computed here.


def assess_sizes(
    qi: Sequence[str], class_sizes: np.ndarray, suppressed: int = 0, *, threshold: float = DEFAULT_THRESHOLD
) -> RiskAssessment:
    """Risk of a table known only by its class sizes (the all-``*`` group among them, ``suppressed`` of
    its records suppressed); no row is assessed on its own (``row_class`` is empty)."""
    sizes = np.asarray(class_sizes, dtype=np.int64)
    figures = risk_figures(sizes, suppressed, threshold)
    return RiskAssessment(tuple(qi), figures, np.zeros(0, dtype=np.int64), sizes, sizes)


def release_class_sizes(result: Any) -> tuple[np.ndarray, int]:
    """The group sizes of a run's release as a reader sees it, and its suppressed records, from the run's
    counts: the suppressed records (shown as ``*`` everywhere, or left out of the file) belong to no
    group, and neither does a class released as ``*`` in every quasi-identifier (its rows count as
    suppressed), as :func:`compare` finds them in the rows of the release."""
    sizes = np.asarray(result.class_sizes, dtype=np.int64)
    star = _all_star_classes(result)
    return sizes[~star], int(result.suppressed) + int(sizes[star].sum())


def _all_star_classes(result: Any) -> np.ndarray:
    """Per class of ``result``: released as ``*`` in every quasi-identifier (top of every hierarchy)."""
    cfg, n = result.config, len(result.class_sizes)
    if result.transformation is not None:
        top = all(
            cfg.hierarchies[q].height > 0 and level >= cfg.hierarchies[q].height
            for q, level in result.transformation.items()
        )
        return np.full(n, top and bool(cfg.quasi_identifiers))
    plan = getattr(result, "plan", None)
    values = plan.class_values(n) if plan is not None else {}
    star = np.full(n, bool(values) and bool(cfg.quasi_identifiers))
    for q in cfg.quasi_identifiers:
        column = values.get(q)
        star &= column is not None and len(column) == n and np.asarray(column == ROOT, dtype=bool)
    return star


def original_class_sizes(result: Any) -> np.ndarray | None:
    """The class sizes of the original data from the points a run counted (the distinct combinations of
    quasi-identifier values with their records); None when the points were counted above the leaves
    (a table too large for its distinct combinations: only the rows could tell) or not kept (Mondrian
    cut by the engine holds each box's points only while it runs)."""
    plan = getattr(result, "plan", None)
    counted = getattr(plan, "counted", None)
    if counted is None or any(counted.floor) or not counted.holds_points:
        return None
    enc = counted.enc
    if not enc.n_qi:
        return np.zeros(0, dtype=np.int64)
    ids, n = group_columns(list(enc.codes), [len(h.values) for h in enc.hierarchies])
    weights = np.ones(len(ids), dtype=np.int64) if enc.weights is None else enc.weights
    return np.bincount(ids, weights=weights, minlength=n).astype(np.int64)


@dataclass(frozen=True, eq=False)
class CountedRiskComparison:
    """Risk of a run that streamed its rows: the release's from its class sizes, the original data's from
    the counted points (None when they were counted above the leaves)."""

    before: RiskAssessment | None
    after: RiskAssessment


def compare_counts(result: Any, *, threshold: float = DEFAULT_THRESHOLD) -> CountedRiskComparison:
    """:func:`compare` for a run without rows in memory: the same identity-disclosure figures and risk
    distribution, computed from the class sizes alone (prosecutor model; the population is the table)."""
    qi = tuple(result.config.quasi_identifiers)
    sizes, suppressed = release_class_sizes(result)
    original = original_class_sizes(result)
    before = None if original is None else assess_sizes(qi, original, threshold=threshold)
    return CountedRiskComparison(before, assess_sizes(qi, sizes, suppressed, threshold=threshold))
