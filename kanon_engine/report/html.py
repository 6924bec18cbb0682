"""The report as one self-contained HTML file: the template ``resources/report/report.html.j2`` filled
with small tables and sentences (inline CSS, the chart as inline SVG; no network, no scripts, no external
files). Every figure about the release comes from the report's ``facts``
(:mod:`kanon_engine.report.facts`), every other one from the same computation on the original data or
from the run's own record (its parameters, metrics and run time), in the report's language.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from kanon_engine.i18n import N_, _, current_language, formats, ngettext, text_of, using
from kanon_engine.metrics.labels import metric_label
from kanon_engine.metrics.risk import POPULATION_IS_TABLE
from kanon_engine.release.fileio import atomic_write_text
from kanon_engine.report.charts import class_size_svg
from kanon_engine.report.dp_words import metrics_note, sample_figure_rows, sample_figures
from kanon_engine.report.facts import kept_star_cells, quality_metrics
from kanon_engine.report.population import assumption_sentence, population_section
from kanon_engine.report.sentences import MINIMALITY_WARNING, STAR_MEANING, one_in, pct
from kanon_engine.resources import resources_dir
from kanon_engine.utility import report_section as fitness_section
from kanon_engine.workload.report_section import section as workload_section

#: Where the report's template and style sheet are (``report.html.j2``, ``report.css``).
TEMPLATES = resources_dir() / "report"

#: The sign-off rows an ethics board fills in (whole phrases, one place).
SIGN_OFF = {
    "purpose": N_("Purpose of the release"),
    "recipient": N_("Recipient (person, institution)"),
    "approved": N_("Approved by (name, role)"),
    "date": N_("Date and signature"),
}

_ROLE_NAMES = {
    "identifier": N_("identifier (removed)"),
    "quasi-identifier": N_("quasi-identifier"),
    "sensitive": N_("sensitive (kept, protected)"),
    "insensitive": N_("insensitive (kept as is)"),
    "person": N_("person (removed; k counts persons)"),
}

#: What put a ``*`` in a cell (the keys of ``star_cells_by_cause``).
_CAUSES = {
    "record_suppressed": N_("the record was suppressed (every quasi-identifier *)"),
    "value_suppressed": N_("a single value was suppressed"),
    "top_of_hierarchy": N_("generalized to * by its hierarchy"),
    "in_data": N_("already * in the data"),
}


def table(
    rows: Sequence[Sequence[Any]],
    header: Sequence[str] | None = None,
    num: Sequence[int] = (),
    full: bool = False,
) -> dict[str, Any]:
    """A table for the template's ``table`` macro: cells are text (escaped there) or Markup; ``full``: as
    wide as the page (its words wrap in the columns rather than run past the page's edge)."""
    return {"header": list(header or ()), "rows": [list(r) for r in rows], "num": tuple(num), "full": full}


def _hash(value: str | None) -> Markup:
    return Markup('<span class="hash">{}</span>').format(value or "–")


def fmt(v: Any, digits: int = 4) -> str:
    """A number as the report's language writes it (a dash when unknown)."""
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
    """One self-contained HTML document (inline CSS and SVG; nothing fetched) from a report dict, in the
    language the report was built in (its ``language``), words and number formats alike."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined)
    env.globals.update(_=_, ngettext=ngettext)
    with using(report.get("language")):
        view = report_view(report)
        return env.get_template("report.html.j2").render(**view, language=current_language()) + "\n"


def write_html(report: Mapping[str, Any], path: str | Path) -> Path:
    """Write the HTML report atomically (UTF-8)."""
    path = Path(path)
    atomic_write_text(path, render_html(report))
    return path


def report_view(report: Mapping[str, Any]) -> dict[str, Any]:
    """What the template shows, section by section, as text and small tables."""
    sw = report["software"]
    facts = report["facts"]
    dp = report.get("differential_privacy")
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
        "configuration": _configuration_section(report["configuration"], report["result"], facts),
        "result": _result_section(report["result"], report["configuration"], facts, dp),
        "risk": _risk_section(report["risk"]["before"], report["risk"]["after"], facts, dp),
        "population": population_section(report["risk"]["before"], report["risk"]["after"], table),
        "population_assumption": assumption_sentence(report["risk"].get("population") or {}),
        "homogeneity": _homogeneity_section(report["risk"]["before"], report["risk"]["after"], facts),
        "workload": workload_section(report.get("workload"), table),
        "fitness": fitness_section.view(report.get("fitness"), table),
        "linkage": _linkage_section(report.get("linkage")),
        "release": _release_section(report.get("release")),
        "definitions": [_definition(text) for text in report["risk"]["definitions"].values()]
        + [_definition(text) for text in ((report.get("persons") or {}).get("definitions") or {}).values()],
    }


def _dataset_section(d: Mapping[str, Any]) -> dict[str, Any]:
    file_rows = [
        [_("File"), d["file"] or _("(not from a file)")],
        [_("SHA-256 of the input file"), _hash(d["sha256"])],
        [_("Records"), fmt(d["rows"])],
        [_("Columns"), fmt(d["columns"])],
    ]
    roles = [[col, _(_ROLE_NAMES[role]) if role in _ROLE_NAMES else role] for col, role in d["roles"].items()]
    return {"file": table(file_rows), "roles": table(roles, [_("Column"), _("Role")])}


def row_order_text(rel: Mapping[str, Any]) -> str:
    """The written order of the rows in words: as in the input, or shuffled (and how many rows kept
    their place)."""
    if rel.get("row_order") != "shuffled":
        return _("as in the input")
    if "rows_in_place" not in rel:
        return _("shuffled")
    return ngettext(
        "shuffled ({n} of {records} rows kept its place)",
        "shuffled ({n} of {records} rows kept their place)",
        int(rel["rows_in_place"]),
        records=fmt(int(rel["records"])),
    )


def _configuration_section(
    c: Mapping[str, Any], r: Mapping[str, Any], facts: Mapping[str, Any]
) -> dict[str, Any]:
    algo = c["algorithm"]
    params = [list(row) for row in algo.get("parameters_shown") or ()]
    rel = facts["release"]
    if not r.get("cell_level"):  # a cell-level release suppresses no record
        dropped = c["suppression"]["dropped"] if not rel["records_dropped"] else True
        params.append(
            [_("suppressed records"), _("dropped from the file") if dropped else _("kept, values shown as *")]
        )
    params.append([_("row order"), row_order_text(rel)])
    hierarchies = [
        [hs["attribute"], hs["source"], fmt(hs["values"]), fmt(hs["height"]), _levels_cell(hs["levels"])]
        for hs in c["hierarchies"]
    ]
    return {
        "models": [m["description"] for m in c["models"]],
        "algorithm_title": algo["title"],
        "algorithm_name": algo["name"],
        "parameters": table(params, [_("Parameter"), _("Value")]),
        "hierarchies": table(
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


def figures_rows(facts: Mapping[str, Any], dp: Mapping[str, Any] | None = None) -> list[list[str]]:
    """The release's figures, each under its name (the Result table); a differentially private release
    (``dp``: the report's block) tells the records left out by its sampling apart from those removed."""
    rel = facts["release"]
    cells, records = kept_star_cells(facts)
    if dp:
        rows = [[name, fmt(n)] for name, n in sample_figure_rows(dp, facts)]
    else:
        rows = [
            [_("Records"), fmt(int(rel["records"]) + int(rel["records_dropped"]))],
            [_("Suppressed records (every quasi-identifier *, or left out)"), fmt(rel["records_suppressed"])],
            [_("Records in the release file"), fmt(rel["records"])],
        ]
    rows += [
        [_("Groups"), fmt(rel["classes"])],
        [_("Smallest group"), fmt(rel["min_class_size"])],
    ]
    if "star_cells" in rel:
        rows += [
            [_("Values shown as * (all quasi-identifiers)"), fmt(rel["star_cells"])],
            [_("Values shown as * in records not suppressed"), fmt(cells)],
            [_("Records not suppressed with at least one *"), fmt(records)],
        ]
    if rel.get("records_generalized") is not None:
        rows.append([_("Records with at least one generalized value"), fmt(rel["records_generalized"])])
    return rows


def _result_section(
    r: Mapping[str, Any], c: Mapping[str, Any], facts: Mapping[str, Any], dp: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    # a DP release removed the groups under its own k; a run without k (0) marks no group as too small
    k = int(dp["k"]) if dp else int(c.get("k") or 0)
    p = r["partitions"]
    figures = [
        *figures_rows(facts, dp),
        [_("Run time"), f"{formats.decimal(r['runtime_seconds'], 3, fixed=True)} s"],
    ]
    return {
        "figures": table(figures),
        "per_attribute": _values_table(facts),
        "star_causes": _causes_table(facts),
        "transformation": _transformation_table(r, c, facts) if r["transformation"] else None,
        "partitions": {key: fmt(p[key]) for key in ("boxes", "smallest", "largest", "median")} if p else None,
        "metrics": table(
            [_metric_row(key, v) for key, v in quality_metrics(r["metrics"]).items()],
            [_("Metric"), _("Value")],
            (1,),
        ),
        "metrics_note": metrics_note(dp),
        "chart": Markup(class_size_svg(r["class_size_bands"], k)),
        "notes": list(r["notes"]),
        "model": _model_view(r.get("model")),
        "cell_level": _cell_level_view(r["cell_level"], k) if r.get("cell_level") else None,
    }


def _values_table(facts: Mapping[str, Any]) -> dict[str, Any] | None:
    """Per quasi-identifier, over the records not suppressed: values shown as ``*``, generalized, kept
    as they were, and the share changed (the facts)."""
    rel = facts["release"]
    per = rel.get("kept_star_cells_per_attribute")
    if not per:
        return None
    attrs = rel.get("attributes") or {}
    changed = (rel.get("shares") or {}).get("changed_per_attribute") or {}
    rows = []
    for q, star in per.items():
        a = attrs.get(q)
        gen = None if a is None else int(a["generalized"])
        same = None if a is None else int(a["unchanged"])
        rows.append([q, fmt(star), fmt(gen), fmt(same), pct(changed[q]) if q in changed else "–"])
    header = [_("Quasi-identifier"), _("Shown as *"), _("Generalized"), _("Unchanged"), _("Share changed")]
    return table(rows, header, (1, 2, 3, 4), full=True)


def _causes_table(facts: Mapping[str, Any]) -> dict[str, Any] | None:
    """Where the ``*`` of the release come from (they sum to all the ``*`` cells)."""
    causes = facts["release"].get("star_cells_by_cause")
    if not causes or not facts["release"].get("star_cells"):
        return None
    rows = [[_(_CAUSES[key]), fmt(n)] for key, n in causes.items() if n]
    rows.append([_("All values shown as *"), fmt(facts["release"]["star_cells"])])
    return table(rows, [_("Why the value shows *"), _("Values")], (1,))


def _model_view(model: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The survey's name of the release's model and its description in the report's language."""
    if not model:
        return None
    described = model["description"]  # a catalog id (SURVEY_MODELS)
    return {**model, "description": _(described)}


def _cell_level_view(cl: Mapping[str, Any], k: int) -> dict[str, Any]:
    """The cell-level part of the Result section: both readings of *, the transformations used, and the
    warnings."""
    rd = cl["readings"]
    readings = [
        [
            _("* a value of its own (strict, as checked)"),
            fmt(rd["strict_smallest_class"]),
            fmt(rd["strict_records_below_k"]),
        ],
        [_("* matching any value (sdcMicro)"), fmt(rd["smallest_frequency"]), fmt(rd["records_below_k"])],
    ]
    used = None
    if cl["transformations"]:
        qis = list(cl["transformations"][0]["levels"])
        trows = [[*(str(t["levels"][q]) for q in qis), fmt(t["records"])] for t in cl["transformations"]]
        used = table(trows, [*qis, _("Records")], tuple(range(len(qis) + 1)))
    return {
        "used": table([[_("Different transformations used"), fmt(cl["transformations_used"])]]),
        "star_meaning": _(STAR_MEANING),
        "readings": table(
            readings, [_("Reading of *"), _("Smallest group"), _("Records below k = {k}", k=k)], (1, 2)
        ),
        "warning": _(MINIMALITY_WARNING),
        "transformations": used,
    }


def _transformation_table(
    r: Mapping[str, Any], c: Mapping[str, Any], facts: Mapping[str, Any]
) -> dict[str, Any]:
    heights = {x["attribute"]: x["height"] for x in c["hierarchies"]}
    attrs = facts["release"].get("attributes") or {}
    rows = []
    for q, lv in r["transformation"].items():
        ex = (attrs.get(q) or {}).get("example")
        level = _("{level} of {height}", level=lv, height=heights.get(q, "?"))
        shown = "*" if lv and lv == heights.get(q) else (ex if ex and lv else _("original values"))
        rows.append([q, level, shown])
    return table(rows, [_("Quasi-identifier"), _("Level"), _("Example released value")])


def _metric_row(key: str, value: Any) -> list[Any]:
    """A metric under its true name (the engine's one label registry), what it means, its value as
    people read it (percentages for shares)."""
    label = metric_label(key)
    return [Markup("{}<br><small>{}</small>").format(label.name, label.meaning), label.show(value)]


def _risk_section(
    b: Mapping[str, Any], a: Mapping[str, Any], facts: Mapping[str, Any], dp: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Risk before and after: the groups and the prosecutor figures from the facts (of the original data
    and of the release: one definition of a group), journalist and marketer risk from the risk
    assessment (they depend on the population)."""
    before, after = facts.get("original") or {}, facts["release"]
    rb, ra = before.get("risk") or {}, after["risk"]

    def pr(x: Any) -> str:
        return "–" if x is None else f"{pct(x)} ({one_in(x)})"

    def share(fig: Mapping[str, Any], count: str, part: str) -> str:
        return "–" if count not in fig else f"{fmt(fig[count])} ({pct(fig[part])})"

    rows = [
        [_("Records assessed (not suppressed)"), fmt(before.get("records")), fmt(after["records_in_groups"])],
        *_suppressed_rows(before, after, facts, dp),
        [_("Groups (equivalence classes)"), fmt(before.get("classes")), fmt(after["classes"])],
        [_("Smallest group"), fmt(before.get("min_class_size")), fmt(after["min_class_size"])],
        [_("Prosecutor risk, highest"), pr(rb.get("prosecutor_highest")), pr(ra["prosecutor_highest"])],
        [
            _("Prosecutor risk, average"),
            pct(rb.get("prosecutor_average", 0.0)),
            pct(ra["prosecutor_average"]),
        ],
        [_("Records at risk (above {share})", share=pct(ra["threshold"]))]
        + [share(f, "records_above_threshold", "share_above_threshold") for f in (rb, ra)],
        [_("Journalist risk, highest"), pr(b["journalist_highest"]), pr(a["journalist_highest"])],
        [_("Marketer risk"), pct(b["marketer"]), pct(a["marketer"])],
        [_("Sample uniques")] + [share(f, "sample_uniques", "share_sample_uniques") for f in (rb, ra)],
    ]
    is_table = a["population"] == POPULATION_IS_TABLE
    return {
        "population": text_of(a, "population") if is_table else a["population"],
        "population_is_table": is_table,
        "star_is_value": bool(a.get("star_counted_as_value")),
        "figures": table(rows, [_("Measure"), _("Original data"), _("Release")], (1, 2)),
    }


def _suppressed_rows(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    facts: Mapping[str, Any],
    dp: Mapping[str, Any] | None,
) -> list[list[str]]:
    """The risk table's suppressed records; for a differentially private release, those removed in
    groups smaller than k apart from those its random sampling left out."""
    if not dp:
        return [[_("Suppressed records"), fmt(0 if before else None), fmt(after["records_suppressed"])]]
    f = sample_figures(dp, facts)
    return [
        [_("Suppressed records"), fmt(0 if before else None), fmt(f["records_suppressed_in_small_groups"])],
        [_("Records left out by the random sampling"), "–", fmt(f["records_left_out_by_sampling"])],
    ]


def _homogeneity_section(rb: Mapping[str, Any], ra: Mapping[str, Any], facts: Mapping[str, Any]) -> list[Any]:
    before = (facts.get("original") or {}).get("sensitive") or {}
    after = facts.get("sensitive") or {}
    return [
        _homogeneity_of(hb, ha, before.get(ha["attribute"]) or {}, after.get(ha["attribute"]) or {})
        for hb, ha in zip(rb["homogeneity"], ra["homogeneity"])
    ]


def _homogeneity_of(
    hb: Mapping[str, Any], ha: Mapping[str, Any], fb: Mapping[str, Any], fa: Mapping[str, Any]
) -> dict[str, Any]:
    """One sensitive attribute: the groups revealing it, the fewest values and the largest share of one
    value in a group (the facts), entropy l and t (the risk assessment, on the same groups)."""

    def row(label: str, key: str, digits: int = 4) -> list[str]:
        return [label, fmt(hb[key], digits), fmt(ha[key], digits)]

    def fact_row(label: str, key: str, show: Any = fmt) -> list[str]:
        return [label, *(show(f[key]) if f.get(key) is not None else "–" for f in (fb, fa))]

    rows = [
        fact_row(_("Groups with a single value (homogeneous)"), "homogeneous_classes"),
        fact_row(_("Records in homogeneous groups"), "homogeneous_records"),
        fact_row(_("Distinct l reached (fewest different values in a group)"), "min_distinct"),
        fact_row(_("Largest share of one value in a group"), "max_share", pct),
        row(_("Entropy l reached"), "entropy_l", 3),
        row(_("t reached, equal distance"), "t_equal", 3),
    ]
    if ha["t_ordered"] is not None:
        rows.append(row(_("t reached, ordered distance"), "t_ordered", 3))
    examples = None
    if ha["examples"]:
        qis = list(ha["examples"][0]["quasi_identifiers"])
        ex_rows = [
            [*(ex["quasi_identifiers"][q] for q in qis), fmt(ex["size"]), ex["value"]]
            for ex in ha["examples"][:10]
        ]
        examples = table(ex_rows, [*qis, _("Records"), ha["attribute"]], (len(qis),))
    return {
        "name": ha["attribute"],
        "figures": table(rows, [_("Measure"), _("Original data"), _("Release")], (1, 2)),
        "examples": examples,
    }


def _linkage_section(link: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not link:
        return None
    people = fmt(link["external_records"])
    rows = [[_("People on the public list"), people, people]]
    b, a = link["before"], link["after"] or {}

    def singled(side: Mapping[str, Any]) -> str:
        if side.get("people_singled_out") is None:
            return fmt(None)
        return f"{fmt(side['people_singled_out'])} ({pct(float(side.get('share_singled_out') or 0.0))})"

    rows.append([_("Singled out (exactly one matching record)"), singled(b), singled(a)])
    for key, label in (
        ("people_matched", _("Matching at least one record")),
        ("people_unmatched", _("Matching no record")),
    ):
        rows.append([label, fmt(b[key]), fmt(a.get(key))])
    return {
        "summary": link["summary"],
        "columns": ", ".join(link["columns"]),
        "file": link.get("list_file") or "",
        "figures": table(rows, ["", _("Original data"), _("Release")], (1, 2)),
    }


def _release_section(rel: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not rel:
        return None
    return table(
        [
            [_("File"), rel.get("file")],
            [_("Format"), rel.get("format")],
            [_("Rows"), fmt(rel.get("rows"))],
            ["SHA-256", _hash(rel.get("sha256"))],
        ]
    )


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
