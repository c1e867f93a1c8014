#!/usr/bin/env bash
# Soak and memory: `webimage serve` as shipped (its own allocator setting, no allocator
# variable) under a bounded mixed load (soak.lua: hits, cold variants, bad sources, 404s,
# WebP negotiation, plus a curl loop that hangs up mid-transform), in a fresh process with
# a fresh cache, its memory and file descriptors sampled over time.
#
# First cold throughput: new variants of cached photos, COLD_SECONDS at 2 × cores
# connections, COLD_ROUNDS runs of a fresh process each. Then SOAK_SECONDS of mixed load
# (0: none) with RSS and open file descriptors sampled every SAMPLE_SECONDS. Reported: the
# RSS and fd timeline, the RSS growth after warm-up (mean of the last WINDOW_SECONDS over
# the mean of the first WINDOW_SECONDS after WARMUP_SECONDS), peak RSS, fds before and
# after, and the memory budget:
#
#   budget = memory cache + the proxy's --memory-budget for decodes + base
#          = CACHE_MB + DECODE_MB + BASE_MB
#
# Checks: RSS growth after warm-up < 5 %, peak RSS after warm-up ≤ budget, fds back to
# their level before the load, the process alive and healthy at the end; exit 1 when one
# fails. The figure goes to Benchmarks/results/proxy-soak.json (write_figure in lib.sh).
#
#   WEBIMAGE=/path/to/release/webimage Benchmarks/proxy/soak.sh    # 3 × 20 s cold, 10 min soak
#   SOAK_SECONDS=120 Benchmarks/proxy/soak.sh                       # a short check
#
# Needs wrk, nginx, curl, ss (iproute2) and mate-backgrounds (its photos); as root it installs what is
# missing with apt-get. Everything runs on 127.0.0.1; every run is bounded; the script
# stops what it started and removes its work directory on exit (KEEP=1 keeps it).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

WEBIMAGE=${WEBIMAGE:-$ROOT/.build/release/webimage}
SOAK_SECONDS=${SOAK_SECONDS:-600}          # mixed load
COLD_SECONDS=${COLD_SECONDS:-20}           # each cold run
COLD_ROUNDS=${COLD_ROUNDS:-3}              # cold runs, a fresh process each
WARMUP_SECONDS=${WARMUP_SECONDS:-$(( SOAK_SECONDS / 3 ))}  # the memory cache fills in the first minutes
WINDOW_SECONDS=${WINDOW_SECONDS:-$(( SOAK_SECONDS / 10 > 10 ? SOAK_SECONDS / 10 : 10 ))}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-2}
CONNECTIONS=${CONNECTIONS:-8}              # soak wrk connections
WORKERS=${WORKERS:-$(( 2 * $(nproc) ))}    # the proxy's --workers (its default)
CACHE_MB=${CACHE_MB:-64}                   # the proxy's --cache-max-memory
MAX_MP=${MAX_MP:-5}                        # the proxy's --max-source-resolution (the corpus: ≤ 4.9 MP)
DECODE_MB=${DECODE_MB:-$(( WORKERS * MAX_MP * 4 ))}  # the proxy's --memory-budget: every worker decoding a largest source
BASE_MB=${BASE_MB:-200}                    # the budget's base: runtime, libvips, pools, allocator slack
ORIGIN_PORT=${ORIGIN_PORT:-18380}
PROXY_PORT=${PROXY_PORT:-18381}
INSTALL=${INSTALL:-1}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-soak.XXXXXX")}
KEEP=${KEEP:-0}

PHOTOS=/usr/share/backgrounds/mate/nature
missing=()
for pair in wrk:wrk nginx:nginx curl:curl ss:iproute2; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
[ -f "$PHOTOS/Aqua.jpg" ] || missing+=(mate-backgrounds)
"$ROOT/scripts/install-missing" soak.sh "$INSTALL" ${missing[@]+"${missing[@]}"}
[ -x "$WEBIMAGE" ] || { echo "soak.sh: no webimage binary at $WEBIMAGE; build one with 'swift build -c release --product webimage' and set WEBIMAGE" >&2; exit 1; }

. "$HERE/lib.sh"   # cleanup on exit (the proxy, nginx, the sampler), wait_for
CANCEL_PID=""
lib_cleanup() { :; }
eval "$(declare -f cleanup | sed '1s/cleanup/lib_cleanup/')"
cleanup() {
    [ -n "$CANCEL_PID" ] && kill "$CANCEL_PID" 2>/dev/null || true
    lib_cleanup
}

mkdir -p "$WORK/www/photos" "$WORK/www/bad" "$WORK/nginx-temp" "$WORK/results"
chmod 755 "$WORK"
: > "$WORK/names.txt"
for file in "$PHOTOS"/*.jpg; do cp "$file" "$WORK/www/photos/"; basename "$file" >> "$WORK/names.txt"; done
echo "not an image" > "$WORK/www/bad/text.jpg"
head -c 30000 "$PHOTOS/Blinds.jpg" > "$WORK/www/bad/truncated.jpg"
chmod -R a+rX "$WORK/www"
ORIGIN="http://127.0.0.1:$ORIGIN_PORT"
PROXY="http://127.0.0.1:$PROXY_PORT"

cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    types { image/jpeg jpg; }
    keepalive_requests 1000000;
    client_body_temp_path $WORK/nginx-temp/body;
    proxy_temp_path $WORK/nginx-temp/proxy;
    fastcgi_temp_path $WORK/nginx-temp/fastcgi;
    uwsgi_temp_path $WORK/nginx-temp/uwsgi;
    scgi_temp_path $WORK/nginx-temp/scgi;
    server { listen 127.0.0.1:$ORIGIN_PORT; root $WORK/www; }
}
CONF
nginx -e "$WORK/nginx-error.log" -p "$WORK" -c "$WORK/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!
wait_for "$ORIGIN/photos/Aqua.jpg"

BUDGET_MB=$(( CACHE_MB + DECODE_MB + BASE_MB ))
machine() { echo "$(nproc) cores, $(awk '/MemTotal/ { printf "%d GB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
echo "soak.sh: $(wc -l < "$WORK/names.txt") photos; proxy --workers $WORKERS --cache-max-memory ${CACHE_MB}M --max-source-resolution $MAX_MP; --memory-budget ${DECODE_MB}M; budget $CACHE_MB + $DECODE_MB + $BASE_MB = $BUDGET_MB MB"
echo "soak.sh: cold ${COLD_SECONDS}s, soak ${SOAK_SECONDS}s (warm-up ${WARMUP_SECONDS}s, windows ${WINDOW_SECONDS}s); $(machine)"

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$PROXY_PID/status"; }
fds() { ls "/proc/$PROXY_PID/fd" | wc -l; }
FAILED=0
check() {
    if [ "$2" = 0 ]; then echo "PASS  $1: $3"; else echo "FAIL  $1: $3"; FAILED=$(( FAILED + 1 )); fi
}

# The arenas webimage sets itself, read from the header that defines them.
OWN_ARENAS=$(awk '$1 == "#define" && $2 == "WI_DEFAULT_MALLOC_ARENA_MAX" { print $3 }' \
    "$ROOT/Sources/CAllocatorDefaults/include/CAllocatorDefaults.h")

# start_proxy NAME: a fresh proxy as shipped (no allocator variable the shell may carry),
# its originals in its disk cache (cache-NAME).
start_proxy() {
    local name=$1
    env -u MALLOC_ARENA_MAX -u MALLOC_ARENA_TEST -u GLIBC_TUNABLES -u LD_PRELOAD "$WEBIMAGE" serve --bind 127.0.0.1 --port "$PROXY_PORT" --allow-loopback \
        --allowed-source "$ORIGIN/" --cache-dir "$WORK/cache-$name" --cache-max-memory "${CACHE_MB}M" \
        --max-source-resolution "$MAX_MP" --workers "$WORKERS" --memory-budget "${DECODE_MB}M" --log-level error >> "$WORK/proxy-$name.log" 2>&1 &
    PROXY_PID=$!
    wait_for "$PROXY/health"
    # Every original into the disk cache.
    while read -r photo; do
        curl -fsS --max-time 30 -o /dev/null "$PROXY/insecure/rs:fit:100:100/plain/$ORIGIN/photos/$photo"
    done < "$WORK/names.txt"
}
stop_proxy() { kill -TERM "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true; PROXY_PID=""; }

# cold_round ROUND: one cold-throughput run of a fresh process, its rate into cold.txt.
COLD="$WORK/results/cold.txt"
: > "$COLD"
cold_round() {
    start_proxy "cold-$1"
    timeout $(( COLD_SECONDS + 60 )) wrk -t1 -c"$WORKERS" -d"${COLD_SECONDS}s" --timeout 30s -s "$HERE/corpus.lua" "$PROXY" \
        -- "/insecure/rs:fit:300:300/cb:{id}/plain/$ORIGIN/photos/{name}" "$WORK/names.txt" "$(date +%s)-$1" > "$WORK/results/cold-$1.txt"
    local rate
    rate=$(awk '/^Requests\/sec:/ { print $2 }' "$WORK/results/cold-$1.txt")
    echo "cold round $1: $rate variants/s at $WORKERS connections (load average $(cut -d' ' -f1 /proc/loadavg))"
    echo "$rate" >> "$COLD"
    stop_proxy
}

soak() {
    local name=soak
    echo
    echo "== soak ($(machine))"
    start_proxy "$name"
    local idle_rss idle_fds
    idle_rss=$(rss_kb); idle_fds=$(fds)
    local cold_rate cold_rates
    cold_rate=$(awk '{ s += $1; c++ } END { printf "%.1f", (c ? s / c : 0) }' "$COLD")
    cold_rates=$(awk '{ printf "%s%s", sep, $1; sep = " / " }' "$COLD")

    # The soak: wrk, a curl loop that hangs up 50 ms into cold variants, the sampler.
    local samples="$WORK/results/samples-$name.txt" start
    start=$(date +%s)
    ( while :; do
          echo "$(( $(date +%s) - start )) $(rss_kb 2>/dev/null || echo 0) $(fds 2>/dev/null || echo 0)"
          sleep "$SAMPLE_SECONDS"
      done > "$samples" ) &
    SAMPLER_PID=$!
    ( n=0; end=$(( start + SOAK_SECONDS ))
      while [ "$(date +%s)" -lt "$end" ]; do
          n=$(( n + 1 ))
          curl -s -o /dev/null --max-time 0.05 "$PROXY/insecure/rs:fit:500:500/cb:cancel-$start-$n/plain/$ORIGIN/photos/Wood.jpg" || true
          sleep 0.2
      done
      echo "$n" > "$WORK/results/cancels-$name.txt" ) &
    CANCEL_PID=$!
    timeout $(( SOAK_SECONDS + 60 )) wrk -t2 -c"$CONNECTIONS" -d"${SOAK_SECONDS}s" --timeout 30s -s "$HERE/soak.lua" "$PROXY" \
        -- "$ORIGIN" "$WORK/names.txt" "$start-$name" > "$WORK/results/soak-$name.txt"
    timeout 30 tail --pid="$CANCEL_PID" -f /dev/null || true
    wait "$CANCEL_PID" 2>/dev/null || true
    CANCEL_PID=""
    sleep 3   # requests left in flight finish
    stop_sampler
    local alive=1 after_fds hwm
    curl -fsS --max-time 5 "$PROXY/health" > /dev/null || alive=0
    # Connections to the origin kept open, idle, for the next download
    # (--source-keep-alive-timeout, 60 s) are the pool at work, not a leak.
    local pooled
    pooled=$(ss -Htnp state established "( dport = :$ORIGIN_PORT )" 2>/dev/null | grep -c "pid=$PROXY_PID," || true)
    after_fds=$(( $(fds) - pooled ))
    hwm=$(hwm_kb)
    stop_proxy

    local requests rate statuses errors
    requests=$(awk '/requests in/ { print $1 }' "$WORK/results/soak-$name.txt")
    rate=$(awk '/^Requests\/sec:/ { print $2 }' "$WORK/results/soak-$name.txt")
    statuses=$(grep '^statuses:' "$WORK/results/soak-$name.txt" | sed 's/statuses: //')
    errors=$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' "$WORK/results/soak-$name.txt")
    echo "soak: $requests requests ($rate req/s; $statuses; socket errors ${errors:-0}), $(cat "$WORK/results/cancels-$name.txt") hung-up requests"
    # The timeline, about ten lines: seconds, RSS MB, fds.
    echo "timeline (s: RSS MB / fds): $(awk -v step=$(( SOAK_SECONDS / 10 > SAMPLE_SECONDS ? SOAK_SECONDS / 10 : SAMPLE_SECONDS )) '$1 >= next_t { printf "%s%d: %d / %d", sep, $1, $2 / 1024, $3; sep = ", "; next_t = $1 + step }' "$samples")"
    local stats
    stats=$(awk -v w="$WARMUP_SECONDS" -v win="$WINDOW_SECONDS" -v end="$SOAK_SECONDS" '
        $1 >= w && $1 < w + win { a += $2; na++ }
        $1 >= end - win && $1 <= end { b += $2; nb++ }
        $1 >= w && $1 <= end && $2 > peak { peak = $2 }
        $1 >= w && $1 <= end { fdmax = ($3 > fdmax ? $3 : fdmax) }
        END { printf "%d %d %.1f %d %d", (na ? a / na : 0), (nb ? b / nb : 0), (na && nb ? (b / nb - a / na) * 100 / (a / na) : 999), peak, fdmax }' "$samples")
    local first last growth peak fdmax
    read -r first last growth peak fdmax <<< "$stats"
    echo "RSS: idle $(( idle_rss / 1024 )) MB; after warm-up $(( first / 1024 )) MB, at the end $(( last / 1024 )) MB: growth $growth %; peak after warm-up $(( peak / 1024 )) MB (VmHWM $(( hwm / 1024 )) MB); budget $BUDGET_MB MB"
    echo "fds: $idle_fds before the load, at most $fdmax during it, $after_fds after it (besides $pooled idle connections to the origin kept for reuse)"
    check "RSS growth after warm-up < 5 %" "$(awk -v g="$growth" 'BEGIN { print (g < 5 ? 0 : 1) }')" "$growth % ($(( first / 1024 )) → $(( last / 1024 )) MB)"
    check "peak RSS after warm-up within the budget" "$([ $(( peak / 1024 )) -le "$BUDGET_MB" ] && echo 0 || echo 1)" "$(( peak / 1024 )) MB ≤ $BUDGET_MB MB"
    check "fds back to their level before the load" "$([ "$after_fds" -le $(( idle_fds + 2 )) ] && echo 0 || echo 1)" "$idle_fds before, $after_fds after"
    check "alive and healthy after the soak" "$([ "$alive" = 1 ] && [ "${errors:-0}" = 0 ] && echo 0 || echo 1)" "health $alive, socket errors ${errors:-0}"
    local span="$SOAK_SECONDS s"
    [ $(( SOAK_SECONDS % 60 )) != 0 ] || span="$(( SOAK_SECONDS / 60 )) minutes"
    write_figure proxy-soak "proxy soak, $span of mixed load, as shipped (glibc malloc with the $OWN_ARENAS arenas \`webimage\` sets)" \
        "RSS $(( first / 1024 )) → $(( last / 1024 )) MB after warm-up ($growth % growth), peak $(( peak / 1024 )) MB (VmHWM $(( hwm / 1024 )) MB), idle $(( idle_rss / 1024 )) MB; fds $idle_fds / $fdmax / $after_fds; $rate requests/s; cold variants $cold_rate/s ($cold_rates)" \
        "" "memory budget $BUDGET_MB MB" "growth < 5 %, peak ≤ the budget, fds back to their level" "$([ "$FAILED" = 0 ] && echo yes || echo no)"
}

echo
echo "== cold throughput, $COLD_ROUNDS runs"
for round in $(seq 1 "$COLD_ROUNDS"); do cold_round "$round"; done
[ "$SOAK_SECONDS" -le 0 ] || soak
echo "cold variants/s per run: $(awk '{ printf "%s%s", sep, $1; sep = " / " }' "$COLD")"
echo "budget: $CACHE_MB MB memory cache + $DECODE_MB MB for decodes (--memory-budget) + $BASE_MB MB base = $BUDGET_MB MB"
echo "soak.sh: $FAILED failed check(s)"
[ "$FAILED" = 0 ]
