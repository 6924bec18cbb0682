"""Nothing changes under a streamed release's feet: the checks between counting and writing.

An engine that does not hold the table (DuckDB, Dask) reads the file twice: once to count the records
into points, once to write the release through the run's plan. If the file is edited in between (a row
moved to another group, a row added or removed), the plan still finds a class for every row, and the
release can hold a class smaller than k while every figure of the run was computed from the first read.
Two checks close that gap, both ending the write before the release replaces anything (the partial
file is removed by the guarded atomic writer, :mod:`kanon_engine.release.fileio`):

- :class:`InputFingerprint`: the file's size, modification time and SHA-256 when it was opened (before
  counting), compared with the file just before it is read again (the hash in full) and once more when
  every row was written (size and time: a change during the write);
- :class:`ReleaseTally`: the released class of every row as it is written, tallied and compared with
  the class sizes, suppressed records and records the run counted. A moved, added or removed row
  changes at least one of them; a row with a value the run never saw is refused when it is encoded
  (:func:`kanon_engine.sources.backends.base.encode_column`).

The tally is a small object fed one batch at a time, so other tallies of the written release (its
facts) sit beside it in the same loop (:func:`kanon_engine.sources.plan.sink.stream_release`).
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kanon_engine.errors import DataError
from kanon_engine.i18n import _
from kanon_engine.release.fileio import read_error

#: Bytes read at a time when hashing a file.
HASH_CHUNK = 4 << 20


class TableChanged(DataError):
    """A row read again matches nothing the run counted (a value or a combination it never saw): the
    file changed after counting. The release writer says so naming the file (:func:`file_changed`)."""


def file_changed(path: Path | str | None) -> TableChanged:
    """The one sentence for an input edited during a run (nothing is written)."""
    name = Path(path).name if path is not None else _("The table")
    return TableChanged(
        _(
            "{name} changed during the run (rows were moved, added or removed after they were "
            "counted), so no release was written.",
            name=name,
        ),
        hint=_("Run the anonymization again once nothing is editing the file."),
        where=str(path) if path is not None else "",
    )


def sha256_of(path: Path) -> str:
    """SHA-256 of a file, read in chunks (an unreadable file raises its OSError)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(HASH_CHUNK):
            h.update(chunk)
    return h.hexdigest()


class BackgroundHash:
    """The SHA-256 of a file computed by a thread while the caller goes on (reading the file and
    hashing release the GIL, so a run's counting is not held up); :meth:`result` waits for it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._value: str | None = None
        self._error: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="kanon-input-hash", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = sha256_of(self.path)
        except OSError as err:
            self._error = err

    def result(self) -> str:
        self._thread.join()
        if self._error is not None:
            raise read_error(self.path, self._error) from None
        assert self._value is not None
        return self._value


@dataclass(frozen=True)
class FileStat:
    """A file's size and modification time (nanoseconds)."""

    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> FileStat | None:
        try:
            st = os.stat(path)
        except OSError:
            return None  # gone: differs from any stat taken before
        return cls(int(st.st_size), int(st.st_mtime_ns))


class InputFingerprint:
    """Size, modification time and SHA-256 of an input when it was opened (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.stat = FileStat.of(self.path)
        self._hash = BackgroundHash(self.path)

    @property
    def sha256(self) -> str:
        """The file's SHA-256 as opened (waits for the background hash)."""
        return self._hash.result()

    def check_stat(self) -> None:
        """Raise :func:`file_changed` when the file's size or modification time differ from the opening."""
        if FileStat.of(self.path) != self.stat:
            raise file_changed(self.path)

    def check(self) -> None:
        """Size and time first (instant), then the whole content hashed again and compared."""
        self.check_stat()
        try:
            same = sha256_of(self.path) == self.sha256
        except OSError:
            same = False
        if not same:
            raise file_changed(self.path)


class ReleaseTally:
    """The written release's classes, tallied batch by batch and compared with what the run counted:
    the records of every class (``class_sizes``), the suppressed records and all records."""

    def __init__(self, class_sizes: np.ndarray, suppressed: int, records: int) -> None:
        self.expected = np.asarray(class_sizes, dtype=np.int64)
        self.expected_suppressed = int(suppressed)
        self.expected_records = int(records)
        self.sizes = np.zeros(len(self.expected), dtype=np.int64)
        self.suppressed = self.records = 0
        self.unknown = 0  # rows of a class the run does not have

    def add(self, row_class: np.ndarray) -> None:
        """Count a batch's rows by their released class (-1: suppressed)."""
        row_class = np.asarray(row_class)
        released = row_class[row_class >= 0]
        self.records += len(row_class)
        self.suppressed += len(row_class) - len(released)
        inside = released < len(self.sizes)
        self.unknown += int((~inside).sum())
        self.sizes += np.bincount(released[inside], minlength=len(self.sizes))[: len(self.sizes)]

    @property
    def matches(self) -> bool:
        return (
            self.unknown == 0
            and self.records == self.expected_records
            and self.suppressed == self.expected_suppressed
            and bool(np.array_equal(self.sizes, self.expected))
        )

    def check(self, path: Path | str | None) -> None:
        """Raise :func:`file_changed` (naming ``path``, the input) unless the tally is what was counted."""
        if not self.matches:
            raise file_changed(path)
