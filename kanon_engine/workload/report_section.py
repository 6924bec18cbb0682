"""The report's "Fitness for the intended analyses" section, from a workload evaluation's dict.

Plain words for readers who are not specialists: how far the release's answers to the analyses it is
meant for are from the true answers, and how many of those analyses it answers exactly.

The section shows the headline figures and the queries the release answers worst; every query is listed
in an appendix at the end of the report, in a table whose query column takes half the page (the walk of
issue 27 found 100 generated queries squeezed into a column eight characters wide over twelve pages).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kanon_engine.i18n import _, formats
from kanon_engine.workload.generate import describe_source

#: Queries shown in the section itself: those with the largest errors (all are in the appendix and in
#: the JSON report).
WORST = 10
#: Column widths (percent of the page) of the query tables: the query text gets the room it needs.
WIDTHS = (47, 13, 15, 10, 15)
APPENDIX_WIDTHS = (5, 43, 12, 15, 10, 15)


def percent(x: float | None) -> str:
    """A share or relative error as a percentage with one decimal ("12.3 %", "12,3 %" in German); two
    below 0.1 %; a dash when unknown."""
    if x is None:
        return "–"
    return formats.percent(x, 1 if abs(x) >= 0.001 or x == 0 else 2)


def error_text(q: Mapping[str, Any]) -> str:
    """A query's error as shown: a percentage (relative), or the difference itself when the truth is 0."""
    if q.get("error") is None:
        return _("no true answer")
    if q.get("error_kind") == "absolute":
        return _("{difference} (true answer is 0)", difference=formats.decimal(float(f"{q['error']:.3g}"), 6))
    return percent(q["error"])


def answer_text(x: float | None) -> str:
    if x is None:
        return _("none")
    return formats.count(x) if float(x).is_integer() else formats.decimal(x, 2, fixed=True)


def summary_rows(w: Mapping[str, Any]) -> list[list[str]]:
    """The headline figures with their names."""
    rows = [
        [_("Queries in the workload"), formats.count(w["queries_total"])],
        [_("Mean relative error (weighted)"), percent(w["mean_error"])],
        [_("Median relative error (weighted)"), percent(w["median_error"])],
        [
            _("Queries the release answers without spreading (predicate matches the groups)"),
            percent(w["match_share"]),
        ],
    ]
    if w["queries_answered"] < w["queries_total"]:
        rows.append(
            [
                _("Queries without a true answer (left out)"),
                formats.count(w["queries_total"] - w["queries_answered"]),
            ]
        )
    if w.get("suppressed_rows_in_release"):
        rows.append(
            [
                _("Suppressed records in the release (counted as unknown)"),
                formats.count(w["suppressed_rows_in_release"]),
            ]
        )
    if w.get("dropped_rows"):
        rows.append([_("Records dropped from the release (not counted)"), formats.count(w["dropped_rows"])])
    return rows


def _row(q: Mapping[str, Any]) -> list[str]:
    """A query as a table row: query, true answer, estimate, error, matches."""
    return [
        q["query"],
        answer_text(q["true"]),
        answer_text(q["estimate"]),
        error_text(q),
        _("yes") if q["matches"] else _("no"),
    ]


def query_rows(w: Mapping[str, Any]) -> list[list[str]]:
    """Every query in the workload's order, numbered: #, query, true answer, estimate, error, matches."""
    return [[formats.count(i), *_row(q)] for i, q in enumerate(w["queries"], start=1)]


def worst_rows(w: Mapping[str, Any], limit: int = WORST) -> list[list[str]]:
    """The ``limit`` queries with the largest errors (a relative error of 10 % before one of 1 %;
    queries without a true answer last), largest first; ties keep the workload's order."""
    queries = list(w["queries"])
    order = sorted(
        range(len(queries)),
        key=lambda i: (queries[i].get("error") is None, -(queries[i].get("error") or 0.0), i),
    )
    return [_row(queries[i]) for i in order[:limit]]


def _headers() -> list[str]:
    return [_("Query"), _("True answer"), _("Estimate from the release"), _("Error"), _("Matches")]


def section(w: Mapping[str, Any] | None, table: Callable[..., Any]) -> dict[str, Any] | None:
    """What the report's template shows in this section (None without workload figures); ``table`` is
    the report's table builder (rows, header, numeric columns). ``queries``: the worst queries (all of
    them, in order, when there are no more than :data:`WORST`); ``appendix``: every query, numbered, for
    the end of the report (None when the section already shows them all)."""
    if not w:
        return None
    source = w["source"]
    if source.startswith("generated"):
        where = _("a generated workload ({description})", description=describe_source(source))
    else:
        where = _("the workload file {source}", source=source)
    n = len(w["queries"])
    more = appendix = None
    if n > WORST:
        queries = {**table(worst_rows(w), _headers(), (1, 2, 3)), "widths": WIDTHS}
        more = _(
            "The {listed} queries with the largest errors, of {n}. The appendix at the end of this report "
            "lists every query (the JSON report too).",
            listed=WORST,
            n=n,
        )
        appendix = {**table(query_rows(w), ["#", *_headers()], (0, 2, 3, 4)), "widths": APPENDIX_WIDTHS}
    else:
        queries = {**table([_row(q) for q in w["queries"]], _headers(), (1, 2, 3)), "widths": WIDTHS}
    note = w["estimator"]  # the note's catalog id (ESTIMATOR_NOTE), said in the report's language
    return {
        "intro": _(
            "How well the release answers {where}: each query's true answer on the original data beside "
            "the answer an analyst estimates from the release. The relative error is the difference "
            "divided by the true answer; 0 % means the release gives the true answer.",
            where=where,
        ),
        "figures": table(summary_rows(w), [_("Figure"), _("Value")], (1,)),
        "queries": queries,
        "more": more,
        "appendix": appendix,
        "estimator": _(note),
    }
