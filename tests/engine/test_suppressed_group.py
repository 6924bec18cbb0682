"""Datafly's step 4 (the seed's Datafly slides): suppressed records kept in the release form one group,
which must hold 0 or at least k records; the searches count the extra suppression against the limit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.full_domain import apply_transformation
from kanon_engine.config import AnonymizationConfig
from kanon_engine.core.table_check import check_table
from kanon_engine.data.table import Table
from kanon_engine.errors import InfeasibleError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.privacy.models import DistinctLDiversity, KAnonymity

FULL_DOMAIN = ("datafly", "samarati", "incognito", "optimal")


def _problem():
    """Ten records; at the original values one record (C) is alone: it must go, and with k = 3 two more
    must go with it (from the largest group, A)."""
    frame = pd.DataFrame(
        {
            "x": ["A"] * 5 + ["B"] * 4 + ["C"],
            "s": ["a", "b", "c", "d", "e", "a", "b", "c", "d", "e"],
        }
    )
    h = Hierarchy.from_rows("x", [["A", "AB", "*"], ["B", "AB", "*"], ["C", "C", "*"]])
    return Table.from_frame(frame), h


def _stars(release: pd.DataFrame) -> int:
    return int((release["x"] == "*").sum())


def _config(h, models=None, **kw) -> AnonymizationConfig:
    models = models or (KAnonymity(3),)
    sensitive = ("s",) if any(m.sensitive for m in models) else ()
    return AnonymizationConfig(("x",), {"x": h}, tuple(models), sensitive=sensitive, **kw)


@pytest.mark.parametrize("name", FULL_DOMAIN)
def test_kept_suppressed_records_number_zero_or_at_least_k(name):
    table, h = _problem()
    result = get_algorithm(name, suppression_limit=0.3).run(table, _config(h))
    release = result.release
    assert _stars(release) == result.suppressed == 3  # today's code kept 1 record alone as '*'
    sizes = release[release["x"] != "*"].groupby("x").size()
    assert sizes.min() >= 3 and sizes.sum() == 7
    assert sorted(sizes.tolist()) == [3, 4]  # the two records came from A, the largest group
    assert check_table(release, ["x"], 3).k_anonymous  # the check counts the '*' rows as one group
    assert int(result.class_sizes.sum()) == 7
    # DM counts the released groups and |T| per suppressed record
    assert result.metrics["discernibility"] == 3 * 3 + 4 * 4 + 3 * 10


def test_the_extra_suppression_counts_against_the_limit():
    """With room for 2 suppressed records, suppressing C alone is no longer a solution: the search
    generalizes instead (A and B merge; C stays alone, so 1 + 2 taken from AB would make 3 > 2)."""
    table, h = _problem()
    for name in FULL_DOMAIN:
        result = get_algorithm(name, suppression_limit=0.2).run(table, _config(h))
        assert _stars(result.release) == 0 or _stars(result.release) >= 3
        assert result.suppressed <= 2
        assert result.transformation == {"x": 2}, name


def test_option_off_and_drop_suppressed_make_it_moot():
    table, h = _problem()
    off = get_algorithm("datafly", suppression_limit=0.3).run(
        table, _config(h, protect_suppressed_group=False)
    )
    assert _stars(off.release) == off.suppressed == 1
    assert not check_table(off.release, ["x"], 3).k_anonymous  # a group of 1 kept suppressed record
    dropped = get_algorithm("datafly", suppression_limit=0.3).run(table, _config(h, drop_suppressed=True))
    assert dropped.suppressed == 1 and len(dropped.release) == 9


def test_whole_group_with_other_models():
    """Taking records out of a group could break l-diversity, so the smallest passing group goes whole."""
    table, h = _problem()
    models = (KAnonymity(3), DistinctLDiversity(3, "s"))
    result = get_algorithm("optimal", suppression_limit=0.5).run(table, _config(h, models))
    assert result.transformation == {"x": 0}
    assert _stars(result.release) == result.suppressed == 5  # C and all of B (4, the smallest)


def test_datafly_default_allowance_keeps_k():
    """Without a limit Datafly may suppress up to k records (Sweeney's original): exactly k then."""
    table, h = _problem()
    result = get_algorithm("datafly").run(table, _config(h))
    assert _stars(result.release) == 3


def test_apply_enforces_it_too():
    table, h = _problem()
    result = apply_transformation(table, _config(h), {"x": 0}, suppression_limit=0.3)
    assert _stars(result.release) == 3
    with pytest.raises(InfeasibleError):
        apply_transformation(table, _config(h), {"x": 0}, suppression_limit=0.2)
    assert np.all(result.class_sizes >= 3)


def test_cavg_is_the_papers_with_the_released_variant_beside_it():
    """C_AVG = (|T| / #classes) / k with |T| all records (the seed's Mondrian paper); the variant over
    released records is reported as cavg_released. Here 10 records, groups of 3 and 4 released, k = 3."""
    table, h = _problem()
    result = get_algorithm("datafly", suppression_limit=0.3).run(table, _config(h))
    assert result.metrics["cavg"] == pytest.approx(10 / 2 / 3)
    assert result.metrics["cavg_released"] == pytest.approx(7 / 2 / 3)


def test_ncp_counts_the_records_step_4_suppressed():
    """NCP by hand: at the original values every released value costs 0 and each of the 3 suppressed
    records (C, and the two taken from A by step 4) costs 1 per cell: 3 / 10 = 0.3 (0.1 if the two
    records step 4 trims were forgotten)."""
    table, h = _problem()
    result = get_algorithm("optimal", suppression_limit=0.3).run(table, _config(h))
    assert result.transformation == {"x": 0} and result.suppressed == 3
    assert result.metrics["ncp:x"] == pytest.approx(0.3)
    assert result.metrics["gcp"] == pytest.approx(0.3)
