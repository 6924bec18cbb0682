#!/usr/bin/env bash
# Smoke test of the Linux and Windows installers, headless (no display, no network needed):
#
#   1. the bundle:   dist/linux/kanon/kanon --self-test  (offscreen; compared with the source checkout's
#                    window tabs, so a view the bundle forgot is caught)
#   2. libraries:    every library the bundle's ELF files need is bundled or on this system, the Qt
#                    platform plugins (xcb, wayland, offscreen) resolve, and each system library's
#                    Debian package is in the .deb's Depends; prints the glibc floor
#   3. the .deb:     control fields and file list, then `dpkg -x` into a temporary root and the self-test
#                    of its /opt/kanon/kanon, started through a symlink as /usr/bin/kanon is
#   4. the .run:     installed into a temporary HOME as an unprivileged user (no root), checked (command,
#                    menu entry, its own self-test), then uninstalled
#   5. the .tar.gz:  one top folder, no absolute paths; unpacked and self-tested
#   6-11. Windows:   the setup.exe under Wine: silent install per user, the installed copy's self-test,
#                    the real window on Xvfb with a screenshot, uninstall leaving only the user's data,
#                    then install and uninstall for all users (packaging/windows/smoke.sh)
#
# usage: bash packaging/smoke_test.sh [--build] [--fast] [--only linux|windows]
#   --build   build the bundles and the installers first (packaging/build_linux.sh and
#             build_windows.sh); without it, whatever is missing in dist/ is built
#   --fast    passed to the build scripts (light compression; what CI uses)
#   --only    test (and build) only the Linux or only the Windows installers
# Exit code 0 when every check passed. Takes about 1 minute for Linux and 3 for Windows, plus the builds
# (with --fast about 3 minutes for Linux and 8 for Windows on a shared 2-core machine).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${KANON_VENV:-$ROOT/.venv}"
DIST="${KANON_DIST:-$ROOT/dist}"
BUNDLE="$DIST/linux/kanon"
OUT="$DIST/installers"

say() { printf '[smoke] %s\n' "$*" >&2; }
FAILED=0
pass() { printf '[smoke] PASS %s\n' "$*" >&2; }
fail() {
    printf '[smoke] FAIL %s\n' "$*" >&2
    FAILED=$((FAILED + 1))
}
die() {
    printf '[smoke] error: %s\n' "$*" >&2
    exit 2
}
# shellcheck source=packaging/apt.sh
source "$ROOT/packaging/apt.sh"

BUILD=0
BUILD_ARGS=()
LINUX=1
WINDOWS=1
while [[ $# -gt 0 ]]; do
    case "$1" in
    --build) BUILD=1 ;;
    --fast) BUILD_ARGS+=(--fast) ;;
    --only)
        case "${2:-}" in
        linux) WINDOWS=0 ;;
        windows) LINUX=0 ;;
        *) die "--only needs linux or windows" ;;
        esac
        shift
        ;;
    -h | --help)
        sed -n '2,25p' "$0"
        exit 0
        ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

VERSION="$("$VENV/bin/python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])' 2>/dev/null ||
    sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -n 1)"
DEB="$OUT/kanon_${VERSION}_$(dpkg --print-architecture).deb"
RUN="$OUT/kanon-${VERSION}-linux-$(uname -m).run"
TGZ="$OUT/kanon-${VERSION}-linux-$(uname -m).tar.gz"
SETUP="$OUT/kanon-${VERSION}-windows-x64-setup.exe"

if [[ "$LINUX" == 1 ]]; then
    if [[ "$BUILD" == 1 ]]; then
        bash packaging/build_linux.sh ${BUILD_ARGS[@]+"${BUILD_ARGS[@]}"}
    else
        missing=()
        [[ -f "$DEB" ]] || missing+=(--only deb)
        [[ -f "$RUN" ]] || missing+=(--only run)
        [[ -f "$TGZ" ]] || missing+=(--only tar)
        if [[ ! -x "$BUNDLE/kanon" ]]; then
            bash packaging/build_linux.sh ${BUILD_ARGS[@]+"${BUILD_ARGS[@]}"}
        elif [[ ${#missing[@]} -gt 0 ]]; then
            bash packaging/build_linux.sh --skip-bundle ${BUILD_ARGS[@]+"${BUILD_ARGS[@]}"} "${missing[@]}"
        fi
    fi
    [[ -x "$BUNDLE/kanon" ]] || die "no bundle at $BUNDLE"
fi
if [[ "$WINDOWS" == 1 ]]; then
    if [[ "$BUILD" == 1 ]]; then
        bash packaging/build_windows.sh ${BUILD_ARGS[@]+"${BUILD_ARGS[@]}"}
    elif [[ ! -f "$DIST/windows/kanon/kanon.exe" ]]; then
        bash packaging/build_windows.sh ${BUILD_ARGS[@]+"${BUILD_ARGS[@]}"}
    elif [[ ! -f "$SETUP" ]]; then
        bash packaging/build_windows.sh --skip-bundle ${BUILD_ARGS[@]+"${BUILD_ARGS[@]}"}
    fi
    [[ -f "$SETUP" ]] || die "no Windows installer at $SETUP"
fi

T="$(mktemp -d "${TMPDIR:-/tmp}/kanon-smoke.XXXXXX")"
chmod 755 "$T"
cleanup() {
    # the Windows checks run Wine in a prefix inside $T: stop its processes before removing it
    if [[ -n "${WINEPREFIX:-}" ]]; then wineserver -k 2>/dev/null || true; fi
    rm -rf "$T"
}
trap cleanup EXIT

# A clean, headless environment: no display, nothing from this checkout or its venv on any path.
headless() { # headless HOME COMMAND...
    local home="$1"
    shift
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" LANG=C.UTF-8 TMPDIR="$T/tmp" \
        QT_QPA_PLATFORM=offscreen "$@"
}
mkdir -p "$T/tmp" "$T/home"
chmod 1777 "$T/tmp"

# self_test NAME EXECUTABLE: run --self-test headless; pass when it exits 0 and says so
SELFTEST_SECONDS=()
self_test() {
    local name="$1" exe="$2" log="$T/selftest-$1.log" start="$EPOCHREALTIME" rc=0
    headless "$T/home" "$exe" --self-test >"$log" 2>&1 || rc=$?
    local took
    took="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
    SELFTEST_SECONDS+=("$name ${took}s")
    if [[ $rc -eq 0 ]] && grep -q '^self-test passed' "$log"; then
        pass "$name: --self-test ($(grep -c '^ok ' "$log") steps, ${took} s)"
    else
        sed 's/^/    /' "$log" >&2
        fail "$name: --self-test exited with $rc"
    fi
}

# --- Linux (sections 1-5) ---------------------------------------------------------------------------
if [[ "$LINUX" == 1 ]]; then # (not indented: the Linux checks below are unchanged)

# --- 1. the bundle ----------------------------------------------------------------------------------
say "1. bundle $BUNDLE ($(du -sh "$BUNDLE" | cut -f1))"
self_test bundle "$BUNDLE/kanon"
if [[ -x "$VENV/bin/python" ]]; then
    # the window's tabs in the bundle must be those of the source checkout (views imported dynamically
    # would otherwise go missing from a bundle without any error)
    dev_tabs="$(cd "$ROOT" && QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -c \
        'from kanon_gui.selftest import _ensure_app, _window_step; _ensure_app(); print(_window_step())' \
        2>/dev/null || true)"
    frozen_tabs="$(sed -n 's/^ok   main window (offscreen): \(.*\) ([0-9.]* s)$/\1/p' "$T/selftest-bundle.log")"
    if [[ -n "$dev_tabs" && "$dev_tabs" == "$frozen_tabs" ]]; then
        pass "bundle window has the checkout's tabs: $frozen_tabs"
    else
        fail "bundle window tabs differ from the checkout: bundle '$frozen_tabs', checkout '$dev_tabs'"
    fi
fi

# --- 2. libraries -----------------------------------------------------------------------------------
say "2. libraries"
INTERNAL="$BUNDLE/_internal"
QTLIB="$INTERNAL/PySide6/Qt/lib"
libpath="$INTERNAL:$QTLIB"
notfound=""
for f in "$INTERNAL"/libpython3*.so* "$INTERNAL"/PySide6/*.so "$INTERNAL"/PySide6/Qt/plugins/*/*.so \
    "$INTERNAL"/pyarrow/*.so "$BUNDLE/kanon"; do
    [[ -f "$f" ]] || continue
    missing_here="$(LD_LIBRARY_PATH="$libpath" ldd "$f" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')"
    [[ -n "$missing_here" ]] && notfound+="  ${f#"$BUNDLE"/}: $missing_here"$'\n'
done
if [[ -z "$notfound" ]]; then
    pass "every library of the Python, Qt, plugin and pyarrow ELF files resolves (bundle or system)"
else
    fail "libraries not found:"$'\n'"$notfound"
fi
for plugin in xcb wayland offscreen; do
    p="$INTERNAL/PySide6/Qt/plugins/platforms/libq$plugin.so"
    if [[ -f "$p" ]]; then pass "platform plugin $plugin is bundled"; else fail "platform plugin $plugin is missing"; fi
done
for gone in libQt6Network libQt6WebEngineCore libqvnc libqgtk3 libarrow_flight libarrow_s3; do
    if find "$BUNDLE" -name "$gone*" | grep -q .; then fail "$gone is in the bundle (it should be excluded)"; fi
done
pass "no QtNetwork, web engine, VNC, GTK3 theme, Arrow Flight or S3 library in the bundle"
system_libs="$(find "$BUNDLE" -type f \( -name '*.so' -o -name '*.so.*' -o -path "$BUNDLE/kanon" \) -print0 |
    xargs -0 -r env LD_LIBRARY_PATH="$libpath" ldd 2>/dev/null | awk '$3 ~ /^\// {print $3}' |
    grep -v "^$BUNDLE/" | sort -u)"
glibc_min="$(find "$BUNDLE" -type f \( -name '*.so' -o -name '*.so.*' -o -path "$BUNDLE/kanon" \) -print0 |
    xargs -0 -r objdump -T 2>/dev/null | grep -oE 'GLIBC_[0-9]+\.[0-9]+(\.[0-9]+)?' | sed 's/GLIBC_//' |
    sort -V | tail -n 1)"
say "   glibc needed: >= $glibc_min (this machine: $(getconf GNU_LIBC_VERSION))"
say "   system libraries loaded (with their own dependencies): $(for l in $system_libs; do basename "$l"; done | tr '\n' ' ')"

# --- 3. the .deb ------------------------------------------------------------------------------------
say "3. $(basename "$DEB") ($(du -h --apparent-size "$DEB" | cut -f1))"
depends="$(dpkg-deb -f "$DEB" Depends)"
say "   Depends: $depends"
for need in libgl1 libegl1 fonts-dejavu-core "libc6 (>= $glibc_min)"; do
    if [[ ", $depends," == *", $need"* || "$depends" == *"$need"* ]]; then
        pass ".deb depends on $need"
    else
        fail ".deb does not depend on $need"
    fi
done
# libraries the bundle's files link directly and do not carry: their packages must be in Depends (what
# those libraries need in turn comes with their packages)
bundled_names="$(find "$BUNDLE" \( -type f -o -type l \) -name 'lib*.so*' -printf '%f\n' | sort -u)"
direct="$(find "$BUNDLE" -type f \( -name '*.so' -o -name '*.so.*' -o -path "$BUNDLE/kanon" \) -print0 |
    xargs -0 -r readelf -d 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u |
    grep -vxF -f <(printf '%s\n' "$bundled_names") || true)"
say "   linked directly from the system: $(echo "$direct" | tr '\n' ' ')"
covered=1
for name in $direct; do
    # awk reads to the end (no early exit): closing the pipe early would SIGPIPE ldconfig under pipefail
    lib="$(/sbin/ldconfig -p | awk -v n="$name" '$1 == n && !found {print $NF; found = 1}')"
    [[ -n "$lib" ]] || {
        fail "$name is not on this system"
        covered=0
        continue
    }
    pkg="$(dpkg-query -S "$(readlink -f "$lib")" 2>/dev/null | head -n 1 | cut -d: -f1 || true)"
    [[ -z "$pkg" ]] && pkg="$(dpkg-query -S "$lib" 2>/dev/null | head -n 1 | cut -d: -f1 || true)"
    [[ -z "$pkg" || "$pkg" == libc6 ]] && continue
    if [[ "$depends" != *"$pkg"* ]]; then
        fail ".deb Depends lacks $pkg (provides $name)"
        covered=0
    fi
done
[[ $covered == 1 ]] && pass ".deb Depends covers every system library the bundle links directly"
contents="$(dpkg-deb -c "$DEB" | awk '{print $NF}')"
for path in ./opt/kanon/kanon ./usr/share/applications/kanon.desktop ./usr/share/icons/hicolor/scalable/apps/kanon.svg \
    ./usr/share/icons/hicolor/256x256/apps/kanon.png ./opt/kanon/_internal/resources/sample/sample_project.json; do
    if grep -qxF "$path" <<<"$contents"; then pass ".deb holds $path"; else fail ".deb lacks $path"; fi
done
if grep -q ' ./usr/bin/kanon -> /opt/kanon/kanon$' <<<"$(dpkg-deb -c "$DEB")"; then
    pass ".deb links /usr/bin/kanon -> /opt/kanon/kanon"
else
    fail ".deb lacks the /usr/bin/kanon link"
fi
if dpkg-deb -c "$DEB" | awk '{print $2}' | grep -qv '^root/root$'; then
    fail ".deb has files not owned by root"
fi
mkdir -p "$T/debroot"
dpkg -x "$DEB" "$T/debroot"
desktop="$T/debroot/usr/share/applications/kanon.desktop"
if grep -qx 'Exec=/opt/kanon/kanon %f' "$desktop" && grep -qx 'Icon=kanon' "$desktop" &&
    grep -qx 'Type=Application' "$desktop"; then
    pass ".deb menu entry starts /opt/kanon/kanon with the kanon icon"
else
    fail ".deb menu entry is wrong:"$'\n'"$(cat "$desktop")"
fi
if command -v desktop-file-validate >/dev/null 2>&1; then
    desktop-file-validate "$desktop" && pass "desktop-file-validate" || fail "desktop-file-validate"
fi
ln -s "$T/debroot/opt/kanon/kanon" "$T/kanon-via-symlink"
self_test deb "$T/kanon-via-symlink"

# --- 4. the .run ------------------------------------------------------------------------------------
say "4. $(basename "$RUN") ($(du -h --apparent-size "$RUN" | cut -f1))"
RUNHOME="$T/runhome"
mkdir -p "$RUNHOME"
cp "$RUN" "$T/installer.run"
chmod 755 "$T/installer.run"
as_user=()
if [[ "$(id -u)" -eq 0 ]] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
    # prove it needs no root: run it as 'nobody', who can write only to the temporary HOME
    chown -R nobody: "$RUNHOME"
    as_user=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups)
    user_note="as the unprivileged user nobody"
else
    user_note="as $(id -un)"
fi
start="$EPOCHREALTIME"
rc=0
headless "$RUNHOME" ${as_user[@]+"${as_user[@]}"} sh "$T/installer.run" </dev/null >"$T/run.log" 2>&1 || rc=$?
took="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
prefix="$RUNHOME/.local/opt/kanon"
if [[ $rc -eq 0 && -x "$prefix/kanon" ]]; then
    pass ".run installed into \$HOME/.local/opt/kanon $user_note in $took s (extract + copy + self-test)"
else
    sed 's/^/    /' "$T/run.log" >&2
    fail ".run exited with $rc"
fi
if grep -q '^self-test passed' "$prefix/self-test.log" 2>/dev/null; then
    pass ".run ran the self-test of the installed copy: $(grep '^self-test passed' "$prefix/self-test.log")"
else
    fail ".run did not record a passing self-test"
fi
link="$RUNHOME/.local/bin/kanon"
[[ -L "$link" && "$(readlink "$link")" == "$prefix/kanon" ]] && pass ".run made ~/.local/bin/kanon" ||
    fail ".run did not make ~/.local/bin/kanon"
rdesk="$RUNHOME/.local/share/applications/kanon.desktop"
if [[ -f "$rdesk" ]] && grep -qxF "Exec=\"$prefix/kanon\" %f" "$rdesk" && [[ -f "$prefix/share/kanon.png" ]]; then
    pass ".run made the menu entry with its icon"
else
    fail ".run menu entry missing or wrong"
fi
if find "$RUNHOME" ! -user "$(stat -c %U "$RUNHOME")" | grep -q .; then
    fail ".run left files owned by another user in HOME"
fi
headless "$RUNHOME" ${as_user[@]+"${as_user[@]}"} sh "$prefix/uninstall.sh" >"$T/uninstall.log" 2>&1 || true
if [[ ! -e "$prefix" && ! -e "$link" && ! -e "$rdesk" ]]; then
    pass "uninstall.sh removed the program, the command and the menu entry"
else
    sed 's/^/    /' "$T/uninstall.log" >&2
    fail "uninstall.sh left files behind"
fi

# --- 5. the .tar.gz ---------------------------------------------------------------------------------
say "5. $(basename "$TGZ") ($(du -h --apparent-size "$TGZ" | cut -f1))"
tops="$(tar -tzf "$TGZ" | cut -d/ -f1 | sort -u)"
if [[ "$tops" == "kanon-$VERSION" ]] && ! tar -tzf "$TGZ" | grep -qE '^/|(^|/)\.\.(/|$)'; then
    pass ".tar.gz has the single folder kanon-$VERSION/ and only relative paths"
else
    fail ".tar.gz top level is '$tops' or it holds absolute/.. paths"
fi
mkdir -p "$T/tar"
tar -xzf "$TGZ" -C "$T/tar"
for f in kanon install.sh uninstall.sh README.txt share/kanon.png; do
    [[ -e "$T/tar/kanon-$VERSION/$f" ]] || fail ".tar.gz lacks kanon-$VERSION/$f"
done
self_test tar "$T/tar/kanon-$VERSION/kanon"

say "Linux sizes: bundle $(du -sh "$BUNDLE" | cut -f1); .deb $(du -h --apparent-size "$DEB" | cut -f1);" \
    ".run $(du -h --apparent-size "$RUN" | cut -f1); .tar.gz $(du -h --apparent-size "$TGZ" | cut -f1)"
say "self-test wall times: ${SELFTEST_SECONDS[*]}"
fi # Linux

# --- Windows (sections 6-11) ------------------------------------------------------------------------
if [[ "$WINDOWS" == 1 ]]; then
    # shellcheck source=packaging/windows/smoke.sh
    source "$ROOT/packaging/windows/smoke.sh"
    smoke_windows
fi

# --- summary ----------------------------------------------------------------------------------------
if [[ $FAILED -eq 0 ]]; then
    say "all checks passed"
else
    say "$FAILED check(s) failed"
    exit 1
fi
