# apt_install PKG...: install those Debian packages that are missing (apt-get update first, at most once
# per script; sudo when not root; KANON_DRY_RUN=1 only prints). Sourced by the packaging scripts, which
# define say and die.
APT_UPDATED=0
apt_install() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    local sudo=()
    if [[ "$(id -u)" -ne 0 ]]; then
        command -v sudo >/dev/null 2>&1 || die "installing ${missing[*]} needs root (or sudo)."
        sudo=(sudo)
    fi
    say "installing missing Debian packages: ${missing[*]}"
    if [[ "${KANON_DRY_RUN:-0}" == 1 ]]; then
        say "would run: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
        return 0
    fi
    if [[ "$APT_UPDATED" == 0 ]]; then
        ${sudo[@]+"${sudo[@]}"} apt-get update -q || die "apt-get update failed."
        APT_UPDATED=1
    fi
    ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "${missing[@]}" || die "could not install ${missing[*]}."
}
