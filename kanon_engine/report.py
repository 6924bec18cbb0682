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
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

import kanon_engine
from kanon_engine.algorithms import algorithms
from kanon_engine.errors import DataError, KanonError
from kanon_engine.fileio import atomic_path, atomic_write_text, refuse_input_overwrite, temp_file_beside
from kanon_engine.hierarchy.builders import MISSING_LABEL
from kanon_engine.hierarchy.model import MISSING, ROOT
from kanon_engine.metrics.labels import metric_label
from kanon_engine.metrics.risk import DEFAULT_THRESHOLD, RiskComparison, compare, definitions
from kanon_engine.pdf_check import verify_pdf
from kanon_engine.resources import resources_dir
from kanon_engine.result import SURVEY_MODELS
from kanon_engine.workload.report_section import section as workload_section

#: Seconds allowed to the PDF renderer process.
PDF_TIMEOUT = 180

#: Plain words on what ``*`` means in a cell-level release, and what such a release gives away.
STAR_MEANING = (
    "In this file * is a value of its own: a record showing * is hidden only among records that show * "
    "in the same place and the same other values, and every such group has at least k records (the "
    "strict reading, in which the release was checked). Reading * as matching any value, as sdcMicro "
    "does, can only make the groups larger."
)
MINIMALITY_WARNING = (
    "A * or a broader value marks a record that was unusual: whoever knows how the file was made can "
    "guess that its true value is a rare one, and narrow it down (the minimality attack, Wong, Fu, Wang "
    "& Pei, VLDB 2007). Keep the file's audience as narrow as for any patient-level data."
)


# --- building the report data ---------------------------------------------------------------------------
def _file_sha256(path: Path | None) -> str | None:
    from kanon_engine.export import sha256_file

    if path is None or not Path(path).is_file():
        return None
    return sha256_file(path)


def _example_label(values: pd.Series) -> str | None:
    """The most frequent released label that is a real value: not ``*``, not a missing cell (to
    describe a generalization)."""
    v = values.dropna()
    v = v[~v.astype(object).isin([ROOT, MISSING, MISSING_LABEL])]
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
            changed = (
                (~((rel == orig) | (rel.isna() & orig.isna()))).to_numpy()
                if full is not None
                else np.ones(len(rel), dtype=bool)
            )
            example = _example_label(rel[changed])
            out[q] = {
                # a cell-level release may only star single values: say so rather than "generalized"
                "treatment": "generalized" if example is not None else "partly suppressed",
                "example": example,
                "share": float(changed.mean()) if len(changed) else 0.0,
            }
    return out


def _cell_level(result: Any) -> dict[str, Any] | None:
    """What a cell-level release (every record kept, single values recoded) must say about itself:
    values changed per attribute, records touched, the transformations used, and its groups in both
    readings of ``*`` (strict: a value of its own, as checked; sdcMicro's: matching anything)."""
    from kanon_engine.cell_recoding import wildcard_reading

    rec = getattr(result, "recoding", None)
    if rec is None:
        return None
    used = rec.transformations()
    generalized = ((rec.levels > 0) & ~rec.suppressed).sum(axis=0)
    stars = {q: int((result.release[q].astype(object) == ROOT).sum()) for q in rec.qi}
    return {
        "suppressed_cells": rec.suppressed_cells,
        "cells": int(result.records * len(rec.qi)),
        "per_attribute": rec.suppressed_per_attribute(),
        "generalized_per_attribute": {q: int(n) for q, n in zip(rec.qi, generalized)},
        "shown_as_star_per_attribute": stars,
        "records_touched": rec.records_touched,
        "records_generalized": rec.records_generalized,
        "transformations": used[:12],
        "transformations_used": len(used),
        "readings": wildcard_reading(result.release, result.config.quasi_identifiers, result.config.k),
    }


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
            real = [str(x) for x in labels if x not in (MISSING, MISSING_LABEL)]
            levels.append({"level": j, "groups": len(labels), "examples": real[:3]})
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
    risk_a, risk_b = report["risk"]["after"], report["risk"]["before"]
    out = (
        _values_sentences(report["result"]["quasi_identifiers"], risk_a)
        + _cell_level_sentences(report["result"])
        + _suppression_sentences(report)
        + _risk_sentences(risk_a, risk_b)
        + [_homogeneity_sentence(h) for h in risk_a.get("homogeneity", [])]
    )
    if report.get("linkage"):
        out.append(report["linkage"]["summary"])
    return [x[:1].upper() + x[1:] for x in out if x]


def _values_sentences(treat: Mapping[str, Mapping[str, Any]], risk_a: Mapping[str, Any]) -> list[str]:
    """What became of the quasi-identifiers: shown as they were, as groups, or removed."""
    shown, removed = [], []
    for q, t in treat.items():
        if t["treatment"] == "removed":
            removed.append(q)
        elif t["treatment"] == "exact":
            shown.append(q)
        elif t["treatment"] == "partly suppressed":
            shown.append(f"{q} (some values replaced by *)")
        elif not t.get("example"):
            shown.append(f"{q} (generalized)")
        elif t.get("share", 1.0) < 1.0:
            shown.append(f"{q} (partly generalized, as in “{t['example']}”)")
        else:
            shown.append(f"{q} (as groups such as “{t['example']}”)")
    out = []
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
        out.append(
            f"{_join(removed)} {'was' if len(removed) == 1 else 'were'} removed entirely (shown as *)."
        )
    return out


def _cell_level_sentences(res: Mapping[str, Any]) -> list[str]:
    """A cell-level release in plain words: what was kept and changed, what * means, what it gives
    away."""
    cl = res.get("cell_level")
    if not cl:
        return []
    out = [f"Every record is kept ({res['model']['name']}: {res['model']['description']})."]
    if cl["suppressed_cells"]:
        per = [f"{q} {n:,}" for q, n in cl["per_attribute"].items() if n]
        out.append(
            f"{cl['suppressed_cells']:,} values ({_pct(cl['suppressed_cells'] / max(cl['cells'], 1))} of "
            f"the quasi-identifier values) in {cl['records_touched']:,} records were replaced by *: "
            f"{_join(per)}."
        )
    if cl["records_generalized"]:
        out.append(f"{cl['records_generalized']:,} records show at least one value as a broader group.")
    return [*out, STAR_MEANING, MINIMALITY_WARNING]


def _suppression_sentences(report: Mapping[str, Any]) -> list[str]:
    """The records left out or masked, and the identifying columns removed."""
    res, conf = report["result"], report["configuration"]
    out = []
    sup = int(res["suppressed"])
    if sup:
        share = _pct(sup / max(res["records"], 1))
        if conf["suppression"]["dropped"]:
            out.append(f"{sup:,} records ({share}) too unusual to hide were left out of the file.")
        else:
            out.append(
                f"{sup:,} records ({share}) too unusual to hide kept none of these values (shown as *)."
            )
    ids = conf["identifiers"]
    if ids:
        pseudonyms = report.get("release", {}) and report["release"].get("pseudonymized")
        how = "replaced by keyed pseudonyms" if pseudonyms else "removed"
        out.append(
            f"The directly identifying column{'s' if len(ids) > 1 else ''} {_join(ids)} "
            f"{'were' if len(ids) > 1 else 'was'} {how}."
        )
    return out


def _risk_sentences(risk_a: Mapping[str, Any], risk_b: Mapping[str, Any]) -> list[str]:
    out = []
    if risk_a["records"]:
        out.append(
            f"Someone who knows a person is in the file and knows these values can guess which record "
            f"is theirs with a chance of at most {_one_in(risk_a['prosecutor_highest'])} "
            f"({_pct(risk_a['prosecutor_highest'])}); {_pct(risk_a['prosecutor_average'])} on "
            "average."
        )
    if risk_b["records"]:
        out.append(
            f"Before anonymization, {int(risk_b['sample_uniques']):,} records "
            f"({_pct(risk_b['share_sample_uniques'])}) were unique on these values, and the chance "
            f"was up to {_one_in(risk_b['prosecutor_highest'])}."
        )
    return out


def _homogeneity_sentence(h: Mapping[str, Any]) -> str:
    attr = h["attribute"]
    if h["homogeneous_classes"]:
        return (
            f"In {int(h['homogeneous_classes']):,} group(s) ({int(h['homogeneous_records']):,} records) "
            f"everyone has the same {attr}: whoever can place a person in such a group learns "
            f"their {attr} without knowing which record is theirs."
        )
    if h["distinct_l"] is not None:
        return (
            f"Every group holds at least {int(h['distinct_l'])} different values of {attr}, so "
            f"placing a person in a group does not reveal their {attr}."
        )
    return ""


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
    workload: Any | None = None,
    run_label: str | None = None,
    stale: bool = False,
    purpose: str | None = None,
    recipient: str | None = None,
    approved_by: str | None = None,
) -> dict[str, Any]:
    """The report as a JSON-able dict (also the data of the HTML/PDF). ``run_label`` names the run,
    ``stale`` says its settings are not the project's any more; ``purpose``, ``recipient`` and
    ``approved_by`` fill the sign-off section (by default the project's report details; a field left
    empty is a blank line to be filled in by hand).

    ``release`` is an :meth:`ExportSummary.to_dict() <kanon_engine.export.ExportSummary.to_dict>`; with
    only ``release_path`` the file's SHA-256 is computed here. Hashes are of the actual files.
    """
    risk = risk or compare(table, result, threshold=threshold)
    generated = generated or datetime.now().astimezone()
    if release is None and release_path is not None:
        release = _release_file(Path(release_path), result)
    report: dict[str, Any] = {
        "title": "De-identification report",
        "software": {"name": "kanon", "version": kanon_engine.__version__},
        "generated": generated.isoformat(timespec="seconds"),
        "dataset": _dataset_facts(table, result),
        "configuration": _configuration_facts(table, result, project),
        "result": _result_facts(table, result, risk),
        "risk": {
            "before": risk.before.to_dict(),
            "after": risk.after.to_dict(),
            "definitions": definitions(),
        },
        "linkage": linkage.to_dict() if linkage is not None else None,
        "release": dict(release) if release is not None else None,
        "workload": _workload_dict(workload if workload is not None else getattr(result, "workload", None)),
    }
    report["run"] = {"label": run_label, "stale": bool(stale)}
    details = getattr(project, "report", None)
    report["sign_off"] = {
        "purpose": purpose if purpose is not None else getattr(details, "purpose", ""),
        "recipient": recipient if recipient is not None else getattr(details, "recipient", ""),
        "approved_by": approved_by if approved_by is not None else getattr(details, "approved_by", ""),
    }
    roles = report["dataset"]["roles"]
    report["warnings"] = ([STALE_WARNING] if stale else []) + _warnings(table, result, roles)
    report["summary"] = plain_summary(report)
    return report


def _workload_dict(workload: Any | None) -> dict[str, Any] | None:
    """The workload figures of the run (a WorkloadEvaluation) as report data."""
    return workload.to_dict() if workload is not None else None


#: Said first when the release was made with settings the project no longer has.
STALE_WARNING = (
    "This release was made with settings (roles, hierarchies or privacy models) that differ from the "
    "project's current ones: it describes the release as it was made, not the current configuration."
)


def _warnings(table: Any, result: Any, roles: Mapping[str, str]) -> list[str]:
    """What the ethics board must know: columns that look knowable but were released unchanged, and
    what makes the release of little use (the same rules the workbench and CLI warn with)."""
    from kanon_engine.data.roles import Role, suggest_roles
    from kanon_engine.validation import released_unchanged_warnings, result_warnings

    kept = [c for c, r in roles.items() if r in (Role.INSENSITIVE.value, Role.SENSITIVE.value)]
    found = (
        suggest_roles(table.frame[kept], column_types=getattr(table, "column_types", None)) if kept else []
    )
    suggestions = {x.column: x for x in found}
    issues = released_unchanged_warnings({c: Role(r) for c, r in roles.items()}, suggestions)
    issues += result_warnings(result)
    return [i.message for i in issues]


def _release_file(path: Path, result: Any) -> dict[str, Any]:
    return {
        "file": path.name,
        "path": str(path),
        "sha256": _file_sha256(path),
        "rows": int(len(result.release)),
        "format": path.suffix.lstrip(".").lower(),
    }


def _dataset_facts(table: Any, result: Any) -> dict[str, Any]:
    source = Path(table.source) if getattr(table, "source", None) else None
    return {
        "file": source.name if source else None,
        "path": str(source) if source else None,
        "sha256": _file_sha256(source) or getattr(table, "sha256", None),
        "rows": int(table.n_rows),
        "columns": len(table.columns),
        "roles": {c: result.config.role_of(c).value for c in table.columns},
    }


def _configuration_facts(table: Any, result: Any, project: Any | None) -> dict[str, Any]:
    cfg = result.config
    params = dict(result.parameters)
    algo_cls = algorithms().get(result.algorithm)
    return {
        "quasi_identifiers": list(cfg.quasi_identifiers),
        "sensitive": list(cfg.sensitive),
        "identifiers": list(cfg.identifiers),
        "insensitive": [c for c in table.columns if cfg.role_of(c).value == "insensitive"],
        "hierarchies": _hierarchy_summary(cfg, project),
        "models": [{**m.to_dict(), "description": m.describe()} for m in cfg.models],
        "algorithm": {
            "name": result.algorithm,
            "title": getattr(algo_cls, "title", result.algorithm),
            "parameters": params,
            "parameters_shown": _parameters_shown(algo_cls, params),
        },
        "suppression": {
            "limit": params.get("suppression_limit"),
            "suppressed": result.suppressed,
            "dropped": bool(cfg.drop_suppressed),
        },
        "shuffled": cfg.shuffle_seed is not None,
    }


def _parameters_shown(algo_cls: Any, params: Mapping[str, Any]) -> list[list[str]]:
    """[label, value in plain words] per parameter of the run (percentages, the choices' words)."""
    specs = {p.name: p for p in getattr(algo_cls, "params", ())}
    out = []
    for name, value in params.items():
        spec = specs.get(name)
        if spec is None:
            out.append([name.replace("_", " "), "not set" if value is None else str(value)])
        else:
            out.append([spec.label, "not set" if value is None else spec.show(value)])
    return out


def _result_facts(table: Any, result: Any, risk: RiskComparison) -> dict[str, Any]:
    return {
        "model": {"name": result.model, "description": SURVEY_MODELS.get(result.model, "")},
        "cell_level": _cell_level(result),
        "records": result.records,
        "suppressed": result.suppressed,
        "classes": risk.after.figures.classes,
        "smallest_class": risk.after.figures.smallest_class,
        "released_records": int(len(result.release)),
        "transformation": result.transformation,
        "partitions": _partition_facts(result.partitions),
        "metrics": {k: _num(v) for k, v in result.metrics.items()},
        "runtime_seconds": round(float(result.runtime_seconds), 3),
        "nodes_checked": result.nodes_checked,
        "quasi_identifiers": _qi_treatment(table, result),
        "notes": list(result.notes),
        "class_size_bands": class_size_bands(
            risk.before.class_sizes, risk.after.class_sizes, result.config.k
        ),
    }


def _partition_facts(partitions: Any | None) -> dict[str, Any] | None:
    if partitions is None:
        return None
    sizes = np.asarray(partitions.sizes)
    return {
        "boxes": int(len(sizes)),
        "smallest": int(sizes.min()) if len(sizes) else 0,
        "largest": int(sizes.max()) if len(sizes) else 0,
        "median": float(np.median(sizes)) if len(sizes) else 0.0,
    }


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
#: Where the report's template and style sheet are (``report.html.j2``, ``report.css``).
TEMPLATES = resources_dir() / "report"


def _table(rows: Sequence[Sequence[Any]], header: Sequence[str] | None = None, num: Sequence[int] = ()):
    """A table for the template's ``table`` macro: cells are text (escaped there) or Markup."""
    return {"header": list(header or ()), "rows": [list(r) for r in rows], "num": tuple(num)}


def _hash(value: str | None) -> Markup:
    return Markup('<span class="hash">{}</span>').format(value or "–")


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


def render_html(report: Mapping[str, Any]) -> str:
    """One self-contained HTML document (inline CSS and SVG; nothing fetched) from a report dict: the
    template ``resources/report/report.html.j2`` filled by :func:`report_view`."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined)
    return env.get_template("report.html.j2").render(**report_view(report)) + "\n"


def report_view(report: Mapping[str, Any]) -> dict[str, Any]:
    """What the template shows, section by section, as text and small tables."""
    sw = report["software"]
    return {
        "title": report["title"],
        "file": report["dataset"]["file"] or "table",
        "run_label": (report.get("run") or {}).get("label") or "",
        "warnings": list(report.get("warnings") or ()),
        "sign_off": _sign_off_rows(report.get("sign_off") or {}),
        "software": f"{sw['name']} {sw['version']}",
        "when": _when(report["generated"]),
        "summary": list(report["summary"]),
        "dataset": _dataset_section(report["dataset"]),
        "configuration": _configuration_section(report["configuration"], report["result"]),
        "result": _result_section(report["result"], report["configuration"]),
        "risk": _risk_section(report["risk"]["before"], report["risk"]["after"]),
        "homogeneity": _homogeneity_section(report["risk"]["before"], report["risk"]["after"]),
        "workload": workload_section(report.get("workload"), _table),
        "linkage": _linkage_section(report.get("linkage")),
        "release": _release_section(report.get("release")),
        "definitions": [_definition(text) for text in report["risk"]["definitions"].values()],
    }


_ROLE_NAMES = {
    "identifier": "identifier (removed)",
    "quasi-identifier": "quasi-identifier",
    "sensitive": "sensitive (kept, protected)",
    "insensitive": "insensitive (kept as is)",
}


def _dataset_section(d: Mapping[str, Any]) -> dict[str, Any]:
    file_rows = [
        ["File", d["file"] or "(not from a file)"],
        ["SHA-256 of the input file", _hash(d["sha256"])],
        ["Records", _fmt(d["rows"])],
        ["Columns", _fmt(d["columns"])],
    ]
    roles = [[col, _ROLE_NAMES.get(role, role)] for col, role in d["roles"].items()]
    return {"file": _table(file_rows), "roles": _table(roles, ["Column", "Role"])}


def _configuration_section(c: Mapping[str, Any], r: Mapping[str, Any]) -> dict[str, Any]:
    algo = c["algorithm"]
    params = [list(row) for row in algo.get("parameters_shown") or ()]
    dropped = c["suppression"]["dropped"]
    if not r.get("cell_level"):  # a cell-level release suppresses no record
        params.append(
            ["suppressed records", "dropped from the file" if dropped else "kept, values shown as *"]
        )
    params.append(["row order", "shuffled" if c["shuffled"] else "as in the input"])
    hierarchies = [
        [hs["attribute"], hs["source"], _fmt(hs["values"]), _fmt(hs["height"]), _levels_cell(hs["levels"])]
        for hs in c["hierarchies"]
    ]
    return {
        "models": [m["description"] for m in c["models"]],
        "algorithm_title": algo["title"],
        "algorithm_name": algo["name"],
        "parameters": _table(params, ["Parameter", "Value"]),
        "hierarchies": _table(
            hierarchies, ["Quasi-identifier", "Source", "Values", "Height", "Levels above the values"], (2, 3)
        ),
        # local suppression generalizes nothing: its hierarchies are not part of the release
        "hierarchies_used": (r.get("model") or {}).get("name") != "CS",
    }


def _levels_cell(levels: Sequence[Mapping[str, Any]]) -> Markup:
    """``1: 8 groups (20-29, 30-39, 40-49, …)``, one line per level."""
    lines = []
    for x in levels:
        if x["groups"] == 1:
            lines.append(f"{x['level']}: {x['examples'][0]}")
        else:
            more = ", …)" if x["groups"] > len(x["examples"]) else ")"
            lines.append(f"{x['level']}: {x['groups']} groups ({', '.join(x['examples'])}{more}")
    return Markup("<br>").join(lines)


def _result_section(r: Mapping[str, Any], c: Mapping[str, Any]) -> dict[str, Any]:
    figures = [
        ["Records", _fmt(r["records"])],
        ["Suppressed", _fmt(r["suppressed"])],
        ["Records in the release file", _fmt(r["released_records"])],
        ["Groups", _fmt(r["classes"])],
        ["Smallest group", _fmt(r["smallest_class"])],
        ["Run time", f"{r['runtime_seconds']:.3f} s"],
    ]
    k = max((m.get("k", 0) for m in c["models"] if m.get("name") == "k-anonymity"), default=2)
    p = r["partitions"]
    return {
        "figures": _table(figures),
        "transformation": _transformation_table(r, c) if r["transformation"] else None,
        "partitions": {key: _fmt(p[key]) for key in ("boxes", "smallest", "largest", "median")}
        if p
        else None,
        "metrics": _table(
            [_metric_row(key, v) for key, v in r["metrics"].items()], ["Metric", "Value"], (1,)
        ),
        "chart": Markup(class_size_svg(r["class_size_bands"], k)),
        "notes": list(r["notes"]),
        "model": r.get("model"),
        "cell_level": _cell_level_view(r["cell_level"], k) if r.get("cell_level") else None,
    }


def _cell_level_view(cl: Mapping[str, Any], k: int) -> dict[str, Any]:
    """The cell-level part of the Result section: values changed per attribute, records touched, both
    readings of *, the transformations used, and the warnings."""
    per_qi = max(cl["cells"] / max(len(cl["per_attribute"]), 1), 1)
    rows = []
    for q, n in cl["per_attribute"].items():
        gen, star = cl["generalized_per_attribute"][q], cl["shown_as_star_per_attribute"][q]
        rows.append([q, _fmt(n), _fmt(gen), _fmt(star), _pct((n + gen) / per_qi)])
    gen_all = sum(cl["generalized_per_attribute"].values())
    star_all = sum(cl["shown_as_star_per_attribute"].values())
    changed = (cl["suppressed_cells"] + gen_all) / max(cl["cells"], 1)
    rows.append(["All", _fmt(cl["suppressed_cells"]), _fmt(gen_all), _fmt(star_all), _pct(changed)])
    rd = cl["readings"]
    readings = [
        [
            "* a value of its own (strict, as checked)",
            _fmt(rd["strict_smallest_class"]),
            _fmt(rd["strict_records_below_k"]),
        ],
        ["* matching any value (sdcMicro)", _fmt(rd["smallest_frequency"]), _fmt(rd["records_below_k"])],
    ]
    used = None
    if cl["transformations"]:
        qis = list(cl["transformations"][0]["levels"])
        trows = [[*(str(t["levels"][q]) for q in qis), _fmt(t["records"])] for t in cl["transformations"]]
        used = _table(trows, [*qis, "Records"], tuple(range(len(qis) + 1)))
    touched = [
        ["Records with at least one *", _fmt(cl["records_touched"])],
        ["Records with at least one generalized value", _fmt(cl["records_generalized"])],
        ["Different transformations used", _fmt(cl["transformations_used"])],
    ]
    return {
        "cells": _table(
            rows,
            ["Quasi-identifier", "Replaced by *", "Generalized", "Shown as *", "Share changed"],
            (1, 2, 3, 4),
        ),
        "touched": _table(touched),
        "star_meaning": STAR_MEANING,
        "readings": _table(readings, ["Reading of *", "Smallest group", f"Records below k = {k}"], (1, 2)),
        "warning": MINIMALITY_WARNING,
        "transformations": used,
    }


def _transformation_table(r: Mapping[str, Any], c: Mapping[str, Any]) -> dict[str, Any]:
    heights = {x["attribute"]: x["height"] for x in c["hierarchies"]}
    rows = []
    for q, lv in r["transformation"].items():
        ex = r["quasi_identifiers"].get(q, {}).get("example")
        rows.append([q, f"{lv} of {heights.get(q, '?')}", ex if ex and lv else "original values"])
    return _table(rows, ["Quasi-identifier", "Level", "Example released value"])


def _metric_row(key: str, value: Any) -> list[Any]:
    """A metric under its true name (the engine's one label registry), what it means, its value as
    people read it (percentages for shares)."""
    label = metric_label(key)
    return [Markup("{}<br><small>{}</small>").format(label.name, label.meaning), label.show(value)]


def _risk_section(b: Mapping[str, Any], a: Mapping[str, Any]) -> dict[str, Any]:
    def pr(x: float) -> str:
        return f"{_pct(x)} ({_one_in(x)})"

    def share(fig: Mapping[str, Any], count: str, part: str) -> str:
        return f"{_fmt(fig[count])} ({_pct(fig[part])})"

    rows = [
        ["Records assessed", _fmt(b["records"]), _fmt(a["records"])],
        ["Suppressed records", _fmt(b["suppressed"]), _fmt(a["suppressed"])],
        ["Groups (equivalence classes)", _fmt(b["classes"]), _fmt(a["classes"])],
        ["Smallest group", _fmt(b["smallest_class"]), _fmt(a["smallest_class"])],
        ["Prosecutor risk, highest", pr(b["prosecutor_highest"]), pr(a["prosecutor_highest"])],
        ["Prosecutor risk, average", _pct(b["prosecutor_average"]), _pct(a["prosecutor_average"])],
        [f"Records at risk (above {_pct(a['threshold'])})"]
        + [share(f, "records_above_threshold", "share_above_threshold") for f in (b, a)],
        ["Journalist risk, highest", pr(b["journalist_highest"]), pr(a["journalist_highest"])],
        ["Marketer risk", _pct(b["marketer"]), _pct(a["marketer"])],
        ["Sample uniques"] + [share(f, "sample_uniques", "share_sample_uniques") for f in (b, a)],
    ]
    return {
        "population": a["population"],
        "population_is_table": a["population"] == "the table itself",
        "star_is_value": bool(a.get("star_counted_as_value")),
        "figures": _table(rows, ["Measure", "Original data", "Release"], (1, 2)),
    }


def _homogeneity_section(rb: Mapping[str, Any], ra: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [_homogeneity_of(hb, ha) for hb, ha in zip(rb["homogeneity"], ra["homogeneity"])]


def _homogeneity_of(hb: Mapping[str, Any], ha: Mapping[str, Any]) -> dict[str, Any]:
    def row(label: str, key: str, digits: int = 4) -> list[str]:
        return [label, _fmt(hb[key], digits), _fmt(ha[key], digits)]

    rows = [
        row("Groups with a single value (homogeneous)", "homogeneous_classes"),
        row("Records in homogeneous groups", "homogeneous_records"),
        row("Distinct l reached (fewest different values in a group)", "distinct_l"),
        row("Entropy l reached", "entropy_l", 3),
        row("t reached, equal distance", "t_equal", 3),
    ]
    if ha["t_ordered"] is not None:
        rows.append(row("t reached, ordered distance", "t_ordered", 3))
    examples = None
    if ha["examples"]:
        qis = list(ha["examples"][0]["quasi_identifiers"])
        ex_rows = [
            [*(ex["quasi_identifiers"][q] for q in qis), _fmt(ex["size"]), ex["value"]]
            for ex in ha["examples"][:10]
        ]
        examples = _table(ex_rows, [*qis, "Records", ha["attribute"]], (len(qis),))
    return {
        "name": ha["attribute"],
        "figures": _table(rows, ["Measure", "Original data", "Release"], (1, 2)),
        "examples": examples,
    }


def _linkage_section(link: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not link:
        return None
    people = _fmt(link["external_records"])
    rows = [["People on the public list", people, people]]
    b, a = link["before"], link["after"] or {}

    def singled(side: Mapping[str, Any]) -> str:
        if side.get("people_singled_out") is None:
            return _fmt(None)
        return f"{_fmt(side['people_singled_out'])} ({_pct(float(side.get('share_singled_out') or 0.0))})"

    rows.append(["Singled out (exactly one matching record)", singled(b), singled(a)])
    for key, label in (
        ("people_matched", "Matching at least one record"),
        ("people_unmatched", "Matching no record"),
    ):
        rows.append([label, _fmt(b[key]), _fmt(a.get(key))])
    return {
        "summary": link["summary"],
        "columns": ", ".join(link["columns"]),
        "file": link.get("list_file") or "",
        "figures": _table(rows, ["", "Original data", "Release"], (1, 2)),
    }


def _release_section(rel: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not rel:
        return None
    return _table(
        [
            ["File", rel.get("file")],
            ["Format", rel.get("format")],
            ["Rows", _fmt(rel.get("rows"))],
            ["SHA-256", _hash(rel.get("sha256"))],
        ]
    )


#: The sign-off rows an ethics board fills in (whole phrases, one place).
SIGN_OFF = {
    "purpose": "Purpose of the release",
    "recipient": "Recipient (person, institution)",
    "approved": "Approved by (name, role)",
    "date": "Date and signature",
}


def _sign_off_rows(sign: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value) rows; an empty value is a blank line to be filled in by hand."""
    return [
        (SIGN_OFF["purpose"], sign.get("purpose") or ""),
        (SIGN_OFF["recipient"], sign.get("recipient") or ""),
        (SIGN_OFF["approved"], sign.get("approved_by") or ""),
        (SIGN_OFF["date"], ""),
    ]


def _definition(text: str) -> tuple[str, str]:
    """``term: what it means`` -> (term, meaning); text without a term -> (text, "")."""
    term, _, rest = text.partition(": ")
    return (term, rest) if rest else (text, "")


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
    workload: Any | None = None,
    run_label: str | None = None,
    stale: bool = False,
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
        workload=workload,
        run_label=run_label,
        stale=stale,
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
