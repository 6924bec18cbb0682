"""Builders on small examples, with the exact rows expected."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kanon_engine.data.table import ColumnKind, ColumnType
from kanon_engine.errors import ConfigError, HierarchyError
from kanon_engine.hierarchy import (
    MISSING_LABEL,
    date_hierarchy,
    default_hierarchy,
    grouping_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    masking_misfits,
    suggest_widths,
    validate_hierarchy,
)

# ------------------------------------------------------------------------------------------ intervals


def test_intervals_exact_rows_in_numeric_order() -> None:
    h = interval_hierarchy("age", ["34", "30", "7", "35", "12"], (5, 10))
    assert h.attribute == "age"
    assert h.rows() == [
        ["7", "[5-10)", "[0-10)", "*"],
        ["12", "[10-15)", "[10-20)", "*"],
        ["30", "[30-35)", "[30-40)", "*"],
        ["34", "[30-35)", "[30-40)", "*"],
        ["35", "[35-40)", "[30-40)", "*"],
    ]


def test_intervals_bottom_and_top_coding() -> None:
    h = interval_hierarchy("age", ["3", "10", "17", "39", "40", "55"], (5, 10), bottom=10, top=40)
    assert h.rows() == [
        ["3", "<10", "<10", "*"],
        ["10", "[10-15)", "[10-20)", "*"],
        ["17", "[15-20)", "[10-20)", "*"],
        ["39", "[35-40)", "[30-40)", "*"],
        ["40", ">=40", ">=40", "*"],
        ["55", ">=40", ">=40", "*"],
    ]


def test_intervals_are_cut_at_top_in_labels() -> None:
    h = interval_hierarchy("age", ["81", "95"], (20,), top=90)
    assert h.rows() == [["81", "[80-90)", "*"], ["95", ">=90", "*"]]


def test_intervals_decimals_keep_original_strings() -> None:
    h = interval_hierarchy("w", pd.Series(["0.3", "1.25", "-0.05", "30", "30.0"]), (0.1, 0.5))
    assert h.rows() == [
        ["-0.05", "[-0.1-0)", "[-0.5-0)", "*"],
        ["0.3", "[0.3-0.4)", "[0-0.5)", "*"],
        ["1.25", "[1.2-1.3)", "[1-1.5)", "*"],
        ["30", "[30-30.1)", "[30-30.5)", "*"],
        ["30.0", "[30-30.1)", "[30-30.5)", "*"],
    ]


def test_intervals_custom_label_and_missing() -> None:
    h = interval_hierarchy("a", pd.Series(["4", None, "6", ""], dtype=object), (5,), label="{lo} to {hi}")
    assert h.rows() == [["4", "0 to 5", "*"], ["6", "5 to 10", "*"], ["", MISSING_LABEL, "*"]]


def test_intervals_without_widths_is_flat() -> None:
    assert interval_hierarchy("a", ["2", "1"], ()).rows() == [["1", "*"], ["2", "*"]]


@pytest.mark.parametrize("widths", [(5, 12), (10, 5), (5, 5), (0,), (-5,), ("a",)])
def test_intervals_bad_widths_name_the_widths(widths) -> None:
    with pytest.raises(ConfigError) as err:
        interval_hierarchy("a", ["1"], widths)
    assert ", ".join(str(w) for w in widths) in str(err.value)


def test_intervals_not_nested_message() -> None:
    with pytest.raises(ConfigError, match=r"got widths \(5, 12\): 12 is not a multiple of 5"):
        interval_hierarchy("a", ["1"], (5, 12))


def test_intervals_bad_bounds_and_label() -> None:
    with pytest.raises(ConfigError, match="bottom code must be below the top code"):
        interval_hierarchy("a", ["1"], (5,), bottom=10, top=10)
    with pytest.raises(ConfigError, match=r"only \{lo\}, \{hi\} and \{last\}"):
        interval_hierarchy("a", ["1"], (5,), label="{low}")


def test_intervals_non_numeric_values_listed() -> None:
    with pytest.raises(HierarchyError) as err:
        interval_hierarchy("age", ["1", "abc", None, "x2", "inf"], (5,))
    assert "The column 'age' has values that are not numbers: 'abc', 'x2' and 'inf'." in str(err.value)


def test_builders_need_values() -> None:
    with pytest.raises(HierarchyError, match="The column 'a' has no values to build a hierarchy from"):
        interval_hierarchy("a", [], (5,))
    assert masking_hierarchy("z", [None]).rows() == [["", "*"]]


def test_suggest_widths() -> None:
    assert suggest_widths(17, 90) == (5, 10, 20)  # the ARX adult age hierarchy's widths
    assert suggest_widths(0, 1, integer=False) == (0.05, 0.1, 0.2)
    assert suggest_widths(1, 4) == (2,)
    assert suggest_widths(0, 13) == (2, 10)
    assert suggest_widths(0, 1000) == (50, 100, 200)
    assert suggest_widths(5, 5) == ()


# ---------------------------------------------------------------------------------------------- dates


def test_dates_default_levels_chronological() -> None:
    h = date_hierarchy("bd", ["1965-09-20", "1964-11-07", "2001-01-01", None])
    assert h.rows() == [
        ["1964-11-07", "1964-11", "1964", "1960-1969", "*"],
        ["1965-09-20", "1965-09", "1965", "1960-1969", "*"],
        ["2001-01-01", "2001-01", "2001", "2000-2009", "*"],
        ["", MISSING_LABEL, MISSING_LABEL, MISSING_LABEL, "*"],
    ]


def test_dates_sweeney_levels_match_the_seed_hierarchy() -> None:
    values = ["1965-09-20", "1965-02-14", "1964-11-07", "1967-03-21"]
    h = date_hierarchy("birth_date", values, levels=("year", "decade"))
    assert h.rows() == [
        ["1964-11-07", "1964", "1960-1969", "*"],
        ["1965-02-14", "1965", "1960-1969", "*"],
        ["1965-09-20", "1965", "1960-1969", "*"],
        ["1967-03-21", "1967", "1960-1969", "*"],
    ]


def test_dates_given_format_and_other_levels() -> None:
    h = date_hierarchy("d", ["01.01.1970", "20.09.1965"], "%d.%m.%Y", levels=("day", "quarter", "century"))
    assert h.rows() == [
        ["20.09.1965", "1965-09-20", "1965-Q3", "1900-1999", "*"],
        ["01.01.1970", "1970-01-01", "1970-Q1", "1900-1999", "*"],
    ]


def test_dates_are_read_with_one_format_never_guessed() -> None:
    """Issue 17: a column mixing formats is an error naming the values, not parsed value by value
    (pandas' mixed parsing read 01.12.2022 as 12 January)."""
    with pytest.raises(HierarchyError, match=r"not dates in the format yyyy-mm-dd: '01.12.2022'"):
        date_hierarchy("d", ["2022-05-01", "2022-06-01", "01.12.2022"], levels=("month",))
    h = date_hierarchy("d", ["01.12.2022", "27.02.2022"], levels=("month",))  # one format: day first
    assert h.rows() == [["27.02.2022", "2022-02", "*"], ["01.12.2022", "2022-12", "*"]]


def test_dates_unparseable_values_listed() -> None:
    with pytest.raises(HierarchyError, match=r"not dates in the format yyyy-mm-dd: 'soon'"):
        date_hierarchy("d", ["2020-01-01", "soon"], "%Y-%m-%d")
    with pytest.raises(HierarchyError, match=r"not dates in the format yyyy-mm-dd: 'soon'"):
        date_hierarchy("d", ["2020-01-01", "soon"])


@pytest.mark.parametrize("levels", [("year", "month"), ("week",), ("year", "year")])
def test_dates_bad_levels(levels) -> None:
    with pytest.raises(ConfigError, match="Date levels must be taken, finest first"):
        date_hierarchy("d", ["2020-01-01"], levels=levels)


# -------------------------------------------------------------------------------------------- masking


def test_masking_zip() -> None:
    h = masking_hierarchy("zip", ["02141", "02138", "02139"])
    assert h.rows() == [
        ["02138", "0213*", "021**", "02***", "0****", "*"],
        ["02139", "0213*", "021**", "02***", "0****", "*"],
        ["02141", "0214*", "021**", "02***", "0****", "*"],
    ]


def test_masking_max_masked() -> None:
    h = masking_hierarchy("zip", ["02141", "02138"], max_masked=2)
    assert h.rows() == [["02138", "0213*", "021**", "*"], ["02141", "0214*", "021**", "*"]]
    assert masking_hierarchy("zip", ["02141"], max_masked=0).rows() == [["02141", "*"]]


def test_masking_masks_only_the_dominant_code_shape() -> None:
    """Issue 27, finding 6: a postcode column with a word in it. The 5-digit codes mask as 5-digit codes
    ("069**", never "0******"), the word and a code of another length are * from level 1 (never
    "inconn*"), missing cells keep their group, and no two levels are alike."""
    values = ["69001", "06400", "69002", "inconnu", "213", None, "", "69001", "01000"]
    h = masking_hierarchy("code", values)
    assert h.rows() == [
        ["01000", "0100*", "010**", "01***", "0****", "*"],
        ["06400", "0640*", "064**", "06***", "0****", "*"],
        ["213", "*", "*", "*", "*", "*"],
        ["69001", "6900*", "690**", "69***", "6****", "*"],
        ["69002", "6900*", "690**", "69***", "6****", "*"],
        ["inconnu", "*", "*", "*", "*", "*"],
        ["", MISSING_LABEL, MISSING_LABEL, MISSING_LABEL, MISSING_LABEL, "*"],
    ]
    assert validate_hierarchy(h) == []
    levels = [tuple(h.matrix[:, j]) for j in range(h.depth)]
    assert len(set(levels)) == len(levels)  # no two identical levels
    assert masking_misfits(pd.Series(values)) == ("99999", ["inconnu", "213"], 2)


def test_masking_letters_and_digits_keep_their_shape() -> None:
    """ICD-like codes of one shape (a letter, two digits) mask like the postcodes; the odd one out goes
    to *; one level per masked character, none repeated."""
    h = masking_hierarchy("icd", ["I10", "E11", "J45", "J46", "C50.1"])
    assert h.rows()[0] == ["C50.1", "*", "*", "*"]
    assert h.rows()[1:] == [
        ["E11", "E1*", "E**", "*"],
        ["I10", "I1*", "I**", "*"],
        ["J45", "J4*", "J**", "*"],
        ["J46", "J4*", "J**", "*"],
    ]


@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_masking_bad_max(bad) -> None:
    with pytest.raises(ConfigError, match="max_masked must be a whole number"):
        masking_hierarchy("z", ["1"], max_masked=bad)


# ------------------------------------------------------------------------------------------- grouping

EDU = [
    {"HS": "school", "BA": "uni", "MA": "uni", "PhD": "uni", "Primary": "school"},
    {"school": "basic", "uni": "higher"},
]


def test_grouping_two_levels_members_together() -> None:
    h = grouping_hierarchy("edu", ["MA", "HS", "BA", "Primary", "PhD"], EDU)
    assert h.rows() == [
        ["HS", "school", "basic", "*"],
        ["Primary", "school", "basic", "*"],
        ["BA", "uni", "higher", "*"],
        ["MA", "uni", "higher", "*"],
        ["PhD", "uni", "higher", "*"],
    ]


def test_grouping_unmapped_values_listed() -> None:
    with pytest.raises(HierarchyError) as err:
        grouping_hierarchy("edu", ["HS", "Kinder", "Other"], EDU)
    assert "no group at level 1 to these values: 'Kinder' and 'Other'" in str(err.value)


def test_grouping_unmapped_groups_listed() -> None:
    with pytest.raises(HierarchyError, match=r"no group at level 2 to these groups of level 1: 'uni'"):
        grouping_hierarchy("edu", ["HS", "BA"], [EDU[0], {"school": "basic"}])


def test_grouping_keeps_given_root_and_missing() -> None:
    h = grouping_hierarchy("sex", ["m", "f", None], [{"m": "*", "f": "*"}])
    assert h.rows() == [["m", "*"], ["f", "*"], ["", "*"]]
    h = grouping_hierarchy("sex", ["m", ""], [{"m": "human", "": "unknown"}])
    assert h.rows() == [["m", "human", "*"], ["", "unknown", "*"]]


def test_grouping_without_levels_is_flat() -> None:
    assert grouping_hierarchy("s", ["b", "a"], []).rows() == [["b", "*"], ["a", "*"]]


# -------------------------------------------------------------------------------------------- default


def test_default_integers_get_nice_intervals() -> None:
    h = default_hierarchy("age", pd.Series([str(v) for v in range(17, 91)]))
    assert h.height == 4
    assert h.rows()[0] == ["17", "[15-20)", "[10-20)", "[0-20)", "*"]
    assert h.rows()[-1] == ["90", "[90-95)", "[90-100)", "[80-100)", "*"]


def test_default_decimals() -> None:
    h = default_hierarchy("bmi", pd.Series(["1.5", "2.25", "3.0"]), ColumnType(ColumnKind.DECIMAL))
    assert h.rows() == [
        ["1.5", "[1.5-1.6)", "[1.4-1.6)", "[1-2)", "*"],
        ["2.25", "[2.2-2.3)", "[2.2-2.4)", "[2-3)", "*"],
        ["3.0", "[3-3.1)", "[3-3.2)", "[3-4)", "*"],
    ]


def test_default_dates_use_the_detected_format() -> None:
    t = ColumnType(ColumnKind.DATE, date_format="%d/%m/%Y")
    h = default_hierarchy("d", pd.Series(["02/03/2020", "01/12/2019"]), t)
    assert h.rows() == [
        ["01/12/2019", "2019-12", "2019", "2010-2019", "*"],
        ["02/03/2020", "2020-03", "2020", "2020-2029", "*"],
    ]
    assert default_hierarchy("d", pd.Series(["2020-01-05", "2021-03-04"])).labels(2).tolist() == [
        "2020",
        "2021",
    ]


def test_default_zip_like_codes_are_masked() -> None:
    h = default_hierarchy(
        "zip", pd.Series(["02138", "02139", None], dtype=object), ColumnType(ColumnKind.INTEGER)
    )
    assert h.rows() == [
        ["02138", "0213*", "021**", "02***", "0****", "*"],
        ["02139", "0213*", "021**", "02***", "0****", "*"],
        ["", MISSING_LABEL, MISSING_LABEL, MISSING_LABEL, MISSING_LABEL, "*"],
    ]


def test_default_two_digit_numbers_are_not_codes() -> None:
    h = default_hierarchy("age", pd.Series(["17", "55", "90"]))
    assert h.labels(1).tolist() == ["[15-20)", "[55-60)", "[90-95)"]


def test_default_categorical_is_flat_and_sorted() -> None:
    h = default_hierarchy("c", pd.Series(["b", "a", np.nan, "b"], dtype=object))
    assert h.rows() == [["a", "*"], ["b", "*"], ["", "*"]]


def test_default_falls_back_to_flat_for_values_that_do_not_fit() -> None:
    t = ColumnType(ColumnKind.INTEGER, share=0.5)
    assert default_hierarchy("c", pd.Series(["1", "x"]), t).rows() == [["1", "*"], ["x", "*"]]
    assert default_hierarchy("c", pd.Series(["7", "7"])).rows() == [["7", "*"]]


def test_default_all_missing() -> None:
    assert default_hierarchy("c", pd.Series([None, None], dtype=object)).rows() == [["", "*"]]
    assert default_hierarchy("c", pd.Series([], dtype=object)).rows() == [["", "*"]]


# --- issue 27: date labels in the language's style, or ISO ---------------------------------------------
@pytest.mark.parametrize(
    "language,day,month,quarter",
    [
        ("en", "2022-03-15", "2022-03", "Q1 2022"),
        ("de", "15.03.2022", "03.2022", "Q1 2022"),
        ("fr", "15/03/2022", "03/2022", "T1 2022"),
        ("es", "15/03/2022", "03/2022", "T1 2022"),
    ],
)
def test_date_labels_in_the_languages_style(language, day, month, quarter) -> None:
    from kanon_engine.hierarchy.builders import date_hierarchy
    from kanon_engine.i18n import using

    values = ["15.03.2022", "01.10.2023"]
    with using(language):
        h = date_hierarchy("d", values, "%d.%m.%Y", ("day", "month", "quarter", "year"), style="language")
        iso = date_hierarchy("d", values, "%d.%m.%Y", ("day", "month", "quarter", "year"))
    assert h.rows()[0] == ["15.03.2022", day, month, quarter, "2022", "*"]
    assert iso.rows()[0] == ["15.03.2022", "2022-03-15", "2022-03", "2022-Q1", "2022", "*"]
    with pytest.raises(ConfigError, match="The date labels must be iso, language; got 'local'"):
        date_hierarchy("d", values, "%d.%m.%Y", style="local")
