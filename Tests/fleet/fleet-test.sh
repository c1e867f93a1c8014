#!/usr/bin/env bash
# The fleet test: N `webimage serve` instances behind nginx configured
# with deploy/nginx/webimage.conf, and an origin, all on this machine, each on a loopback
# address of its own. Run it with `make fleet-test` (or directly, as root).
#
#   origin   nginx on 127.0.0.1:$ORIGIN_PORT serving the photos of mate-backgrounds,
#            with an access log: one line per download
#   fleet    webimage serve on 127.0.0.2, 127.0.0.3, … :$INSTANCE_PORT, each with its own
#            cache directory, its own allocator setting (as under the systemd unit)
#   front    nginx on 127.0.0.1:$FRONT_PORT: deploy/nginx/webimage.conf with its paths,
#            addresses and ports replaced by the test's (source-affinity hash, proxy_cache,
#            failover)
#
# Checks, each printed with its counts (any failure: exit 1):
#   1. affinity: every variant of every source asked for $REPEAT times at once through the
#      front → one transform per variant in the fleet (sum of webimage_processed_total
#      over the instances) and one origin download per source (origin access log); half
#      the sources in /plain/ form, half in base64 form.
#   2. kill -9 of an instance under load (wrk, a new variant each request, so every request
#      reaches an instance) → zero failed client requests, and the killed instance made
#      some of the load's variants before the kill.
#   3. rolling restart under load: SIGTERM each instance in turn, wait for it to exit,
#      start it again, wait for /health (deploy/webimage-health) → zero failed requests.
#   4. restart of the whole fleet and of nginx with an empty nginx cache → the variants
#      of check 1 come from the instances' disk caches: disk hits = variants, no transform,
#      no origin download.
#
# At the end it writes the counts as the figure fleet-three-instances to
# Benchmarks/results/fleet-three-instances.json (FIGURES_DIR: another folder), through
# write_figure (Benchmarks/proxy/lib.sh, tools/figure); met is "yes" when every check passes.
#
# Every wait is bounded; everything started is stopped and $WORK removed on exit (KEEP=1
# keeps it: logs, configs, wrk output). Settings below; WEBIMAGE=/path/to/webimage skips
# the release build. Needs nginx, wrk, curl and mate-backgrounds; as root it installs the
# missing ones with apt-get (INSTALL=0: only names them).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

INSTANCES=${INSTANCES:-3}                 # fleet size, ≥ 3
FRONT_PORT=${FRONT_PORT:-18280}           # nginx front, 127.0.0.1
ORIGIN_PORT=${ORIGIN_PORT:-18281}         # nginx origin, 127.0.0.1
INSTANCE_PORT=${INSTANCE_PORT:-18282}     # every instance, on 127.0.0.(i+2)
REPEAT=${REPEAT:-4}                       # check 1: requests per variant, all at once
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-8}   # checks 2, 3: wrk connections
KILL_AFTER=${KILL_AFTER:-4}               # check 2: seconds of load before kill -9
KILL_LOAD=${KILL_LOAD:-6}                 # check 2: seconds of load after it
LOG_LEVEL=${LOG_LEVEL:-warning}
INSTALL=${INSTALL:-1}
KEEP=${KEEP:-0}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-fleet-test.XXXXXX")}

[ "$INSTANCES" -ge 3 ] || { echo "fleet-test: INSTANCES must be at least 3" >&2; exit 1; }

# --- What the test needs --------------------------------------------------------------------
PHOTOS=/usr/share/backgrounds/mate/nature
missing=()
for pair in nginx:nginx wrk:wrk curl:curl; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
[ -f "$PHOTOS/Aqua.jpg" ] || missing+=(mate-backgrounds)
"$ROOT/scripts/install-missing" fleet-test "$INSTALL" ${missing[@]+"${missing[@]}"}
if [ -z "${WEBIMAGE:-}" ]; then
    echo "fleet-test: swift build -c release --product webimage"
    (cd "$ROOT" && swift build -c release --product webimage)
    WEBIMAGE="$(cd "$ROOT" && swift build -c release --show-bin-path)/webimage"
fi
[ -x "$WEBIMAGE" ] || { echo "fleet-test: no webimage binary at $WEBIMAGE" >&2; exit 1; }

# --- Processes, cleanup ---------------------------------------------------------------------
KEEP_WORK=$KEEP
. "$ROOT/Benchmarks/proxy/lib.sh"          # wait_for, write_figure (and a cleanup replaced below)
KEEP=$KEEP_WORK
ORIGIN_PID=""
FRONT_PID=""
WRK_PID=""
declare -a PIDS=()

cleanup() {
    local status=$?
    [ -n "$WRK_PID" ] && kill "$WRK_PID" 2>/dev/null || true
    for pid in "${PIDS[@]}"; do
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        [ -n "$pid" ] && timeout 60 tail --pid="$pid" -f /dev/null 2>/dev/null || true
    done
    for pid in $FRONT_PID $ORIGIN_PID; do kill -QUIT "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ "$KEEP" = 1 ] || [ "$status" != 0 ]; then echo "fleet-test: work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

mkdir -p "$WORK/www/photos" "$WORK/nginx-cache" "$WORK/nginx-temp" "$WORK/logs"
# nginx's workers run as another user when nginx starts as root: open what they read and write.
chmod 755 "$WORK" "$WORK/www" "$WORK/www/photos"
chmod 777 "$WORK/nginx-cache" "$WORK/nginx-temp" "$WORK/logs"
: > "$WORK/names.txt"
for file in "$PHOTOS"/*.jpg; do
    cp "$file" "$WORK/www/photos/"
    basename "$file" >> "$WORK/names.txt"
done
chmod 644 "$WORK"/www/photos/*
SOURCES=$(wc -l < "$WORK/names.txt")
ORIGIN="http://127.0.0.1:$ORIGIN_PORT"
FRONT="http://127.0.0.1:$FRONT_PORT"

nginx_main_conf() {  # FILE NAME BODY: an nginx.conf of its own for the origin or the front
    cat > "$1" <<CONF
worker_processes 2;
pid $WORK/$2.pid;
error_log $WORK/logs/$2-error.log warn;
events { worker_connections 4096; }
http {
    client_body_temp_path $WORK/nginx-temp/$2-body;
    proxy_temp_path $WORK/nginx-temp/$2-proxy;
    fastcgi_temp_path $WORK/nginx-temp/$2-fastcgi;
    uwsgi_temp_path $WORK/nginx-temp/$2-uwsgi;
    scgi_temp_path $WORK/nginx-temp/$2-scgi;
    keepalive_requests 1000000;
$3
}
CONF
}

# The origin: every request logged, so that downloads can be counted.
nginx_main_conf "$WORK/origin.conf" origin "
    types { image/jpeg jpg; }
    log_format downloads '\$request_uri \$status \$msec';
    access_log $WORK/logs/origin-access.log downloads;
    server { listen 127.0.0.1:$ORIGIN_PORT; root $WORK/www; }"
nginx -e "$WORK/logs/origin-error.log" -p "$WORK" -c "$WORK/origin.conf" -g 'daemon off;' &
ORIGIN_PID=$!

# The front: deploy/nginx/webimage.conf with the test's cache path, instances and listen
# address. Each replacement is checked, so that a change to the deploy file shows here.
conf="$WORK/webimage.conf"
servers=""
for i in $(seq 0 $(( INSTANCES - 1 ))); do
    servers+="    server 127.0.0.$(( i + 2 )):$INSTANCE_PORT max_fails=1 fail_timeout=5s;\n"
done
sed -e "s|/var/cache/nginx/webimage|$WORK/nginx-cache|" \
    -e "s|^    listen 80; |    listen 127.0.0.1:$FRONT_PORT; |" \
    -e '/^    server 127\.0\.0\.1:808[0-9] /d' \
    -e "s|^    hash \$webimage_source consistent;|&\n$servers|" \
    "$ROOT/deploy/nginx/webimage.conf" > "$conf"
grep -q "proxy_cache_path $WORK/nginx-cache " "$conf" &&
    grep -q "listen 127.0.0.1:$FRONT_PORT;" "$conf" &&
    [ "$(grep -c "server 127.0.0.[0-9]*:$INSTANCE_PORT " "$conf")" = "$INSTANCES" ] &&
    ! grep -q ':808[0-9]' "$conf" ||
    { echo "fleet-test: deploy/nginx/webimage.conf no longer has the lines the test replaces" >&2; exit 1; }
nginx_main_conf "$WORK/front.conf" front "
    log_format fleet '\$status \$upstream_addr \$upstream_status \$upstream_cache_status \$request_uri';
    access_log $WORK/logs/front-access.log fleet;
    include $conf;"
start_front() {
    nginx -e "$WORK/logs/front-error.log" -p "$WORK" -c "$WORK/front.conf" -g 'daemon off;' &
    FRONT_PID=$!
    wait_for "$FRONT/nginx-health"
}
stop_front() {
    kill -QUIT "$FRONT_PID" 2>/dev/null || true
    timeout 30 tail --pid="$FRONT_PID" -f /dev/null || true
    FRONT_PID=""
}

address() { echo "127.0.0.$(( $1 + 2 ))"; }
instance_url() { echo "http://$(address "$1"):$INSTANCE_PORT"; }
start_instance() {
    local i=$1
    mkdir -p "$WORK/cache-$i"
    "$WEBIMAGE" serve --bind "$(address "$i")" --port "$INSTANCE_PORT" \
        --allow-loopback --allowed-source "$ORIGIN/" --cache-dir "$WORK/cache-$i" \
        --log-level "$LOG_LEVEL" >> "$WORK/logs/instance-$i.log" 2>&1 &
    PIDS[i]=$!
    "$ROOT/deploy/webimage-health" --wait 30 "$(instance_url "$i")/health" ||
        { tail -5 "$WORK/logs/instance-$i.log" >&2; exit 1; }
}
# stop_instance I SIGNAL: signals instance I and waits (at most 60 s) for it to exit;
# sets STOP_STATUS to its exit status.
stop_instance() {
    local pid=${PIDS[$1]}
    kill "-$2" "$pid"
    STOP_STATUS=0
    timeout 60 tail --pid="$pid" -f /dev/null || { echo "fleet-test: instance $1 did not exit within 60 s" >&2; exit 1; }
    wait "$pid" 2>/dev/null || STOP_STATUS=$?
    PIDS[$1]=""
}

# A counter of instance I's /metrics (lines starting with NAME, labels included), summed.
metric() { curl -fsS --max-time 5 "$(instance_url "$1")/metrics" | awk -v name="$2" 'index($0, name) == 1 { sum += $NF } END { printf "%d", sum }'; }
fleet_metric() { local sum=0; for i in $(seq 0 $(( INSTANCES - 1 ))); do sum=$(( sum + $(metric "$i" "$1") )); done; echo "$sum"; }
per_instance() { local out=""; for i in $(seq 0 $(( INSTANCES - 1 ))); do out+="${out:+ / }$(metric "$i" "$1")"; done; echo "$out"; }
origin_downloads() { grep -c '^/photos/' "$WORK/logs/origin-access.log" 2>/dev/null || true; }

FAILED=0
check() {  # NAME CONDITION-RESULT(0 = pass) DETAILS
    if [ "$2" = 0 ]; then echo "PASS  $1: $3"; else echo "FAIL  $1: $3"; FAILED=$(( FAILED + 1 )); fi
}
machine() { echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"; }
thousands() { printf %s "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }

# The figure fleet-three-instances, from the counts the checks print (check 1: transforms and
# origin downloads; 2: kill -9 requests and failures; 3: rolling restart requests, seconds
# and failures; 4: disk hits and transforms after the restart). Met when every check passed.
write_fleet_figure() {
    local value
    value="$AFFINITY_MADE transforms, $AFFINITY_DOWNLOADS origin downloads"
    value+="; kill -9 under load: $(thousands "$KILL_REQUESTS") requests, $KILL_BAD failed"
    value+="; rolling restart: $(thousands "$ROLLING_REQUESTS") requests in $ROLLING_SECONDS s, $ROLLING_BAD failed"
    value+="; after a restart: $RESTART_DISK_HITS disk hits, $RESTART_MADE transforms"
    COMMAND="make fleet-test" write_figure fleet-three-instances \
        "the fleet: $INSTANCES instances behind nginx, $VARIANTS variants of $SOURCES sources asked $REPEAT times each at once" \
        "$value" "" "one transform per variant, one download per source" "as measured" \
        "$([ "$FAILED" = 0 ] && echo yes || echo no)"
}

wait_for "$ORIGIN/photos/Aqua.jpg"
for i in $(seq 0 $(( INSTANCES - 1 ))); do start_instance "$i"; done
start_front
echo "fleet-test: $INSTANCES instances on $(address 0)…$(address $(( INSTANCES - 1 ))):$INSTANCE_PORT, front $FRONT, origin $ORIGIN, $SOURCES sources; $(machine)"

# --- 1. Affinity: one transform per variant, one download per source -----------------------
b64() { printf %s "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
: > "$WORK/variants.txt"
n=0
while read -r name; do
    for size in 120 240 360 480; do
        if [ $(( n % 2 )) = 0 ]; then
            echo "/insecure/rs:fit:$size:$size/plain/$ORIGIN/photos/$name" >> "$WORK/variants.txt"
        else
            echo "/insecure/rs:fill:$size:$size/q:75/$(b64 "$ORIGIN/photos/$name").jpg" >> "$WORK/variants.txt"
        fi
    done
    n=$(( n + 1 ))
done < "$WORK/names.txt"
VARIANTS=$(wc -l < "$WORK/variants.txt")
for _ in $(seq 1 "$REPEAT"); do cat "$WORK/variants.txt"; done | shuf > "$WORK/requests.txt"
processed_before=$(fleet_metric webimage_processed_total)
downloads_before=$(origin_downloads)
# All at once: $REPEAT × variants requests, 32 in parallel, each bounded.
codes=$(xargs -P 32 -I{} curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 "$FRONT{}" < "$WORK/requests.txt" | sort | uniq -c | tr -s ' ' | tr '\n' ',')
sleep 1
made=$(( $(fleet_metric webimage_processed_total) - processed_before ))
downloads=$(( $(origin_downloads) - downloads_before ))
distinct=$({ grep '^/photos/' "$WORK/logs/origin-access.log" || true; } | tail -n +$(( downloads_before + 1 )) | awk '{ print $1 }' | sort -u | wc -l)
busy=0
for i in $(seq 0 $(( INSTANCES - 1 ))); do [ "$(metric "$i" webimage_processed_total)" -gt 0 ] && busy=$(( busy + 1 )); done
ok200=$(echo "$codes" | tr ',' '\n' | awk '$2 == 200 { print $1 }')
check "all answered 200" "$([ "${ok200:-0}" = $(( VARIANTS * REPEAT )) ] && echo 0 || echo 1)" "$(( VARIANTS * REPEAT )) requests, status counts: ${codes%,}"
check "one transform per variant per fleet" "$([ "$made" = "$VARIANTS" ] && echo 0 || echo 1)" "$made transforms for $VARIANTS variants × $REPEAT requests (per instance $(per_instance webimage_processed_total); $busy of $INSTANCES instances had work)"
check "one origin download per source per fleet" "$([ "$downloads" = "$SOURCES" ] && [ "$distinct" = "$SOURCES" ] && echo 0 || echo 1)" "$downloads downloads of $distinct distinct sources for $SOURCES sources"
AFFINITY_MADE=$made
AFFINITY_DOWNLOADS=$downloads

# --- Load: a new variant each request (so every request reaches an instance) ------------------
# start_load NAME: wrk in the background until stop_load; stop_load sets REQUESTS and BAD.
start_load() {
    LOAD_OUT="$WORK/logs/wrk-$1.txt"
    timeout 600 wrk -t2 -c"$LOAD_CONNECTIONS" -d300s --timeout 30s -s "$ROOT/Benchmarks/proxy/corpus.lua" "$FRONT" \
        -- "/insecure/rs:fit:160:160/cb:{id}/plain/$ORIGIN/photos/{name}" "$WORK/names.txt" "$(date +%s%N)-$1" > "$LOAD_OUT" 2>&1 &
    WRK_PID=$!
    sleep 1
}
stop_load() {
    kill -INT "$WRK_PID" 2>/dev/null || true
    timeout 60 tail --pid="$WRK_PID" -f /dev/null || true
    wait "$WRK_PID" 2>/dev/null || true
    WRK_PID=""
    REQUESTS=$(awk '/requests in/ { print $1 }' "$LOAD_OUT")
    BAD=$(awk '/Non-2xx or 3xx responses:/ { bad += $5 } /Socket errors:/ { gsub(",", ""); bad += $4 + $6 + $8 + $10 } END { print bad + 0 }' "$LOAD_OUT")
    [ -n "$REQUESTS" ] || { echo "fleet-test: wrk gave no summary:" >&2; cat "$LOAD_OUT" >&2; exit 1; }
}
front_errors() { awk '$1 !~ /^2/' "$WORK/logs/front-access.log" | wc -l; }

# --- 2. kill -9 under load ---------------------------------------------------------------------
victim=0
errors_before=$(front_errors)
made_before=$(metric "$victim" webimage_processed_total)
start_load kill
sleep "$KILL_AFTER"
victim_made=$(( $(metric "$victim" webimage_processed_total) - made_before ))
victim_in_flight=$(( $(metric "$victim" webimage_in_flight_requests) - 1 ))  # less the /metrics request itself
stop_instance "$victim" KILL
sleep "$KILL_LOAD"
stop_load
front_bad=$(( $(front_errors) - errors_before ))
check "kill -9 under load: no failed request" "$([ "$BAD" = 0 ] && [ "$front_bad" = 0 ] && [ "$REQUESTS" -gt 0 ] && echo 0 || echo 1)" "$REQUESTS requests, $BAD failed (wrk), $front_bad non-2xx at nginx; instance $victim killed after $KILL_AFTER s of load, $victim_in_flight requests in flight on it"
KILL_REQUESTS=$REQUESTS
KILL_BAD=$BAD
check "kill -9: the killed instance served part of the load" "$([ "$victim_made" -gt 0 ] && echo 0 || echo 1)" "it had made $victim_made of the load's variants before the kill"
start_instance "$victim"

# --- 3. Rolling restart under load ---------------------------------------------------------------
errors_before=$(front_errors)
start_load rolling
statuses=""
t0=$(date +%s%N)
for i in $(seq 0 $(( INSTANCES - 1 ))); do
    sleep 2
    stop_instance "$i" TERM
    statuses+="${statuses:+ }$STOP_STATUS"
    start_instance "$i"
done
sleep 2
stop_load
restart_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
front_bad=$(( $(front_errors) - errors_before ))
clean=$([ "$statuses" = "$(printf '0 %.0s' $(seq 1 "$INSTANCES") | sed 's/ $//')" ] && echo 0 || echo 1)
check "rolling restart under load: no failed request" "$([ "$BAD" = 0 ] && [ "$front_bad" = 0 ] && [ "$REQUESTS" -gt 0 ] && echo 0 || echo 1)" "$REQUESTS requests in $(( restart_ms / 1000 )) s, $BAD failed (wrk), $front_bad non-2xx at nginx"
ROLLING_REQUESTS=$REQUESTS
ROLLING_SECONDS=$(( restart_ms / 1000 ))
ROLLING_BAD=$BAD
check "rolling restart: every instance exited 0 on SIGTERM" "$clean" "exit statuses: $statuses"

# --- 4. Restart of everything: the disk caches still hit -------------------------------------------
for i in $(seq 0 $(( INSTANCES - 1 ))); do stop_instance "$i" TERM; done
stop_front
rm -rf "$WORK/nginx-cache" && mkdir -m 777 "$WORK/nginx-cache"
for i in $(seq 0 $(( INSTANCES - 1 ))); do start_instance "$i"; done
start_front
downloads_before=$(origin_downloads)
codes=$(xargs -P 8 -I{} curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 "$FRONT{}" < "$WORK/variants.txt" | sort | uniq -c | tr -s ' ' | tr '\n' ',')
sleep 1
disk=$(fleet_metric 'webimage_cache_hits_total{type="disk"}')
made=$(fleet_metric webimage_processed_total)
downloads=$(( $(origin_downloads) - downloads_before ))
ok200=$(echo "$codes" | tr ',' '\n' | awk '$2 == 200 { print $1 }')
check "restart: disk cache hits" "$([ "$disk" = "$VARIANTS" ] && [ "$made" = 0 ] && [ "${ok200:-0}" = "$VARIANTS" ] && echo 0 || echo 1)" "$VARIANTS variants after a restart of the fleet and nginx (empty nginx cache): $disk disk hits (per instance $(per_instance 'webimage_cache_hits_total{type="disk"}')), $made transforms, status counts ${codes%,}"
check "restart: no origin download" "$([ "$downloads" = 0 ] && echo 0 || echo 1)" "$downloads downloads"
RESTART_DISK_HITS=$disk
RESTART_MADE=$made

echo "fleet-test: $FAILED failed check(s); $(machine)"
write_fleet_figure || echo "fleet-test: the figure was not written" >&2
[ "$FAILED" = 0 ]
