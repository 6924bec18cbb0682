"""Safe exports of a release: CSV / XLSX / Parquet, value mapping, hierarchies, keyed pseudonyms.

What "safe" means here, and why:

- **identifiers never leave**: identifier columns are not in a release; with a pseudonymization key they
  are replaced by keyed hashes (HMAC-SHA256, RFC 2104) that only the key holder can recompute, so the
  release can be linked again later by whoever keeps the key, and by no one else. Off by default.
- **suppressed records** are masked (``*`` in every quasi-identifier) or dropped, as chosen.
- **optional shuffle**: a release in input order can leak through position (row 17 of the release is
  row 17 of a list someone else has).
- **formula injection** (CSV/XLSX): a spreadsheet runs a cell starting with ``=``, ``+``, ``-``, ``@``,
  tab or carriage return as a formula (OWASP "CSV injection"). Such cells get a leading apostrophe,
  which spreadsheets show as text. The one exception is a cell that is a plain negative number
  (``-5``, ``-3.2``, ``-0.5``, ``-.5``, ``-1e3``): a spreadsheet reads it as a number, never as a
  formula, and prefixing it would turn numbers into text. ``+5`` or ``-5+1`` are neutralized. Column
  names get the same treatment. Parquet is not opened by spreadsheets and is written as is.
- **atomic, never over the input**: every file is written to a temporary file beside the target and
  moved over it (see :mod:`kanon_engine.release.fileio`); the data file and project file are refused as
  targets;
  a read-only folder or a full disk gives a plain :class:`~kanon_engine.errors.DataError` and leaves the
  target as it was.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from kanon_engine.config import AnonymizationConfig
from kanon_engine.data.table import Table, TableLike, loaded, require_mark_free
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.hierarchy.arx_csv import write_arx_csv
from kanon_engine.hierarchy.model import ROOT
from kanon_engine.i18n import _
from kanon_engine.release import writer as release_writer
from kanon_engine.release.build import with_mark
from kanon_engine.release.fileio import format_for, refuse_input_overwrite, write_table
from kanon_engine.release.writer import FORMULA_STARTS, csv_bytes, is_formula_like_name, sha256_file
from kanon_engine.report.facts import written_facts
from kanon_engine.result import AnonymizationResult
from kanon_engine.sources import TableSource
from kanon_engine.sources.plan.sink import stream_release

__all__ = ["FORMULA_STARTS", "csv_bytes", "sha256_file"]

#: Shortest pseudonymization key accepted (128 bits).
MIN_KEY_BYTES = 16


def needs_neutralizing(text: str) -> bool:
    """Whether a spreadsheet could run ``text`` as a formula (see the module docstring for the rule)."""
    return is_formula_like_name(text)


def neutralize_formulas(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """A copy of ``frame`` with formula-like text cells (and column names) prefixed by ``'``; and how
    many cells were changed. Each distinct value is tested once (:mod:`kanon_engine.release.writer`)."""
    return release_writer.neutralized_frame(frame)


def _write(
    frame: pd.DataFrame, path: Path, fmt: str, delimiter: str, bom: bool, neutralize: bool
) -> release_writer.WrittenRelease:
    """Write a release or a table of strings: CSV/TSV and Parquet from codes and labels
    (:mod:`kanon_engine.release.writer`), XLSX cell by cell (:func:`kanon_engine.release.fileio.write_table`).
    Returns what was written."""
    if fmt in ("csv", "tsv"):
        sep = "\t" if fmt == "tsv" and delimiter == "," else delimiter
        return release_writer.write_csv(path, frame, sep, bom, neutralize)
    if fmt == "parquet":
        return release_writer.write_parquet(path, frame)
    changed = 0
    if neutralize:
        frame, changed = release_writer.neutralized_frame(frame)
    write_table(frame, path, fmt=fmt)
    return release_writer.WrittenRelease(
        tuple(str(c) for c in frame.columns), len(frame), sha256_file(path), changed
    )


# --- pseudonymization ---------------------------------------------------------------------------------
def check_key(key: bytes) -> bytes:
    """The key as bytes, or a ConfigError when it is missing or too short to resist guessing."""
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray)) or len(key) < MIN_KEY_BYTES:
        raise ConfigError(
            _(
                "The pseudonymization key must be at least {min_key_bytes} bytes long.",
                min_key_bytes=MIN_KEY_BYTES,
            ),
            hint=_("Use a key file made with 'head -c 32 /dev/urandom > release.key' and keep it safe."),
            where=_("pseudonymization key"),
        )
    return bytes(key)


def read_key_file(path: str | Path) -> bytes:
    """Read a pseudonymization key from a file (its raw bytes; a trailing line break is ignored)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(
            _("The key file {path} cannot be read ({strerror}).", path=path, strerror=exc.strerror),
            where=str(path),
        ) from None
    return check_key(data.rstrip(b"\r\n"))


def pseudonym(value: str, key: bytes) -> str:
    """HMAC-SHA256 of the UTF-8 value under ``key``, as 64 hex digits."""
    return hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()


def pseudonymize_identifiers(
    frame: pd.DataFrame, columns: list[str] | tuple[str, ...], key: bytes
) -> pd.DataFrame:
    """A copy of ``frame`` whose ``columns`` hold keyed pseudonyms instead of the identifiers.

    Equal identifiers get equal pseudonyms (so a patient's rows stay linkable), missing stays missing.
    One HMAC per distinct value (hashlib has no vectorized form; about a million per second).
    """
    key = check_key(key)
    out = frame.copy()
    for c in columns:
        if c not in out.columns:
            raise ConfigError(_("The identifier column '{column}' is not in the table.", column=c), where=c)
        codes, uniques = pd.factorize(out[c].astype(object), use_na_sentinel=True)
        hashed = np.array([pseudonym(str(u), key) for u in uniques], dtype=object)
        values = np.where(codes >= 0, hashed[np.maximum(codes, 0)] if len(hashed) else None, None)
        out[c] = pd.Series(values, index=out.index, dtype=object)
    return out


# --- the release in input order -----------------------------------------------------------------------
def _in_input_order(released: pd.Series, rows: np.ndarray, n: int, original: pd.Series | None) -> pd.Series:
    """One release column back in input order: release row i goes to input row ``rows[i]``; rows not in
    the release (dropped) show ``original`` (untouched columns) or ``*``. A categorical stays one."""
    if isinstance(released.dtype, pd.CategoricalDtype) and original is None:
        labels = list(released.array.categories)
        if ROOT not in labels:
            labels.append(ROOT)
        codes = np.full(n, labels.index(ROOT), dtype=np.int64)
        codes[rows] = released.array.codes
        return pd.Series(pd.Categorical.from_codes(codes, labels))
    if original is None:
        values = np.full(n, ROOT, dtype=object)
    else:
        values = original.astype(object).to_numpy(copy=True)
    values[rows] = released.astype(object).to_numpy()
    return pd.Series(values, index=pd.RangeIndex(n), dtype=object)


def _same_cells(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Per row: do two aligned columns hold the same value (missing equals missing)? pyarrow compares
    text columns without turning cells into Python strings."""
    arrow_a, arrow_b = getattr(a.array, "_pa_array", None), getattr(b.array, "_pa_array", None)
    if arrow_a is not None and arrow_b is not None and arrow_a.type == arrow_b.type:
        equal = pc.fill_null(pc.equal(arrow_a, arrow_b), False)
        both_missing = pc.and_(pc.is_null(arrow_a), pc.is_null(arrow_b))
        return pc.or_(equal, both_missing).to_numpy(zero_copy_only=False)
    a, b = a.astype(object), b.astype(object)
    return (a.to_numpy() == b.to_numpy()) | (a.isna().to_numpy() & b.isna().to_numpy())


def release_in_input_order(table: Table, result: AnonymizationResult) -> pd.DataFrame:
    """One row per input record, in input order, suppressed records masked with ``*``.

    Undoes the run's own drop and shuffle with ``result.release_rows`` (the input row of every release
    row) and restores dropped suppressed rows masked, so an export can choose drop/mask/shuffle freshly.
    Checked against the input's untouched columns; a DataError if the release does not line up.
    """
    cfg: AnonymizationConfig = result.config
    rel = result.release_table().reset_index(drop=True)
    n = result.records
    kept = np.flatnonzero(result.classes_of_rows() >= 0)
    rows = result.release_rows
    if len(rows) != len(rel):
        raise DataError(
            _(
                "The release has {n} rows, which matches neither the {n2} input records nor the {n3} "
                "unsuppressed ones.",
                n=len(rel),
                n2=n,
                n3=len(kept),
            ),
            hint=_("Run the anonymization again before exporting."),
            where="release",
        )
    masked_cols = set(cfg.quasi_identifiers) | {c for c in rel.columns if c not in table.frame.columns}
    original = table.frame.reset_index(drop=True)
    if len(rows) == n and np.array_equal(rows, np.arange(n)):
        full = rel  # neither dropped nor shuffled: the release is already in input order
    else:
        full = pd.DataFrame(
            {c: _in_input_order(rel[c], rows, n, None if c in masked_cols else original[c]) for c in rel},
            index=pd.RangeIndex(n),
        )
    untouched = [c for c in full.columns if c in table.frame.columns and c not in cfg.quasi_identifiers]
    for c in untouched:
        if not bool(_same_cells(full[c], original[c])[kept].all()):
            raise DataError(
                _("The release does not line up with the loaded table (different rows)."),
                hint=_("Run the anonymization again on this table before exporting."),
                where="release",
            )
    return full


# --- release export -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExportOptions:
    """How to write a release. ``None`` for ``suppressed``/``shuffle`` means: as the run's configuration."""

    fmt: str | None = None  # csv, tsv, xlsx, parquet; None = from the file name
    delimiter: str = ","
    bom: bool = False
    suppressed: str | None = None  # "mask" or "drop"
    shuffle: bool | None = None
    shuffle_seed: int | None = None  # None with shuffle=True: a fresh random order
    neutralize_formulas: bool = True
    pseudonymize_key: bytes | None = field(default=None, repr=False)
    #: what a suppressed value shows (None: the run's, ``AnonymizationConfig.suppression_mark``)
    suppression_mark: str | None = None

    def mark_for(self, config: AnonymizationConfig) -> str:
        """The suppression mark of this export of a run with ``config``."""
        return self.suppression_mark or config.suppression_mark

    def __post_init__(self) -> None:
        if self.suppressed not in (None, "mask", "drop"):
            raise ConfigError(
                _(
                    "Suppressed records are masked or dropped; got '{suppressed}'.",
                    suppressed=self.suppressed,
                ),
                where="suppressed",
            )


@dataclass(frozen=True)
class ExportSummary:
    """What was written: where, its format, size and SHA-256 (for the report)."""

    path: Path
    format: str
    rows: int
    columns: tuple[str, ...]
    sha256: str
    suppressed_rows: int  # rows of suppressed records in the file (masked), 0 when dropped
    dropped_rows: int
    shuffled: bool
    neutralized_cells: int
    pseudonymized: tuple[str, ...] = ()
    #: the release's facts counted from the rows written (:mod:`kanon_engine.report.facts`)
    facts: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "file": self.path.name,
            "format": self.format,
            "rows": self.rows,
            "columns": list(self.columns),
            "sha256": self.sha256,
            "suppressed_rows": self.suppressed_rows,
            "dropped_rows": self.dropped_rows,
            "shuffled": self.shuffled,
            "neutralized_cells": self.neutralized_cells,
            "pseudonymized": list(self.pseudonymized),
            "facts": self.facts,
        }


def prepare_release(
    table: Table, result: AnonymizationResult, options: ExportOptions = ExportOptions()
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The frame an export writes (before formula neutralization) and facts about it."""
    cfg: AnonymizationConfig = result.config
    frame = release_in_input_order(table, result)
    pseudonymized: tuple[str, ...] = ()
    if options.pseudonymize_key is not None and cfg.identifiers:
        ids = pseudonymize_identifiers(
            table.frame[list(cfg.identifiers)].reset_index(drop=True),
            list(cfg.identifiers),
            options.pseudonymize_key,
        )
        order = [c for c in table.frame.columns if c in frame.columns or c in cfg.identifiers]
        frame = pd.concat([frame, ids], axis=1)[order + [c for c in frame.columns if c not in order]]
        pseudonymized = tuple(cfg.identifiers)
    leaked = [c for c in cfg.identifiers if c in frame.columns and c not in pseudonymized]
    if leaked:  # defence in depth: release.py never keeps them
        frame = frame.drop(columns=leaked)
    suppressed = result.suppressed_mask
    recoding = getattr(result, "recoding", None)
    frame = with_mark(
        frame,
        cfg.quasi_identifiers,
        suppressed,
        options.mark_for(cfg),
        recoding.suppressed if recoding is not None else None,
    )
    drop = cfg.drop_suppressed if options.suppressed is None else options.suppressed == "drop"
    if drop:
        frame = frame[~suppressed]
    shuffle = cfg.shuffle_seed is not None if options.shuffle is None else options.shuffle
    if shuffle:
        seed = options.shuffle_seed
        if seed is None:
            seed = cfg.shuffle_seed if options.shuffle is None else secrets.randbits(64)
        frame = frame.iloc[np.random.default_rng(seed).permutation(len(frame))]
    input_rows = frame.index.to_numpy()
    frame = frame.reset_index(drop=True)
    facts = {
        "input_rows": input_rows,  # the input record of every written row, in the written order
        "suppressed_rows": 0 if drop else int(suppressed.sum()),
        "dropped_rows": int(suppressed.sum()) if drop else 0,
        "shuffled": bool(shuffle),
        "pseudonymized": pseudonymized,
    }
    return frame, facts


def export_release(
    table: TableLike,
    result: AnonymizationResult,
    path: str | Path,
    options: ExportOptions = ExportOptions(),
    project_path: str | Path | None = None,
) -> ExportSummary:
    """Write the release to ``path`` (CSV/TSV/XLSX/Parquet) atomically and return what was written.

    A run on a larger-than-memory engine holds no release: it is streamed from ``table`` (its source)
    through the run's plan (:func:`kanon_engine.sources.plan.sink.export_streamed`), to the same bytes."""
    if options.suppression_mark:  # another mark than the run's: it must not be a value either
        require_mark_free(table, result.config.quasi_identifiers, options.suppression_mark)
    if not result.in_memory:
        assert isinstance(table, TableSource)  # a streamed run's table is its source
        return _export_streamed(table, result, Path(path), options, project_path)
    path = Path(path)
    refuse_input_overwrite(path, [table.source, project_path])
    fmt = format_for(path, options.fmt)
    frame, facts = prepare_release(loaded(table), result, options)
    written = _write(frame, path, fmt, options.delimiter, options.bom, options.neutralize_formulas)

    return ExportSummary(
        path,
        fmt,
        written.rows,
        written.columns,
        written.sha256,
        facts["suppressed_rows"],
        facts["dropped_rows"],
        facts["shuffled"],
        written.neutralized_cells,
        facts["pseudonymized"],
        written_facts(table, result, frame, facts["input_rows"], options.mark_for(result.config)),
    )


def _export_streamed(
    source: TableSource,
    result: AnonymizationResult,
    path: Path,
    options: ExportOptions,
    project_path: str | Path | None,
) -> ExportSummary:
    """The export of a run that holds no release: streamed from its source (same bytes)."""

    written, facts = stream_release(source, result, path, options, project_path, pseudonymize_identifiers)
    drop = facts.get("drop", False)
    return ExportSummary(
        path,
        facts["format"],
        written.rows,
        written.columns,
        written.sha256,
        0 if drop else facts["suppressed"],
        facts["suppressed"] if drop else 0,
        facts["shuffled"],
        written.neutralized_cells,
        facts.get("pseudonymized", ()),
        facts.get("facts"),
    )


# --- value mapping and hierarchies --------------------------------------------------------------------
def value_mapping(table: Table, result: AnonymizationResult) -> pd.DataFrame:
    """Per quasi-identifier: original value -> released value, with how many records took that way.

    Columns: ``quasi_identifier, original_value, released_value, records``. A value may map to several
    released values (Mondrian cuts a value range differently in different boxes, and suppressed records
    show ``*``): each is listed with its count. Values are listed in hierarchy order (else as first
    seen), missing values as an empty cell.
    """
    cfg: AnonymizationConfig = result.config
    full = release_in_input_order(table, result)
    parts = []
    for q in cfg.quasi_identifiers:
        orig = table.frame[q].astype(object).reset_index(drop=True)
        rel = full[q].astype(object)
        pairs = pd.DataFrame({"original_value": orig.fillna(""), "released_value": rel.fillna("")})
        counts = pairs.groupby(["original_value", "released_value"], sort=False).size()
        counts = counts.reset_index(name="records")
        h = cfg.hierarchies.get(q)
        if h is not None:
            pos = h.leaf_index.get_indexer(pd.Index(counts["original_value"]))
            pos = np.where(pos < 0, len(h.values), pos)
        else:
            pos = np.zeros(len(counts), dtype=np.int64)
        counts = counts.assign(_pos=pos, _first=np.arange(len(counts)))
        counts = counts.sort_values(["_pos", "_first"], kind="stable")
        counts.insert(0, "quasi_identifier", q)
        parts.append(counts.drop(columns=["_pos", "_first"]))
    return pd.concat(parts, ignore_index=True)


def export_value_mapping(
    table: TableLike,
    result: AnonymizationResult,
    path: str | Path,
    delimiter: str = ",",
    bom: bool = False,
    project_path: str | Path | None = None,
) -> Path:
    """Write :func:`value_mapping` as CSV (formula-neutralized), atomically."""
    path = Path(path)
    refuse_input_overwrite(path, [table.source, project_path])
    _write(value_mapping(loaded(table), result), path, "csv", delimiter, bom, True)
    return path


def _safe_name(column: str) -> str:
    name = re.sub(r"[^\w.-]+", "_", column, flags=re.UNICODE).strip("._")
    return name or "column"


def export_hierarchies(
    config: AnonymizationConfig,
    folder: str | Path,
    prefix: str = "hierarchy_",
    inputs: list[str | Path | None] | tuple[str | Path | None, ...] = (),
) -> list[Path]:
    """Write every quasi-identifier's hierarchy as an ARX CSV file (``;``-separated) into ``folder``.

    Files are named ``<prefix><column>.csv``; ``inputs`` (the data, project and hierarchy files the
    project reads) are never overwritten.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(
            _("The folder {folder} does not exist.", folder=folder),
            hint=_("Create it or choose another one."),
            where=str(folder),
        )
    targets = hierarchy_targets(config, folder, prefix)
    for target in targets.values():
        refuse_input_overwrite(target, list(inputs))
    return [write_arx_csv(config.hierarchies[q], target) for q, target in targets.items()]


def hierarchy_targets(
    config: AnonymizationConfig, folder: str | Path, prefix: str = "hierarchy_"
) -> dict[str, Path]:
    """Quasi-identifier -> the file :func:`export_hierarchies` writes its hierarchy to."""
    return {q: Path(folder) / f"{prefix}{_safe_name(q)}.csv" for q in config.quasi_identifiers}
