"""What a query asks of one column: its predicates compiled to one constraint, checked on values.

Every predicate of the workload format concerns one column, and a query is their conjunction, so the
predicates on one column compile to a single :class:`Constraint`: for numbers and dates an interval
(ends open or closed) intersected with a finite set of allowed values (from ``=`` and ``IN``); for text
a set of allowed values and prefixes (``LIKE 'x%'``). The exact evaluator applies it to the original
values, the estimator to the values a released cell may stand for, and workload-aware Mondrian to the
leaves of a hierarchy, so the three read a predicate the same way.

Column kinds follow the import's type detection: integer and decimal columns compare as numbers, dates
as days (a literal is read in ISO form ``'2020-03-31'`` or in the column's own format), everything else
as text (exact, case-sensitive strings, as SQL's ``=``). Missing cells satisfy no predicate.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from kanon_engine.data.table import ColumnKind, TableLike
from kanon_engine.data.types import parse_numbers
from kanon_engine.i18n import _
from kanon_engine.workload.parser import WorkloadError
from kanon_engine.workload.query import Between, Comparison, InList, LikePrefix, Literal, Predicate, Query

#: Proleptic Gregorian ordinal of 1970-01-01: dates become day numbers on this scale.
_EPOCH_ORDINAL = 719163

NUMBER, DECIMAL, DATE, TEXT = "integer", "decimal", "date", "text"
#: Up to this many values, text conditions are checked with plain set and prefix tests (see check_text).
_PLAIN_CHECK = 4096


@dataclass(frozen=True)
class ColumnSpec:
    """How a column's values compare: ``kind`` is integer, decimal, date or text."""

    name: str
    kind: str
    date_format: str | None = None
    #: how the column writes its numbers ("12,5": :class:`kanon_engine.data.types.NumberFormat`)
    number_format: str | None = None

    @property
    def ordered(self) -> bool:
        return self.kind != TEXT

    @property
    def discrete(self) -> bool:
        """Values are whole steps (integers, days): a range [a-b] stands for a, a+1, ..., b."""
        return self.kind in (NUMBER, DATE)


def column_spec(table: TableLike, name: str) -> ColumnSpec:
    """The comparison kind of a column of the original table (from its detected or chosen type)."""
    kind = table.kind(name)
    t = table.column_types.get(name)
    numbers = t.number_format if t is not None else None
    if kind == ColumnKind.INTEGER:
        return ColumnSpec(name, NUMBER, number_format=numbers)
    if kind == ColumnKind.DECIMAL:
        return ColumnSpec(name, DECIMAL, number_format=numbers)
    if kind == ColumnKind.DATE:
        t = table.column_types.get(name)
        return ColumnSpec(name, DATE, t.date_format if t is not None else None)
    return ColumnSpec(name, TEXT)


def parse_values(values: pd.Series | np.ndarray, spec: ColumnSpec) -> np.ndarray:
    """Numbers (dates as day numbers) of strings; NaN where a value is missing or not of the kind."""
    s = pd.Series(np.asarray(values, dtype=object), dtype=object)
    if spec.kind == DATE:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            dt = pd.to_datetime(s, format=spec.date_format or "mixed", errors="coerce")
        ns = dt.to_numpy(dtype="datetime64[ns]")
        days = np.floor(ns.astype(np.int64) / 86_400e9) + _EPOCH_ORDINAL
        return np.where(np.isnat(ns), np.nan, days)
    if spec.number_format:  # "12,5", "1 234,50": as the column writes them
        return parse_numbers(s, spec.number_format)
    x = pd.to_numeric(s.astype(str).str.strip().where(s.notna(), None), errors="coerce")
    return x.to_numpy(dtype=np.float64)


def _literal_number(lit: Literal, spec: ColumnSpec, query: Query) -> float:
    """A literal as a number (or day number) of the column's kind; a WorkloadError when it is not one."""
    if spec.kind == DATE:
        text = lit.text
        for fmt in ("%Y-%m-%d", spec.date_format):
            if fmt:
                t = pd.to_datetime(pd.Series([text]), format=fmt, errors="coerce").iloc[0]
                if not pd.isna(t):
                    return float(t.toordinal())
        raise _mismatch(query, spec, _("'{value}' is not a date (write dates as 'YYYY-MM-DD')", value=text))
    if lit.is_number:
        return float(lit.value)
    try:
        return float(str(lit.value).strip())
    except ValueError:
        raise _mismatch(query, spec, _("'{value}' is not a number", value=lit.value)) from None


def _mismatch(query: Query, spec: ColumnSpec, what: str) -> WorkloadError:
    where = _("workload line {line}", line=str(query.line)) if query.line else _("the query")
    return WorkloadError(
        _(
            "In {where} ({query}), {what}, but '{column}' holds {kind}.",
            where=where,
            query=query.to_text(),
            what=what,
            column=spec.name,
            kind=_kind_words(spec),
        ),
        hint=_("Compare numbers and dates with =, <, BETWEEN or IN, text with =, IN or LIKE."),
        where=f"line {query.line}" if query.line else "query",  # a locator (the editor underlines it)
    )


def _kind_words(spec: ColumnSpec) -> str:
    return {NUMBER: _("whole numbers"), DECIMAL: _("numbers"), DATE: _("dates"), TEXT: _("text")}[spec.kind]


@dataclass
class Constraint:
    """The conjunction of a query's predicates on one column.

    Ordered columns: ``low``/``high`` with open flags, and ``points`` (None = any value). Text columns:
    ``allowed`` (None = any value) and ``prefixes`` (all must match). ``empty`` when nothing can match.
    """

    spec: ColumnSpec
    low: float = -math.inf
    low_open: bool = False
    high: float = math.inf
    high_open: bool = False
    points: np.ndarray | None = None
    allowed: frozenset[str] | None = None
    prefixes: list[str] = field(default_factory=list)

    # --- building ---------------------------------------------------------------------------------------
    def add(self, p: Predicate, query: Query) -> None:
        spec = self.spec
        if isinstance(p, LikePrefix):
            if spec.ordered:
                raise _mismatch(query, spec, _("LIKE compares text"))
            self.prefixes.append(p.prefix)
            return
        if not spec.ordered:
            self._add_text(p, query)
            return
        if isinstance(p, Comparison):
            v = _literal_number(p.value, spec, query)
            if p.op == "=":
                self._points(np.array([v]))
            elif p.op in ("<", "<="):
                self._high(v, p.op == "<")
            else:
                self._low(v, p.op == ">")
        elif isinstance(p, Between):
            self._low(_literal_number(p.low, spec, query), False)
            self._high(_literal_number(p.high, spec, query), False)
        elif isinstance(p, InList):
            self._points(np.array([_literal_number(v, spec, query) for v in p.values]))

    def _add_text(self, p: Predicate, query: Query) -> None:
        if isinstance(p, Comparison) and p.op == "=":
            values = {p.value.text}
        elif isinstance(p, InList):
            values = {v.text for v in p.values}
        else:
            raise _mismatch(query, self.spec, _("a range (<, <=, >, >=, BETWEEN) needs numbers or dates"))
        self.allowed = frozenset(values) if self.allowed is None else self.allowed & values

    def _points(self, values: np.ndarray) -> None:
        values = np.unique(values)
        self.points = values if self.points is None else np.intersect1d(self.points, values)

    def _low(self, v: float, is_open: bool) -> None:
        if v > self.low or (v == self.low and is_open):
            self.low, self.low_open = v, is_open

    def _high(self, v: float, is_open: bool) -> None:
        if v < self.high or (v == self.high and is_open):
            self.high, self.high_open = v, is_open

    # --- checking ---------------------------------------------------------------------------------------
    def check_numbers(self, x: np.ndarray) -> np.ndarray:
        """Which numbers (day numbers) satisfy the constraint; NaN never does."""
        x = np.asarray(x, dtype=np.float64)
        ok = np.isfinite(x)
        ok &= (x > self.low) if self.low_open else (x >= self.low)
        ok &= (x < self.high) if self.high_open else (x <= self.high)
        if self.points is not None:
            ok &= np.isin(x, self.points)
        return ok

    def check_text(self, values: np.ndarray | pd.Series) -> np.ndarray:
        """Which strings satisfy the constraint; missing values never do.

        The values are a column's distinct values (a few dozen, usually): below ``_PLAIN_CHECK`` of them
        plain set and prefix tests cost microseconds where building pandas objects costs a millisecond.
        """
        arr = np.asarray(values, dtype=object)
        if len(arr) <= _PLAIN_CHECK:
            ok = ~pd.isna(arr)
            if self.allowed is not None:
                ok &= np.fromiter((v in self.allowed for v in arr), dtype=bool, count=len(arr))
            for prefix in self.prefixes:
                ok &= np.fromiter((str(v).startswith(prefix) for v in arr), dtype=bool, count=len(arr))
            return ok
        s = pd.Series(arr, dtype=object)
        ok = s.notna().to_numpy().copy()
        if self.allowed is not None:
            ok &= s.isin(self.allowed).to_numpy()
        text = s.astype(str)
        for prefix in self.prefixes:
            ok &= text.str.startswith(prefix).to_numpy()
        return ok

    def check(self, strings: np.ndarray | pd.Series) -> np.ndarray:
        """Which original strings satisfy the constraint, read as the column's kind."""
        if self.spec.ordered:
            return self.check_numbers(parse_values(strings, self.spec))
        return self.check_text(strings)

    def integer_bounds(self) -> tuple[float, float]:
        """The smallest and largest whole numbers inside the interval."""
        lo, hi = self.low, self.high
        if math.isfinite(lo):
            lo = math.floor(lo) + 1 if self.low_open else math.ceil(lo)
        if math.isfinite(hi):
            hi = math.ceil(hi) - 1 if self.high_open else math.floor(hi)
        return float(lo), float(hi)


def compile_query(query: Query, specs: dict[str, ColumnSpec]) -> dict[str, Constraint]:
    """One constraint per column the query's predicates name (``specs`` must cover them)."""
    out: dict[str, Constraint] = {}
    for column, predicates in query.by_column().items():
        c = Constraint(specs[column])
        for p in predicates:
            c.add(p, query)
        out[column] = c
    return out


def check_columns(query: Query, columns: list[str] | tuple[str, ...], what: str) -> None:
    """Every column the query names is in ``columns`` (a WorkloadError naming the missing one)."""
    known = set(columns)
    for c in query.columns():
        if c not in known:
            where = _("workload line {line}", line=str(query.line)) if query.line else _("the query")
            shown = ", ".join(list(columns)[:20])
            raise WorkloadError(
                _(
                    "In {where} ({query}), the column '{column}' is not in {what}.",
                    where=where,
                    query=query.to_text(),
                    column=c,
                    what=what,
                ),
                hint=_("Its columns are: {shown}.", shown=shown),
                where=f"line {query.line}" if query.line else "query",  # a locator
            )


def check_aggregate(query: Query, spec: ColumnSpec | None) -> None:
    """SUM, AVG, MIN and MAX need a column of numbers."""
    if query.column is None or spec is None:
        return
    if spec.kind not in (NUMBER, DECIMAL):
        raise _mismatch(query, spec, _("{aggregate} needs a column of numbers", aggregate=query.aggregate))
