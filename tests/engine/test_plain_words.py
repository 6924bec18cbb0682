"""Plain words for people, codes for the CLI and the project file (issue 12, item 11)."""

from __future__ import annotations

import pytest

from kanon_engine.algorithms import get_algorithm
from kanon_engine.algorithms.base import METRIC, SUPPRESSION_LIMIT
from kanon_engine.config import format_percent, parse_fraction
from kanon_engine.data.types import date_format_from_words, describe_date_format
from kanon_engine.errors import ConfigError
from kanon_engine.privacy import model_params


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("5%", 0.05),
        ("5 %", 0.05),
        ("5\u00a0%", 0.05),
        ("0,05", 0.05),
        ("0.05", 0.05),
        (0.05, 0.05),
        ("12,5 %", 0.125),
    ],
)
def test_shares_are_accepted_as_people_write_them(text, share: float) -> None:
    assert parse_fraction(text) == pytest.approx(share)
    assert SUPPRESSION_LIMIT.coerce(text) == pytest.approx(share)
    assert get_algorithm("optimal", suppression_limit=text).parameters["suppression_limit"] == pytest.approx(
        share
    )


@pytest.mark.parametrize("bad", ["150%", "-1 %", "abc", "nan", "5 %%"])
def test_a_bad_share_says_what_is_expected(bad: str) -> None:
    with pytest.raises(ConfigError, match=r"must be a share from 0 % to 100 % \(such as 5 %, 5% or 0.05\)"):
        SUPPRESSION_LIMIT.coerce(bad)


def test_shares_are_shown_as_percentages() -> None:
    assert format_percent(0.05) == "5 %"
    assert format_percent(0.125) == "12.5 %"
    assert SUPPRESSION_LIMIT.show(0.02) == "2 %"


def test_decimal_comma_for_every_number() -> None:
    t = next(p for p in model_params() if p.name == "t")
    assert t.coerce("0,2") == pytest.approx(0.2)


def test_choices_have_plain_words() -> None:
    assert METRIC.show("dm") == "Smallest groups (discernibility, DM)"
    assert METRIC.show("dm-star") == "Smallest groups, ignoring suppression (DM*)"
    assert METRIC.show("cavg") == "Group size closest to k (C_AVG)"
    for spec in model_params():
        if spec.kind == "choice":
            assert len(spec.choice_labels) == len(spec.choices), spec.name


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("%d.%m.%Y", "dd.mm.yyyy"),
        ("%Y-%m-%d", "yyyy-mm-dd"),
        ("%m/%d/%Y", "mm/dd/yyyy"),
        ("%Y-%m-%d %H:%M:%S", "yyyy-mm-dd hh:mm:ss"),
        ("%d %b %Y", "dd mon yyyy"),
    ],
)
def test_date_formats_in_words_and_back(code: str, words: str) -> None:
    assert describe_date_format(code) == words
    assert date_format_from_words(words) == code
    assert date_format_from_words(code) == code
