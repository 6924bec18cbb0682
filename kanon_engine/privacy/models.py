"""The names of the former single module of privacy models, kept so that code written against it still
imports (other branches of this round use it). New code imports from :mod:`kanon_engine.privacy`; each
model lives in its own module (:mod:`.k_anonymity`, :mod:`.l_diversity`, :mod:`.t_closeness`)."""

from __future__ import annotations

from kanon_engine.privacy.base import ClassStats, PrivacyModel
from kanon_engine.privacy.k_anonymity import KAnonymity
from kanon_engine.privacy.l_diversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from kanon_engine.privacy.registry import all_monotone, model_from_dict
from kanon_engine.privacy.t_closeness import TCloseness

__all__ = [
    "ClassStats",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "KAnonymity",
    "PrivacyModel",
    "RecursiveCLDiversity",
    "TCloseness",
    "all_monotone",
    "model_from_dict",
]
