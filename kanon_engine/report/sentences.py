"""The report's plain words: sentences a reader who is not a specialist can follow, every figure in them
taken from the release's facts (:mod:`kanon_engine.report.facts`) or from the same computation on the
original data, never from an algorithm's bookkeeping.

A sentence about a sensitive attribute states what was measured ("at most 67 % of a group share one
diagnosis"), never more than a privacy model guarantees: distinct l-diversity bounds the number of
values in a group, not how likely the most frequent one is (Machanavajjhala et al. 2007, section 4.1),
so the words give both figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kanon_engine.algorithms.local_bound import certificate_sentence
from kanon_engine.i18n import N_, _, formats, ngettext
from kanon_engine.report.dp_words import dp_sentences
from kanon_engine.report.facts import kept_star_cells
from kanon_engine.report.persons import person_sentences

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


def join(items: Sequence[str]) -> str:
    """``a, b and c`` in the report's language."""
    return formats.join(list(items))


def one_in(p: float) -> str:
    """A probability as ``1 in 5``."""
    if p <= 0:
        return _("none")
    n = 1 / p
    shown = formats.count(n) if abs(n - round(n)) < 0.05 or n >= 10 else formats.decimal(n, 1, fixed=True)
    return _("1 in {n}", n=shown)


def pct(x: float) -> str:
    """A share as a percentage, one decimal (two below 0.1 %)."""
    return formats.percent(x, 1) if x >= 0.001 or x == 0 else formats.percent(x, 2)


def plain_summary(report: Mapping[str, Any]) -> list[str]:
    """Sentences a non-specialist can read (no jargon), from a report dict and its ``facts``."""
    facts = report["facts"]
    out = (
        _values_sentences(facts)
        + person_sentences(report.get("persons"))
        + _star_sentences(facts, report["result"])
        + (  # a DP release says its own words about the records left out (sampling apart from groups < k)
            []
            if report.get("differential_privacy")
            else _suppression_sentences(facts, report["configuration"], report.get("release"))
        )
        + _risk_sentences(facts)
        + [s for name, sens in facts.get("sensitive", {}).items() for s in sensitive_sentences(name, sens)]
    )
    if report.get("linkage"):
        out.append(report["linkage"]["summary"])
    out += dp_sentences(report.get("differential_privacy"))
    return [x[:1].upper() + x[1:] for x in out if x]


def attribute_words(
    q: str, a: Mapping[str, Any], kept: int, all_star: int, share_star: float
) -> tuple[str, bool]:
    """How one quasi-identifier is released, in words, and whether it was removed entirely (every
    record shows ``*``): as it was, as groups like an example, with a share shown as ``*``."""
    star = int(a["star"]) - all_star
    generalized, example = int(a.get("generalized", 0)), a.get("example")
    if kept and star >= kept:
        return q, True
    share = pct(share_star)
    if generalized and example:
        if star:
            return _(
                "{column} (grouped, as in “{example}”; {share} shown as *)",
                column=q,
                example=example,
                share=share,
            ), False
        if generalized + star < kept:
            return _("{column} (partly generalized, as in “{example}”)", column=q, example=example), False
        return _("{column} (as groups such as “{example}”)", column=q, example=example), False
    if star:
        return _("{column} ({share} shown as *)", column=q, share=share), False
    if generalized:
        return _("{column} (generalized)", column=q), False
    return q, False


def _values_sentences(facts: Mapping[str, Any]) -> list[str]:
    """What became of the quasi-identifiers: shown as they were, as groups, partly as *, or removed."""
    rel = facts["release"]
    attributes = rel.get("attributes") or {
        q: {"star": n, "generalized": 0} for q, n in (rel.get("star_cells_per_attribute") or {}).items()
    }
    all_star = int(rel.get("records_all_star", 0))
    kept = int(rel["records"]) - all_star
    shown: list[str] = []
    removed: list[str] = []
    shares = (rel.get("shares") or {}).get("star_per_attribute") or {}
    for q, a in attributes.items():
        words, gone = attribute_words(q, a, kept, all_star, float(shares.get(q, 0.0)))
        (removed if gone else shown).append(words)
    out = []
    smallest = int(rel["min_class_size"])
    if rel["classes"] and shown:
        out.append(
            ngettext(
                "Every person in the released file is in a group of at least {n} person sharing their "
                "{values}, so nobody can be singled out by these values alone.",
                "Every person in the released file is in a group of at least {n} people sharing their "
                "{values}, so nobody can be singled out by these values alone.",
                smallest,
                values=join(shown),
            )
        )
    elif rel["records"]:
        out.append(_("No quasi-identifying value is left in the released file."))
    if removed and shown:
        out.append(
            ngettext(
                "{columns} was removed entirely (shown as *).",
                "{columns} were removed entirely (shown as *).",
                len(removed),
                columns=join(removed),
            )
        )
    return out


def _star_sentences(facts: Mapping[str, Any], res: Mapping[str, Any]) -> list[str]:
    """The values a kept record shows as ``*`` (however they got there), the records showing a broader
    group, and what ``*`` means and gives away in a release that keeps every record."""
    rel = facts["release"]
    cells, records = kept_star_cells(facts)
    out = []
    per = rel.get("kept_star_cells_per_attribute") or {}
    kept = int(rel["records"]) - int(rel.get("records_all_star", 0))
    partly = [q for q, n in per.items() if 0 < n < kept]
    if cells and (partly or res.get("cell_level")):
        listed = [f"{q} {formats.count(n)}" for q, n in per.items() if n]
        out.append(
            ngettext(
                "{cells} value ({share} of the quasi-identifier values) in {records} records is shown as "
                "*: {per_attribute}.",
                "{cells} values ({share} of the quasi-identifier values) in {records} records are shown as "
                "*: {per_attribute}.",
                cells,
                cells=cells,
                share=pct(rel["shares"]["star_cells"]),
                records=records,
                per_attribute=join(listed),
            )
        )
    if not res.get("cell_level"):
        return out
    described = res["model"]["description"]  # a catalog id (SURVEY_MODELS)
    out.insert(
        0,
        _(
            "Every record is kept ({model}: {description}).",
            model=res["model"]["name"],
            description=_(described),
        ),
    )
    generalized = int(rel.get("records_generalized") or 0)
    if generalized:
        out.append(
            ngettext(
                "{n} record shows at least one value as a broader group.",
                "{n} records show at least one value as a broader group.",
                generalized,
                n=generalized,
            )
        )
    certificate = certificate_sentence(res["cell_level"].get("certificate"))  # "" when there is none
    return [*out, *([certificate] if certificate else []), _(STAR_MEANING), _(MINIMALITY_WARNING)]


def _suppression_sentences(
    facts: Mapping[str, Any], conf: Mapping[str, Any], release: Mapping[str, Any] | None
) -> list[str]:
    """The records left out or shown as * everywhere, and the identifying columns removed."""
    rel = facts["release"]
    shares = rel.get("shares") or {}
    out = []
    dropped, all_star = int(rel["records_dropped"]), int(rel.get("records_all_star", 0))
    if dropped:
        out.append(
            ngettext(
                "{n} record ({share}) too unusual to hide was left out of the file.",
                "{n} records ({share}) too unusual to hide were left out of the file.",
                dropped,
                share=pct(float(shares.get("records_dropped", 0.0))),
            )
        )
    if all_star:
        out.append(
            ngettext(
                "{n} record ({share}) too unusual to hide kept none of these values (shown as *); it "
                "belongs to no group.",
                "{n} records ({share}) too unusual to hide kept none of these values (shown as *); they "
                "belong to no group.",
                all_star,
                share=pct(float(shares.get("records_all_star", 0.0))),
            )
        )
    ids = conf["identifiers"]
    if ids:
        pseudonyms = bool(release and release.get("pseudonymized"))
        if pseudonyms:
            text = ngettext(
                "The directly identifying column {columns} was replaced by keyed pseudonyms.",
                "The directly identifying columns {columns} were replaced by keyed pseudonyms.",
                len(ids),
                columns=join(ids),
            )
        else:
            text = ngettext(
                "The directly identifying column {columns} was removed.",
                "The directly identifying columns {columns} were removed.",
                len(ids),
                columns=join(ids),
            )
        out.append(text)
    return out


def _risk_sentences(facts: Mapping[str, Any]) -> list[str]:
    """The chance of re-identifying a record, after and before (the prosecutor model)."""
    out = []
    rel = facts["release"]
    if rel["classes"]:
        risk = rel["risk"]
        out.append(
            _(
                "Someone who knows a person is in the file and knows these values can guess which record "
                "is theirs with a chance of at most {chance} ({share}); {average} on average.",
                chance=one_in(risk["prosecutor_highest"]),
                share=pct(risk["prosecutor_highest"]),
                average=pct(risk["prosecutor_average"]),
            )
        )
    before = facts.get("original")
    if before and before["records"]:
        risk = before["risk"]
        out.append(
            ngettext(
                "Before anonymization, {n} record ({share}) was unique on these values, and the chance "
                "was up to {chance}.",
                "Before anonymization, {n} records ({share}) were unique on these values, and the chance "
                "was up to {chance}.",
                int(risk["sample_uniques"]),
                share=pct(risk["share_sample_uniques"]),
                chance=one_in(risk["prosecutor_highest"]),
            )
        )
    return out


def sensitive_sentences(attribute: str, s: Mapping[str, Any]) -> list[str]:
    """What placing a person in a group tells about their sensitive value, as measured: the groups that
    reveal it (one value only), else the fewest values in a group and the largest share one value
    holds in a group (the attacker's best guess), never "does not reveal"."""
    if s.get("min_distinct") is None:
        return []
    out = []
    if s["homogeneous_classes"]:
        out.append(
            ngettext(
                "In {n} group ({records} records) everyone has the same {attribute}: whoever can place a "
                "person in such a group learns their {attribute} without knowing which record is theirs.",
                "In {n} groups ({records} records) everyone has the same {attribute}: whoever can place a "
                "person in such a group learns their {attribute} without knowing which record is theirs.",
                int(s["homogeneous_classes"]),
                records=int(s["homogeneous_records"]),
                attribute=attribute,
            )
        )
        return out
    out.append(
        ngettext(
            "Every group holds at least {l} different value of {attribute}, and at most {share} of a group "
            "share one: whoever places a person in a group guesses their {attribute} right with a chance "
            "of up to {share}.",
            "Every group holds at least {l} different values of {attribute}, and at most {share} of a "
            "group share one: whoever places a person in a group guesses their {attribute} right with a "
            "chance of up to {share}.",
            int(s["min_distinct"]),
            l=int(s["min_distinct"]),
            attribute=attribute,
            share=pct(float(s["max_share"])),
        )
    )
    return out


def kept_in_words(facts: Mapping[str, Any], cell_level: bool) -> str:
    """What a release did to the records, for status lines and the run history: "12 records suppressed",
    or for a release that keeps every record "every record kept, 146 values shown as *, 7,916 records
    generalized" (the facts' counts; ``*`` however it got there)."""
    rel = facts["release"]
    suppressed = int(rel["records_suppressed"])
    if not cell_level:
        return ngettext("{n} record suppressed", "{n} records suppressed", suppressed)
    cells, _records = kept_star_cells(facts)
    parts = [_("every record kept"), ngettext("{n} value shown as *", "{n} values shown as *", cells)]
    if suppressed:
        parts.append(ngettext("{n} record with every value *", "{n} records with every value *", suppressed))
    generalized = rel.get("records_generalized")
    if generalized:
        parts.append(ngettext("{n} record generalized", "{n} records generalized", int(generalized)))
    return ", ".join(parts)
