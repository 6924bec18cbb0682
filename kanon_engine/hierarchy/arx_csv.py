"""Hierarchies as ARX writes them: a header-less CSV, one row per original value, ``value;level1;...;root``.

This is the format of ARX (Prasser & Kohlmayer 2015) and of the adult hierarchies that come with it, so
hierarchies made in ARX load here and ours load in ARX. Reading tries the usual encodings (UTF-8 with or
without BOM, then Windows-1252) and delimiters (``;``, tab, ``,``); writing is UTF-8 with ``;`` and is
atomic (temporary file in the same folder, then ``os.replace``), so a crash never leaves half a file.
"""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from pathlib import Path

from kanon_engine.errors import DataError, HierarchyError
from kanon_engine.hierarchy.model import Hierarchy
from kanon_engine.i18n import _
from kanon_engine.release.fileio import atomic_write_bytes, reading

#: Delimiters tried when none is given, in order of preference (ARX's own is ``;``).
DELIMITERS = (";", "\t", ",")

#: Encodings tried when none is given.
ENCODINGS = ("utf-8-sig", "cp1252")

_SAMPLE_LINES = 200


def _decode(path: Path, raw: bytes, encoding: str | None) -> str:
    """The file's text: the given encoding, or UTF-8 (a BOM is dropped), else Windows-1252."""
    for enc in (encoding,) if encoding else ENCODINGS:
        try:
            return raw.decode(enc)
        except (UnicodeDecodeError, LookupError):
            continue
    tried = encoding or ", ".join(ENCODINGS)
    raise HierarchyError(
        _("The hierarchy file '{name}' cannot be read as text ({tried}).", name=path.name, tried=tried),
        hint=_("Save it as UTF-8 CSV and load it again."),
        where=str(path),
    )


def _sniff_delimiter(text: str) -> str:
    """The delimiter that splits the first lines into the same number (> 1) of cells, ``;`` first.

    When no candidate is consistent (a file with rows of uneven depth), the one giving the most cells
    wins, so that the uneven-depth error can still name the offending line.
    """
    lines = [ln for ln in text.splitlines()[:_SAMPLE_LINES] if ln.strip()]
    best, best_cells = DELIMITERS[0], 1
    for d in DELIMITERS:
        counts = [len(r) for r in csv.reader(lines, delimiter=d)]
        if counts and min(counts) > 1 and len(set(counts)) == 1:
            return d
        typical = sorted(counts)[len(counts) // 2] if counts else 1
        if typical > best_cells:
            best, best_cells = d, typical
    return best


def read_arx_csv(
    path: str | os.PathLike[str],
    attribute: str | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
) -> Hierarchy:
    """Read an ARX hierarchy file (no header; ``value;level1;...;root`` per row).

    ``attribute`` defaults to the file name after ``hierarchy_`` (``adult_hierarchy_age.csv`` -> ``age``).
    ``delimiter`` and ``encoding`` are detected when ``None`` (see :data:`DELIMITERS`, :data:`ENCODINGS`).
    The file's own root is kept (``human`` stays ``human``). Blank lines are skipped; a trailing empty
    column present on every row (a delimiter at the end of each line) is dropped. A line ``""``
    is the missing-value leaf of a hierarchy without levels.

    Raises HierarchyError naming the file and line for rows of different depths, a value listed twice,
    an empty or unreadable file.
    """
    path = Path(path)
    if attribute is None:
        stem = path.stem
        attribute = stem.split("hierarchy_", 1)[1] if "hierarchy_" in stem else stem
    with reading(path, _("hierarchy file"), HierarchyError) as fh:
        raw = fh.read()
    text = _decode(path, raw, encoding)
    delim = delimiter or _sniff_delimiter(text)
    rows: list[list[str]] = []
    lines: list[int] = []
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim)
    try:
        for row in reader:
            if row and not (len(row) == 1 and row[0] != "" and row[0].strip() == ""):  # blank line
                rows.append(row)
                lines.append(reader.line_num)
    except csv.Error as exc:
        raise HierarchyError(
            _(
                "The hierarchy file '{name}' is not valid CSV near line {line_num}: {reason}.",
                name=path.name,
                line_num=str(reader.line_num),
                reason=exc,
            ),
            hint=_("Check the quotes on that line."),
            where=f"{path}:{reader.line_num}",
        ) from None
    if not rows:
        raise HierarchyError(
            _("The hierarchy file '{name}' is empty.", name=path.name),
            hint=_("Each line must hold a value and its generalizations, separated by ';'."),
            where=str(path),
        )
    if len(rows[0]) > 1 and all(len(r) == len(rows[0]) and r[-1] == "" for r in rows):
        rows = [r[:-1] for r in rows]
    _check_depths(path, attribute, rows, lines)
    _check_duplicates(path, attribute, rows, lines)
    return Hierarchy.from_rows(attribute, rows)


def _check_depths(path: Path, attribute: str, rows: list[list[str]], lines: list[int]) -> None:
    widths = [len(r) for r in rows]
    usual, _count = Counter(widths).most_common(1)[0]
    bad = next((i for i, w in enumerate(widths) if w != usual), None)
    if bad is None:
        return
    first_usual = next(i for i, w in enumerate(widths) if w == usual)
    n_bad = sum(w != usual for w in widths)
    others = _(" ({n} rows in all differ)", n=n_bad) if n_bad > 1 else ""
    raise HierarchyError(
        _(
            "The hierarchy file '{name}' has rows of different depths: line {line} (value '{value}') has "
            "{n} levels above the value, but line {line2} and most others have {n2}{others}.",
            name=path.name,
            line=str(lines[bad]),
            value=rows[bad][0],
            n=widths[bad] - 1,
            line2=str(lines[first_usual]),
            n2=usual - 1,
            others=others,
        ),
        hint=_("Every value needs a generalization at every level up to the root."),
        where=f"{path}:{lines[bad]}",
    )


def _check_duplicates(path: Path, attribute: str, rows: list[list[str]], lines: list[int]) -> None:
    seen: dict[str, int] = {}
    for r, line in zip(rows, lines):
        if r[0] in seen:
            raise HierarchyError(
                _(
                    "The hierarchy file '{name}' lists the value '{value}' of '{column}' twice, on lines "
                    "{line} and {line2}.",
                    name=path.name,
                    value=r[0],
                    column=attribute,
                    line=str(seen[r[0]]),
                    line2=str(line),
                ),
                hint=_("Each original value must appear in exactly one row; delete one of them."),
                where=f"{path}:{line}",
            )
        seen[r[0]] = line


def write_arx_csv(h: Hierarchy, path: str | os.PathLike[str], delimiter: str = ";") -> Path:
    """Write ``h`` as an ARX hierarchy file (UTF-8, ``\\n`` line ends, cells quoted only when needed).

    Atomic: written to a temporary file in the same folder, then moved over ``path``. Returns the path.
    """
    path = Path(path)
    if len(delimiter) != 1 or delimiter in '"\r\n':
        raise HierarchyError(
            _(
                "The delimiter must be one character other than a quote or a line break; got {delimiter}.",
                delimiter=repr(delimiter),
            ),
            where="delimiter",
        )
    buf = io.StringIO(newline="")
    csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerows(h.rows())
    try:
        atomic_write_bytes(path, buf.getvalue().encode("utf-8"))
    except DataError as exc:
        raise HierarchyError(
            _(
                "The hierarchy of '{column}' cannot be written: {message}",
                column=h.attribute,
                message=exc.message,
            ),
            hint=_("Check that the folder exists and that you may write to it."),
            where=str(path),
        ) from None
    return path
