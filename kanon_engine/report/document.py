"""The de-identification report: what was released, how it was made, and what risk remains.

A privacy officer shows it to an ethics board, so it says everything needed to check the release
without kanon: the input file and its SHA-256, roles, hierarchies, privacy models, algorithm and
parameters, suppression, the transformation (or partitioning), quality metrics, a class-size chart, risk
before and after (:mod:`kanon_engine.metrics.risk`), homogeneity findings, optionally a linkage attack
demonstration (:mod:`kanon_engine.metrics.linkage`), the released file's SHA-256, the software version and the
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
from kanon_engine.algorithms import algorithms, title_of
from kanon_engine.errors import DataError, KanonError
from kanon_engine.hierarchy.builders import MISSING_LABEL
from kanon_engine.hierarchy.model import MISSING, ROOT
from kanon_engine.i18n import N_, _, current_language, formats, ngettext, text_of, using
from kanon_engine.metrics.labels import metric_label
from kanon_engine.metrics.risk import (
    DEFAULT_THRESHOLD,
    POPULATION_IS_TABLE,
    RiskComparison,
    compare,
    definitions,
)
from kanon_engine.release.fileio import (
    atomic_path,
    atomic_write_text,
    refuse_input_overwrite,
    temp_file_beside,
)
from kanon_engine.release.pdf_check import verify_pdf
from kanon_engine.report.persons import person_facts_of, person_sentences, rows_not_persons_warning
from kanon_engine.resources import resources_dir
from kanon_engine.result import SURVEY_MODELS
from kanon_engine.workload.report_section import section as workload_section

#: Seconds allowed to the PDF renderer process.
PDF_TIMEOUT = 180

#: Plain words on what ``*`` means in a cell-level release, and what such a release gives away.
STAR_MEANING = N_(
    "In this file * is a value of its own: a record showing * is hidden only among records that show * in "
    "the same place and the same other values, and every such group has at least k records (the strict "
    "reading, in which the release was checked). Reading * as matching any value, as sdcMicro does, can "
    "only make the groups larger."
)
MINIMALITY_WARNING = N_(
    "A * or a broader value marks a record that was unusual: whoever knows how the file was made can "
    "guess that its true value is a rare one, and narrow it down (the minimality attack, Wong, Fu, Wang & "
    "Pei, VLDB 2007). Keep the file's audience as narrow as for any patient-level data."
)


# --- building the report data ---------------------------------------------------------------------------
def _file_sha256(path: Path | None) -> str | None:
    from kanon_engine.release.export import sha256_file

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
    from kanon_engine.release.export import release_in_input_order

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
    from kanon_engine.release.cell_recoding import wildcard_reading

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
            source = _("file {name}", name=Path(files[q]).name)
        elif q in explicit:
            source = _("defined in the project")
        elif project is not None:
            source = _("built automatically from the data")
        else:
            source = _("given to the run")
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
    return formats.join(list(items))


def _one_in(p: float) -> str:
    if p <= 0:
        return _("none")
    n = 1 / p
    shown = formats.count(n) if abs(n - round(n)) < 0.05 or n >= 10 else formats.decimal(n, 1, fixed=True)
    return _("1 in {n}", n=shown)


def _pct(x: float) -> str:
    return formats.percent(x, 1) if x >= 0.001 or x == 0 else formats.percent(x, 2)


def plain_summary(report: Mapping[str, Any]) -> list[str]:
    """Sentences a non-specialist can read (no jargon), from a report dict."""
    risk_a, risk_b = report["risk"]["after"], report["risk"]["before"]
    out = (
        _values_sentences(report["result"]["quasi_identifiers"], risk_a)
        + person_sentences(report.get("persons"))
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
            shown.append(_("{column} (some values replaced by *)", column=q))
        elif not t.get("example"):
            shown.append(_("{column} (generalized)", column=q))
        elif t.get("share", 1.0) < 1.0:
            shown.append(
                _("{column} (partly generalized, as in “{example}”)", column=q, example=t["example"])
            )
        else:
            shown.append(_("{column} (as groups such as “{example}”)", column=q, example=t["example"]))
    out = []
    m = int(risk_a["smallest_class"])
    if risk_a["records"] and shown:
        out.append(
            ngettext(
                "Every person in the released file shares their {values} with at least {n} other person "
                "in the file, so nobody can be singled out by these values alone.",
                "Every person in the released file shares their {values} with at least {n} other people "
                "in the file, so nobody can be singled out by these values alone.",
                m - 1,
                values=_join(shown),
            )
        )
    elif risk_a["records"]:
        out.append(_("No quasi-identifying value is left in the released file."))
    if removed:
        out.append(
            ngettext(
                "{columns} was removed entirely (shown as *).",
                "{columns} were removed entirely (shown as *).",
                len(removed),
                columns=_join(removed),
            )
        )
    return out


def _cell_level_sentences(res: Mapping[str, Any]) -> list[str]:
    """A cell-level release in plain words: what was kept and changed, what * means, what it gives
    away."""
    cl = res.get("cell_level")
    if not cl:
        return []
    described = res["model"]["description"]  # a catalog id (SURVEY_MODELS)
    out = [
        _(
            "Every record is kept ({model}: {description}).",
            model=res["model"]["name"],
            description=_(described),
        )
    ]
    if cl["suppressed_cells"]:
        per = [f"{q} {formats.count(n)}" for q, n in cl["per_attribute"].items() if n]
        out.append(
            ngettext(
                "{cells} value ({share} of the quasi-identifier values) in {records} records was replaced by "
                "*: {per_attribute}.",
                "{cells} values ({share} of the quasi-identifier values) in {records} records were replaced "
                "by *: {per_attribute}.",
                cl["suppressed_cells"],
                cells=cl["suppressed_cells"],
                share=_pct(cl["suppressed_cells"] / max(cl["cells"], 1)),
                records=cl["records_touched"],
                per_attribute=_join(per),
            )
        )
    if cl["records_generalized"]:
        out.append(
            ngettext(
                "{n} record shows at least one value as a broader group.",
                "{n} records show at least one value as a broader group.",
                cl["records_generalized"],
                n=cl["records_generalized"],
            )
        )
    return [*out, _(STAR_MEANING), _(MINIMALITY_WARNING)]


def _suppression_sentences(report: Mapping[str, Any]) -> list[str]:
    """The records left out or masked, and the identifying columns removed."""
    res, conf = report["result"], report["configuration"]
    out = []
    sup = int(res["suppressed"])
    if sup:
        share = _pct(sup / max(res["records"], 1))
        if conf["suppression"]["dropped"]:
            out.append(
                ngettext(
                    "{n} record ({share}) too unusual to hide was left out of the file.",
                    "{n} records ({share}) too unusual to hide were left out of the file.",
                    sup,
                    share=share,
                )
            )
        else:
            out.append(
                ngettext(
                    "{n} record ({share}) too unusual to hide kept none of these values (shown as *).",
                    "{n} records ({share}) too unusual to hide kept none of these values (shown as *).",
                    sup,
                    share=share,
                )
            )
    ids = conf["identifiers"]
    if ids:
        pseudonyms = report.get("release", {}) and report["release"].get("pseudonymized")
        if pseudonyms:
            text = ngettext(
                "The directly identifying column {columns} was replaced by keyed pseudonyms.",
                "The directly identifying columns {columns} were replaced by keyed pseudonyms.",
                len(ids),
                columns=_join(ids),
            )
        else:
            text = ngettext(
                "The directly identifying column {columns} was removed.",
                "The directly identifying columns {columns} were removed.",
                len(ids),
                columns=_join(ids),
            )
        out.append(text)
    return out


def _risk_sentences(risk_a: Mapping[str, Any], risk_b: Mapping[str, Any]) -> list[str]:
    out = []
    if risk_a["records"]:
        out.append(
            _(
                "Someone who knows a person is in the file and knows these values can guess which record "
                "is theirs with a chance of at most {chance} ({share}); {average} on average.",
                chance=_one_in(risk_a["prosecutor_highest"]),
                share=_pct(risk_a["prosecutor_highest"]),
                average=_pct(risk_a["prosecutor_average"]),
            )
        )
    if risk_b["records"]:
        out.append(
            ngettext(
                "Before anonymization, {n} record ({share}) was unique on these values, and the chance "
                "was up to {chance}.",
                "Before anonymization, {n} records ({share}) were unique on these values, and the chance "
                "was up to {chance}.",
                int(risk_b["sample_uniques"]),
                share=_pct(risk_b["share_sample_uniques"]),
                chance=_one_in(risk_b["prosecutor_highest"]),
            )
        )
    return out


def _homogeneity_sentence(h: Mapping[str, Any]) -> str:
    attr = h["attribute"]
    if h["homogeneous_classes"]:
        return ngettext(
            "In {n} group ({records} records) everyone has the same {attribute}: whoever can place a "
            "person in such a group learns their {attribute} without knowing which record is theirs.",
            "In {n} groups ({records} records) everyone has the same {attribute}: whoever can place a "
            "person in such a group learns their {attribute} without knowing which record is theirs.",
            int(h["homogeneous_classes"]),
            records=int(h["homogeneous_records"]),
            attribute=attr,
        )
    if h["distinct_l"] is not None:
        return _(
            "Every group holds at least {l} different values of {attribute}, so "
            "placing a person in a group does not reveal their {attribute}.",
            l=int(h["distinct_l"]),
            attribute=attr,
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

    ``release`` is an :meth:`ExportSummary.to_dict() <kanon_engine.release.export.ExportSummary.to_dict>`;
    with
    only ``release_path`` the file's SHA-256 is computed here. Hashes are of the actual files.
    """
    risk = risk or compare(table, result, threshold=threshold)
    generated = generated or datetime.now().astimezone()
    if release is None and release_path is not None:
        release = _release_file(Path(release_path), result)
    report: dict[str, Any] = {
        "title": _("De-identification report"),
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
        "persons": person_facts_of(table, result, threshold),
    }
    report["run"] = {"label": run_label, "stale": bool(stale)}
    details = getattr(project, "report", None)
    report["sign_off"] = {
        "purpose": purpose if purpose is not None else getattr(details, "purpose", ""),
        "recipient": recipient if recipient is not None else getattr(details, "recipient", ""),
        "approved_by": approved_by if approved_by is not None else getattr(details, "approved_by", ""),
    }
    roles = report["dataset"]["roles"]
    report["language"] = current_language()
    report["warnings"] = ([_(STALE_WARNING)] if stale else []) + _warnings(table, result, roles)
    report["summary"] = plain_summary(report)
    return report


def _workload_dict(workload: Any | None) -> dict[str, Any] | None:
    """The workload figures of the run (a WorkloadEvaluation) as report data."""
    return workload.to_dict() if workload is not None else None


#: Said first when the release was made with settings the project no longer has.
STALE_WARNING = N_(
    "This release was made with settings (roles, hierarchies or privacy models) that differ from the "
    "project's current ones: it describes the release as it was made, not the current configuration."
)


def _warnings(table: Any, result: Any, roles: Mapping[str, str]) -> list[str]:
    """What the ethics board must know: columns that look knowable but were released unchanged, and
    what makes the release of little use (the same rules the workbench and CLI warn with)."""
    from kanon_engine.data.roles import Role, suggest_roles
    from kanon_engine.project.validation import released_unchanged_warnings, result_warnings

    kept = [c for c, r in roles.items() if r in (Role.INSENSITIVE.value, Role.SENSITIVE.value)]
    found = (
        suggest_roles(table.frame[kept], column_types=getattr(table, "column_types", None)) if kept else []
    )
    suggestions = {x.column: x for x in found}
    issues = released_unchanged_warnings({c: Role(r) for c, r in roles.items()}, suggestions)
    issues += result_warnings(result)
    return [i.message for i in issues] + rows_not_persons_warning(table, roles)


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
            "title": _(title_of(algo_cls, result.algorithm)),
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
            out.append([name.replace("_", " "), _("not set") if value is None else str(value)])
        else:
            out.append([spec.shown_label, _("not set") if value is None else spec.show(value)])
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
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#4a5568">'
            f"{html.escape(formats.count(value))}</text>"
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
        + html.escape(
            _("group size (records sharing their quasi-identifier values); red: below k = {k}", k=k)
        )
        + "</text>"
    )
    parts.append(
        f'<text x="14" y="{top + ph / 2:.1f}" text-anchor="middle" fill="#2d3748" '
        f'transform="rotate(-90 14 {top + ph / 2:.1f})">{html.escape(_("records"))}</text>'
    )
    parts.append(_legend(left + pw, [(_("original data"), "#a0aec0"), (_("release"), "#2b6cb0")]))
    parts.append("</svg>")
    return "".join(parts)


def _legend(right: float, entries: Sequence[tuple[str, str]]) -> str:
    """Coloured boxes with their words, ending at ``right``: spaced by the words' length (about 6.5 px a
    character at 11 px), so a longer translation never runs into the next entry."""
    widths = [17 + 6.5 * len(text) + 14 for text, _colour in entries]
    x = right - sum(widths)
    out = []
    for (text, colour), w in zip(entries, widths):
        out.append(
            f'<rect x="{x:.1f}" y="10" width="12" height="12" fill="{colour}"/>'
            f'<text x="{x + 17:.1f}" y="20" fill="#2d3748">{html.escape(text)}</text>'
        )
        x += w
    return "".join(out)


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
        return _("yes") if v else _("no")
    if isinstance(v, (int, np.integer)):
        return formats.count(int(v))
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if v.is_integer() and abs(v) < 1e15:
            return formats.count(v)
        return formats.decimal(float(f"{v:.{digits}g}"), 12) if abs(v) < 1000 else formats.count(v)
    return str(v)


def render_html(report: Mapping[str, Any]) -> str:
    """One self-contained HTML document (inline CSS and SVG; nothing fetched) from a report dict: the
    template ``resources/report/report.html.j2`` filled by :func:`report_view`, in the language the
    report was built in (its ``language``), words and number formats alike."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined)
    env.globals.update(_=_, ngettext=ngettext)
    with using(report.get("language")):
        view = report_view(report)
        return env.get_template("report.html.j2").render(**view, language=current_language()) + "\n"


def report_view(report: Mapping[str, Any]) -> dict[str, Any]:
    """What the template shows, section by section, as text and small tables."""
    sw = report["software"]
    return {
        "title": report["title"],
        "file": report["dataset"]["file"] or _("table"),
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
        "definitions": [_definition(text) for text in report["risk"]["definitions"].values()]
        + [_definition(text) for text in ((report.get("persons") or {}).get("definitions") or {}).values()],
    }


_ROLE_NAMES = {
    "identifier": N_("identifier (removed)"),
    "quasi-identifier": N_("quasi-identifier"),
    "sensitive": N_("sensitive (kept, protected)"),
    "insensitive": N_("insensitive (kept as is)"),
    "person": N_("person (removed; k counts persons)"),
}


def _dataset_section(d: Mapping[str, Any]) -> dict[str, Any]:
    file_rows = [
        [_("File"), d["file"] or _("(not from a file)")],
        [_("SHA-256 of the input file"), _hash(d["sha256"])],
        [_("Records"), _fmt(d["rows"])],
        [_("Columns"), _fmt(d["columns"])],
    ]
    roles = [[col, _(_ROLE_NAMES[role]) if role in _ROLE_NAMES else role] for col, role in d["roles"].items()]
    return {"file": _table(file_rows), "roles": _table(roles, [_("Column"), _("Role")])}


def _configuration_section(c: Mapping[str, Any], r: Mapping[str, Any]) -> dict[str, Any]:
    algo = c["algorithm"]
    params = [list(row) for row in algo.get("parameters_shown") or ()]
    dropped = c["suppression"]["dropped"]
    if not r.get("cell_level"):  # a cell-level release suppresses no record
        params.append(
            [_("suppressed records"), _("dropped from the file") if dropped else _("kept, values shown as *")]
        )
    params.append([_("row order"), _("shuffled") if c["shuffled"] else _("as in the input")])
    hierarchies = [
        [hs["attribute"], hs["source"], _fmt(hs["values"]), _fmt(hs["height"]), _levels_cell(hs["levels"])]
        for hs in c["hierarchies"]
    ]
    return {
        "models": [m["description"] for m in c["models"]],
        "algorithm_title": algo["title"],
        "algorithm_name": algo["name"],
        "parameters": _table(params, [_("Parameter"), _("Value")]),
        "hierarchies": _table(
            hierarchies,
            [_("Quasi-identifier"), _("Source"), _("Values"), _("Height"), _("Levels above the values")],
            (2, 3),
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
            examples = ", ".join(x["examples"]) + (", …" if x["groups"] > len(x["examples"]) else "")
            groups = ngettext("{n} group", "{n} groups", x["groups"])
            lines.append(f"{x['level']}: {groups} ({examples})")
    return Markup("<br>").join(lines)


def _result_section(r: Mapping[str, Any], c: Mapping[str, Any]) -> dict[str, Any]:
    figures = [
        [_("Records"), _fmt(r["records"])],
        [_("Suppressed"), _fmt(r["suppressed"])],
        [_("Records in the release file"), _fmt(r["released_records"])],
        [_("Groups"), _fmt(r["classes"])],
        [_("Smallest group"), _fmt(r["smallest_class"])],
        [_("Run time"), f"{formats.decimal(r['runtime_seconds'], 3, fixed=True)} s"],
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
            [_metric_row(key, v) for key, v in r["metrics"].items()], [_("Metric"), _("Value")], (1,)
        ),
        "chart": Markup(class_size_svg(r["class_size_bands"], k)),
        "notes": list(r["notes"]),
        "model": _model_view(r.get("model")),
        "cell_level": _cell_level_view(r["cell_level"], k) if r.get("cell_level") else None,
    }


def _model_view(model: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The survey's name of the release's model and its description in the report's language."""
    if not model:
        return None
    described = model["description"]  # a catalog id (SURVEY_MODELS)
    return {**model, "description": _(described)}


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
    rows.append([_("All"), _fmt(cl["suppressed_cells"]), _fmt(gen_all), _fmt(star_all), _pct(changed)])
    rd = cl["readings"]
    readings = [
        [
            _("* a value of its own (strict, as checked)"),
            _fmt(rd["strict_smallest_class"]),
            _fmt(rd["strict_records_below_k"]),
        ],
        [_("* matching any value (sdcMicro)"), _fmt(rd["smallest_frequency"]), _fmt(rd["records_below_k"])],
    ]
    used = None
    if cl["transformations"]:
        qis = list(cl["transformations"][0]["levels"])
        trows = [[*(str(t["levels"][q]) for q in qis), _fmt(t["records"])] for t in cl["transformations"]]
        used = _table(trows, [*qis, _("Records")], tuple(range(len(qis) + 1)))
    touched = [
        [_("Records with at least one *"), _fmt(cl["records_touched"])],
        [_("Records with at least one generalized value"), _fmt(cl["records_generalized"])],
        [_("Different transformations used"), _fmt(cl["transformations_used"])],
    ]
    return {
        "cells": _table(
            rows,
            [
                _("Quasi-identifier"),
                _("Replaced by *"),
                _("Generalized"),
                _("Shown as *"),
                _("Share changed"),
            ],
            (1, 2, 3, 4),
        ),
        "touched": _table(touched),
        "star_meaning": _(STAR_MEANING),
        "readings": _table(
            readings, [_("Reading of *"), _("Smallest group"), _("Records below k = {k}", k=k)], (1, 2)
        ),
        "warning": _(MINIMALITY_WARNING),
        "transformations": used,
    }


def _transformation_table(r: Mapping[str, Any], c: Mapping[str, Any]) -> dict[str, Any]:
    heights = {x["attribute"]: x["height"] for x in c["hierarchies"]}
    rows = []
    for q, lv in r["transformation"].items():
        ex = r["quasi_identifiers"].get(q, {}).get("example")
        level = _("{level} of {height}", level=lv, height=heights.get(q, "?"))
        rows.append([q, level, ex if ex and lv else _("original values")])
    return _table(rows, [_("Quasi-identifier"), _("Level"), _("Example released value")])


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
        [_("Records assessed"), _fmt(b["records"]), _fmt(a["records"])],
        [_("Suppressed records"), _fmt(b["suppressed"]), _fmt(a["suppressed"])],
        [_("Groups (equivalence classes)"), _fmt(b["classes"]), _fmt(a["classes"])],
        [_("Smallest group"), _fmt(b["smallest_class"]), _fmt(a["smallest_class"])],
        [_("Prosecutor risk, highest"), pr(b["prosecutor_highest"]), pr(a["prosecutor_highest"])],
        [_("Prosecutor risk, average"), _pct(b["prosecutor_average"]), _pct(a["prosecutor_average"])],
        [_("Records at risk (above {share})", share=_pct(a["threshold"]))]
        + [share(f, "records_above_threshold", "share_above_threshold") for f in (b, a)],
        [_("Journalist risk, highest"), pr(b["journalist_highest"]), pr(a["journalist_highest"])],
        [_("Marketer risk"), _pct(b["marketer"]), _pct(a["marketer"])],
        [_("Sample uniques")] + [share(f, "sample_uniques", "share_sample_uniques") for f in (b, a)],
    ]
    is_table = a["population"] == POPULATION_IS_TABLE
    return {
        "population": text_of(a, "population") if is_table else a["population"],
        "population_is_table": is_table,
        "star_is_value": bool(a.get("star_counted_as_value")),
        "figures": _table(rows, [_("Measure"), _("Original data"), _("Release")], (1, 2)),
    }


def _homogeneity_section(rb: Mapping[str, Any], ra: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [_homogeneity_of(hb, ha) for hb, ha in zip(rb["homogeneity"], ra["homogeneity"])]


def _homogeneity_of(hb: Mapping[str, Any], ha: Mapping[str, Any]) -> dict[str, Any]:
    def row(label: str, key: str, digits: int = 4) -> list[str]:
        return [label, _fmt(hb[key], digits), _fmt(ha[key], digits)]

    rows = [
        row(_("Groups with a single value (homogeneous)"), "homogeneous_classes"),
        row(_("Records in homogeneous groups"), "homogeneous_records"),
        row(_("Distinct l reached (fewest different values in a group)"), "distinct_l"),
        row(_("Entropy l reached"), "entropy_l", 3),
        row(_("t reached, equal distance"), "t_equal", 3),
    ]
    if ha["t_ordered"] is not None:
        rows.append(row(_("t reached, ordered distance"), "t_ordered", 3))
    examples = None
    if ha["examples"]:
        qis = list(ha["examples"][0]["quasi_identifiers"])
        ex_rows = [
            [*(ex["quasi_identifiers"][q] for q in qis), _fmt(ex["size"]), ex["value"]]
            for ex in ha["examples"][:10]
        ]
        examples = _table(ex_rows, [*qis, _("Records"), ha["attribute"]], (len(qis),))
    return {
        "name": ha["attribute"],
        "figures": _table(rows, [_("Measure"), _("Original data"), _("Release")], (1, 2)),
        "examples": examples,
    }


def _linkage_section(link: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not link:
        return None
    people = _fmt(link["external_records"])
    rows = [[_("People on the public list"), people, people]]
    b, a = link["before"], link["after"] or {}

    def singled(side: Mapping[str, Any]) -> str:
        if side.get("people_singled_out") is None:
            return _fmt(None)
        return f"{_fmt(side['people_singled_out'])} ({_pct(float(side.get('share_singled_out') or 0.0))})"

    rows.append([_("Singled out (exactly one matching record)"), singled(b), singled(a)])
    for key, label in (
        ("people_matched", _("Matching at least one record")),
        ("people_unmatched", _("Matching no record")),
    ):
        rows.append([label, _fmt(b[key]), _fmt(a.get(key))])
    return {
        "summary": link["summary"],
        "columns": ", ".join(link["columns"]),
        "file": link.get("list_file") or "",
        "figures": _table(rows, ["", _("Original data"), _("Release")], (1, 2)),
    }


def _release_section(rel: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not rel:
        return None
    return _table(
        [
            [_("File"), rel.get("file")],
            [_("Format"), rel.get("format")],
            [_("Rows"), _fmt(rel.get("rows"))],
            ["SHA-256", _hash(rel.get("sha256"))],
        ]
    )


#: The sign-off rows an ethics board fills in (whole phrases, one place).
SIGN_OFF = {
    "purpose": N_("Purpose of the release"),
    "recipient": N_("Recipient (person, institution)"),
    "approved": N_("Approved by (name, role)"),
    "date": N_("Date and signature"),
}


def _sign_off_rows(sign: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value) rows; an empty value is a blank line to be filled in by hand."""
    return [
        (text_of(SIGN_OFF, "purpose"), sign.get("purpose") or ""),
        (text_of(SIGN_OFF, "recipient"), sign.get("recipient") or ""),
        (text_of(SIGN_OFF, "approved"), sign.get("approved_by") or ""),
        (text_of(SIGN_OFF, "date"), ""),
    ]


def _definition(text: str) -> tuple[str, str]:
    """``term: what it means`` -> (term, meaning); text without a term -> (text, "")."""
    term, _sep, rest = text.partition(": ")
    return (term, rest) if rest else (text, "")


def _when(iso: str) -> str:
    """``2024-05-01 14:03 (UTC+02:00)`` (``01.05.2024 14:03 ...`` in German) from an ISO timestamp."""
    try:
        t = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    zone = t.strftime("%z")
    zone = f" (UTC{zone[:3]}:{zone[3:]})" if zone else ""
    return f"{formats.date(t)} {t.strftime('%H:%M')}{zone}"


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
    its pages, :func:`kanon_engine.release.pdf_check.verify_pdf`) before it replaces ``pdf_path``, so a full
    disk
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
    env["KANON_LANG"] = current_language()  # the renderer's messages in the report's language
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
            _(
                "Making the PDF report {name} took longer than {seconds} s and was stopped.",
                name=name,
                seconds=int(timeout),
            ),
            hint=_("Write the HTML report instead and print it to PDF."),
            where=name,
        ) from None
    except OSError as exc:
        raise DataError(
            _(
                "The PDF report {name} could not be made: {reason}.",
                name=name,
                reason=str(exc.strerror or exc),
            ),
            where=name,
        ) from None
    if proc.returncode != 0 or not out.is_file():
        lines = [ln for ln in (proc.stderr or "").strip().splitlines() if ln.strip()]
        if lines:
            reason = lines[-1].removeprefix("error: ")
        else:
            reason = _("the renderer stopped (code {code})", code=str(proc.returncode))
        if f" {name} " in reason:  # the renderer's own sentence names the report and says it all
            raise DataError(reason, where=name)
        raise DataError(
            _("The PDF report {name} could not be made: {reason}", name=name, reason=reason),
            hint=_("Write the HTML report instead and print it to PDF."),
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
    language: str | None = None,
) -> dict[str, Any]:
    """Build the report and write it as HTML and/or PDF (the CLI's ``--report-html/--report-pdf``).

    Inputs (data, project, release) are never overwritten. With only a PDF wanted, the HTML goes to a
    temporary file next to it, removed afterwards. ``language``: the report's language (``de``, ...;
    None: the language in force), its words and its number and date formats. Returns the report dict.
    """
    inputs = [getattr(table, "source", None), project_path, release_path, getattr(project, "data_path", None)]
    for p in (html_path, pdf_path):
        if p is not None:
            refuse_input_overwrite(Path(p), inputs)
    with using(language):
        return _write_reports(
            table,
            result,
            project,
            html_path,
            pdf_path,
            release_path,
            release=release,
            linkage=linkage,
            threshold=threshold,
            workload=workload,
            run_label=run_label,
            stale=stale,
        )


def _write_reports(
    table: Any,
    result: Any,
    project: Any | None,
    html_path: str | Path | None,
    pdf_path: str | Path | None,
    release_path: str | Path | None,
    **options: Any,
) -> dict[str, Any]:
    report = build_report(
        table,
        result,
        project,
        release_path=release_path,
        **options,
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
