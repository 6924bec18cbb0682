#!/usr/bin/env bash
# Sign Windows programs (Authenticode, SHA-256) in place with osslsigncode, on Linux.
#
# usage: bash packaging/windows/sign.sh FILE.exe...
# Environment:
#   KANON_SIGN_PKCS12     the code-signing certificate with its private key (.pfx / .p12 file)
#   KANON_SIGN_PASSFILE   a file holding the certificate's password (optional; none if unset)
#   KANON_SIGN_TIMESTAMP  an RFC 3161 timestamp server of your certificate authority (optional). With a
#                         timestamp the signature stays valid after the certificate expires; fetching
#                         it needs the network on the signing machine (never on the hospital's PCs).
#
# build_windows.sh calls this for kanon.exe and kanon-console.exe before packing, and makensis calls it
# for the uninstaller and the setup.exe it writes (!uninstfinalize / !finalize), when KANON_SIGN_PKCS12 is
# set. A hospital can also sign a setup.exe it received (see packaging/windows/README.md); that signs
# the installer, not the programs inside it.
set -euo pipefail

die() {
    printf '[sign] error: %s\n' "$*" >&2
    exit 1
}
[[ $# -gt 0 ]] || die "usage: sign.sh FILE.exe..."
[[ -n "${KANON_SIGN_PKCS12:-}" ]] || die "set KANON_SIGN_PKCS12 to your code-signing certificate (.pfx)."
[[ -f "$KANON_SIGN_PKCS12" ]] || die "no certificate file at $KANON_SIGN_PKCS12."
command -v osslsigncode >/dev/null 2>&1 || die "osslsigncode is missing (Debian: apt-get install osslsigncode)."

args=(sign -pkcs12 "$KANON_SIGN_PKCS12" -h sha256 -n kanon)
[[ -n "${KANON_SIGN_PASSFILE:-}" ]] && args+=(-readpass "$KANON_SIGN_PASSFILE")
[[ -n "${KANON_SIGN_TIMESTAMP:-}" ]] && args+=(-ts "$KANON_SIGN_TIMESTAMP")
for file in "$@"; do
    rm -f "$file.signed"
    osslsigncode "${args[@]}" -in "$file" -out "$file.signed" >/dev/null ||
        die "osslsigncode could not sign $file (see above)."
    mv "$file.signed" "$file"
    printf '[sign] signed %s\n' "$file" >&2
done
