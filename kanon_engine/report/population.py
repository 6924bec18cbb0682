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


#: Where the population a report's estimates use came from (``risk.population.source``): the run's model,
#: a population table, typed in the Risk tab, none.
FROM_MODEL, FROM_TABLE, FROM_RISK_TAB, NO_POPULATION = "model", "table", "typed", "none"


def _estimator_words(model: Any) -> str:
    """The model's choice of estimator in words: its choice parameters with the chosen value (the
    population model of population uniqueness, the estimator of k-map), "" when it has none."""
    words = [
        f"{spec.shown_label}: {spec.choice_label(str(getattr(model, spec.name)))}"
        for spec in type(model).params
        if spec.kind == "choice" and getattr(model, spec.name, None) is not None
    ]
    return "; ".join(words)


def population_assumption(config: Any, typed: int | None = None) -> dict[str, Any]:
    """The population a report's estimates assume and where it came from: the run's privacy model that
    names a population size (its words and its estimator), a model counting a population table, a size
    typed in the workbench's Risk tab (``typed``; the run's model wins), or none."""
    models = tuple(getattr(config, "models", ()))
    for m in models:
        if getattr(m, "population_size", None):
            return {
                "size": int(m.population_size),
                "source": FROM_MODEL,
                "model": m.short(),
                "estimator": _estimator_words(m),
            }
    for m in models:
        if getattr(m, "population_table", ""):
            return {"size": None, "source": FROM_TABLE, "model": m.short(), "estimator": ""}
    if typed:
        return {"size": int(typed), "source": FROM_RISK_TAB, "model": None, "estimator": ""}
    return {"size": None, "source": NO_POPULATION, "model": None, "estimator": ""}


def assumption_sentence(assumed: Mapping[str, Any]) -> str:
    """The report's sentence on the population assumed: its size, where it came from, the model and
    the estimator, and what the figures are (estimates; a table's counts only as good as the table)."""
    source = assumed.get("source")
    if source == FROM_MODEL:
        text = _(
            "Population assumed: {population}, set in the run's privacy model ({model}).",
            population=population_words(int(assumed["size"])),
            model=assumed["model"],
        )
        if assumed.get("estimator"):
            text += " " + _("Estimator: {estimator}.", estimator=assumed["estimator"])
        return (
            text
            + " "
            + _(
                "The release was made to meet this model under this assumption; a population of another "
                "size gives other figures."
            )
        )
    if source == FROM_TABLE:
        return _(
            "Population: counted in the population table of the run's privacy model ({model}). Its "
            "guarantee is only as good as that table: a table of another population, or an outdated "
            "one, bounds nothing.",
            model=assumed["model"],
        )
    if source == FROM_RISK_TAB:
        return _(
            "Population assumed: {population}, typed in the Risk tab for this report. The run's privacy "
            "models assume no population, so the release was not made to bound the estimates below.",
            population=population_words(int(assumed["size"])),
        )
    return _(
        "No population size was given (neither by the run's privacy models nor in the Risk tab), so "
        "the share of the population that is unique is not estimated."
    )


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
