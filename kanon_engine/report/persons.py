"""What the report says about persons: rows vs persons, what M covers, per-person risk, and the warning
when k counts rows of a table that has several rows per person (issue 33).

Under the person role (:mod:`kanon_engine.data.persons`) every figure here is computed from the
release itself: the released rows' classes (the ``*`` group of kept suppressed rows one class of its
own) with the original person column beside them (:mod:`kanon_engine.metrics.person_risk`). Without
the person role, a column marked identifier or insensitive that repeats across rows whose patient-level
values (birth date, sex, postcode) agree is named, because then k counts rows, not persons.

What M (``--person-knows``) covers, and what it does not: an attacker who knows up to M of a person's
released rows (or all of them) finds at least k persons sharing them; the order of the stays, their
dates beyond what the released columns show, and their number are not part of that promise (Wang &
Fung 2006, (X,Y)-anonymity, covers the combination of values, not sequences).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kanon_engine.data.persons import person_codes, rows_not_persons_warning
from kanon_engine.i18n import _, formats, ngettext
from kanon_engine.metrics.person_risk import definitions, person_risk


def person_facts_of(table: Any, result: Any, threshold: float) -> dict[str, Any] | None:
    """The report's ``persons`` section: the release's persons (:class:`PersonFacts`) and the risk per
    person of the released rows, or None without the person role."""
    facts = getattr(result, "persons", None)
    cfg = result.config
    if facts is None or cfg.person is None:
        return None
    out: dict[str, Any] = {**facts.to_dict(), "k": int(cfg.k), "risk": None, "definitions": definitions()}
    frame = getattr(table, "frame", None)
    if frame is not None and result.row_class is not None and cfg.person in frame.columns:
        person, blank = person_codes(frame[cfg.person], cfg.person_blanks)
        row_class = np.asarray(result.row_class).copy()
        if not cfg.drop_suppressed:  # the kept suppressed rows, * everywhere, are one class
            row_class[row_class < 0] = int(row_class.max(initial=-1)) + 1
        out["risk"] = person_risk(row_class, person, blank, threshold).to_dict()
    return out


def _one_in(p: float) -> str:
    return _("1 in {n}", n=formats.count(round(1 / p))) if p > 0 else _("none")


def person_sentences(p: Mapping[str, Any] | None) -> list[str]:
    """Plain sentences about persons for the report's summary (none without the person role)."""
    if not p:
        return []
    knows = p["person_knows"]
    out = [
        _(
            "The table has several rows per person (column '{column}', {persons} persons), so k counts "
            "persons, not rows: every group of released rows holds rows of at least {k} different persons "
            "(the smallest holds {smallest}). The person column is not in the release.",
            column=p["column"],
            persons=formats.count(p["persons"]),
            k=p["k"],
            smallest=p["min_persons_per_class"],
        ),
        _(
            "An attacker who knows all stays of a person, as the release shows them, still finds at least "
            "{k} persons with those stays.",
            k=p["k"],
        )
        if knows == "all"
        else ngettext(
            "An attacker who knows {m} stay of a person, as the release shows it, finds at least {k} "
            "persons with it.",
            "An attacker who knows up to {m} stays of a person, as the release shows them, finds at least "
            "{k} persons with all of them.",
            int(knows),
            m=knows,
            k=p["k"],
        ),
        _(
            "Not covered: an attacker who also knows the order of a person's stays, their dates beyond the "
            "released values, or their number."
        ),
        ngettext(
            "Suppression counts rows: {lost} person lost some rows to suppression, {all} of them all rows.",
            "Suppression counts rows: {lost} persons lost some rows to suppression, {all} of them all rows.",
            int(p["persons_lost_rows"]),
            lost=p["persons_lost_rows"],
            all=p["persons_lost_all_rows"],
        ),
    ]
    risk = p.get("risk")
    if risk and risk["persons"]:
        out.append(
            _(
                "Per person, the chance of being re-identified through their riskiest released row is at "
                "most {chance}; {average} on average; {uniques} persons are alone in a group.",
                chance=_one_in(risk["prosecutor_highest"]),
                average=formats.percent(risk["prosecutor_average"], 1),
                uniques=risk["sample_uniques"],
            )
        )
    return out


__all__ = ["person_facts_of", "person_sentences", "rows_not_persons_warning"]
