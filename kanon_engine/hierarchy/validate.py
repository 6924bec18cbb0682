"""Checks that a hierarchy can be used to generalize a column, as issues the GUI shows inline.

What is an error: a label with two parents at the next level (the hierarchy is not a tree, so a class of
records at one level would be split at the next one, which breaks the monotonicity full-domain
algorithms rely on: Samarati 2001, LeFevre et al. 2005 "Incognito"), and data values the hierarchy does
not cover (they could not be generalized). What is a warning: a top level with several values (the
column can never be fully generalized), no generalization level at all, empty labels above the leaves.
A group named like an original value of another branch is an error too (a released value would be
ambiguous). What is fine: the same label at different levels (``Male -> Male -> *``), leaves the data
does not use.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from kanon_engine.errors import HierarchyError
from kanon_engine.hierarchy.model import MISSING, Hierarchy
from kanon_engine.i18n import N_, _, formats, ngettext

Severity = Literal["error", "warning"]

#: How many values a message lists before saying how many there are in all.
MAX_LISTED = 10


@dataclass(frozen=True)
class HierarchyIssue:
    """One problem found in a hierarchy: ``severity`` is "error" (cannot run) or "warning"; ``value``
    and ``level`` point at the label concerned (``None`` when the issue is about the whole hierarchy)."""

    severity: Severity
    message: str
    value: str | None = None
    level: int | None = None


def show_value(v: str) -> str:
    """A value as messages print it: quoted, or ``(missing)`` for the missing-value leaf."""
    return "(missing)" if v == MISSING else f"'{v}'"


_NUMBER_WORDS = {
    2: N_("two"),
    3: N_("three"),
    4: N_("four"),
    5: N_("five"),
    6: N_("six"),
    7: N_("seven"),
    8: N_("eight"),
    9: N_("nine"),
}


def _quoted(items: Iterable[object]) -> list[str]:
    return [f"'{v}'" for v in items]


def _and_list(items: list[str]) -> str:
    return formats.join(items)


def multi_parent_labels(h: Hierarchy) -> dict[tuple[int, str], list[str]]:
    """``(level, label) -> its parents at level + 1`` for every label with more than one parent.

    Empty when the hierarchy is a tree. One pandas drop-duplicates per level (no loop over rows).
    """
    out: dict[tuple[int, str], list[str]] = {}
    codes = h.level_codes  # cached on the hierarchy: a run checks its hierarchies every time
    for j in range(1, h.height):
        below, above = codes[j][0], codes[j + 1][0]
        parent = np.empty(len(codes[j][1]), dtype=above.dtype)
        parent[below] = above
        if np.array_equal(parent[below], above):  # every label has one parent (a tree): nothing to list
            continue
        pairs = pd.DataFrame({"a": h.matrix[:, j], "b": h.matrix[:, j + 1]}, dtype=object).drop_duplicates()
        multi = pairs[pairs["a"].duplicated(keep=False)]
        for label, grp in multi.groupby("a", sort=False):
            out[(j, str(label))] = [str(p) for p in grp["b"]]
    return out


def uncovered_values(h: Hierarchy, data_values: pd.Series | np.ndarray | list[str]) -> list[str]:
    """Distinct data values the hierarchy has no leaf for, most frequent first (ties: first seen).

    A missing cell (``NaN``/``None``/``""``) is reported as :data:`MISSING` (``""``), the leaf that
    would cover it.
    """
    s = data_values
    if not isinstance(s, pd.Series):
        s = pd.Series(np.asarray(data_values, dtype=object))
    codes, uniques = pd.factorize(s, sort=False, use_na_sentinel=False)  # distinct first, then text
    counts = np.bincount(codes, minlength=len(uniques))
    order = np.argsort(-counts, kind="stable")  # most frequent first, ties in first-seen order
    u = pd.Series(np.asarray(uniques, dtype=object)[order], dtype=object)
    text = np.asarray(u.astype(str), dtype=object) if len(u) else np.empty(0, dtype=object)
    text[u.isna().to_numpy()] = MISSING
    text = pd.unique(text)  # values that differ only before conversion (1 and "1") are one value
    unknown = h.leaf_index.get_indexer(pd.Index(text, dtype=object)) < 0
    return [str(v) for v in text[unknown]]


def _coverage_issue(h: Hierarchy, data_values: pd.Series | np.ndarray | list[str]) -> list[HierarchyIssue]:
    missing = uncovered_values(h, data_values)
    if not missing:
        return []
    values = data_values if isinstance(data_values, pd.Series) else pd.Series(data_values, dtype=object)
    if missing == [MISSING] and not values.replace(MISSING, None).notna().any():
        # an empty column, not a gap of the hierarchy (there is nothing to place in it)
        message = _(
            "The column '{column}' is empty: every cell is missing. Choose another quasi-identifier, "
            "or fill the column in the file.",
            column=h.attribute,
        )
        return [HierarchyIssue("error", message, level=0)]
    n = len(missing)
    shown = _and_list([show_value(v) for v in missing[:MAX_LISTED]])
    if n == 1:
        head = _(
            "1 value of '{column}' in the data is not in its hierarchy: {shown}.",
            column=h.attribute,
            shown=shown,
        )
    elif n <= MAX_LISTED:
        head = ngettext(
            "{n} value of '{column}' in the data is not in its hierarchy: {shown}.",
            "{n} values of '{column}' in the data are not in its hierarchy: {shown}.",
            n,
            column=h.attribute,
            shown=shown,
        )
    else:
        head = _(
            "{n} values of '{column}' in the data are not in its hierarchy (the {max_listed} most "
            "frequent: {shown}).",
            n=n,
            column=h.attribute,
            max_listed=MAX_LISTED,
            shown=shown,
        )
    near = {str(v).strip().casefold() for v in h.values}
    if any(v != MISSING and v.strip().casefold() in near for v in missing[:1000]):
        head += _(" Some differ from hierarchy values only by spaces or upper/lower case.")
    head += _(" Place them under a group in the hierarchy editor, or rebuild the hierarchy.")
    return [HierarchyIssue("error", head, value=missing[0], level=0)]


def _tree_issues(h: Hierarchy) -> list[HierarchyIssue]:
    out = []
    per_level: dict[int, int] = {}
    for (level, label), parents in multi_parent_labels(h).items():
        per_level[level] = per_level.get(level, 0) + 1
        if per_level[level] > MAX_LISTED:
            continue
        out.append(
            HierarchyIssue(
                "error",
                _(
                    "'{label}' at level {level} has {count} parents at level {above}: {values}. Each group "
                    "needs exactly one parent so that the levels nest; rename one of the groups or move it "
                    "under a single parent.",
                    label=label,
                    level=level,
                    count=_(_NUMBER_WORDS[len(parents)]) if len(parents) in _NUMBER_WORDS else len(parents),
                    above=level + 1,
                    values=_and_list(_quoted(parents)),
                ),
                value=label,
                level=level,
            )
        )
    for level, n in per_level.items():
        if n > MAX_LISTED:
            out.append(
                HierarchyIssue(
                    "error",
                    _(
                        "{n} labels in all at level {level} have more than one parent at level {n2}.",
                        n=n,
                        level=level,
                        n2=level + 1,
                    ),
                    level=level,
                )
            )
    return out


def ambiguous_labels(h: Hierarchy) -> dict[tuple[int, str], str | None]:
    """``(level, label) -> the group the value of that name is under at that level`` (None: under this
    very group, with other values), for every group label that is also an original value of the data
    and means more than that value: ages 0-4 grouped as "7" while 7 is an age under "5-9", or a root
    "*" over a value "*". A released "7" could then be either. A group that is its one value's
    (``Male -> Male``) is fine."""
    out: dict[tuple[int, str], str | None] = {}
    for j in range(1, h.height + 1):
        column = h.matrix[:, j]
        labels, members = np.unique(column.astype(str), return_counts=True)
        pos = h.leaf_index.get_indexer(pd.Index(labels.astype(object), dtype=object))
        for i in np.flatnonzero(pos >= 0):
            label, own = str(labels[i]), str(column[pos[i]])
            if label == MISSING or (own == label and members[i] == 1):
                continue
            out[(j, label)] = None if own == label else own
    return out


def _leaf_label_issues(h: Hierarchy) -> list[HierarchyIssue]:
    """An ambiguous group label (:func:`ambiguous_labels`) is an error: the release would say something
    false about the records it shows."""
    out = []
    for (level, label), other in list(ambiguous_labels(h).items())[:MAX_LISTED]:
        if other is None:
            message = _(
                "The group '{label}' at level {level} of '{column}' has the name of one of its values but "
                "holds others too, so a released '{label}' could mean either; rename the group.",
                label=label,
                level=level,
                column=h.attribute,
            )
        else:
            message = _(
                "The group '{label}' at level {level} of '{column}' has the name of a value of the data "
                "under another group ('{other}'), so a released '{label}' could mean either; rename the "
                "group.",
                label=label,
                level=level,
                column=h.attribute,
                other=other,
            )
        out.append(HierarchyIssue("error", message, value=label, level=level))
    return out


def _shape_issues(h: Hierarchy) -> list[HierarchyIssue]:
    out = []
    if h.height == 0:
        out.append(
            HierarchyIssue(
                "warning",
                _(
                    "The hierarchy of '{column}' has no generalization level: its values can only be kept "
                    "or suppressed. Add a level, for example a root '*'.",
                    column=h.attribute,
                ),
                level=0,
            )
        )
        return out
    top = h.level_codes[h.height][1]
    if len(top) > 1:
        shown = _and_list(_quoted(top[:MAX_LISTED])) + ("" if len(top) <= MAX_LISTED else ", ...")
        out.append(
            HierarchyIssue(
                "warning",
                _(
                    "The top level (level {height}) of '{column}' has {n} values, {shown}: the column can "
                    "never be fully generalized. Merge them into one root such as '*'.",
                    height=h.height,
                    column=h.attribute,
                    n=len(top),
                    shown=shown,
                ),
                value=top[0],
                level=h.height,
            )
        )
    empty_rows, empty_cols = np.nonzero(h.matrix[:, 1:] == "")
    if len(empty_rows):
        i, j = int(empty_rows[0]), int(empty_cols[0]) + 1
        extra = _(" ({n} empty labels in all)", n=len(empty_rows)) if len(empty_rows) > 1 else ""
        out.append(
            HierarchyIssue(
                "warning",
                _(
                    "The value {values} of '{column}' has an empty label at level {level}{extra}; "
                    "released cells would be blank. Give the group a name.",
                    values=show_value(h.matrix[i, 0]),
                    column=h.attribute,
                    level=j,
                    extra=extra,
                ),
                value=str(h.matrix[i, 0]),
                level=j,
            )
        )
    return out


def validate_hierarchy(h: Hierarchy, data_values: pd.Series | None = None) -> list[HierarchyIssue]:
    """All issues of ``h`` (errors first, then warnings), checked against ``data_values`` if given."""
    issues = _tree_issues(h) + _leaf_label_issues(h) + _shape_issues(h)
    if data_values is not None:
        issues = _coverage_issue(h, data_values) + issues
    return sorted(issues, key=lambda i: i.severity != "error")


def require_valid(h: Hierarchy, data_values: pd.Series | None = None) -> list[HierarchyIssue]:
    """Raise HierarchyError with the first errors in one plain message; return the warnings."""
    issues = validate_hierarchy(h, data_values)
    errors = [i for i in issues if i.severity == "error"]
    if errors:
        text = " ".join(e.message for e in errors[:3])
        if len(errors) > 3:
            text += _(" ({n} more problems.)", n=len(errors) - 3)
        raise HierarchyError(
            _("The hierarchy of '{column}' cannot be used. {text}", column=h.attribute, text=text),
            hint=_("Open it in the hierarchy editor to fix it."),
            where=h.attribute if errors[0].value is None else f"{h.attribute}={errors[0].value}",
        )
    return [i for i in issues if i.severity == "warning"]
