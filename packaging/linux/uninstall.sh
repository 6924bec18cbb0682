#!/bin/sh
# Remove the per-user kanon @VERSION@ installed by install.sh: this folder, the `kanon` command in
# ~/.local/bin and the menu entry (only if they belong to this folder). Your projects, releases and
# kanon's log and settings (~/.local/share/kanon/kanon/) are left alone.
set -eu
HERE="$(cd "$(dirname "$0")" && pwd)"
DATA_HOME="${XDG_DATA_HOME:-${HOME}/.local/share}"
[ -x "$HERE/kanon" ] || {
    echo "This does not look like a kanon installation folder: $HERE" >&2
    exit 1
}
link="$HOME/.local/bin/kanon"
if [ -L "$link" ] && [ "$(readlink "$link")" = "$HERE/kanon" ]; then
    rm -f "$link"
fi
desktop="$DATA_HOME/applications/kanon.desktop"
if [ -f "$desktop" ] && grep -qxF "X-kanon-Prefix=$HERE" "$desktop"; then
    rm -f "$desktop"
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$DATA_HOME/applications" 2>/dev/null || true
fi
cd /
rm -rf "$HERE"
echo "kanon was removed from $HERE."
echo "Its log and settings are still in $DATA_HOME/kanon/kanon/ (delete that folder too if you wish)."
