"""Every output path of a command is checked before any work starts: one function for all commands.

Why: a run that writes several files (release, JSON/HTML/PDF reports, value mapping, hierarchies) must not
write the release and then stop on a bad report path, leaving half its outputs behind; two outputs named
alike must not silently replace one another; and no output may be a file the run reads. So, before the
algorithm runs, :func:`check_outputs` checks each output: not a folder, a name that fits its format, not a
protected input (see :class:`kanon_engine.release.fileio.InputGuard`), distinct from every other output, and
in a
folder that exists and can be written (by creating and removing a temporary file there, the only test that
is true on every system and network share). The writers still refuse inputs themselves, at write time.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kanon_engine.errors import ConfigError, DataError
from kanon_engine.i18n import N_, _, word_of
from kanon_engine.release.fileio import (
    FORMATS_BY_SUFFIX,
    InputGuard,
    Protected,
    check_not_input,
    os_error,
    same_file,
    temp_file_beside,
)

#: File name endings each kind of output is usually given; a name ending as *another* kind's is refused
#: (``--report-pdf report.html`` is a mix-up), a name ending otherwise is accepted.
SUFFIXES: dict[str, tuple[str, ...]] = {
    "release": tuple(FORMATS_BY_SUFFIX),
    "JSON report": (".json",),
    "HTML report": (".html", ".htm"),
    "PDF report": (".pdf",),
    "hierarchy": (".csv", ".txt"),
    "value mapping": (".csv", ".txt"),
    "project": (".json",),
    "chart": (".png", ".svg"),
}
#: The files each command-line flag names when a command reads it, and what they are.
INPUT_FLAGS: dict[str, str] = {
    "input": N_("the data file"),
    "project": N_("the project file"),
    "release": N_("the release assessed"),
    "population": N_("the population file"),
    "external": N_("the public list"),
    "workload": N_("the workload file"),
    "check": N_("the hierarchy file checked"),
}
#: Output flags of the commands, and the kind of file each writes.
OUTPUT_FLAGS: dict[str, tuple[str, str]] = {
    "output": ("--output", "release"),
    "report": ("--report", "JSON report"),
    "report_html": ("--report-html", "HTML report"),
    "report_pdf": ("--report-pdf", "PDF report"),
    "save_project": ("--save-project", "project"),
}


@dataclass(frozen=True)
class Output:
    """One file a command will write: its path, kind (a key of :data:`SUFFIXES`) and how the user
    named it (a flag such as ``--report-pdf``, or words such as "the release file")."""

    path: Path
    kind: str
    label: str


def check_outputs(outputs: Sequence[Output], protect: Iterable[Protected] = ()) -> None:
    """Raise a ConfigError/DataError naming the first output that cannot be written as asked.

    ``protect`` adds inputs to those of the registered guards. Nothing is written, except a temporary
    file of kanon's naming created and removed in each output folder to prove it can be written.
    """
    protect = list(protect)
    checked: list[Output] = []
    for out in outputs:
        path = Path(out.path)
        if path.is_dir():
            example = path / f"{'release' if out.kind == 'release' else 'report'}{_first_suffix(out.kind)}"
            raise ConfigError(
                _("{cap} names the folder {path}, not a file.", cap=_cap(out.label), path=path),
                hint=_("Give a file name inside it, for example {example}.", example=example),
                where=str(path),
            )
        try:
            check_not_input(path, protect)
        except DataError as exc:
            raise exc.prefixed(_cap(out.label)) from None
        for other in checked:
            if same_file(path, other.path):
                raise ConfigError(
                    _(
                        "{cap} and {label} both name {name}; one would replace the other.",
                        cap=_cap(other.label),
                        label=out.label,
                        name=path.name,
                    ),
                    hint=_("Give each output its own file name."),
                    where=str(path),
                )
        _check_name(out, path)
        _check_folder(out, path)
        checked.append(out)


def _first_suffix(kind: str) -> str:
    return SUFFIXES.get(kind, (".csv",))[0]


def _check_name(out: Output, path: Path) -> None:
    """The release's format comes from its name; other kinds only refuse the ending of another kind.
    A kind not in :data:`SUFFIXES` (a release whose format was chosen apart from its name) passes."""
    if out.kind not in SUFFIXES:
        return
    suffix = path.suffix.lower()
    if out.kind == "release":
        if suffix not in FORMATS_BY_SUFFIX:
            raise ConfigError(
                _(
                    "{cap} {name}: kanon picks the release's format from the end of its name, and this "
                    "one names none it writes.",
                    cap=_cap(out.label),
                    name=path.name,
                ),
                hint=_("End the name in .csv, .tsv, .xlsx or .parquet."),
                where=str(path),
            )
        return
    own = SUFFIXES.get(out.kind, ())
    for kind, suffixes in SUFFIXES.items():
        if kind != out.kind and suffix in suffixes and suffix not in own:
            raise ConfigError(
                _(
                    "{cap} {name}: {a} would be written under a name ending in {suffix}, which is the "
                    "ending of {a2}.",
                    cap=_cap(out.label),
                    name=path.name,
                    a=word_of(_KIND_PHRASES, out.kind),
                    suffix=suffix,
                    a2=word_of(_KIND_PHRASES, kind),
                ),
                hint=_("End the name in {suffix}, or check that the flags are not swapped.", suffix=own[0])
                if own
                else _("Check that the flags are not swapped."),
                where=str(path),
            )


def _cap(label: str) -> str:
    return label[:1].upper() + label[1:]


#: Each kind of output as a phrase with its article, for sentences.
_KIND_PHRASES = {
    "release": N_("a release"),
    "JSON report": N_("a JSON report"),
    "HTML report": N_("an HTML report"),
    "PDF report": N_("a PDF report"),
    "hierarchy": N_("a hierarchy"),
    "value mapping": N_("a value mapping"),
    "project": N_("a project"),
    "chart": N_("a chart"),
}


def _check_folder(out: Output, path: Path) -> None:
    folder = path.absolute().parent
    if not folder.is_dir():
        raise DataError(
            _(
                "{cap}: {name} cannot be written: the folder {folder} does not exist.",
                cap=_cap(out.label),
                name=path.name,
                folder=folder,
            ),
            hint=_("Create the folder or choose another one."),
            where=str(path),
        )
    try:
        with temp_file_beside(path):
            pass
    except DataError as exc:
        raise exc.prefixed(_cap(out.label)) from None
    except OSError as err:  # pragma: no cover - temp_file_beside turns these into DataError
        raise os_error(path, err) from None


# --- the command line's flags -------------------------------------------------------------------------
def guard_cli_inputs(args: argparse.Namespace, project: object | None = None) -> InputGuard:
    """The input guard of a command-line run (``args.guard``, registered by ``main``) filled with every
    file the command reads: the flags of :data:`INPUT_FLAGS`, ``--hierarchy`` files, and the project's
    data and hierarchy files."""
    guard = getattr(args, "guard", None)
    if guard is None:
        guard = InputGuard()
    for name, what in INPUT_FLAGS.items():
        value = getattr(args, name, None)
        if isinstance(value, str):
            guard.add(value, what)
    for item in getattr(args, "hierarchy", None) or []:
        if "=" in item:
            col, file = item.split("=", 1)
            guard.add(file.strip(), _("the hierarchy file of '{column}'", column=col.strip()))
    if project is not None:
        for path, what in project.input_files():  # type: ignore[attr-defined]
            guard.add(path, what)
    return guard


def check_cli_outputs(
    args: argparse.Namespace, project: object | None = None, kinds: dict[str, str] | None = None
) -> None:
    """Check every output flag of a command (``--output``, ``--report``, ``--report-html``,
    ``--report-pdf``) before it starts work; ``kinds`` overrides what a flag writes (``hierarchy``
    writes a hierarchy with ``--output``)."""
    guard = guard_cli_inputs(args, project)
    outputs = []
    for name, (flag, kind) in OUTPUT_FLAGS.items():
        value = getattr(args, name, None)
        if isinstance(value, str) and value:
            outputs.append(Output(Path(value), (kinds or {}).get(name, kind), flag))
    check_outputs(outputs, guard.inputs)
