#!/bin/sh
# A program the tests drive, installed from Debian with apt-get when it is missing: chromium for
# the web page's test (Playwright's own browser download cannot be reached from these machines;
# Playwright runs Debian's build through its executable_path), neovim for the editors' test.
# usage: sh scripts/debian.sh COMMAND PACKAGE WHAT [VARIABLE]
# Does nothing when COMMAND is on the PATH, or when the environment variable VARIABLE names a
# binary to use instead.  apt-get needs root (or sudo).
set -eu
COMMAND="$1" PACKAGE="$2" WHAT="$3" VARIABLE="${4:-}"
if [ -n "$VARIABLE" ] && [ -n "$(printenv "$VARIABLE" || true)" ]; then exit 0; fi
command -v "$COMMAND" > /dev/null 2>&1 && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
if ! { $SUDO apt-get update -q && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$PACKAGE"; } \
        > "$LOG" 2>&1; then
    tail -20 "$LOG" >&2
    echo "debian.sh: apt-get could not install Debian's $PACKAGE (as root: apt-get install $PACKAGE)," \
         "which $WHAT${VARIABLE:+; or set $VARIABLE to a binary to use}" >&2
    exit 1
fi
echo "$PACKAGE installed: $(command -v "$COMMAND")"
