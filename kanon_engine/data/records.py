"""The JSON form of a result record: its attributes under their own names.

Why: the reports' sections (class checks, person risk, linkage, workload queries, explanations) are frozen
dataclasses whose ``to_dict`` mostly lists ``"name": self.name`` again and again; one function says it once,
so a ``to_dict`` spells out only the keys that differ from the attribute (a renamed or computed figure).
The keys keep the order given: the JSON reports list them in that order.
"""

from __future__ import annotations

from typing import Any


def named_values(record: object, *names: str) -> dict[str, Any]:
    """``{name: record.name}`` for each of ``names`` (attributes or properties), in that order."""
    return {name: getattr(record, name) for name in names}
