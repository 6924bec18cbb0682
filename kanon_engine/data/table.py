"""The loaded table: the user's data exactly as read, plus what the import learned about it.

Every column is held as text (pandas ``object``/``str``): the strings of the input are kept so that a
column the release does not touch is exported byte-for-byte as it came in. Missing cells are ``NaN``
(``pd.isna``). Typed views (numbers, dates) are derived on demand from ``column_types``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import numpy as np
import pandas as pd

from kanon_engine.errors import DataError


class ColumnKind(StrEnum):
    """What a column's values look like (import wizard's type detection)."""

    INTEGER = "integer"
    DECIMAL = "decimal"
    DATE = "date"
    CATEGORICAL = "categorical"


@dataclass(frozen=True)
class ColumnType:
    """Detected type of one column: its kind, the share of non-missing values that fit it, the
    date format (strftime style) when it is a date, and how many distinct and missing values it has."""

    kind: ColumnKind
    share: float = 1.0
    date_format: str | None = None
    distinct: int = 0
    missing: int = 0


@dataclass(frozen=True)
class ReadOptions:
    """How a file was read (kept in the project file so it reads the same way next time)."""

    delimiter: str | None = None
    encoding: str | None = None
    quotechar: str = '"'
    header: bool = True
    sheet: str | None = None


@dataclass(frozen=True, eq=False)
class Table:
    """A loaded table. ``frame`` holds the original strings; never modified after loading."""

    frame: pd.DataFrame
    source: Path | None = None
    sha256: str | None = None
    options: ReadOptions = field(default_factory=ReadOptions)
    column_types: dict[str, ColumnType] = field(default_factory=dict)

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self.frame.columns]

    @property
    def n_rows(self) -> int:
        return int(len(self.frame))

    def name(self) -> str:
        return self.source.name if self.source else "table"

    def column(self, name: str) -> pd.Series:
        """The column's original strings; a clear error naming the column if it does not exist."""
        self.require_columns([name])
        return self.frame[name]

    def require_columns(self, names: list[str] | tuple[str, ...], what: str = "column") -> None:
        """Raise a DataError naming the first unknown column and listing the known ones."""
        known = set(self.columns)
        for n in names:
            if n not in known:
                cols = ", ".join(self.columns[:20])
                raise DataError(
                    f"The {what} '{n}' is not in {self.name()}.",
                    hint=f"Its columns are: {cols}.",
                    where=n,
                )

    def kind(self, name: str) -> ColumnKind:
        t = self.column_types.get(name)
        return t.kind if t else ColumnKind.CATEGORICAL

    def numeric(self, name: str) -> np.ndarray:
        """The column as float64 (NaN where missing or not a number)."""
        return pd.to_numeric(self.column(name), errors="coerce").to_numpy(dtype=float)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: Path | None = None, **kw) -> Table:
        """Wrap a DataFrame (converted to strings, missing kept missing), detecting column types."""
        from kanon_engine.data.types import detect_types  # local: types imports table

        text = frame.copy()
        for c in text.columns:
            col = text[c]
            if not (pd.api.types.is_object_dtype(col) or pd.api.types.is_string_dtype(col)):
                text[c] = (
                    col.astype(object).where(col.notna(), None).map(lambda v: v if v is None else str(v))
                )
        text.columns = [str(c) for c in text.columns]
        types = kw.pop("column_types", None) or detect_types(text)
        return cls(text, source=source, column_types=types, **kw)
