"""Table input (CSV/TSV/xlsx/Parquet), sniffing, and atomic output: messages are asserted word for word
where the user sees them."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kanon_engine.data import ReadOptions, Table, list_sheets, preview_table, read_table, sniff_csv
from kanon_engine.data.sniff import describe_encoding, detect_encoding
from kanon_engine.errors import DataError
from kanon_engine.release import fileio
from kanon_engine.release.fileio import (
    atomic_write_bytes,
    atomic_write_text,
    atomic_writer,
    refuse_input_overwrite,
    write_table,
)

SHARED = Path(os.environ.get("KANON_SHARED", Path(__file__).resolve().parents[2] / ".." / "shared"))
SEEDS = SHARED / "datasets" / "seed_examples"
ADULT = SHARED / "datasets" / "adult" / "adult.csv"
needs_shared = pytest.mark.skipif(not SEEDS.is_dir(), reason="shared/ datasets not available")


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return p


def nine_column_lines(n: int) -> list[str]:
    header = "sex;age;race;marital;education;country;workclass;occupation;salary"
    rows = [f"Male;{20 + i % 50};White;Single;Bachelors;US;Private;Sales;<=50K" for i in range(n)]
    return [header, *rows]


# ------------------------------------------------------------------------------------------ seed files
@needs_shared
@pytest.mark.parametrize("name", sorted(p.name for p in SEEDS.glob("*.csv")) if SEEDS.is_dir() else [])
def test_seed_files_load(name: str) -> None:
    t = read_table(SEEDS / name)
    assert t.n_rows >= 1
    assert t.sha256 == hashlib.sha256((SEEDS / name).read_bytes()).hexdigest()
    assert t.source == SEEDS / name
    assert set(t.column_types) == set(t.columns)


@needs_shared
def test_adult_loads_with_semicolon() -> None:
    t = read_table(ADULT)
    assert t.options == ReadOptions(delimiter=";", encoding="utf-8", quotechar='"', header=True)
    assert t.n_rows == 30162
    assert t.columns[:2] == ["sex", "age"]
    assert t.kind("age").value == "integer"
    assert t.frame["age"].iloc[0] == "39"


@needs_shared
def test_salary_quoted_commas_stay_in_one_field() -> None:
    t = read_table(SEEDS / "salary_employees.csv")
    assert t.frame["address"].iloc[0] == "1, 4th St."
    assert t.frame["zip"].iloc[0] == "560001"


# ------------------------------------------------------------------------------------------ delimiters
@pytest.mark.parametrize(("sep", "ext"), [(",", "csv"), (";", "csv"), ("\t", "tsv"), ("|", "txt")])
def test_delimiter_detected(tmp_path: Path, sep: str, ext: str) -> None:
    p = write(tmp_path, f"d.{ext}", sep.join(["a", "b", "c"]) + "\n" + sep.join(["1", "x y", "3"]) + "\n")
    t = read_table(p)
    assert t.options.delimiter == sep
    assert t.columns == ["a", "b", "c"]
    assert t.frame.iloc[0].tolist() == ["1", "x y", "3"]


def test_semicolon_file_with_decimal_commas(tmp_path: Path) -> None:
    p = write(tmp_path, "eu.csv", "name;weight;height\nAnna;61,5;1,70\nBen;80,25;1,82\nCem;70;1,75\n")
    t = read_table(p)
    assert t.options.delimiter == ";"
    assert t.frame["weight"].tolist() == ["61,5", "80,25", "70"]


def test_wrong_explicit_delimiter_names_the_right_one(tmp_path: Path) -> None:
    p = write(tmp_path, "adult.csv", "\n".join(nine_column_lines(20)) + "\n")
    with pytest.raises(DataError) as exc:
        read_table(p, ReadOptions(delimiter=","))
    assert str(exc.value).startswith(
        "With the delimiter ',' (comma) every line of adult.csv is a single "
        "column, but ';' (semicolon) splits it into 9 columns."
    )
    assert "Choose ';' (semicolon) as the delimiter." in str(exc.value)


def test_one_column_file_is_fine(tmp_path: Path) -> None:
    t = read_table(write(tmp_path, "one.csv", "diagnosis\nFlu\nCancer\n"))
    assert t.columns == ["diagnosis"]
    assert t.n_rows == 2


def test_single_quote_quotechar_detected(tmp_path: Path) -> None:
    t = read_table(write(tmp_path, "q.csv", "a|b\n'x|y'|2\n'p'|3\n"))
    assert t.options.quotechar == "'"
    assert t.frame["a"].tolist() == ["x|y", "p"]


def test_sniff_csv_on_path_and_bytes(tmp_path: Path) -> None:
    raw = "a\tb\n1\t2\n".encode("cp1252") + "Zoë\t“q”\n".encode("cp1252")
    p = write(tmp_path, "s.tsv", raw)
    assert sniff_csv(p) == ReadOptions(delimiter="\t", encoding="cp1252", quotechar='"', header=True)
    assert sniff_csv(raw).delimiter == "\t"


# --------------------------------------------------------------------------------- empty / header / names
def test_empty_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"^empty\.csv is empty\. "):
        read_table(write(tmp_path, "empty.csv", b""))


def test_blank_lines_only_is_empty(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"^blank\.csv is empty\."):
        read_table(write(tmp_path, "blank.csv", "\n  \r\n\n"))


def test_header_only(tmp_path: Path) -> None:
    with pytest.raises(DataError) as exc:
        read_table(write(tmp_path, "h.csv", "age;sex;zip\r\n\r\n"))
    assert exc.value.message == "h.csv has a header but no rows."


def test_duplicate_column_name_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError) as exc:
        read_table(write(tmp_path, "dup.csv", "age,zip,age\n1,2,3\n"))
    assert exc.value.message == "The header of dup.csv has the column name 'age' twice (columns 1 and 3)."
    assert exc.value.where == "age"


def test_blank_column_name_renamed_by_position(tmp_path: Path) -> None:
    t = read_table(write(tmp_path, "b.csv", "age,,zip\n1,2,3\n"))
    assert t.columns == ["age", "column_2", "zip"]


def test_no_header(tmp_path: Path) -> None:
    t = read_table(write(tmp_path, "nh.csv", "1,a\n2,b\n"), ReadOptions(header=False))
    assert t.columns == ["column_1", "column_2"]
    assert t.frame["column_1"].tolist() == ["1", "2"]
    assert t.options.header is False


# -------------------------------------------------------------------------------------------- ragged rows
def test_ragged_row_names_its_line(tmp_path: Path) -> None:
    lines = nine_column_lines(100)
    lines[56] = lines[56] + ";extra"  # line 57 of the file
    p = write(tmp_path, "adult.csv", "\n".join(lines) + "\n")
    with pytest.raises(DataError) as exc:
        read_table(p)
    assert exc.value.message == "Line 57 of adult.csv has 10 fields; the header has 9."
    assert "without quotes" in exc.value.hint
    assert exc.value.where == "adult.csv, line 57"


def test_short_row_is_reported_too(tmp_path: Path) -> None:
    p = write(tmp_path, "s.csv", "a,b,c\n1,2,3\n4,5\n")
    with pytest.raises(DataError, match=r"^Line 3 of s\.csv has 2 fields; the header has 3\."):
        read_table(p)


def test_ragged_line_counts_physical_lines_after_quoted_newline(tmp_path: Path) -> None:
    p = write(tmp_path, "m.csv", 'id,note,x\n1,"two\nlines",3\n2,ok,3,4\n')
    with pytest.raises(DataError, match=r"^Line 4 of m\.csv has 4 fields; the header has 3\."):
        read_table(p)


def test_quoted_newline_value_is_kept(tmp_path: Path) -> None:
    t = read_table(write(tmp_path, "m.csv", 'id,note\n1,"two\nlines"\n2,"say ""hi"""\n'))
    assert t.frame["note"].tolist() == ["two\nlines", 'say "hi"']


# ------------------------------------------------------------------------------------------------ encodings
def test_accents_without_windows_bytes_are_read_as_windows_cp1252(tmp_path: Path) -> None:
    """Umlauts alone are the same bytes in Windows-1252 and Latin-1: such a file is named the way users
    know it, Windows (cp1252), and a euro sign or en dash later in the file still decodes right."""
    head = "name;city\n" + "René;Zürich\n" * 8000  # more than the 64 KiB the preview looks at
    tail = "André;Genève – 5 €\n“Zoë”;‚x‘\n"
    p = write(tmp_path, "l.csv", (head + tail).encode("cp1252"))
    assert detect_encoding((head).encode("cp1252")) == "cp1252"
    assert describe_encoding(detect_encoding(head.encode("cp1252"))) == "Windows (cp1252)"
    preview = preview_table(p, n_rows=10)
    assert preview.options.encoding == "cp1252"
    t = read_table(p)
    assert t.options.encoding == "cp1252"
    assert t.frame["name"].iloc[0] == "René"
    assert t.frame.iloc[-2].tolist() == ["André", "Genève – 5 €"]
    assert t.frame.iloc[-1].tolist() == ["“Zoë”", "‚x‘"]


def test_latin1_only_when_a_byte_cp1252_leaves_undefined_occurs(tmp_path: Path) -> None:
    raw = "name;city\nRené;Zürich\n".encode("latin-1") + b"x\x81y;z\n"
    p = write(tmp_path, "l.csv", raw)
    t = read_table(p)
    assert t.options.encoding == "iso8859-1"
    assert describe_encoding(t.options.encoding) == "Latin-1 (ISO-8859-1)"
    assert t.frame["name"].tolist() == ["René", "x\x81y"]


@pytest.mark.parametrize(
    ("codec", "name"),
    [
        ("cp1252", "Windows (cp1252)"),
        ("windows-1252", "Windows (cp1252)"),
        ("latin1", "Latin-1 (ISO-8859-1)"),
        ("utf8", "Unicode (UTF-8)"),
        ("utf-8-sig", "Unicode (UTF-8 with byte-order mark)"),
    ],
)
def test_encodings_are_named_as_people_know_them(codec: str, name: str) -> None:
    assert describe_encoding(codec) == name


def test_cp1252_file_reads_curly_quotes_and_euro(tmp_path: Path) -> None:
    p = write(tmp_path, "w.csv", "item,price\n“Grüße”,5 €\n".encode("cp1252"))
    t = read_table(p)
    assert t.options.encoding == "cp1252"
    assert t.frame.iloc[0].tolist() == ["“Grüße”", "5 €"]


def test_explicit_utf8_on_latin1_file_names_the_line(tmp_path: Path) -> None:
    p = write(tmp_path, "l.csv", "name\nBob\nRené\n".encode("latin-1"))
    with pytest.raises(DataError) as exc:
        read_table(p, ReadOptions(encoding="utf-8"))
    assert exc.value.message == "Line 3 of l.csv cannot be read as Unicode (UTF-8) text."
    assert "Windows (cp1252)" in exc.value.hint


def test_unknown_encoding_name(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="'klingon' is not a text encoding"):
        read_table(write(tmp_path, "a.csv", "a\n1\n"), ReadOptions(encoding="klingon"))


def test_bom_stripped_from_first_column_name(tmp_path: Path) -> None:
    p = write(tmp_path, "bom.csv", b"\xef\xbb\xbfname,age\nJos\xc3\xa9,3\n")
    t = read_table(p)
    assert t.columns == ["name", "age"]
    assert t.options.encoding == "utf-8-sig"
    assert t.frame["name"].iloc[0] == "José"
    assert read_table(p, ReadOptions(encoding="utf-8")).columns[0] == "name"


def test_utf16_with_bom(tmp_path: Path) -> None:
    t = read_table(write(tmp_path, "u.csv", "a;b\nÄ;1\n".encode("utf-16")))
    assert t.options.encoding == "utf-16"
    assert t.frame["a"].iloc[0] == "Ä"


# ------------------------------------------------------------------------------------ values and metadata
def test_only_empty_cells_are_missing(tmp_path: Path) -> None:
    t = read_table(write(tmp_path, "na.csv", 'a,b,c\nNA,,null\n"", ?,x\n'))
    assert t.frame["a"].iloc[0] == "NA"
    assert pd.isna(t.frame["a"].iloc[1])
    assert pd.isna(t.frame["b"].iloc[0])
    assert t.frame["b"].iloc[1] == " ?"
    assert t.frame["c"].tolist() == ["null", "x"]


def test_table_metadata(tmp_path: Path) -> None:
    raw = b"zip,age\n02138,39\n"
    p = write(tmp_path, "z.csv", raw)
    t = read_table(p)
    assert isinstance(t, Table)
    assert t.source == p
    assert t.sha256 == hashlib.sha256(raw).hexdigest()
    assert t.frame["zip"].iloc[0] == "02138"
    assert t.kind("zip").value == "categorical"


def test_csv_round_trip_is_byte_for_byte(tmp_path: Path) -> None:
    """Lines end in CR LF (RFC 4180, Excel); a line feed inside a quoted value stays a line feed."""
    raw = (
        'id,name,address,score\r\n1,Ann,"1, Main St.",3.50\r\n2,"Bob ""B""",,007\r\n3, x ,"two\nlines",NA\r\n'
    )
    p = write(tmp_path, "in.csv", raw)
    out = tmp_path / "out.csv"
    write_table(read_table(p).frame, out)
    assert out.read_bytes() == raw.encode("utf-8")


def test_unknown_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"^nope\.csv was not found in "):
        read_table(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="is a folder, not a file"):
        read_table(tmp_path)


def test_old_xls_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"old Excel \.xls format"):
        read_table(write(tmp_path, "o.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100))


# -------------------------------------------------------------------------------------------------- preview
def test_preview_reads_first_rows_only(tmp_path: Path) -> None:
    lines = nine_column_lines(5000)
    lines[4000] += ";broken"  # beyond the preview: not seen
    p = write(tmp_path, "big.csv", "\n".join(lines) + "\n")
    t = preview_table(p, n_rows=200)
    assert t.n_rows == 200
    assert t.sha256 is None
    assert t.options.delimiter == ";"
    assert t.frame["age"].iloc[0] == "20"
    assert preview_table(p, ReadOptions(delimiter=";"), n_rows=3).n_rows == 3
    with pytest.raises(DataError, match=r"Line 4001 of big\.csv has 10 fields"):
        read_table(p)


def test_preview_with_wrong_delimiter_explains(tmp_path: Path) -> None:
    p = write(tmp_path, "a.csv", "\n".join(nine_column_lines(500)) + "\n")
    with pytest.raises(DataError, match=r"';' \(semicolon\) splits it into 9 columns"):
        preview_table(p, ReadOptions(delimiter="|"))


# ----------------------------------------------------------------------------------------------------- xlsx
@pytest.fixture
def workbook(tmp_path: Path) -> Path:
    import datetime as dt

    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "patients"
    ws.append(["age", "weight", "admitted", "zip", "note"])
    ws.append([39, 71.5, dt.datetime(2020, 1, 31), "02138", None])
    ws.append([40, 80.0, dt.datetime(2021, 2, 1, 10, 30), "02139", "NA"])
    other = wb.create_sheet("codes")
    other.append(["code", "label"])
    other.append(["A1", "flu"])
    wb.create_sheet("empty")
    p = tmp_path / "book.xlsx"
    wb.save(p)
    return p


def test_xlsx_first_sheet_by_default(workbook: Path) -> None:
    t = read_table(workbook)
    assert t.options.sheet == "patients"
    assert t.columns == ["age", "weight", "admitted", "zip", "note"]
    assert t.frame.iloc[0, :4].tolist() == ["39", "71.5", "2020-01-31", "02138"]
    assert t.frame.iloc[1, :4].tolist() == ["40", "80", "2021-02-01 10:30:00", "02139"]
    assert pd.isna(t.frame["note"].iloc[0]) and t.frame["note"].iloc[1] == "NA"
    assert t.sha256 == hashlib.sha256(workbook.read_bytes()).hexdigest()


def test_xlsx_sheet_by_name_and_index(workbook: Path) -> None:
    assert list_sheets(workbook) == ["patients", "codes", "empty"]
    assert read_table(workbook, ReadOptions(sheet="codes")).frame["label"].tolist() == ["flu"]
    assert read_table(workbook, ReadOptions(sheet=1)).options.sheet == "codes"


def test_xlsx_unknown_and_empty_sheet(workbook: Path) -> None:
    with pytest.raises(DataError) as exc:
        read_table(workbook, ReadOptions(sheet="visits"))
    assert exc.value.message == "book.xlsx has no sheet named 'visits'."
    assert exc.value.hint == "Its sheets are: patients, codes, empty."
    with pytest.raises(DataError, match="there is no sheet number 5"):
        read_table(workbook, ReadOptions(sheet=4))
    with pytest.raises(DataError, match=r"^Sheet 'empty' of book\.xlsx is empty\."):
        read_table(workbook, ReadOptions(sheet="empty"))


def test_list_sheets_on_csv_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"not an Excel \.xlsx workbook"):
        list_sheets(write(tmp_path, "a.csv", "a\n1\n"))


def test_xlsx_write_and_read_back(tmp_path: Path) -> None:
    frame = pd.DataFrame({"age": ["39", "40"], "zip": ["02138", None]}, dtype="str")
    p = tmp_path / "out.xlsx"
    write_table(frame, p)
    back = read_table(p).frame
    assert back["age"].tolist() == ["39", "40"]
    assert back["zip"].iloc[0] == "02138" and pd.isna(back["zip"].iloc[1])


# -------------------------------------------------------------------------------------------------- parquet
def test_parquet_round_trip(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"age": ["39", None, "7"], "zip": ["02138", "02139", "02141"], "name": ["Ann", "Bob", "Cé"]},
        dtype="str",
    )
    p = tmp_path / "t.parquet"
    write_table(frame, p)
    t = read_table(p)
    pd.testing.assert_frame_equal(t.frame, frame, check_dtype=False)
    assert t.kind("age").value == "integer"
    assert t.column_types["age"].missing == 1


def test_parquet_typed_columns_become_text(tmp_path: Path) -> None:
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq

    tab = pa.table(
        {
            "n": pa.array([1, None, 3], pa.int64()),
            "d": pa.array([dt.date(2020, 1, 2)] * 3),
            "ts": pa.array([dt.datetime(2020, 1, 2)] * 3),
            "s": pa.array(["", "x", "y"]),
        }
    )
    p = tmp_path / "typed.parquet"
    pq.write_table(tab, p)
    f = read_table(p).frame
    assert f["n"].iloc[0] == "1" and pd.isna(f["n"].iloc[1])
    assert f["d"].iloc[0] == "2020-01-02" and f["ts"].iloc[0] == "2020-01-02"
    assert pd.isna(f["s"].iloc[0])
    assert preview_table(p, n_rows=2).n_rows == 2


# ----------------------------------------------------------------------------------------- write_table etc.
def test_write_table_formats_by_extension(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": ["1", "x\ty"], "b": ["é", None]}, dtype="str")
    write_table(frame, tmp_path / "o.tsv")
    assert (tmp_path / "o.tsv").read_bytes() == 'a\tb\r\n1\té\r\n"x\ty"\t\r\n'.encode()
    write_table(frame, tmp_path / "o.txt", delimiter=";", encoding="latin-1")
    assert (tmp_path / "o.txt").read_bytes() == "a;b\r\n1;é\r\nx\ty;\r\n".encode("latin-1")
    write_table(frame, tmp_path / "o.csv", bom=True)
    assert (tmp_path / "o.csv").read_bytes().startswith(b"\xef\xbb\xbfa,b\r\n")
    write_table(frame, tmp_path / "noext", fmt="csv")
    assert read_table(tmp_path / "noext").frame["b"].iloc[0] == "é"


def test_write_table_unknown_extension_and_unencodable(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": ["€"]}, dtype="str")
    with pytest.raises(DataError, match="does not say which format to write"):
        write_table(frame, tmp_path / "o.json")
    with pytest.raises(DataError, match=r"cannot be written in latin-1: it cannot hold the character '€'"):
        write_table(frame, tmp_path / "o.csv", encoding="latin-1")
    assert not (tmp_path / "o.csv").exists()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_failed_write_leaves_no_temp_and_keeps_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "release.csv"
    target.write_text("old\n")

    def full(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", full)
    with pytest.raises(DataError) as exc:
        write_table(pd.DataFrame({"a": ["1"]}), target)
    assert exc.value.message == f"release.csv cannot be written: the disk holding {tmp_path} is full."
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path) == []


def test_exception_inside_atomic_writer_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "r.bin"
    with pytest.raises(ValueError, match="boom"), atomic_writer(target, "wb") as fh:
        fh.write(b"partial")
        raise ValueError("boom")
    assert not target.exists()
    assert leftovers(tmp_path) == []


def test_atomic_write_text_and_bytes(tmp_path: Path) -> None:
    atomic_write_text(tmp_path / "t.txt", "héllo\n", encoding="latin-1")
    assert (tmp_path / "t.txt").read_bytes() == "héllo\n".encode("latin-1")
    atomic_write_bytes(tmp_path / "t.txt", b"new")
    assert (tmp_path / "t.txt").read_bytes() == b"new"
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "t.txt").stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


def test_read_only_folder_gives_plain_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*_a, **_k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(fileio.tempfile, "mkstemp", denied)
    with pytest.raises(DataError) as exc:
        write_table(pd.DataFrame({"a": ["1"]}), tmp_path / "out.csv")
    assert exc.value.message == (
        f"out.csv cannot be written in {tmp_path}: the folder or file is read-only or you lack permission."
    )
    assert exc.value.hint == "Choose another folder, or ask for write access."


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_folder_for_real(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(DataError, match="read-only or you lack permission"):
            write_table(pd.DataFrame({"a": ["1"]}), ro / "out.csv")
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"the folder .* does not exist"):
        atomic_write_bytes(tmp_path / "no" / "x.csv", b"1")


def test_refuse_input_overwrite(tmp_path: Path) -> None:
    src = write(tmp_path, "in.csv", "a\n1\n")
    with pytest.raises(DataError) as exc:
        refuse_input_overwrite(tmp_path / "sub" / ".." / "in.csv", [None, src])
    assert exc.value.message == "in.csv is an input file; kanon never writes over its input data."
    refuse_input_overwrite(tmp_path / "out.csv", [src])  # a different file is fine
    with pytest.raises(DataError, match="never writes over its input"):
        write_table(read_table(src), src)
    assert src.read_text() == "a\n1\n"


def test_write_over_existing_keeps_permissions(tmp_path: Path) -> None:
    target = tmp_path / "o.csv"
    target.write_text("x\n")
    target.chmod(0o640)
    write_table(pd.DataFrame({"a": [np.nan, "1"]}), target)
    assert target.read_text() == 'a\n""\n1\n'
    assert target.stat().st_mode & 0o777 == 0o640
    assert pd.isna(read_table(target).frame["a"].iloc[0])
    assert leftovers(tmp_path) == []


def test_delimiter_aliases_and_bad_delimiters(tmp_path: Path) -> None:
    p = write(tmp_path, "t.tsv", "a\tb\n1\t2\n")
    assert read_table(p, ReadOptions(delimiter="\\t")).columns == ["a", "b"]
    assert read_table(p, ReadOptions(delimiter="tab")).options.delimiter == "\t"
    with pytest.raises(DataError, match="The delimiter must be one character"):
        read_table(p, ReadOptions(delimiter=";;"))
    with pytest.raises(DataError, match="both ','"):
        read_table(p, ReadOptions(delimiter=",", quotechar=","))


def test_blank_looking_line_reported_as_one_field(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"^Line 3 of w\.csv has 1 field; the header has 2\."):
        read_table(write(tmp_path, "w.csv", "a,b\n1,2\n   \n3,4\n"))
