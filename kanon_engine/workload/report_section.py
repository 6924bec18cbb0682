"""The report's "Fitness for the intended analyses" section, from a workload evaluation's dict.

Plain words for readers who are not specialists: how far the release's answers to the analyses it is
meant for are from the true answers, and how many of those analyses it answers exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Queries listed one by one in the HTML/PDF report (all of them are in the JSON report).
LISTED = 25
QUERY_HEADER = ["Query", "True answer", "Estimate from the release", "Error", "Matches"]


def percent(x: float | None) -> str:
    """A share or relative error as a percentage with one decimal ("12.3 %"); a dash when unknown."""
    if x is None:
        return "–"
    return f"{100 * x:.1f} %" if abs(x) >= 0.001 or x == 0 else f"{100 * x:.2f} %"


def error_text(q: Mapping[str, Any]) -> str:
    """A query's error as shown: a percentage (relative), or the difference itself when the truth is 0."""
    if q.get("error") is None:
        return "no true answer"
    if q.get("error_kind") == "absolute":
        return f"{q['error']:,.3g} (true answer is 0)"
    return percent(q["error"])


def answer_text(x: float | None) -> str:
    if x is None:
        return "none"
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.2f}"


def summary_rows(w: Mapping[str, Any]) -> list[list[str]]:
    """The headline figures with their names."""
    rows = [
        ["Queries in the workload", f"{w['queries_total']:,}"],
        ["Mean relative error (weighted)", percent(w["mean_error"])],
        ["Median relative error (weighted)", percent(w["median_error"])],
        [
            "Queries the release answers without spreading (predicate matches the groups)",
            percent(w["match_share"]),
        ],
    ]
    if w["queries_answered"] < w["queries_total"]:
        rows.append(
            ["Queries without a true answer (left out)", f"{w['queries_total'] - w['queries_answered']:,}"]
        )
    if w.get("suppressed_rows_in_release"):
        rows.append(
            ["Suppressed records in the release (counted as unknown)", f"{w['suppressed_rows_in_release']:,}"]
        )
    if w.get("dropped_rows"):
        rows.append(["Records dropped from the release (not counted)", f"{w['dropped_rows']:,}"])
    return rows


def query_rows(w: Mapping[str, Any], limit: int = LISTED) -> list[list[str]]:
    """One row per query (the first ``limit``): query, true answer, estimate, error, matches."""
    return [
        [
            q["query"],
            answer_text(q["true"]),
            answer_text(q["estimate"]),
            error_text(q),
            "yes" if q["matches"] else "no",
        ]
        for q in w["queries"][:limit]
    ]


def section(w: Mapping[str, Any] | None, table) -> dict[str, Any] | None:
    """What the report's template shows in this section (None without workload figures); ``table`` is
    the report's table builder (rows, header, numeric columns)."""
    if not w:
        return None
    source = w["source"]
    if source.startswith("generated"):
        where = f"a generated workload ({source.removeprefix('generated: ')})"
    else:
        where = f"the workload file {source}"
    more = None
    if len(w["queries"]) > LISTED:
        more = f"The first {LISTED} of {len(w['queries']):,} queries; the JSON report lists all."
    return {
        "intro": f"How well the release answers {where}: each query's true answer on the original data "
        "beside the answer an analyst estimates from the release. The relative error is the difference "
        "divided by the true answer; 0 % means the release gives the true answer.",
        "figures": table(summary_rows(w), ["Figure", "Value"], (1,)),
        "queries": table(
            query_rows(w),
            ["Query", "True answer", "Estimate from the release", "Error", "Matches"],
            (1, 2, 3),
        ),
        "more": more,
        "estimator": w["estimator"],
    }
