"""The report's "Fitness for the intended analyses" section, from a workload evaluation's dict.

Plain words for readers who are not specialists: how far the release's answers to the analyses it is
meant for are from the true answers, and how many of those analyses it answers exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kanon_engine.i18n import _, formats
from kanon_engine.workload.generate import describe_source

#: Queries listed one by one in the HTML/PDF report (all of them are in the JSON report).
LISTED = 25


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


def query_rows(w: Mapping[str, Any], limit: int = LISTED) -> list[list[str]]:
    """One row per query (the first ``limit``): query, true answer, estimate, error, matches."""
    return [
        [
            q["query"],
            answer_text(q["true"]),
            answer_text(q["estimate"]),
            error_text(q),
            _("yes") if q["matches"] else _("no"),
        ]
        for q in w["queries"][:limit]
    ]


def section(w: Mapping[str, Any] | None, table: Callable[..., Any]) -> dict[str, Any] | None:
    """What the report's template shows in this section (None without workload figures); ``table`` is
    the report's table builder (rows, header, numeric columns)."""
    if not w:
        return None
    source = w["source"]
    if source.startswith("generated"):
        where = _("a generated workload ({description})", description=describe_source(source))
    else:
        where = _("the workload file {source}", source=source)
    more = None
    if len(w["queries"]) > LISTED:
        more = _(
            "The first {listed} of {n} queries; the JSON report lists all.",
            listed=LISTED,
            n=len(w["queries"]),
        )
    note = w["estimator"]  # the note's catalog id (ESTIMATOR_NOTE), said in the report's language
    return {
        "intro": _(
            "How well the release answers {where}: each query's true answer on the original data beside "
            "the answer an analyst estimates from the release. The relative error is the difference "
            "divided by the true answer; 0 % means the release gives the true answer.",
            where=where,
        ),
        "figures": table(summary_rows(w), [_("Figure"), _("Value")], (1,)),
        "queries": table(
            query_rows(w),
            [_("Query"), _("True answer"), _("Estimate from the release"), _("Error"), _("Matches")],
            (1, 2, 3),
        ),
        "more": more,
        "estimator": _(note),
    }
