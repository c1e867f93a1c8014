#!/usr/bin/env bash
# The cached path side by side: one cached variant from the proxy's memory cache against
# nginx sending the same bytes as a static file, for one or more `webimage` builds, in
# interleaved rounds (wrk -t2 -c64); the figure goes to Benchmarks/results/proxy-cached-variant.json.
# See README.md in this folder.
#
#   Benchmarks/proxy/cached.sh
#   BUILDS="before=/tmp/a/webimage after=.build/release/webimage" Benchmarks/proxy/cached.sh
#
# Needs wrk, nginx and curl (Debian: apt-get install wrk nginx curl). Everything runs on
# 127.0.0.1; every run is bounded; the script stops what it started and removes its work
# directory on exit (KEEP=1 keeps it).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

BUILDS=${BUILDS:-current=$ROOT/.build/release/webimage}   # name=path of each build, space-separated
ROUNDS=${ROUNDS:-5}                       # interleaved rounds: nginx, then each build
DURATION=${DURATION:-10s}                 # each wrk run
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
ORIGIN_PORT=${ORIGIN_PORT:-18180}         # nginx: the source and the static baseline
PROXY_PORT=${PROXY_PORT:-18181}
LOG_LEVEL=${LOG_LEVEL:-warning}           # info logs a line per request
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-cached-bench.XXXXXX")}
KEEP=${KEEP:-0}

for tool in wrk nginx curl; do
    command -v "$tool" >/dev/null || { echo "cached.sh: '$tool' is missing (apt-get install wrk nginx curl)" >&2; exit 1; }
done
mkdir -p "$WORK/www" "$WORK/results"
chmod 755 "$WORK"
ORIGIN="http://127.0.0.1:$ORIGIN_PORT"
PROXY="http://127.0.0.1:$PROXY_PORT"
. "$HERE/lib.sh"

# The source: the repository's sample photo, resized to a 300 px variant by each proxy.
cp "$ROOT/Samples/sample.jpg" "$WORK/www/photo.jpg"
CACHED_PATH="/insecure/rs:fit:300:300/plain/$ORIGIN/photo.jpg"

start_origin "$ORIGIN_PORT"
wait_for "$ORIGIN/photo.jpg"

# CPU time (user + system, in clock ticks) of process $1 so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
TICKS=$(getconf CLK_TCK)

# bench NAME ROUND URL [PID]: one wrk run; a line "NAME ROUND req/s cpu-µs-per-request".
bench() {
    local name=$1 round=$2 url=$3 pid=${4:-} out="$WORK/results/$1-$2.txt" before=0 after=0
    [ -n "$pid" ] && before=$(cpu_ticks "$pid")
    timeout 120 wrk --timeout 10s -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$url" > "$out"
    [ -n "$pid" ] && after=$(cpu_ticks "$pid")
    local rps requests errors
    rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    requests=$(awk '/requests in/ { print $1 }' "$out")
    errors=$(awk '/Non-2xx or 3xx responses:/ { print $5 }' "$out")
    [ -z "$errors" ] || { echo "cached.sh: $name answered $errors non-2xx responses" >&2; exit 1; }
    local cpu="-"
    [ -n "$pid" ] && cpu=$(awk -v t=$(( after - before )) -v n="$requests" -v hz="$TICKS" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
    echo "$name $round $rps $cpu" | tee -a "$WORK/results/runs.txt"
}

for round in $(seq 1 "$ROUNDS"); do
    first=1   # nginx serves the first build's variant
    for build in $BUILDS; do
        name=${build%%=*} binary=${build#*=}
        [ -x "$binary" ] || { echo "cached.sh: no binary at $binary ($name)" >&2; exit 1; }
        rm -rf "$WORK/cache"
        "$binary" serve --bind 127.0.0.1 --port "$PROXY_PORT" --allow-loopback --allowed-source "$ORIGIN/" \
            --cache-dir "$WORK/cache" --log-level "$LOG_LEVEL" > "$WORK/proxy-$name.log" 2>&1 &
        PROXY_PID=$!
        wait_for "$PROXY/health"
        curl -fsS -o "$WORK/variant-$name.jpg" "$PROXY$CACHED_PATH"
        [ "$first" = 1 ] && cp "$WORK/variant-$name.jpg" "$WORK/www/variant.jpg" && first=0
        bench "$name" "$round" "$PROXY$CACHED_PATH" "$PROXY_PID"
        kill -TERM "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true
        PROXY_PID=""
    done
    bench nginx "$round" "$ORIGIN/variant.jpg"
done

echo
echo "== $(nproc) cores, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $ROUNDS rounds, log level $LOG_LEVEL; variant $(stat -c %s "$WORK/www/variant.jpg") bytes"
awk '
    { rps[$1, $2] = $3; cpu[$1, $2] = $4; names[$1] = 1; if ($2 > rounds) rounds = $2 }
    END {
        for (name in names) {
            if (name == "nginx") continue
            line = ""; sum = 0; nsum = 0; csum = 0
            for (r = 1; r <= rounds; r++) {
                line = line sprintf(" %.3f", rps[name, r] / rps["nginx", r])
                sum += rps[name, r]; nsum += rps["nginx", r]; csum += cpu[name, r]
            }
            printf "%-12s %9.0f req/s  %6.1f µs CPU/request  %.3f× nginx (per round:%s)\n", name, sum / rounds, csum / rounds, sum / nsum, line
        }
        nsum = 0
        for (r = 1; r <= rounds; r++) nsum += rps["nginx", r]
        printf "%-12s %9.0f req/s\n", "nginx", nsum / rounds
    }' "$WORK/results/runs.txt"

# The figure (Benchmarks/results/proxy-cached-variant.json): the first build against nginx,
# with any other builds beside it.
ratio_of() { awk -v n="$1" '{ rps[$1] += $3 } END { printf "%.3f", rps[n] / rps["nginx"] }' "$WORK/results/runs.txt"; }
read -ra builds <<< "$BUILDS"
first=${builds[0]%%=*}
value="$(ratio_of "$first")× the requests/s ($(awk -v n="$first" -v r="$ROUNDS" '$1 == n { s += $3 } END { printf "%.1f", s / r / 1000 }' "$WORK/results/runs.txt") k/s)"
for build in "${builds[@]:1}"; do value+="; ${build%%=*}: $(ratio_of "${build%%=*}")×"; done
COMMAND="Benchmarks/proxy/cached.sh"
write_figure proxy-cached-variant "proxy, cached variant" "$value" "$(ratio_of "$first")" \
    "nginx serving the same bytes as a static file (wrk -t$THREADS -c$CONNECTIONS, $ROUNDS interleaved rounds)" "≥ 0.6×" \
    "$(figure_met "$(ratio_of "$first")" ">=" 0.6)"
