"""The de-identification report: what was released, how it was made, and what risk remains.

A privacy officer shows it to an ethics board, so it says everything needed to check the release
without kanon: the input file and its SHA-256, roles, hierarchies, privacy models, algorithm and
parameters, suppression, the transformation (or partitioning), quality metrics, a class-size chart, risk
before and after (:mod:`kanon_engine.metrics.risk`), homogeneity findings, optionally a linkage attack
demonstration (:mod:`kanon_engine.linkage`), the released file's SHA-256, the software version and the
date, and a plain-language summary for readers who are not specialists.

:func:`build_report` makes a JSON-able dict; :func:`render_html` turns it into one self-contained HTML
file (inline CSS, the chart as inline SVG drawn here in pure Python: no network, no scripts, no external
files); :func:`write_pdf` turns that HTML into PDF with Qt in a separate process (the engine never
imports Qt), through ``python -m kanon_gui.report_pdf`` or, in a frozen bundle, the app's
``--render-pdf`` switch.
"""

from __future__ import annotations

import html
import math
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import kanon_engine
from kanon_engine.errors import DataError, KanonError
from kanon_engine.fileio import atomic_path, atomic_write_text, refuse_input_overwrite, temp_file_beside
from kanon_engine.hierarchy.model import ROOT
from kanon_engine.metrics.risk import DEFAULT_THRESHOLD, RiskComparison, compare, definitions
from kanon_engine.pdf_check import verify_pdf

#: Seconds allowed to the PDF renderer process.
PDF_TIMEOUT = 180

_METRIC_LABELS = {
    "discernibility": "Discernibility (DM): sum of squared group sizes, plus n per suppressed record",
    "discernibility_star": "Discernibility without the suppression penalty (DM*)",
    "cavg": "Normalized average group size (C_AVG; 1 is ideal)",
    "precision": "Precision loss (share of hierarchy height used; 0 keeps the original values)",
    "height": "Generalization height (steps in the lattice)",
    "entropy": "Non-uniform entropy loss (bits)",
}


# --- building the report data ---------------------------------------------------------------------------
def _file_sha256(path: Path | None) -> str | None:
    from kanon_engine.export import sha256_file

    if path is None or not Path(path).is_file():
        return None
    return sha256_file(path)


def _example_label(values: pd.Series) -> str | None:
    """The most frequent released label that is not ``*`` (to describe a generalization)."""
    v = values[values.astype(object) != ROOT].dropna()
    if not len(v):
        return None
    return str(v.value_counts().index[0])


def _qi_treatment(table: Any, result: Any) -> dict[str, dict[str, Any]]:
    """Per QI: "exact", "generalized" (with an example label) or "removed", over released records."""
    from kanon_engine.export import release_in_input_order

    cfg = result.config
    kept = result.row_class >= 0
    out: dict[str, dict[str, Any]] = {}
    try:
        full = release_in_input_order(table, result)
    except KanonError:
        full = None
    for q in cfg.quasi_identifiers:
        if full is not None:
            rel = full[q].astype(object)[kept]
            orig = table.frame[q].astype(object).reset_index(drop=True)[kept]
            same = bool(((rel == orig) | (rel.isna() & orig.isna())).all())
        else:
            rel = result.release[q].astype(object)
            same = (result.transformation or {}).get(q, 1) == 0
        if same:
            out[q] = {"treatment": "exact", "example": None, "share": 0.0}
        elif len(rel) and bool((rel == ROOT).all()):
            out[q] = {"treatment": "removed", "example": ROOT, "share": 1.0}
        else:
            changed = (rel != orig).to_numpy() if full is not None else np.ones(len(rel), dtype=bool)
            out[q] = {
                "treatment": "generalized",
                "example": _example_label(rel[changed]),
                "share": float(changed.mean()) if len(changed) else 0.0,
            }
    return out


def _hierarchy_summary(config: Any, project: Any | None) -> list[dict[str, Any]]:
    out = []
    files = dict(getattr(project, "hierarchy_files", {}) or {})
    explicit = set(getattr(project, "hierarchies", {}) or {})
    for q in config.quasi_identifiers:
        h = config.hierarchies[q]
        if q in files:
            source = f"file {Path(files[q]).name}"
        elif q in explicit:
            source = "defined in the project"
        elif project is not None:
            source = "built automatically from the data"
        else:
            source = "given to the run"
        levels = []
        for j in range(1, h.depth):
            labels = h.level_codes[j][1]
            levels.append({"level": j, "groups": len(labels), "examples": [str(x) for x in labels[:3]]})
        out.append(
            {"attribute": q, "source": source, "values": len(h.values), "height": h.height, "levels": levels}
        )
    return out


def _size_bands(k: int) -> list[tuple[int, int | None]]:
    """Class-size bands ``[low, high]`` for the chart, with one edge at ``k``."""
    edges = sorted({1, 2, 3, 5, 10, 20, 50, 100, 1000, max(int(k), 2)})
    return [(lo, hi - 1) for lo, hi in zip(edges[:-1], edges[1:])] + [(edges[-1], None)]


def class_size_bands(before: np.ndarray, after: np.ndarray, k: int) -> list[dict[str, Any]]:
    """Records per class-size band, before and after (the data of the class-size chart)."""
    out = []
    for lo, hi in _size_bands(k):
        top = np.inf if hi is None else hi
        label = f"{lo}" if hi == lo else (f"{lo}+" if hi is None else f"{lo}–{hi}")
        b = int(before[(before >= lo) & (before <= top)].sum())
        a = int(after[(after >= lo) & (after <= top)].sum())
        out.append({"label": label, "low": lo, "high": hi, "before": b, "after": a})
    return out


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _one_in(p: float) -> str:
    if p <= 0:
        return "none"
    n = 1 / p
    return f"1 in {n:,.0f}" if abs(n - round(n)) < 0.05 or n >= 10 else f"1 in {n:,.1f}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %" if x >= 0.001 or x == 0 else f"{100 * x:.2f} %"


def plain_summary(report: Mapping[str, Any]) -> list[str]:
    """Sentences a non-specialist can read (no jargon), from a report dict."""
    res = report["result"]
    risk_a, risk_b = report["risk"]["after"], report["risk"]["before"]
    treat = res["quasi_identifiers"]
    out = []
    shown = []
    removed = []
    for q, t in treat.items():
        if t["treatment"] == "exact":
            shown.append(q)
        elif t["treatment"] == "removed":
            removed.append(q)
        else:
            ex = t.get("example")
            if not ex:
                shown.append(f"{q} (generalized)")
            elif t.get("share", 1.0) < 1.0:
                shown.append(f"{q} (partly generalized, as in “{ex}”)")
            else:
                shown.append(f"{q} (as groups such as “{ex}”)")
    m = int(risk_a["smallest_class"])
    if risk_a["records"] and shown:
        out.append(
            f"Every person in the released file shares their {_join(shown)} with at least {m - 1} "
            f"other {'person' if m == 2 else 'people'} in the file, so nobody can be singled out by "
            "these values alone."
        )
    elif risk_a["records"]:
        out.append("No quasi-identifying value is left in the released file.")
    if removed:
        verb = "was" if len(removed) == 1 else "were"
        out.append(f"{_join(removed)} {verb} removed entirely (shown as *).")
    sup = int(res["suppressed"])
    if sup:
        share = _pct(sup / max(res["records"], 1))
        if report["configuration"]["suppression"]["dropped"]:
            out.append(f"{sup} records ({share}) too unusual to hide were left out of the file.")
        else:
            out.append(f"{sup} records ({share}) too unusual to hide kept none of these values (shown as *).")
    ids = report["configuration"]["identifiers"]
    if ids:
        how = (
            "replaced by keyed pseudonyms"
            if report.get("release", {}) and report["release"].get("pseudonymized")
            else "removed"
        )
        out.append(
            f"The directly identifying column{'s' if len(ids) > 1 else ''} {_join(ids)} "
            f"{'were' if len(ids) > 1 else 'was'} {how}."
        )
    if risk_a["records"]:
        out.append(
            f"Someone who knows a person is in the file and knows these values can guess which record "
            f"is theirs with a chance of at most {_one_in(risk_a['prosecutor_highest'])} "
            f"({_pct(risk_a['prosecutor_highest'])}); {_pct(risk_a['prosecutor_average'])} on "
            "average."
        )
    if risk_b["records"]:
        out.append(
            f"Before anonymization, {risk_b['sample_uniques']} records "
            f"({_pct(risk_b['share_sample_uniques'])}) were unique on these values, and the chance "
            f"was up to {_one_in(risk_b['prosecutor_highest'])}."
        )
    for h in risk_a.get("homogeneity", []):
        attr = h["attribute"]
        if h["homogeneous_classes"]:
            out.append(
                f"In {h['homogeneous_classes']} group(s) ({h['homogeneous_records']} records) "
                f"everyone has the same {attr}: whoever can place a person in such a group learns "
                f"their {attr} without knowing which record is theirs."
            )
        elif h["distinct_l"] is not None:
            out.append(
                f"Every group holds at least {int(h['distinct_l'])} different values of {attr}, so "
                f"placing a person in a group does not reveal their {attr}."
            )
    link = report.get("linkage")
    if link:
        out.append(link["summary"])
    return [x[:1].upper() + x[1:] for x in out]


def build_report(
    table: Any,
    result: Any,
    project: Any | None = None,
    *,
    risk: RiskComparison | None = None,
    release_path: str | Path | None = None,
    release: Mapping[str, Any] | None = None,
    linkage: Any | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    generated: datetime | None = None,
) -> dict[str, Any]:
    """The report as a JSON-able dict (also the data of the HTML/PDF).

    ``release`` is an :meth:`ExportSummary.to_dict() <kanon_engine.export.ExportSummary.to_dict>`; with
    only ``release_path`` the file's SHA-256 is computed here. Hashes are of the actual files.
    """
    cfg = result.config
    risk = risk or compare(table, result, threshold=threshold)
    generated = generated or datetime.now().astimezone()
    source = Path(table.source) if getattr(table, "source", None) else None
    data_sha = _file_sha256(source) or getattr(table, "sha256", None)
    roles = {c: cfg.role_of(c).value for c in table.columns}
    from kanon_engine.algorithms import algorithms

    algo_cls = algorithms().get(result.algorithm)
    params = dict(result.parameters)
    if release is None and release_path is not None:
        path = Path(release_path)
        release = {
            "file": path.name,
            "path": str(path),
            "sha256": _file_sha256(path),
            "rows": int(len(result.release)),
            "format": path.suffix.lstrip(".").lower(),
        }
    partitions = None
    if result.partitions is not None:
        sizes = np.asarray(result.partitions.sizes)
        partitions = {
            "boxes": int(len(sizes)),
            "smallest": int(sizes.min()) if len(sizes) else 0,
            "largest": int(sizes.max()) if len(sizes) else 0,
            "median": float(np.median(sizes)) if len(sizes) else 0.0,
        }
    treatment = _qi_treatment(table, result)
    report: dict[str, Any] = {
        "title": "De-identification report",
        "software": {"name": "kanon", "version": kanon_engine.__version__},
        "generated": generated.isoformat(timespec="seconds"),
        "dataset": {
            "file": source.name if source else None,
            "path": str(source) if source else None,
            "sha256": data_sha,
            "rows": int(table.n_rows),
            "columns": len(table.columns),
            "roles": roles,
        },
        "configuration": {
            "quasi_identifiers": list(cfg.quasi_identifiers),
            "sensitive": list(cfg.sensitive),
            "identifiers": list(cfg.identifiers),
            "insensitive": [c for c, r in roles.items() if r == "insensitive"],
            "hierarchies": _hierarchy_summary(cfg, project),
            "models": [{**m.to_dict(), "description": m.describe()} for m in cfg.models],
            "algorithm": {
                "name": result.algorithm,
                "title": getattr(algo_cls, "title", result.algorithm),
                "parameters": params,
            },
            "suppression": {
                "limit": params.get("suppression_limit"),
                "suppressed": result.suppressed,
                "dropped": bool(cfg.drop_suppressed),
            },
            "shuffled": cfg.shuffle_seed is not None,
        },
        "result": {
            "records": result.records,
            "suppressed": result.suppressed,
            "classes": risk.after.figures.classes,
            "smallest_class": risk.after.figures.smallest_class,
            "released_records": int(len(result.release)),
            "transformation": result.transformation,
            "partitions": partitions,
            "metrics": {k: _num(v) for k, v in result.metrics.items()},
            "runtime_seconds": round(float(result.runtime_seconds), 3),
            "nodes_checked": result.nodes_checked,
            "quasi_identifiers": treatment,
            "notes": list(result.notes),
            "class_size_bands": class_size_bands(risk.before.class_sizes, risk.after.class_sizes, cfg.k),
        },
        "risk": {
            "before": risk.before.to_dict(),
            "after": risk.after.to_dict(),
            "definitions": definitions(),
        },
        "linkage": linkage.to_dict() if linkage is not None else None,
        "release": dict(release) if release is not None else None,
    }
    report["summary"] = plain_summary(report)
    return report


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


# --- SVG chart ------------------------------------------------------------------------------------------
def class_size_svg(bands: Sequence[Mapping[str, Any]], k: int, width: int = 640, height: int = 260) -> str:
    """Grouped bar chart (records per class-size band, before vs after) as an SVG string.

    Plain SVG 1.1 / Tiny elements only (rect, line, text), so Qt's SVG renderer draws it for the PDF.
    """
    left, right, top, bottom = 64, 16, 34, 48
    pw, ph = width - left - right, height - top - bottom
    peak = max([1] + [max(int(b["before"]), int(b["after"])) for b in bands])
    step = _nice_step(peak / 4)
    ticks = math.ceil(peak / step)
    scale_top = step * ticks
    n = max(len(bands), 1)
    slot = pw / n
    bar = slot * 0.36
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="11">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for i in range(ticks + 1):
        value = step * i
        y = top + ph - ph * i / ticks
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#e2e8f0" '
            'stroke-width="1"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#4a5568">{value:,.0f}</text>'
        )
    for i, b in enumerate(bands):
        x0 = left + slot * i + slot * 0.14
        for j, (key, colour) in enumerate((("before", "#a0aec0"), ("after", "#2b6cb0"))):
            v = int(b[key])
            h = ph * v / scale_top
            x = x0 + j * bar
            parts.append(
                f'<rect x="{x:.1f}" y="{top + ph - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                f'fill="{colour}"/>'
            )
        low_band = b["high"] is not None and b["high"] < k
        parts.append(
            f'<text x="{left + slot * (i + 0.5):.1f}" y="{top + ph + 16}" text-anchor="middle" '
            f'fill="{"#c53030" if low_band else "#2d3748"}">{html.escape(str(b["label"]))}</text>'
        )
    parts.append(
        f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#4a5568" '
        'stroke-width="1"/>'
    )
    parts.append(
        f'<text x="{left + pw / 2:.1f}" y="{height - 8}" text-anchor="middle" fill="#2d3748">'
        f"group size (records sharing their quasi-identifier values); red: below k = {k}</text>"
    )
    parts.append(
        f'<text x="14" y="{top + ph / 2:.1f}" text-anchor="middle" fill="#2d3748" '
        f'transform="rotate(-90 14 {top + ph / 2:.1f})">records</text>'
    )
    lx = left + pw - 190
    parts.append(
        f'<rect x="{lx}" y="10" width="12" height="12" fill="#a0aec0"/>'
        f'<text x="{lx + 17}" y="20" fill="#2d3748">original data</text>'
        f'<rect x="{lx + 105}" y="10" width="12" height="12" fill="#2b6cb0"/>'
        f'<text x="{lx + 122}" y="20" fill="#2d3748">release</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _nice_step(raw: float) -> float:
    """The smallest whole 1/2/5 x 10^n step at or above ``raw`` (round axis ticks)."""
    if raw <= 1:
        return 1.0
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return float(m * mag)
    return float(10 * mag)


# --- HTML -------------------------------------------------------------------------------------------
_CSS = """
body { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 10pt; color: #1a202c; margin: 24px;
       max-width: 60em; }
h1 { font-size: 18pt; color: #1a365d; margin-bottom: 2px; }
h2 { font-size: 13pt; color: #1a365d; margin-top: 20px; border-bottom: 1px solid #cbd5e0; }
h3 { font-size: 11pt; color: #2d3748; margin-top: 12px; }
p.meta { color: #4a5568; margin-top: 0; }
table { border-collapse: collapse; margin: 6px 0 10px 0; }
th, td { border: 1px solid #cbd5e0; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background-color: #edf2f7; font-weight: bold; }
td.num { text-align: right; }
.hash { font-family: 'DejaVu Sans Mono', monospace; font-size: 8.5pt; }
.summary { background-color: #ebf8ff; border: 1px solid #90cdf4; padding: 8px 12px; }
.warn { color: #c53030; }
.small { color: #4a5568; font-size: 8.5pt; }
"""


def _e(v: Any) -> str:
    return html.escape("" if v is None else str(v))


def _table(
    rows: Sequence[Sequence[Any]], header: Sequence[str] | None = None, num_cols: Sequence[int] = ()
) -> str:
    out = ['<table border="1" cellspacing="0" cellpadding="4">']
    if header:
        out.append("<tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>")
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            cls = ' class="num" align="right"' if i in num_cols else ""
            cells.append(f"<td{cls}>{c if isinstance(c, _Raw) else _e(c)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


class _Raw(str):
    """HTML that must not be escaped again."""


def _hash(value: str | None) -> _Raw:
    return _Raw(f'<span class="hash">{_e(value or "–")}</span>')


def _fmt(v: Any, digits: int = 4) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if v.is_integer() and abs(v) < 1e15:
            return f"{int(v):,}"
        return f"{v:,.{digits}g}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def _risk_rows(b: Mapping[str, Any], a: Mapping[str, Any]) -> list[list[Any]]:
    def pr(x: float) -> str:
        return f"{_pct(x)} ({_one_in(x)})"

    t = a["threshold"]
    return [
        ["Records assessed", _fmt(b["records"]), _fmt(a["records"])],
        ["Suppressed records", _fmt(b["suppressed"]), _fmt(a["suppressed"])],
        ["Groups (equivalence classes)", _fmt(b["classes"]), _fmt(a["classes"])],
        ["Smallest group", _fmt(b["smallest_class"]), _fmt(a["smallest_class"])],
        ["Prosecutor risk, highest", pr(b["prosecutor_highest"]), pr(a["prosecutor_highest"])],
        ["Prosecutor risk, average", _pct(b["prosecutor_average"]), _pct(a["prosecutor_average"])],
        [
            f"Records at risk (above {_pct(t)})",
            f"{_fmt(b['records_above_threshold'])} ({_pct(b['share_above_threshold'])})",
            f"{_fmt(a['records_above_threshold'])} ({_pct(a['share_above_threshold'])})",
        ],
        ["Journalist risk, highest", pr(b["journalist_highest"]), pr(a["journalist_highest"])],
        ["Marketer risk", _pct(b["marketer"]), _pct(a["marketer"])],
        [
            "Sample uniques",
            f"{_fmt(b['sample_uniques'])} ({_pct(b['share_sample_uniques'])})",
            f"{_fmt(a['sample_uniques'])} ({_pct(a['share_sample_uniques'])})",
        ],
    ]


def render_html(report: Mapping[str, Any]) -> str:
    """One self-contained HTML document (inline CSS and SVG; nothing fetched) from a report dict."""
    d, c, r = report["dataset"], report["configuration"], report["result"]
    rb, ra = report["risk"]["before"], report["risk"]["after"]
    sw = report["software"]
    k = max((m.get("k", 0) for m in c["models"] if m.get("name") == "k-anonymity"), default=2)
    h: list[str] = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(report['title'])} – {_e(d['file'] or 'table')}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{_e(report['title'])}</h1>",
        f'<p class="meta">{_e(d["file"] or "table")} · made with {_e(sw["name"])} '
        f"{_e(sw['version'])} on {_e(_when(report['generated']))}</p>",
    ]

    h.append("<h2>In plain words</h2>")
    h.append('<table class="summary" width="100%" cellpadding="8" border="0"><tr><td><ul>')
    h.extend(f"<li>{_e(s)}</li>" for s in report["summary"])
    h.append("</ul></td></tr></table>")

    h.append("<h2>Dataset</h2>")
    h.append(
        _table(
            [
                ["File", d["file"] or "(not from a file)"],
                ["SHA-256 of the input file", _hash(d["sha256"])],
                ["Records", _fmt(d["rows"])],
                ["Columns", _fmt(d["columns"])],
            ]
        )
    )
    role_names = {
        "identifier": "identifier (removed)",
        "quasi-identifier": "quasi-identifier",
        "sensitive": "sensitive (kept, protected)",
        "insensitive": "insensitive (kept as is)",
    }
    h.append(
        _table([[col, role_names.get(role, role)] for col, role in d["roles"].items()], ["Column", "Role"])
    )

    h.append("<h2>Configuration</h2>")
    h.append("<h3>Privacy models</h3><ul>")
    h.extend(f"<li>{_e(m['description'])}</li>" for m in c["models"])
    h.append("</ul>")
    algo = c["algorithm"]
    h.append("<h3>Algorithm</h3>")
    h.append(f"<p>{_e(algo['title'])} (<code>{_e(algo['name'])}</code>).</p>")
    prow = [
        [name.replace("_", " "), "not set" if v is None else _fmt(v)]
        for name, v in algo["parameters"].items()
    ]
    sup = c["suppression"]
    prow.append(
        ["suppressed records", "dropped from the file" if sup["dropped"] else "kept, values shown as *"]
    )
    prow.append(["row order", "shuffled" if c["shuffled"] else "as in the input"])
    h.append(_table(prow, ["Parameter", "Value"]))
    h.append("<h3>Generalization hierarchies</h3>")
    hrows = []
    for hs in c["hierarchies"]:
        lv = "<br>".join(
            f"{x['level']}: "
            + (
                _e(x["examples"][0])
                if x["groups"] == 1
                else f"{x['groups']} groups ({_e(', '.join(x['examples']))}"
                + (", …)" if x["groups"] > len(x["examples"]) else ")")
            )
            for x in hs["levels"]
        )
        hrows.append([hs["attribute"], hs["source"], _fmt(hs["values"]), _fmt(hs["height"]), _Raw(lv)])
    h.append(
        _table(hrows, ["Quasi-identifier", "Source", "Values", "Height", "Levels above the values"], (2, 3))
    )

    h.append("<h2>Result</h2>")
    h.append(
        _table(
            [
                ["Records", _fmt(r["records"])],
                ["Suppressed", _fmt(r["suppressed"])],
                ["Records in the release file", _fmt(r["released_records"])],
                ["Groups", _fmt(r["classes"])],
                ["Smallest group", _fmt(r["smallest_class"])],
                ["Run time", f"{r['runtime_seconds']:.3f} s"],
            ]
        )
    )
    if r["transformation"]:
        trows = []
        heights = {x["attribute"]: x["height"] for x in c["hierarchies"]}
        for q, lv in r["transformation"].items():
            ex = r["quasi_identifiers"].get(q, {}).get("example")
            trows.append([q, f"{lv} of {heights.get(q, '?')}", ex if ex and lv else "original values"])
        h.append("<h3>Transformation (full-domain generalization)</h3>")
        h.append(_table(trows, ["Quasi-identifier", "Level", "Example released value"]))
    if r["partitions"]:
        p = r["partitions"]
        h.append("<h3>Partitioning</h3>")
        h.append(
            f"<p>The records were split into {_fmt(p['boxes'])} groups of {_fmt(p['smallest'])} to "
            f"{_fmt(p['largest'])} records (median {_fmt(p['median'])}); each group shows the range or "
            "category that covers its members.</p>"
        )
    h.append("<h3>Quality metrics</h3>")
    mrows = []
    for key, v in r["metrics"].items():
        label = _METRIC_LABELS.get(key) or (
            f"Generalization intensity of {key.split(':', 1)[1]}" if key.startswith("intensity:") else key
        )
        mrows.append([label, _fmt(v)])
    h.append(_table(mrows, ["Metric", "Value"], (1,)))
    h.append("<h3>Group sizes</h3>")
    h.append(
        "<p>How many records are in groups of each size, in the original data (grey) and in the release "
        "(blue). Groups smaller than k are labelled in red.</p>"
    )
    h.append(f'<div class="chart">{class_size_svg(r["class_size_bands"], k)}</div>')
    if r["notes"]:
        h.append("<ul>" + "".join(f"<li>{_e(n)}</li>" for n in r["notes"]) + "</ul>")

    h.append("<h2>Re-identification risk</h2>")
    h.append(
        f"<p>Population used for journalist and marketer risk: {_e(ra['population'])}"
        + (
            " (no population table was given, so these equal the prosecutor figures)."
            if ra["population"] == "the table itself"
            else "."
        )
        + "</p>"
    )
    h.append(_table(_risk_rows(rb, ra), ["Measure", "Original data", "Release"], (1, 2)))

    h.append("<h2>Sensitive attributes (homogeneity)</h2>")
    if not ra["homogeneity"]:
        h.append("<p>No column is marked sensitive, so attribute disclosure was not assessed.</p>")
    for hb, ha in zip(rb["homogeneity"], ra["homogeneity"]):
        h.append(f"<h3>{_e(ha['attribute'])}</h3>")
        rows = [
            [
                "Groups with a single value (homogeneous)",
                _fmt(hb["homogeneous_classes"]),
                _fmt(ha["homogeneous_classes"]),
            ],
            [
                "Records in homogeneous groups",
                _fmt(hb["homogeneous_records"]),
                _fmt(ha["homogeneous_records"]),
            ],
            [
                "Distinct l reached (fewest different values in a group)",
                _fmt(hb["distinct_l"]),
                _fmt(ha["distinct_l"]),
            ],
            ["Entropy l reached", _fmt(hb["entropy_l"], 3), _fmt(ha["entropy_l"], 3)],
            ["t reached, equal distance", _fmt(hb["t_equal"], 3), _fmt(ha["t_equal"], 3)],
        ]
        if ha["t_ordered"] is not None:
            rows.append(["t reached, ordered distance", _fmt(hb["t_ordered"], 3), _fmt(ha["t_ordered"], 3)])
        h.append(_table(rows, ["Measure", "Original data", "Release"], (1, 2)))
        if ha["examples"]:
            h.append(
                f'<p class="warn">Largest homogeneous groups of the release (everyone in the group has '
                f"this {_e(ha['attribute'])}):</p>"
            )
            qis = list(ha["examples"][0]["quasi_identifiers"])
            rows = [
                [*(ex["quasi_identifiers"][q] for q in qis), _fmt(ex["size"]), ex["value"]]
                for ex in ha["examples"][:10]
            ]
            h.append(_table(rows, [*qis, "Records", ha["attribute"]], (len(qis),)))

    link = report.get("linkage")
    if link:
        h.append("<h2>Linkage attack demonstration</h2>")
        h.append(
            f"<p>{_e(link['summary'])} A person is singled out when exactly one record matches them on "
            f"{_e(', '.join(link['columns']))}.</p>"
        )
        people = _fmt(link["external_records"])
        rows = [["People on the outside list", people, people]]
        b, a = link["before"], link["after"] or {}
        for key, label in (
            ("people_singled_out", "Singled out (exactly one matching record)"),
            ("people_matched", "Matching at least one record"),
            ("people_unmatched", "Matching no record"),
        ):
            rows.append([label, _fmt(b[key]), _fmt(a.get(key))])
        h.append(_table(rows, ["", "Original data", "Release"], (1, 2)))

    h.append("<h2>Released file</h2>")
    rel = report.get("release")
    if rel:
        h.append(
            _table(
                [
                    ["File", rel.get("file")],
                    ["Format", rel.get("format")],
                    ["Rows", _fmt(rel.get("rows"))],
                    ["SHA-256", _hash(rel.get("sha256"))],
                ]
            )
        )
    else:
        h.append("<p>The release has not been written to a file yet.</p>")

    h.append("<h2>Definitions</h2>")
    for text in report["risk"]["definitions"].values():
        term, _, rest = text.partition(": ")
        h.append(f"<p><b>{_e(term)}</b>: {_e(rest)}</p>" if rest else f"<p>{_e(text)}</p>")
    h.append(
        f'<p class="small">Report made by {_e(sw["name"])} {_e(sw["version"])} on '
        f"{_e(_when(report['generated']))}. It describes the release identified by the SHA-256 "
        "above; any change to that file changes its hash.</p>"
    )
    h.append("</body></html>\n")
    return "\n".join(h)


def _when(iso: str) -> str:
    """``2024-05-01 14:03 (UTC+02:00)`` from an ISO timestamp."""
    try:
        t = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    zone = t.strftime("%z")
    zone = f" (UTC{zone[:3]}:{zone[3:]})" if zone else ""
    return t.strftime("%Y-%m-%d %H:%M") + zone


def write_html(report: Mapping[str, Any], path: str | Path) -> Path:
    """Write the HTML report atomically (UTF-8)."""
    path = Path(path)
    atomic_write_text(path, render_html(report))
    return path


# --- PDF ------------------------------------------------------------------------------------------------
def pdf_command(html_path: Path, pdf_path: Path, name: str | None = None) -> list[str]:
    """The command that renders ``html_path`` to ``pdf_path`` (``name``: the report's file name for
    messages): the frozen app's ``--render-pdf`` switch, or ``python -m kanon_gui.report_pdf``."""
    tail = [str(html_path), str(pdf_path), *([name] if name else [])]
    if getattr(sys, "frozen", False):
        return [sys.executable, "--render-pdf", *tail]
    return [sys.executable, "-m", "kanon_gui.report_pdf", *tail]


def write_pdf(html_path: str | Path, pdf_path: str | Path, timeout: float = PDF_TIMEOUT) -> Path:
    """Render an HTML report to PDF with Qt in a child process (offscreen; no network, no browser).

    The child writes into a temporary file beside ``pdf_path``; the file is checked (a whole PDF with
    its pages, :func:`kanon_engine.pdf_check.verify_pdf`) before it replaces ``pdf_path``, so a full disk
    or a crash never leaves a cut-short report nor removes the previous one. A failure (Qt missing,
    display libraries missing, disk full) becomes a plain DataError.
    """
    html_path, pdf_path = Path(html_path), Path(pdf_path)
    with atomic_path(pdf_path) as tmp:
        _render_pdf(html_path, tmp, pdf_path.name, timeout)
        verify_pdf(tmp, pdf_path.name)
    return pdf_path


def _render_pdf(html_path: Path, out: Path, name: str, timeout: float) -> None:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    root = str(Path(kanon_engine.__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        proc = subprocess.run(
            pdf_command(html_path.resolve(), out.resolve(), name),
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise DataError(
            f"Making the PDF report {name} took longer than {timeout:.0f} s and was stopped.",
            hint="Write the HTML report instead and print it to PDF.",
            where=name,
        ) from None
    except OSError as exc:
        raise DataError(
            f"The PDF report {name} could not be made: {exc.strerror or exc}.", where=name
        ) from None
    if proc.returncode != 0 or not out.is_file():
        lines = [ln for ln in (proc.stderr or "").strip().splitlines() if ln.strip()]
        if lines:
            reason = lines[-1].removeprefix("error: ")
        else:
            reason = f"the renderer stopped (code {proc.returncode})"
        if reason.startswith(f"The PDF report {name} "):  # the renderer's own sentence says it all
            raise DataError(reason, where=name)
        raise DataError(
            f"The PDF report {name} could not be made: {reason}",
            hint="Write the HTML report instead and print it to PDF.",
            where=name,
        )


def write_reports(
    table: Any,
    result: Any,
    project: Any | None,
    html_path: str | Path | None,
    pdf_path: str | Path | None,
    release_path: str | Path | None = None,
    *,
    release: Mapping[str, Any] | None = None,
    linkage: Any | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    project_path: str | Path | None = None,
) -> dict[str, Any]:
    """Build the report and write it as HTML and/or PDF (the CLI's ``--report-html/--report-pdf``).

    Inputs (data, project, release) are never overwritten. With only a PDF wanted, the HTML goes to a
    temporary file next to it, removed afterwards. Returns the report dict.
    """
    inputs = [getattr(table, "source", None), project_path, release_path, getattr(project, "data_path", None)]
    for p in (html_path, pdf_path):
        if p is not None:
            refuse_input_overwrite(Path(p), inputs)
    report = build_report(
        table,
        result,
        project,
        release_path=release_path,
        release=release,
        linkage=linkage,
        threshold=threshold,
    )
    if html_path is not None:
        write_html(report, html_path)
    if pdf_path is not None:
        pdf_path = Path(pdf_path)
        if html_path is not None:
            write_pdf(html_path, pdf_path)
        else:
            html = render_html(report).encode("utf-8")
            with temp_file_beside(pdf_path.with_suffix(".html"), html) as tmp:
                write_pdf(tmp, pdf_path)
    return report
