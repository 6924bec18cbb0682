"""Atomic output: every file kanon writes appears whole or not at all, and never replaces an input.

Why: a release, report or project file half-written when the disk fills up, or a crash mid-export, must
not leave a truncated file that looks valid, nor destroy the previous version. Each writer writes a
temporary file in the target's folder (same file system, so the rename is atomic), flushes and fsyncs it,
then moves it over the target with ``os.replace``. On any failure the temporary file is removed and the
target is untouched.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import pandas as pd

from kanon_engine.errors import DataError

#: Formats ``write_table`` knows, by file extension.
FORMATS_BY_SUFFIX: dict[str, str] = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".xlsx": "xlsx",
    ".parquet": "parquet",
    ".pq": "parquet",
}
EXCEL_MAX_ROWS = 1_048_576


def _os_error(path: Path, err: OSError) -> DataError:
    """A plain sentence for why ``path`` could not be written, and what to do."""
    code = err.errno
    if isinstance(err, PermissionError) or code in (errno.EACCES, errno.EPERM):
        msg, hint = (
            (
                f"{path.name} cannot be written in {path.parent}: the folder or file is read-only "
                "or you lack permission."
            ),
            "Choose another folder, or ask for write access.",
        )
    elif code == errno.EROFS:
        msg, hint = (
            f"{path.name} cannot be written: {path.parent} is on a read-only disk.",
            "Choose a folder on another disk.",
        )
    elif code in (errno.ENOSPC, errno.EDQUOT):
        msg, hint = (
            f"{path.name} cannot be written: the disk holding {path.parent} is full.",
            "Free some space or choose another disk; nothing was changed.",
        )
    elif code == errno.ENOENT:
        msg, hint = (
            f"{path.name} cannot be written: the folder {path.parent} does not exist.",
            "Create the folder or choose another one.",
        )
    elif code == errno.EISDIR or path.is_dir():
        msg, hint = f"{path} is a folder, so no file can be written under that name.", "Choose a file name."
    else:
        msg, hint = (
            f"{path.name} cannot be written in {path.parent}: {err.strerror or err}.",
            "Choose another folder or file name.",
        )
    return DataError(msg, hint=hint, where=str(path))


def _final_mode(path: Path) -> int:
    """Keep an existing file's permissions; a new file gets the usual 0666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


#: Permissions of files that hold patient values and are meant for their owner only (project files,
#: autosave copies): read and write for the user, nothing for anyone else.
PRIVATE_MODE = 0o600


@contextlib.contextmanager
def atomic_path(path: str | Path, *, private: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` for a writer that needs a file name (Qt's PDF writer, say).

    On a clean exit the temporary file gets the target's permissions (an existing file's, else 0666 less
    the umask: mkstemp makes 0600, which would hide a release from colleagues) and replaces ``path``;
    if the block raises, it is removed and ``path`` is left as it was. OS errors become a DataError.
    ``private``: the file is the user's alone (:data:`PRIVATE_MODE`), whatever it had before.
    """
    path = Path(path)
    if path.is_dir():
        raise _os_error(path, IsADirectoryError(errno.EISDIR, "Is a directory"))
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
        yield Path(tmp)
        os.chmod(tmp, PRIVATE_MODE if private else _final_mode(path))
        os.replace(tmp, path)
        tmp = None
    except OSError as err:
        raise _os_error(path, err) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


@contextlib.contextmanager
def atomic_writer(
    path: str | Path,
    mode: str = "w",
    *,
    encoding: str | None = "utf-8",
    newline: str | None = None,
    private: bool = False,
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on a clean exit it replaces ``path``.

    ``mode`` is ``"w"`` (text, with ``encoding`` and ``newline``) or ``"wb"``. If the block raises, the
    temporary file is removed, ``path`` is left as it was, and OS errors become a DataError.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb'; got {mode!r}")
    with atomic_path(path, private=private) as tmp:
        try:
            if mode == "wb":
                fh: IO[Any] = open(tmp, "wb")  # noqa: SIM115  (closed below, before the rename)
            else:
                fh = open(tmp, "w", encoding=encoding, newline=newline)  # noqa: SIM115
        except OSError as err:
            raise _os_error(Path(path), err) from None
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())


def atomic_write_bytes(path: str | Path, data: bytes, *, private: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (``private``: readable by the user only)."""
    with atomic_writer(path, "wb", private=private) as fh:
        fh.write(data)


def atomic_write_text(path: str | Path, text: str, encoding: str = "utf-8", *, private: bool = False) -> None:
    """Write ``text`` to ``path`` atomically (newlines written as given; ``private``: user only)."""
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as err:
        raise _encode_error(Path(path), err, encoding) from None
    except LookupError:
        raise DataError(
            f"'{encoding}' is not a text encoding this program knows.", hint="Use utf-8.", where=encoding
        ) from None
    atomic_write_bytes(path, data, private=private)


def refuse_input_overwrite(out: str | Path, inputs: Iterable[str | Path | None]) -> None:
    """Raise a DataError if ``out`` is one of ``inputs`` (same file, however it is spelled)."""
    out = Path(out)
    for inp in inputs:
        if inp is None:
            continue
        inp = Path(inp)
        same = False
        try:
            same = out.exists() and inp.exists() and os.path.samefile(out, inp)
        except OSError:
            same = False
        if same or out.resolve() == inp.resolve():
            raise DataError(
                f"{out.name} is an input file; kanon never writes over its input data.",
                hint="Choose another file name for the output.",
                where=str(out),
            )


def _encode_error(path: Path, err: UnicodeEncodeError, encoding: str) -> DataError:
    char = err.object[err.start : err.end] if isinstance(err.object, str) else "?"
    return DataError(
        f"{path.name} cannot be written in {encoding}: it cannot hold the character "
        f"'{char}' (U+{ord(char[0]):04X}) found in the data.",
        hint="Write the file as utf-8, which holds every character.",
        where=str(path),
    )


def _format_for(path: Path, fmt: str | None) -> str:
    if fmt is not None:
        f = fmt.lower().lstrip(".")
        if f in ("csv", "tsv", "xlsx", "parquet"):
            return f
        raise DataError(
            f"'{fmt}' is not an output format kanon writes.",
            hint="Choose csv, tsv, xlsx or parquet.",
            where=fmt,
        )
    found = FORMATS_BY_SUFFIX.get(path.suffix.lower())
    if found is None:
        raise DataError(
            f"The file name {path.name} does not say which format to write.",
            hint="End it in .csv, .tsv, .xlsx or .parquet, or choose the format.",
            where=str(path),
        )
    return found


def write_table(
    frame: Any,
    path: str | Path,
    *,
    delimiter: str = ",",
    encoding: str = "utf-8",
    bom: bool = False,
    fmt: str | None = None,
) -> None:
    """Write a table of strings as CSV/TSV/XLSX/Parquet, atomically, chosen by ``fmt`` or the extension.

    ``frame`` is a DataFrame or a Table (a Table is never written over its own source file). Text output
    quotes only where needed (values holding the delimiter, a quote or a line break), writes missing cells
    as empty fields and ends lines with ``\\n``, so strings read by :func:`read_table` come back unchanged.
    ``bom`` writes a UTF-8 byte-order mark (Excel on Windows needs it to recognise UTF-8).
    """
    path = Path(path)
    source = getattr(frame, "source", None)
    if source is not None:
        refuse_input_overwrite(path, [source])
    df: pd.DataFrame = getattr(frame, "frame", frame)
    kind = _format_for(path, fmt)
    if kind in ("csv", "tsv"):
        _write_text(df, path, "\t" if kind == "tsv" and delimiter == "," else delimiter, encoding, bom)
    elif kind == "xlsx":
        _write_xlsx(df, path)
    else:
        _write_parquet(df, path)


def _write_text(df: pd.DataFrame, path: Path, delimiter: str, encoding: str, bom: bool) -> None:
    if len(delimiter) != 1:
        raise DataError(
            f"The delimiter must be one character; got '{delimiter}'.",
            hint="Use ',', ';', a tab or '|'.",
            where=delimiter,
        )
    try:
        enc = "utf-8-sig" if bom and encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
        "".encode(enc)
    except LookupError:
        raise DataError(
            f"'{encoding}' is not a text encoding this program knows.", hint="Use utf-8.", where=encoding
        ) from None
    buf = io.StringIO()
    # Python 3.11's csv quotes a field holding \n but not one holding a lone \r, which would break the row
    # on reading: in that rare case every field is quoted (same values, read back identically).
    has_cr = any(
        df[c].astype(object).map(lambda v: isinstance(v, str) and "\r" in v).any()
        for c in df.columns
        if pd.api.types.is_object_dtype(df[c]) or pd.api.types.is_string_dtype(df[c])
    )
    df.to_csv(
        buf,
        sep=delimiter,
        index=False,
        na_rep="",
        lineterminator="\n",
        quoting=csv.QUOTE_ALL if has_cr else csv.QUOTE_MINIMAL,
    )
    try:
        data = buf.getvalue().encode(enc)
    except UnicodeEncodeError as err:
        raise _encode_error(path, err, encoding) from None
    atomic_write_bytes(path, data)


def _write_xlsx(df: pd.DataFrame, path: Path) -> None:
    if len(df) + 1 > EXCEL_MAX_ROWS:
        raise DataError(
            f"{path.name} cannot hold {len(df):,} rows: an Excel sheet holds at most "
            f"{EXCEL_MAX_ROWS - 1:,} rows below the header.",
            hint="Write CSV or Parquet instead.",
            where=str(path),
        )
    buf = io.BytesIO()
    df.to_excel(buf, index=False, engine="openpyxl")
    atomic_write_bytes(path, buf.getvalue())


def _write_parquet(df: pd.DataFrame, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    with atomic_writer(path, "wb") as fh:
        pq.write_table(table, fh)
