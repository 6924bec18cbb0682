"""The registry of privacy models, and the one translation between the flat values of the model form
(the CLI's flags, the workbench's form, the ``models.<name>`` fields of the flags' table) and models.

Every reader goes through these functions: the CLI's flags (:func:`model_params`), the project file
(:func:`model_from_dict`), validation (:func:`applicability_problems`), the workbench's model form
(:func:`model_params`, :func:`param_visible`, :func:`models_from_values`, :func:`model_values_of`), and
the report and run history (each model's ``describe`` and ``short``). The built-in models are registered
by :mod:`kanon_engine.privacy`; a plug-in (or a test) calls :func:`register` and :func:`unregister`.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any

from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.params import ParamSpec, blank_to_none
from kanon_engine.privacy.base import SUPPLIED, AlgorithmLike, PrivacyModel, Requirement

_REGISTRY: dict[str, type[PrivacyModel]] = {}


def register(cls: type[PrivacyModel]) -> type[PrivacyModel]:
    """Make a privacy model known to the CLI, the project file, validation, the workbench's form and the
    report (usable as a class decorator). A family's parameters must not reuse another family's names,
    except for the very same :class:`ParamSpec` shared on purpose (the population size of k-map and of
    population uniqueness: one flag, one field)."""
    if not getattr(cls, "name", ""):
        raise TypeError(f"{cls.__name__} has no name")
    if _REGISTRY.get(cls.name, cls) is not cls:
        raise ValueError(f"{cls.__name__}: the name {cls.name!r} is {_REGISTRY[cls.name].__name__}'s")
    mine = {spec.name: spec for spec in cls.params}
    for other in families():
        theirs = {s.name: s for s in other.params}
        clash = sorted(n for n in mine.keys() & theirs.keys() if mine[n] is not theirs[n])
        if other.family_name() != cls.family_name() and clash:
            raise ValueError(f"{cls.__name__}: parameter {clash[0]} is already {other.__name__}'s")
    if "sensitive" in mine:
        raise ValueError(f"{cls.__name__}: 'sensitive' is the form's protected attribute, not a parameter")
    _REGISTRY[cls.name] = cls
    return cls


def unregister(model: type[PrivacyModel] | str) -> None:
    """Forget a model (by class or name); nothing happens when it is not registered."""
    _REGISTRY.pop(model if isinstance(model, str) else model.name, None)


def model_classes() -> dict[str, type[PrivacyModel]]:
    """Every registered model by name, in the order of registration."""
    return dict(_REGISTRY)


def families() -> tuple[type[PrivacyModel], ...]:
    """One class per family (the first registered), in the order of registration: the entries of the
    model form, each with its parameters and ``from_values``."""
    seen: dict[str, type[PrivacyModel]] = {}
    for cls in _REGISTRY.values():
        seen.setdefault(cls.family_name(), cls)
    return tuple(seen.values())


def model_params() -> tuple[ParamSpec, ...]:
    """The parameters of every family, in form order (a shared one once, where it first appears): the
    CLI's model flags and the workbench's form."""
    seen: dict[str, ParamSpec] = {}
    for cls in families():
        for spec in cls.params:
            seen.setdefault(spec.name, spec)
    return tuple(seen.values())


def param_visible(name: str, values: Mapping[str, Any]) -> bool:
    """Whether the model form shows the parameter ``name`` given the form's values (a shared parameter:
    when any family that has it shows it)."""
    owners = [cls for cls in families() if any(s.name == name for s in cls.params)]
    return any(cls.param_visible(name, values) for cls in owners)


def default_values() -> dict[str, Any]:
    """The form's values when nothing is set (each parameter's default; no protected attribute)."""
    return {**{spec.name: spec.default for spec in model_params()}, "sensitive": None}


def wants_sensitive(values: Mapping[str, Any]) -> bool:
    """Whether the form's values choose a model that protects a sensitive attribute."""
    return any(cls.chosen(values) and Requirement.SENSITIVE in cls.requires for cls in families())


def models_from_values(
    values: Mapping[str, Any], sensitive_columns: tuple[str, ...] | list[str] = ()
) -> tuple[PrivacyModel, ...]:
    """The privacy models of the form's flat values (the inverse of :func:`model_values_of`; the
    workbench's form and the CLI's flags both go through it). Each value is checked by its spec (blank:
    its default), in form order, so the first bad one is told; models protecting a sensitive attribute
    protect ``values["sensitive"]``, or the sensitive column when there is exactly one."""
    checked = {spec.name: spec.coerce(blank_to_none(values.get(spec.name))) for spec in model_params()}
    sensitive = values.get("sensitive") or None
    if sensitive is None and wants_sensitive(checked) and len(sensitive_columns) == 1:
        sensitive = sensitive_columns[0]
    built = (cls.from_values(checked, sensitive) for cls in families())
    return tuple(m for m in built if m is not None)


def model_values_of(models: Iterable[PrivacyModel]) -> dict[str, Any]:
    """The form's flat values of a tuple of models (every parameter, and ``sensitive``)."""
    values = default_values()
    models = tuple(models)
    for m in models:
        values.update(m.values())
        if m.sensitive is not None:
            values["sensitive"] = m.sensitive
    chosen = {m.family_name() for m in models}
    for cls in families():  # a family with a default left out says so (k-anonymity: "none")
        if cls.params and cls.params[0].optional and cls.family_name() not in chosen:
            values[cls.params[0].name] = "none"
    return values


def model_from_dict(d: Mapping[str, Any]) -> PrivacyModel:
    """Rebuild a model from its ``to_dict`` form (project files): a ConfigError names an unknown model,
    an unknown setting or a missing one."""
    d = dict(d)
    name = d.pop("name", None)
    cls = _REGISTRY.get(str(name))
    if cls is None:
        raise ConfigError(
            _("Unknown privacy model '{name}'; known: {known}.", name=str(name), known=", ".join(_REGISTRY)),
            where="models",
        )
    params = inspect.signature(cls).parameters
    unknown = [k for k in d if k not in params]
    if unknown:
        raise ConfigError(
            _("The privacy model '{name}' has no setting '{setting}'.", name=name, setting=unknown[0]),
            hint=_("Its settings are: {settings}.", settings=", ".join(params)),
            where=str(name),
        )
    needed = [p for p, v in params.items() if v.default is inspect.Parameter.empty and p not in d]
    if needed:
        raise ConfigError(
            _(
                "The privacy model '{name}' needs its setting '{setting}', which is missing.",
                name=name,
                setting=needed[0],
            ),
            hint=_('Add it to the model in the project file, for example "{setting}": 5.', setting=needed[0]),
            where=str(name),
        )
    return cls(**d)


def applicability_problems(models: Iterable[PrivacyModel], algorithm: AlgorithmLike) -> list[str]:
    """Why these models cannot be applied by ``algorithm``, one sentence each (empty: they can): a
    requirement the engine does not count yet, or the model's own :meth:`~PrivacyModel.unsupported_by`."""
    out = []
    for m in models:
        missing = sorted(m.requires - SUPPLIED, key=lambda r: r.value)
        if missing:
            out.append(
                _(
                    "{model} needs {what}, which this version of kanon cannot count yet.",
                    model=_(m.title) if m.title else m.name,
                    what=missing[0].words,
                )
            )
        reason = m.unsupported_by(algorithm)
        if reason:
            out.append(reason)
    return out


def require_applicable(models: Iterable[PrivacyModel], algorithm: AlgorithmLike) -> None:
    """Raise the first of :func:`applicability_problems` as a ConfigError (before a run touches data)."""
    problems = applicability_problems(models, algorithm)
    if problems:
        raise ConfigError(problems[0], where="models")


def all_monotone(models: Iterable[PrivacyModel], suppression: bool) -> bool:
    """Whether "satisfies" is upward closed in the lattice for these models (enables pruning): every
    model monotone under generalization, and with suppression too when records may be suppressed."""
    models = tuple(models)
    if not all(m.monotone_without_suppression for m in models):
        return False
    return (not suppression) or all(m.monotone_with_suppression for m in models)


def require_identity_model(models: Iterable[PrivacyModel]) -> None:
    """Every run needs k-anonymity or another model that bounds re-identification by itself (average
    risk, uniqueness, k-map: ``guards_identity``); a ConfigError otherwise."""
    if not any(m.guards_identity for m in models):
        raise ConfigError(
            _("Every run needs k-anonymity (k >= 2) among its privacy models."),
            hint=_(
                "Set k, or choose a model that bounds re-identification by itself (average risk, "
                "sample or population uniqueness, k-map)."
            ),
            where="k",
        )
