"""A generated workload for users who have none: random range COUNT queries with a chosen selectivity.

As in the experiments of the seed's Mondrian paper (LeFevre, DeWitt & Ramakrishnan 2006), every query
is ``COUNT(*)`` with one range predicate on each of a few randomly chosen quasi-identifiers. Each
predicate selects a window of about ``selectivity ** (1 / attributes per query)`` of the records on
its attribute, placed at random, so that with independent attributes a query selects about
``selectivity`` of the table. Windows follow the data: ``BETWEEN`` over the sorted values for numbers
and dates, ``IN`` (or ``=``) over a run of neighbouring leaves in hierarchy order for categories, so
a categorical window stays inside hierarchy groups where it can. Seeded: the same seed gives the
same queries, which are written out in the workload file format to be read, kept and edited.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from kanon_engine.core.leaf_order import tree_order
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _, formats, ngettext
from kanon_engine.workload.constraints import DATE, DECIMAL, NUMBER, ColumnSpec, column_spec, parse_values
from kanon_engine.workload.distinct import table_column
from kanon_engine.workload.query import (
    Between,
    Comparison,
    InList,
    Literal,
    Predicate,
    Query,
    RunSettings,
    Workload,
)


def _number_literal(x: float, spec: ColumnSpec) -> Literal:
    if spec.kind == DATE:
        text = pd.Timestamp.fromordinal(int(x)).strftime("%Y-%m-%d")
        return Literal(text, text)
    if spec.kind == NUMBER or float(x).is_integer():
        text = str(int(x))
    else:
        text = np.format_float_positional(x, trim="-")
    return Literal(float(text), text)


class _Window:
    """The values of one attribute in window order with their record shares, to cut windows from."""

    def __init__(self, table: Table, name: str, config: RunSettings | None) -> None:
        self.spec = column_spec(table, name)
        coded = table_column(table, name)  # distinct values and their records, read once
        values, counts = coded.values[:-1], coded.counts()[:-1]
        if self.spec.kind in (NUMBER, DECIMAL, DATE):
            x = parse_values(values, self.spec)
            number = np.isfinite(x) & (counts > 0)
            uniq, inverse = np.unique(x[number], return_inverse=True)
            counts = np.bincount(inverse, weights=counts[number], minlength=len(uniq))
            self.items: list[float] | list[str] = list(uniq)
        else:
            counts_s = pd.Series(counts, index=[str(v) for v in values]).groupby(level=0, sort=False).sum()
            counts_s = counts_s[counts_s > 0]
            h = config.hierarchies.get(name) if config is not None else None
            if h is not None:
                leaves = [h.values[i] for i in tree_order(h)]
                order = [v for v in leaves if v in counts_s.index]
            else:
                order = sorted(counts_s.index)
            self.items = order
            counts = counts_s.reindex(order).to_numpy()
        if not len(self.items):
            raise ConfigError(
                _("The column '{name}' has no values to build queries on.", name=name), where=name
            )
        self.name = name
        share = np.asarray(counts, dtype=np.float64)
        self.cum = np.concatenate([[0.0], np.cumsum(share) / share.sum()])

    def predicate(self, fraction: float, rng: np.random.Generator) -> Predicate:
        """A window of neighbouring values whose record share is near ``fraction``: for every start the
        best end is found, and a start is drawn among those within half the fraction of it (the closest
        ones when a few values hold most records, as Adult's race or country)."""
        cum = self.cum
        starts = np.arange(len(self.items))
        end = np.searchsorted(cum, cum[starts] + fraction) - 1  # last item of the window
        best = np.clip(end, starts, len(self.items) - 1)
        longer = np.clip(end + 1, starts, len(self.items) - 1)
        share_b, share_l = cum[best + 1] - cum[starts], cum[longer + 1] - cum[starts]
        use_longer = np.abs(share_l - fraction) < np.abs(share_b - fraction)
        stop = np.where(use_longer, longer, best)
        miss = np.abs(np.where(use_longer, share_l, share_b) - fraction)
        good = np.flatnonzero(miss <= max(0.5 * fraction, miss.min() + 1e-12))
        i = int(rng.choice(good))
        j = int(stop[i])
        if self.spec.kind in (NUMBER, DECIMAL, DATE):
            lo, hi = (
                _number_literal(float(self.items[i]), self.spec),
                _number_literal(float(self.items[j]), self.spec),
            )
            return Comparison(self.name, "=", lo) if i == j else Between(self.name, lo, hi)
        chosen = [Literal(str(v), str(v)) for v in self.items[i : j + 1]]
        return Comparison(self.name, "=", chosen[0]) if len(chosen) == 1 else InList(self.name, tuple(chosen))


#: The generated workload every run is measured with when the user gives none (CLI, report, workbench).
DEFAULT_QUERIES = 100
DEFAULT_SELECTIVITY = 0.1
DEFAULT_SEED = 0
DEFAULT_PER_QUERY = 2


def default_workload(table: Table, config: RunSettings) -> Workload:
    """The config's workload, or the default generated one over its quasi-identifiers."""
    if config.workload is not None:
        return config.workload
    return generate_workload(
        table, config, DEFAULT_QUERIES, DEFAULT_SELECTIVITY, None, DEFAULT_PER_QUERY, DEFAULT_SEED
    )


def generate_workload(
    table: Table,
    config: RunSettings | None = None,
    n_queries: int = 100,
    selectivity: float = 0.1,
    attributes: Sequence[str] | None = None,
    per_query: int | None = None,
    seed: int = 0,
) -> Workload:
    """``n_queries`` random range COUNT queries over ``attributes`` (default: the quasi-identifiers)."""
    names = list(attributes) if attributes else list(config.quasi_identifiers if config else [])
    if not names:
        raise ConfigError(
            _("A generated workload needs attributes (the quasi-identifiers)."), where="attributes"
        )
    table.require_columns(names, _("workload attribute"))
    if not 0 < selectivity <= 1:
        raise ConfigError(
            _("selectivity must be a fraction in (0, 1]; got {selectivity}.", selectivity=selectivity),
            where="selectivity",
        )
    if n_queries < 1:
        raise ConfigError(
            _("The number of queries must be at least 1; got {n_queries}.", n_queries=n_queries),
            where="queries",
        )
    d = min(len(names), per_query or 2)
    if d < 1:
        raise ConfigError(
            _("Attributes per query must be at least 1; got {per_query}.", per_query=per_query),
            where="per_query",
        )
    windows = {n: _Window(table, n, config) for n in names}
    rng = np.random.default_rng(seed)
    fraction = float(selectivity) ** (1.0 / d)
    queries = []
    for _query in range(n_queries):
        chosen = [names[i] for i in sorted(rng.choice(len(names), size=d, replace=False))]
        preds = tuple(windows[n].predicate(fraction, rng) for n in chosen)
        queries.append(Query("COUNT", None, preds))
    source = GENERATED_SOURCE.format(n_queries=n_queries, selectivity=f"{selectivity:g}", seed=seed)
    return Workload(tuple(queries), source)


#: The source of a generated workload, as the project and the JSON report keep it (a key, in English);
#: :func:`describe_source` says it in the interface's or the report's language.
GENERATED_SOURCE = "generated: {n_queries} COUNT queries, selectivity {selectivity}, seed {seed}"
_GENERATED = re.compile(r"^generated: (\d+) COUNT queries, selectivity (\S+), seed (\S+)$")


def describe_source(source: str) -> str:
    """A workload's source as people read it: for a generated one its figures in the current language
    ("200 COUNT queries, selectivity 0.1, seed 7"), a file's name as it is."""
    m = _GENERATED.match(source)
    if m is None:
        return source
    n, selectivity, seed = m.groups()
    try:
        shown = formats.decimal(float(selectivity), 6)
    except ValueError:
        shown = selectivity
    return ngettext(
        "{n} COUNT query, selectivity {selectivity}, seed {seed}",
        "{n} COUNT queries, selectivity {selectivity}, seed {seed}",
        int(n),
        n=int(n),
        selectivity=shown,
        seed=seed,
    )
