#!/usr/bin/env bash
# Build kanon's Linux bundle and its three installers, offline (no download at build time):
#
#   dist/linux/kanon/                              PyInstaller onedir bundle (packaging/kanon.spec)
#   dist/installers/kanon_<ver>_amd64.deb          system-wide: /opt/kanon, menu entry, `kanon` command;
#                                                  double-click it (Software / GDebi) or `apt install ./…deb`
#   dist/installers/kanon-<ver>-linux-x86_64.run   per-user, no root: self-extracting (makeself), installs
#                                                  into ~/.local/opt/kanon with a menu entry
#   dist/installers/kanon-<ver>-linux-x86_64.tar.gz  unpack anywhere and start ./kanon (or sh install.sh)
#   dist/installers/SHA256SUMS                     checksums of every installer there (Linux and Windows)
#
# usage: bash packaging/build_linux.sh [--skip-bundle] [--fast] [--only deb|run|tar]...
#   --skip-bundle   reuse dist/linux/kanon instead of running PyInstaller again
#   --fast          light compression (zstd -3, gzip -1): for CI smoke tests, not for release
#   --only KIND     build only these installers (repeatable)
# Environment: KANON_VENV (default .venv), KANON_DIST (default dist), KANON_MAINTAINER (the .deb's
#   Maintainer field), KANON_ZSTD_LEVEL (the .deb's zstd level, default 19: 12% smaller than 9 but about
#   3 minutes longer), KANON_GZIP_LEVEL (.run and .tar.gz, default 6), KANON_DRY_RUN=1 (print the
#   system-package installs instead of running them).
#
# Needs: the project's .venv with the pinned PyInstaller (bash packaging/dev.sh test sets it up); Debian
# tools dpkg-deb, readelf/objdump (binutils), makeself. Missing Debian packages are installed with apt
# (makeself, binutils, and the X11/xcb libraries Qt's window plugin needs, so they are bundled). The .deb
# is compressed with zstd: dpkg 1.21.18+ reads it (Debian 12, Ubuntu 22.04 and later), which the bundle's
# glibc requirement implies anyway (it is printed, and checked by the .run installer).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${KANON_VENV:-$ROOT/.venv}"
DIST="${KANON_DIST:-$ROOT/dist}"
BUNDLE="$DIST/linux/kanon"
OUT="$DIST/installers"
STAGE="$DIST/stage"
MAINTAINER="${KANON_MAINTAINER:-kanon maintainers <kanon@localhost>}"
ZSTD_LEVEL="${KANON_ZSTD_LEVEL:-19}"
GZIP_LEVEL="${KANON_GZIP_LEVEL:-6}"

# Debian packages needed to build, and the libraries Qt's platform plugins link. The X11/xcb ones are
# installed on the build machine so that PyInstaller bundles them (libxcb-cursor0 in particular is
# missing from many desktops, and Qt then refuses to start on X11); libGL/libEGL, libxcb and the Wayland
# client libraries are never bundled (they must match the target's drivers and display server) and are
# installed here so the dependency scan below can name their packages for the .deb's Depends.
BUILD_PKGS=(binutils makeself dpkg)
BUNDLED_PKGS=(libglib2.0-0 libegl1 libgl1 libx11-6 libdbus-1-3 libfontconfig1 libxkbcommon0 fonts-dejavu-core
    libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0 libxcb-shape0 libxkbcommon-x11-0
    libwayland-client0 libwayland-cursor0 libwayland-egl1)

say() { printf '[build_linux] %s\n' "$*" >&2; }
die() {
    printf '[build_linux] error: %s\n' "$*" >&2
    exit 1
}

SKIP_BUNDLE=0
KINDS=()
while [[ $# -gt 0 ]]; do
    case "$1" in
    --skip-bundle) SKIP_BUNDLE=1 ;;
    --fast)
        ZSTD_LEVEL=3
        GZIP_LEVEL=1
        ;;
    --only)
        [[ $# -ge 2 ]] || die "--only needs deb, run or tar"
        KINDS+=("$2")
        shift
        ;;
    -h | --help)
        sed -n '2,29p' "$0"
        exit 0
        ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done
[[ ${#KINDS[@]} -gt 0 ]] || KINDS=(deb run tar)
wants() { [[ " ${KINDS[*]} " == *" $1 "* ]]; }

# --- tools ------------------------------------------------------------------------------------------
# shellcheck source=packaging/apt.sh
source "$ROOT/packaging/apt.sh"

command -v dpkg-query >/dev/null 2>&1 || die "this script builds on Debian/Ubuntu (dpkg-query not found)."
apt_install "${BUILD_PKGS[@]}" "${BUNDLED_PKGS[@]}"
for tool in dpkg-deb makeself readelf objdump tar gzip sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing."
done
[[ -x "$VENV/bin/python" ]] || die "no Python environment at $VENV: run 'bash packaging/dev.sh test' first."
"$VENV/bin/python" -c 'import PyInstaller' 2>/dev/null ||
    die "PyInstaller is not installed in $VENV: run 'bash packaging/dev.sh test' first (it installs the pinned one)."

VERSION="$("$VENV/bin/python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])')"
ARCH_DEB="$(dpkg --print-architecture)"
ARCH="$(uname -m)"
DEB="$OUT/kanon_${VERSION}_${ARCH_DEB}.deb"
RUN="$OUT/kanon-${VERSION}-linux-${ARCH}.run"
TGZ="$OUT/kanon-${VERSION}-linux-${ARCH}.tar.gz"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
declare -A SECONDS_FOR=()

timed() { # timed NAME COMMAND...: run, remember the wall time in seconds
    local name="$1" start="$EPOCHREALTIME"
    shift
    "$@"
    SECONDS_FOR[$name]="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
}

# --- 1. the bundle ----------------------------------------------------------------------------------
build_bundle() {
    say "building the onedir bundle with PyInstaller $("$VENV/bin/pyinstaller" --version)"
    rm -rf "$BUNDLE"
    QT_QPA_PLATFORM=offscreen "$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
        --distpath "$DIST/linux" --workpath "$ROOT/build/pyinstaller" packaging/kanon.spec ||
        die "PyInstaller failed (see above)."
}
if [[ "$SKIP_BUNDLE" == 1 ]]; then
    [[ -x "$BUNDLE/kanon" ]] || die "--skip-bundle: there is no bundle at $BUNDLE yet."
    say "reusing the bundle in $BUNDLE"
else
    timed bundle build_bundle
fi

# --- what the bundle needs from the system ----------------------------------------------------------
# Every ELF file's NEEDED libraries that are not in the bundle must come from the target system: they
# become the .deb's Depends (through the Debian package that holds them here), and the highest glibc
# symbol version any file uses is the oldest glibc the bundle runs on.
elf_files() { find "$BUNDLE" -type f \( -name '*.so' -o -name '*.so.*' -o -path "$BUNDLE/kanon" \); }
BUNDLED_NAMES="$(find "$BUNDLE" \( -type f -o -type l \) -name 'lib*.so*' -printf '%f\n' | sort -u)"
SYSTEM_LIBS="$(elf_files | xargs -r readelf -d 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u |
    grep -vxF -f <(printf '%s\n' "$BUNDLED_NAMES") || true)"
GLIBC_MIN="$(elf_files | xargs -r objdump -T 2>/dev/null | grep -oE 'GLIBC_[0-9]+\.[0-9]+(\.[0-9]+)?' |
    sed 's/GLIBC_//' | sort -V | tail -n 1)"
[[ -n "$GLIBC_MIN" ]] || die "could not read the glibc symbol versions of the bundle (objdump)."

lib_package() { # the Debian package that provides a library soname on this machine
    local path
    path="$(/sbin/ldconfig -p | awk -v n="$1" '$1 == n && /x86-64|x86_64|64bit/ && !f {print $NF; f = 1}')"
    [[ -n "$path" ]] || path="$(/sbin/ldconfig -p | awk -v n="$1" '$1 == n && !f {print $NF; f = 1}')"
    [[ -n "$path" ]] || return 1
    dpkg-query -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1 ||
        dpkg-query -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1
}
DEPENDS_PKGS=()
UNRESOLVED=()
while read -r lib; do
    [[ -z "$lib" ]] && continue
    if pkg="$(lib_package "$lib")" && [[ -n "$pkg" ]]; then
        DEPENDS_PKGS+=("$pkg")
    else
        UNRESOLVED+=("$lib")
    fi
done <<<"$SYSTEM_LIBS"
[[ ${#UNRESOLVED[@]} -eq 0 ]] || say "warning: no system library found for: ${UNRESOLVED[*]} (some Qt plugins will not load)"
# libc6 gets the version floor. libgl1, libegl1 and libxcb1 are named whatever the scan says; libfontconfig1
# too although the bundle carries its own copy, because it brings /etc/fonts (fontconfig-config), without
# which the bundled fontconfig finds no system font; and a font package, for the glyphs the bundled DejaVu
# lacks (Qt falls back to system fonts).
mapfile -t DEPENDS_PKGS < <(printf '%s\n' "${DEPENDS_PKGS[@]}" libgl1 libegl1 libfontconfig1 libxcb1 |
    grep -vx 'libc6' | sort -u)
DEPENDS="libc6 (>= ${GLIBC_MIN})"
for pkg in "${DEPENDS_PKGS[@]}"; do DEPENDS+=", $pkg"; done
DEPENDS+=", fonts-dejavu-core | fonts-liberation2 | fonts-noto-core"
say "bundle: $(du -sh "$BUNDLE" | cut -f1), needs glibc >= $GLIBC_MIN and from the system: $(echo "$SYSTEM_LIBS" | tr '\n' ' ')"

# --- shared pieces ----------------------------------------------------------------------------------
rm -rf "$STAGE"
mkdir -p "$STAGE" "$OUT"
ICONS="$STAGE/icons"
mkdir -p "$ICONS"
cp resources/icons/kanon.svg "$ICONS/kanon.svg"
# PNG icons for menus that do not draw SVG (rendered with Qt offscreen from the same SVG)
QT_QPA_PLATFORM=offscreen "$VENV/bin/python" - "$ICONS" <<'PY' || die "could not render the PNG icons."
import sys
from pathlib import Path
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

app = QGuiApplication(["icons"])
out = Path(sys.argv[1])
renderer = QSvgRenderer(str(out / "kanon.svg"))
if not renderer.isValid():
    sys.exit("kanon.svg is not a valid SVG")
for size in (48, 128, 256):
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    if not image.save(str(out / f"kanon-{size}.png")):
        sys.exit(f"cannot write kanon-{size}.png")
PY

desktop_entry() { # desktop_entry EXEC ICON
    cat <<EOF
[Desktop Entry]
Type=Application
Version=1.0
Name=kanon
GenericName=Anonymization workbench
Comment=Make a k-anonymous release of patient records (works offline)
Exec=$1 %f
Icon=$2
Terminal=false
Categories=Science;MedicalSoftware;
StartupWMClass=kanon
EOF
}

# files beside the program in the .tar.gz and the .run: icon, README, per-user installer, uninstaller
portable_tree() { # portable_tree DIR: the bundle (hard-linked, no copy) plus the extras
    local dir="$1"
    mkdir -p "$dir"
    cp -al "$BUNDLE/." "$dir/"
    mkdir -p "$dir/share"
    cp "$ICONS/kanon.svg" "$dir/share/kanon.svg"
    cp "$ICONS/kanon-256.png" "$dir/share/kanon.png"
    sed -e "s/@VERSION@/$VERSION/g" -e "s/@GLIBC_MIN@/$GLIBC_MIN/g" packaging/linux/install.sh >"$dir/install.sh"
    sed -e "s/@VERSION@/$VERSION/g" packaging/linux/uninstall.sh >"$dir/uninstall.sh"
    chmod 755 "$dir/install.sh" "$dir/uninstall.sh"
    cat >"$dir/README.txt" <<EOF
kanon $VERSION for Linux (64-bit) - anonymization workbench, works offline.

Start it without installing:   ./kanon        (double-click "kanon" in your file manager)
Check that it works here:      ./kanon --self-test
Install it for yourself        sh install.sh   (copies it to ~/.local/opt/kanon and adds it to your
(menu entry, no root):                          applications menu; remove with sh ~/.local/opt/kanon/uninstall.sh)

Needs: glibc $GLIBC_MIN or newer (Debian 12, Ubuntu 24.04, Fedora 37 or later) and the OpenGL/EGL
libraries every desktop has (Debian/Ubuntu packages libgl1, libegl1).
kanon never connects to a network. Its log (no patient data) is in ~/.local/share/kanon/kanon/.
Licenses of the bundled software: _internal/licenses/.
EOF
}

# --- 2. .deb ----------------------------------------------------------------------------------------
build_deb() {
    local root="$STAGE/deb"
    mkdir -p "$root/DEBIAN" "$root/opt" "$root/usr/bin" "$root/usr/share/applications" \
        "$root/usr/share/doc/kanon" "$root/usr/share/icons/hicolor/scalable/apps"
    cp -al "$BUNDLE" "$root/opt/kanon"
    ln -s /opt/kanon/kanon "$root/usr/bin/kanon"
    desktop_entry /opt/kanon/kanon kanon >"$root/usr/share/applications/kanon.desktop"
    cp "$ICONS/kanon.svg" "$root/usr/share/icons/hicolor/scalable/apps/kanon.svg"
    local size
    for size in 48 128 256; do
        mkdir -p "$root/usr/share/icons/hicolor/${size}x${size}/apps"
        cp "$ICONS/kanon-$size.png" "$root/usr/share/icons/hicolor/${size}x${size}/apps/kanon.png"
    done
    cat >"$root/usr/share/doc/kanon/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: kanon
Comment: kanon bundles Python, Qt (PySide6, LGPL-3.0), numpy, pandas, pyarrow, pyqtgraph, openpyxl
 and the DejaVu fonts; their license texts are in /opt/kanon/_internal/licenses/ and
 /opt/kanon/_internal/resources/fonts/.
EOF
    local installed_kb
    installed_kb="$(du -sk --apparent-size "$root" | cut -f1)"
    cat >"$root/DEBIAN/control" <<EOF
Package: kanon
Version: $VERSION
Architecture: $ARCH_DEB
Maintainer: $MAINTAINER
Installed-Size: $installed_kb
Depends: $DEPENDS
Section: science
Priority: optional
Description: k-anonymity workbench for patient records (offline)
 kanon turns a table of patient records into a provably k-anonymous release by
 generalization and suppression (Datafly, Samarati, Incognito, optimal search,
 Mondrian), with l-diversity and t-closeness, risk figures and a de-identification
 report. It never connects to a network.
 .
 Installs to /opt/kanon with a menu entry; run "kanon --self-test" to check it.
EOF
    chmod -R u=rwX,go=rX "$root"
    chmod 755 "$root/opt/kanon/kanon"
    say "packing $(basename "$DEB") (zstd -$ZSTD_LEVEL)"
    rm -f "$DEB"
    dpkg-deb --root-owner-group -Zzstd -z"$ZSTD_LEVEL" --build "$root" "$DEB" >/dev/null ||
        die "dpkg-deb failed (see above)."
}

# --- 3. .run (makeself) -----------------------------------------------------------------------------
build_run() {
    local dir="$STAGE/run/kanon-$VERSION"
    portable_tree "$dir"
    rm -f "$RUN"
    say "packing $(basename "$RUN") (makeself, gzip -$GZIP_LEVEL)"
    # gzip: every Linux can unpack it (zstd is not installed everywhere); --sha256 checks the payload
    makeself --gzip --complevel "$GZIP_LEVEL" --sha256 --tar-quietly "$dir" "$RUN" "kanon $VERSION (per-user installer)" \
        ./install.sh >/dev/null || die "makeself failed (see above)."
}

# --- 4. .tar.gz -------------------------------------------------------------------------------------
build_tar() {
    local parent="$STAGE/tar"
    portable_tree "$parent/kanon-$VERSION"
    rm -f "$TGZ"
    say "packing $(basename "$TGZ") (gzip -$GZIP_LEVEL)"
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
        -C "$parent" -cf - "kanon-$VERSION" | gzip -"$GZIP_LEVEL" -n >"$TGZ" || die "tar failed."
}

wants deb && timed deb build_deb
wants run && timed run build_run
wants tar && timed tar build_tar
rm -rf "$STAGE"
bash packaging/sha256sums.sh "$OUT"

say "done:"
{
    printf '  %-44s %8s  %s\n' "bundle $(basename "$BUNDLE")/" "$(du -sh "$BUNDLE" | cut -f1)" \
        "${SECONDS_FOR[bundle]:+built in ${SECONDS_FOR[bundle]} s}"
    for kind in deb run tar; do
        case $kind in deb) f="$DEB" ;; run) f="$RUN" ;; tar) f="$TGZ" ;; esac
        [[ -f "$f" ]] && wants "$kind" && printf '  %-44s %8s  packed in %s s\n' "$(basename "$f")" \
            "$(du -h --apparent-size "$f" | cut -f1)" "${SECONDS_FOR[$kind]:-?}"
    done
    printf '  glibc >= %s; Depends: %s\n' "$GLIBC_MIN" "$DEPENDS"
} >&2
