#!/usr/bin/env bash
# Load test of `webimage serve` with wrk, beside nginx serving the same bytes as a static
# file. Everything runs on 127.0.0.1 and stops by itself; the figures go to
# Benchmarks/results/proxy-load-*.json. See README.md in this folder.
#
#   Benchmarks/proxy/run.sh                      # builds nothing: give the binary
#   WEBIMAGE=.build/release/webimage Benchmarks/proxy/run.sh
#
# Needs wrk, nginx, curl and vips (Debian: apt-get install wrk nginx curl libvips-tools).
# The project itself needs none of them.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

WEBIMAGE=${WEBIMAGE:-$ROOT/.build/release/webimage}  # the release build of `webimage`
DURATION=${DURATION:-15s}                 # each warm run (nginx static, proxy cached)
COLD_DURATION=${COLD_DURATION:-20s}       # each cold run
THREADS=${THREADS:-2}                     # wrk threads for the warm runs
CONNECTIONS=${CONNECTIONS:-32}            # wrk connections for the warm runs
COLD_CONNECTIONS=${COLD_CONNECTIONS:-4}   # cold runs: about the proxy's workers (2 × cores)
ORIGIN_PORT=${ORIGIN_PORT:-18080}         # nginx: the source images and the static baseline
PROXY_PORT=${PROXY_PORT:-18081}           # webimage serve
LOG_LEVEL=${LOG_LEVEL:-warning}           # info logs one line per request
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-proxy-bench.XXXXXX")}
KEEP=${KEEP:-0}                           # 1: keep $WORK (image, cache, logs, wrk output)

for tool in wrk nginx curl vips; do
    command -v "$tool" >/dev/null || { echo "run.sh: '$tool' is missing (apt-get install wrk nginx curl libvips-tools)" >&2; exit 1; }
done
[ -x "$WEBIMAGE" ] || { echo "run.sh: no webimage binary at $WEBIMAGE; build it with 'swift build -c release --product webimage' and/or set WEBIMAGE" >&2; exit 1; }

mkdir -p "$WORK/www" "$WORK/cache" "$WORK/nginx-temp" "$WORK/results"
# nginx's workers run as another user (www-data) when it is started as root, and mktemp
# makes the directory private: open it for reading, or every file answers 403.
chmod 755 "$WORK"
ORIGIN="http://127.0.0.1:$ORIGIN_PORT"
PROXY="http://127.0.0.1:$PROXY_PORT"
SOURCE="$ORIGIN/photo-24mp.jpg"
. "$HERE/lib.sh"   # cleanup on exit, wait_for, the memory sampler


# 1. The source: a 6000 × 4000 (24 MP) JPEG, quality 85, about 7.7 MB. Smooth colour
#    blobs (150 × 100 noise upscaled 40× with a cubic kernel) plus fine grain, so that it
#    compresses like a photograph rather than like a flat colour or pure noise.
make_image() {
    local out=$1 tmp="$WORK/gen"
    mkdir -p "$tmp"
    for band in r g b; do vips gaussnoise "$tmp/$band.v" 150 100 --mean 128 --sigma 60; done
    vips bandjoin "$tmp/r.v $tmp/g.v $tmp/b.v" "$tmp/small.v"
    vips resize "$tmp/small.v" "$tmp/big.v" 40 --kernel cubic
    vips gaussnoise "$tmp/grain.v" 6000 4000 --mean 0 --sigma 10
    vips add "$tmp/big.v" "$tmp/grain.v" "$tmp/sum.v"
    vips cast "$tmp/sum.v" "$tmp/sum8.v" uchar
    vips copy "$tmp/sum8.v" "$tmp/srgb.v" --interpretation srgb
    vips jpegsave "$tmp/srgb.v" "$out" --Q 85
    rm -rf "$tmp"
}
[ -f "$WORK/www/photo-24mp.jpg" ] || make_image "$WORK/www/photo-24mp.jpg"
echo "source: $(vipsheader "$WORK/www/photo-24mp.jpg"), $(stat -c %s "$WORK/www/photo-24mp.jpg") bytes"

# 2. nginx on loopback: the origin of the proxy, and the static-file baseline.
cat > "$WORK/nginx.conf" <<EOF
worker_processes auto;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    types { image/jpeg jpg; }
    client_body_temp_path $WORK/nginx-temp/body;
    proxy_temp_path $WORK/nginx-temp/proxy;
    fastcgi_temp_path $WORK/nginx-temp/fastcgi;
    uwsgi_temp_path $WORK/nginx-temp/uwsgi;
    scgi_temp_path $WORK/nginx-temp/scgi;
    server {
        listen 127.0.0.1:$ORIGIN_PORT;
        root $WORK/www;
    }
}
EOF
nginx -e "$WORK/nginx-error.log" -p "$WORK" -c "$WORK/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!

# 3. The proxy: loopback sources allowed (off by default), only the origin's prefix.
"$WEBIMAGE" serve --bind 127.0.0.1 --port "$PROXY_PORT" --allow-loopback --allowed-source "$ORIGIN/" \
    --cache-dir "$WORK/cache" --log-level "$LOG_LEVEL" > "$WORK/proxy.log" 2>&1 &
PROXY_PID=$!

wait_for "$ORIGIN/photo-24mp.jpg"
wait_for "$PROXY/health"

peak_kb() { sort -n "$1" | tail -1; }

SUMMARY="$WORK/results/summary.txt"
: > "$SUMMARY"
# run NAME WRK-ARGS…: one bounded wrk run; prints its output and adds a summary line.
run() {
    local name=$1; shift
    local out="$WORK/results/$name.txt" rss="$WORK/results/$name.rss"
    echo "== $name: wrk $*"
    start_sampler "$rss"
    timeout 300 wrk --latency --timeout 10s "$@" | tee "$out"
    stop_sampler
    local rps p99 errors
    rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    p99=$(awk '$1 == "99%" { print $2 }' "$out")
    errors=$(awk '/Non-2xx or 3xx responses:/ { print $5 }' "$out")
    printf '%-28s %10s req/s   p99 %9s   non-2xx %-6s proxy VmRSS peak %6d MB   VmHWM %6d MB\n' \
        "$name" "$rps" "$p99" "${errors:-0}" $(( $(peak_kb "$rss") / 1024 )) $(( $(hwm_kb) / 1024 )) >> "$SUMMARY"
    echo "$name $rps $p99 ${errors:-0} $(( $(peak_kb "$rss") / 1024 ))" >> "$WORK/results/figures.txt"
}

FIT="rs:fit:300:300"
CACHED_PATH="/insecure/$FIT/plain/$SOURCE"

# Warm: the first request downloads, resizes and stores; the bytes served are kept as the
# static file nginx serves in the baseline run.
curl -fsS -o "$WORK/www/variant.jpg" -D "$WORK/results/variant-headers.txt" "$PROXY$CACHED_PATH"
curl -fsS -o /dev/null "$PROXY$CACHED_PATH"
echo "variant: $(vipsheader "$WORK/www/variant.jpg"), $(stat -c %s "$WORK/www/variant.jpg") bytes"

run nginx-static -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$ORIGIN/variant.jpg"
run proxy-cached -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$PROXY$CACHED_PATH"
# Cold variant, original from the proxy's disk cache: a new cachebuster each request.
run proxy-cold-24mp-300-cb -t1 -c"$COLD_CONNECTIONS" -d"$COLD_DURATION" -s "$HERE/distinct.lua" "$PROXY" \
    -- "/insecure/$FIT/cb:%s-%s/plain/$SOURCE" "$(date +%s)"
# Cold end to end: a new source URL each request (download 7.7 MB, store, decode, resize, encode).
run proxy-cold-24mp-300-source -t1 -c"$COLD_CONNECTIONS" -d"$COLD_DURATION" -s "$HERE/distinct.lua" "$PROXY" \
    -- "/insecure/$FIT/plain/$SOURCE%%3Fv%%3D%s-%s" "$(date +%s)"

curl -fsS "$PROXY/metrics" > "$WORK/results/metrics.txt"
echo
echo "== summary ($(nproc) cores, $(uname -m), wrk ${DURATION}/${COLD_DURATION}, $CONNECTIONS/$COLD_CONNECTIONS connections)"
cat "$SUMMARY"
grep -E '^webimage_(cache_hits_total|cache_misses_total|processed_total|requests_total)' "$WORK/results/metrics.txt" || true

# The figures, Benchmarks/results/proxy-load-*.json: each proxy run's requests/s, p99
# latency and peak RSS; the cached run's against nginx's static file.
field() { awk -v n="$1" -v i="$2" '$1 == n { print $i }' "$WORK/results/figures.txt"; }
stated() { echo "$(field "$1" 2) requests/s, p99 $(field "$1" 3), $(field "$1" 4) non-2xx; proxy peak RSS $(field "$1" 5) MB"; }
cached_ratio=$(awk -v a="$(field proxy-cached 2)" -v b="$(field nginx-static 2)" 'BEGIN { printf "%.3f", a / b }')
write_figure proxy-load-cached "proxy, cached variant (24 MP JPEG → 300 px fit, $(stat -c %s "$WORK/www/variant.jpg") bytes), wrk -t$THREADS -c$CONNECTIONS" \
    "$(stated proxy-cached); ${cached_ratio}× nginx's requests/s" "$cached_ratio" "nginx serving the same bytes as a static file: $(field nginx-static 2) requests/s"
write_figure proxy-load-cold-cached-original "proxy, cold 24 MP JPEG → 300 px fit, the original from its disk cache, $COLD_CONNECTIONS connections" \
    "$(stated proxy-cold-24mp-300-cb)"
write_figure proxy-load-cold-download "proxy, cold 24 MP JPEG → 300 px fit, the original downloaded each time, $COLD_CONNECTIONS connections" \
    "$(stated proxy-cold-24mp-300-source)"
