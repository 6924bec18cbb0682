"""The report's "Population uniques (estimated)" table: for a run whose privacy models assume a population
(k-map, population uniqueness), the estimated share of people in that population who are alone in their
group, for the original data and the release, by Pitman (1996), Zayatz (1991), SNB (Chen & Keller-McNulty
1998) and the estimator Dankar et al. (2012)'s rule chose
(:mod:`kanon_engine.privacy.population_estimates`, the figures under ``population_uniques`` of the risk
assessments). An estimator without a solution is shown as "no solution", never as 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kanon_engine.i18n import N_, _
from kanon_engine.privacy.population_inputs import population_words
from kanon_engine.report.sentences import pct

#: The estimators by their key in ``population_uniques``, named with their source (the picker's words).
ESTIMATOR_NAMES: dict[str, str] = {
    "pitman": N_("Pitman (1996)"),
    "zayatz": N_("Zayatz (1991)"),
    "snb": N_("SNB (Chen & Keller-McNulty 1998)"),
}


def estimate_text(value: float | None) -> str:
    """An estimated share as a percentage; "no solution" where the estimator has none (never 0)."""
    return _("no solution") if value is None else pct(float(value))


#: The estimators' short names, for what Dankar et al.'s rule chose.
CHOSEN_NAMES: dict[str, str] = {"pitman": N_("Pitman"), "zayatz": N_("Zayatz"), "snb": N_("SNB")}


def chosen_text(found: Mapping[str, Any]) -> str:
    """Which estimator Dankar et al.'s rule chose, in words ("no estimator" when no record is alone)."""
    chosen = found.get("dankar_chooses")
    return _(CHOSEN_NAMES[chosen]) if chosen in CHOSEN_NAMES else _("no estimator (no record is alone)")


def _dankar_cell(found: Mapping[str, Any]) -> str:
    """Dankar et al.'s estimate and the estimator it chose (only the share when none was needed)."""
    share = estimate_text(found["dankar"])
    chosen = found.get("dankar_chooses")
    return _("{share} ({estimator})", share=share, estimator=chosen_text(found)) if chosen else share


def population_section(
    b: Mapping[str, Any], a: Mapping[str, Any], table: Callable[..., Any]
) -> dict[str, Any] | None:
    """The table and its one sentence; None when the run names no population (no estimate to show)."""
    pb, pa = b.get("population_uniques"), a.get("population_uniques")
    if not pb or not pa:
        return None
    rows = [[_(ESTIMATOR_NAMES[key])] + [estimate_text(p[key]) for p in (pb, pa)] for key in ESTIMATOR_NAMES]
    rows.append(
        [
            _("Dankar et al.'s rule"),
            *(_dankar_cell(p) for p in (pb, pa)),
        ]
    )
    sentence = _(
        "These are estimates, not counts: of a population of {population}, the share who would be alone "
        "in their group, estimated from the group sizes of the table. Dankar et al.'s rule chose {before} "
        "for the original data and {after} for the release.",
        population=population_words(int(pa["population_size"])),
        before=chosen_text(pb),
        after=chosen_text(pa),
    )
    return {
        "sentence": sentence,
        "figures": table(rows, [_("Estimator"), _("Original data"), _("Release")], (1, 2)),
    }
