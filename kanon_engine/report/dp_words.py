"""What a differentially private release (SafePub, :mod:`kanon_engine.algorithms.safepub`) promised and
spent, for the report: the JSON block ``differential_privacy`` and its sentences in plain words."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from kanon_engine.i18n import _, formats
from kanon_engine.report.facts import sample_released

#: The keys issue 32 names for the JSON report (a contract), then the others SafePub records.
CONTRACT_KEYS = ("epsilon", "delta", "search_budget", "beta", "k", "records_sampled")


def dp_facts(result: Any, facts: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The ``differential_privacy`` block of the report, from the run (None for any other run), its
    record counts recomputed from the release's ``facts`` when given (:func:`sample_figures`)."""
    block = getattr(result, "differential_privacy", None)
    if block is None:
        return None
    return {**block, **(sample_figures(block, facts) if facts is not None else {})}


def sample_figures(block: Mapping[str, Any], facts: Mapping[str, Any]) -> dict[str, int]:
    """What became of the records given, each count under its own name, from the release's facts (rows
    written, rows of the input not written) and the size of the run's random sample (which records it
    held is reported nowhere): given = left out by the sampling + removed in groups smaller than k +
    released. (Before this split, one "suppressed" figure counted both kinds of left-out records.)"""
    rel = facts["release"]
    released = sample_released(rel, int(block["k"]))
    given = int(rel["records"]) + int(rel["records_dropped"])
    sampled = int(block["records_sampled"])
    return {
        "records_given": given,
        "records_sampled": sampled,
        "records_left_out_by_sampling": given - sampled,
        "records_suppressed_in_small_groups": sampled - released,
        "records_released": released,
    }


def sample_figure_rows(block: Mapping[str, Any], facts: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The counts of :func:`sample_figures` under the names the report and the workbench show."""
    f = sample_figures(block, facts)
    return [
        (_("Records given"), f["records_given"]),
        (_("Records in the random sample"), f["records_sampled"]),
        (_("Records left out by the random sampling"), f["records_left_out_by_sampling"]),
        (
            _("Records removed in groups smaller than {k}", k=formats.decimal(int(block["k"]), 0)),
            f["records_suppressed_in_small_groups"],
        ),
        (_("Records in the release file"), f["records_released"]),
    ]


def metrics_note(block: Mapping[str, Any] | None) -> str | None:
    """Over which records a differentially private release's quality figures are measured."""
    if not block:
        return None
    return _(
        "The quality figures are measured on the random sample of {sampled} records: a record left out by "
        "the sampling counts in none of them; one removed in a group smaller than {k} counts as suppressed.",
        sampled=formats.decimal(int(block["records_sampled"]), 0),
        k=formats.decimal(int(block["k"]), 0),
    )


def dp_sentences(block: Mapping[str, Any] | None) -> list[str]:
    """What (epsilon, delta)-differential privacy means for a patient, that the release is a random
    sample, and that a new run spends the budget again: one sentence each, in the current language."""
    if not block:
        return []
    eps, delta = float(block["epsilon"]), float(block["delta"])
    out = [
        _(
            "This release is differentially private with epsilon = {epsilon} and delta = {delta}: whether "
            "any one patient's record was in the table or not changes the chance of getting this release "
            "by at most a factor of {factor}, except with a probability of at most {delta}.",
            epsilon=formats.decimal(eps, 4),
            delta=formats.decimal(delta, 12),
            factor=formats.decimal(math.exp(eps), 2),
        ),
        _(
            "It is a random sample: each record was kept with probability {beta} ({kept} of {given} "
            "records); which records were left out is itself random and is reported nowhere.",
            beta=formats.decimal(100 * float(block["beta"]), 1) + "\u00a0%",
            kept=formats.decimal(int(block["records_sampled"]), 0),
            given=formats.decimal(int(block.get("records_given", 0)), 0),
        ),
        _(
            "Every group smaller than {k} records was removed: {removed} records of the sample; the file "
            "holds {released}.",
            k=formats.decimal(int(block["k"]), 0),
            removed=formats.decimal(int(block["records_sampled"]) - int(block.get("records_released", 0)), 0),
            released=formats.decimal(int(block.get("records_released", 0)), 0),
        ),
    ]
    if block.get("levels_fixed"):
        out.append(_("The generalization was fixed in advance, so the whole epsilon went to the sampling."))
    else:
        out.append(
            _(
                "{budget} of epsilon was spent on choosing the generalization at random, favouring useful "
                "ones; the rest on the sampling.",
                budget=formats.decimal(float(block["search_budget"]), 4),
            )
        )
    out.append(
        _(
            "Each run makes a new random release and spends the privacy budget again: two releases of the "
            "same table together are protected only by epsilon = {twice}. Publish one release.",
            twice=formats.decimal(2 * eps, 4),
        )
    )
    return out
