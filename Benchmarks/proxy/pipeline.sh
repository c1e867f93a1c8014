#!/usr/bin/env bash
# The proxy pipeline against baselines measured in the same run:
#
#   1. cold transforms from a host-named origin (http://localhost:PORT/…) vs the same
#      origin named by its IP literal (http://127.0.0.1:PORT/…), and the TCP connections
#      nginx accepted in each case (keep-alive reuse);
#   2. cold transforms of real photos (a new variant each request, the original already in
#      the proxy's cache) vs libvips' vips_thumbnail_buffer + jpegsave_buffer called
#      directly on the same bytes with the same parallelism (vips_baseline.c), and, for
#      reference, vs the proxy's own sequence of libvips calls made directly (the same
#      program with --proxy-sequence): the codec calls' share of the gap and the server's,
#      and vs those calls behind the least an HTTP server can do (lean_server.c): what
#      serving costs whoever serves; with FLOOR=1, also vs those calls behind Hummingbird on
#      a thread pool (hummingbird-floor/, built here): what the Swift server stack costs;
#   3. cached-variant requests vs nginx serving the same bytes as a static file.
#
# Rounds are interleaved (A B A B …). Everything runs on 127.0.0.1, every load run is
# bounded (wrk -d, timeout), and the script stops what it started and deletes its work
# directory on exit (KEEP=1 keeps it). The figures go to Benchmarks/results/<id>.json
# (write_figure in lib.sh). See README.md in this folder.
#
#   WEBIMAGE=/path/to/release/webimage Benchmarks/proxy/pipeline.sh
#
# Needs wrk, nginx, curl, a C compiler, libvips-dev and pkg-config, and the photos of the
# Debian packages mate-backgrounds and plasma-workspace-wallpapers. Run as root, it
# installs whichever of these is missing with apt-get; otherwise it names them and stops.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

WEBIMAGE=${WEBIMAGE:-$ROOT/.build/release/webimage}  # the release build of `webimage`
ROUNDS=${ROUNDS:-3}                        # A B rounds of every case
COLD_SECONDS=${COLD_SECONDS:-20}           # each cold run (cases 1 and 2), each side
CACHED_SECONDS=${CACHED_SECONDS:-10}       # each run of case 3, each side
COLD_CONNECTIONS=${COLD_CONNECTIONS:-$(( 2 * $(nproc) ))}  # cases 1, 2: wrk connections = baseline threads = the proxy's workers
CORE_THREADS=${CORE_THREADS:-$(nproc)} # case 2, reference: the baseline on one thread a core
CONNECTIONS=${CONNECTIONS:-32}             # case 3
THREADS=${THREADS:-2}                      # case 3: wrk threads
WIDTH=${WIDTH:-300}                        # every variant: rs:fit:WIDTH:HEIGHT
HEIGHT=${HEIGHT:-300}
QUALITY=${QUALITY:-80}                     # the proxy's default JPEG quality; the baseline's Q
ORIGIN_PORT=${ORIGIN_PORT:-18090}          # nginx: the photos, the static baseline
STATUS_PORT=${STATUS_PORT:-18092}          # nginx: stub_status (accepted connections)
PROXY_PORT=${PROXY_PORT:-18091}            # webimage serve
LEAN_PORT=${LEAN_PORT:-18093}              # lean_server.c, case 2's reference server
FLOOR=${FLOOR:-0}                          # 1: case 2 also against hummingbird-floor --cold
FLOOR_PORT=${FLOOR_PORT:-18094}            # hummingbird-floor --cold
LOG_LEVEL=${LOG_LEVEL:-warning}            # info logs one line per request
INSTALL=${INSTALL:-1}                      # 0: never apt-get install, only report what is missing
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-pipeline-bench.XXXXXX")}
KEEP=${KEEP:-0}                            # 1: keep $WORK (photos, cache, logs, wrk output)
PERF=${PERF:-0}                            # 1: one more, unmeasured round of case 2 under perf record
COMMAND="${VIPS_NOVECTOR:+VIPS_NOVECTOR=$VIPS_NOVECTOR }${TMPDIR:+TMPDIR=$TMPDIR }$([ "$FLOOR" = 1 ] && echo "FLOOR=1 " || true)ROUNDS=$ROUNDS COLD_SECONDS=$COLD_SECONDS CACHED_SECONDS=$CACHED_SECONDS Benchmarks/proxy/pipeline.sh"   # the figures' command

. "$HERE/photos.sh"   # the photo corpus: CORPUS, missing_for_photo_benchmarks, copy_photos

# --- What the benchmark needs (the project itself needs none of it) ---------------------
missing=()
missing_for_photo_benchmarks
"$ROOT/scripts/install-missing" pipeline.sh "$INSTALL" ${missing[@]+"${missing[@]}"}
[ -x "$WEBIMAGE" ] || { echo "pipeline.sh: no webimage binary at $WEBIMAGE; build one with 'swift build -c release --product webimage' and set WEBIMAGE" >&2; exit 1; }

mkdir -p "$WORK/www/photos" "$WORK/cache" "$WORK/nginx-temp" "$WORK/results"
# nginx's workers run as another user (www-data) when it is started as root, and mktemp
# makes the directory private: open it for reading, or every file answers 403.
chmod 755 "$WORK"
ORIGIN_IP="http://127.0.0.1:$ORIGIN_PORT"
ORIGIN_HOST="http://localhost:$ORIGIN_PORT"
PROXY="http://127.0.0.1:$PROXY_PORT"
LEAN="http://127.0.0.1:$LEAN_PORT"
FLOOR_URL="http://127.0.0.1:$FLOOR_PORT"
STATUS="http://127.0.0.1:$STATUS_PORT/status"
FIT="rs:fit:$WIDTH:$HEIGHT"
. "$HERE/lib.sh"   # cleanup on exit, wait_for, the memory sampler


# --- The corpus, the baseline program, nginx and the proxy -------------------------------
copy_photos "$WORK/www/photos" "$WORK/names.txt"
total_bytes=$(stat -c %s "$WORK"/www/photos/*.jpg | awk '{ sum += $1 } END { print sum }')
PHOTOS=("$WORK"/www/photos/*.jpg)
echo "corpus: ${#PHOTOS[@]} JPEG photos, $(( total_bytes / 1024 )) KB in all (mate-backgrounds, plasma-workspace-wallpapers)"

# Both with WebImage's orc code lock, as `webimage` is (proxy_sequence.h).
ORC_LOCK=("$ROOT/Sources/COrcCodeLock/orc_code_lock.c" -I "$ROOT/Sources/COrcCodeLock/include")
cc -O2 -o "$WORK/vips_baseline" "$HERE/vips_baseline.c" "${ORC_LOCK[@]}" $(pkg-config --cflags --libs vips) -pthread
cc -O2 -o "$WORK/lean_server" "$HERE/lean_server.c" "${ORC_LOCK[@]}" $(pkg-config --cflags --libs vips) -pthread

start_origin "$ORIGIN_PORT" "$STATUS_PORT"

wait_for "$ORIGIN_IP/photos/$(head -1 "$WORK/names.txt")"
wait_for "$STATUS"

# Case 2's reference server: as many threads as the proxy has workers, the photos read from
# their files, its variants written beside the proxy's cache (the same file system).
mkdir -p "$WORK/lean-cache"
"$WORK/lean_server" "$LEAN_PORT" "$COLD_CONNECTIONS" "$WIDTH" "$HEIGHT" "$QUALITY" "$WORK/www/photos" "$WORK/lean-cache" \
    >> "$WORK/lean-server.log" 2>&1 &
REFERENCE_PID=$!
wait_for "$LEAN/count"
# FLOOR=1: the same work behind Hummingbird, on a thread pool of as many threads.
if [ "$FLOOR" = 1 ]; then
    swift build -c release --package-path "$HERE/hummingbird-floor" >&2
    mkdir -p "$WORK/floor-cache"
    "$(swift build -c release --package-path "$HERE/hummingbird-floor" --show-bin-path)/HummingbirdFloor" --cold "$FLOOR_PORT" \
        "$COLD_CONNECTIONS" "$WIDTH" "$HEIGHT" "$QUALITY" "$WORK/www/photos" "$WORK/floor-cache" >> "$WORK/floor.log" 2>&1 &
    FLOOR_PID=$!
    wait_for "$FLOOR_URL/count"
fi

# The proxy: loopback sources allowed (off by default), the origin under both of its names,
# no disk limit (so that no eviction pass lands in one run and not in the other), defaults
# otherwise. Case 1 has a proxy of its own; cases 2 and 3 share a second, fresh process
# (same cache directory), so that its memory figures are case 2's alone.
start_proxy() {
    "$WEBIMAGE" serve --bind 127.0.0.1 --port "$PROXY_PORT" --allow-loopback \
        --allowed-source "$ORIGIN_IP/" --allowed-source "$ORIGIN_HOST/" \
        --cache-dir "$WORK/cache" --cache-max-disk 0 --log-level "$LOG_LEVEL" >> "$WORK/proxy.log" 2>&1 &
    PROXY_PID=$!
    wait_for "$PROXY/health"
}
stop_proxy() {
    kill -TERM "$PROXY_PID" 2>/dev/null || true
    wait "$PROXY_PID" 2>/dev/null || true
    PROXY_PID=""
}
start_proxy

# --- Measuring helpers ---------------------------------------------------------------------
# nginx's counters (all its server blocks): "accepted requests"; the reading itself is one
# connection and one request, counted in the reading.
nginx_counts() { curl -fsS --max-time 5 "$STATUS" | awk 'NR == 3 { print $1, $3 }'; }
# A counter of the proxy's /metrics, summed over its labels.
metric() { curl -fsS --max-time 5 "$PROXY/metrics" | awk -v name="$1" 'index($0, name) == 1 { sum += $NF } END { print sum + 0 }'; }
# A process's user + system CPU time so far, in ms: the proxy's, the reference server's.
proxy_cpu_ms() { cpu_ms "$PROXY_PID"; }
# The variants each server made so far.
proxy_made() { metric webimage_processed_total; }
lean_made() { curl -fsS --max-time 5 "$LEAN/count"; }
floor_made() { curl -fsS --max-time 5 "$FLOOR_URL/count"; }
# VmHWM, the kernel's peak (hwm_kb in lib.sh), is reset before each run (clear_refs 5;
# needs to own the process).
reset_hwm() { echo 5 > "/proc/$PROXY_PID/clear_refs" 2>/dev/null || true; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$PROXY_PID/status"; }

cpu_per() { awk -v ms="$1" -v n="$2" 'BEGIN { printf "%.2f", (n > 0 ? ms / n : 0) }'; }

# Results: one line per run in $RESULTS: case side round rate extra…
RESULTS="$WORK/results/runs.txt"
: > "$RESULTS"

# wrk_run NAME WRK-ARGS…: one bounded wrk run; sets RATE, REQUESTS, BAD (non-2xx + socket errors).
wrk_run() {
    local name=$1; shift
    local out="$WORK/results/$name.txt"
    echo "== $name: wrk $*"
    timeout 600 wrk --latency --timeout 30s "$@" > "$out"
    sed -n '/Latency Distribution/,$p' "$out" | grep -E '50%|99%|requests in|Requests/sec|Non-2xx|Socket errors' || true
    RATE=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    REQUESTS=$(awk '/requests in/ { print $1 }' "$out")
    P99=$(awk '$1 == "99%" { print $2 }' "$out")
    BAD=$(awk '/Non-2xx or 3xx responses:/ { bad += $5 } /Socket errors:/ { gsub(",", ""); bad += $4 + $6 + $8 + $10 } END { print bad + 0 }' "$out")
}

RUN_ID=$(date +%s)
machine() {
    echo "$(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/MemTotal/ { printf "%d GB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
echo "machine: $(machine)"
echo "versions: $(nginx -v 2>&1 | sed 's/.*: //'), $(wrk -v 2>&1 | head -1 | awk '{ print $1, $2 }'), libvips $(pkg-config --modversion vips)"

# --- Case 1: host-named vs IP-literal origin, a new source URL every request ---------------
# The same photos under a new query string each request (…/photos/<name>%3Fv%3D<id>), so
# every request downloads, stores, decodes, resizes and encodes; only the origin's name differs.
case1_run() {
    local side=$1 round=$2 origin=$3
    local before after cpu_before made_before
    before=$(nginx_counts)
    cpu_before=$(proxy_cpu_ms)
    made_before=$(proxy_made)
    wrk_run "case1-$side-$round" -t1 -c"$COLD_CONNECTIONS" -d"${COLD_SECONDS}s" -s "$HERE/corpus.lua" "$PROXY" \
        -- "/insecure/$FIT/plain/$origin/photos/{name}%3Fv%3D{id}" "$WORK/names.txt" "$RUN_ID-$side-$round"
    sleep 1  # requests wrk left in flight finish (the proxy completes them in the background)
    after=$(nginx_counts)
    local connections requests made cpu
    connections=$(( ${after% *} - ${before% *} - 1 ))
    requests=$(( ${after#* } - ${before#* } - 1 ))
    made=$(( $(proxy_made) - made_before ))
    cpu=$(( $(proxy_cpu_ms) - cpu_before ))
    echo "   nginx accepted $connections connections for $requests requests; proxy CPU $(cpu_per "$cpu" "$made") ms per variant ($made made)"
    echo "case1 $side $round $RATE requests=$REQUESTS bad=$BAD p99=$P99 origin_connections=$connections origin_requests=$requests made=$made cpu_ms=$cpu" >> "$RESULTS"
}
# Warm-up, not measured: the proxy's first variants (libvips start-up, thread pools,
# AsyncHTTPClient's connection pool), a few seconds under each name.
for origin in "$ORIGIN_IP" "$ORIGIN_HOST"; do
    timeout 60 wrk --timeout 30s -t1 -c"$COLD_CONNECTIONS" -d3s -s "$HERE/corpus.lua" "$PROXY" \
        -- "/insecure/$FIT/plain/$origin/photos/{name}%3Fv%3D{id}" "$WORK/names.txt" "$RUN_ID-warm" > /dev/null
done
sleep 1
for round in $(seq 1 "$ROUNDS"); do
    case1_run host-named "$round" "$ORIGIN_HOST"
    case1_run ip-literal "$round" "$ORIGIN_IP"
done

CASE1_RSS=$(rss_kb)
CASE1_HWM=$(hwm_kb)
stop_proxy
start_proxy

# --- Case 2: photos, a new variant every request, the original in the proxy's cache -------
# Warm: every photo once at another size, so that the originals are in the proxy's cache.
for name in $(cat "$WORK/names.txt"); do
    curl -fsS --max-time 30 -o /dev/null "$PROXY/insecure/rs:fit:200:200/plain/$ORIGIN_IP/photos/$name"
done
# baseline_run SIDE THREADS ROUND [--proxy-sequence]: one bounded run of vips_baseline.
baseline_run() {
    echo "== case2-$1-$3: vips_baseline ${4:+$4 }$2 threads, ${COLD_SECONDS}s"
    local line rate
    line=$(timeout 600 "$WORK/vips_baseline" ${4:+"$4"} "$2" "$COLD_SECONDS" "$WIDTH" "$HEIGHT" "$QUALITY" "${PHOTOS[@]}")
    echo "   $line"
    rate=$(echo "$line" | sed 's/.*images_per_s=\([0-9.]*\).*/\1/')
    echo "case2 $1 $3 $rate threads=$2 $line" >> "$RESULTS"
    sleep 1
}
# case2_server_run SIDE ROUND SERVER PID MADE: one case-2 wrk run against SERVER; sets
# MADE (the variants that MADE, a command, counts) and CPU (ms of process PID) for the run,
# beside wrk_run's figures.
case2_server_run() {
    local cpu_before made_before
    cpu_before=$(cpu_ms "$4")
    made_before=$($5)
    wrk_run "case2-$1-$2" -t1 -c"$COLD_CONNECTIONS" -d"${COLD_SECONDS}s" -s "$HERE/corpus.lua" "$3" \
        -- "/insecure/$FIT/cb:{id}/plain/$ORIGIN_IP/photos/{name}" "$WORK/names.txt" "$RUN_ID-$1-$2"
    sleep 1  # requests wrk left in flight finish
    MADE=$(( $($5) - made_before ))
    CPU=$(( $(cpu_ms "$4") - cpu_before ))
}
made_before=$(proxy_made)
origin_before=$(nginx_counts)
idle_rss=$(rss_kb)
PEAK_RSS=0
PEAK_HWM=0
for round in $(seq 1 "$ROUNDS"); do
    reset_hwm
    start_sampler "$WORK/results/case2-proxy-$round.rss"
    case2_server_run proxy "$round" "$PROXY" "$PROXY_PID" proxy_made
    stop_sampler
    rss=$(sort -n "$WORK/results/case2-proxy-$round.rss" | tail -1)
    hwm=$(hwm_kb)
    [ "${rss:-0}" -gt "$PEAK_RSS" ] && PEAK_RSS=$rss
    [ "${hwm:-0}" -gt "$PEAK_HWM" ] && PEAK_HWM=$hwm
    echo "   proxy VmRSS peak $(( ${rss:-0} / 1024 )) MB, VmHWM $(( hwm / 1024 )) MB; CPU $(cpu_per "$CPU" "$MADE") ms per variant ($MADE made)"
    echo "case2 proxy $round $RATE requests=$REQUESTS bad=$BAD p99=$P99 rss_kb=${rss:-0} hwm_kb=$hwm made=$MADE cpu_ms=$CPU" >> "$RESULTS"
    baseline_run libvips "$COLD_CONNECTIONS" "$round"
    # Reference: the baseline on one thread a core, beside its run on as many threads as
    # the proxy has workers (the proxy makes each variant on a worker's own thread).
    if [ "$CORE_THREADS" != "$COLD_CONNECTIONS" ]; then baseline_run libvips-cores "$CORE_THREADS" "$round"; fi
    # Reference: the proxy's libvips calls, in its order, without the server around them.
    baseline_run libvips-sequence "$COLD_CONNECTIONS" "$round" --proxy-sequence
    # Reference: the same calls behind the least an HTTP server can do, the same wrk load.
    case2_server_run lean-server "$round" "$LEAN" "$REFERENCE_PID" lean_made
    echo "   lean server CPU $(cpu_per "$CPU" "$MADE") ms per variant ($MADE made)"
    echo "case2 lean-server $round $RATE requests=$REQUESTS bad=$BAD p99=$P99 made=$MADE cpu_ms=$CPU" >> "$RESULTS"
    if [ "$FLOOR" = 1 ]; then
        case2_server_run hummingbird-floor "$round" "$FLOOR_URL" "$FLOOR_PID" floor_made
        echo "   Hummingbird floor CPU $(cpu_per "$CPU" "$MADE") ms per variant ($MADE made)"
        echo "case2 hummingbird-floor $round $RATE requests=$REQUESTS bad=$BAD p99=$P99 made=$MADE cpu_ms=$CPU" >> "$RESULTS"
    fi
done
made_after=$(proxy_made)
origin_after=$(nginx_counts)
CASE2_MADE=$(( made_after - made_before ))
CASE2_ORIGIN=$(( ${origin_after#* } - ${origin_before#* } - 1 ))
# The proxy's variant of every photo once, for their mean size beside the baseline's.
sizes=0
for name in $(cat "$WORK/names.txt"); do
    curl -fsS --max-time 30 -o "$WORK/results/sample.jpg" "$PROXY/insecure/$FIT/cb:size-$RUN_ID/plain/$ORIGIN_IP/photos/$name"
    sizes=$(( sizes + $(stat -c %s "$WORK/results/sample.jpg") ))
done
PROXY_MEAN_BYTES=$(( sizes / ${#PHOTOS[@]} ))

# Optional: where the time goes, one more round of each side under perf (not in the figures).
# perf_dsos FILE IMAGES: perf samples per image, in all and for the busiest shared objects.
perf_dsos() {
    perf report -i "$1" --stdio --no-children -g none --sort dso -n 2>/dev/null | awk -v n="$2" '
        /^#/ || NF < 3 { next }
        { count[++k] = $2; name[k] = $3; total += $2 }
        END { printf "   %.1f samples per image (%d samples, %d images)\n", total / n, total, n
              for (i = 1; i <= k && i <= 8; i++) printf "   %6.2f  %5.1f%%  %s\n", count[i] / n, 100 * count[i] / total, name[i] }'
}
# perf_threads FILE IMAGES: perf samples per image by kind of thread: libvips' pipeline
# workers, the threads that call libvips (the proxy's work slots, TP-#n; the baseline's own),
# Swift's task threads and NIO's event loops.
perf_threads() {
    perf report -i "$1" --stdio --no-children -g none --sort comm -n 2>/dev/null | awk -v n="$2" '
        /^#/ || NF < 3 { next }
        { name = $3; for (i = 4; i <= NF; i++) name = name " " $i
          if (name == "libvips worker") kind = "libvips workers"
          else if (name ~ /^TP-#/ || name == "vips_baseline") kind = "libvips callers (work slots)"
          else if (name ~ /^NIO-/) kind = "NIO event loops"
          else if (name ~ /qos/) kind = "Swift tasks"
          else kind = "other"
          count[kind] += $2 }
        END { for (k in count) printf "   %6.2f  %s\n", count[k] / n, k }' | sort -k1,1nr
}
if [ "$PERF" = 1 ]; then
    if ! command -v perf >/dev/null; then
        echo "pipeline.sh: PERF=1 needs perf (apt-get install linux-perf); skipped" >&2
    else
        echo "== perf: case 2, proxy (-F 499 -g, the whole process)"
        made_before_perf=$(proxy_made)
        timeout $(( COLD_SECONDS + 60 )) perf record -q -F 499 -g -p "$PROXY_PID" -o "$WORK/results/proxy.perf.data" -- sleep $(( COLD_SECONDS + 1 )) 2>/dev/null &
        perf_pid=$!
        sleep 0.5
        timeout 600 wrk --timeout 30s -t1 -c"$COLD_CONNECTIONS" -d"${COLD_SECONDS}s" -s "$HERE/corpus.lua" "$PROXY" \
            -- "/insecure/$FIT/cb:{id}/plain/$ORIGIN_IP/photos/{name}" "$WORK/names.txt" "$RUN_ID-perf" > "$WORK/results/case2-perf.txt"
        wait "$perf_pid" || true
        made_perf=$(( $(proxy_made) - made_before_perf ))
        { perf_dsos "$WORK/results/proxy.perf.data" "$made_perf"; perf_threads "$WORK/results/proxy.perf.data" "$made_perf"; } | tee "$WORK/results/perf-proxy.txt"
        echo "== perf: case 2, libvips direct"
        line=$(timeout 600 perf record -q -F 499 -g -o "$WORK/results/libvips.perf.data" -- \
            "$WORK/vips_baseline" "$COLD_CONNECTIONS" "$COLD_SECONDS" "$WIDTH" "$HEIGHT" "$QUALITY" "${PHOTOS[@]}" 2>/dev/null)
        images_perf=$(echo "$line" | sed 's/^images=\([0-9]*\).*/\1/')
        { perf_dsos "$WORK/results/libvips.perf.data" "$images_perf"; perf_threads "$WORK/results/libvips.perf.data" "$images_perf"; } | tee "$WORK/results/perf-libvips.txt"
    fi
fi

# --- Case 3: a cached variant vs nginx sending the same bytes as a static file -------------
CACHED_PATH="/insecure/$FIT/plain/$ORIGIN_IP/photos/$(head -1 "$WORK/names.txt")"
curl -fsS --max-time 30 -o "$WORK/www/variant.jpg" "$PROXY$CACHED_PATH"
curl -fsS --max-time 30 -o /dev/null "$PROXY$CACHED_PATH"
echo "cached variant: $(stat -c %s "$WORK/www/variant.jpg") bytes"
for round in $(seq 1 "$ROUNDS"); do
    wrk_run "case3-proxy-$round" -t"$THREADS" -c"$CONNECTIONS" -d"${CACHED_SECONDS}s" "$PROXY$CACHED_PATH"
    echo "case3 proxy $round $RATE requests=$REQUESTS bad=$BAD p99=$P99" >> "$RESULTS"
    wrk_run "case3-nginx-$round" -t"$THREADS" -c"$CONNECTIONS" -d"${CACHED_SECONDS}s" "$ORIGIN_IP/variant.jpg"
    echo "case3 nginx $round $RATE requests=$REQUESTS bad=$BAD p99=$P99" >> "$RESULTS"
    # Reference: the proxy's /health (3 bytes, the same HTTP stack and middleware, no cache
    # lookup), the most requests/s this server answers whatever it serves.
    wrk_run "case3-health-$round" -t"$THREADS" -c"$CONNECTIONS" -d"${CACHED_SECONDS}s" "$PROXY/health"
    echo "case3 health $round $RATE requests=$REQUESTS bad=$BAD p99=$P99" >> "$RESULTS"
done

# --- Summary ---------------------------------------------------------------------------------
rates() { awk -v c="$1" -v s="$2" '$1 == c && $2 == s { printf "%s%s", sep, $4; sep = " / " }' "$RESULTS"; }
mean() { awk -v c="$1" -v s="$2" '$1 == c && $2 == s { sum += $4; n++ } END { printf "%.1f", sum / n }' "$RESULTS"; }
# field_values CASE SIDE FIELD: a key=value field of every run of CASE SIDE, one a line.
field_values() { awk -v c="$1" -v s="$2" -v f="$3" '$1 == c && $2 == s { for (i = 5; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }' "$RESULTS"; }
field_sum() { field_values "$@" | awk '{ sum += $1 } END { print sum + 0 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
met() { awk -v r="$1" -v t="$2" 'BEGIN { print (r >= t ? "yes" : "NO") }'; }
# ratios_by_round CASE A B: A's rate ÷ B's in the same round, one line a round in order.
ratios_by_round() {
    awk -v c="$1" -v a="$2" -v b="$3" '$1 == c && $2 == a { x[$3] = $4 } $1 == c && $2 == b { y[$3] = $4 }
        END { for (r = 1; r in x; r++) print x[r] / y[r] }' "$RESULTS"
}
# median_ratio CASE A B: the median of those ratios (each side moves with the machine from
# one round to the next; a round's two runs are seconds apart).
median_ratio() {
    ratios_by_round "$@" | median
}
# round_ratios CASE A B: those ratios as "r1 / r2 / …".
round_ratios() {
    ratios_by_round "$@" | awk '{ printf "%s%.3f", sep, $1; sep = " / " }'
}

r1=$(median_ratio case1 host-named ip-literal)
r2=$(median_ratio case2 proxy libvips)
r3=$(median_ratio case3 proxy nginx)
# Case 2's gap in two: the proxy ÷ its own libvips calls made directly (the server's
# share), those calls ÷ vips_thumbnail_buffer (the codec calls' share).
r2s=$(median_ratio case2 proxy libvips-sequence)
r2c=$(median_ratio case2 libvips-sequence libvips)
# What serving costs whoever serves: the lean server ÷ libvips direct; the proxy ÷ it.
r2l=$(median_ratio case2 lean-server libvips)
r2p=$(median_ratio case2 proxy lean-server)
# out_bytes SIDE: a baseline's mean output size (its first round's).
out_bytes() { field_values case2 "$1" out_bytes | awk 'NR == 1'; }
{
echo
echo "== summary: $(machine)"
echo "   $ROUNDS interleaved rounds; cold runs ${COLD_SECONDS}s at $COLD_CONNECTIONS connections/threads, cached runs ${CACHED_SECONDS}s at $CONNECTIONS connections; ${#PHOTOS[@]} photos → $FIT, JPEG q$QUALITY"
echo
printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' case "measured (per round)" "baseline (per round)" "ratio (median; per round)" target met
printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' --- --- --- --- --- ---
printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' "1. cold, new source each request: host-named origin, req/s" "$(rates case1 host-named)" "IP-literal $(rates case1 ip-literal)" "$r1; $(round_ratios case1 host-named ip-literal)" "≥ 0.98" "$(met "$r1" 0.98)"
printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' "2. cold variant of a cached photo, images/s" "$(rates case2 proxy)" "libvips direct $(rates case2 libvips)" "$r2; $(round_ratios case2 proxy libvips)" "≥ 0.85" "$(met "$r2" 0.85)"
if [ "$CORE_THREADS" != "$COLD_CONNECTIONS" ]; then
    r2b=$(median_ratio case2 proxy libvips-cores)
    printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' "(2, reference: libvips direct on $CORE_THREADS threads)" "" "libvips direct $(rates case2 libvips-cores)" "$r2b; $(round_ratios case2 proxy libvips-cores)" "—" "—"
fi
printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' "(2, reference: the proxy's libvips calls made directly)" "" "its call sequence $(rates case2 libvips-sequence)" "$r2s; $(round_ratios case2 proxy libvips-sequence)" "—" "—"
printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' "(2, reference: those calls behind a minimal C HTTP server)" "" "lean server $(rates case2 lean-server)" "$r2p; $(round_ratios case2 proxy lean-server)" "≥ 0.95" "$(met "$r2p" 0.95)"
if [ "$FLOOR" = 1 ]; then
    r2h=$(median_ratio case2 proxy hummingbird-floor)
    printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' "(2, reference: those calls behind Hummingbird, a thread pool)" "" "Hummingbird floor $(rates case2 hummingbird-floor)" "$r2h; $(round_ratios case2 proxy hummingbird-floor)" "—" "—"
fi
printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' "3. cached variant, req/s" "$(rates case3 proxy)" "nginx static $(rates case3 nginx)" "$r3; $(round_ratios case3 proxy nginx)" "≥ 0.5" "$(met "$r3" 0.5)"
r3b=$(median_ratio case3 proxy health)
printf '| %-58s | %-22s | %-30s | %-22s | %-7s | %-4s |\n' "(3, reference: the proxy's /health, its HTTP stack alone)" "" "/health $(rates case3 health)" "$r3b; $(round_ratios case3 proxy health)" "—" "—"
echo
hn_req=$(field_sum case1 host-named requests); hn_conn=$(field_sum case1 host-named origin_connections); hn_orig=$(field_sum case1 host-named origin_requests)
ip_req=$(field_sum case1 ip-literal requests); ip_conn=$(field_sum case1 ip-literal origin_connections); ip_orig=$(field_sum case1 ip-literal origin_requests)
echo "case 1, connections nginx accepted (all rounds): host-named $hn_conn for $hn_orig origin requests ($hn_req proxy requests); IP-literal $ip_conn for $ip_orig origin requests ($ip_req proxy requests)"
echo "case 1: proxy VmRSS at the end $(( CASE1_RSS / 1024 )) MB, VmHWM (since start, warm-up included) $(( CASE1_HWM / 1024 )) MB"
echo "case 2: proxy peak VmRSS $(( PEAK_RSS / 1024 )) MB sampled, VmHWM $(( PEAK_HWM / 1024 )) MB (fresh process, after the warm pass: $(( idle_rss / 1024 )) MB); libvips baseline VmHWM $(field_values case2 libvips vmhwm_kb | awk '$1 > m { m = $1 } END { printf "%d", m / 1024 }') MB"
echo "case 2: variants made $CASE2_MADE, origin requests $CASE2_ORIGIN (0: every original came from the proxy's cache); mean variant bytes over the corpus: proxy $PROXY_MEAN_BYTES, libvips $(out_bytes libvips), the proxy's libvips calls made directly $(out_bytes libvips-sequence)"
cpu_hn=$(cpu_per "$(field_sum case1 host-named cpu_ms)" "$(field_sum case1 host-named made)")
cpu_ip=$(cpu_per "$(field_sum case1 ip-literal cpu_ms)" "$(field_sum case1 ip-literal made)")
cpu_px=$(cpu_per "$(field_sum case2 proxy cpu_ms)" "$(field_sum case2 proxy made)")
# baseline_cpu SIDE: a baseline's CPU per image over its rounds.
baseline_cpu() { paste <(field_values case2 "$1" cpu_ms_per_image) <(field_values case2 "$1" images) | awk '{ ms += $1 * $2; n += $2 } END { printf "%.2f", ms / n }'; }
cpu_vb=$(baseline_cpu libvips)
cpu_vs=$(baseline_cpu libvips-sequence)
cpu_ls=$(cpu_per "$(field_sum case2 lean-server cpu_ms)" "$(field_sum case2 lean-server made)")
echo "CPU per image, user + system of the whole process (the cost, whatever else the machine ran): case 1 host-named $cpu_hn ms, IP-literal $cpu_ip ms (host-named ÷ IP-literal $(ratio "$cpu_hn" "$cpu_ip")×); case 2 proxy $cpu_px ms, libvips direct $cpu_vb ms (proxy ÷ libvips $(ratio "$cpu_px" "$cpu_vb")×)"
echo "case 2, where the gap is: the proxy's libvips calls made directly ÷ vips_thumbnail_buffer $r2c (CPU per image $cpu_vs ms, $(ratio "$cpu_vs" "$cpu_vb")×; the codec calls' share), the proxy ÷ its libvips calls made directly $r2s (CPU $(ratio "$cpu_px" "$cpu_vs")×; the server's share)"
echo "case 2, what serving costs: the lean server ÷ vips_thumbnail_buffer $r2l (CPU per image $cpu_ls ms, $(ratio "$cpu_ls" "$cpu_vb")×; the least any server adds), the proxy ÷ the lean server $r2p (CPU $(ratio "$cpu_px" "$cpu_ls")×; what WebImage adds beyond it)"
if [ "$FLOOR" = 1 ]; then
    cpu_hf=$(cpu_per "$(field_sum case2 hummingbird-floor cpu_ms)" "$(field_sum case2 hummingbird-floor made)")
    r2hl=$(median_ratio case2 hummingbird-floor lean-server)
    echo "case 2, what the Swift server stack costs: the Hummingbird floor ÷ the lean server $r2hl (CPU per image $cpu_hf ms, $(ratio "$cpu_hf" "$cpu_ls")×), the proxy ÷ the Hummingbird floor $r2h (CPU $(ratio "$cpu_px" "$cpu_hf")×; what WebImage adds beyond Hummingbird and a thread pool)"
fi
echo "case 2, cores kept busy (images/s × CPU per image): proxy $(awk -v r="$(mean case2 proxy)" -v c="$cpu_px" 'BEGIN { printf "%.2f", r * c / 1000 }'), libvips direct $(awk -v r="$(mean case2 libvips)" -v c="$cpu_vb" 'BEGIN { printf "%.2f", r * c / 1000 }') of $(nproc)"
echo "failed requests (non-2xx or socket errors), all runs: $(awk '{ for (i = 5; i <= NF; i++) if ($i ~ /^bad=/) { split($i, kv, "="); n += kv[2] } } END { print n + 0 }' "$RESULTS")"

# The figures, as JSON (Benchmarks/results/<id>.json). With VIPS_NOVECTOR=1 (orc off on
# both sides) case 2 is one figure of its own.
baseline_mb=$(field_values case2 libvips vmhwm_kb | awk '$1 > m { m = $1 } END { printf "%d", m / 1024 }')
if [ "${VIPS_NOVECTOR:-0}" = 1 ]; then
    write_figure proxy-cold-photos-novector "proxy, cold transforms of ${#PHOTOS[@]} photos, orc off on both sides (\`VIPS_NOVECTOR=1\`)" \
        "${r2}× the images/s; the proxy ${r2p}× the lean server's" "$r2" "\`vips_thumbnail_buffer\`; \`lean_server.c\`" \
        "≥ 0.85× thumbnail, ≥ 0.95× lean server" "thumbnail $(figure_met "$r2" ">=" 0.85); lean server $(figure_met "$r2p" ">=" 0.95)"
else
    write_figure proxy-cold-photos "proxy, cold transforms of ${#PHOTOS[@]} photos, orc vector code on both sides" \
        "${r2}× the images/s ($(round_ratios case2 proxy libvips) in $ROUNDS interleaved rounds), $(ratio "$cpu_px" "$cpu_vb")× the CPU per image; peak RSS $(( PEAK_RSS / 1024 )) MB vs $baseline_mb MB" \
        "$r2" "\`vips_thumbnail_buffer\` at the same parallelism ($COLD_CONNECTIONS)" "≥ 0.85×" "$(figure_met "$r2" ">=" 0.85)"
    write_figure proxy-cold-photos-call-sequence "proxy, cold transforms of ${#PHOTOS[@]} photos: the proxy's own libvips calls made directly (reference)" \
        "${r2c}× the images/s" "$r2c" "\`vips_thumbnail_buffer\`"
    floor_text=""
    [ "$FLOOR" = 1 ] && floor_text="; the same calls behind Hummingbird on a thread pool (\`hummingbird-floor --cold\`) ${r2hl}× the lean server's images/s at $(ratio "$cpu_hf" "$cpu_ls")× its CPU an image, the proxy ${r2h}× of that floor ($(round_ratios case2 proxy hummingbird-floor) per round)"
    write_figure proxy-cold-photos-lean-server "proxy, cold transforms of ${#PHOTOS[@]} photos: the proxy's libvips calls behind a minimal C HTTP server (\`lean_server.c\`, reference)" \
        "${r2l}× the images/s; the proxy ${r2p}× of it ($(round_ratios case2 proxy lean-server) per round)$floor_text" "$r2l" "\`vips_thumbnail_buffer\`" \
        "≥ 0.95× (proxy ÷ lean server)" "$(figure_met "$r2p" ">=" 0.95)"
fi
write_figure proxy-host-named-origin "proxy, cold transforms, host-named (\`localhost\`) vs IP-literal keep-alive origin" \
    "${r1}× the requests/s ($(round_ratios case1 host-named ip-literal) per round); $hn_conn connections for $hn_orig downloads" \
    "$r1" "the same by IP literal" "≥ 0.98×" "$(figure_met "$r1" ">=" 0.98)"
write_figure proxy-cached-variant-pipeline "proxy, cached variant (wrk -t$THREADS -c$CONNECTIONS)" \
    "${r3}× the requests/s ($(round_ratios case3 proxy nginx) per round), ${r3b}× the rate of the proxy's own /health" \
    "$r3" "nginx serving the same bytes as a static file" "≥ 0.5×" "$(figure_met "$r3" ">=" 0.5)"
} | tee "$WORK/results/summary.txt"
