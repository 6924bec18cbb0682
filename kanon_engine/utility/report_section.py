"""The report's "Fitness for the study" section: the study's target, the classifiers' figures on the
original and on the release, and the attributes whose distribution moved most.

Made when the run names the attribute the study will predict (``--target``) and the release is in memory;
the figures are those of :func:`kanon_engine.utility.study.fitness` on the input table and the release,
so they equal what ``python -m kanon_engine utility`` prints for the same files.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any

from kanon_engine.i18n import _, formats
from kanon_engine.utility.classifiers import CLASSIFIERS
from kanon_engine.utility.study import fitness, fitness_sentences

#: the figures of the runs reported on, while the run lives (the JSON and the HTML/PDF report of one run
#: show the same figures, computed once: the classifiers take seconds)
_FIGURES: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


def section(table: Any, result: Any) -> dict[str, Any] | None:
    """The fitness figures of a run (None when it names no target or its release is not held)."""
    target = (getattr(result, "parameters", None) or {}).get("target")
    release = getattr(result, "release", None)
    if not target or release is None:
        return None
    if result not in _FIGURES:
        config = result.config
        _FIGURES[result] = fitness(table.frame, release, str(target), identifiers=tuple(config.identifiers))
    return _FIGURES[result]


def _share(x: float | None) -> str:
    return "–" if x is None else formats.percent(x, 1)


def view(fit: Mapping[str, Any] | None, table: Callable[..., Any]) -> dict[str, Any] | None:
    """What the report's template shows of the section (``table`` builds one of the report's tables)."""
    if not fit:
        return None
    cls = fit["classification"]
    rows = []
    for name, label in CLASSIFIERS.items():
        before, after = cls["original"][name], cls["release"][name]
        rows.append(
            [
                _(label),
                _share(before["accuracy"]),
                _share(after["accuracy"]),
                _share(after.get("relative_accuracy")),
                "–" if after["auc"] is None else formats.decimal(after["auc"], 3, fixed=True),
            ]
        )
    header = [_("Classifier"), _("Original"), _("Release"), _("Relative accuracy"), _("AUC (release)")]
    moved = [
        [name, formats.decimal(fit["summary"][name]["distance"], 3, fixed=True)] for name in fit["moved_most"]
    ]
    return {
        "target": fit["target"],
        "sentences": fitness_sentences(dict(fit)),
        "classifiers": table(rows, header, num=(1, 2, 3, 4)),
        "moved": table(moved, [_("Attribute"), _("Distance of the distributions")], num=(1,))
        if moved
        else None,
        "encoding": _(
            "Five-fold cross-validation on each table; numbers as numbers, released ranges as their "
            "midpoints, other values as categories, '*' as missing. Relative accuracy places the "
            "release between always guessing the most frequent value (0 %) and the original data "
            "(100 %), as ARX does."
        ),
    }
