"""The one door into the engine (``kanon_engine.session``): what the workbench and the command line both
do with a project, so that neither orchestrates the engine itself. The workbench keeps its widgets and
runs these functions in a worker; the command line keeps its argument parsing.

- open and profile data (:mod:`.profile`): :func:`open_data` (a file the user opened, loaded whole or,
  larger than memory, opened as a table source and profiled), :func:`open_project` (a project's data,
  and its saved runs rebuilt), :func:`profile_source`, :func:`count_column`;
- run (:mod:`.runs`): :func:`run` / :func:`run_project` (an algorithm on a table or a source),
  :func:`measure` (the release against the workload), :func:`apply_node` (the levels of one lattice node
  with the run's settings) and :func:`apply_levels` (levels and settings given), :func:`rebuild_saved_runs`
  (a project's saved runs, without searching again), :func:`project_summary` (a run as the project file
  keeps it);
- export (:mod:`.export`): :func:`export` writes what an :class:`ExportPlan` names (release, value
  mapping, hierarchies, JSON/HTML/PDF reports), every output checked before anything is written;
- say which engine reads the rows and why (:mod:`.engines`).

Where a run goes from the window to the file: the Run button (``kanon_gui.main_window.MainWindow.run``)
takes a frozen snapshot of the project (``AppState.run_request``) and hands :func:`run` to the task
runner; the algorithm (:mod:`kanon_engine.algorithms`) counts the rows into points through the table's
source (:mod:`kanon_engine.sources`), searches, and returns an
:class:`~kanon_engine.result.AnonymizationResult` holding its release plan; back on the GUI thread the
run joins the history. Export (``kanon_gui.dialogs.export_dialog``) makes an :class:`ExportPlan` and runs
:func:`export`, which writes the release through :func:`kanon_engine.release.export.export_release` and
the one guarded atomic writer (:mod:`kanon_engine.release.fileio`), then the reports that cite its
SHA-256. ``python -m kanon_engine anonymize`` takes the same path from its flags.
"""

from kanon_engine.session.engines import is_streamed
from kanon_engine.session.export import ExportOutcome, ExportPlan, export, run_summary
from kanon_engine.session.profile import (
    OpenedData,
    count_column,
    open_data,
    open_project_data,
    profile_source,
)
from kanon_engine.session.runs import (
    RESTORE_RUNS,
    LoadedProject,
    apply_levels,
    apply_node,
    measure,
    open_project,
    project_summary,
    rebuild_saved_runs,
    run,
    run_project,
)

__all__ = [
    "RESTORE_RUNS",
    "ExportOutcome",
    "ExportPlan",
    "LoadedProject",
    "OpenedData",
    "apply_levels",
    "apply_node",
    "count_column",
    "export",
    "is_streamed",
    "measure",
    "open_data",
    "open_project",
    "open_project_data",
    "profile_source",
    "project_summary",
    "rebuild_saved_runs",
    "run",
    "run_project",
    "run_summary",
]
