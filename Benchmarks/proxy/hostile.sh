#!/usr/bin/env bash
# What hostile peers cost the clients that are not: the figures of the hostile-peer suite,
# run as `make test-hostile` runs it (the test build, debug, on this machine).
#
#   1. normal cache misses, half of them local:// sources, answered while BURST abandoned
#      requests wait on an origin that sends one byte a second: their p99;
#   2. the server's RSS with 500 clients that never read a 1.9 MB response, against its RSS
#      before they came;
#   3. how long a SIGTERM takes with 500 such clients stuck in their responses, against the
#      2 s graceful-stop timeout the test sets.
#
#   Benchmarks/proxy/hostile.sh                  # BURST=2000 MISSES=400
#   BURST=300 MISSES=40 Benchmarks/proxy/hostile.sh
#
# The tests print their figures; this script reads them and writes
# Benchmarks/results/hostile-*.json. Run from anywhere; it builds the tests if needed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

BURST=${BURST:-2000}
MISSES=${MISSES:-400}
COMMAND="BURST=$BURST MISSES=$MISSES Benchmarks/proxy/hostile.sh"
OUTPUT=$(mktemp "${TMPDIR:-/tmp}/webimage-hostile.XXXXXX")
trap 'rm -f "$OUTPUT"' EXIT

cd "$ROOT"
export PKG_CONFIG_PATH="$ROOT/.build-pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
scripts/bootstrap
swift build --build-tests >/dev/null
WEBIMAGE_HP1_BURST=$BURST WEBIMAGE_HP1_MISSES=$MISSES \
    swift test --skip-build --filter 'SlowOriginBurstTests|NonReadingClientsTests' 2>&1 | tee "$OUTPUT" | grep -E 'HP[12] |figures' || true
if ! grep -q 'Test run with .* passed' "$OUTPUT"; then
    echo "hostile.sh: the hostile-peer suites failed; no figures written" >&2
    exit 1
fi

# "HP1 normal misses during the burst: N requests, median X ms, p99 Y ms, max Z ms"
p99=$(sed -n 's/.*HP1 normal misses during the burst: .* p99 \([0-9.]*\) ms.*/\1/p' "$OUTPUT" | head -1)
misses_line=$(sed -n 's/.*HP1 normal misses during the burst: \(.*\)/\1/p' "$OUTPUT" | head -1)
write_figure hostile-burst-misses-p99 \
    "normal cache misses (half local://) answered during $BURST abandoned requests on a trickling origin: p99 latency" \
    "$p99 ms ($misses_line; test build)" "" "—" "< 1000 ms" "$(figure_met "$p99" "<" 1000)"

# "HP2 figures: RSS A KB before, B KB with 500 clients that never read a N-byte response"
read -r before held < <(sed -n 's/.*HP2 figures: RSS \([0-9]*\) KB before, \([0-9]*\) KB with.*/\1 \2/p' "$OUTPUT" | head -1)
growth_mb=$(awk -v a="$before" -v b="$held" 'BEGIN { printf "%.1f", (b - a) / 1024 }')
write_figure hostile-nonreaders-rss \
    "the server's RSS with 500 clients that never read a 1.9 MB response, each closed by the write deadline" \
    "$(awk -v b="$held" 'BEGIN { printf "%.1f", b / 1024 }') MB, $growth_mb MB more than before they came" \
    "" "$(awk -v a="$before" 'BEGIN { printf "%.1f MB before", a / 1024 }')" "< 200 MB more" "$(figure_met "$growth_mb" "<" 200)"

# "HP2 figures: stop with 500 clients that never read took S seconds (graceful-stop timeout 2 s)"
stop=$(sed -n 's/.*HP2 figures: stop with .* took \([0-9.]*\) seconds.*/\1/p' "$OUTPUT" | head -1)
write_figure hostile-stop-time \
    "SIGTERM to exit with 500 clients stuck in their responses" \
    "$(awk -v s="$stop" 'BEGIN { printf "%.2f s", s }')" "" "the 2 s graceful-stop timeout" "≤ 2 s" "$(figure_met "$stop" "<=" 2)"
