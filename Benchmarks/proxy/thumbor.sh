#!/usr/bin/env bash
# `webimage serve` and thumbor 7.7 (Python, Pillow) side by side on the same cold requests:
# every request a new source URL (the JPEG wallpapers of gnome-backgrounds and
# plasma-workspace-wallpapers, from a loopback nginx), fitted into 500 × 500 and answered
# as JPEG at each server's default quality. For each concurrency, a fresh process of each
# server under wrk; reported per server: answered 200s a second, the peak RSS of the whole
# server (thumbor: its process tree), CPU seconds a request, and the ratios
# webimage/thumbor; with webimage's stated memory budget. The figure of each concurrency
# goes to Benchmarks/results/proxy-thumbor-c<c>.json. See README.md in this folder.
#
#   Benchmarks/proxy/thumbor.sh
#   DURATION=10s CONCURRENCIES=2 WEBIMAGE=/path/to/webimage Benchmarks/proxy/thumbor.sh
#
# Needs wrk, nginx, curl, python3 with venv, and the Debian packages gnome-backgrounds and
# plasma-workspace-wallpapers; as root it installs whichever is missing with apt-get,
# otherwise it names them and stops. thumbor comes from PyPI into a virtual environment
# under the repository's .build-tools/thumbor-venv, made on the first run. Everything
# runs on 127.0.0.1; every run is bounded; the script stops what it started and removes
# its work directory on exit (KEEP=1 keeps it).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

WEBIMAGE=${WEBIMAGE:-$ROOT/.build/release/webimage}  # the release build of `webimage`
DURATION=${DURATION:-30s}                  # each wrk run (wrk's -d: 30s, 2m, …)
CONCURRENCIES=${CONCURRENCIES:-"2 8"}      # wrk connections, one run of each server per value
PORTS=${PORTS:-"18480 18481 18482"}        # nginx (the origin), webimage, thumbor
THUMBOR_VERSION=${THUMBOR_VERSION:-7.7.*}  # pip's version specifier
VENV=${VENV:-$ROOT/.build-tools/thumbor-venv}
PYTHON=${PYTHON:-python3}                  # makes the virtual environment
INSTALL=${INSTALL:-1}                      # 0: never apt-get install, only report what is missing
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-thumbor-bench.XXXXXX")}
KEEP=${KEEP:-0}                            # 1: keep $WORK (photos, caches, logs, wrk output)

read -r ORIGIN_PORT WEBIMAGE_PORT THUMBOR_PORT <<< "$PORTS"
[ -n "$THUMBOR_PORT" ] || { echo "thumbor.sh: PORTS needs three ports: origin, webimage, thumbor" >&2; exit 1; }
for port in $ORIGIN_PORT $WEBIMAGE_PORT $THUMBOR_PORT; do
    ! (exec 3<> "/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "thumbor.sh: port $port is in use; set PORTS=\"<origin> <webimage> <thumbor>\"" >&2; exit 1; }
done
COMMAND="DURATION=$DURATION CONCURRENCIES=\"$CONCURRENCIES\" WEBIMAGE=$WEBIMAGE $0"

# --- What the benchmark needs (the project itself needs none of it) ---------------------
PACKAGES=(gnome-backgrounds plasma-workspace-wallpapers)
missing=()
for pair in wrk:wrk nginx:nginx curl:curl; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
for package in "${PACKAGES[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
"$PYTHON" -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
"$ROOT/scripts/install-missing" thumbor.sh "$INSTALL" ${missing[@]+"${missing[@]}"}
[ -x "$WEBIMAGE" ] || { echo "thumbor.sh: no webimage binary at $WEBIMAGE; build one with 'swift build -c release --product webimage' and set WEBIMAGE" >&2; exit 1; }

# thumbor in its own virtual environment (made again when its Python is gone, upgraded or
# downgraded when its thumbor is not $THUMBOR_VERSION).
"$VENV/bin/python" -c '' 2>/dev/null || { rm -rf "$VENV"; mkdir -p "$(dirname "$VENV")"; "$PYTHON" -m venv "$VENV"; }
installed=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("thumbor"))' 2>/dev/null || true)
if ! "$VENV/bin/python" -c 'import sys; from packaging.specifiers import SpecifierSet; sys.exit(sys.argv[1] not in SpecifierSet(sys.argv[2]))' \
        "${installed:-0}" "==$THUMBOR_VERSION" 2>/dev/null; then
    echo "thumbor.sh: installing thumbor==$THUMBOR_VERSION into $VENV"
    timeout 900 "$VENV/bin/pip" install --quiet --disable-pip-version-check "thumbor==$THUMBOR_VERSION" packaging
fi
THUMBOR_PILLOW=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("thumbor"), m.version("Pillow"))')

mkdir -p "$WORK/www" "$WORK/results"
# nginx's workers run as another user (www-data) when it is started as root, and mktemp
# makes the directory private: open it for reading, or every file answers 403.
chmod 755 "$WORK"
ORIGIN="http://127.0.0.1:$ORIGIN_PORT"
. "$HERE/lib.sh"   # cleanup on exit, start_origin, wait_for, the memory sampler

# --- The corpus: the packages' JPEGs -------------------------------------------------------
# Every regular JPEG file the packages install under /usr/share/backgrounds and
# /usr/share/wallpapers, named after its path (wallpapers-Path-images-2560x1600.jpg);
# left out are the symbolic links (the same files under other sizes' names) and plasma's
# previews (contents/screenshot.jpg).
: > "$WORK/names.txt"
total_bytes=0
counts=""
for package in "${PACKAGES[@]}"; do
    count=0
    while read -r file; do
        [ -f "$file" ] && [ ! -L "$file" ] || continue
        rel=${file#/usr/share/}
        rel=${rel/\/contents\//\/}
        name=${rel//\//-}
        cp "$file" "$WORK/www/$name"
        echo "$name" >> "$WORK/names.txt"
        total_bytes=$(( total_bytes + $(stat -c %s "$file") ))
        count=$(( count + 1 ))
    done < <(dpkg -L "$package" | grep -iE '^/usr/share/(backgrounds|wallpapers)/.*\.jpe?g$' | grep -v '/screenshot\.jpg$' | sort)
    counts="$counts, $package $count"
done
[ -s "$WORK/names.txt" ] || { echo "thumbor.sh: the packages install no JPEG" >&2; exit 1; }
echo "corpus: $(wc -l < "$WORK/names.txt") JPEGs, $(( total_bytes / 1024 )) KB in all (${counts#, })"

start_origin "$ORIGIN_PORT"
wait_for "$ORIGIN/$(head -1 "$WORK/names.txt")"

# --- The servers -----------------------------------------------------------------------------
# Both start without the allocator variables a shell may carry (make run's
# MALLOC_ARENA_MAX, a preloaded allocator): each runs on its own defaults.
CLEAN_ENV=(env -u MALLOC_ARENA_MAX -u MALLOC_ARENA_TEST -u GLIBC_TUNABLES -u LD_PRELOAD)
SERVER=""   # webimage or thumbor: what PROXY_PID is

# webimage: its shipped defaults (workers 2 × cores, quality 80, memory budget a quarter
# of the machine's memory), loopback sources allowed from the origin, a fresh cache.
start_webimage() {
    local c=$1
    "${CLEAN_ENV[@]}" "$WEBIMAGE" serve --bind 127.0.0.1 --port "$WEBIMAGE_PORT" --allow-loopback \
        --allowed-source "$ORIGIN/" --cache-dir "$WORK/cache-$c" --log-level warning \
        >> "$WORK/webimage-c$c.log" 2>&1 &
    PROXY_PID=$! SERVER=webimage
    wait_for "http://127.0.0.1:$WEBIMAGE_PORT/health"
}

# thumbor: its defaults (the HTTP loader, originals in its file storage, the PIL engine,
# quality 80, no thread pool, any source host allowed: ALLOWED_SOURCES empty) except two
# processes, unsafe URLs allowed, and results kept in its file result storage, which
# keeps those of unsafe URLs only with RESULT_STORAGE_STORES_UNSAFE. Both storages are in
# the work directory. It runs in a session of its own: `--processes 2` forks two servers
# from a parent that only waits for them, and stopping it is stopping the process group.
start_thumbor() {
    local c=$1
    mkdir -p "$WORK/thumbor-c$c"
    cat > "$WORK/thumbor-c$c.conf" <<EOF
ALLOW_UNSAFE_URL = True
RESULT_STORAGE = 'thumbor.result_storages.file_storage'
RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '$WORK/thumbor-c$c/result-storage'
RESULT_STORAGE_STORES_UNSAFE = True
FILE_STORAGE_ROOT_PATH = '$WORK/thumbor-c$c/storage'
EOF
    "${CLEAN_ENV[@]}" setsid "$VENV/bin/thumbor" --ip 127.0.0.1 --port "$THUMBOR_PORT" --processes 2 \
        --conf "$WORK/thumbor-c$c.conf" >> "$WORK/thumbor-c$c.log" 2>&1 &
    PROXY_PID=$! SERVER=thumbor
    wait_for "http://127.0.0.1:$THUMBOR_PORT/healthcheck"
}

# Stops the server under test: webimage with SIGTERM (it drains), thumbor's process group
# with SIGTERM, then SIGKILL whatever is left after 10 s.
stop_server() {
    [ -n "$PROXY_PID" ] || return 0
    if [ "$SERVER" = thumbor ]; then
        kill -TERM -- "-$PROXY_PID" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 -- "-$PROXY_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$PROXY_PID" 2>/dev/null || true
    else
        kill -TERM "$PROXY_PID" 2>/dev/null || true
    fi
    wait "$PROXY_PID" 2>/dev/null || true
    PROXY_PID="" SERVER=""
}
trap 'stop_server; cleanup' EXIT

# --- Measuring -------------------------------------------------------------------------------
CLK_TCK=$(getconf CLK_TCK)
# CPU time (user + system, and that of reaped children) of process $1 and its descendants
# so far, in clock ticks.
tree_cpu_ticks() {
    local pid
    for pid in $(tree_pids "$1"); do cat "/proc/$pid/stat" 2>/dev/null || true; done |
        awk '{ sub(/^.*\) /, ""); sum += $12 + $13 + $14 + $15 } END { print sum + 0 }'
}
# A wrk duration (30s, 2m, 1h, or seconds) in whole seconds.
seconds_of() {
    case $1 in
        *h) echo $(( ${1%h} * 3600 )) ;;
        *m) echo $(( ${1%m} * 60 )) ;;
        *s) echo "${1%s}" ;;
        *) echo "$1" ;;
    esac
}
WRK_TIMEOUT=$(( $(seconds_of "$DURATION") + 60 ))

# The request, fit into 500 × 500 as JPEG, for source {name} with query v={id}, escaped
# (%3F, %3D) so that it is part of the source URL on both servers.
declare -A TEMPLATE=(
    [webimage]="/insecure/rs:fit:500:500/f:jpg/plain/$ORIGIN/{name}%3Fv%3D{id}"
    [thumbor]="/unsafe/fit-in/500x500/filters:format(jpeg)/$ORIGIN/{name}%3Fv%3D{id}"
)
declare -A PORT=([webimage]=$WEBIMAGE_PORT [thumbor]=$THUMBOR_PORT)

# check SERVER C: one request for the first photo (a source URL no measured request
# asks for), which must answer a JPEG within 500 × 500; prints what came.
check() {
    local server=$1 c=$2 out="$WORK/results/check-$1-c$2.jpg" path
    path=${TEMPLATE[$server]//\{name\}/$(head -1 "$WORK/names.txt")}
    path=${path//\{id\}/check-$RUN_ID-c$c}
    local status
    status=$(curl -sS --max-time 120 -o "$out" -w '%{http_code} %{content_type}' "http://127.0.0.1:${PORT[$server]}$path")
    local image
    image=$("$VENV/bin/python" -c 'import sys; from PIL import Image; im = Image.open(sys.argv[1]); print(im.format, im.size[0], im.size[1])' "$out" 2>/dev/null || echo "unreadable")
    echo "   check: $status, $image, $(stat -c %s "$out") bytes"
    case $status/$image in
        "200 image/jpeg"/"JPEG "*) read -r _ width height <<< "$image"; [ "$width" -le 500 ] && [ "$height" -le 500 ] && return 0 ;;
    esac
    echo "thumbor.sh: $server does not answer the check request with a JPEG within 500 × 500 (log: $WORK/$server-c$c.log)" >&2
    tail -5 "$WORK/$server-c$c.log" >&2
    exit 1
}

# Figures: one line each in $FIGURES: server concurrency name value.
FIGURES="$WORK/results/figures.txt"
: > "$FIGURES"
figure() { echo "$1 $2 $3 $4" >> "$FIGURES"; }

# measure SERVER C: a fresh process of SERVER under wrk -c C for DURATION.
measure() {
    local server=$1 c=$2 out="$WORK/results/wrk-$1-c$2.txt" samples="$WORK/results/rss-$1-c$2.txt"
    echo "== $server, $c connections"
    "start_$server" "$c"
    check "$server" "$c"
    if [ "$server" = webimage ]; then
        local budget
        budget=$(curl -fsS --max-time 5 "http://127.0.0.1:$WEBIMAGE_PORT/metrics" |
            awk '$1 == "webimage_memory_budget_bytes" || index($1, "webimage_memory_budget_bytes{") == 1 { printf "%.0f", $NF; exit }')
        figure "$server" "$c" budget_bytes "${budget:-0}"
    fi
    local threads=1
    [ "$c" -ge 8 ] && threads=2
    local cpu_before cpu_after
    cpu_before=$(tree_cpu_ticks "$PROXY_PID")
    start_sampler "$samples" tree
    timeout "$WRK_TIMEOUT" wrk -t"$threads" -c"$c" -d"$DURATION" --timeout 30s -s "$HERE/corpus.lua" \
        "http://127.0.0.1:${PORT[$server]}" -- "${TEMPLATE[$server]}" "$WORK/names.txt" "$RUN_ID-$server-c$c" > "$out"
    stop_sampler
    cpu_after=$(tree_cpu_ticks "$PROXY_PID")
    local hwm
    hwm=$(tree_status_kb VmHWM "$PROXY_PID")
    stop_server
    grep -E 'requests in|Socket errors|Non-2xx|^status ' "$out" | sed 's/^ */   /'
    local seconds requests ok errors peak
    seconds=$(awk '/requests in/ { d = $4; sub(/,$/, "", d); f = 1
                   if (d ~ /ms$/) { f = 0.001; sub(/ms$/, "", d) } else if (d ~ /s$/) sub(/s$/, "", d)
                   else if (d ~ /m$/) { f = 60; sub(/m$/, "", d) } else if (d ~ /h$/) { f = 3600; sub(/h$/, "", d) }
                   print d * f }' "$out")
    requests=$(awk '/requests in/ { print $1 }' "$out")
    ok=$(awk '$1 == "status" && $2 == 200 { print $3 }' "$out")
    errors=$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' "$out")
    peak=$(sort -n "$samples" | tail -1)
    figure "$server" "$c" seconds "$seconds"
    figure "$server" "$c" ok "${ok:-0}"
    figure "$server" "$c" non200 "$(( requests - ${ok:-0} ))"
    figure "$server" "$c" socket_errors "${errors:-0}"
    figure "$server" "$c" peak_rss_kb "${peak:-0}"
    figure "$server" "$c" hwm_kb "$hwm"
    figure "$server" "$c" cpu_ticks "$(( cpu_after - cpu_before ))"
}

RUN_ID=$(date +%s)
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "machine: $(nproc) cores, $CPU_MODEL, $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "versions: webimage $("$WEBIMAGE" --version), thumbor ${THUMBOR_PILLOW% *} (Pillow ${THUMBOR_PILLOW#* }, $("$VENV/bin/python" --version)), $(nginx -v 2>&1 | sed 's/.*: //'), $(wrk -v 2>&1 | head -1 | awk '{ print $1, $2 }')"
echo "request: fit into 500 × 500, JPEG at each server's default quality, a new source URL each time; wrk -d$DURATION"
echo "  webimage ${TEMPLATE[webimage]}"
echo "  thumbor  ${TEMPLATE[thumbor]}"

for c in $CONCURRENCIES; do
    measure webimage "$c"
    measure thumbor "$c"
done

# --- Report --------------------------------------------------------------------------------
echo
echo "== $(nproc) cores, wrk -d$DURATION, a fresh process of each server for each concurrency"
awk -v hz="$CLK_TCK" '
    { v[$1, $2, $3] = $4; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
    END {
        printf "%-9s %4s %7s %8s %9s %14s %15s %12s\n", "server", "conc", "200s", "non-200", "req/s", "peak RSS (MB)", "VmHWM sum (MB)", "CPU s/req"
        for (i = 1; i <= n; i++) {
            c = order[i]
            for (s = 1; s <= 2; s++) {
                server = s == 1 ? "webimage" : "thumbor"
                ok = v[server, c, "ok"]
                printf "%-9s %4s %7d %8d %9.2f %14.1f %15.1f %12.4f\n", server, c, ok, v[server, c, "non200"] + v[server, c, "socket_errors"],
                    ok / v[server, c, "seconds"], v[server, c, "peak_rss_kb"] / 1024, v[server, c, "hwm_kb"] / 1024,
                    (ok > 0 ? v[server, c, "cpu_ticks"] / hz / ok : 0)
            }
        }
        print ""
        for (i = 1; i <= n; i++) {
            c = order[i]
            wr = v["webimage", c, "ok"] / v["webimage", c, "seconds"]; tr = v["thumbor", c, "ok"] / v["thumbor", c, "seconds"]
            printf "c=%s  webimage/thumbor: requests/s %s, peak RSS %.3f×\n", c, (tr > 0 ? sprintf("%.3f×", wr / tr) : "—"),
                v["webimage", c, "peak_rss_kb"] / v["thumbor", c, "peak_rss_kb"]
            budget = v["webimage", c, "budget_bytes"] / 1048576
            peak = v["webimage", c, "peak_rss_kb"] / 1024; hwm = v["webimage", c, "hwm_kb"] / 1024
            printf "c=%s  webimage memory budget %.0f MB; its peak RSS %.1f MB (VmHWM %.1f MB) is %s it\n", c, budget, peak, hwm,
                (peak <= budget && hwm <= budget ? "within" : "over")
        }
        print ""
        print "non-200: answers other than 200 plus socket errors (wrk output in the work directory)"
    }' "$FIGURES"

# The figure of each concurrency, Benchmarks/results/proxy-thumbor-c<c>.json (tools/figure).
"$VENV/bin/python" - "$FIGURES" "$CLK_TCK" "$COMMAND" "$HERE/../tools/figure" "$(wc -l < "$WORK/names.txt")" "$DURATION" "${THUMBOR_PILLOW% *}" <<'EOF'
import runpy, sys
figures_path, hz, command, figure_tool, photos, duration, thumbor = sys.argv[1:]
values, concurrencies = {}, []
for line in open(figures_path):
    server, c, name, value = line.split()
    values[server, c, name] = float(value)
    if c not in concurrencies:
        concurrencies.append(c)
write_figure = runpy.run_path(figure_tool)["write"]
for c in concurrencies:
    get = lambda server, name: values.get((server, c, name), 0.0)
    rate = {s: get(s, "ok") / get(s, "seconds") if get(s, "seconds") else 0.0 for s in ("webimage", "thumbor")}
    cpu = {s: get(s, "cpu_ticks") / float(hz) / get(s, "ok") * 1000 if get(s, "ok") else 0.0 for s in ("webimage", "thumbor")}
    rss = {s: get(s, "peak_rss_kb") / 1024 for s in ("webimage", "thumbor")}
    rate_ratio = rate["webimage"] / rate["thumbor"] if rate["thumbor"] else 0.0
    rss_ratio = rss["webimage"] / rss["thumbor"] if rss["thumbor"] else 0.0
    path = write_figure({
        "id": f"proxy-thumbor-c{c}",
        "figure": f"proxy vs thumbor {thumbor} (2 processes, file result storage), {photos} JPEGs, fit 500 JPEG, every request cold, {duration}, concurrency {c}",
        "value": f"{rate_ratio:.2f}× the requests/s ({cpu['webimage']:.0f} vs {cpu['thumbor']:.0f} ms CPU a request, "
                 f"{cpu['webimage'] / cpu['thumbor'] if cpu['thumbor'] else 0:.2f}×; thumbor busy on {rate['thumbor'] * cpu['thumbor'] / 1000:.1f} cores), "
                 f"{rss_ratio:.2f}× thumbor's peak RSS ({rss['webimage']:.0f} vs {rss['thumbor']:.0f} MB)",
        "ratio": rate_ratio, "baseline": "thumbor", "target": "≥ 1.4× req/s, ≤ 0.5× RSS",
        "met": "yes" if rate_ratio >= 1.4 and rss_ratio <= 0.5 else "no", "command": command,
    })
    print(f"figure: {path}")
EOF
