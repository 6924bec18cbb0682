"""Which algorithms honour the person role, and the persons of a finished run.

Every algorithm that groups whole rows counts persons through the shared model code
(:mod:`kanon_engine.core.persons`): the lattice searches (optimal, heuristic, Samarati, Incognito,
Datafly) through the node evaluator, Mondrian strict and relaxed through their cut checks (a cut is
allowed only when both sides hold rows of at least k persons), local recoding and local suppression
through their group checks. Two things cannot be done, and are refused in one sentence before a run:

- an attacker who knows several stays (``--person-knows`` above 1) needs rows of single persons to be
  suppressed (:mod:`kanon_engine.core.person_sets`), which only the full-domain algorithms that suppress
  whole records do: Mondrian, local recoding and local suppression keep every row;
- cell suppression (``suppress=cells``) changes single cells of single rows, which says nothing about
  how many persons share a row's values;
- SafePub (``samples_records``) samples single rows: its differential-privacy guarantee is about rows,
  and a patient with several rows would be protected only as several rows;
- the risk-based models (average risk, uniqueness, k-map, beta-likeness, delta-disclosure,
  delta-presence, profitability: ``counts_persons`` False) judge class sizes in rows, so their promise
  would be about rows while the release speaks of patients.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.persons import person_codes
from kanon_engine.errors import ConfigError
from kanon_engine.i18n import _
from kanon_engine.metrics.person_risk import person_facts
from kanon_engine.privacy.base import AlgorithmLike
from kanon_engine.result import AnonymizationResult


def person_refusal(config: AnonymizationConfig, algorithm: AlgorithmLike) -> str | None:
    """Why ``algorithm`` cannot honour the run's person role (one sentence), or None when it can."""
    if config.person is None:
        return None
    words = _(algorithm.title).split(" (")[0]
    rows_only = [m for m in config.models if not m.counts_persons]
    if rows_only:
        return _(
            "{model} counts rows, not patients with several rows: remove the person role, or choose "
            "k-anonymity, l-diversity or t-closeness.",
            model=_(rows_only[0].title),
        )
    if getattr(algorithm, "samples_records", False):
        return _(
            "{algorithm} samples single rows, so its guarantee covers rows, not patients with several "
            "rows: remove the person role, or choose another privacy model.",
            algorithm=words,
        )
    if algorithm.parameters.get("suppress") == "cells":
        return _(
            "Cell suppression cannot count persons: it changes single values of single rows. Suppress "
            "whole records with the person role."
        )
    if config.person_knows != 1 and (not algorithm.full_domain or algorithm.works_on_records()):
        return _(
            "{algorithm} keeps every row, so it cannot stop an attacker who knows several stays of a "
            "person: choose optimal, heuristic, samarati, incognito or datafly, or an attacker who knows "
            "one stay.",
            algorithm=words,
        )
    return None


def require_person_support(config: AnonymizationConfig, algorithm: AlgorithmLike) -> None:
    """:func:`person_refusal` as a ConfigError (before a run touches the data)."""
    reason = person_refusal(config, algorithm)
    if reason:
        raise ConfigError(reason, where="algorithm")


def with_person_facts(result: AnonymizationResult, source: Any) -> AnonymizationResult:
    """``result`` with the persons of its release (:class:`~kanon_engine.metrics.person_risk.PersonFacts`),
    counted from the rows when they are in memory, else from the run's points."""
    cfg = result.config
    if cfg.person is None or not result.models_enforced:
        return result
    frame = getattr(source, "frame", None)
    if result.row_class is not None and frame is not None:
        person, blank = person_codes(frame[cfg.person], cfg.person_blanks)
        row_class = result.row_class
    else:
        counted = getattr(result.plan, "counted", None)
        enc = getattr(counted, "enc", None)
        if enc is None or enc.persons is None:
            return result
        person, blank, row_class = enc.persons, enc.n_persons, np.asarray(result.plan.point_class)
    facts = person_facts(cfg.person, row_class, person, blank, cfg.person_knows, cfg.drop_suppressed)
    return dataclasses.replace(result, persons=facts)
