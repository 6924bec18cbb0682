"""Table sources: pandas in memory, DuckDB, Dask; which one a file runs on, and its settings."""
