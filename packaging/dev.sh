#!/usr/bin/env bash
# Set up and start kanon for development. These are the two commands of the README:
#
#   bash packaging/dev.sh run    open the workbench (with no display: anonymize the bundled sample headless)
#   bash packaging/dev.sh test   run the test suite (Qt offscreen), ruff (lint and format) and mypy
#
# Idempotent: installs only what is missing (Debian packages Qt needs, .venv, the pinned Python packages
# from pyproject.toml, reinstalled only when that file changes). Extra arguments go to main.py or pytest.
#
# Environment:
#   PYTHON=/path/to/python3.11   interpreter used to create .venv (default: python3.11, else python3)
#   KANON_OUTPUT_DIR=DIR         where the headless `run` writes (default: ./kanon-output)
#   KANON_DRY_RUN=1              print the commands that would install or start something instead of running them
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VENV="$ROOT/.venv"
STAMP="$VENV/.kanon-installed"
DRY="${KANON_DRY_RUN:-0}"
SAMPLE_PROJECT="resources/sample/sample_project.json"

# Debian packages Qt needs to start at all (offscreen included), with a font so text is not empty boxes.
QT_BASE_PKGS=(libglib2.0-0 libegl1 libgl1 libx11-6 libdbus-1-3 libfontconfig1 libxkbcommon0 fonts-dejavu-core)
# Extra libraries of Qt's xcb platform plugin, for a real window on X11.
QT_WINDOW_PKGS=(libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0 libxcb-shape0
    libxkbcommon-x11-0)
# pdftoppm, used by the report tests to turn PDFs into images.
TEST_PKGS=(poppler-utils)

say() { printf '[dev.sh] %s\n' "$*" >&2; }
die() {
    printf '[dev.sh] error: %s\n' "$*" >&2
    exit 1
}
# Run a command that changes the system or starts kanon, or only print it under KANON_DRY_RUN=1.
act() {
    if [[ "$DRY" == 1 ]]; then
        say "would run: $*"
    else
        "$@"
    fi
}

usage() {
    cat >&2 <<'EOF'
usage: bash packaging/dev.sh run  [ARGS...]   open the kanon workbench (headless: anonymize the sample)
       bash packaging/dev.sh test [ARGS...]   run pytest (Qt offscreen), ruff and mypy; ARGS go to pytest
EOF
}

APT_UPDATED=0
# Install those of the given Debian packages that are not installed yet (apt-get update at most once).
apt_install() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        say "not a Debian-based system: skipping system packages ($*); install their equivalents if Qt fails."
        return 0
    fi
    local missing=() pkg
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$pkg")
        fi
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        return 0
    fi
    local sudo=()
    if [[ "$(id -u)" -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 ||
            die "installing ${missing[*]} needs root: run this as root, or install sudo, or install them yourself."
        sudo=(sudo)
    fi
    say "installing missing system packages: ${missing[*]}"
    if [[ "$APT_UPDATED" == 0 ]]; then
        act ${sudo[@]+"${sudo[@]}"} apt-get update -q || die "apt-get update failed (see above)."
        APT_UPDATED=1
    fi
    act ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}" ||
        die "could not install ${missing[*]} (see apt-get's message above)."
}

py_ok() { # py_ok PYTHON: true if it runs and is 3.11 or newer
    "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1
}

find_python() {
    if [[ -n "${PYTHON:-}" ]]; then
        py_ok "$PYTHON" || die "PYTHON=$PYTHON is not a working Python 3.11 or newer."
        printf '%s\n' "$PYTHON"
        return 0
    fi
    local candidate
    for candidate in python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 && py_ok "$candidate"; then
            printf '%s\n' "$candidate"
            return 0
        fi
    done
    die "Python 3.11 or newer was not found: install it (Debian: apt-get install python3 python3-venv) or set PYTHON=/path/to/python3.11."
}

ensure_venv() {
    if [[ -x "$VENV/bin/python" ]]; then
        py_ok "$VENV/bin/python" ||
            die "$VENV exists but its Python is broken or older than 3.11: delete that folder and run this again."
        return 0
    fi
    [[ -e "$VENV" ]] && die "$VENV exists but holds no Python: delete that folder and run this again."
    local py version
    py="$(find_python)"
    if ! "$py" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        # Debian's own python3 ships without ensurepip; its venv support is a separate package.
        version="$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
        apt_install "python${version}-venv"
    fi
    say "creating .venv with $py ($("$py" -V 2>&1))"
    act "$py" -m venv "$VENV" || die "could not create $VENV with $py (see above)."
}

file_hash() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1
    fi
}

# pip install -e .[dev], but only when pyproject.toml changed since the last successful install.
ensure_python_packages() {
    local want
    want="$(file_hash pyproject.toml)"
    if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
        return 0
    fi
    say "installing kanon and its pinned Python packages into .venv (pyproject.toml is new or changed;" \
        "the first time this downloads several hundred MB and takes a few minutes)"
    act "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q -e ".[dev,cluster]" ||
        die "pip could not install the packages pinned in pyproject.toml (see pip's message above)."
    if [[ "$DRY" != 1 ]]; then
        printf '%s\n' "$want" >"$STAMP"
    fi
    say "Python packages installed"
}

has_display() {
    case "$(uname -s)" in
    Linux | *BSD) [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]] ;;
    *) return 0 ;; # macOS and Windows always have a desktop
    esac
}

cmd_run() {
    if has_display; then
        apt_install "${QT_BASE_PKGS[@]}" "${QT_WINDOW_PKGS[@]}"
    else
        apt_install "${QT_BASE_PKGS[@]}"
    fi
    ensure_venv
    ensure_python_packages
    if has_display; then
        say "starting the kanon workbench"
        act "$VENV/bin/python" main.py "$@"
        return
    fi
    local out="${KANON_OUTPUT_DIR:-$ROOT/kanon-output}"
    say "No display was found (DISPLAY and WAYLAND_DISPLAY are unset), so instead of opening the window" \
        "this anonymizes the bundled sample with the command-line engine into $out/."
    act mkdir -p "$out"
    local rc=0
    act "$VENV/bin/python" -m kanon_engine anonymize --project "$SAMPLE_PROJECT" \
        --output "$out/release.csv" --report "$out/report.json" || rc=$?
    [[ $rc -eq 0 ]] || die "the command-line engine failed (exit code $rc; its message is above)."
    say "done: the release is $out/release.csv and the report is $out/report.json"
}

cmd_test() {
    apt_install "${QT_BASE_PKGS[@]}" "${TEST_PKGS[@]}"
    ensure_venv
    ensure_python_packages
    export QT_QPA_PLATFORM=offscreen
    local tests=0 lint=0 format=0 types=0
    # One pytest worker per core (at most 4; KANON_TEST_WORKERS=1 runs them in one process): the suite is
    # single-threaded and CI's time limit is 30 minutes. Whole test files go to one worker (--dist loadfile),
    # so a module's fixtures are built once; an explicit -n among the arguments wins.
    local workers="${KANON_TEST_WORKERS:-$(nproc 2>/dev/null || echo 1)}"
    ((workers > 4)) && workers=4
    local parallel=()
    if ((workers > 1)) && [[ " $* " != *" -n "* && " $* " != *" -p no:xdist "* ]]; then
        parallel=(-n "$workers" --dist loadfile)
    fi
    say "running the test suite (pytest, Qt offscreen, ${workers} worker(s))"
    act "$VENV/bin/python" -m pytest -q "${parallel[@]}" "$@" || tests=$?
    if [[ $tests -eq 5 ]]; then
        say "pytest collected no tests (exit code 5): nothing to fail"
        tests=0
    fi
    say "running ruff check and ruff format --check"
    act "$VENV/bin/ruff" check . || lint=$?
    act "$VENV/bin/ruff" format --check . || format=$?
    say "running mypy (the engine, configured in pyproject.toml)"
    act "$VENV/bin/python" -m mypy || types=$?
    if [[ $tests -ne 0 ]]; then
        die "tests failed (pytest exit code $tests; see above)."
    fi
    if [[ $lint -ne 0 ]]; then
        die "ruff found problems (see above; '.venv/bin/ruff check --fix .' fixes many of them)."
    fi
    if [[ $format -ne 0 ]]; then
        die "some files are not formatted (see above; '.venv/bin/ruff format .' formats them)."
    fi
    if [[ $types -ne 0 ]]; then
        die "mypy found type errors in kanon_engine (see above)."
    fi
    say "tests, ruff and mypy passed"
}

main() {
    local command="${1:-}"
    [[ $# -gt 0 ]] && shift
    case "$command" in
    run) cmd_run "$@" ;;
    test) cmd_test "$@" ;;
    -h | --help | help)
        usage
        ;;
    *)
        usage
        exit 2
        ;;
    esac
}

main "$@"
