# Wine helpers for building and testing kanon's Windows bundle on Linux. Sourced (not run) by
# packaging/build_windows.sh and packaging/smoke_test.sh.
#
#   wine_use PREFIX        point WINEPREFIX (and the quiet, 64-bit settings) at PREFIX for later `wine` calls
#   wine_prefix_new PREFIX create a fresh prefix there: Windows 10, no Mono/Gecko prompts, user folders
#                          inside the prefix (not links to the Linux home), and the three test-time
#                          stand-ins below compiled from source into its system32
#   winpath PATH           the Windows path (Z:\...) of a Linux path
#   wine_run EXE ARGS...   run a Windows program with stdin closed and its output piped (Windows console
#                          handles fail when stdout is a file or a terminal under a headless Wine)
#
# The stand-ins make Wine 8.0 (Debian 12) able to load what real Windows 10/11 provides; they live only in
# the throw-away prefix, are never copied into the bundle or the installer (build_windows.sh checks), and
# are rebuilt from packaging/windows/wine/*.c every time a prefix is made:
#   icuuc.dll     Windows' system ICU, which Qt6Core.dll imports (icuuc.c says why a no-converter ICU is
#                 enough)
#   ucrtbase.dll  a proxy of Wine's own Universal CRT (renamed ucrtwine.dll) that adds the complex-number
#                 part functions numpy calls at import and Wine 8.0 leaves unimplemented
#                 (ucrtbase_complex.c), loaded instead of Wine's through a DllOverrides entry
#   bcryptprimitives.dll  Windows' ProcessPrng, which the `cryptography` package's Rust extension imports
#                 (password-protected projects); it fills the buffer from Wine's RtlGenRandom
#                 (bcryptprimitives.c)
# Needs Debian's wine, wine64 and gcc-mingw-w64-x86-64-win32.

WINE_STUB_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MINGW_CC=x86_64-w64-mingw32-gcc
MINGW_OBJDUMP=x86_64-w64-mingw32-objdump

wine_use() {
    export WINEPREFIX="$1" WINEARCH=win64 WINEDEBUG=-all
    # no "install Mono / Gecko?" dialogs (kanon uses neither .NET nor the HTML engine)
    export WINEDLLOVERRIDES="mscoree,mshtml="
    # Qt's default platform on Windows is "windows"; an inherited QT_QPA_PLATFORM (the test suite's
    # offscreen) must not reach the Windows side
    unset DISPLAY QT_QPA_PLATFORM
}

winpath() {
    local p
    p="$(readlink -f "$1")"
    printf 'Z:%s' "${p//\//\\}"
}

wine_run() {
    wine "$@" </dev/null 2>&1 | cat
    return "${PIPESTATUS[0]}"
}

# exported names of a PE DLL (from its export name table)
pe_exports() {
    "$MINGW_OBJDUMP" -p "$1" | awk '/\[Ordinal\/Name Pointer\] Table/ {on = 1; next} on && /^$/ {exit}
        on && $1 ~ /^\[/ {print $NF}'
}

# ucrtbase.dll proxy: every export of Wine's ucrtbase forwarded to ucrtwine.dll (the same file under
# another name), except the functions ucrtbase_complex.c defines as proxy_<name>
_wine_build_ucrt_proxy() {
    local sys32="$1" work="$2" own
    cp "$sys32/ucrtbase.dll" "$sys32/ucrtwine.dll"
    own="$(sed -n 's/^[A-Za-z][^(]*[ *]proxy_\([A-Za-z0-9_]*\)(.*/\1/p' "$WINE_STUB_SRC/ucrtbase_complex.c" | sort -u)"
    {
        printf 'LIBRARY ucrtbase.dll\nEXPORTS\n'
        pe_exports "$sys32/ucrtwine.dll" | awk -v own="$own" '
            BEGIN { n = split(own, o, "\n"); for (i = 1; i <= n; i++) mine[o[i]] = 1 }
            { if ($1 in mine) print "  " $1 "=proxy_" $1; else print "  " $1 "=ucrtwine." $1 }'
    } >"$work/ucrtbase.def"
    "$MINGW_CC" -O2 -shared -nostdlib -fno-builtin -Wl,--entry=0 -o "$work/ucrtbase.dll" \
        "$WINE_STUB_SRC/ucrtbase_complex.c" "$work/ucrtbase.def"
    cp "$work/ucrtbase.dll" "$sys32/ucrtbase.dll"
}

wine_prefix_new() {
    local prefix="$1"
    rm -rf "$prefix"
    mkdir -p "$prefix"
    wine_use "$prefix"
    wineboot -i </dev/null >/dev/null 2>&1 || return 1
    # Wine links Documents, Desktop, ... to the Linux home folder: make them folders of the prefix, so
    # nothing run in it can write into the real home
    local link
    for link in "$prefix"/drive_c/users/*/*; do
        if [[ -L "$link" ]]; then
            rm "$link"
            mkdir "$link"
        fi
    done
    local sys32="$prefix/drive_c/windows/system32" work="$prefix/kanon-test-stubs"
    mkdir -p "$work"
    "$MINGW_CC" -O2 -shared -Wl,--entry=0 -nostdlib -o "$work/icuuc.dll" "$WINE_STUB_SRC/icuuc.c" || return 1
    cp "$work/icuuc.dll" "$sys32/icuuc.dll"
    "$MINGW_CC" -O2 -shared -Wl,--entry=0 -nostdlib -o "$work/bcryptprimitives.dll" \
        "$WINE_STUB_SRC/bcryptprimitives.c" -ladvapi32 || return 1
    cp "$work/bcryptprimitives.dll" "$sys32/bcryptprimitives.dll"
    _wine_build_ucrt_proxy "$sys32" "$work" || return 1
    # Qt 6 supports Windows 10 and later; Wine 8.0 reports Windows 7 unless told otherwise
    wine reg add 'HKCU\Software\Wine' /v Version /t REG_SZ /d win10 /f </dev/null >/dev/null 2>&1 &&
        wine reg add 'HKCU\Software\Wine\DllOverrides' /v ucrtbase /t REG_SZ /d native,builtin /f \
            </dev/null >/dev/null 2>&1 || return 1
    wineserver -w
}
