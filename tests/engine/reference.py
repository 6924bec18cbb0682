"""Independent, slow, plain-pandas references used as oracles by the tests.

Nothing here imports the engine's grouping, encoding or model code: it recomputes everything from the
released strings and the hierarchies' rows with pandas group-bys, so a bug in the engine cannot hide in
its own checker.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd


def hierarchy_maps(rows_by_qi: dict[str, list[list[str]]]) -> dict[str, list[dict[str, str]]]:
    """Per QI and level: {original value: label at that level}."""
    return {q: [{r[0]: r[j] for r in rows} for j in range(len(rows[0]))] for q, rows in rows_by_qi.items()}


def suppressed_rows(release: pd.DataFrame, qi: list[str]) -> pd.Series:
    return (release[qi].astype(object) == "*").all(axis=1)


def class_groups(release: pd.DataFrame, qi: list[str]) -> pd.core.groupby.DataFrameGroupBy:
    kept = release[~suppressed_rows(release, qi)]
    return kept.groupby(qi, dropna=False, sort=False)


def entropy(values: pd.Series) -> float:
    p = values.value_counts(normalize=True, dropna=False).to_numpy()
    return float(-(p * np.log(p)).sum())


def recursive_ok(values: pd.Series, c: float, l: int) -> bool:  # noqa: E741
    r = sorted(values.value_counts(dropna=False).tolist(), reverse=True)
    return r[0] < c * sum(r[l - 1 :])


def emd_equal(values: pd.Series, whole: pd.Series) -> float:
    p = values.value_counts(normalize=True)
    q = whole.value_counts(normalize=True)
    p = p.reindex(q.index, fill_value=0.0)
    return float(0.5 * (p - q).abs().sum())


def emd_ordered(values: pd.Series, whole: pd.Series) -> float:
    order = sorted(whole.unique(), key=lambda v: float(v))
    q = whole.value_counts(normalize=True).reindex(order, fill_value=0.0).to_numpy()
    p = values.value_counts(normalize=True).reindex(order, fill_value=0.0).to_numpy()
    m = len(order)
    return float(np.abs(np.cumsum(p - q)).sum() / max(m - 1, 1))


#: The sensitive hierarchy of the random problems' "s" (values 0..3): {0, 1} and {2, 3}, then the root.
S_HIERARCHY = [["0", "low", "*"], ["1", "low", "*"], ["2", "high", "*"], ["3", "high", "*"]]


def emd_hierarchical(values: pd.Series, whole: pd.Series, rows: list[list[str]] = S_HIERARCHY) -> float:
    """Li et al.'s hierarchical EMD by the paper's recursion over the tree (a dict per level)."""
    p = values.value_counts(normalize=True).to_dict()
    q = whole.value_counts(normalize=True).to_dict()
    height = len(rows[0]) - 1
    extra = {r[0]: p.get(r[0], 0.0) - q.get(r[0], 0.0) for r in rows}
    cost = 0.0
    for j in range(1, height + 1):
        nxt: dict[str, float] = {}
        for node in {r[j] for r in rows}:
            kids = {r[j - 1] for r in rows if r[j] == node}
            pos = sum(max(extra[c], 0.0) for c in kids)
            neg = sum(max(-extra[c], 0.0) for c in kids)
            cost += j / height * min(pos, neg)
            nxt[node] = pos - neg
        extra = nxt
    return cost


def group_passes(group: pd.DataFrame, models: list[dict], whole: pd.DataFrame) -> bool:
    """Whether one class passes every model (models as their to_dict() forms)."""
    for m in models:
        name = m["name"]
        if name == "k-anonymity" and len(group) < m["k"]:
            return False
        if name == "distinct-l-diversity" and group[m["sensitive"]].nunique(dropna=False) < m["l"]:
            return False
        if name == "entropy-l-diversity" and entropy(group[m["sensitive"]]) < math.log(m["l"]) - 1e-9:
            return False
        if name == "recursive-cl-diversity" and not recursive_ok(group[m["sensitive"]], m["c"], m["l"]):
            return False
        if name == "t-closeness":
            dist = {"equal": emd_equal, "ordered": emd_ordered, "hierarchical": emd_hierarchical}
            if dist[m["distance"]](group[m["sensitive"]], whole[m["sensitive"]]) > m["t"] + 1e-9:
                return False
    return True


def release_satisfies(
    release: pd.DataFrame, original: pd.DataFrame, qi: list[str], models: list[dict], max_suppressed: int
) -> tuple[bool, str]:
    """Check a release as an attacker sees it: every class passes every model; the records whose QIs are
    all ``*`` form a class like any other when they pass, else they count as suppressed, and suppressed
    (or dropped) records must fit within the limit."""
    stars = suppressed_rows(release, qi)
    n_supp = len(original) - len(release)
    k = max(m["k"] for m in models if m["name"] == "k-anonymity")
    if 0 < int(stars.sum()) < k:  # Datafly's step 4: the kept suppressed records are a group too
        return False, f"{int(stars.sum())} kept suppressed records form a group smaller than k = {k}"
    if stars.any() and not group_passes(release[stars], models, original):
        n_supp += int(stars.sum())
    if n_supp > max_suppressed:
        return False, f"{n_supp} suppressed > {max_suppressed}"
    for key, group in class_groups(release, qi):
        if not group_passes(group, models, original):
            return False, f"class {key} of size {len(group)} fails"
    return True, "ok"


def generalize(
    frame: pd.DataFrame, maps: dict[str, list[dict[str, str]]], levels: dict[str, int]
) -> pd.DataFrame:
    out = frame.copy()
    for q, lv in levels.items():
        out[q] = frame[q].map(maps[q][lv])
    return out


def brute_force(
    frame: pd.DataFrame,
    rows_by_qi: dict[str, list[list[str]]],
    models: list[dict],
    max_suppressed: int,
    group_k: int | None = None,
) -> list[dict]:
    """Every node of the lattice: levels, satisfies, suppressed, class sizes, DM and friends (pandas).

    ``group_k`` (default: k) is Datafly's step 4: kept suppressed records number 0 or at least it."""
    qi = list(rows_by_qi)
    maps = hierarchy_maps(rows_by_qi)
    heights = [len(rows_by_qi[q][0]) - 1 for q in qi]
    n = len(frame)
    k = max(m["k"] for m in models if m["name"] == "k-anonymity")
    group_k = k if group_k is None else group_k
    out = []
    for levels in itertools.product(*[range(h + 1) for h in heights]):
        gen = generalize(frame, maps, dict(zip(qi, levels)))
        sizes, passes = [], []
        for _, g in gen.groupby(qi, dropna=False, sort=False):
            sizes.append(len(g))
            passes.append(group_passes(g, models, frame))
        sizes_a, passes_a = np.array(sizes), np.array(passes)
        suppressed = int(sizes_a[~passes_a].sum())
        trimmed = np.zeros(len(sizes_a), dtype=int)
        if group_k and 0 < suppressed < group_k:
            order = _class_order(gen, qi, levels, rows_by_qi)
            simple = all(m["name"] == "k-anonymity" for m in models)
            passes_a, trimmed, suppressed = _step4(sizes_a, passes_a, suppressed, group_k, k, simple, order)
        kept = sizes_a[passes_a] - trimmed[passes_a]
        frac = [lv / h if h else 0.0 for lv, h in zip(levels, heights)]
        prec = 1 - ((n - suppressed) * sum(frac) + suppressed * sum(1 for h in heights if h)) / (n * len(qi))
        out.append(
            {
                "levels": tuple(levels),
                "height": sum(levels),
                "satisfies": suppressed <= max_suppressed,
                "suppressed": suppressed,
                "dm": float((kept.astype(float) ** 2).sum() + suppressed * n),
                "dm-star": float((sizes_a.astype(float) ** 2).sum()),
                "cavg": n / len(kept) / k if len(kept) else math.inf,
                "cavg_released": (n - suppressed) / len(kept) / k if len(kept) else math.inf,
                "precision": 1 - prec,
                "classes": len(kept),
                "entropy": _entropy_loss(frame, gen, maps, qi, levels, heights, passes_a, sizes_a)
                + _trimmed_entropy(frame, gen, qi, trimmed),
            }
        )
    return out


def _class_order(gen: pd.DataFrame, qi: list[str], levels, rows_by_qi) -> np.ndarray:
    """Rank of every class (groupby order) by its generalized labels' positions in hierarchy order."""
    pos = {
        q: {lab: i for i, lab in enumerate(dict.fromkeys(r[lv] for r in rows_by_qi[q]))}
        for q, lv in zip(qi, levels)
    }
    keys = [
        tuple(pos[q][v] for q, v in zip(qi, key if isinstance(key, tuple) else (key,)))
        for key, _ in gen.groupby(qi, dropna=False, sort=False)
    ]
    rank = np.empty(len(keys), dtype=int)
    rank[sorted(range(len(keys)), key=lambda i: keys[i])] = np.arange(len(keys))
    return rank


def _step4(sizes, passes, suppressed, group_k, k, simple, order):
    """Datafly's step 4 as kanon documents it (kanon_engine.core.suppressed_group), in plain Python."""
    need = group_k - suppressed
    trimmed = np.zeros(len(sizes), dtype=int)
    passing = [c for c in range(len(sizes)) if passes[c]]
    if simple and sum(max(sizes[c] - k, 0) for c in passing) >= need:
        for c in sorted(passing, key=lambda c: (-sizes[c], order[c])):
            take = min(max(sizes[c] - k, 0), need)
            trimmed[c] = take
            need -= take
        return passes, trimmed, group_k
    c = min(passing, key=lambda c: (sizes[c], order[c]))
    passes = passes.copy()
    passes[c] = False
    return passes, trimmed, suppressed + int(sizes[c])


def _trimmed_entropy(frame, gen, qi, trimmed) -> float:
    """Entropy added by records taken out of a class: per attribute -log2(f(v)/n) - (-log2(f(v)/f(g)))."""
    if not trimmed.any():
        return 0.0
    n = len(frame)
    total = 0.0
    for c, (_key, g) in enumerate(gen.groupby(qi, dropna=False, sort=False)):
        if trimmed[c]:
            rows = g.index[-trimmed[c] :]
            for q in qi:
                f0 = frame[q].map(frame[q].value_counts())[rows]
                fg = gen[q].map(gen[q].value_counts())[rows]
                total += float((-np.log2(f0 / n) + np.log2(f0 / fg)).sum())
    return total


def _entropy_loss(frame, gen, maps, qi, levels, heights, passes, sizes) -> float:
    """Non-uniform entropy: sum over records and QIs of -log2(f(orig) / f(generalized)); suppressed
    records (in failing classes) count at the top level."""
    keys = gen[qi].astype(str).agg("\x1f".join, axis=1)
    fail_keys = set()
    for (key, _), ok in zip(gen.groupby(qi, dropna=False, sort=False), passes):
        if not ok:
            fail_keys.add("\x1f".join(str(x) for x in (key if isinstance(key, tuple) else (key,))))
    suppressed = keys.isin(fail_keys).to_numpy()
    total = 0.0
    for q, lv, h in zip(qi, levels, heights):
        f0 = frame[q].map(frame[q].value_counts())
        for level, mask in ((lv, ~suppressed), (h, suppressed)):
            g = frame[q].map(maps[q][level])
            fg = g.map(g.value_counts())
            total += float((-np.log2(f0 / fg))[mask].sum())
    return total


# --- the release writer as it was before it worked on codes and labels (byte-identity oracle) ---------
_LEGACY_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_LEGACY_NEGATIVE = r"^-(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$"


def legacy_neutralize(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """kanon's formula neutralization before release writing worked on labels (pandas string ops)."""
    import re

    out = frame.copy()
    changed = 0
    for c in out.columns:
        col = out[c]
        if not (pd.api.types.is_object_dtype(col) or pd.api.types.is_string_dtype(col)):
            continue
        text = col.astype(object)
        present = text.notna()
        s = text.where(present, "").astype(str)
        risky = s.str[:1].isin(_LEGACY_FORMULA_STARTS) & ~s.str.fullmatch(_LEGACY_NEGATIVE).fillna(
            False
        ).astype(bool)
        risky &= present
        n = int(risky.sum())
        if n:
            text = text.copy()
            text[risky] = "'" + s[risky]
            out[c] = text
            changed += n
    neg = re.compile(_LEGACY_NEGATIVE)
    out.columns = [
        ("'" + c) if isinstance(c, str) and c and c[0] in _LEGACY_FORMULA_STARTS and not neg.match(c) else c
        for c in out.columns
    ]
    return out, changed


def legacy_csv_bytes(
    frame: pd.DataFrame, delimiter: str = ",", bom: bool = False, end: str = "\r\n"
) -> bytes:
    """kanon's CSV writer before release writing worked on labels (pandas string ops per column), with
    the line end of RFC 4180 and Excel (``\\r\\n``, issue 27; it was ``\\n`` before)."""
    import re

    special = "[" + "".join(re.escape(c) for c in (delimiter, '"', "\n", "\r")) + "]"

    def quoted(values: pd.Series) -> pd.Series:
        text = values.astype(object).where(values.notna(), "").astype(str)
        need = text.str.contains(special, regex=True)
        return text.where(~need, '"' + text.str.replace('"', '""', regex=False) + '"')

    header = delimiter.join(quoted(pd.Series([str(c) for c in frame.columns], dtype=object)).tolist())
    if len(frame.columns) and len(frame):
        cols = [quoted(frame[c]).reset_index(drop=True) for c in frame.columns]
        lines = cols[0].str.cat(cols[1:], sep=delimiter) if len(cols) > 1 else cols[0]
        body = end.join(lines.tolist()) + end
    else:
        body = end * len(frame) if len(frame.columns) else ""
    return ("\ufeff" if bom else "").encode("utf-8") + (header + end + body).encode("utf-8")


# --- cell-level releases (local recoding, local suppression, cell suppression) -------------------------
def cell_release_check(
    release: pd.DataFrame,
    original: pd.DataFrame,
    qi: list[str],
    rows_by_qi: dict[str, list[list[str]]] | None,
    models: list[dict],
) -> tuple[bool, str]:
    """Check a release that keeps every record and recodes single cells, as an outsider would:

    - every record is kept, in input order, with its other columns untouched;
    - every QI cell is truthful: the original value, ``*``, or (with hierarchies) one of the original's
      labels in its hierarchy row;
    - every class (records with identical released strings, ``*`` a value of its own) passes every model.
    """
    if len(release) != len(original):
        return False, f"{len(release)} released rows for {len(original)} records"
    others = [c for c in release.columns if c not in qi and c in original.columns]
    for c in others:
        a = release[c].astype(object).reset_index(drop=True)
        b = original[c].astype(object).reset_index(drop=True)
        if not ((a == b) | (a.isna() & b.isna())).all():
            return False, f"column {c} changed"
    for q in qi:
        allowed = {}
        if rows_by_qi is not None:
            allowed = {r[0]: set(r) for r in rows_by_qi[q]}
        for orig, rel in zip(original[q].astype(object), release[q].astype(object)):
            if rel == orig or rel == "*":
                continue
            if str(rel) not in allowed.get(str(orig), set()):
                return False, f"{q}: {rel!r} is not a generalization of {orig!r}"
    for key, group in release.groupby(qi, dropna=False, sort=False):
        if not group_passes(group, models, original):
            return False, f"class {key} of size {len(group)} fails"
    return True, "ok"


def min_suppressed_cells(frame: pd.DataFrame, qi: list[str], k: int, upper: int | None = None) -> int | None:
    """The fewest ``*`` cells that make ``frame`` k-anonymous in the strict reading, by exhaustive search
    (branch and bound over how many records of each distinct row take each suppression pattern);
    None when impossible (fewer than k records). ``upper``: the size of a known solution (checked
    independently), which only speeds the search up: solutions as good are still searched."""
    if len(frame) < k:
        return None
    d = len(qi)
    patterns = sorted(itertools.product([0, 1], repeat=d), key=sum)
    rows = list(frame[qi].astype(str).itertuples(index=False, name=None))
    distinct = sorted(set(rows))
    counts = [rows.count(r) for r in distinct]
    best = [min(d * len(rows), upper if upper is not None else d * len(rows)) + 1]

    def released(row, pat):
        return tuple("*" if p else v for v, p in zip(row, pat))

    def compositions(c, parts):
        if parts == 1:
            yield (c,)
            return
        for first in range(c, -1, -1):
            for rest in compositions(c - first, parts - 1):
                yield (first, *rest)

    # the last distinct row that can still add records to a released tuple: past it, the tuple's class
    # is final and must hold k records (prunes most of the tree)
    last = {released(r, pat): i for i, r in enumerate(distinct) for pat in patterns}

    def search(i, classes, stars):
        if stars >= best[0]:
            return
        if i == len(distinct):
            best[0] = stars
            return
        for split in compositions(counts[i], len(patterns)):
            added = dict(classes)
            cost = stars
            for pat, m in zip(patterns, split):
                if m:
                    key = released(distinct[i], pat)
                    added[key] = added.get(key, 0) + m
                    cost += m * sum(pat)
            if any(v < k and last[key] <= i for key, v in added.items()):
                continue
            search(i + 1, added, cost)

    search(0, {}, 0)
    return best[0] if best[0] <= d * len(rows) else None
