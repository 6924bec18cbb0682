"""Guess how a delimited text file is written: its encoding, delimiter and quote character.

Why: users drop CSV files exported by Excel, SPSS or hospital systems, written with ``,``, ``;``, tab or
``|`` and in UTF-8 (with or without a BOM) or a Windows code page. The import should read them right
without questions, and say plainly when a chosen delimiter cannot be right.

The delimiter guess follows the idea of Python's ``csv.Sniffer`` (the right delimiter splits every line
into the same number of fields), scored on a sample of the first records only, so it costs the same for
a 10-row and a 10-million-row file.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from kanon_engine.data.table import ReadOptions
from kanon_engine.errors import DataError
from kanon_engine.i18n import N_, _
from kanon_engine.release.fileio import reading

#: Delimiters tried, in order of preference when two split the sample equally well.
CANDIDATE_DELIMITERS: tuple[str, ...] = (",", ";", "\t", "|")
DELIMITER_NAMES: dict[str, str] = {
    ",": N_("comma"),
    ";": N_("semicolon"),
    "\t": N_("tab"),
    "|": N_("pipe"),
    ":": N_("colon"),
    " ": N_("space"),
}
SAMPLE_BYTES = 1 << 16
SAMPLE_RECORDS = 500
_BOM_UTF8 = codecs.BOM_UTF8
_BOMS_UTF16 = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Windows-1252 and Latin-1 agree on every byte except 0x80-0x9F, which are printable characters in
# Windows-1252 (the euro sign, en dash, curly quotes) and control codes nobody types in Latin-1. So a
# text that is not UTF-8 is read as Windows-1252 (what Excel and hospital systems on Windows write),
# even when the sample holds none of those bytes: a euro sign further down the file then still decodes
# right. Only a text holding one of the five bytes cp1252 leaves undefined is Latin-1.
_CP1252_UNDEFINED = bytes((0x81, 0x8D, 0x8F, 0x90, 0x9D))

#: How each encoding is named to people (the import dialog, messages); the codec name is the key.
ENCODING_NAMES: dict[str, str] = {
    "utf-8": N_("Unicode (UTF-8)"),
    "utf-8-sig": N_("Unicode (UTF-8 with byte-order mark)"),
    "utf-16": N_("Unicode (UTF-16)"),
    "cp1252": N_("Windows (cp1252)"),
    "iso8859-1": N_("Latin-1 (ISO-8859-1)"),
    "iso8859-15": N_("Latin-9 (ISO-8859-15)"),
    "cp850": N_("DOS (cp850)"),
    "mac-roman": N_("Mac (Mac Roman)"),
}


def describe_delimiter(delimiter: str) -> str:
    """``';' (semicolon)`` -- how a delimiter is named in messages."""
    name = DELIMITER_NAMES.get(delimiter)
    shown = "\\t" if delimiter == "\t" else delimiter
    return f"'{shown}' ({_(name)})" if name else f"'{shown}'"


def describe_encoding(encoding: str | None) -> str:
    """``cp1252`` -> ``Windows (cp1252)``: the name people recognise, for any spelling of the codec."""
    if not encoding:
        return _("detected automatically")
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return encoding
    return _(ENCODING_NAMES.get(name, name))


def normalize_encoding(encoding: str, where: str = "") -> str:
    """The codec's canonical name (``latin1`` -> ``iso8859-1``); a DataError for an unknown name."""
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise DataError(
            _("'{encoding}' is not a text encoding this program knows.", encoding=encoding),
            hint=_("Use utf-8, utf-8-sig, cp1252 (Windows) or latin-1, or leave it empty to detect it."),
            where=where or encoding,
        ) from None


def detect_encoding(data: bytes | memoryview, *, partial: bool = False) -> str:
    """Guess the encoding of ``data``: ``utf-8-sig`` (BOM), ``utf-16`` (BOM), ``utf-8``, ``cp1252``
    (Windows), or ``iso8859-1`` (Latin-1) when a byte cp1252 leaves undefined occurs.

    UTF-8 is tried first because a non-ASCII Windows-1252 or Latin-1 text is almost never valid UTF-8 by
    accident. ``partial`` says that ``data`` is the start of a file, so a multi-byte character cut at the
    end is not an error.
    """
    head = bytes(memoryview(data)[:4])
    if head.startswith(_BOM_UTF8):
        return "utf-8-sig"
    if head.startswith(_BOMS_UTF16):
        return "utf-16"
    raw = bytes(data) if not isinstance(data, bytes) else data
    if raw.isascii():
        return "utf-8"
    try:
        codecs.decode(raw, "utf-8")
        return "utf-8"
    except UnicodeDecodeError as err:
        if partial and err.start >= len(data) - 3 and "unexpected end" in err.reason:
            return "utf-8"
    if any(b in raw for b in _CP1252_UNDEFINED):
        return "iso8859-1"
    return "cp1252"


def decoded_sample(
    data: bytes | memoryview, encoding: str, *, complete: bool, max_bytes: int = SAMPLE_BYTES
) -> str:
    """The first ``max_bytes`` of ``data`` as text, cut after the last whole line (unless ``complete``
    and the whole data fits), so the sample never ends inside a line."""
    view = memoryview(data)
    chunk = view[:max_bytes]
    text = codecs.decode(chunk, encoding, errors="ignore")
    if text.startswith("\ufeff"):
        text = text[1:]
    if complete and len(chunk) == len(view):
        return text
    cut = text.rfind("\n")
    return text[: cut + 1] if cut >= 0 else text


def field_counts(
    text: str, delimiter: str, quotechar: str = '"', max_records: int = SAMPLE_RECORDS
) -> list[int]:
    """Number of fields of each non-blank record in ``text`` (quotes respected), first ``max_records``."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, quotechar=quotechar, strict=False)
    counts: list[int] = []
    try:
        for rec in reader:
            if rec:
                counts.append(len(rec))
                if len(counts) >= max_records:
                    break
    except csv.Error:
        pass
    return counts


@dataclass(frozen=True)
class DelimiterScore:
    """How well one delimiter splits a sample: the usual field count and the share of records having it."""

    delimiter: str
    fields: int
    share: float

    @property
    def consistent(self) -> bool:
        """Splits the sample into the same number (> 1) of fields on at least 90% of the records."""
        return self.fields > 1 and self.share >= 0.9


def score_delimiters(
    text: str, quotechar: str = '"', candidates: tuple[str, ...] = CANDIDATE_DELIMITERS
) -> list[DelimiterScore]:
    """Score every candidate delimiter on a text sample."""
    out = []
    for d in candidates:
        counts = field_counts(text, d, quotechar)
        if not counts:
            out.append(DelimiterScore(d, 0, 0.0))
            continue
        fields, hits = Counter(counts).most_common(1)[0]
        out.append(DelimiterScore(d, fields, hits / len(counts)))
    return out


def guess_delimiter(text: str, quotechar: str = '"') -> str:
    """The delimiter that splits the sample most consistently into the most fields; ``,`` when none
    splits it (a one-column file)."""
    scores = score_delimiters(text, quotechar)
    good = [s for s in scores if s.consistent]
    if good:
        return max(good, key=lambda s: (s.fields, s.share)).delimiter
    multi = [s for s in scores if s.fields > 1]
    if multi:
        return max(multi, key=lambda s: (s.share, s.fields)).delimiter
    return ","


def better_delimiter(text: str, delimiter: str, quotechar: str = '"') -> DelimiterScore | None:
    """Another candidate that splits the sample consistently into several fields, or None.

    Used to tell the user "this file seems to be separated by ';'" when the chosen delimiter gives one
    column or ragged rows.
    """
    others = [s for s in score_delimiters(text, quotechar) if s.delimiter != delimiter and s.consistent]
    return max(others, key=lambda s: (s.share, s.fields)) if others else None


def guess_quotechar(text: str, delimiter: str) -> str:
    """``'`` when the sample quotes fields with single quotes and never uses double quotes, else ``"``."""
    if '"' in text or "'" not in text:
        return '"'
    lines = [ln.rstrip("\r") for ln in text.split("\n") if ln]
    starts = sum(f.startswith("'") for ln in lines for f in ln.split(delimiter))
    ends = sum(f.endswith("'") for ln in lines for f in ln.split(delimiter))
    total = text.count("'")
    return "'" if starts and starts == ends and starts + ends >= 0.8 * total else '"'


_DELIMITER_ALIASES = {"\\t": "\t", "tab": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " "}


def check_delimiter(delimiter: str | None, quotechar: str | None, where: str = "") -> None:
    """A DataError unless the delimiter and quote are single, different characters (not a line break)."""
    for what, ch in (
        (N_("The delimiter must be one character (not a line break); got '{value}'."), delimiter),
        (N_("The quote character must be one character (not a line break); got '{value}'."), quotechar),
    ):
        if ch is not None and (len(ch) != 1 or ch in "\r\n"):
            raise DataError(
                _(what, value=ch),
                hint=_("Use ',', ';', a tab or '|' as delimiter and '\"' or \"'\" as quote."),
                where=where,
            )
    if delimiter is not None and delimiter == quotechar:
        raise DataError(
            _("The delimiter and the quote character are both '{value}'.", value=delimiter),
            hint=_("Choose two different characters."),
            where=where,
        )


def sniff_text(text: str, *, delimiter: str | None = None, quotechar: str | None = None) -> tuple[str, str]:
    """Delimiter and quote character for a decoded sample (given values are kept; ``"\\t"`` or ``"tab"``
    mean a tab)."""
    if delimiter is not None:
        delimiter = _DELIMITER_ALIASES.get(delimiter.lower(), delimiter)
    check_delimiter(delimiter, quotechar)
    d = delimiter or guess_delimiter(text, quotechar or '"')
    q = quotechar or guess_quotechar(text, d)
    if delimiter is None and q != '"':
        d = guess_delimiter(text, q)
    return d, q


def sniff_csv(path_or_bytes: str | Path | bytes, *, encoding: str | None = None) -> ReadOptions:
    """Guess encoding, delimiter and quote character of a delimited text file from its first 64 KiB.

    Accepts a path or the raw bytes of (the start of) a file. Header detection is not attempted: the
    first row is taken as the header (``header=True``), as almost every export writes one.
    """
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        data = bytes(path_or_bytes)
        complete = True
    else:
        path = Path(path_or_bytes)
        with reading(path) as fh:
            data = fh.read(SAMPLE_BYTES + 1)
        complete = len(data) <= SAMPLE_BYTES
        data = data[:SAMPLE_BYTES]
    enc = normalize_encoding(encoding) if encoding else detect_encoding(data, partial=not complete)
    text = decoded_sample(data, enc, complete=complete)
    d, q = sniff_text(text)
    return ReadOptions(delimiter=d, encoding=enc, quotechar=q, header=True)
