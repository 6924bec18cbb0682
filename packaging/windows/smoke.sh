# Smoke test of the Windows installer under Wine; sourced by packaging/smoke_test.sh, which provides
# say/pass/fail/die, $T (a temporary folder), $ROOT, $VENV, $OUT and $VERSION.
#
#   6. the file:       a 64-bit Windows program, listed with its checksum in SHA256SUMS; a copy signed
#                      with a throw-away certificate by windows/sign.sh (osslsigncode) verifies
#   7. install:        `setup.exe /S` (per user, no administrator rights) into a fresh Wine prefix: program,
#                      bundled font and sample, Start-menu entry, uninstall entry, "Open with" for projects,
#                      and the installer's own run of the installed copy's self-test
#   8. self-test:      `kanon-console.exe --self-test` of the installed copy (offscreen; window tabs
#                      compared with the source checkout)
#   9. real window:    kanon.exe with Qt's Windows platform, drawn by Wine in a virtual desktop on Xvfb,
#                      opened on the installed sample project; screenshot saved (KANON_SCREENSHOT_DIR,
#                      default dist/screenshots) and its log written to the user's AppData
#  10. uninstall:      `Uninstall.exe /S` removes the program, entries and registry keys; the user's log
#                      and a project in Documents stay, and nothing else is left in the prefix
#  11. all users:      `setup.exe /S /ALLUSERS /NOSELFTEST` into Program Files with HKLM entries, an
#                      upgrade over it (`setup.exe /S`: stays there), then uninstalled; a file the user put
#                      into the folder survives both
#
# Wine cannot stand in for Windows everywhere: the prefix gets the test-time stand-ins of
# packaging/windows/wine/ (never shipped), and no UAC prompt exists (Wine's user is an administrator),
# so "per user needs no administrator rights" is checked by where it installs, not by a refusal.

# shellcheck source=packaging/windows/wine/prefix.sh
source "$ROOT/packaging/windows/wine/prefix.sh"
WIN_SETUP="$OUT/kanon-${VERSION}-windows-x64-setup.exe"
WIN_SHOTS="${KANON_SCREENSHOT_DIR:-$ROOT/dist/screenshots}"
# Xvfb and the xcb libraries the Linux PySide6 takes the picture with
WIN_QT_PKGS=(xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0
    libxcb-shape0 libxkbcommon-x11-0)

win_reg_has() { # win_reg_has KEY [VALUE]: the key (or value) exists in the prefix's registry
    if [[ $# -ge 2 ]]; then
        wine reg query "$1" /v "$2" </dev/null >/dev/null 2>&1
    else
        wine reg query "$1" </dev/null >/dev/null 2>&1
    fi
}

win_reg_get() { # win_reg_get KEY [VALUE]: the value's data (the key's default value without VALUE)
    local query=(/ve) name='(Default)'
    [[ $# -ge 2 ]] && query=(/v "$2") name="$2"
    { wine reg query "$1" "${query[@]}" </dev/null 2>/dev/null || true; } | tr -d '\r' |
        sed -n "s/^    $name    REG_[A-Z_]*    //p" | head -n 1
}

# files and folders of the prefix's C: drive outside Windows' own folder, for the before/after comparison
win_snapshot() {
    (cd "$WINEPREFIX/drive_c" && find . -path ./windows -prune -o -print | sort)
}

# the Linux path of a Windows path in the prefix (C:\... only)
win_unix() {
    local p="${1#[Cc]:}"
    printf '%s/drive_c%s' "$WINEPREFIX" "${p//\\//}"
}

smoke_windows() {
    apt_install wine wine64 gcc-mingw-w64-x86-64-win32 osslsigncode openssl "${WIN_QT_PKGS[@]}"
    say "6. $(basename "$WIN_SETUP") ($(du -h --apparent-size "$WIN_SETUP" | cut -f1))"
    if x86_64-w64-mingw32-objdump -f "$WIN_SETUP" 2>/dev/null | grep -q 'file format pei-x86-64'; then
        pass "setup.exe is a 64-bit Windows program"
    else
        fail "setup.exe is not a 64-bit Windows program"
    fi
    if (cd "$OUT" && grep -q " $(basename "$WIN_SETUP")\$" SHA256SUMS && sha256sum -c --ignore-missing --quiet SHA256SUMS); then
        pass "SHA256SUMS lists setup.exe and matches: $(sha256sum "$WIN_SETUP" | cut -c1-16)..."
    else
        fail "SHA256SUMS does not list setup.exe or does not match"
    fi

    win_sign_check

    local prefix="$T/wine" start
    start="$EPOCHREALTIME"
    wine_prefix_new "$prefix" || die "could not create a Wine prefix in $prefix"
    say "   fresh Wine prefix with the test-time stand-ins in $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s"
    win_snapshot >"$T/wine-before.txt"
    local docs
    docs="$(find "$prefix/drive_c/users" -mindepth 2 -maxdepth 2 -name Documents -type d ! -path '*/Public/*' | head -n 1)"
    [[ -n "$docs" ]] || die "the Wine prefix has no user Documents folder"
    cp "$ROOT/resources/sample/sample_project.json" "$docs/my-study.kanon.json"

    win_install_user
    win_self_test
    win_window
    win_uninstall_user "$docs/my-study.kanon.json"
    win_install_all_users
    wineserver -k 2>/dev/null || true
}

# the README's recipe for a hospital signing the setup.exe it received, with a throw-away certificate
win_sign_check() {
    local d="$T/sign"
    mkdir -p "$d"
    printf 'smoke-test\n' >"$d/pass.txt"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=kanon smoke test (throw-away)" \
        -addext extendedKeyUsage=codeSigning -keyout "$d/key.pem" -out "$d/cert.pem" 2>/dev/null &&
        openssl pkcs12 -export -inkey "$d/key.pem" -in "$d/cert.pem" -passout "file:$d/pass.txt" -out "$d/test.pfx" ||
        die "openssl could not make a test certificate"
    cp "$WIN_SETUP" "$d/setup.exe"
    if KANON_SIGN_PKCS12="$d/test.pfx" KANON_SIGN_PASSFILE="$d/pass.txt" bash "$ROOT/packaging/windows/sign.sh" \
        "$d/setup.exe" 2>/dev/null && osslsigncode verify -CAfile "$d/cert.pem" -in "$d/setup.exe" 2>&1 |
        grep -q '^Signature verification: ok'; then
        pass "signing with osslsigncode (packaging/windows/sign.sh) gives a setup.exe whose signature verifies"
    else
        fail "signing the setup.exe with osslsigncode failed"
    fi
    rm -f "$d/setup.exe"
}

WIN_UNINST_KEY='Software\Microsoft\Windows\CurrentVersion\Uninstall\kanon'

win_install_user() {
    say "7. silent install for the current user"
    local start rc=0 took
    start="$EPOCHREALTIME"
    wine_run "$(winpath "$WIN_SETUP")" /S >"$T/win-install.log" || rc=$?
    wineserver -w
    took="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')"
    WIN_DIR_W="$(win_reg_get "HKCU\\$WIN_UNINST_KEY" InstallLocation)"
    WIN_DIR="$(win_unix "$WIN_DIR_W")"
    if [[ $rc -eq 0 && -f "$WIN_DIR/kanon.exe" && -f "$WIN_DIR/kanon-console.exe" && -f "$WIN_DIR/Uninstall.exe" ]]; then
        pass "setup.exe /S installed into $WIN_DIR_W in $took s (copy + the installer's self-test)"
    else
        sed 's/^/    /' "$T/win-install.log" >&2
        fail "setup.exe /S exited with $rc; InstallLocation '$WIN_DIR_W'"
        return
    fi
    [[ "$WIN_DIR_W" == *'\AppData\Local\Programs\kanon' ]] && pass "per-user folder (no administrator rights needed)" ||
        fail "installed into $WIN_DIR_W, not the per-user %LOCALAPPDATA%\\Programs\\kanon"
    for f in _internal/resources/fonts/DejaVuSans.ttf _internal/resources/sample/sample_project.json \
        _internal/resources/sample/sample_patients.csv _internal/licenses/THIRD_PARTY.txt; do
        [[ -f "$WIN_DIR/$f" ]] && pass "installed $f" || fail "not installed: $f"
    done
    if grep -q '^self-test passed' "$WIN_DIR/self-test.log" 2>/dev/null; then
        pass "the installer ran the installed copy's self-test: $(grep '^self-test passed' "$WIN_DIR/self-test.log" | tr -d '\r')"
    else
        sed 's/^/    /' "$WIN_DIR/self-test.log" >&2 2>/dev/null || true
        fail "the installer's self-test did not pass (self-test.log)"
    fi
    local menu
    menu="$(find "$WINEPREFIX/drive_c/users" -path '*/Start Menu/Programs/kanon.lnk' | head -n 1)"
    [[ -n "$menu" ]] && pass "Start-menu entry ${menu#"$WINEPREFIX"/drive_c/}" || fail "no Start-menu entry"
    local key="HKCU\\$WIN_UNINST_KEY"
    if [[ "$(win_reg_get "$key" DisplayVersion)" == "$VERSION" && "$(win_reg_get "$key" UninstallString)" == *Uninstall.exe* ]]; then
        pass "Apps & Features entry (HKCU): kanon $VERSION with its uninstaller"
    else
        fail "uninstall entry missing or wrong under $key"
    fi
    local open
    open="$(win_reg_get 'HKCU\Software\Classes\kanon.project\shell\open\command')"
    if [[ "$open" == *'kanon.exe" "%1"' ]] && win_reg_has 'HKCU\Software\Classes\.json\OpenWithProgids' kanon.project; then
        pass "project files: kanon.project opens with $open; offered in Open with for .json"
    else
        fail "file association missing (kanon.project command '$open')"
    fi
}

win_self_test() {
    say "8. kanon-console.exe --self-test (installed copy, under Wine)"
    local start rc=0 took log="$T/win-selftest.log"
    start="$EPOCHREALTIME"
    wine_run "$(winpath "$WIN_DIR/kanon-console.exe")" --self-test | tr -d '\r' >"$log" || rc=$?
    took="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
    sed 's/^/    /' "$log" >&2
    if [[ $rc -eq 0 ]] && grep -q '^self-test passed' "$log"; then
        pass "Windows copy: --self-test ($(grep -c '^ok ' "$log") steps, $took s under Wine)"
    else
        fail "Windows copy: --self-test exited with $rc"
    fi
    grep -q 'win32' "$log" && pass "the self-test ran as a Windows program (sys.platform win32)" ||
        fail "the self-test did not report win32"
    if [[ -x "$VENV/bin/python" ]]; then
        local dev_tabs win_tabs
        dev_tabs="$(cd "$ROOT" && QT_QPA_PLATFORM=offscreen "$VENV/bin/python" -c \
            'from kanon_gui.selftest import _ensure_app, _window_step; _ensure_app(); print(_window_step())' 2>/dev/null || true)"
        win_tabs="$(sed -n 's/^ok   main window (offscreen): \(.*\) ([0-9.]* s)$/\1/p' "$log")"
        [[ -n "$dev_tabs" && "$dev_tabs" == "$win_tabs" ]] && pass "Windows window has the checkout's tabs" ||
            fail "Windows window tabs differ: '$win_tabs' vs checkout '$dev_tabs'"
    fi
}

win_window() {
    say "9. the real window: kanon.exe (Qt's default Windows platform) in a Wine desktop on Xvfb"
    mkdir -p "$WIN_SHOTS"
    local shot="$WIN_SHOTS/windows-wine-window.png" rc=0
    local project_w="$WIN_DIR_W\\_internal\\resources\\sample\\sample_project.json"
    # kanon.exe is started with its stdout piped: a windowed program whose stdout Wine maps to a Linux
    # file fails to start its Python under Wine 8.0 (not so on Windows)
    KANON_EXE_W="$WIN_DIR_W\\kanon.exe" KANON_PROJECT_W="$project_w" xvfb-run -a -s "-screen 0 1440x900x24" \
        bash -c '
            wine explorer /desktop=kanon,1440x900 "$KANON_EXE_W" "$KANON_PROJECT_W" </dev/null 2>&1 | cat >/dev/null &
            "$0" "$1" "$2" --timeout 150
            rc=$?
            wineserver -k 2>/dev/null
            exit $rc' "$VENV/bin/python" "$ROOT/packaging/windows/screenshot.py" "$shot" >"$T/win-window.log" 2>&1 || rc=$?
    wineserver -w
    if [[ $rc -eq 0 && -s "$shot" ]]; then
        pass "window drawn and photographed: $shot"
    else
        sed 's/^/    /' "$T/win-window.log" >&2
        fail "the window did not appear (screenshot attempt: $shot)"
    fi
    WIN_LOG="$(find "$WINEPREFIX/drive_c/users" -path '*/AppData/Roaming/kanon/kanon/kanon.log' | head -n 1)"
    [[ -n "$WIN_LOG" ]] && grep -q 'kanon starting' "$WIN_LOG" && pass "the window wrote its log to AppData\\Roaming\\kanon\\kanon" ||
        fail "no kanon.log in the user's AppData after starting the window"
}

win_uninstall_user() {
    local user_file="$1"
    say "10. silent uninstall"
    local rc=0
    wine_run "$(winpath "$WIN_DIR/Uninstall.exe")" /S >"$T/win-uninstall.log" || rc=$?
    wineserver -w # the uninstaller runs from a temporary copy: wait for it
    [[ $rc -eq 0 && ! -e "$WIN_DIR" ]] && pass "Uninstall.exe /S removed $WIN_DIR_W" ||
        fail "Uninstall.exe /S exited with $rc or left $WIN_DIR_W"
    find "$WINEPREFIX/drive_c/users" -path '*/Start Menu/Programs/kanon.lnk' | grep -q . &&
        fail "the Start-menu entry is still there" || pass "Start-menu entry removed"
    local key left=()
    for key in "HKCU\\$WIN_UNINST_KEY" 'HKCU\Software\Microsoft\Windows\CurrentVersion\App Paths\kanon.exe' \
        'HKCU\Software\Classes\kanon.project' 'HKCU\Software\Classes\Applications\kanon.exe' 'HKCU\Software\Classes\.json'; do
        win_reg_has "$key" && left+=("$key")
    done
    [[ ${#left[@]} -eq 0 ]] && pass "registry: uninstall entry, App Paths, file type and .json keys removed" ||
        fail "registry keys left: ${left[*]}"
    [[ -n "${WIN_LOG:-}" && -f "$WIN_LOG" ]] && pass "the user's log stays: ${WIN_LOG#"$WINEPREFIX"/drive_c/}" ||
        fail "the uninstaller removed the user's log"
    cmp -s "$user_file" "$ROOT/resources/sample/sample_project.json" && pass "the user's project in Documents is untouched" ||
        fail "the user's project in Documents was changed or removed"
    win_nothing_left
}

# nothing may remain but the user's data: the C: drive (outside C:\windows) against the fresh prefix
win_nothing_left() {
    local extra
    extra="$(comm -13 "$T/wine-before.txt" <(win_snapshot) |
        grep -v -E '^\./users/[^/]+/(AppData/Roaming/kanon(/|$)|Documents/my-study\.kanon\.json$|Temp(/|$))' || true)"
    [[ -z "$extra" ]] && pass "nothing left on C: but the user's data (log, project)" ||
        fail "left behind after uninstall:"$'\n'"$(sed 's/^/    /' <<<"$extra")"
}

win_install_all_users() {
    say "11. silent install, upgrade and uninstall for all users"
    local rc=0 dir_w dir
    wine_run "$(winpath "$WIN_SETUP")" /S /ALLUSERS /NOSELFTEST >"$T/win-install-all.log" || rc=$?
    wineserver -w
    dir_w="$(win_reg_get "HKLM\\$WIN_UNINST_KEY" InstallLocation)"
    dir="$(win_unix "$dir_w")"
    if [[ $rc -eq 0 && "$dir_w" == 'C:\Program Files\kanon' && -f "$dir/kanon.exe" ]] &&
        win_reg_has 'HKLM\Software\Classes\kanon.project' && ! win_reg_has "HKCU\\$WIN_UNINST_KEY"; then
        pass "setup.exe /S /ALLUSERS installed into C:\\Program Files\\kanon with HKLM entries"
    else
        fail "setup.exe /S /ALLUSERS exited with $rc; InstallLocation '$dir_w'"
        return
    fi
    find "$WINEPREFIX/drive_c/ProgramData" -path '*/Start Menu/Programs/kanon.lnk' | grep -q . &&
        pass "all-users Start-menu entry" || fail "no all-users Start-menu entry"
    # an upgrade with no option replaces that installation in place; a file the user put there stays
    echo "my notes" >"$dir/my-notes.txt"
    rc=0
    wine_run "$(winpath "$WIN_SETUP")" /S /NOSELFTEST >"$T/win-upgrade.log" || rc=$?
    wineserver -w
    if [[ $rc -eq 0 && -f "$dir/kanon.exe" && -f "$dir/my-notes.txt" ]] && ! win_reg_has "HKCU\\$WIN_UNINST_KEY"; then
        pass "upgrade (setup.exe /S) replaced the all-users installation in place and kept the user's file there"
    else
        fail "upgrade exited with $rc, installed per user instead, or removed the user's file"
    fi
    rc=0
    wine_run "$(winpath "$dir/Uninstall.exe")" /S >"$T/win-uninstall-all.log" || rc=$?
    wineserver -w
    if [[ $rc -eq 0 && ! -e "$dir/kanon.exe" && ! -e "$dir/_internal" && -f "$dir/my-notes.txt" ]] &&
        ! win_reg_has "HKLM\\$WIN_UNINST_KEY" && ! win_reg_has 'HKLM\Software\Classes\kanon.project'; then
        pass "Uninstall.exe /S removed the all-users installation and its HKLM keys, and kept the user's file"
    else
        fail "the all-users uninstall exited with $rc, left program files or keys, or removed the user's file"
    fi
    rm -f "$dir/my-notes.txt"
    rmdir "$dir" 2>/dev/null || true
    win_nothing_left
}
