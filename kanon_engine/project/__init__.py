"""The project file and what hangs on it: sealed files, validation, saved runs, the public list."""
