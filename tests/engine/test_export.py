"""Safe exports: formula injection, identifiers, drop/mask/shuffle, atomic writes, value mapping, HMAC.

Read-only / full targets: the tests run as root, for whom chmod does not stop a write. They simulate
the two failures instead: a target whose parent is a regular FILE (the OS refuses to create anything
under it: ENOTDIR), and ``os.replace`` monkeypatched to raise ``OSError(ENOSPC)`` / ``OSError(EROFS)``
at the final step (disk full / read-only file system), which must leave the old target untouched and
no temporary file behind.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pyarrow.parquet as pq
import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.config import AnonymizationConfig, build_models
from kanon_engine.data.io import read_table
from kanon_engine.data.table import ReadOptions, Table
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.hierarchy import Hierarchy, default_hierarchy, read_arx_csv
from kanon_engine.release.export import (
    ExportOptions,
    export_hierarchies,
    export_release,
    export_value_mapping,
    needs_neutralizing,
    neutralize_formulas,
    pseudonym,
    pseudonymize_identifiers,
    read_key_file,
    release_in_input_order,
    value_mapping,
)
from kanon_engine.result import AnonymizationResult

KEY = b"0123456789abcdef0123456789abcdef"
INJECTIONS = ["=1+1", "+A", "-A", "@x", "\tX", "\rX"]
HARMLESS = ["-5", "-3.2", "-0.5", "-.5", "-1e3", "abc", "5", "a=b", ""]


def test_neutralize_rule() -> None:
    for text in INJECTIONS + ["+5", "-5+1", '=HYPERLINK("x")', "-", "@SUM(A1)"]:
        assert needs_neutralizing(text), repr(text)
    for text in HARMLESS:
        assert not needs_neutralizing(text), repr(text)
    frame = pd.DataFrame({"a": INJECTIONS + HARMLESS[:3], "=b": [None] * 9})
    out, changed = neutralize_formulas(frame)
    assert out["a"].tolist() == ["'" + t for t in INJECTIONS] + ["-5", "-3.2", "-0.5"]
    assert changed == len(INJECTIONS)
    assert list(out.columns) == ["a", "'=b"]
    assert out["'=b"].isna().all()
    assert frame["a"].iloc[0] == "=1+1"  # input not modified


@pytest.fixture()
def small(tmp_path: Path):
    """A table whose insensitive column carries formula payloads, with an identifier column."""
    src = tmp_path / "patients.csv"
    rows = ["id,name,age,sex,note"]
    notes = INJECTIONS + ["-5", "plain", "-3.2", "ok", "x"]
    for i in range(11):
        note = notes[i].replace("\t", "\\t").replace("\r", "\\r")
        age = 30 + i % 4 if i < 10 else 71  # record 10 is an outlier, suppressed
        rows.append(f"{i},N{i % 3},{age},{'MF'[i % 2]},{note}")
    src.write_text("\n".join(rows) + "\n", encoding="utf-8")
    table = read_table(src)
    # put the real control characters in (CSV read keeps the escaped text otherwise)
    frame = table.frame.copy()
    frame["note"] = notes
    table = Table(
        frame, source=src, sha256=table.sha256, options=table.options, column_types=table.column_types
    )
    qi = ("age", "sex")
    hs = {q: default_hierarchy(q, frame[q], table.column_types.get(q)) for q in qi}
    config = AnonymizationConfig(qi, hs, build_models(2), identifiers=("id", "name"))
    result = get_algorithm("optimal", suppression_limit=0.2).run(table, config)
    return table, config, result


def test_csv_export_neutralizes_and_drops_identifiers(small, tmp_path: Path) -> None:
    table, _, result = small
    out = tmp_path / "release.csv"
    s = export_release(table, result, out, ExportOptions(delimiter=";", bom=True))
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert s.sha256 == hashlib.sha256(raw).hexdigest()
    back = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False, encoding="utf-8-sig")
    assert "id" not in back.columns and "name" not in back.columns and s.columns == tuple(back.columns)
    notes = back["note"].tolist()
    assert notes[:6] == ["'=1+1", "'+A", "'-A", "'@x", "'\tX", "'\rX"]
    assert notes[6] == "-5" and notes[8] == "-3.2"
    assert s.neutralized_cells == 6


def test_xlsx_cells_are_text_not_formulas(small, tmp_path: Path) -> None:
    table, _, result = small
    out = tmp_path / "release.xlsx"
    export_release(table, result, out)
    ws = openpyxl.load_workbook(out).active
    header = [c.value for c in ws[1]]
    col = header.index("note") + 1
    cells = [ws.cell(row=r, column=col) for r in range(2, 13)]
    assert all(c.data_type != "f" for c in cells)
    assert cells[0].value == "'=1+1" and cells[3].value == "'@x" and cells[6].value == "-5"


def test_parquet_is_written_as_is(small, tmp_path: Path) -> None:
    table, _, result = small
    out = tmp_path / "release.parquet"
    s = export_release(table, result, out)
    back = pq.read_table(out).to_pandas()
    assert back["note"].tolist()[:6] == INJECTIONS and s.neutralized_cells == 0 and s.format == "parquet"


def test_drop_mask_and_shuffle(small, tmp_path: Path) -> None:
    table, config, result = small
    n_supp = result.suppressed
    assert n_supp > 0  # the fixture suppresses a few outliers
    masked = export_release(table, result, tmp_path / "m.csv", ExportOptions(suppressed="mask"))
    dropped = export_release(table, result, tmp_path / "d.csv", ExportOptions(suppressed="drop"))
    assert masked.rows == table.n_rows and masked.suppressed_rows == n_supp
    assert dropped.rows == table.n_rows - n_supp and dropped.dropped_rows == n_supp
    m = pd.read_csv(tmp_path / "m.csv", dtype=str, keep_default_na=False)
    assert ((m["age"] == "*") & (m["sex"] == "*")).sum() == n_supp
    shuffled = export_release(table, result, tmp_path / "s.csv", ExportOptions(shuffle=True, shuffle_seed=3))
    s = pd.read_csv(tmp_path / "s.csv", dtype=str, keep_default_na=False)
    assert shuffled.shuffled and sorted(map(tuple, s.to_numpy())) == sorted(map(tuple, m.to_numpy()))
    assert s["note"].tolist() != m["note"].tolist()


def test_release_in_input_order_undoes_run_shuffle_and_drop(small) -> None:
    table, config, _ = small
    # the same records suppressed whether kept or dropped: Datafly's step 4 (moot when dropped) off
    config = config.with_changes(protect_suppressed_group=False)
    plain = release_in_input_order(table, get_algorithm("optimal", suppression_limit=0.2).run(table, config))
    variants = ({"shuffle_seed": 11}, {"drop_suppressed": True}, {"shuffle_seed": 5, "drop_suppressed": True})
    for changes in variants:
        other = get_algorithm("optimal", suppression_limit=0.2).run(table, config.with_changes(**changes))
        pd.testing.assert_frame_equal(release_in_input_order(table, other), plain, check_dtype=False)


def test_pseudonymization(small, tmp_path: Path) -> None:
    table, _, result = small
    s = export_release(table, result, tmp_path / "p.csv", ExportOptions(pseudonymize_key=KEY))
    back = pd.read_csv(tmp_path / "p.csv", dtype=str, keep_default_na=False)
    assert s.pseudonymized == ("id", "name") and list(back.columns[:2]) == ["id", "name"]
    want = hmac.new(KEY, b"N0", hashlib.sha256).hexdigest()
    assert back["name"].iloc[0] == want == pseudonym("N0", KEY)
    assert back["name"].iloc[3] == want  # same identifier, same pseudonym
    assert not set(table.frame["id"]) & set(back["id"])  # no identifier value leaks
    frame = pd.DataFrame({"id": ["a", None, "a"]})
    out = pseudonymize_identifiers(frame, ["id"], KEY)
    assert out["id"].iloc[0] == out["id"].iloc[2] and pd.isna(out["id"].iloc[1])
    with pytest.raises(ConfigError, match="at least 16 bytes"):
        pseudonymize_identifiers(frame, ["id"], b"short")
    key_file = tmp_path / "k.key"
    key_file.write_bytes(KEY + b"\n")
    assert read_key_file(key_file) == KEY


def test_refuses_to_overwrite_input(small, tmp_path: Path) -> None:
    table, _, result = small
    before = table.source.read_bytes()
    with pytest.raises(DataError, match="never writes over its input"):
        export_release(table, result, table.source)
    project = tmp_path / "p.kanon.json"
    project.write_text("{}")
    with pytest.raises(DataError, match="input"):
        export_release(table, result, project, ExportOptions(fmt="csv"), project_path=project)
    assert table.source.read_bytes() == before and project.read_text() == "{}"


def test_parent_is_a_file(small, tmp_path: Path) -> None:
    table, _, result = small
    blocker = tmp_path / "notafolder"
    blocker.write_text("x")
    with pytest.raises(DataError) as info:
        export_release(table, result, blocker / "release.csv")
    assert "release.csv cannot be written" in str(info.value)


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "disk"), (errno.EROFS, "read-only")])
def test_full_or_read_only_disk_keeps_old_target(small, tmp_path: Path, monkeypatch, code, words) -> None:
    table, _, result = small
    out = tmp_path / "release.csv"
    out.write_text("previous release\n")

    def refuse(src, dst):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(DataError) as info:
        export_release(table, result, out)
    assert words in str(info.value)
    assert out.read_text() == "previous release\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# --- value mapping and hierarchies ------------------------------------------------------------------
def test_value_mapping_full_domain(adult_dir: Path, tmp_path: Path) -> None:
    qi = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"]
    table = read_table(adult_dir / "adult.csv")
    hs = {q: read_arx_csv(adult_dir / f"adult_hierarchy_{q}.csv", q) for q in qi}
    config = AnonymizationConfig(tuple(qi), hs, build_models(5), sensitive=("occupation",))
    result = get_algorithm("datafly", suppression_limit=0.02).run(table, config)
    vm = value_mapping(table, result)
    kept = result.row_class >= 0
    for q in qi:
        part = vm[vm["quasi_identifier"] == q]
        assert part["records"].sum() == table.n_rows
        level = result.transformation[q]
        label = dict(zip(hs[q].matrix[:, 0], hs[q].matrix[:, level]))
        for _, row in part.iterrows():
            assert row["released_value"] in (label[row["original_value"]], "*")
        want = pd.Series(table.frame[q][~kept]).value_counts()
        stars = part[part["released_value"] == "*"].set_index("original_value")["records"]
        if level < hs[q].height:
            assert stars.sort_index().to_dict() == want.sort_index().to_dict()
    path = export_value_mapping(table, result, tmp_path / "map.csv")
    back = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert list(back.columns) == ["quasi_identifier", "original_value", "released_value", "records"]
    assert len(back) == len(vm)


def test_value_mapping_lists_several_released_values() -> None:
    """A Mondrian-style release: age 35 is in two boxes with different ranges."""
    frame = pd.DataFrame({"age": ["35", "35", "36", "40"], "sex": ["M", "F", "F", "M"]})
    table = Table.from_frame(frame)
    hs = {"age": Hierarchy.flat("age", ["35", "36", "40"]), "sex": Hierarchy.flat("sex", ["F", "M"])}
    config = AnonymizationConfig(("age", "sex"), hs, build_models(2))
    release = pd.DataFrame({"age": ["[35-40]", "[35-36]", "[35-36]", "[35-40]"], "sex": ["M", "F", "F", "M"]})
    result = AnonymizationResult(
        "mondrian", {}, config, release, np.array([0, 1, 1, 0]), np.array([2, 2]), {}, 0.0
    )
    vm = value_mapping(table, result)
    age = vm[vm["quasi_identifier"] == "age"][["original_value", "released_value", "records"]].values.tolist()
    assert age == [["35", "[35-40]", 1], ["35", "[35-36]", 1], ["36", "[35-36]", 1], ["40", "[35-40]", 1]]


def test_export_hierarchies_round_trip(small, tmp_path: Path) -> None:
    table, config, _ = small
    folder = tmp_path / "h"
    folder.mkdir()
    paths = export_hierarchies(config, folder)
    assert [p.name for p in paths] == ["hierarchy_age.csv", "hierarchy_sex.csv"]
    for q, p in zip(config.quasi_identifiers, paths):
        assert read_arx_csv(p, q) == config.hierarchies[q]
    with pytest.raises(DataError, match="input"):
        export_hierarchies(config, folder, inputs=[paths[0]])
    with pytest.raises(DataError, match="does not exist"):
        export_hierarchies(config, tmp_path / "missing")


def test_csv_round_trips_awkward_values(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"a;b": ["x;y", 'say "hi"', "line\nbreak", "cr\ronly", None], "c": ["1", "", "é", "-5", "z"]}
    )
    from kanon_engine.release.export import csv_bytes

    path = tmp_path / "t.csv"
    path.write_bytes(csv_bytes(frame, ";"))
    back = read_table(path, ReadOptions(delimiter=";")).frame
    assert list(back.columns) == ["a;b", "c"]
    assert back["a;b"].tolist()[:4] == ["x;y", 'say "hi"', "line\nbreak", "cr\ronly"]
    assert pd.isna(back["a;b"].iloc[4]) and back["c"].iloc[2] == "é"
