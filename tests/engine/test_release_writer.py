"""The release writer (codes and label tables, pyarrow assembly) writes exactly the bytes kanon's earlier
per-cell writer wrote, for every option; Parquet holds the same values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table
from kanon_engine.privacy.models import KAnonymity
from kanon_engine.release import writer as release_writer
from kanon_engine.release.export import ExportOptions, export_release, prepare_release
from tests.conftest import ADULT_QI
from tests.engine import reference as ref

# cells that exercise quoting, formula neutralization and its negative-number exception
AWKWARD = [
    "plain",
    "x;y",
    "a,b",
    'say "hi"',
    "line\nbreak",
    "cr\ronly",
    "tab\there",
    "=SUM(A1)",
    "+1",
    "-5",
    "-5\n",
    "-3.25",
    "-.5e3",
    "-1e",
    "@cmd",
    "\tlead",
    "\rlead",
    "é",
    "-٣",
    "",
    " ",
    "*",
    "'quoted",
]


@st.composite
def frames(draw):
    n = draw(st.integers(0, 12))
    cols = {}
    for j in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["object", "str", "categorical", "float"]))
        name = draw(st.sampled_from(["c", "=name", "-5", "a;b", 'q"n', "x"])) + str(j)
        if kind == "float":
            values = draw(st.lists(st.sampled_from([1.5, -2.0, np.nan, 3e10, 0.1]), min_size=n, max_size=n))
            cols[name] = pd.Series(values, dtype="float64")
            continue
        values = draw(st.lists(st.sampled_from(AWKWARD + [None]), min_size=n, max_size=n))
        col = pd.Series(values, dtype=object)
        if kind == "str":
            col = col.astype("str").where(col.notna(), np.nan).astype("str")
        elif kind == "categorical":
            col = col.astype("category")
        cols[name] = col
    return pd.DataFrame(cols, index=pd.RangeIndex(n))


def _as_before(frame: pd.DataFrame) -> pd.DataFrame:
    """The same values as the earlier releases held them (object columns instead of categoricals)."""
    out = frame.copy()
    for c in out.columns:
        if isinstance(out[c].dtype, pd.CategoricalDtype):
            out[c] = out[c].astype(object)
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), st.sampled_from([",", ";", "\t", "|"]), st.booleans(), st.booleans())
def test_csv_is_byte_identical_to_the_earlier_writer(frame, delimiter, bom, neutralize):
    before = _as_before(frame)
    expected_changed = 0
    if neutralize:
        before, expected_changed = ref.legacy_neutralize(before)
    expected = ref.legacy_csv_bytes(before, delimiter, bom)
    info, chunks = release_writer.csv_chunks(frame, delimiter, neutralize, bom)
    assert b"".join(bytes(c) for c in chunks) == expected
    assert info.neutralized_cells == expected_changed


def test_slices_join_into_one_file(tmp_path: Path, monkeypatch):
    """Rows are assembled a slice at a time; the file is the same whatever the slice size."""
    frame = pd.DataFrame({"a": pd.Categorical(["x", "=y", None, "z;"] * 50), "b": ["1", "-2"] * 100})
    whole = release_writer.write_csv(tmp_path / "whole.csv", frame)
    monkeypatch.setattr(release_writer, "SLICE_ROWS", 7)
    sliced = release_writer.write_csv(tmp_path / "sliced.csv", frame)
    assert (tmp_path / "whole.csv").read_bytes() == (tmp_path / "sliced.csv").read_bytes()
    assert whole.sha256 == sliced.sha256 == release_writer.sha256_file(tmp_path / "sliced.csv")
    assert whole.neutralized_cells == 50


@pytest.fixture(scope="module")
def adult_result(adult_frame, adult_hierarchies):
    table = Table.from_frame(adult_frame)
    config = AnonymizationConfig(
        tuple(ADULT_QI), {q: adult_hierarchies[q] for q in ADULT_QI}, (KAnonymity(5),)
    )
    return table, get_algorithm("optimal", suppression_limit=0.05).run(table, config)


@pytest.mark.parametrize(
    "options",
    [
        ExportOptions(),
        ExportOptions(delimiter=";", bom=True),
        ExportOptions(fmt="tsv", suppressed="drop"),
        ExportOptions(shuffle=True, shuffle_seed=3, neutralize_formulas=False),
    ],
)
def test_adult_release_bytes_match_the_earlier_writer(tmp_path, adult_result, options):
    """A real release: generalized columns are categorical, the others pyarrow text; same bytes."""
    table, result = adult_result
    assert isinstance(result.release["education"].dtype, pd.CategoricalDtype)
    path = tmp_path / ("out.tsv" if options.fmt == "tsv" else "out.csv")
    summary = export_release(table, result, path, options)
    frame, _ = prepare_release(table, result, options)
    before = _as_before(frame)
    changed = 0
    if options.neutralize_formulas:
        before, changed = ref.legacy_neutralize(before)
    sep = "\t" if options.fmt == "tsv" else options.delimiter
    assert path.read_bytes() == ref.legacy_csv_bytes(before, sep, options.bom)
    assert summary.neutralized_cells == changed
    assert summary.sha256 == release_writer.sha256_file(path)


def test_parquet_holds_the_release_values(tmp_path, adult_result):
    table, result = adult_result
    path = tmp_path / "out.parquet"
    export_release(table, result, path)
    back = pq.read_table(path).to_pandas()
    frame, _ = prepare_release(table, result)
    pd.testing.assert_frame_equal(
        back.astype(object), _as_before(frame).astype(object).where(frame.notna(), None), check_dtype=False
    )
