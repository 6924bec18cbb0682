"""Numbers, percentages and dates as the reader's language writes them (CLDR, through Babel).

``count(2000)``: ``2,000`` (en), ``2.000`` (de), ``2 000`` (fr, a no-break space), ``2000`` (es:
CLDR groups Spanish numbers only from five digits, ``30.162``). ``percent(0.046)``: ``4.6 %`` (en, the
house style, with a space), ``4,6 %`` (de, fr, es: CLDR's patterns, with a no-break space). Dates keep
four-digit years (``31.12.2024``, ``31/12/2024``); English keeps ``2024-12-31``, which no reader
misreads. Only what kanon writes is formatted this way: the data is never reformatted.

Parsing goes the other way for what a user types: ``0,05``, ``0.05``, ``5 %`` and ``5%`` all read as
0.05 (:func:`parse_share`), and ``2.000`` reads as 2000 in German (:func:`parse_number`).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from functools import cache
from typing import Any, Literal

from kanon_engine.i18n.catalog import PSEUDO, SOURCE_LANGUAGE
from kanon_engine.i18n.lookup import current_language

#: CLDR's minimumGroupingDigits where it is 2 (Babel 2.18 does not apply it): no separator in 4-digit
#: numbers (``2000``) but in longer ones (``30.162``).
_MIN_GROUPING = {"es": 2, "pl": 2, "pt_PT": 2}
#: How far a value is rounded when it is shown as a plain decimal.
_DECIMALS = 2


def _locale_code(language: str | None) -> str:
    code = language or current_language()
    return "de" if code == PSEUDO else code  # the pseudo-locale writes numbers the German way


@cache
def _locale(code: str) -> Any:
    from babel import Locale

    return Locale.parse(code)


def _symbols(code: str) -> dict[str, str]:
    loc = _locale(code)
    data = loc.number_symbols
    symbols = dict(data.get("latn", data))
    # French: CLDR's narrow no-break space (U+202F) all but vanishes at screen sizes; a full no-break
    # space, as French Excel writes it, reads as a gap and still never breaks a number
    return {k: v.replace("\u202f", "\u00a0") for k, v in symbols.items()}


def count(n: int | float, language: str | None = None) -> str:
    """A whole number with the language's thousands separator: ``30,162`` / ``30.162`` / ``30 162``."""
    from babel.numbers import format_decimal

    code = _locale_code(language)
    n = int(round(n))
    grouping = abs(n) >= 10 ** (3 + _MIN_GROUPING.get(code, 1) - 1)
    return _spaces(format_decimal(n, format="#,##0", locale=_locale(code), group_separator=grouping))


def decimal(x: float, digits: int = _DECIMALS, language: str | None = None, *, fixed: bool = False) -> str:
    """``1.2345`` -> ``1.23`` / ``1,23``; ``fixed`` keeps trailing zeros (``1,20``)."""
    from babel.numbers import format_decimal

    code = _locale_code(language)
    if not math.isfinite(x):
        return "∞" if x > 0 else ("-∞" if x < 0 else "–")
    frac = ("0" if fixed else "#") * digits
    pattern = "#,##0" + ("." + frac if digits else "")
    grouping = abs(x) >= 10 ** (3 + _MIN_GROUPING.get(code, 1) - 1)
    return _spaces(format_decimal(x, format=pattern, locale=_locale(code), group_separator=grouping))


def _spaces(text: str) -> str:
    return text.replace("\u202f", "\u00a0")


def percent(share: float, digits: int = 1, language: str | None = None) -> str:
    """A share as a percentage: ``0.046`` -> ``4.6 %`` (en) / ``4,6 %`` (de, fr, es)."""
    code = _locale_code(language)
    number = decimal(100 * share, digits, code, fixed=True)
    if code == SOURCE_LANGUAGE:
        return f"{number} %"
    pattern = _locale(code).percent_formats[None].pattern
    sign = _symbols(code).get("percentSign", "%")
    core = pattern.split(";")[0]
    before, _, after = core.partition("0")
    after = after.lstrip("0#,.")
    before = before.rstrip("#,")
    return before.replace("%", sign) + number + after.replace("%", sign)


def decimal_separator(language: str | None = None) -> str:
    return _symbols(_locale_code(language)).get("decimal", ".")


def group_separator(language: str | None = None) -> str:
    return _symbols(_locale_code(language)).get("group", ",")


@cache
def _date_pattern(code: str) -> str:
    if code == SOURCE_LANGUAGE:
        return "yyyy-MM-dd"
    pattern = _locale(code).date_formats["short"].pattern
    # always four-digit years (CLDR's short German date is 31.12.24); two-digit day and month
    pattern = pattern.replace("yyyy", "y").replace("yy", "y").replace("y", "yyyy")
    if "dd" not in pattern:
        pattern = pattern.replace("d", "dd")
    if "MM" not in pattern:
        pattern = pattern.replace("M", "MM")
    return pattern


def date(value: dt.date | dt.datetime, language: str | None = None) -> str:
    """``31.12.2024`` (de), ``31/12/2024`` (fr, es), ``2024-12-31`` (en)."""
    from babel.dates import format_date

    code = _locale_code(language)
    day = value.date() if isinstance(value, dt.datetime) else value
    return format_date(day, _date_pattern(code), locale=_locale(code))


def date_time(value: dt.datetime, language: str | None = None) -> str:
    """The date as :func:`date` writes it and the time to the minute (24-hour clock), with its UTC
    offset when it has one: ``31.12.2024 14:05 +0100``."""
    zone = value.strftime("%z")
    return f"{date(value, language)} {value.strftime('%H:%M')}" + (f" {zone}" if zone else "")


#: Short month names in kanon's English (no CLDR dots): the axis labels of date charts.
_ENGLISH_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def month_names(language: str | None = None) -> tuple[str, ...]:
    """The twelve short month names, January first: ``Jan … Dec`` (en), ``Jan. … März … Dez.`` (de),
    ``janv. … mars …`` (fr), ``ene … mar …`` (es), as CLDR abbreviates them inside a date."""
    from babel.dates import get_month_names

    code = _locale_code(language)
    if code == SOURCE_LANGUAGE:
        return _ENGLISH_MONTHS
    names = get_month_names("abbreviated", context="format", locale=_locale(code))
    return tuple(names[m] for m in range(1, 13))


def month_year(year: int, month: int, language: str | None = None) -> str:
    """A month of a year on a chart: ``Mar 2022``, ``März 2022``, ``mars 2022`` (``month`` 1-12)."""
    return f"{month_names(language)[month - 1]} {year}"


def month_number_year(year: int, month: int, language: str | None = None) -> str:
    """A month as the language writes dates, without the day: ``2022-03`` (en), ``03.2022`` (de),
    ``03/2022`` (fr, es). The words of a date hierarchy's month in the language's style."""

    from babel.dates import format_date

    code = _locale_code(language)
    pattern = re.sub(r"d+[^\w']*|[^\w']*d+", "", _date_pattern(code), count=1)
    return format_date(dt.date(year, month, 1), pattern, locale=_locale(code))


def quarter_year(year: int, quarter: int, language: str | None = None) -> str:
    """A quarter of a year as CLDR abbreviates it: ``Q1 2022`` (en, de), ``T1 2022`` (fr, es:
    *trimestre*). The words of a date hierarchy's quarter, and of a chart's quarter bins."""
    from babel.dates import format_skeleton

    code = _locale_code(language)
    return format_skeleton("yQQQ", dt.date(year, 3 * quarter - 2, 1), locale=_locale(code))


def day_month_year(value: dt.date, language: str | None = None) -> str:
    """A day on a chart axis: ``5 Mar 2022`` (en), ``5. März 2022`` (de), ``5 mars 2022`` (fr, es)."""
    code = _locale_code(language)
    day = f"{value.day}." if code == "de" else str(value.day)
    return f"{day} {month_names(language)[value.month - 1]} {value.year}"


#: Languages whose typography puts a (no-break) space before ";" ":" "!" "?" (French).
_SPACED_PUNCTUATION = ("fr",)


def join_clauses(items: Sequence[str], language: str | None = None) -> str:
    """Clauses of one sentence joined by semicolons, the language's way: ``a; b`` (en, de, es),
    ``a ; b`` (fr, a no-break space before the semicolon)."""
    code = _locale_code(language)
    separator = "\u00a0; " if code.split("_")[0] in _SPACED_PUNCTUATION else "; "
    return separator.join(items)


def join(items: Sequence[str], language: str | None = None, *, either: bool = False) -> str:
    """``a, b and c`` (en, the house style) / ``a, b und c`` / ``a, b et c`` / ``a, b y c`` (CLDR's
    list patterns); ``either``: ``a, b or c`` (``oder``, ``ou``, ``o``)."""
    from babel.lists import format_list

    items = [str(i) for i in items]
    code = _locale_code(language)
    if len(items) > 2 and code == SOURCE_LANGUAGE:  # the house style, without the serial comma
        return ", ".join(items[:-1]) + (" or " if either else " and ") + items[-1]
    style: Literal["or", "standard"] = "or" if either else "standard"
    return format_list(items, style=style, locale=_locale(code)) if items else ""


# --- parsing what a user types --------------------------------------------------------------------------
def parse_number(value: Any, language: str | None = None) -> float:
    """A number typed in any of kanon's languages: a decimal point or comma (``0.05``, ``0,05``), and
    the language's thousands separator (``2.000`` in German, ``2 000`` in French). Raises ValueError."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, (int, float)):
        if not math.isfinite(float(value)):
            raise ValueError(value)
        return float(value)
    text = str(value).strip()
    for space in ("\u00a0", "\u202f", "\u2009", " "):
        text = text.replace(space, "")
    code = _locale_code(language)
    group, dec = group_separator(code), decimal_separator(code)
    if group in (".", ",") and text.count(group) >= 1 and dec in text:
        text = text.replace(group, "")  # 1.234,5 in German
    elif group == "." and dec == "," and _is_grouped(text, "."):
        text = text.replace(".", "")  # 2.000 in German, Spanish
    elif group == "," and _is_grouped(text, ","):
        text = text.replace(",", "")  # 2,000 in English
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(value)
    return number


def _is_grouped(text: str, sep: str) -> bool:
    """``2.000`` or ``1.234.567`` (groups of three after the first): a thousands separator, not a
    decimal point. ``0.05`` and ``2.5`` are decimals."""
    head, *groups = text.lstrip("+-").split(sep)
    return (
        bool(groups) and head.isdigit() and head != "0" and all(len(g) == 3 and g.isdigit() for g in groups)
    )


def parse_share(value: Any, language: str | None = None) -> float:
    """A share typed as a fraction or a percentage: ``0.05``, ``0,05``, ``5 %``, ``5%`` -> 0.05."""
    if isinstance(value, str) and value.strip().endswith("%"):
        return parse_number(value.strip()[:-1], language) / 100
    return parse_number(value, language)


def format_number_for(value: Any, language: str | None = None) -> str:
    """An int as :func:`count`, a float as :func:`decimal`, anything else as ``str``: how ``_()`` fills
    a placeholder given a number."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return count(value, language)
    if isinstance(value, float):
        return (
            count(value, language)
            if value.is_integer() and abs(value) < 1e15
            else decimal(value, 3, language)
        )
    return str(value)


__all__ = [
    "count",
    "date",
    "date_time",
    "decimal",
    "decimal_separator",
    "format_number_for",
    "group_separator",
    "join",
    "parse_number",
    "parse_share",
    "percent",
]
