"""The two bases models of one kind share (privacy/base.py's SensitiveValueModel, release_risk.py's
ReleaseRiskModel): a model declares only what is its own, and the base declares and checks the rest.

A toy model of each kind is built here (never registered): what it inherits is what the shipped models of
its kind declared one by one before, and a sensitive-value model is refused without a sensitive attribute
only after its own settings are checked, so the first sentence a user reads names the bad setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from kanon_engine.core.encoding import encode_table
from kanon_engine.data.table import Table
from kanon_engine.errors import ConfigError
from kanon_engine.hierarchy import default_hierarchy
from kanon_engine.privacy import ClassStats, Requirement, model_classes
from kanon_engine.privacy.base import SensitiveValueModel, positive_param
from kanon_engine.privacy.registry import require_identity_model
from kanon_engine.privacy.release_risk import Ladder, ReleaseRiskModel, least_suppression


@dataclass(frozen=True)
class TopShare(SensitiveValueModel):
    """In every class the most frequent sensitive value holds at most ``top`` of its records."""

    top: float
    sensitive: str | None = None
    name: ClassVar[str] = "test-top-share"
    title: ClassVar[str] = "top share"

    def check_settings(self) -> None:
        object.__setattr__(self, "top", positive_param(self.top, "top must be above 0; got {value}.", "top"))

    def passes(self, stats: ClassStats) -> np.ndarray:
        cls, p, _table = stats.shares(self.protected)
        highest = np.zeros(stats.n_classes)
        np.maximum.at(highest, cls, p)
        return highest <= self.top

    def describe(self) -> str:
        return f"top share {self.top} on {self.sensitive}"


@dataclass(frozen=True)
class FewUniques(ReleaseRiskModel):
    """At most ``most`` released classes of one record."""

    most: int
    name: ClassVar[str] = "test-few-uniques"
    title: ClassVar[str] = "few uniques"

    def release_suppression(
        self, stats: ClassStats, released: np.ndarray, allowance: int
    ) -> np.ndarray | None:
        return least_suppression(stats, released, allowance, self._holds)

    def _holds(self, lad: Ladder) -> np.ndarray:
        ones = np.concatenate([[0], np.cumsum(lad.sizes == 1)])
        return ones[-1] - ones <= self.most

    def describe(self) -> str:
        return f"at most {self.most} uniques"


def _stats() -> ClassStats:
    """Three classes of a table with a sensitive diagnosis: (a: flu, flu, cold), (b: flu), (c: cold, flu)."""
    frame = pd.DataFrame(
        {"g": ["a", "a", "a", "b", "c", "c"], "dx": ["flu", "flu", "cold", "flu", "cold", "flu"]}
    ).astype(object)
    table = Table(frame)
    enc = encode_table(table, ["g"], {"g": default_hierarchy("g", frame["g"])}, sensitive=["dx"])
    group = np.array([0, 0, 0, 1, 2, 2])
    return ClassStats.from_rows(enc, np.arange(6), group, 3, (0,))


def test_a_sensitive_value_model_declares_only_its_own() -> None:
    model = TopShare(0.7, "dx")
    assert model.requires == frozenset({Requirement.SENSITIVE}) and model.threat == "sensitive"
    assert model.to_dict() == {"name": "test-top-share", "top": 0.7, "sensitive": "dx"}
    stats = _stats()
    cls, p, table = stats.shares("dx")
    # shares recomputed by hand: class a 2/3 flu and 1/3 cold, b 1 flu, c 1/2 each; table: 4/6 flu, 2/6 cold
    by_pair = sorted(zip(cls.tolist(), np.round(p, 6).tolist(), np.round(table, 6).tolist()))
    assert by_pair == [
        (0, 0.333333, 0.333333), (0, 0.666667, 0.666667), (1, 1.0, 0.666667),
        (2, 0.5, 0.333333), (2, 0.5, 0.666667),
    ]  # fmt: skip
    assert model.passes(stats).tolist() == [True, False, True]


def test_a_missing_sensitive_attribute_is_refused_after_the_models_own_settings() -> None:
    with pytest.raises(ConfigError) as missing:
        TopShare(0.7)
    assert missing.value.where == "sensitive" and "top share" not in str(missing.value)
    assert "test-top-share protects a sensitive attribute" in str(missing.value)
    with pytest.raises(ConfigError) as both:
        TopShare(-1, None)
    assert both.value.where == "top"


def test_the_shipped_sensitive_value_models_are_refused_the_same_way() -> None:
    kinds = {name: cls for name, cls in model_classes().items() if issubclass(cls, SensitiveValueModel)}
    assert set(kinds) == {
        "beta-likeness", "delta-disclosure", "t-closeness",
        "distinct-l-diversity", "entropy-l-diversity", "recursive-cl-diversity",
    }  # fmt: skip
    for name, cls in kinds.items():
        assert Requirement.SENSITIVE in cls.requires and cls.threat == "sensitive", name


def test_a_release_risk_model_judges_the_release_and_guards_identity() -> None:
    model = FewUniques(0)
    assert model.judges_release and model.guards_identity and not model.counts_persons
    require_identity_model([model])  # a run may do without k-anonymity
    stats = _stats()
    released = stats.sizes.copy()
    # class b is the one unique: suppressing it (1 record) is within an allowance of 1, not of 0
    assert model.release_suppression(stats, released, 1).tolist() == [False, True, False]
    assert model.release_suppression(stats, released, 0) is None
    shipped = {name for name, cls in model_classes().items() if issubclass(cls, ReleaseRiskModel)}
    assert shipped == {"average-risk", "sample-uniqueness", "population-uniqueness"}
