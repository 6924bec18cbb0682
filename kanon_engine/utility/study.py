"""Fitness for the study, in one call: the classifiers, the summaries, and the words that say them.

:func:`fitness` is what ``python -m kanon_engine utility``, the workbench's Utility page and the report's
"fitness for the study" section all run, so the three show the same figures. Its JSON shape is the
contract of the issue that asked for it::

    {"target": ..., "features": [...], "encoding": ...,
     "classification": {"majority": 0.75, "majority_release": 0.75,
                        "original": {"logistic_regression": {"accuracy", "auc", "brier"}, ...},
                        "release": {"logistic_regression": {..., "relative_accuracy"}, ...}},
     "summary": {attribute: {"kind", "original": {...}, "release": {...}, "distance"}},
     "moved_most": [attribute, ...]}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from kanon_engine.errors import ConfigError, DataError
from kanon_engine.i18n import _, formats
from kanon_engine.metrics.classification import identifier_target, single_valued_target
from kanon_engine.progress import ProgressCallback, no_progress
from kanon_engine.utility.classifiers import CLASSIFIERS, design, majority, relative_accuracy, scores
from kanon_engine.utility.summaries import summarize
from kanon_engine.utility.values import SUPPRESSED, is_numeric

#: how many attributes the words name as having moved most
MOVED_MOST = 3
#: how released cells become features (the JSON's ``encoding``; :mod:`.classifiers` says it in words):
#: numbers as numbers and ranges as their midpoints, other values as categories (a generalized label
#: being one), the suppression mark and blanks as missing
ENCODING = {"number": "value", "range": "midpoint", "other": "category", "suppressed": "missing"}


def check_study(
    original: pd.DataFrame,
    release: pd.DataFrame,
    target: str,
    features: Sequence[str] | None,
    identifiers: Sequence[str] = (),
) -> list[str]:
    """The features to use (all attributes both tables hold but the target, when none are named), after
    checking the request; one plain sentence for each way it can be wrong."""
    unknown = [c for c in release.columns if c not in original.columns]
    if unknown:
        raise DataError(
            _(
                "The release has a column the data does not have ('{column}'): it was not made from this "
                "table.",
                column=unknown[0],
            ),
            hint=_("Give the data file the release was made from."),
            where=unknown[0],
        )
    if len(release) > len(original):
        raise DataError(
            _(
                "The release has more rows ({release}) than the data ({data}): it was not made from this "
                "table.",
                release=formats.count(len(release)),
                data=formats.count(len(original)),
            ),
            where="release",
        )
    if target in identifiers or (target in original.columns and target not in release.columns):
        raise identifier_target(target, _("Choose an attribute the release keeps."))
    if target not in original.columns:
        raise DataError(
            _("The target '{column}' is not a column of the data.", column=target),
            hint=_("Its columns are: {columns}.", columns=", ".join(map(str, original.columns[:20]))),
            where="target",
        )
    if original[target].nunique(dropna=True) < 2:
        raise single_valued_target(target)
    chosen = [c for c in release.columns if c != target] if features is None else list(features)
    if target in chosen:
        raise ConfigError(
            _(
                "The features include the target '{column}': a classifier would read the answer.",
                column=target,
            ),
            hint=_("Leave the target out of --features."),
            where="features",
        )
    missing = [c for c in chosen if c not in release.columns]
    if missing:
        raise ConfigError(
            _("The feature '{column}' is not in the release.", column=missing[0]),
            hint=_("The release's columns are: {columns}.", columns=", ".join(map(str, release.columns))),
            where="features",
        )
    if not chosen:
        raise ConfigError(_("There is no attribute left to predict the target from."), where="features")
    return chosen


def fitness(
    original: pd.DataFrame,
    release: pd.DataFrame,
    target: str,
    features: Sequence[str] | None = None,
    identifiers: Sequence[str] = (),
    mark: str = SUPPRESSED,
    progress: ProgressCallback = no_progress,
) -> dict[str, Any]:
    """Classifiers on both tables, per-attribute summaries, and the attributes that moved most."""
    chosen = check_study(original, release, target, features, identifiers)
    numeric = [is_numeric(original[c], mark) for c in chosen]
    original = original[original[target].notna()]
    release = release[release[target].notna()]
    d_orig = design(original, chosen, numeric, target, mark)
    d_rel = design(release, chosen, numeric, target, mark)
    if len(d_rel.labels) < 2:
        raise ConfigError(
            _(
                "In the release the target '{column}' holds a single value ('{value}'), so the release "
                "cannot be used to predict it.",
                column=target,
                value=d_rel.labels[0] if d_rel.labels else "",
            ),
            hint=_("Keep the target out of the quasi-identifiers, or choose another target."),
            where="target",
        )
    before = scores(d_orig, _("the original"), progress, (0.0, 0.5))
    after = scores(d_rel, _("the release"), progress, (0.5, 0.95))
    base = majority(d_orig.y)
    progress(0.95, _("summarizing every attribute"))
    summary = summarize(original, release, [*chosen, target], mark)
    moved = sorted(
        (c for c in summary if summary[c]["distance"] is not None), key=lambda c: -summary[c]["distance"]
    )
    return {
        "target": target,
        "features": chosen,
        "numeric": [c for c, n in zip(chosen, numeric) if n],
        "encoding": ENCODING,
        "records": {"original": len(original), "release": len(release)},
        "classification": {
            "majority": base,
            "majority_release": majority(d_rel.y),
            "original": {name: s.to_dict() for name, s in before.items()},
            "release": {
                name: {
                    **s.to_dict(),
                    "relative_accuracy": relative_accuracy(s.accuracy, before[name].accuracy, base),
                }
                for name, s in after.items()
            },
        },
        "summary": summary,
        "moved_most": moved[:MOVED_MOST],
    }


def fitness_sentences(result: dict[str, Any]) -> list[str]:
    """The figures in plain words, for the report and the workbench (every number from ``result``)."""
    cls = result["classification"]
    out = [
        _(
            "Always guessing the most frequent value of '{target}' is right for {share} of the records.",
            target=result["target"],
            share=formats.percent(cls["majority"], 1),
        )
    ]
    for name, label in CLASSIFIERS.items():
        rel = cls["release"][name]
        out.append(
            _(
                "{classifier}: {after} correct on the release, {before} on the original data.",
                classifier=_(label),
                after=formats.percent(rel["accuracy"], 1),
                before=formats.percent(cls["original"][name]["accuracy"], 1),
            )
        )
    if result["moved_most"]:
        out.append(
            _(
                "The distributions that moved most (earth mover's distance, from 0 for unchanged to 1): "
                "{attributes}.",
                attributes=", ".join(
                    f"{c} {formats.decimal(result['summary'][c]['distance'], 3)}"
                    for c in result["moved_most"]
                ),
            )
        )
    return out
