#!/usr/bin/env bash
# libvips' orc vector code under many threads, with and without WebImage's orc code lock
# (Sources/COrcCodeLock/orc_code_lock.c). Run it with `make orc-stress`.
#
# Builds orc_stress.c twice — alone ("unlocked": libvips and liborc as they come) and with
# orc_code_lock.c ("locked": what `webimage` and the tests link) — and, with ASAN=1, both
# again under AddressSanitizer. Then runs ROUNDS interleaved rounds, each one run of every
# build for SECONDS seconds (THREADS threads, PIPELINES pipelines each a round, orc on),
# and prints how each run ended: its counts, or the signal or sanitizer report that ended it.
#
# Exit status: 1 when a locked run did not end cleanly (the lock does not hold); 0
# otherwise. With liborc 0.4.33 (Debian 12) most unlocked runs of a minute crash; when none
# does, the summary says the race was not hit this time, so the run shows nothing about it.
#
# Needs a C compiler, pkg-config and libvips-dev (the project's own build needs the last
# two); as root it installs what is missing with apt-get (INSTALL=0: only names them).
# Everything it makes goes to a temporary directory, deleted on exit (KEEP=1 keeps it,
# with the core files of crashed runs when the system writes them there).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

ROUNDS=${ROUNDS:-5}          # interleaved rounds; each runs every build once
SECONDS_PER_RUN=${SECONDS_PER_RUN:-60}
THREADS=${THREADS:-8}
PIPELINES=${PIPELINES:-16}   # pipelines each thread holds a round
ASAN=${ASAN:-0}              # 1: AddressSanitizer builds too
INSTALL=${INSTALL:-1}
KEEP=${KEEP:-0}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/orc-stress.XXXXXX")}
mkdir -p "$WORK"

missing=()
command -v cc >/dev/null || missing+=(gcc)
command -v pkg-config >/dev/null || missing+=(pkg-config)
pkg-config --exists vips 2>/dev/null || missing+=(libvips-dev)
"$ROOT/scripts/install-missing" orc-stress.sh "$INSTALL" ${missing[@]+"${missing[@]}"}

cleanup() { if [ "$KEEP" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT

read -r -a VIPS_FLAGS <<< "$(pkg-config --cflags --libs vips)"
LOCK=("$ROOT/Sources/COrcCodeLock/orc_code_lock.c" -I "$ROOT/Sources/COrcCodeLock/include")
build() {  # build NAME EXTRA-FLAGS…
    local name=$1; shift
    cc -O1 -g -Wall -o "$WORK/$name" "$HERE/orc_stress.c" "$@" "${VIPS_FLAGS[@]}" -pthread
}
BUILDS=(unlocked locked)
build unlocked
build locked "${LOCK[@]}"
if [ "$ASAN" = 1 ]; then
    BUILDS+=(unlocked-asan locked-asan)
    build unlocked-asan -fsanitize=address -fno-omit-frame-pointer
    build locked-asan -fsanitize=address -fno-omit-frame-pointer "${LOCK[@]}"
fi

echo "orc-stress: liborc $(pkg-config --modversion orc-0.4 2>/dev/null || echo '?'), libvips $(pkg-config --modversion vips); $ROUNDS rounds of ${SECONDS_PER_RUN}s, $THREADS threads, $PIPELINES pipelines a thread; load average $(cut -d' ' -f1-3 /proc/loadavg)"
RESULTS="$WORK/results.txt"
: > "$RESULTS"
cd "$WORK"
ulimit -c unlimited 2>/dev/null || true
for round in $(seq 1 "$ROUNDS"); do
    for name in "${BUILDS[@]}"; do
        log="$WORK/$name-$round.log"
        started=$(date +%s)
        set +e
        ASAN_OPTIONS=detect_leaks=0 timeout $(( SECONDS_PER_RUN + 120 )) "$WORK/$name" orc "$THREADS" "$SECONDS_PER_RUN" "$PIPELINES" > "$log" 2>&1
        status=$?
        set -e
        elapsed=$(( $(date +%s) - started ))
        if [ "$status" = 0 ]; then
            outcome="clean: $(tail -1 "$log")"
        elif [ "$status" -gt 128 ]; then
            outcome="crashed after ${elapsed}s: signal $(( status - 128 ))"
        else
            outcome="failed after ${elapsed}s: exit $status"
        fi
        # The first line that says why (glibc's abort message, the sanitizer's report).
        why=$(grep -m1 -E 'ERROR: AddressSanitizer|malloc|free\(\)|corrupted|double free' "$log" || true)
        [ -n "$why" ] && outcome="$outcome; $why"
        [ -f core ] && mv core "core.$name.$round"
        echo "round $round, $name: $outcome" | tee -a "$RESULTS"
        echo "$name $status" >> "$WORK/status.txt"
    done
done

summary() {  # summary NAME: "N of M runs ended cleanly"
    awk -v n="$1" '$1 == n { runs++; if ($2 == 0) clean++ } END { printf "%d of %d runs ended cleanly", clean, runs }' "$WORK/status.txt"
}
echo
failed=0
for name in "${BUILDS[@]}"; do
    echo "$name: $(summary "$name")"
    case "$name" in
        locked*) awk -v n="$name" '$1 == n && $2 != 0 { bad = 1 } END { exit bad }' "$WORK/status.txt" || failed=1 ;;
    esac
done
if awk '$1 ~ /^unlocked/ && $2 != 0 { hit = 1 } END { exit !hit }' "$WORK/status.txt"; then
    echo "the race was hit without the lock"
else
    echo "no unlocked run crashed: the race was not hit this time (more rounds, or more threads, make it likelier)"
fi
[ "$failed" = 0 ] && echo "orc-stress: every locked run ended cleanly" || echo "orc-stress: a locked run did not end cleanly"
exit "$failed"
