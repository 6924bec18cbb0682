"""How the facts of a release are counted (:mod:`kanon_engine.report.facts`): once per run and table,
kept per object (never by ``id()``, issue 28's defect), and comparing released with input texts by their
integer codes as the written text reads.

The figures themselves are checked against the written file elsewhere (test_facts_property.py); here:
a table of other values given to the same run gets its own comparison, a table freed and another made in
its place gets its own facts, and a value reads as changed exactly when its text does.
"""

from __future__ import annotations

import gc

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.hierarchy.builders import default_hierarchy, interval_hierarchy
from kanon_engine.privacy.k_anonymity import KAnonymity
from kanon_engine.release.writer import coded_column
from kanon_engine.report.facts import _same_text, result_facts, table_facts
from kanon_engine.session.runs import run


def _table(ages: list[int], sexes: tuple[str, str] = ("F", "M")) -> Table:
    return Table(pd.DataFrame({"age": [str(a) for a in ages], "sex": list(sexes) * (len(ages) // 2)}))


def _result(table: Table):  # type: ignore[no-untyped-def]
    hierarchy = interval_hierarchy("age", table.frame["age"].astype(int), [10, 20])
    sex = default_hierarchy("sex", table.frame["sex"])
    config = AnonymizationConfig(["age", "sex"], {"age": hierarchy, "sex": sex}, (KAnonymity(2),))
    return run(table, config, get_algorithm("optimal"))


AGES = [21, 22, 23, 24, 35, 36, 37, 38, 41, 42, 43, 44]


def test_facts_counted_once_per_run_and_table() -> None:
    table = _table(AGES)
    result = _result(table)
    first = result_facts(result, table)
    assert result_facts(result, table) is first
    assert result_facts(result) is first  # counted with a table already: the same facts
    assert table_facts(table, result.config) is first["original"]


def test_another_table_gets_its_own_comparison() -> None:
    """The same run compared with a table of other values: other changed-value counts, not the first
    table's (an ``id()`` key could hand a new table the facts of a freed one)."""
    table = _table(AGES)
    result = _result(table)
    before = _generalized(result_facts(result, table))
    del table
    gc.collect()
    other = _table(AGES, ("M", "F"))  # may land on the freed table's address
    again = _generalized(result_facts(result, other))
    assert again == _changed_by_pandas(result, other) == {"age": len(AGES), "sex": len(AGES)}
    assert before == _changed_by_pandas(result, _table(AGES)) == {"age": len(AGES), "sex": 0}


def _generalized(facts: dict) -> dict[str, int]:  # type: ignore[type-arg]
    return {q: a["generalized"] for q, a in facts["release"]["attributes"].items()}


def _changed_by_pandas(result, table: Table) -> dict[str, int]:  # type: ignore[no-untyped-def]
    released = result.release.reset_index(drop=True)
    original = table.frame.iloc[np.asarray(result.release_rows)].reset_index(drop=True)
    out = {}
    for q in ("age", "sex"):
        text = released[q].astype(str)
        out[q] = int(((text != original[q].astype(str)) & (text != "*")).sum())
    return out


texts = st.lists(st.sampled_from(["1", "1.0", "a", "", "*", "Zürich", None]), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(texts, st.data())
def test_same_text_is_the_text_comparison(left: list, data: st.DataObject) -> None:  # type: ignore[type-arg]
    """Codes compared across two columns' own label tables give what comparing every row's written
    text gives (missing equals missing; 1 and "1" read alike)."""
    right = data.draw(
        st.lists(st.sampled_from(["1", 1, "a", "*", None, "b"]), min_size=len(left), max_size=len(left))
    )
    a, b = pd.Series(left, dtype=object), pd.Series(right, dtype=object)
    got = _same_text(coded_column("a", a), coded_column("b", b))
    want = [
        (x is None and y is None) or (x is not None and y is not None and str(x) == str(y))
        for x, y in zip(left, right)
    ]
    assert got.tolist() == want


@pytest.mark.parametrize("categorical", [False, True])
def test_same_text_of_categorical_and_text_columns(categorical: bool) -> None:
    a = pd.Series(["[20-29]", "*", "[30-39]", None])
    if categorical:
        a = a.astype("category")
    b = pd.Series(["[20-29]", "25", "[30-39]", None], dtype="string[pyarrow]")
    assert _same_text(coded_column("a", a), coded_column("b", b)).tolist() == [True, False, True, True]
