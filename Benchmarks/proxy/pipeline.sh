#!/usr/bin/env bash
# The proxy's cold path against baselines measured in the same run, in interleaved rounds:
#
#   1. cold transforms from a host-named origin (http://localhost:PORT/…) vs the same
#      origin named by its IP literal (http://127.0.0.1:PORT/…), and the TCP connections
#      nginx accepted in each (keep-alive reuse): figure proxy-host-named-origin;
#   2. cold transforms of real photos (a new variant each request, the original already in
#      the proxy's cache) vs vips_thumbnail_buffer + jpegsave_buffer called directly on the
#      same bytes with the same parallelism (vips_baseline.c): figure proxy-cold-photos.
#
#   WEBIMAGE=/path/to/release/webimage Benchmarks/proxy/pipeline.sh
#
# Needs wrk, nginx, curl, a C compiler, libvips-dev and pkg-config, and the photos of the
# Debian packages mate-backgrounds and plasma-workspace-wallpapers (photos.sh); run as
# root, it installs whichever is missing with apt-get, otherwise it names them and stops.
# Everything runs on 127.0.0.1, every load run is bounded (wrk -d, timeout), and the
# script stops what it started and deletes its work directory on exit (KEEP=1 keeps it).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

WEBIMAGE=${WEBIMAGE:-$ROOT/.build/release/webimage}  # the release build of `webimage`
ROUNDS=${ROUNDS:-3}                        # A B rounds of each case
COLD_SECONDS=${COLD_SECONDS:-20}           # each run, each side
CONNECTIONS=${CONNECTIONS:-$(( 2 * $(nproc) ))}  # wrk connections = baseline threads = the proxy's workers
WIDTH=${WIDTH:-300}                        # every variant: rs:fit:WIDTH:HEIGHT
HEIGHT=${HEIGHT:-300}
QUALITY=${QUALITY:-80}                     # the proxy's default JPEG quality; the baseline's Q
ORIGIN_PORT=${ORIGIN_PORT:-18090}          # nginx: the photos
STATUS_PORT=${STATUS_PORT:-18092}          # nginx: stub_status (accepted connections)
PROXY_PORT=${PROXY_PORT:-18091}            # webimage serve
LOG_LEVEL=${LOG_LEVEL:-warning}            # info logs one line per request
INSTALL=${INSTALL:-1}                      # 0: never apt-get install, only report what is missing
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-pipeline-bench.XXXXXX")}
KEEP=${KEEP:-0}                            # 1: keep $WORK (photos, cache, logs, wrk output)
COMMAND="${TMPDIR:+TMPDIR=$TMPDIR }ROUNDS=$ROUNDS COLD_SECONDS=$COLD_SECONDS Benchmarks/proxy/pipeline.sh"

. "$HERE/photos.sh"   # the photo corpus: CORPUS, missing_for_photo_benchmarks, copy_photos
missing=()
missing_for_photo_benchmarks
"$ROOT/scripts/install-missing" pipeline.sh "$INSTALL" ${missing[@]+"${missing[@]}"}
[ -x "$WEBIMAGE" ] || { echo "pipeline.sh: no webimage binary at $WEBIMAGE; build one with 'swift build -c release --product webimage' and set WEBIMAGE" >&2; exit 1; }

mkdir -p "$WORK/www/photos" "$WORK/cache" "$WORK/results"
# nginx's workers run as another user (www-data) when it is started as root, and mktemp
# makes the directory private: open it for reading, or every file answers 403.
chmod 755 "$WORK"
ORIGIN_IP="http://127.0.0.1:$ORIGIN_PORT"
ORIGIN_HOST="http://localhost:$ORIGIN_PORT"
PROXY="http://127.0.0.1:$PROXY_PORT"
STATUS="http://127.0.0.1:$STATUS_PORT/status"
FIT="rs:fit:$WIDTH:$HEIGHT"
. "$HERE/lib.sh"   # cleanup on exit, start_origin, wait_for, the memory sampler, write_figure

copy_photos "$WORK/www/photos" "$WORK/names.txt"
PHOTOS=("$WORK"/www/photos/*.jpg)
echo "corpus: ${#PHOTOS[@]} JPEG photos, $(du -ck "${PHOTOS[@]}" | tail -1 | cut -f1) KB in all"
# Built with WebImage's orc code lock, as `webimage` is.
cc -O2 -o "$WORK/vips_baseline" "$HERE/vips_baseline.c" "$ROOT/Sources/COrcCodeLock/orc_code_lock.c" \
    -I "$ROOT/Sources/COrcCodeLock/include" $(pkg-config --cflags --libs vips) -pthread
start_origin "$ORIGIN_PORT" "$STATUS_PORT"
wait_for "$ORIGIN_IP/photos/$(head -1 "$WORK/names.txt")"
wait_for "$STATUS"

# The proxy: loopback sources allowed, the origin under both of its names, no disk limit
# (so that no eviction pass lands in one run and not in the other), defaults otherwise.
# Each case has a fresh process (same cache directory), so that case 2's memory is its own.
start_proxy() {
    "$WEBIMAGE" serve --bind 127.0.0.1 --port "$PROXY_PORT" --allow-loopback \
        --allowed-source "$ORIGIN_IP/" --allowed-source "$ORIGIN_HOST/" \
        --cache-dir "$WORK/cache" --cache-max-disk 0 --log-level "$LOG_LEVEL" >> "$WORK/proxy.log" 2>&1 &
    PROXY_PID=$!
    wait_for "$PROXY/health"
}
stop_proxy() { kill -TERM "$PROXY_PID" 2>/dev/null || true; wait "$PROXY_PID" 2>/dev/null || true; PROXY_PID=""; }

# nginx's "accepted requests"; the reading itself is one connection and one request.
nginx_counts() { curl -fsS --max-time 5 "$STATUS" | awk 'NR == 3 { print $1, $3 }'; }
# The variants the proxy made so far (its /metrics).
proxy_made() { curl -fsS --max-time 5 "$PROXY/metrics" | awk 'index($0, "webimage_processed_total") == 1 { sum += $NF } END { print sum + 0 }'; }
cpu_per() { awk -v ms="$1" -v n="$2" 'BEGIN { printf "%.2f", (n > 0 ? ms / n : 0) }'; }

# One line per run in $RESULTS: case side round rate key=value…
RESULTS="$WORK/results/runs.txt"
: > "$RESULTS"
# wrk_run NAME WRK-ARGS…: one bounded wrk run; sets RATE and BAD (non-2xx + socket errors).
wrk_run() {
    local name=$1; shift
    local out="$WORK/results/$name.txt"
    echo "== $name"
    timeout 600 wrk --timeout 30s "$@" > "$out"
    RATE=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    BAD=$(awk '/Non-2xx or 3xx responses:/ { bad += $5 } /Socket errors:/ { gsub(",", ""); bad += $4 + $6 + $8 + $10 } END { print bad + 0 }' "$out")
    echo "   $RATE requests/s, $BAD failed"
}
RUN_ID=$(date +%s)
echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"

# --- Case 1: host-named vs IP-literal origin, a new source URL every request ---------------
# The same photos under a new query string each request (…/photos/<name>%3Fv%3D<id>): every
# request downloads, stores, decodes, resizes and encodes; only the origin's name differs.
start_proxy
case1_run() {
    local side=$1 round=$2 origin=$3 before after
    before=$(nginx_counts)
    wrk_run "case1-$side-$round" -t1 -c"$CONNECTIONS" -d"${COLD_SECONDS}s" -s "$HERE/corpus.lua" "$PROXY" \
        -- "/insecure/$FIT/plain/$origin/photos/{name}%3Fv%3D{id}" "$WORK/names.txt" "$RUN_ID-$side-$round"
    sleep 1  # requests wrk left in flight finish
    after=$(nginx_counts)
    echo "case1 $side $round $RATE bad=$BAD connections=$(( ${after% *} - ${before% *} - 1 )) downloads=$(( ${after#* } - ${before#* } - 1 ))" >> "$RESULTS"
}
# Warm-up, not measured: libvips start-up, thread pools, the connection pool.
for origin in "$ORIGIN_IP" "$ORIGIN_HOST"; do
    timeout 60 wrk --timeout 30s -t1 -c"$CONNECTIONS" -d3s -s "$HERE/corpus.lua" "$PROXY" \
        -- "/insecure/$FIT/plain/$origin/photos/{name}%3Fv%3D{id}" "$WORK/names.txt" "$RUN_ID-warm" > /dev/null
done
for round in $(seq 1 "$ROUNDS"); do
    case1_run host-named "$round" "$ORIGIN_HOST"
    case1_run ip-literal "$round" "$ORIGIN_IP"
done
stop_proxy

# --- Case 2: photos, a new variant every request, the original in the proxy's cache -------
start_proxy
# Every photo once at another size, so that the originals are in the proxy's cache.
for name in $(cat "$WORK/names.txt"); do
    curl -fsS --max-time 30 -o /dev/null "$PROXY/insecure/rs:fit:200:200/plain/$ORIGIN_IP/photos/$name"
done
PEAK_RSS=0
for round in $(seq 1 "$ROUNDS"); do
    echo 5 > "/proc/$PROXY_PID/clear_refs" 2>/dev/null || true   # resets VmHWM
    start_sampler "$WORK/results/case2-proxy-$round.rss"
    cpu_before=$(cpu_ms "$PROXY_PID") made_before=$(proxy_made)
    wrk_run "case2-proxy-$round" -t1 -c"$CONNECTIONS" -d"${COLD_SECONDS}s" -s "$HERE/corpus.lua" "$PROXY" \
        -- "/insecure/$FIT/cb:{id}/plain/$ORIGIN_IP/photos/{name}" "$WORK/names.txt" "$RUN_ID-proxy-$round"
    sleep 1
    stop_sampler
    made=$(( $(proxy_made) - made_before )) cpu=$(( $(cpu_ms "$PROXY_PID") - cpu_before ))
    rss=$(sort -n "$WORK/results/case2-proxy-$round.rss" | tail -1)
    [ "${rss:-0}" -gt "$PEAK_RSS" ] && PEAK_RSS=$rss
    echo "case2 proxy $round $RATE bad=$BAD made=$made cpu_ms=$cpu hwm_kb=$(hwm_kb)" >> "$RESULTS"
    echo "== case2-libvips-$round"
    line=$(timeout 600 "$WORK/vips_baseline" "$CONNECTIONS" "$COLD_SECONDS" "$WIDTH" "$HEIGHT" "$QUALITY" "${PHOTOS[@]}")
    echo "   $line"
    echo "case2 libvips $round $(echo "$line" | sed 's/.*images_per_s=\([0-9.]*\).*/\1/') $line" >> "$RESULTS"
    sleep 1
done

# --- Summary and figures ----------------------------------------------------------------------
# field CASE SIDE NAME: a key=value field of every run of CASE SIDE, one a line.
field() { awk -v c="$1" -v s="$2" -v f="$3" '$1 == c && $2 == s { for (i = 5; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }' "$RESULTS"; }
sum() { awk '{ s += $1 } END { print s + 0 }'; }
# ratios CASE A B: A's rate ÷ B's in the same round, one a line.
ratios() { awk -v c="$1" -v a="$2" -v b="$3" '$1 == c && $2 == a { x[$3] = $4 } $1 == c && $2 == b { y[$3] = $4 } END { for (r = 1; r in x; r++) print x[r] / y[r] }' "$RESULTS"; }
per_round() { ratios "$@" | awk '{ printf "%s%.3f", sep, $1; sep = " / " }'; }
r1=$(ratios case1 host-named ip-literal | median)
r2=$(ratios case2 proxy libvips | median)
cpu_proxy=$(cpu_per "$(field case2 proxy cpu_ms | sum)" "$(field case2 proxy made | sum)")
cpu_libvips=$(paste <(field case2 libvips cpu_ms_per_image) <(field case2 libvips images) | awk '{ ms += $1 * $2; n += $2 } END { printf "%.2f", ms / n }')
cpu_ratio=$(awk -v a="$cpu_proxy" -v b="$cpu_libvips" 'BEGIN { printf "%.3f", a / b }')
baseline_mb=$(field case2 libvips vmhwm_kb | awk '$1 > m { m = $1 } END { printf "%d", m / 1024 }')
connections=$(field case1 host-named connections | sum) downloads=$(field case1 host-named downloads | sum)
{
echo
echo "== $ROUNDS interleaved rounds of ${COLD_SECONDS}s at $CONNECTIONS connections/threads; ${#PHOTOS[@]} photos → $FIT, JPEG q$QUALITY"
echo "1. host-named ÷ IP-literal origin, requests/s: $r1 ($(per_round case1 host-named ip-literal)); nginx accepted $connections connections for $downloads downloads (IP literal: $(field case1 ip-literal connections | sum) for $(field case1 ip-literal downloads | sum))"
echo "2. proxy ÷ libvips direct, images/s: $r2 ($(per_round case2 proxy libvips)); CPU an image $cpu_proxy ms against $cpu_libvips ms ($cpu_ratio×); peak RSS $(( PEAK_RSS / 1024 )) MB against $baseline_mb MB"
echo "failed requests: $(awk '{ for (i = 5; i <= NF; i++) if ($i ~ /^bad=/) { split($i, kv, "="); n += kv[2] } } END { print n + 0 }' "$RESULTS")"
write_figure proxy-host-named-origin "proxy, cold transforms, host-named (\`localhost\`) vs IP-literal keep-alive origin" \
    "${r1}× the requests/s ($(per_round case1 host-named ip-literal) per round); $connections connections for $downloads downloads" \
    "$r1" "the same by IP literal" "≥ 0.98×" "$(figure_met "$r1" ">=" 0.98)"
write_figure proxy-cold-photos "proxy, cold transforms of ${#PHOTOS[@]} photos, orc vector code on both sides" \
    "${r2}× the images/s ($(per_round case2 proxy libvips) in $ROUNDS interleaved rounds), ${cpu_ratio}× the CPU per image; peak RSS $(( PEAK_RSS / 1024 )) MB vs $baseline_mb MB" \
    "$r2" "\`vips_thumbnail_buffer\` at the same parallelism ($CONNECTIONS)" "≥ 0.85×" "$(figure_met "$r2" ">=" 0.85)"
} | tee "$WORK/results/summary.txt"
