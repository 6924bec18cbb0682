"""Table input: reading CSV/TSV/xlsx/Parquet as original strings, sniffing, type detection and roles."""

from kanon_engine.data.io import list_sheets, preview_table, read_table
from kanon_engine.data.roles import Role, RoleSuggestion, suggest_roles
from kanon_engine.data.sniff import detect_encoding, sniff_csv
from kanon_engine.data.table import ColumnKind, ColumnType, ReadOptions, Table
from kanon_engine.data.types import DATE_FORMATS, NUMERIC_SHARE, detect_column, detect_types

__all__ = [
    "DATE_FORMATS",
    "NUMERIC_SHARE",
    "ColumnKind",
    "ColumnType",
    "ReadOptions",
    "Role",
    "RoleSuggestion",
    "Table",
    "detect_column",
    "detect_encoding",
    "detect_types",
    "list_sheets",
    "preview_table",
    "read_table",
    "sniff_csv",
    "suggest_roles",
]
