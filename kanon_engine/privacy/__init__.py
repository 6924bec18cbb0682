"""Privacy models (k-anonymity, l-diversity, t-closeness) evaluated per equivalence class."""

from kanon_engine.privacy.models import (
    ClassStats,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
    all_monotone,
    model_from_dict,
)

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
