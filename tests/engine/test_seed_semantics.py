"""Search and help text as the seeds define them (issue 13, part 4): Samarati bounded by Datafly's height
and by what each attribute forces; the NP-hardness note in the algorithm help."""

from __future__ import annotations

import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.cli import main
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.privacy.models import KAnonymity
from tests.conftest import ADULT_QI


@pytest.fixture(scope="module")
def adult(adult_frame, adult_hierarchies):
    return Table.from_frame(adult_frame), {q: adult_hierarchies[q] for q in ADULT_QI}


@pytest.mark.parametrize("k, limit", [(5, 0.0), (5, 0.05), (50, 0.0)])
def test_bounded_samarati_same_height_fewer_probes(adult, k, limit):
    table, hs = adult
    config = AnonymizationConfig(tuple(ADULT_QI), hs, (KAnonymity(k),))
    plain = get_algorithm("samarati", suppression_limit=limit, bounded=False)
    bounded = get_algorithm("samarati", suppression_limit=limit)
    a, b = plain.run(table, config), bounded.run(table, config)
    assert a.transformation == b.transformation
    assert len(bounded.probed) < len(plain.probed)
    lo, hi = bounded.bounds
    datafly = get_algorithm("datafly", suppression_limit=limit).run(table, config)
    assert hi == sum(datafly.transformation.values())
    assert lo <= sum(b.transformation.values()) <= hi
    assert any("Datafly's solution" in n for n in b.notes)


def test_algorithm_help_explains_np_hardness(capsys):
    assert main(["algorithms", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "NP-hard" in out and "Datafly" in out and "Mondrian" in out
