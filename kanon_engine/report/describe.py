"""The settings of a run in plain words, in one place: the run history, the comparison of runs, the
report and the CLI describe a run the same way, so two runs with different l-diversity or t-closeness
settings never look alike (issue 12, item 13)."""

from __future__ import annotations

from typing import Any

from kanon_engine.algorithms import algorithms, title_of
from kanon_engine.i18n import _, formats


def model_short(model: Any) -> str:
    """``k = 5``, ``distinct l = 3 on diagnosis``, ``t = 0.2 on diagnosis (equal distance)``: each model's
    own short words (:meth:`kanon_engine.privacy.PrivacyModel.short`)."""
    return str(model.short())


def models_short(models: Any) -> str:
    """Every privacy model of a run, short, joined: ``k = 5; distinct l = 2 on diagnosis``."""
    return formats.join_clauses([model_short(m) for m in models])


def algorithm_name(name: str) -> str:
    """The algorithm's short title (``Optimal``, ``Mondrian relaxed``), never the registry code."""

    cls = algorithms().get(name)
    title = _(title_of(cls, name)) if cls is not None else name.replace("-", " ").capitalize()
    return title.split(" (", 1)[0]


def parameters_short(algorithm: str, parameters: dict[str, Any]) -> str:
    """The parameters in plain words: ``Suppression limit 5 %, Quality metric Balanced information loss``."""

    cls = algorithms().get(algorithm)
    specs = {p.name: p for p in getattr(cls, "params", ())}
    parts = []
    for name, value in parameters.items():
        if value is None or name not in specs:
            continue
        parts.append(_("{name}: {value}", name=specs[name].shown_label, value=specs[name].show(value)))
    return ", ".join(parts)


def run_settings(result: Any) -> list[tuple[str, str]]:
    """(label, value) rows that tell a run's settings apart: algorithm, parameters, privacy models, the
    quasi-identifiers, the suppressed records' treatment."""
    cfg = result.config
    return [
        (_("Algorithm"), algorithm_name(result.algorithm)),
        (_("Parameters"), parameters_short(result.algorithm, result.parameters) or _("none")),
        (_("Privacy models"), models_short(cfg.models)),
        (_("Quasi-identifiers"), ", ".join(cfg.quasi_identifiers)),
        (_("Suppressed records are"), _suppressed_records(result)),
    ]


def _suppressed_records(result: Any) -> str:
    """What happened to suppressed records: a cell-level release has none (it keeps every record)."""
    if getattr(result, "recoding", None) is not None:
        return _("none: every record is kept, single values shown as *")
    return _("left out of the file") if result.config.drop_suppressed else _("kept, shown as *")
