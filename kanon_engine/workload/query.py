"""The workload's syntax tree: aggregate queries with conjunctive selection predicates.

The seed's Mondrian paper (LeFevre, DeWitt & Ramakrishnan 2006, section 2.4 "Workload-driven quality
measurement") measures a release by a workload of aggregate queries (COUNT, SUM, AVG, MIN, MAX) whose
selection predicates have the form ``attribute <oper> constant``, each query with a weight saying how
much it matters. These classes are that workload, produced by :mod:`kanon_engine.workload.parser` and
read by the exact evaluator, the estimator and workload-aware Mondrian.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from kanon_engine.hierarchy.model import Hierarchy

AGGREGATES = ("COUNT", "SUM", "AVG", "MIN", "MAX")
#: Comparison operators of :class:`Comparison`.
OPERATORS = ("=", "<", "<=", ">", ">=")


@dataclass(frozen=True)
class Literal:
    """A constant of a predicate: a number (``value`` is a float) or a quoted string."""

    value: float | str
    text: str  # as written (a number's digits, a string's content): compared as text on text columns

    @property
    def is_number(self) -> bool:
        return isinstance(self.value, float)

    def to_text(self) -> str:
        if self.is_number:
            return self.text
        return "'" + str(self.value).replace("'", "''") + "'"


@dataclass(frozen=True)
class Comparison:
    """``column <op> value`` with op one of =, <, <=, >, >=."""

    column: str
    op: str
    value: Literal

    def to_text(self) -> str:
        return f"{quote_column(self.column)} {self.op} {self.value.to_text()}"


@dataclass(frozen=True)
class Between:
    """``column BETWEEN low AND high`` (both ends included, as in SQL)."""

    column: str
    low: Literal
    high: Literal

    def to_text(self) -> str:
        return f"{quote_column(self.column)} BETWEEN {self.low.to_text()} AND {self.high.to_text()}"


@dataclass(frozen=True)
class InList:
    """``column IN (v1, v2, ...)``."""

    column: str
    values: tuple[Literal, ...]

    def to_text(self) -> str:
        return f"{quote_column(self.column)} IN ({', '.join(v.to_text() for v in self.values)})"


@dataclass(frozen=True)
class LikePrefix:
    """``column LIKE 'prefix%'``: the value starts with ``prefix`` (text columns only)."""

    column: str
    prefix: str

    def to_text(self) -> str:
        return f"{quote_column(self.column)} LIKE '{self.prefix.replace(chr(39), chr(39) * 2)}%'"


Predicate = Comparison | Between | InList | LikePrefix


@dataclass(frozen=True)
class Query:
    """One aggregate query: ``AGG(column | *) [WHERE p1 AND p2 ...] [WEIGHT w]``.

    ``line`` is its line in the workload file (1-based; 0 for generated queries).
    """

    aggregate: str
    column: str | None  # None for COUNT(*)
    predicates: tuple[Predicate, ...] = ()
    weight: float = 1.0
    line: int = 0

    def columns(self) -> tuple[str, ...]:
        """Every column the query reads (the aggregated one first), without repeats."""
        out: list[str] = [] if self.column is None else [self.column]
        for p in self.predicates:
            if p.column not in out:
                out.append(p.column)
        return tuple(out)

    def by_column(self) -> dict[str, list[Predicate]]:
        """The predicates grouped by column (a conjunction per column)."""
        out: dict[str, list[Predicate]] = {}
        for p in self.predicates:
            out.setdefault(p.column, []).append(p)
        return out

    def to_text(self, with_weight: bool = True) -> str:
        target = "*" if self.column is None else quote_column(self.column)
        text = f"{self.aggregate}({target})"
        if self.predicates:
            text += " WHERE " + " AND ".join(p.to_text() for p in self.predicates)
        if with_weight and self.weight != 1.0:
            text += f" WEIGHT {self.weight:g}"
        return text


@dataclass(frozen=True)
class Workload:
    """An ordered set of weighted queries, and where they came from (a file name, or a description)."""

    queries: tuple[Query, ...]
    source: str = "workload"

    def __iter__(self) -> Iterator[Query]:
        return iter(self.queries)

    def __len__(self) -> int:
        return len(self.queries)

    def to_text(self) -> str:
        """The workload in its file format (reads back to the same queries)."""
        return "".join(q.to_text() + "\n" for q in self.queries)


class RunSettings(Protocol):
    """What the workload reads of a run's settings: the quasi-identifiers, their hierarchies and the
    workload given with them (:class:`~kanon_engine.config.AnonymizationConfig` has all three). The
    workload sits below the configuration that holds it, so it names these three, not the class."""

    @property
    def quasi_identifiers(self) -> tuple[str, ...]: ...

    @property
    def hierarchies(self) -> Mapping[str, Hierarchy]: ...

    @property
    def workload(self) -> Workload | None: ...


#: The words of the workload format (any case); a column named like one goes in double quotes.
KEYWORDS = frozenset({"SELECT", "FROM", "WHERE", "AND", "BETWEEN", "IN", "LIKE", "WEIGHT", *AGGREGATES})


def is_bare_name(text: str) -> bool:
    """Whether ``text`` reads as one unquoted name: a letter or ``_`` first, then letters, digits,
    ``_``, ``-`` or ``.``."""
    return (
        bool(text) and (text[0].isalpha() or text[0] == "_") and all(c.isalnum() or c in "_-." for c in text)
    )


def quote_column(name: str) -> str:
    """A column name as the parser reads it: bare when it is a plain name, else in double quotes."""
    if is_bare_name(name) and name.upper() not in KEYWORDS:
        return name
    return '"' + name.replace('"', '""') + '"'
