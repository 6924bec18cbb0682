#!/bin/sh
# Install kanon @VERSION@ for the current user only: no root, no network, nothing outside your home folder.
#
# This script is what runs when you start kanon-@VERSION@-linux-x86_64.run (the self-extracting
# installer); it is also inside the .tar.gz, where you can run it yourself: sh install.sh
#
# What it does:
#   1. checks this computer can run kanon (64-bit Linux, glibc @GLIBC_MIN@ or newer, OpenGL libraries);
#   2. copies kanon to ~/.local/opt/kanon (or --prefix DIR), replacing an older copy only once the new
#      one is in place and has passed its self-test;
#   3. adds "kanon" to your applications menu and a `kanon` command in ~/.local/bin;
#   4. leaves an uninstaller: ~/.local/opt/kanon/uninstall.sh
#
# Options: --prefix DIR     install into DIR instead of ~/.local/opt/kanon
#          --no-menu        do not add the menu entry and the ~/.local/bin/kanon command
#          --no-self-test   do not run the self-test of the installed copy
# (with the .run installer, put them after a double dash: sh kanon-@VERSION@-linux-x86_64.run -- --prefix DIR)
set -eu

VERSION="@VERSION@"
GLIBC_MIN="@GLIBC_MIN@"
HERE="$(cd "$(dirname "$0")" && pwd)"
PREFIX="${HOME}/.local/opt/kanon"
MENU=1
SELFTEST=1
DATA_HOME="${XDG_DATA_HOME:-${HOME}/.local/share}"

say() { printf '%s\n' "$*"; }
fail() {
    printf '\nkanon was NOT installed: %s\n' "$*" >&2
    exit 1
}

while [ $# -gt 0 ]; do
    case "$1" in
    --prefix)
        [ $# -ge 2 ] || fail "--prefix needs a folder."
        PREFIX="$2"
        shift 2
        ;;
    --prefix=*)
        PREFIX="${1#--prefix=}"
        shift
        ;;
    --no-menu)
        MENU=0
        shift
        ;;
    --no-self-test)
        SELFTEST=0
        shift
        ;;
    -h | --help)
        sed -n '2,20p' "$0"
        exit 0
        ;;
    *) fail "unknown option '$1' (see --help)." ;;
    esac
done
case "$PREFIX" in
/*) ;;
*) PREFIX="$(pwd)/$PREFIX" ;;
esac

say "Installing kanon ${VERSION} for user $(id -un) into ${PREFIX}"
if [ "$(id -u)" -eq 0 ]; then
    say "Note: you are root, so this installs for the root account only. To install for every user of this"
    say "computer, use the .deb package instead (kanon_${VERSION}_amd64.deb)."
fi

# --- 1. can this computer run kanon? --------------------------------------------------------------------
[ "$(uname -s)" = Linux ] || fail "this installer is for Linux; use the Windows or macOS installer instead."
[ "$(uname -m)" = x86_64 ] || fail "this installer is for 64-bit Intel/AMD (x86_64) computers; this one is $(uname -m)."
[ -x "$HERE/kanon" ] || fail "the kanon program is missing next to this script ($HERE/kanon): the download may be incomplete."
glibc="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')"
if [ -n "$glibc" ]; then
    older="$(printf '%s\n%s\n' "$GLIBC_MIN" "$glibc" | sort -V | head -n 1)"
    [ "$older" = "$GLIBC_MIN" ] || fail "this Linux is too old: kanon needs glibc ${GLIBC_MIN} or newer; this one has ${glibc}. Use a newer Linux, or ask for a kanon build made on an older one."
fi
missing=""
ldconfig_bin="$(command -v ldconfig 2>/dev/null || echo /sbin/ldconfig)"
if [ -x "$ldconfig_bin" ]; then # (a user's PATH on Debian lacks /sbin)
    libs="$("$ldconfig_bin" -p 2>/dev/null || true)"
    for lib in libGL.so.1 libEGL.so.1 libfontconfig.so.1 libxcb.so.1; do
        printf '%s\n' "$libs" | grep -q "$lib" || missing="$missing $lib"
    done
fi
if [ -n "$missing" ]; then
    fail "these system libraries are missing:${missing}. Ask your administrator to install the Debian/Ubuntu packages libgl1 libegl1 libfontconfig1 libxcb1 (they are part of every desktop installation)."
fi

# --- 2. copy, check, then replace -----------------------------------------------------------------------
parent="$(dirname "$PREFIX")"
mkdir -p "$parent" || fail "cannot create the folder $parent."
new="${PREFIX}.new.$$"
old="${PREFIX}.old.$$"
rm -rf "$new"
cleanup() { rm -rf "$new"; }
trap cleanup EXIT
say "Copying files..."
mkdir -p "$new"
# copy the program (everything next to this script except the installer itself)
(cd "$HERE" && tar -cf - --exclude=./install.sh .) | (cd "$new" && tar -xf -) ||
    fail "copying into $parent failed (is the disk full?)."
cp "$HERE/uninstall.sh" "$new/uninstall.sh" 2>/dev/null || true
chmod 755 "$new/kanon" "$new/uninstall.sh" 2>/dev/null || true

if [ "$SELFTEST" = 1 ]; then
    say "Checking that the installed copy works (kanon --self-test, about 5 seconds)..."
    log="$new/self-test.log"
    if ! QT_QPA_PLATFORM=offscreen "$new/kanon" --self-test >"$log" 2>&1; then
        cat "$log" >&2
        fail "the self-test of the new copy failed (its output is above). Your previous installation, if any, was left as it was."
    fi
    grep '^self-test passed' "$log" || true
fi

if [ -e "$PREFIX" ]; then
    mv "$PREFIX" "$old" || fail "cannot move the previous installation $PREFIX aside."
fi
mv "$new" "$PREFIX" || {
    [ -e "$old" ] && mv "$old" "$PREFIX"
    fail "cannot move the new copy to $PREFIX."
}
trap - EXIT
rm -rf "$old"

# --- 3. menu entry and command --------------------------------------------------------------------------
if [ "$MENU" = 1 ]; then
    mkdir -p "$HOME/.local/bin" "$DATA_HOME/applications"
    ln -sfn "$PREFIX/kanon" "$HOME/.local/bin/kanon"
    desktop="$DATA_HOME/applications/kanon.desktop"
    cat >"$desktop" <<EOF
[Desktop Entry]
Type=Application
Version=1.0
Name=kanon
GenericName=Anonymization workbench
Comment=Make a k-anonymous release of patient records (works offline)
Exec="$PREFIX/kanon" %f
Icon=$PREFIX/share/kanon.png
Terminal=false
Categories=Science;MedicalSoftware;
StartupWMClass=kanon
X-kanon-Prefix=$PREFIX
EOF
    chmod 644 "$desktop"
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$DATA_HOME/applications" 2>/dev/null || true
fi

say ""
say "kanon ${VERSION} is installed in ${PREFIX}."
if [ "$MENU" = 1 ]; then
    say "Start it from your applications menu (kanon), or type: kanon"
    case ":${PATH}:" in
    *":$HOME/.local/bin:"*) ;;
    *) say "(~/.local/bin is not on your PATH yet: log out and in again, or type $HOME/.local/bin/kanon)" ;;
    esac
else
    say "Start it with: $PREFIX/kanon"
fi
say "To remove it: sh $PREFIX/uninstall.sh"
