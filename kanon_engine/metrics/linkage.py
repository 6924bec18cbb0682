"""Linkage attack demonstration: join an public list of named people with the data on shared columns.

This is the attack of Sweeney's Massachusetts example (Sweeney 2002, "k-anonymity: a model for
protecting privacy", IJUFKS 10(5)) and of the joining example in LeFevre, DeWitt & Ramakrishnan 2006
("Mondrian Multidimensional K-Anonymity", ICDE): a public list (a voter register: name, age, sex,
postcode) is joined with the health records on the quasi-identifiers it shares with them. A person on
the list whose values match exactly one record is *singled out*: the attacker learns that record's
sensitive values. We count the people singled out before (joined with the original table) and after
(joined with the release).

When does a released value match a value the attacker knows? (:func:`value_matches`)

- it is equal to it (text compared after trimming spaces; ``"35"`` and ``"35.0"`` are equal numbers);
- it is ``*`` (suppressed or fully generalized: it could be anyone);
- it is a range ``[a-b]``, ``[a-b)``, ``(a-b]`` or ``(a-b)`` (also with ``,``/`` - ``/``..`` between the
  bounds) and the known value is a number inside it, or a date range ``[2020-01-05 - 2020-03-01]`` (as
  Mondrian writes them) holding the known date;
- it is a masked code such as ``53344*`` or ``02**8``: same length, equal wherever the label has no ``*``;
- it is a set ``{a, b, c}`` holding the value;
- it is an ancestor of the known value in the column's hierarchy (``Married`` for ``Married-civ-spouse``);
- a value the attacker does not know (a missing cell in the public list) matches anything.

The matching is computed on distinct values (one boolean matrix per column), then on distinct
combinations in blocks, so the cost does not depend on how many records share a combination.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kanon_engine.core.frequency import group_columns, representatives
from kanon_engine.data.dates import read_dates
from kanon_engine.data.roles import kind_words, match_name, name_words
from kanon_engine.errors import ConfigError, DataError
from kanon_engine.hierarchy.model import ROOT, Hierarchy
from kanon_engine.i18n import N_, _, text_of

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\s*([\[(])\s*({_NUM})\s*(?:-|,|\.\.|–|to)\s*({_NUM})\s*([\])])\s*$")
_DATE_RANGE = re.compile(r"^\s*\[(.+?) - (.+?)\]\s*$")
_BLOCK_CELLS = 4_000_000


def _as_frame(data: Any) -> pd.DataFrame:
    """Accept a Table (its ``frame``) or a DataFrame."""
    return getattr(data, "frame", data)


def _text(values: np.ndarray) -> np.ndarray:
    """Trimmed strings; None where the value is missing."""
    s = pd.Series(values, dtype=object)
    out = s.where(s.isna(), s.astype(str).str.strip())
    return out.to_numpy(dtype=object)


def _numbers(text: np.ndarray) -> np.ndarray:
    return pd.to_numeric(pd.Series(text, dtype=object), errors="coerce").to_numpy(dtype=float)


def _as_dates(values: pd.Series) -> pd.Series:
    """Dates of text values read with the one format most of them fit (NaT where a value does not fit
    it: never a per-value guess between day-first and month-first)."""

    return read_dates(values)


def parse_range(label: str) -> tuple[float, float, bool, bool] | None:
    """``(low, high, low_included, high_included)`` of a range label such as ``[30-40)``, else None."""
    m = _RANGE.match(label)
    if not m:
        return None
    return float(m.group(2)), float(m.group(3)), m.group(1) == "[", m.group(4) == "]"


def _mask_regex(label: str) -> str | None:
    """A regular expression for a masked code (``533**`` -> ``533..``); None if ``label`` is not one."""
    if ROOT not in label or label == ROOT or label.startswith("{"):
        return None
    return "".join("." if ch == "*" else re.escape(ch) for ch in label)


def value_matches(
    known: Sequence[Any] | np.ndarray,
    released: Sequence[Any] | np.ndarray,
    hierarchy: Hierarchy | None = None,
) -> np.ndarray:
    """Boolean matrix ``(len(known), len(released))``: may the released value stand for the known one?

    ``known`` and ``released`` are distinct values of one column (the rules are in the module docstring).
    """
    k_text = _text(np.asarray(known, dtype=object))
    r_text = _text(np.asarray(released, dtype=object))
    n_k, n_r = len(k_text), len(r_text)
    out = np.zeros((n_k, n_r), dtype=bool)
    if n_k == 0 or n_r == 0:
        return out
    k_missing = pd.isna(pd.Series(k_text, dtype=object)).to_numpy()
    r_missing = pd.isna(pd.Series(r_text, dtype=object)).to_numpy()
    k_str = np.where(k_missing, "", k_text).astype(object)
    r_str = np.where(r_missing, "", r_text).astype(object)

    # equal text: a hash join on the distinct values
    r_index = pd.Index(r_str)
    if r_index.is_unique:
        pos = r_index.get_indexer(pd.Index(k_str))
        hit = pos >= 0
        out[np.flatnonzero(hit), pos[hit]] = True
    else:
        out |= k_str[:, None] == r_str[None, :]
    # equal numbers
    k_num, r_num = _numbers(k_str), _numbers(r_str)
    num_r = np.flatnonzero(np.isfinite(r_num))
    num_k = np.flatnonzero(np.isfinite(k_num))
    if len(num_r) and len(num_k):
        out[np.ix_(num_k, num_r)] |= k_num[num_k, None] == r_num[None, num_r]
    # root, ranges, masks, sets: a few kinds of labels, each handled for all known values at once
    k_series = pd.Series(k_str, dtype=object)
    k_dates: pd.Series | None = None
    for j, label in enumerate(r_str):
        if r_missing[j] or label == "":
            continue
        if label == ROOT:
            out[:, j] = True
            continue
        rng = parse_range(label)
        if rng is not None:
            lo, hi, lo_in, hi_in = rng
            above = k_num >= lo if lo_in else k_num > lo
            below = k_num <= hi if hi_in else k_num < hi
            out[:, j] |= above & below
            continue
        dates = _DATE_RANGE.match(label)
        if dates is not None:
            if k_dates is None:
                k_dates = _as_dates(k_series)
            lo_d, hi_d = _as_dates(pd.Series([dates.group(1), dates.group(2)], dtype=object))
            if not (pd.isna(lo_d) or pd.isna(hi_d)):
                out[:, j] |= ((k_dates >= lo_d) & (k_dates <= hi_d)).fillna(False).to_numpy(dtype=bool)
            continue
        if label.startswith("{") and label.endswith("}"):
            members = {m.strip() for m in label[1:-1].split(",")}
            out[:, j] |= k_series.isin(members).to_numpy()
            continue
        pattern = _mask_regex(label)
        if pattern is not None:
            out[:, j] |= k_series.str.fullmatch(pattern).fillna(False).to_numpy(dtype=bool)
    if hierarchy is not None:
        out |= _ancestor_matches(k_str, r_str, hierarchy)
    out[k_missing, :] = True  # the attacker does not know this value
    return out


def _ancestor_matches(k_str: np.ndarray, r_str: np.ndarray, hierarchy: Hierarchy) -> np.ndarray:
    """``out[i, j]``: the released label ``j`` is the generalization of known value ``i`` at some level."""
    out = np.zeros((len(k_str), len(r_str)), dtype=bool)
    leaf = hierarchy.encode(k_str)
    known = np.flatnonzero(leaf >= 0)
    if not len(known):
        return out
    for codes, labels in hierarchy.level_codes[1:]:
        label_pos = pd.Index(labels).get_indexer(pd.Index(r_str))
        cols = np.flatnonzero(label_pos >= 0)
        if len(cols):
            out[np.ix_(known, cols)] |= codes[leaf[known]][:, None] == label_pos[cols][None, :]
    return out


@dataclass(frozen=True, eq=False)
class Combos:
    """Distinct combinations of a frame's columns: codes into per-column distinct values, and counts."""

    values: list[np.ndarray]  # per column: its distinct values
    codes: np.ndarray  # (n_columns, n_combos) codes into ``values``
    counts: np.ndarray  # (n_combos,) rows per combination
    row_combo: np.ndarray  # (n_rows,) combination of every row

    @classmethod
    def of(cls, frame: pd.DataFrame, columns: Sequence[str]) -> Combos:
        codes, values, sizes = [], [], []
        for c in columns:
            col = frame[c].astype(object)
            cd, uniq = pd.factorize(col, use_na_sentinel=True)
            uniq = np.asarray(uniq, dtype=object)
            if (cd < 0).any():
                uniq = np.append(uniq, np.array([None], dtype=object))
                cd = np.where(cd < 0, len(uniq) - 1, cd)
            codes.append(cd.astype(np.int64))
            values.append(uniq)
            sizes.append(len(uniq))
        row_combo, n = group_columns(codes, sizes) if len(frame) else (np.zeros(0, np.int64), 0)
        rep = representatives(row_combo, n)
        combo_codes = np.stack([c[rep] for c in codes]) if codes else np.zeros((0, n), np.int64)
        counts = np.bincount(row_combo, minlength=n).astype(np.int64)
        return cls(values, combo_codes, counts, row_combo)

    @property
    def n(self) -> int:
        return int(len(self.counts))


def match_blocks(
    known: Combos, released: Combos, hierarchies: Sequence[Hierarchy | None]
) -> Iterator[tuple[slice, np.ndarray]]:
    """Blocks ``(rows of known combos, bool matrix known-block x released combos)`` of full matches."""
    # per column: known value x released combination (the combination's value in that column)
    per_column = [
        value_matches(kv, rv, h)[:, released.codes[q]]
        for q, (kv, rv, h) in enumerate(zip(known.values, released.values, hierarchies))
    ]
    step = max(1, _BLOCK_CELLS // max(released.n, 1))
    for start in range(0, known.n, step):
        block = slice(start, min(start + step, known.n))
        m = np.ones((block.stop - block.start, released.n), dtype=bool)
        for q, compat in enumerate(per_column):
            m &= compat[known.codes[q, block]]
        yield block, m


def _single_match_counts(
    kc: Combos, rc: Combos, hs: Sequence[Hierarchy | None]
) -> tuple[np.ndarray, np.ndarray] | None:
    """Hash-join fast path (per combination counts), or None when it does not apply.

    It applies when, leaving aside released rows that are ``*`` in every column (they match everyone),
    each known value matches at most one released value per column: a plain join on the original, or a
    full-domain release. Then a known combination matches at most one released combination, found by
    key lookup in O(n) instead of a known x released matrix.
    """
    n_cols = len(kc.values)
    star_cols = [np.asarray([v == ROOT for v in rv], dtype=bool) for rv in rc.values]
    all_star = np.ones(rc.n, dtype=bool)
    for q in range(n_cols):
        all_star &= star_cols[q][rc.codes[q]]
    rest = np.flatnonzero(~all_star)
    matched = np.empty((n_cols, kc.n), dtype=np.int64)
    for q, (kv, rv, h) in enumerate(zip(kc.values, rc.values, hs)):
        used = np.zeros(len(rv), dtype=bool)
        used[rc.codes[q, rest]] = True
        compat = value_matches(kv, rv, h) & used[None, :]
        if (compat.sum(axis=1) > 1).any():
            return None
        per_value = np.where(compat.any(axis=1), compat.argmax(axis=1), -1)
        matched[q] = per_value[kc.codes[q]]
    sizes = [len(rv) + 1 for rv in rc.values]
    none = [np.where(matched[q] >= 0, matched[q], sizes[q] - 1) for q in range(n_cols)]  # "no match" code
    rel_key, _n = group_columns([np.concatenate([rc.codes[q, rest], none[q]]) for q in range(n_cols)], sizes)
    ok = (matched >= 0).all(axis=0)
    rel_ids, known_ids = rel_key[: len(rest)], rel_key[len(rest) :]
    slot = pd.Index(rel_ids).get_indexer(known_ids)  # release combos are distinct, so keys are unique
    hit = ok & (slot >= 0)
    n_star = int(rc.counts[all_star].sum())
    per_known = np.full(kc.n, n_star, dtype=np.int64)
    per_known[hit] += rc.counts[rest[slot[hit]]]
    per_released = np.zeros(rc.n, dtype=np.int64)
    np.add.at(per_released, rest[slot[hit]], kc.counts[hit])
    per_released[all_star] = int(kc.counts.sum())
    return per_known, per_released


def count_matches(
    known: pd.DataFrame,
    released: pd.DataFrame,
    columns: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    progress: Callable[[float], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """For every row of ``known``: how many rows of ``released`` match it on ``columns``; and for every
    row of ``released``: how many rows of ``known`` it matches (the population size of its class).

    ``progress(fraction)`` is called after every block of the matrix path (it may raise Cancelled)."""
    hs = [(hierarchies or {}).get(c) for c in columns]
    kc, rc = Combos.of(known, columns), Combos.of(released, columns)
    fast = _single_match_counts(kc, rc, hs)
    if fast is not None:
        return fast[0][kc.row_combo], fast[1][rc.row_combo]
    per_known = np.zeros(kc.n, dtype=np.int64)
    per_released = np.zeros(rc.n, dtype=np.int64)
    r_counts, k_counts = rc.counts.astype(np.float64), kc.counts.astype(np.float64)
    for block, m in match_blocks(kc, rc, hs):
        mf = m.astype(np.float64)  # BLAS products; counts are exact in float64 below 2**53
        per_known[block] = np.rint(mf @ r_counts).astype(np.int64)
        per_released += np.rint(k_counts[block] @ mf).astype(np.int64)
        if progress is not None:
            progress(block.stop / max(kc.n, 1))
    return per_known[kc.row_combo], per_released[rc.row_combo]


def matching_rows(
    known: pd.DataFrame,
    released: pd.DataFrame,
    columns: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> list[np.ndarray]:
    """For each row of ``known`` (a few: the examples shown), the rows of ``released`` it matches."""
    hs = [(hierarchies or {}).get(c) for c in columns]
    rc = Combos.of(released, columns)
    hit = np.ones((len(known), rc.n), dtype=bool)
    for q, c in enumerate(columns):
        hit &= value_matches(known[c].to_numpy(dtype=object), rc.values[q], hs[q])[:, rc.codes[q]]
    order = np.argsort(rc.row_combo, kind="stable")
    starts = np.searchsorted(rc.row_combo[order], np.arange(rc.n + 1))
    return [
        np.sort(
            np.concatenate(
                [order[starts[j] : starts[j + 1]] for j in np.flatnonzero(row)] or [np.zeros(0, np.int64)]
            )
        ).astype(np.int64)
        for row in hit
    ]


@dataclass(frozen=True, eq=False)
class LinkageSide:
    """Outcome of joining the public list with one table (the original, or the release)."""

    table: str
    candidates: np.ndarray  # per person on the public list: records of the table that match
    singled_out_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def singled_out(self) -> int:
        """People matching exactly one record: the attacker knows which record is theirs."""
        return int((self.candidates == 1).sum())

    @property
    def singled_out_share(self) -> float:
        """Singled-out people as a share of the public list (0 for an empty list)."""
        return self.singled_out / len(self.candidates) if len(self.candidates) else 0.0

    @property
    def matched(self) -> int:
        return int((self.candidates >= 1).sum())

    @property
    def unmatched(self) -> int:
        return int((self.candidates == 0).sum())

    @property
    def smallest_group(self) -> int:
        """Fewest candidate records for a matched person (0 when nobody matches)."""
        m = self.candidates[self.candidates >= 1]
        return int(m.min()) if len(m) else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "people_matched": self.matched,
            "people_singled_out": self.singled_out,
            "share_singled_out": self.singled_out_share,
            "people_unmatched": self.unmatched,
            "smallest_candidate_group": self.smallest_group,
        }


#: The linkage demo's summary, whole sentences with named placeholders (one place, ready for translation).
SUMMARY = {
    "before": N_(
        "Joining a public list of {people} people with the original data on {columns} singles out "
        "{before} of them."
    ),
    "after": N_(
        "Joining a public list of {people} people with the original data on {columns} singles out "
        "{before} of them; with the release, {after}."
    ),
}


@dataclass(frozen=True, eq=False)
class LinkageResult:
    """People on an public list singled out by a join on ``columns``, before and after anonymization.

    ``columns`` are the data's column names; ``list_columns`` the public list's column joined with each
    (the same names unless the join said otherwise)."""

    columns: tuple[str, ...]
    external_records: int
    before: LinkageSide
    after: LinkageSide | None
    list_columns: tuple[str, ...] = ()
    list_file: str = ""  # the public list's file name, when it came from a file

    @property
    def join(self) -> dict[str, str]:
        """Data column -> the public list's column joined with it."""
        return dict(zip(self.columns, self.list_columns or self.columns))

    def summary(self) -> str:
        """One plain sentence for the report and the GUI."""
        values = {
            "people": self.external_records,
            "columns": ", ".join(self.columns),
            "before": self.before.singled_out,
            "after": self.after.singled_out if self.after is not None else "",
        }
        return text_of(SUMMARY, "before" if self.after is None else "after", **values)

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns),
            "list_columns": list(self.list_columns or self.columns),
            "external_records": self.external_records,
            "list_file": self.list_file,
            "before": self.before.to_dict(),
            "after": None if self.after is None else self.after.to_dict(),
            "summary": self.summary(),
        }


def shared_columns(external: pd.DataFrame, quasi_identifiers: Sequence[str]) -> tuple[str, ...]:
    """The quasi-identifiers the public list also has (the join keys)."""
    cols = set(str(c) for c in external.columns)
    return tuple(q for q in quasi_identifiers if q in cols)


@dataclass(frozen=True)
class JoinSuggestion:
    """A column of the public list proposed for joining with a quasi-identifier, and why."""

    column: str
    list_column: str
    reason: str


#: Why a pair of columns is proposed (whole sentences with named placeholders).
JOIN_REASONS = {
    "same": N_("'{list_column}' has the same name as the quasi-identifier '{column}'."),
    "kind": N_("'{list_column}' and the quasi-identifier '{column}' both look like {kind}."),
}


def suggest_join(list_columns: Sequence[str], quasi_identifiers: Sequence[str]) -> list[JoinSuggestion]:
    """Columns of the public list to join with each quasi-identifier: the same name (ignoring case,
    accents, spaces and punctuation: ``Zip code`` and ``zip_code``), else the same kind of column by the
    words of the names, in English, German, French and Spanish (``PLZ`` and ``Postleitzahl``)."""

    free = [str(c) for c in list_columns]
    out = []
    for q in quasi_identifiers:
        same = [c for c in free if name_words(c)[1] == name_words(q)[1]]
        kind = match_name(q)
        alike = [c for c in free if kind is not None and match_name(c) == kind]
        if same:
            pick, reason = same[0], text_of(JOIN_REASONS, "same", list_column=same[0], column=q)
        elif alike:
            words = kind_words(kind[0]) if kind is not None else ""
            pick = alike[0]
            reason = text_of(JOIN_REASONS, "kind", list_column=pick, column=q, kind=words)
        else:
            continue
        free.remove(pick)
        out.append(JoinSuggestion(q, pick, reason))
    return out


def _join_frame(external: pd.DataFrame, join: Mapping[str, str]) -> pd.DataFrame:
    """The public list's join columns, named as the data's columns they are joined with."""
    missing = [c for c in join.values() if c not in external.columns]
    if missing:
        raise DataError(
            _("The public list has no column '{column}' to join on.", column=missing[0]), where=missing[0]
        )
    frame = external[list(join.values())]
    frame.columns = list(join.keys())
    return frame


def linkage_attack(
    external: Any,
    original: Any,
    release: pd.DataFrame | None = None,
    columns: Sequence[str] | None = None,
    quasi_identifiers: Sequence[str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    *,
    join: Mapping[str, str] | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> LinkageResult:
    """Join the public list ``external`` with ``original`` and with ``release`` on shared columns.

    ``columns`` defaults to the ``quasi_identifiers`` (or, without them, all columns of ``original``)
    that ``external`` also has; ``join`` (data column -> the list's column) joins columns named
    differently instead. ``hierarchies`` lets a released label match the values below it.
    External tables may be a :class:`~kanon_engine.data.table.Table` or a DataFrame. ``progress``
    (fraction, message) is called as the joins go on; it may raise Cancelled to stop.
    """
    ext, orig = _as_frame(external), _as_frame(original)
    if join:
        ext, columns = _join_frame(ext, join), tuple(join)
    elif columns is None:
        candidates = quasi_identifiers if quasi_identifiers is not None else [str(c) for c in orig.columns]
        columns = shared_columns(ext, candidates)
    columns = tuple(columns)
    if not columns:
        raise ConfigError(
            _("The public list shares no quasi-identifier column with the data, so no join is possible."),
            hint=_("Name its columns like the data's quasi-identifiers (for example age, sex, zipcode)."),
            where="external",
        )
    absent = {
        "public": N_("The public list has no column '{column}' to join on."),
        "original": N_("The original data have no column '{column}' to join on."),
        "release": N_("The release has no column '{column}' to join on."),
    }
    for name, frame in (("public", ext), ("original", orig)) + (
        (("release", release),) if release is not None else ()
    ):
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise DataError(text_of(absent, name, column=missing[0]), where=missing[0])
    report = progress or (lambda fraction, message: None)
    share = 0.5 if release is not None else 1.0
    report(0.0, _("joining the public list with the original data"))
    before_counts, _per_class = count_matches(
        ext, orig, columns, None, lambda f: report(share * f, _("joining"))
    )
    before = LinkageSide("original", before_counts, np.flatnonzero(before_counts == 1))
    after = None
    if release is not None:
        report(share, _("joining the public list with the release"))
        after_counts, _per_class = count_matches(
            ext, release, columns, hierarchies, lambda f: report(share + share * f, _("joining"))
        )
        after = LinkageSide("release", after_counts, np.flatnonzero(after_counts == 1))
    report(1.0, _("the public list is joined"))
    list_columns = tuple(join.values()) if join else columns
    source = getattr(external, "source", None)
    name = source.name if isinstance(source, Path) else ""
    return LinkageResult(columns, int(len(ext)), before, after, list_columns, name)


@dataclass(frozen=True)
class LinkageExample:
    """One person of the public list as the demo shows them: what the list says (public), how many
    records of each table match, and, when the release singles them out, the released values the
    attacker learns. Nothing of the original data is shown beyond a count."""

    list_row: int  # 1 = the list's first data row
    known: dict[str, str]  # the list's join columns -> their values on the list
    before: int
    after: int | None
    learned: dict[str, str] | None = None  # release column -> value, for a person singled out


#: At most this many example people are listed.
EXAMPLES = 20


def linkage_examples(
    result: LinkageResult,
    external: Any,
    release: pd.DataFrame | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    learned_columns: Sequence[str] = (),
    limit: int = EXAMPLES,
) -> list[LinkageExample]:
    """Examples of the demo: people singled out by the release first, then those the original data
    singles out, then the rest (fewest candidate records first); for people the release singles out,
    the values of ``learned_columns`` in their released record (what the attacker learns)."""
    ext = _as_frame(external)
    before = result.before.candidates
    after = result.after.candidates if result.after is not None else None
    rank = np.where(before == 1, 1, 2).astype(np.int64)
    if after is not None:
        rank = np.where(after == 1, 0, rank)
    order = np.lexsort((np.arange(len(before)), after if after is not None else before, rank))[:limit]
    known = _join_frame(ext, result.join).iloc[order]
    singled = [int(i) for i in order if after is not None and after[i] == 1]
    rows: dict[int, int] = {}
    if singled and release is not None and learned_columns:
        at = [int(np.flatnonzero(order == i)[0]) for i in singled]
        found = matching_rows(known.iloc[at], release, result.columns, hierarchies)
        rows = {i: int(r[0]) for i, r in zip(singled, found) if len(r) == 1}
    out = []
    for i in order:
        learned = None
        if int(i) in rows:
            record = release.iloc[rows[int(i)]]  # type: ignore[union-attr]
            learned = {c: _cell(record[c]) for c in learned_columns if c in record.index}
        values = {lc: _cell(ext[lc].iloc[int(i)]) for lc in result.join.values()}
        out.append(
            LinkageExample(
                int(i) + 1, values, int(before[i]), None if after is None else int(after[i]), learned
            )
        )
    return out


def _cell(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)
