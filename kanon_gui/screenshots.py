"""The headless screenshot tour (``python main.py --screenshots DIR``): open the sample (or a given
file), walk every main view, run the project's algorithm, and save one PNG per view.

It drives the window through the same methods the menus call, and waits for background tasks by
spinning the event loop, so the pictures show what a user would see. The README uses these images.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication, QStackedWidget, QTabWidget, QWidget

from kanon_engine.data.roles import Role
from kanon_engine.i18n import N_, _
from kanon_engine.project.project_file import ReportDetails
from kanon_gui.resources import sample_project

WINDOW_SIZE = (1440, 900)
#: The report details the tour's report is signed with (invented, as the sample is; in the tour's language,
#: as a user would type them).
EXAMPLE_DETAILS = (
    N_("Study of length of stay by ward, 2022-2024"),
    N_("Dr. Ana Ruiz, Institute of Health Services Research"),
    N_("M. Keller, data protection officer"),
)


def example_details() -> ReportDetails:
    """:data:`EXAMPLE_DETAILS` in the language in force."""
    return ReportDetails(*(_(text) for text in EXAMPLE_DETAILS))


def wait_until(predicate: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Process events until ``predicate()`` holds (True) or ``timeout`` seconds passed (False)."""
    app = QApplication.instance()
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def settle(ms: int = 150) -> None:
    """Let layouts, timers and repaints happen."""
    end = time.monotonic() + ms / 1000
    app = QApplication.instance()
    while time.monotonic() < end:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.005)


def reveal(widget: QWidget) -> None:
    """Make ``widget`` the visible page of every tab widget / stack above it."""
    child = widget
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QStackedWidget):
            parent.setCurrentWidget(child)
            tabs = parent.parentWidget()
            if isinstance(tabs, QTabWidget):
                tabs.setCurrentWidget(child)
        child = parent
        parent = parent.parentWidget()


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


class _Shooter:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.saved: list[Path] = []

    def save(self, name: str, widget: QWidget) -> Path:
        settle()
        path = self.out / f"{len(self.saved) + 1:02d}_{_slug(name)}.png"
        if not widget.grab().save(str(path)):
            raise OSError(f"could not write {path}")
        self.saved.append(path)
        return path


def _window_size() -> tuple[int, int]:
    """WINDOW_SIZE, or the screen's available size when that is smaller (a 1280x800 display). The
    offscreen platform (the tour without a display) has no real screen, only a nominal 800x800 one:
    fitting to that drew every view squeezed (about 1150 px wide), so there the tour keeps WINDOW_SIZE."""
    screen = QApplication.primaryScreen()
    if screen is None or QApplication.platformName() == "offscreen":
        return WINDOW_SIZE
    area = screen.availableGeometry()
    return min(WINDOW_SIZE[0], area.width()), min(WINDOW_SIZE[1], area.height())


def take_screenshots(out_dir: Path, file: Path | None = None) -> list[Path]:
    """Run the tour; returns the PNG files written (one per view)."""
    from kanon_gui.main_window import MainWindow

    out_dir.mkdir(parents=True, exist_ok=True)
    shot = _Shooter(out_dir)
    window = MainWindow()
    window.ask_before_close = False
    window.resize(*_window_size())
    window.show()
    try:
        shot.save("welcome", window)
        _open(window, shot, file or sample_project())
        _configure(window, shot)
        _run_twice(window, shot)
        if file is None or file == sample_project():
            _workload(window, shot)
        _analysis_and_export(window, shot)
        _utility(window, shot)
        _save_dialog_shot(window, shot)
        _stale_shot(window, shot)
        shot.saved.extend(report_pages(window, out_dir))
    finally:
        window.close()
        window.runner.shutdown()
    return shot.saved


def _open(window: Any, shot: _Shooter, source: Path) -> None:
    """Open the project or data file (and show the import dialog of a delimited file)."""
    from kanon_gui.dialogs.import_dialog import ImportDialog

    if source.suffix.lower() == ".json":
        window.open_project(source)
    else:
        window.load_data(source)
    if not wait_until(lambda: window.state.table is not None and not window.runner.is_busy(), 120):
        raise RuntimeError(f"{source} did not load: {window.message_bar.text()}")
    table = window.state.table
    if table.source is not None and table.source.suffix.lower() in (".csv", ".tsv", ".txt"):
        dialog = ImportDialog(table.source, window)
        dialog.resize(1100, 720)
        dialog.show()
        shot.save("import dialog", dialog)
        dialog.close()


def _configure(window: Any, shot: _Shooter) -> None:
    """The data grid, roles and hierarchy editor, the hierarchy wizard and the Anonymize tab."""
    from kanon_gui.dialogs.hierarchy_wizard import HierarchyWizardDialog

    table = window.state.table
    window.tabs.setCurrentWidget(window.data_panel)
    qi = window.state.columns_with(Role.QUASI_IDENTIFIER)
    first_qi = qi[0] if qi else table.columns[0]
    window.data_panel.show_column(table.columns.index(first_qi))
    shot.save("data grid", window)

    window.tabs.setCurrentWidget(window.attributes_tab)
    window.attributes_panel.select_column(first_qi)
    shot.save("attributes and hierarchy editor", window)

    numeric = next((q for q in qi if table.kind(q).value in ("integer", "decimal")), first_qi)
    wizard = HierarchyWizardDialog(window.state, numeric, window)
    wizard.show()
    shot.save("hierarchy wizard", wizard)
    wizard.close()

    window.tabs.setCurrentWidget(window.algorithm_panel)
    shot.save("anonymize", window)


def _run_twice(window: Any, shot: _Shooter) -> None:
    """Run the project (the Results tab), then a second algorithm so the history and the comparison
    have two entries."""
    if window.state.run_blocker() is not None:
        raise RuntimeError(f"cannot run the sample: {window.state.run_blocker()}")
    window.run()
    if not wait_until(lambda: window.state.current_run is not None and not window.runner.is_busy(), 300):
        raise RuntimeError(f"the run did not finish: {window.message_bar.text()}")
    window.tabs.setCurrentWidget(window.results_panel)
    window.results_panel.select_class(0)
    shot.save("results", window)
    window.results_panel.show_all()
    second = next((a for a in ("datafly", "samarati") if a != window.state.project.algorithm), None)
    names = [
        window.algorithm_panel.list.item(i).data(256) for i in range(window.algorithm_panel.list.count())
    ]
    if second in names:
        window.algorithm_panel.select_algorithm(second)
        window.run()
        wait_until(lambda: len(window.state.runs) == 2 and not window.runner.is_busy(), 300)
        window.state.set_current_run(0)


def _workload(window: Any, shot: _Shooter) -> None:
    """The sample's planned analyses in the Workload tab, and a run measured against them."""
    workload = sample_project().parent / "sample_workload.txt"
    if not workload.is_file():
        return
    window.tabs.setCurrentWidget(window.workload_panel)
    window.workload_panel.load_file(workload)
    window.workload_panel.use()
    runs = len(window.state.runs)
    window.run()
    wait_until(lambda: len(window.state.runs) == runs + 1 and not window.runner.is_busy(), 300)
    window.tabs.setCurrentWidget(window.workload_panel)
    settle(300)
    shot.save("workload", window)


def _analysis_and_export(window: Any, shot: _Shooter) -> None:
    """Every analysis view, the risk tab and the export dialog."""
    panel = window.analysis_panel
    window.tabs.setCurrentWidget(panel)
    for name, view in panel.views():
        reveal(view)
        settle(300)
        shot.save(f"analysis {name}", window)
    dates = [
        q
        for q in window.state.columns_with(Role.QUASI_IDENTIFIER)
        if window.state.table.kind(q).value == "date"
    ]
    if dates:  # a date column's distribution, binned by the calendar
        reveal(panel.charts_view)
        panel.charts_view.set_distribution_column(dates[0])
        shot.save("analysis charts dates", window)
    window.tabs.setCurrentWidget(window.risk_panel)
    wait_until(lambda: not window.runner.is_busy(), 60)
    shot.save("risk", window)
    _linkage_shot(window, shot)
    window.export()
    settle(300)
    shot.save("export dialog", window.export_dialog)
    window.export_dialog.close()


def _utility(window: Any, shot: _Shooter) -> None:
    """The Utility tab: the classifiers trained on the original and on the release, for the sensitive
    attribute (the sample's diagnosis) or else the last column."""
    panel = window.utility_panel
    window.tabs.setCurrentWidget(panel)
    settle(300)
    sensitive = window.state.columns_with(Role.SENSITIVE)
    target = sensitive[0] if sensitive else panel.target.itemText(panel.target.count() - 1)
    panel.target.setCurrentText(target)
    panel.compute()
    wait_until(lambda: panel.figures is not None, 300)
    wait_until(lambda: panel.heat_release.rowCount() > 0, 60)  # cross-tabulated in the background too
    settle(300)
    shot.save("utility", window)


def _linkage_shot(window: Any, shot: _Shooter) -> None:
    """The linkage attack demonstration with the sample's public register (invented people), when the
    tour runs on the sample."""
    from kanon_gui.resources import sample_register

    source = window.state.table.source
    if source is None or source.parent != sample_register().parent or not sample_register().is_file():
        return
    linkage = window.risk_panel.linkage
    window.risk_panel.pages.setCurrentWidget(linkage)
    linkage.load_list(sample_register())
    wait_until(lambda: linkage.outcome is not None and not window.runner.is_busy(), 120)
    shot.save("risk linkage attack", window)
    window.risk_panel.pages.setCurrentIndex(0)


def _save_dialog_shot(window, shot: _Shooter) -> None:
    """The save dialog, which says that a project file holds patient values."""
    from kanon_gui.dialogs.save_project_dialog import SaveProjectDialog

    dialog = SaveProjectDialog(Path.home() / "project.kanon.json", False, window)
    dialog.protect.setChecked(True)
    dialog.show()
    shot.save("save project dialog", dialog)
    dialog.close()


def _stale_shot(window, shot: _Shooter) -> None:
    """The results of a run whose settings were changed afterwards (marked out of date)."""
    state = window.state
    k = state.model_values().get("k", 5)
    state.set_model_values(k=int(k) + 1)
    window.tabs.setCurrentWidget(window.results_panel)
    shot.save("results out of date", window)
    state.set_model_values(k=k)


def report_pages(window, out_dir: Path) -> list[Path]:
    """The de-identification report of the current run as PDF, and each page as PNG (with pdftoppm,
    when it is installed): what an ethics board receives, to be looked at page by page."""
    import shutil
    import subprocess

    from kanon_engine import session

    run = window.state.current_run
    if run is None:
        return []
    pdf = out_dir / "report.pdf"
    project = window.state.project
    if not any(project.report.to_dict().values()):  # what the export dialog's report details would hold
        project = project.with_changes(report=example_details())
    plan = session.ExportPlan(
        None,
        report_pdf=pdf,
        run_label=run.label,
        stale=window.state.is_stale(),
        population_size=window.risk_panel.population_box.population(),
    )
    session.export(run.table, project, run.result, plan)  # the report of the public list's linkage too
    tool = shutil.which("pdftoppm")
    if tool is None:
        print(f"pdftoppm not found: the report is {pdf}, without page images", flush=True)
        return []
    prefix = out_dir / "report_page"
    for old in out_dir.glob("report_page-*.png"):
        old.unlink()
    subprocess.run([tool, "-png", "-r", "70", str(pdf), str(prefix)], check=True, timeout=120)
    return sorted(out_dir.glob("report_page-*.png"))
