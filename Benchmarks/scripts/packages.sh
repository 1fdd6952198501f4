# shellcheck shell=bash
# Sourced by run.sh and instructions.sh.

# apt_install PACKAGE…: installs the packages given (none: nothing) with apt-get, through sudo
# unless running as root.
apt_install() {
    [ $# -gt 0 ] || return 0
    echo "installing: $*" >&2
    local sudo=
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}
