#!/bin/sh
# The browser tests/test_web.py drives: Debian's chromium, installed with apt-get when missing
# (Playwright's own browser download cannot be reached from these machines; Playwright runs
# Debian's build through its executable_path).  Does nothing when chromium is installed, or
# when QLANG_CHROMIUM names a Chromium binary to use instead.  apt-get needs root (or sudo).
set -eu
[ -n "${QLANG_CHROMIUM:-}" ] && exit 0
command -v chromium > /dev/null 2>&1 && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
if ! { $SUDO apt-get update -q && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } \
        > "$LOG" 2>&1; then
    tail -20 "$LOG" >&2
    echo "browser.sh: apt-get could not install Debian's chromium (as root: apt-get install" \
         "chromium), which the web page's test drives; or set QLANG_CHROMIUM to a Chromium binary" >&2
    exit 1
fi
echo "chromium installed: $(command -v chromium)"
