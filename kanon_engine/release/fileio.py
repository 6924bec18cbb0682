"""Atomic output that never replaces an input: every file kanon writes appears whole or not at all.

Why: a release, report or project file half-written when the disk fills up, or a crash mid-export, must
not leave a truncated file that looks valid, nor destroy the previous version; and no output may ever land
on a file the user's run reads (the patient data, a hierarchy, the project, a population table). Each
writer writes a temporary file ``.<name>.XXXXXXXX.tmp`` in the target's folder (same file system, so the
rename is atomic), flushes and fsyncs it, then moves it over the target with ``os.replace``. On any
failure the temporary file is removed and the target is untouched.

The guard sits here, in the one place every writer goes through (:func:`atomic_path`): the target is
compared with every *protected input* -- the files named by an :class:`InputGuard` registered for the run
(the CLI registers the files a command reads; the workbench registers its project's data, hierarchy and
project files) plus any the caller passes -- by resolved path (symbolic links followed) and by file
identity (hard links). Temporary files of kanon's own naming left in a folder by a crash (they hold
patient data) are removed on the next write there, and logged by file name.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import logging
import os
import re
import stat
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import pandas as pd
import pyarrow as pa

from kanon_engine.errors import DataError, KanonError
from kanon_engine.i18n import N_, _, pgettext

LOG = logging.getLogger("kanon_engine.release.fileio")

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
#: A temporary file of kanon's own naming: ``.<target name>.<8 random characters of mkstemp>.tmp``.
TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
#: A temporary file counts as stale only when no writer holds its lock and it has not changed for
#: ``MIN_AGE`` seconds (a renamed-over file loses its lock; a new one is locked a moment after creation);
#: where file locks are unavailable (Windows, some network shares), only after ``STALE_AFTER`` seconds.
MIN_AGE = 60.0
STALE_AFTER = 3600.0


# --- protected inputs -------------------------------------------------------------------------------------
def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name the same file: equal once symbolic links and ``..`` are resolved (and, on
    Windows, letter case folded), or the same file on disk (a hard link)."""
    a, b = Path(a), Path(b)
    try:
        if os.path.normcase(str(a.resolve())) == os.path.normcase(str(b.resolve())):
            return True
    except (OSError, RuntimeError):  # a symlink loop: compare as written
        if os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b)):
            return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


class InputGuard:
    """The files a run reads, which no writer may replace; each with what it is ("the data file").

    Register it for the duration of a run (``with guard:``, the CLI) or for the lifetime of its owner
    (:meth:`register`; held weakly, the workbench's AppState keeps it and :meth:`set` updates it): every
    :func:`atomic_path` then refuses a target that is one of its files.
    """

    def __init__(self, inputs: Iterable[tuple[str | Path | None, str]] = ()) -> None:
        self._lock = threading.Lock()
        self._inputs: list[tuple[Path, str]] = []
        self.set(inputs)

    def add(self, path: str | Path | None, what: str | None = None) -> None:
        """Protect ``path`` (None is ignored); ``what`` names it in the refusal ("the data file")."""
        what = _("an input file") if what is None else what
        if path is None or str(path) == "":
            return
        with self._lock:
            self._inputs.append((Path(os.path.abspath(path)), what))

    def set(self, inputs: Iterable[tuple[str | Path | None, str]]) -> None:
        """Replace every protected file by ``inputs`` (pairs of path and what it is)."""
        with self._lock:
            self._inputs = []
        for path, what in inputs:
            self.add(path, what)

    @property
    def inputs(self) -> list[tuple[Path, str]]:
        with self._lock:
            return list(self._inputs)

    def find(self, target: str | Path) -> tuple[Path, str] | None:
        """The protected file ``target`` would replace (and what it is), or None."""
        for path, what in self.inputs:
            if same_file(target, path):
                return path, what
        return None

    def register(self) -> InputGuard:
        """Make every atomic write of the process check this guard while it exists."""
        with _REGISTRY_LOCK:
            _REGISTRY.add(self)
        return self

    def unregister(self) -> None:
        with _REGISTRY_LOCK:
            _REGISTRY.discard(self)

    def __enter__(self) -> InputGuard:
        return self.register()

    def __exit__(self, *exc: object) -> None:
        self.unregister()


_REGISTRY: weakref.WeakSet[InputGuard] = weakref.WeakSet()
_REGISTRY_LOCK = threading.Lock()


def registered_guards() -> list[InputGuard]:
    with _REGISTRY_LOCK:
        return list(_REGISTRY)


def input_refusal(target: Path, input_path: Path, what: str) -> DataError:
    """The one sentence for "this output would replace an input"."""
    name = target.name
    same = "" if input_path.name == name else _(" (the same file as {file})", file=input_path.name)
    return DataError(
        _(
            "{name}{same} is {what}; kanon never writes over its input data.",
            name=name,
            same=same,
            what=_(what),
        ),
        hint=_("Choose another file name for the output."),
        where=str(target),
    )


#: What a protected file is: a path, or a pair (path, what it is, e.g. "the data file").
Protected = str | Path | None | tuple[str | Path | None, str]


def check_not_input(
    target: str | Path,
    protect: Iterable[Protected] = (),
    may_replace: Iterable[str] = (),
) -> None:
    """Raise a DataError if ``target`` is a protected input: one of ``protect`` or of a registered
    :class:`InputGuard` (except inputs whose kind is listed in ``may_replace``, e.g. a project saved
    over its own file), or an existing file its owner made read-only (replacing it would undo that
    protection without a word: a rename needs only the folder's permission)."""
    target = Path(target)
    allowed = set(may_replace)
    extra = InputGuard(p if isinstance(p, tuple) else (p, _("an input file")) for p in protect)
    for guard in (extra, *registered_guards()):
        for path, what in guard.inputs:
            if what not in allowed and same_file(target, path):
                raise input_refusal(target, path, what)
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return
    if stat.S_ISREG(mode) and not mode & 0o222:
        raise DataError(
            _("{name} is read-only, so it is not replaced.", name=target.name),
            hint=_("Choose another file name, or make the file writable first."),
            where=str(target),
        )


def refuse_input_overwrite(out: str | Path, inputs: Iterable[Protected]) -> None:
    """Raise a DataError if ``out`` is one of ``inputs`` or a registered input (same file, however
    it is spelled: resolved path, symbolic or hard link)."""
    check_not_input(out, inputs)


# --- errors -----------------------------------------------------------------------------------------------
def read_error(path: Path, err: OSError, what: str = "", error: type[KanonError] = DataError) -> KanonError:
    """One plain sentence for why a file the user named cannot be read (not there, a folder, no
    permission), naming it and, when given, ``what`` it is ("hierarchy file"): the one place this is
    worded, for every reader."""
    # "The hierarchy file h.csv" (``what`` comes translated): one msgid, so every language words it
    name = path.name
    if what:
        name = pgettext("a file named in a sentence", "The {what} {name}", what=what, name=path.name)
    where = str(path)
    if isinstance(err, FileNotFoundError):
        folder = path.absolute().parent
        hint = _("Check the file name and folder.")
        return error(_("{name} was not found in {folder}.", name=name, folder=folder), hint=hint, where=where)
    if isinstance(err, IsADirectoryError):
        return error(_("{path} is a folder, not a file.", path=path), hint=_("Choose a file."), where=where)
    return error(
        _("{name} cannot be read: {value}.", name=name, value=err.strerror or err),
        hint=_("Check that you may read the file."),
        where=where,
    )


@contextlib.contextmanager
def reading(path: str | Path, what: str = "", error: type[KanonError] = DataError) -> Iterator[IO[bytes]]:
    """Open a file the user named for reading (binary); any OSError while it is open or read becomes
    :func:`read_error`'s sentence."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            yield fh
    except OSError as err:
        raise read_error(path, err, what, error) from None


#: Why a file could not be written, by the system's error code: the sentence and what to do.
_WRITE_ERRORS: tuple[tuple[tuple[int, ...], tuple[str, str]], ...] = (
    (
        (errno.EACCES, errno.EPERM),
        (
            N_(
                "{name} cannot be written in {parent}: the folder or file is read-only or you lack "
                "permission."
            ),
            N_("Choose another folder, or ask for write access."),
        ),
    ),
    (
        (errno.EROFS,),
        (
            N_("{name} cannot be written: {parent} is on a read-only disk."),
            N_("Choose a folder on another disk."),
        ),
    ),
    (
        (errno.ENOSPC, errno.EDQUOT, errno.EFBIG),
        (
            N_("{name} cannot be written: the disk holding {parent} is full."),
            N_("Free some space or choose another disk; nothing was changed."),
        ),
    ),
    (
        (errno.ENOENT,),
        (
            N_("{name} cannot be written: the folder {parent} does not exist."),
            N_("Create the folder or choose another one."),
        ),
    ),
)


def os_error(path: Path, err: OSError) -> DataError:
    """A plain sentence for why ``path`` could not be written, and what to do."""
    code = err.errno
    if isinstance(err, PermissionError):
        code = errno.EACCES
    found = next((words for codes, words in _WRITE_ERRORS if code in codes), None)
    if found is not None:
        msg, hint = _(found[0], name=path.name, parent=path.parent), _(found[1])
    elif code == errno.EISDIR or path.is_dir():
        msg, hint = folder_message(path)
    else:
        msg, hint = (
            _(
                "{name} cannot be written in {parent}: {value}.",
                name=path.name,
                parent=path.parent,
                value=err.strerror or err,
            ),
            _("Choose another folder or file name."),
        )
    return DataError(msg, hint=hint, where=str(path))


def folder_message(path: Path) -> tuple[str, str]:
    """Message and hint for an output path that is an existing folder."""
    return (
        _("{path} is a folder, so no file can be written under that name.", path=path),
        _("Give a file name inside it, for example {n}.", n=path / ("release" + (path.suffix or ".csv"))),
    )


def _final_mode(path: Path) -> int:
    """Keep an existing file's permissions; a new file gets the usual 0666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


# --- temporary files --------------------------------------------------------------------------------------
def try_lock(fd: int) -> bool | None:
    """Take an exclusive, non-blocking lock on ``fd``: True if taken, False if another holds it, None
    where this system or file system has no such locks."""
    try:
        import fcntl
    except ImportError:  # Windows: an open file cannot be deleted, which protects a running write
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return None
    return True


def clean_stale_temp_files(folder: str | Path) -> list[str]:
    """Remove temporary files of kanon's naming (``.<name>.XXXXXXXX.tmp``) that no writer holds any more
    from ``folder``: a crash or a killed process leaves them, and they hold patient data. Returns the
    names removed (logged, names only). A file a running write holds (locked) is left alone."""
    folder = Path(folder)
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not TEMP_NAME.match(entry.name):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            if _remove_if_stale(Path(entry.path)):
                removed.append(entry.name)
        except OSError:
            continue
    if removed:
        LOG.info(
            "Removed %d temporary file%s left in %s by an interrupted write: %s",
            len(removed),
            "" if len(removed) == 1 else "s",
            folder,
            ", ".join(sorted(removed)),
        )
    return removed


def _remove_if_stale(path: Path) -> bool:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        locked = try_lock(fd)
        if locked is False:
            return False  # a write in progress holds it
        age = time.time() - os.fstat(fd).st_mtime
        if age < (MIN_AGE if locked else STALE_AFTER):
            return False  # too recent to be sure no write is using it
        os.unlink(path)
        return True
    finally:
        os.close(fd)


class _TempFile:
    """A new temporary file of kanon's naming in ``folder``, locked against the stale-file cleaner while
    it is open (:func:`clean_stale_temp_files`)."""

    def __init__(self, folder: Path, name: str) -> None:
        while True:
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            try_lock(fd)
            if os.fstat(fd).st_nlink > 0:  # not removed by a cleaner between creating and locking
                break
            os.close(fd)
        self.fd: int | None = fd
        self.path = Path(tmp)

    def close(self) -> None:
        """Close (and so unlock) the file; idempotent."""
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def discard(self) -> None:
        """Close and remove the file if it is still there (after a failure, or once renamed away)."""
        with contextlib.suppress(OSError):
            self.close()
        with contextlib.suppress(OSError):
            os.unlink(self.path)


@contextlib.contextmanager
def temp_file_beside(path: str | Path, data: bytes = b"") -> Iterator[Path]:
    """A scratch file of kanon's naming beside ``path`` holding ``data`` (e.g. the HTML a PDF is rendered
    from), removed on exit; a crash leaves it to the next write's cleaning. OS errors become a DataError."""
    path = Path(path)
    tmp: _TempFile | None = None
    try:
        tmp = _TempFile(path.parent, path.name)
        view = memoryview(data)
        while view:  # written through the locked descriptor, so the file stays protected from cleaning
            view = view[os.write(tmp.fd, view) :]  # type: ignore[arg-type]
        yield tmp.path
    except OSError as err:
        raise os_error(path, err) from None
    finally:
        if tmp is not None:
            tmp.discard()


#: Permissions of files that hold patient values and are meant for their owner only (project files,
#: autosave copies): read and write for the user, nothing for anyone else.
PRIVATE_MODE = 0o600


@contextlib.contextmanager
def atomic_path(
    path: str | Path,
    *,
    protect: Iterable[Protected] = (),
    may_replace: Iterable[str] = (),
    private: bool = False,
) -> Iterator[Path]:
    """A temporary path beside ``path`` for a writer that needs a file name (Qt's PDF writer, say).

    Refuses a ``path`` that is a protected input (see :func:`check_not_input`) or a folder, and first
    removes stale temporary files of kanon's naming from the folder. On a clean exit the temporary file
    gets the target's permissions (an existing file's, else 0666 less the umask: mkstemp makes 0600,
    which would hide a release from colleagues) and replaces ``path``; if the block raises, it is
    removed and ``path`` is left as it was. OS errors become a DataError. ``private``: the file is the
    user's alone (:data:`PRIVATE_MODE`), whatever it had before.
    """
    path = Path(path)
    check_not_input(path, protect, may_replace)
    if path.is_dir():
        raise os_error(path, IsADirectoryError(errno.EISDIR, _("Is a directory")))
    tmp: _TempFile | None = None
    try:
        clean_stale_temp_files(path.parent)
        tmp = _TempFile(path.parent, path.name)
        if os.name == "nt":
            # Windows cannot rename or replace a file while any process holds it open, and the writer
            # may replace it itself (the PDF renderer, a child process, writes it atomically)
            tmp.close()
        yield tmp.path
        os.chmod(tmp.path, PRIVATE_MODE if private else _final_mode(path))
        os.replace(tmp.path, path)
    except OSError as err:
        raise os_error(path, err) from None
    finally:
        if tmp is not None:
            tmp.discard()


@contextlib.contextmanager
def atomic_writer(
    path: str | Path,
    mode: str = "w",
    *,
    encoding: str | None = "utf-8",
    newline: str | None = None,
    protect: Iterable[Protected] = (),
    may_replace: Iterable[str] = (),
    private: bool = False,
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on a clean exit it replaces ``path``.

    ``mode`` is ``"w"`` (text, with ``encoding`` and ``newline``) or ``"wb"``. If the block raises, the
    temporary file is removed, ``path`` is left as it was, and OS errors become a DataError.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb'; got {mode!r}")
    with atomic_path(path, protect=protect, may_replace=may_replace, private=private) as tmp:
        try:
            if mode == "wb":
                fh: IO[Any] = open(tmp, "wb")  # noqa: SIM115  (closed below, before the rename)
            else:
                fh = open(tmp, "w", encoding=encoding, newline=newline)  # noqa: SIM115
        except OSError as err:
            raise os_error(Path(path), err) from None
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())


def atomic_write_bytes(
    path: str | Path,
    data: bytes,
    *,
    protect: Iterable[Protected] = (),
    may_replace: Iterable[str] = (),
    private: bool = False,
) -> None:
    """Write ``data`` to ``path`` atomically (never over a protected input; ``private``: user only)."""
    with atomic_writer(path, "wb", protect=protect, may_replace=may_replace, private=private) as fh:
        fh.write(data)


def atomic_write_text(
    path: str | Path,
    text: str,
    encoding: str = "utf-8",
    *,
    protect: Iterable[Protected] = (),
    may_replace: Iterable[str] = (),
    private: bool = False,
) -> None:
    """Write ``text`` to ``path`` atomically (newlines written as given; ``private``: user only)."""
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as err:
        raise _encode_error(Path(path), err, encoding) from None
    except LookupError:
        raise DataError(
            _("'{encoding}' is not a text encoding this program knows.", encoding=encoding),
            hint=_("Use utf-8."),
            where=encoding,
        ) from None
    atomic_write_bytes(path, data, protect=protect, may_replace=may_replace, private=private)


def _encode_error(path: Path, err: UnicodeEncodeError, encoding: str) -> DataError:
    char = err.object[err.start : err.end] if isinstance(err.object, str) else "?"
    return DataError(
        _(
            "{file} cannot be written in {encoding}: it cannot hold the character '{char}' ({code}) "
            "found in the data.",
            file=path.name,
            encoding=encoding,
            char=char,
            code=f"U+{ord(char[0]):04X}",
        ),
        hint=_("Write the file as utf-8, which holds every character."),
        where=str(path),
    )


def format_for(path: Path, fmt: str | None) -> str:
    """The format a file is written in: ``fmt`` when given, else the one its ending names."""
    if fmt is not None:
        f = fmt.lower().lstrip(".")
        if f in ("csv", "tsv", "xlsx", "parquet"):
            return f
        raise DataError(
            _("'{fmt}' is not an output format kanon writes.", fmt=fmt),
            hint=_("Choose csv, tsv, xlsx or parquet."),
            where=fmt,
        )
    if path.is_dir():
        msg, hint = folder_message(path)
        raise DataError(msg, hint=hint, where=str(path))
    found = FORMATS_BY_SUFFIX.get(path.suffix.lower())
    if found is None:
        raise DataError(
            _("The file name {name} does not say which format to write.", name=path.name),
            hint=_("End it in .csv, .tsv, .xlsx or .parquet, or choose the format."),
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
    as empty fields and ends lines with CR LF (RFC 4180, as Excel expects), so strings read by
    :func:`read_table` come back unchanged.
    ``bom`` writes a UTF-8 byte-order mark (Excel on Windows needs it to recognise UTF-8).
    """
    path = Path(path)
    source = getattr(frame, "source", None)
    if source is not None:
        refuse_input_overwrite(path, [source])
    df: pd.DataFrame = getattr(frame, "frame", frame)
    kind = format_for(path, fmt)
    if kind in ("csv", "tsv"):
        _write_text(df, path, "\t" if kind == "tsv" and delimiter == "," else delimiter, encoding, bom)
    elif kind == "xlsx":
        _write_xlsx(df, path)
    else:
        _write_parquet(df, path)


def _write_text(df: pd.DataFrame, path: Path, delimiter: str, encoding: str, bom: bool) -> None:
    if len(delimiter) != 1:
        raise DataError(
            _("The delimiter must be one character; got '{delimiter}'.", delimiter=delimiter),
            hint=_("Use ',', ';', a tab or '|'."),
            where=delimiter,
        )
    try:
        enc = "utf-8-sig" if bom and encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
        "".encode(enc)
    except LookupError:
        raise DataError(
            _("'{encoding}' is not a text encoding this program knows.", encoding=encoding),
            hint=_("Use utf-8."),
            where=encoding,
        ) from None
    buf = io.StringIO()
    # with CR LF as the line end, Python's csv quotes a field holding a line feed or a lone carriage return
    df.to_csv(
        buf,
        sep=delimiter,
        index=False,
        na_rep="",
        lineterminator="\r\n",  # the release writer's LINE_END (RFC 4180, Excel)
        quoting=csv.QUOTE_MINIMAL,
    )
    try:
        data = buf.getvalue().encode(enc)
    except UnicodeEncodeError as err:
        raise _encode_error(path, err, encoding) from None
    atomic_write_bytes(path, data)


def _write_xlsx(df: pd.DataFrame, path: Path) -> None:
    if len(df) + 1 > EXCEL_MAX_ROWS:
        raise DataError(
            _(
                "{name} cannot hold {n} rows: an Excel sheet holds at most {n2} rows below the header.",
                name=path.name,
                n=len(df),
                n2=EXCEL_MAX_ROWS - 1,
            ),
            hint=_("Write CSV or Parquet instead."),
            where=str(path),
        )
    buf = io.BytesIO()
    _xlsx_workbook(df).save(buf)
    atomic_write_bytes(path, buf.getvalue())


#: Excel's number format "Text": a cell shown and edited as typed, never read as a number or a date.
TEXT_FORMAT = "@"


def _xlsx_workbook(df: pd.DataFrame) -> Any:
    """One sheet: the header in bold, then every value as a text cell (an inline string), so Excel keeps
    postcodes' leading zeros (06400), month codes ("2023-03") and decimal commas ("12,5") as they are;
    every column's format is Text, so what is typed into it later stays text too; a missing value is
    an empty cell. openpyxl's write-only mode streams the rows: faster than pandas' writer
    (``bench/bench_xlsx_writer.py``); a Text format on every single cell would double the time."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    book = Workbook(write_only=True)
    sheet = book.create_sheet()
    for i in range(1, len(df.columns) + 1):
        sheet.column_dimensions[get_column_letter(i)].number_format = TEXT_FORMAT
    header = []
    for name in df.columns:
        cell = WriteOnlyCell(sheet, str(name))
        cell.font = Font(bold=True)
        cell.number_format = TEXT_FORMAT
        header.append(cell)
    sheet.append(header)
    for row in df.itertuples(index=False, name=None):
        sheet.append([None if _missing(v) else str(v) for v in row])
    return book


def _missing(value: Any) -> bool:
    """None, NaN or pd.NA: an empty cell."""
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _write_parquet(df: pd.DataFrame, path: Path) -> None:
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    with atomic_writer(path, "wb") as fh:
        pq.write_table(table, fh)
