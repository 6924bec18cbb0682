"""A privacy model that exists only for the tests: "at most N groups in the release".

It shows that a model written outside ``kanon_engine`` plugs in through the registry alone
(tests/engine/test_privacy_plugin.py registers it, checks it everywhere and unregisters it). It judges the
release as a whole (a per-class check cannot count groups), so it also exercises the hooks a coming model
such as an average re-identification risk needs: ``judges_release``, ``release_passes`` and a model
that is monotone under generalization but not with suppression (a suppressed class merged with others
into a passing one adds a released group).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kanon_engine.config import ParamSpec
from kanon_engine.privacy import ClassStats, PrivacyModel

MAX_GROUPS = ParamSpec(
    "max_groups",
    "Most groups",
    "int",
    None,
    "The release may hold at most this many groups of records; empty to skip.",
    minimum=1,
    presets=(2, 5, 10),
)


@dataclass(frozen=True)
class AtMostGroups(PrivacyModel):
    """At most ``max_groups`` groups of records are released (suppressed records not counted)."""

    max_groups: int
    name: ClassVar[str] = "at-most-groups"
    title: ClassVar[str] = "at most N groups"
    params: ClassVar[tuple[ParamSpec, ...]] = (MAX_GROUPS,)
    monotone_with_suppression: ClassVar[bool] = False
    monotone_without_suppression: ClassVar[bool] = True
    judges_release: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_groups", MAX_GROUPS.coerce(self.max_groups))

    def release_passes(self, stats: ClassStats, released: np.ndarray) -> bool:
        return int(np.count_nonzero(released)) <= self.max_groups

    def describe(self) -> str:
        return f"At most {self.max_groups} groups: the release holds no more than {self.max_groups} groups."

    def short(self) -> str:
        return f"at most {self.max_groups} groups"
