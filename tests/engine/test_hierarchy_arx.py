"""ARX hierarchy CSV import/export, against the shared adult and seed hierarchies and small files."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from kanon_engine.errors import HierarchyError
from kanon_engine.hierarchy import Hierarchy, read_arx_csv, validate_hierarchy, write_arx_csv


def _datasets() -> Path:
    env = os.environ.get("KANON_SHARED")
    shared = Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared"
    return shared / "datasets"


DATASETS = _datasets()
needs_shared = pytest.mark.skipif(not DATASETS.is_dir(), reason="shared datasets not available")

ADULT_COLUMNS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
]
SEED_COLUMNS = ["race", "birth_date", "gender", "zip"]


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return pd.read_csv(DATASETS / "adult" / "adult.csv", sep=";", dtype=str)


@pytest.fixture(scope="module")
def sweeney() -> pd.DataFrame:
    return pd.read_csv(DATASETS / "seed_examples" / "datafly_sweeney.csv", dtype=str)


@needs_shared
@pytest.mark.parametrize("column", ADULT_COLUMNS)
def test_adult_hierarchies_load_and_cover_the_data(adult: pd.DataFrame, column: str) -> None:
    h = read_arx_csv(DATASETS / "adult" / f"adult_hierarchy_{column}.csv", column)
    assert h.attribute == column
    assert h.labels(h.height)[0] == "*"
    assert validate_hierarchy(h, adult[column]) == []


@needs_shared
def test_adult_age_hierarchy_shape() -> None:
    h = read_arx_csv(DATASETS / "adult" / "adult_hierarchy_age.csv")
    assert h.attribute == "age"  # from the file name
    assert h.matrix.shape == (100, 5)
    assert h.rows()[0] == ["1", "0-4", "0-9", "0-19", "*"]


@needs_shared
def test_native_country_without_final_newline_keeps_last_row() -> None:
    path = DATASETS / "adult" / "adult_hierarchy_native-country.csv"
    assert not path.read_bytes().endswith(b"\n")
    h = read_arx_csv(path, "native-country")
    assert len(h.values) == 41
    assert h.values[-1] == path.read_text().splitlines()[-1].split(";")[0]


@needs_shared
@pytest.mark.parametrize("column", SEED_COLUMNS)
def test_seed_hierarchies_load_and_cover_the_data(sweeney: pd.DataFrame, column: str) -> None:
    h = read_arx_csv(DATASETS / "seed_examples" / f"datafly_sweeney_hierarchy_{column}.csv", column)
    assert validate_hierarchy(h, sweeney[column]) == []


@needs_shared
def test_seed_gender_keeps_its_own_root() -> None:
    h = read_arx_csv(DATASETS / "seed_examples" / "datafly_sweeney_hierarchy_gender.csv", "gender")
    assert h.rows() == [["male", "human"], ["female", "human"]]


@needs_shared
def test_seed_zip_keeps_leading_zeros() -> None:
    h = read_arx_csv(DATASETS / "seed_examples" / "datafly_sweeney_hierarchy_zip.csv", "zip")
    assert h.rows()[0] == ["02141", "0214*", "021**", "*"]


@needs_shared
@pytest.mark.parametrize(
    "path", sorted(DATASETS.glob("*/*hierarchy_*.csv")) if DATASETS.is_dir() else [], ids=lambda p: p.name
)
def test_round_trip_is_identical(path: Path, tmp_path: Path) -> None:
    h = read_arx_csv(path)
    out = write_arx_csv(h, tmp_path / path.name)
    assert read_arx_csv(out) == h
    original = path.read_bytes()
    if not original.endswith(b"\n"):
        original += b"\n"  # we always end the last line
    assert out.read_bytes() == original


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize("delim", [";", ",", "\t"])
def test_delimiter_is_detected(tmp_path: Path, delim: str) -> None:
    text = "\n".join(delim.join(r) for r in [["a", "g1", "*"], ["b", "g1", "*"], ["c", "g2", "*"]]) + "\n"
    h = read_arx_csv(_write(tmp_path, "h.csv", text.encode()), "x")
    assert h.rows() == [["a", "g1", "*"], ["b", "g1", "*"], ["c", "g2", "*"]]


def test_semicolon_file_with_commas_in_labels(tmp_path: Path) -> None:
    p = _write(tmp_path, "h.csv", b"1;[0,5);*\n6;[5,10);*\n")
    assert read_arx_csv(p, "x").rows() == [["1", "[0,5)", "*"], ["6", "[5,10)", "*"]]


def test_explicit_delimiter(tmp_path: Path) -> None:
    p = _write(tmp_path, "h.csv", b"a|b;c|*\n")
    assert read_arx_csv(p, "x", delimiter="|").rows() == [["a", "b;c", "*"]]


@pytest.mark.parametrize(
    "data,encoding",
    [
        ("caf\u00e9;drinks;*\n".encode(), "utf-8"),
        (b"\xef\xbb\xbf" + "caf\u00e9;drinks;*\n".encode(), "utf-8-sig"),
        ("caf\u00e9;drinks;*\n".encode("cp1252"), "cp1252"),
    ],
)
def test_encoding_is_detected(tmp_path: Path, data: bytes, encoding: str) -> None:
    h = read_arx_csv(_write(tmp_path, "h.csv", data), "x")
    assert h.rows() == [["caf\u00e9", "drinks", "*"]]


def test_quoted_cells_and_blank_lines(tmp_path: Path) -> None:
    p = _write(tmp_path, "h.csv", b'"a;1";"g ""x""";*\r\n\r\n   \r\nb;g;*\r\n')
    h = read_arx_csv(p, "x")
    assert h.rows() == [["a;1", 'g "x"', "*"], ["b", "g", "*"]]
    out = write_arx_csv(h, tmp_path / "out.csv")
    assert out.read_text() == '"a;1";"g ""x""";*\nb;g;*\n'
    assert read_arx_csv(out, "x") == h


def test_trailing_delimiter_on_every_row_is_dropped(tmp_path: Path) -> None:
    p = _write(tmp_path, "h.csv", b"a;g;*;\nb;g;*;\n")
    assert read_arx_csv(p, "x").rows() == [["a", "g", "*"], ["b", "g", "*"]]


def test_missing_leaf_round_trips(tmp_path: Path) -> None:
    h = Hierarchy.from_rows("x", [["a", "g", "*"], ["", "(missing)", "*"]])
    out = write_arx_csv(h, tmp_path / "h.csv")
    assert out.read_text() == "a;g;*\n;(missing);*\n"
    assert read_arx_csv(out, "x") == h


def test_uneven_depth_names_file_line_value_and_depths(tmp_path: Path) -> None:
    p = _write(tmp_path, "hier_age.csv", b"1;0-4;0-9;*\n2;0-4;0-9;*\n6;5-9;*\n7;5-9;0-9;*\n")
    with pytest.raises(HierarchyError) as err:
        read_arx_csv(p, "age")
    msg = str(err.value)
    assert "'hier_age.csv'" in msg
    assert "line 3" in msg
    assert "'6'" in msg
    assert "2 levels" in msg and "have 3" in msg
    assert err.value.where.endswith(":3")


def test_duplicate_value_names_both_lines(tmp_path: Path) -> None:
    p = _write(tmp_path, "h.csv", b"a;g;*\nb;g;*\na;h;*\n")
    with pytest.raises(HierarchyError, match=r"'a' of 'x' twice, on lines 1 and 3"):
        read_arx_csv(p, "x")


def test_empty_and_absent_files(tmp_path: Path) -> None:
    with pytest.raises(HierarchyError, match="is empty"):
        read_arx_csv(_write(tmp_path, "e.csv", b"\n\n"), "x")
    with pytest.raises(HierarchyError, match="^The hierarchy file nope.csv was not found in "):
        read_arx_csv(tmp_path / "nope.csv", "x")


def test_undecodable_file(tmp_path: Path) -> None:
    with pytest.raises(HierarchyError, match="cannot be read as text"):
        read_arx_csv(_write(tmp_path, "h.csv", b"a\x81;b\n"), "x")


def test_write_is_atomic_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "h.csv"
    target.write_text("old content\n")
    h = Hierarchy.from_rows("x", [["a", "*"]])
    write_arx_csv(h, target, delimiter=",")
    assert target.read_text() == "a,*\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.csv"]  # no temporary file left


def test_write_to_missing_folder_is_a_plain_error(tmp_path: Path) -> None:
    h = Hierarchy.from_rows("x", [["a", "*"]])
    with pytest.raises(HierarchyError, match="cannot be written"):
        write_arx_csv(h, tmp_path / "no" / "h.csv")
    with pytest.raises(HierarchyError, match="delimiter"):
        write_arx_csv(h, tmp_path / "h.csv", delimiter=";;")
