"""What a spreadsheet would change in a CSV release when it opens it.

Excel (and LibreOffice with its defaults) reads every CSV field that looks like a number or a date as one:
the postcode ``06400`` becomes the number 6400, the month ``2023-03`` becomes the date 1 March 2023, the
interval ``1-5`` becomes 1 May, a decimal comma read under an English locale turns ``12,5`` into 125 or
leaves it as text, and a 16-digit code loses its last digits. The file itself is right; what the
recipient sees is not, and a saved copy keeps the change. An XLSX release whose cells are text (see
:func:`kanon_engine.release.fileio.write_table`) has none of these problems.

:func:`spreadsheet_changes` finds the columns of a release where this would happen, each with one
example, so the export dialog can say so before a CSV is written (issue 27). It looks at each column's
distinct values only, with vectorized string matching.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from kanon_engine.i18n import N_, _

#: How Excel reads a value of each kind (a sentence fragment with the example filled in).
CHANGES = {
    "leading_zero": N_("'{value}' becomes {number} (the leading zero is lost)"),
    "date": N_("'{value}' becomes a date"),
    "decimal_comma": N_("'{value}' is read as text, or as a whole number, where the decimal point is a dot"),
    "long_number": N_("'{value}' loses its last digits (Excel keeps 15)"),
}

#: Patterns of the whole value (checked in this order; the first that matches names the change).
PATTERNS = (
    ("leading_zero", r"0\d+"),
    ("long_number", r"\d{16,}"),
    # 2023-03, 2023-03-31, 03/2023, 31.12.2024, 31/12/24, 1-5 (1 May), 12/3 (not 1.5: a decimal number)
    (
        "date",
        r"\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?|\d{1,2}[-/.]\d{4}|\d{1,2}[-/]\d{1,2}(?:[-/]\d{2,4})?"
        r"|\d{1,2}\.\d{1,2}\.\d{2,4}",
    ),
    ("decimal_comma", r"[-+]?\d{1,3}(?:[ .\u00a0\u202f]\d{3})*,\d+|[-+]?\d+,\d+"),
)


@dataclass(frozen=True)
class SpreadsheetChange:
    """One column of the release whose values a spreadsheet would change, with one example."""

    column: str
    kind: str  # a key of CHANGES
    example: str
    values: int  # how many distinct values of the column would change

    def sentence(self) -> str:
        """ "PLZ: '06400' becomes 6400 (the leading zero is lost)"."""
        number = self.example.lstrip("0") or "0"
        change = _(CHANGES[self.kind], value=self.example, number=number)
        return _("{column}: {change}", column=self.column, change=change)


def spreadsheet_changes(release: pd.DataFrame, limit: int = 200_000) -> list[SpreadsheetChange]:
    """The columns of ``release`` that a spreadsheet would change on opening a CSV of it, in column
    order (at most one entry per column: the first kind of :data:`PATTERNS` found). ``limit``: at most
    this many distinct values are looked at per column (the first ones in the file)."""
    out = []
    for column in release.columns:
        values = pd.Series(release[column].dropna().unique()[:limit], dtype=object).astype(str)
        values = values[values.str.len() > 0]
        if values.empty:
            continue
        for kind, pattern in PATTERNS:
            hits = values[values.str.fullmatch(pattern)]
            if len(hits):
                out.append(SpreadsheetChange(str(column), kind, str(hits.iloc[0]), int(len(hits))))
                break
    return out
