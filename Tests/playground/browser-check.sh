#!/usr/bin/env bash
# The playground in a real browser: starts `webimage serve --playground`
# on a free port with Samples/ as the local root, then Tests/playground/browser_check.py
# drives headless Chromium through the page: the first result image loads, a new width
# changes the built URL and the image, the byte count is shown. Prints PASS/FAIL lines and
# exits non-zero on a failure. Not part of `make test`; nothing leaves this machine.
#
# Needs chromium, chromium-driver and python3-selenium (Debian); as root it installs the
# missing ones with apt-get (INSTALL=0: only names them). WEBIMAGE=/path/to/webimage skips
# the build (`swift build --product webimage`). The server's log is printed on a failure.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
INSTALL=${INSTALL:-1}
# Debian's selenium is a package of the system Python, whatever python3 is first on PATH.
PYTHON=${PYTHON:-/usr/bin/python3}

# --- What the check needs -------------------------------------------------------------------
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
[ -x "$PYTHON" ] && "$PYTHON" -c 'import selenium' 2>/dev/null || missing+=(python3-selenium)
"$ROOT/scripts/install-missing" browser-check "$INSTALL" ${missing[@]+"${missing[@]}"}

if [ -z "${WEBIMAGE:-}" ]; then
    echo "browser-check: swift build --product webimage"
    export PKG_CONFIG_PATH="$ROOT/.build-pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    (cd "$ROOT" && swift build --quiet --product webimage)
    WEBIMAGE="$(cd "$ROOT" && swift build --show-bin-path)/webimage"
fi
[ -x "$WEBIMAGE" ] || { echo "browser-check: no webimage binary at $WEBIMAGE" >&2; exit 1; }

# --- The server, stopped and removed on exit --------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/webimage-browser-check.XXXXXX")
SERVER_PID=""
cleanup() {
    local status=$?
    if [ -n "$SERVER_PID" ]; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        timeout 30 tail --pid="$SERVER_PID" -f /dev/null 2>/dev/null || kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
    if [ "$status" != 0 ] && [ -f "$WORK/server.log" ]; then
        echo "browser-check: server log:" >&2
        sed 's/^/  /' "$WORK/server.log" >&2
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

"$WEBIMAGE" serve --playground --bind 127.0.0.1 --port 0 --local-filesystem-root "$ROOT/Samples" \
    --cache-dir "$WORK/cache" --log-level warning > "$WORK/server.out" 2> "$WORK/server.log" &
SERVER_PID=$!

BASE=""
for _ in $(seq 1 300); do
    line=$(head -n 1 "$WORK/server.out" 2>/dev/null || true)
    if [[ "$line" =~ listening\ on\ (http://[^[:space:]]+) ]]; then
        BASE=${BASH_REMATCH[1]}
        break
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "FAIL server: webimage serve exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$BASE" ] || { echo "FAIL server: no 'listening on' line within 30 s" >&2; exit 1; }
echo "browser-check: webimage serve at $BASE"

"$PYTHON" "$HERE/browser_check.py" "$BASE/"
