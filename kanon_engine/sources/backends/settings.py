"""Which engine a project runs on, and its settings (the project file's ``engine`` section, the CLI's
``--engine``, ``--scheduler``, ``--memory-limit``, ``--temp-dir`` and ``--workers``, the workbench's run
options). One :class:`~kanon_engine.config.ParamSpec` per setting drives all three."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from kanon_engine.config import ParamSpec
from kanon_engine.i18n import N_

ENGINES = ("auto", "memory", "duckdb", "dask")
#: What each engine is called on screen and in reports.
ENGINE_TITLES = {
    "memory": N_("In memory (pandas)"),
    "duckdb": N_("DuckDB (larger than memory)"),
    "dask": N_("Dask (a cluster)"),
}

ENGINE_PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec(
        "engine",
        N_("Engine"),
        "choice",
        "auto",
        N_(
            "Where the rows are counted and the release written: memory (pandas, the whole table loaded), "
            "duckdb (embedded, larger than memory, spills to a temporary folder), dask (a cluster, or this "
            "machine's cores), or auto (memory when the file fits, else duckdb)."
        ),
        choices=ENGINES,
        choice_labels=(
            N_("Automatic (in memory when the file fits, else DuckDB)"),
            ENGINE_TITLES["memory"],
            ENGINE_TITLES["duckdb"],
            ENGINE_TITLES["dask"],
        ),
    ),
    ParamSpec(
        "scheduler",
        N_("Dask scheduler"),
        "text",
        None,
        N_(
            "With the dask engine: the scheduler's address (tcp://HOST:8786) or a scheduler file; without "
            "one, a local cluster on this machine's cores is started."
        ),
    ),
    ParamSpec(
        "memory_limit",
        N_("Memory limit"),
        "text",
        None,
        N_(
            "With the duckdb engine: the most memory DuckDB may use, such as 4GB (default: a quarter of "
            "this machine's memory); beyond it DuckDB writes to the temporary folder."
        ),
        presets=("1GB", "2GB", "4GB", "8GB"),
    ),
    ParamSpec(
        "temp_dir",
        N_("Temporary folder"),
        "text",
        None,
        N_(
            "With the duckdb engine: where it keeps the encoded rows and spills (several GB for 100 million "
            "rows; default: the system's temporary folder)."
        ),
    ),
    ParamSpec(
        "workers",
        N_("Local workers"),
        "int",
        None,
        N_(
            "With the dask engine and no scheduler: how many worker processes the local cluster starts "
            "(default: one per core)."
        ),
        minimum=1,
    ),
)


@dataclass(frozen=True)
class EngineSettings:
    """The engine of a project and its settings (None: the default)."""

    engine: str = "auto"
    scheduler: str | None = None
    memory_limit: str | None = None
    temp_dir: str | None = None
    workers: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> EngineSettings:
        """Settings from a project file's ``engine`` section, each checked by its spec."""
        d = d or {}
        specs = {p.name: p for p in ENGINE_PARAMS}
        return cls(**{k: specs[k].coerce(v) for k, v in d.items() if k in specs and v is not None})
