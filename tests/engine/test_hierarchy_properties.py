"""Property tests: every builder makes a tree with one root that covers the data; tree edits keep that."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.errors import HierarchyError
from kanon_engine.hierarchy import (
    MISSING,
    Hierarchy,
    date_hierarchy,
    default_hierarchy,
    grouping_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    read_arx_csv,
    validate_hierarchy,
    write_arx_csv,
)
from kanon_engine.hierarchy import tree as T

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _missing_or(values: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(st.one_of(values, st.none()), min_size=1, max_size=30)


def assert_good(h: Hierarchy, data: list) -> None:
    """A tree, one root '*', rectangular, and exactly the data's distinct values as leaves."""
    issues = validate_hierarchy(h, pd.Series(data, dtype=object))
    assert [i.message for i in issues if i.severity == "error"] == []
    assert h.distinct_at(h.height) == 1 and h.labels(h.height)[0] == "*"
    assert h.matrix.ndim == 2 and all(isinstance(v, str) for v in h.matrix.ravel())
    expected = {MISSING if v is None or v == "" else str(v) for v in data}
    assert set(h.values) == expected


def assert_arx_round_trip(h: Hierarchy) -> None:
    with tempfile.TemporaryDirectory() as d:
        assert read_arx_csv(write_arx_csv(h, Path(d) / "h.csv"), h.attribute) == h


# ------------------------------------------------------------------------------------------- builders
widths_st = st.tuples(st.sampled_from([1, 2, 5, 10, 0.5]), st.lists(st.integers(2, 5), max_size=3)).map(
    lambda t: tuple(float(np.prod([t[0], *t[1][:i]])) for i in range(len(t[1]) + 1))
)


@SETTINGS
@given(
    data=_missing_or(st.integers(-1000, 1000).map(str) | st.decimals(-100, 100, places=2).map(str)),
    widths=widths_st,
    bottom=st.none() | st.integers(-50, 0),
    top=st.none() | st.integers(1, 80),
)
def test_intervals_property(data, widths, bottom, top) -> None:
    h = interval_hierarchy("x", data, widths, bottom=bottom, top=top)
    assert_good(h, data)
    x = pd.to_numeric(pd.Series([v for v in h.values if v != MISSING]), errors="coerce").to_numpy()
    assert (np.diff(x) >= 0).all()  # numeric order
    assert_arx_round_trip(h)


FORMATS = ["%Y-%m-%d", "%d.%m.%Y", "%m/%d/%Y", "%Y%m%d"]


@SETTINGS
@given(
    dates=st.lists(
        st.one_of(st.dates(dt.date(1800, 1, 1), dt.date(2200, 12, 31)), st.none()), min_size=1, max_size=30
    ),
    fmt=st.sampled_from(FORMATS),
    levels=st.sampled_from([("month", "year", "decade"), ("year",), ("day", "quarter", "century"), ()]),
)
def test_dates_property(dates, fmt, levels) -> None:
    data = [d.strftime(fmt) if d is not None else None for d in dates]
    h = date_hierarchy("d", data, fmt, levels)
    assert_good(h, data)
    parsed = pd.to_datetime(pd.Series([v for v in h.values if v != MISSING]), format=fmt)
    assert parsed.is_monotonic_increasing  # chronological


@SETTINGS
@given(
    data=_missing_or(st.text("0123456789AB", min_size=1, max_size=7)),
    max_masked=st.none() | st.integers(0, 8),
)
def test_masking_property(data, max_masked) -> None:
    h = masking_hierarchy("z", data, max_masked)
    assert_good(h, data)
    assert_arx_round_trip(h)


@SETTINGS
@given(st.data())
def test_grouping_property(draw) -> None:
    values = draw.draw(st.lists(st.sampled_from(list("abcdefgh")), min_size=1, max_size=20))
    level1 = {v: draw.draw(st.sampled_from(["g0", "g1", "g2"])) for v in "abcdefgh"}
    level2 = {g: draw.draw(st.sampled_from(["t0", "t1"])) for g in ["g0", "g1", "g2"]}
    h = grouping_hierarchy("c", values, [level1, level2])
    assert_good(h, values)
    assert h.height == 3


@SETTINGS
@given(
    data=_missing_or(
        st.text("0123456789-./abc ", min_size=0, max_size=10)
        | st.integers(0, 99999).map(lambda i: f"{i:05d}")
        | st.integers(0, 120).map(str)
    )
)
def test_default_property(data) -> None:
    h = default_hierarchy("c", pd.Series(data, dtype=object), None)
    assert_good(h, data)
    assert_arx_round_trip(h)


# ----------------------------------------------------------------------------------------- tree edits
OPS = ["rename", "move", "merge", "delete", "add", "place"]


def _random_edit(draw, h: Hierarchy) -> tuple[Hierarchy, str, int]:
    op = draw.draw(st.sampled_from(OPS))
    level = draw.draw(st.integers(0, h.height))
    labels = sorted(set(h.labels(level)))
    label = draw.draw(st.sampled_from(labels))
    if op == "rename":
        return (
            T.rename_group(h, level, label, draw.draw(st.sampled_from(["n1", "n2", label + "'"]))),
            op,
            level,
        )
    if op == "move":
        up = sorted(set(h.labels(min(level + 1, h.height))))
        return T.move_node(h, level, label, draw.draw(st.sampled_from(up))), op, level
    if op == "merge":
        others = draw.draw(st.lists(st.sampled_from(labels), min_size=1, max_size=3))
        return T.merge_groups(h, level, [label, *others], draw.draw(st.sampled_from(["m", label]))), op, level
    if op == "delete":
        return T.delete_group(h, level, label), op, level
    if op == "add":
        below = sorted(set(h.labels(max(level - 1, 0))))
        members = draw.draw(st.lists(st.sampled_from(below), min_size=0, max_size=2))
        up = sorted(set(h.labels(min(level + 1, h.height))))
        return T.add_group(h, level, draw.draw(st.sampled_from(up)), "new", members), op, level
    group = draw.draw(st.sampled_from(sorted(set(h.labels(1)))))
    placed = draw.draw(st.lists(st.sampled_from(["p", "q", "a", None]), max_size=3))
    return T.place_values(h, placed, group), op, 1


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_tree_edits_keep_validity_and_round_trip(draw) -> None:
    values = draw.draw(st.lists(st.sampled_from(list("abcdef")), min_size=1, max_size=12, unique=True))
    level1 = {v: draw.draw(st.sampled_from(["g0", "g1", "g2"])) for v in values}
    level2 = {g: draw.draw(st.sampled_from(["t0", "t1"])) for g in ["g0", "g1", "g2"]}
    h = original = grouping_hierarchy("c", values, [level1, level2])
    before = h.rows()
    for _ in range(draw.draw(st.integers(1, 6))):
        try:
            new, op, level = _random_edit(draw, h)
        except HierarchyError as exc:
            assert str(exc)  # refused with a plain message
            continue
        assert [i.message for i in validate_hierarchy(new) if i.severity == "error"] == []
        assert new.depth == h.depth and new.distinct_at(new.height) == 1
        if op == "place":
            assert set(h.values) < set(new.values)
        elif op == "delete" and level == 0:
            assert set(new.values) < set(h.values) and len(new.values) == len(h.values) - 1
        elif op != "rename" or level > 0:
            assert new.values == h.values  # regrouping never adds or drops original values
        assert sorted(T.from_tree("c", T.tree_nodes(new)).rows()) == sorted(new.rows())
        assert_arx_round_trip(new)
        h = new
    assert original.rows() == before  # edits never mutate their input
