"""Builders: generalization hierarchies made from the data, for the common kinds of quasi-identifier.

Each builder is a pure function of the column's values that returns a :class:`Hierarchy` whose leaves are
the distinct values as their original strings. They follow the hierarchy types of Sweeney's DGHs (Sweeney
2002, "Achieving k-anonymity privacy protection using generalization and suppression": ZIP codes masked
digit by digit, dates coarsened to year, ...) and the builder kinds of ARX (Prasser & Kohlmayer 2015,
"Putting statistical disclosure control into practice: the ARX data anonymization tool": intervals,
ordering/grouping, masking, dates).

Work is done once per *distinct* value with numpy/pandas vector operations, never once per data row.

Missing values. A column with missing cells (``NaN``/``None`` or the empty string) gets the leaf
:data:`MISSING` (``""``), which generalizes to :data:`MISSING_LABEL` (``"(missing)"``) at every level
between the leaves and the root, and to the root ``*`` at the top. Keeping "missing" as its own group
below the root means a released file never merges a missing cell into a real group (a missing age is not
"[30-35)"), and the root still joins everything.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import pandas as pd

from kanon_engine.data.dates import date_fit, parse_dates
from kanon_engine.data.types import describe_date_format, parse_numbers
from kanon_engine.errors import ConfigError, HierarchyError
from kanon_engine.hierarchy.model import MISSING, ROOT, Hierarchy
from kanon_engine.i18n import N_, _, formats, ngettext

if TYPE_CHECKING:  # data.table is imported for typing only, to keep the package import order loose
    from kanon_engine.data.table import ColumnType

#: The label of the missing-value leaf at every level between the leaves and the root.
MISSING_LABEL = "(missing)"

#: Date levels the date builder knows, finest first.
DATE_LEVELS = ("day", "month", "quarter", "year", "decade", "century")
#: How a date hierarchy writes its labels: ISO 8601 (``2022-03``, ``2022-Q1``; the default, the same on
#: every machine) or the interface language's way (``03/2022``, ``T1 2022`` in French).
DATE_STYLES = ("iso", "language")

#: How many values an error message lists before saying "and N more".
_LISTED = 10

Values: TypeAlias = pd.Series | np.ndarray | Iterable[str]


# ----------------------------------------------------------------------------------------- helpers
def _distinct_values(values: Values) -> tuple[np.ndarray, bool]:
    """Distinct non-missing values as strings (first-seen order), and whether any value is missing.

    ``NaN``/``None`` and the empty string count as missing: both are the :data:`MISSING` leaf.
    """
    if isinstance(values, pd.Series):
        s = values
    else:
        s = pd.Series(np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=object))
    u = pd.Series(np.asarray(pd.unique(s), dtype=object), dtype=object)  # distinct first: cheap per row
    missing = u.isna().to_numpy()
    text = np.asarray(u[~missing].astype(str), dtype=object)
    empty = text == ""
    distinct = pd.unique(text[~empty]) if len(text) else np.empty(0, dtype=object)  # 1 and "1" -> "1"
    return np.asarray(distinct, dtype=object), bool(missing.any() or empty.any())


def _show_list(values: Sequence[str] | np.ndarray) -> str:
    """``'a', 'b' and 'c'`` (at most 10, then "and N more")."""
    vals = [f"'{v}'" for v in list(values)[:_LISTED]]
    extra = len(values) - len(vals)
    if extra:
        return ngettext(
            "{values} and {n} more", "{values} and {n} more", extra, values=", ".join(vals), n=extra
        )
    return formats.join(vals)


def _assemble(
    attribute: str, leaves: np.ndarray, levels: list[np.ndarray], has_missing: bool, add_root: bool = True
) -> Hierarchy:
    """Stack ``[leaves, level1, ..., root]`` into a hierarchy, adding the missing-value row last."""
    n = len(leaves)
    columns = [np.asarray(leaves, dtype=object)] + [np.asarray(c, dtype=object) for c in levels]
    if add_root:
        columns.append(np.full(n, ROOT, dtype=object))
    matrix = np.empty((n, len(columns)), dtype=object)
    for j, col in enumerate(columns):
        matrix[:, j] = col
    if has_missing:
        row = np.array([MISSING] + [MISSING_LABEL] * (len(columns) - 2) + [ROOT], dtype=object)
        matrix = np.vstack([matrix, row[None, :]]) if n else row[None, :]
    if matrix.shape[0] == 0:
        raise HierarchyError(
            _("The column '{column}' has no values to build a hierarchy from.", column=attribute),
            hint=_("Load data with at least one value in this column."),
            where=attribute,
        )
    return Hierarchy(attribute, matrix)


def _format_number(x: float) -> str:
    """Shortest plain text of an interval bound: ``30`` not ``30.0``, ``0.3`` not ``0.30000000000000004``."""
    x = round(float(x), 9) + 0.0  # + 0.0 turns -0.0 into 0.0
    if x.is_integer():
        return str(int(x))
    return np.format_float_positional(x, trim="-")


def _sorted_order(keys: np.ndarray, text: np.ndarray) -> np.ndarray:
    """Stable order by ``keys`` then by the original string (so "30" sorts before "30.0")."""
    by_text = np.argsort(text.astype(str), kind="stable")
    return by_text[np.argsort(keys[by_text], kind="stable")]


def _labels_from_uniques(keys: np.ndarray, fmt: Callable[[Any], str]) -> np.ndarray:
    """Format each distinct key once and spread the labels back (one call per group, not per value)."""
    codes, uniques = pd.factorize(keys)
    labels = np.array([fmt(u) for u in uniques], dtype=object)
    return labels[codes]


# --------------------------------------------------------------------------------------- intervals
def _check_widths(widths: Sequence[float]) -> list[float]:
    shown = ", ".join(str(w) for w in widths)
    try:
        ws = [float(w) for w in widths]
    except (TypeError, ValueError):
        raise ConfigError(
            _("Interval widths must be numbers; got ({shown}).", shown=shown), where="widths"
        ) from None
    if any(not math.isfinite(w) or w <= 0 for w in ws):
        raise ConfigError(
            _("Interval widths must be positive numbers; got ({shown}).", shown=shown), where="widths"
        )
    for a, b in zip(ws, ws[1:]):
        ratio = b / a
        if b <= a or abs(ratio - round(ratio)) > 1e-9 * ratio:
            raise ConfigError(
                _(
                    "Each interval width must be a larger multiple of the one before, so that the "
                    "intervals nest; got widths ({shown}): {number} is not a multiple of {number2} larger "
                    "than it.",
                    shown=shown,
                    number=_format_number(b),
                    number2=_format_number(a),
                ),
                hint=_("For example 5, 10, 20 or 10, 50, 100."),
                where="widths",
            )
    return ws


#: Interval label styles: (key, template, whole numbers only). ``inclusive`` writes an interval by its
#: first and last value (35-39, as ARX's Adult hierarchies do); ``half_open`` in mathematical notation,
#: the upper bound left out ([35-40)); ``words`` spells it out (35 to under 40).
INTERVAL_LABELS: tuple[tuple[str, str, bool], ...] = (
    ("inclusive", "{lo}-{last}", True),
    ("half_open", "[{lo}-{hi})", False),
    ("words", N_("{lo} to under {hi}"), False),  # the workbench writes it in the interface language
)


def interval_hierarchy(
    attribute: str,
    values: Values,
    widths: Sequence[float] = (5, 10, 20),
    *,
    bottom: float | None = None,
    top: float | None = None,
    label: str = "[{lo}-{hi})",
) -> Hierarchy:
    """Numeric values -> nested half-open intervals of the given widths -> ``*``.

    Level ``j`` holds the interval of width ``widths[j-1]`` containing the value; intervals start at
    multiples of the width counted from ``bottom`` (or from 0), so that with each width a multiple of
    the previous one every interval lies inside one interval of the next level (the hierarchy is a
    tree, as a DGH must be: Sweeney 2002). ``bottom``/``top`` code the tails: values below ``bottom``
    become ``<bottom`` and values at or above ``top`` become ``>=top`` at every level (top-coding keeps
    rare extreme values, e.g. ages over 90, from standing out); an interval that reaches past ``top`` is
    cut at ``top`` in its label. ``label`` formats an interval from ``{lo}`` (its first value), ``{hi}``
    (the first value of the next interval) and ``{last}`` (``{hi}`` minus 1: its last value, for whole
    numbers); :data:`INTERVAL_LABELS` holds the styles the workbench offers.

    Leaves are the distinct values as their original strings, in numeric order.

    Raises ConfigError for widths that do not nest or bounds in the wrong order, HierarchyError listing
    the values that are not numbers.
    """
    ws = _check_widths(widths)
    if bottom is not None and top is not None and not bottom < top:
        raise ConfigError(
            _(
                "The bottom code must be below the top code; got bottom={bottom}, top={top}.",
                bottom=bottom,
                top=top,
            ),
            where="bottom",
        )
    try:
        label.format(lo="0", hi="1", last="0")
    except (KeyError, IndexError, ValueError):
        raise ConfigError(
            _("The interval label must use only {{lo}}, {{hi}} and {{last}}; got '{label}'.", label=label),
            hint=_("For example [{lo}-{hi}) or {lo}-{last}."),
            where="label",
        ) from None
    distinct, has_missing = _distinct_values(values)
    x = parse_numbers(distinct)  # "12,5" and "1 234,50" too, as the column writes them
    bad = ~np.isfinite(x)
    if bad.any():
        raise HierarchyError(
            _(
                "The column '{column}' has values that are not numbers: {values}.",
                column=attribute,
                values=_show_list(distinct[bad]),
            ),
            hint=_("Fix these values in the data, or use a grouping or masking hierarchy for this column."),
            where=f"{attribute}={distinct[bad][0]}",
        )
    order = _sorted_order(x, distinct)
    distinct, x = distinct[order], x[order]
    origin = float(bottom) if bottom is not None else 0.0
    below = x < bottom if bottom is not None else np.zeros(len(x), dtype=bool)
    above = x >= top if top is not None else np.zeros(len(x), dtype=bool)
    levels = []
    for w in ws:
        lo = origin + np.floor((x - origin) / w + 1e-9) * w
        hi_cap = float(top) if top is not None else math.inf

        def fmt(a: float, w: float = w, hi_cap: float = hi_cap) -> str:
            hi = min(a + w, hi_cap)
            return label.format(lo=_format_number(a), hi=_format_number(hi), last=_format_number(hi - 1))

        labels = _labels_from_uniques(lo, fmt)
        labels[below] = f"<{_format_number(bottom)}" if bottom is not None else ""
        labels[above] = f">={_format_number(top)}" if top is not None else ""
        levels.append(labels)
    return _assemble(attribute, distinct, levels, has_missing)


def _nice_ceil(raw: float) -> float:
    """Smallest number of the form 1, 2 or 5 times a power of ten that is >= ``raw``."""
    e = math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * 10.0**e >= raw * (1 - 1e-12):
            return float(f"{m}e{e}")
    return float(f"1e{e + 1}")


def _next_nice(w: float) -> float:
    """The next "nice" width that is a multiple of ``w``: 1 -> 2 -> 10 -> 20 -> 100, 5 -> 10."""
    e = math.floor(math.log10(w) + 1e-12)
    m = round(w / 10.0**e)
    nxt = {1: 2, 2: 10, 5: 10}.get(m, 10)
    return float(f"{nxt}e{e}")


def suggest_widths(low: float, high: float, integer: bool = True, levels: int = 3) -> tuple[float, ...]:
    """Nested "nice" interval widths for values in ``[low, high]``.

    The first width splits the range into about 10-20 intervals, each next width is the next nice
    multiple (5, 10, 20 for ages 17-90, as in the ARX adult hierarchy); widths wider than the range
    are dropped (they would make one interval of everything, which the root already does). Integer
    columns get widths of at least 2 (an interval of width 1 is the value itself).
    """
    span = float(high) - float(low)
    if not math.isfinite(span) or span <= 0:
        return ()
    w = _nice_ceil(span / 20)
    if integer:
        w = max(w, 2.0)
    out = [w]
    while len(out) < levels and _next_nice(out[-1]) <= span:
        out.append(_next_nice(out[-1]))
    return tuple(int(v) if integer else v for v in out)


# ------------------------------------------------------------------------------------------- dates
def _parse_dates(attribute: str, distinct: np.ndarray, date_format: str | None) -> pd.Series:
    """The distinct values as dates, all read with ONE format: ``date_format``, or the known format most
    of them fit (:mod:`kanon_engine.data.dates`); a value that does not fit is an error, never guessed."""

    s = pd.Series(distinct, dtype=object)
    fmt = date_format or date_fit(s, None, attribute).format
    dt = parse_dates(s, fmt) if fmt else pd.Series(pd.NaT, index=s.index)
    bad = dt.isna().to_numpy()
    if bad.any():
        if fmt:
            message = _(
                "The column '{column}' has values that are not dates in the format {format}: {values}.",
                column=attribute,
                format=describe_date_format(fmt),
                values=_show_list(distinct[bad]),
            )
        else:
            message = _(
                "The column '{column}' has values that are not dates: {values}.",
                column=attribute,
                values=_show_list(distinct[bad]),
            )
        raise HierarchyError(
            message,
            hint=_(
                "A column is read with one date format: give the format (for example %d.%m.%Y), fix "
                "these values in the data, or treat the column as text."
            ),
            where=f"{attribute}={distinct[bad][0]}",
        )
    return dt


def date_hierarchy(
    attribute: str,
    values: Values,
    date_format: str | None = None,
    levels: Sequence[str] = ("month", "year", "decade"),
    style: str = "iso",
) -> Hierarchy:
    """Dates -> month (``1965-09``) -> year (``1965``) -> decade (``1960-1969``) -> ``*``.

    ``levels`` picks, finest first, from ``day`` (``1965-09-20``), ``month``, ``quarter``
    (``1965-Q3``), ``year``, ``decade`` and ``century`` (``1900-1999``); Sweeney's birth-date DGH
    (Sweeney 2002) is ``("year", "decade")``. ``date_format`` is a strftime format such as ``%d.%m.%Y``;
    without it, the one known format most values fit; every value must fit the one format (a column
    mixing formats is an error naming the values, never read by guessing). Leaves are the original
    strings in chronological order.

    ``style`` (:data:`DATE_STYLES`): ``iso`` writes the labels above; ``language`` writes days, months
    and quarters as the current language does (:mod:`kanon_engine.i18n.formats`): ``20.09.1965``,
    ``09.1965``, ``Q3 1965`` in German, ``20/09/1965``, ``09/1965``, ``T3 1965`` in French. The labels
    are data (they are written into the release); :func:`kanon_engine.present.calendar_steps.label_interval`
    reads both styles of every language back as periods, for the charts.
    """
    if style not in DATE_STYLES:
        raise ConfigError(
            _(
                "The date labels must be {choices}; got '{value}'.",
                choices=", ".join(DATE_STYLES),
                value=style,
            ),
            where="style",
        )
    levels = tuple(levels)
    unknown = [lv for lv in levels if lv not in DATE_LEVELS]
    ranks = [DATE_LEVELS.index(lv) for lv in levels if lv in DATE_LEVELS]
    if unknown or any(b <= a for a, b in zip(ranks, ranks[1:])):
        raise ConfigError(
            _(
                "Date levels must be taken, finest first, from {values}; got ({values2}).",
                values=", ".join(DATE_LEVELS),
                values2=", ".join(map(str, levels)),
            ),
            hint=_("For example month, year, decade."),
            where="levels",
        )
    distinct, has_missing = _distinct_values(values)
    dt = _parse_dates(attribute, distinct, date_format)
    key = dt.to_numpy(dtype="datetime64[us]").astype(np.int64)
    order = _sorted_order(key, distinct)
    distinct, dt = distinct[order], dt.iloc[order].reset_index(drop=True)
    year = dt.dt.year.to_numpy(dtype=np.int64)
    month = dt.dt.month.to_numpy(dtype=np.int64)
    day = dt.dt.day.to_numpy(dtype=np.int64)
    keys = {
        "day": year * 10000 + month * 100 + day,
        "month": year * 100 + month,
        "quarter": year * 10 + (month - 1) // 3 + 1,
        "year": year,
        "decade": year // 10 * 10,
        "century": year // 100 * 100,
    }
    words = _date_words(style)
    columns = [_labels_from_uniques(keys[lv], words[lv]) for lv in levels]
    return _assemble(attribute, distinct, columns, has_missing)


def _date_words(style: str) -> dict[str, Any]:
    """The label of each date level's key (see :func:`date_hierarchy`), in ``style``."""

    words: dict[str, Any] = {
        "day": lambda k: f"{k // 10000:04d}-{k // 100 % 100:02d}-{k % 100:02d}",
        "month": lambda k: f"{k // 100:04d}-{k % 100:02d}",
        "quarter": lambda k: f"{k // 10:04d}-Q{k % 10}",
        "year": lambda k: f"{k:04d}",
        "decade": lambda k: f"{k:04d}-{k + 9:04d}",
        "century": lambda k: f"{k:04d}-{k + 99:04d}",
    }
    if style == "language":
        words["day"] = lambda k: formats.date(dt.date(k // 10000, k // 100 % 100, k % 100))
        words["month"] = lambda k: formats.month_number_year(k // 100, k % 100)
        words["quarter"] = lambda k: formats.quarter_year(k // 10, k % 10)
    return words


# ----------------------------------------------------------------------------------------- masking
def code_shapes(values: pd.Series) -> pd.Series:
    """The shape of each code: every digit written ``9``, every letter ``A``, other characters as they
    are (``06400`` -> ``99999``, ``I10.9`` -> ``A99.9``, ``inconnu`` -> ``AAAAAAA``)."""
    text = values.astype(str)
    return text.str.replace(r"[0-9]", "9", regex=True).str.replace(r"[^\W\d_]", "A", regex=True)


def dominant_shape(values: Values) -> tuple[str, np.ndarray, np.ndarray]:
    """The code shape most records have (ties: the longest, then the first), the distinct non-missing
    values (sorted as text), and which of them have that shape. The masking hierarchy masks those; the
    others (a word such as "inconnu", a code of another length) are no such code."""
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    text = series[series.notna()].astype(str)
    text = text[text != ""]
    if not len(text):
        return "", np.empty(0, dtype=object), np.zeros(0, dtype=bool)
    counts = text.value_counts(sort=False)
    distinct = np.asarray(sorted(counts.index), dtype=object)
    shapes = code_shapes(pd.Series(distinct, dtype=object))
    weight = counts.reindex(distinct).to_numpy()
    per_shape = pd.Series(weight, index=shapes.to_numpy()).groupby(level=0, sort=False).sum()
    ranked = sorted(per_shape.items(), key=lambda kv: (-kv[1], -len(kv[0])))
    shape = str(ranked[0][0])
    return shape, distinct, (shapes == shape).to_numpy()


def masking_hierarchy(attribute: str, values: Values, max_masked: int | None = None) -> Hierarchy:
    """Codes masked from the right, one character per level: ``02138 -> 0213* -> 021** -> ... -> *``.

    This is Sweeney's ZIP-code DGH (Sweeney 2002): the leading characters of a hierarchical code (ZIP,
    ICD, phone prefix) carry its coarse meaning. Only the values of the column's dominant code shape
    (:func:`dominant_shape`: 5-digit postcodes, say) are masked: with ``n`` their length, level ``j``
    keeps their first ``n - j`` characters and writes ``*`` for the rest, for ``j = 1 .. n - 1`` (or up
    to ``max_masked`` characters), then the root ``*``. A value of another shape (a word such as
    "inconnu", a code of another length) is no such code: masking it would print a code that does not
    exist ("inconn*", or "0******" beside 5-digit codes), so it is ``*`` from level 1 on (it tells
    nothing, like a suppressed value). Missing cells keep their own ``(missing)`` group below the root.
    A level that would repeat the one below is left out. Leaves are sorted as text, so codes sharing a
    prefix sit together.
    """
    if max_masked is not None and (
        isinstance(max_masked, bool) or not isinstance(max_masked, int) or max_masked < 0
    ):
        raise ConfigError(
            _(
                "max_masked must be a whole number >= 0 (or None for all); got {max_masked}.",
                max_masked=repr(max_masked),
            ),
            where="max_masked",
        )
    _values, has_missing = _distinct_values(values)
    shape, distinct, fits = dominant_shape(values if isinstance(values, pd.Series) else list(values))
    s = pd.Series(distinct, dtype=object)
    n = len(shape)
    steps = max(n - 1, 0) if max_masked is None else min(max_masked, max(n - 1, 0))
    levels: list[np.ndarray] = []
    for j in range(1, steps + 1):
        masked = (s.str.slice(0, n - j) + "*" * j).to_numpy(dtype=object)
        level = np.where(fits, masked, ROOT)
        if not levels or not np.array_equal(level, levels[-1]):
            levels.append(level)
    if levels and np.all(levels[-1] == ROOT):
        levels.pop()  # the root itself follows
    return _assemble(attribute, distinct, levels, has_missing)


def masking_misfits(values: Values) -> tuple[str, list[str], int]:
    """What the masking hierarchy does not mask: the dominant code shape, the distinct values of other
    shapes (most frequent first) and how many records hold them (for the wizard's sentence)."""
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    shape, distinct, fits = dominant_shape(series)
    others = distinct[~fits]
    text = series[series.notna()].astype(str)
    counts = text[text.isin(set(others))].value_counts()
    return shape, [str(v) for v in counts.index], int(counts.sum())


# ---------------------------------------------------------------------------------------- grouping
def grouping_hierarchy(attribute: str, values: Values, groups: Sequence[Mapping[str, str]]) -> Hierarchy:
    """Categories grouped level by level from a user mapping (the DGH of a categorical attribute).

    ``groups[0]`` maps each value to its group at level 1, ``groups[1]`` each level-1 group to its group
    at level 2, and so on. The root ``*`` is added on top unless the last mapping already sends
    everything to ``*``. Missing values get the ``(missing)`` chain unless ``groups[0]`` maps ``""``.
    Leaves are ordered so that members of a group sit together, groups in the order the mapping names
    them. Each mapping is a function, so the result is always a tree.

    Raises HierarchyError listing the values (or groups) a mapping leaves out.
    """
    distinct, has_missing = _distinct_values(values)
    if has_missing and groups and MISSING in groups[0]:
        distinct = np.append(distinct, MISSING)
        has_missing = False
    current = pd.Series(distinct, dtype=object)
    levels: list[np.ndarray] = []
    ranks: list[np.ndarray] = []
    for j, mapping in enumerate(groups, start=1):
        table = {str(k): str(v) for k, v in mapping.items()}
        mapped = current.map(table)
        unmapped = mapped.isna().to_numpy()
        if unmapped.any():
            names = pd.unique(current[unmapped].to_numpy(dtype=object))
            if j == 1:
                text = _(
                    "The grouping of '{column}' gives no group at level {level} to these values: {values}."
                )
            else:
                text = _(
                    "The grouping of '{column}' gives no group at level {level} to these groups of level "
                    "{below}: {values}."
                )
            raise HierarchyError(
                text.format(column=attribute, level=j, below=j - 1, values=_show_list(names)),
                hint=_("Add them to the mapping of level {level}.", level=j),
                where=f"{attribute}={names[0]}",
            )
        if j == 1:
            ranks.append(pd.Index(list(table)).get_indexer(current))
        ranks.append(pd.Index(pd.unique(np.asarray(list(table.values()), dtype=object))).get_indexer(mapped))
        levels.append(mapped.to_numpy(dtype=object))
        current = mapped
    if ranks:
        order = np.lexsort(tuple(ranks))
        distinct = distinct[order]
        levels = [c[order] for c in levels]
    add_root = not (levels and bool((levels[-1] == ROOT).all()))
    return _assemble(attribute, distinct, levels, has_missing, add_root=add_root)


# ----------------------------------------------------------------------------------------- default
_CODE = re.compile(r"\d+")
_INT = re.compile(r"[+-]?\d+")


def _looks_like_code(distinct: np.ndarray) -> bool:
    """Digit strings of one length with a leading zero or at least 5 digits: ZIP-like codes.

    Ages (``17``..``90``) or years (``1965``) are digit strings of one length too, but intervals suit
    them better, hence the leading-zero / length test.
    """
    if len(distinct) < 2:
        return False
    s = pd.Series(distinct, dtype=object)
    if not s.str.fullmatch(_CODE).all():
        return False
    lengths = s.str.len()
    n = int(lengths.iloc[0])
    return bool((lengths == n).all() and n >= 2 and (n >= 5 or s.str.startswith("0").any()))


def _guess_kind(distinct: np.ndarray) -> str:
    """integer / decimal / date / categorical, for when no detected column type is given."""
    s = pd.Series(distinct, dtype=object)
    if s.str.fullmatch(_INT).all():
        return "integer"
    if np.isfinite(parse_numbers(s)).all():
        return "decimal"
    dated = s.str.contains(r"\d").all() and s.str.contains(r"[-/.]").all()
    if dated and date_fit(s).misfits == 0:  # one format fits every value
        return "date"
    return "categorical"


def default_hierarchy(attribute: str, series: pd.Series, column_type: ColumnType | None = None) -> Hierarchy:
    """A sensible first hierarchy for any column, for the user to refine.

    - dates -> :func:`date_hierarchy` (month, year, decade);
    - digit codes of one length with a leading zero or 5+ digits (ZIP-like) -> :func:`masking_hierarchy`;
    - integers and decimals -> :func:`interval_hierarchy` with widths from :func:`suggest_widths`
      (about 10-20 intervals at level 1, then the next nice multiples: 5, 10, 20 for ages);
    - anything else (or a column whose values do not all fit its type) -> flat: value -> ``*``,
      leaves in alphabetical order.

    ``column_type`` is the import's detected type (its kind and date format); without it the kind is
    guessed from the values. Missing values get the ``""`` leaf -> ``(missing)`` ... -> ``*`` (see the
    module docstring). Never raises for odd data: it falls back to the flat hierarchy.
    """
    distinct, has_missing = _distinct_values(series)
    if len(distinct) == 0:
        return Hierarchy.from_rows(attribute, [[MISSING, ROOT]])
    kind = str(column_type.kind.value) if column_type is not None else _guess_kind(distinct)
    try:
        if kind == "date":
            fmt = column_type.date_format if column_type is not None else None
            return date_hierarchy(attribute, series, fmt)
        if _looks_like_code(distinct):
            return masking_hierarchy(attribute, series)
        if kind in ("integer", "decimal"):
            x = parse_numbers(distinct, column_type.number_format if column_type is not None else None)
            if np.isfinite(x).all():
                widths = suggest_widths(
                    x.min(), x.max(), integer=kind == "integer" and bool((x == np.round(x)).all())
                )
                if widths:
                    return interval_hierarchy(attribute, series, widths)
    except HierarchyError:
        pass
    leaves = np.asarray(sorted(distinct), dtype=object)
    return _assemble(attribute, leaves, [], has_missing)
