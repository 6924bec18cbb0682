"""What a differentially private release (SafePub, :mod:`kanon_engine.algorithms.safepub`) promised and
spent, for the report: the JSON block ``differential_privacy`` and its sentences in plain words."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from kanon_engine.i18n import _, formats

#: The keys issue 32 names for the JSON report (a contract), then the others SafePub records.
CONTRACT_KEYS = ("epsilon", "delta", "search_budget", "beta", "k", "records_sampled")


def dp_facts(result: Any) -> dict[str, Any] | None:
    """The ``differential_privacy`` block of the report, from the run (None for any other run)."""
    block = getattr(result, "differential_privacy", None)
    return None if block is None else dict(block)


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
