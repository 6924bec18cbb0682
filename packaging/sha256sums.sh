#!/usr/bin/env bash
# Write SHA256SUMS beside the installers: one line per installer file in the folder (Linux and Windows),
# so `sha256sum -c SHA256SUMS` checks whatever was carried over. Run by build_linux.sh and
# build_windows.sh after each build, so it always covers every file present.
#
# usage: bash packaging/sha256sums.sh DIR
set -euo pipefail
cd "${1:?usage: sha256sums.sh DIR}"
shopt -s nullglob
files=(*.deb *.run *.tar.gz *.exe *.dmg)
if [[ ${#files[@]} -eq 0 ]]; then
    rm -f SHA256SUMS
    exit 0
fi
sha256sum -- "${files[@]}" >SHA256SUMS.tmp
mv SHA256SUMS.tmp SHA256SUMS
