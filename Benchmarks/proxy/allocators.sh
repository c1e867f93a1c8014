#!/usr/bin/env bash
# Allocators in the steady state: pipeline.sh's case 2 (cold variants of photos whose
# originals are in the proxy's cache) for several `webimage serve` processes side by side,
# one per allocator setting, each beside lean_server.c making the same variants.
#
#   WEBIMAGE=/path/to/release/webimage Benchmarks/proxy/allocators.sh
#   ALLOCATORS="arena4 arena2 mimalloc" ROUNDS=16 SECONDS_A_SLOT=6 Benchmarks/proxy/allocators.sh
#
# Every process is started once, warmed with one pass over the corpus, and then given
# wrk slots of SECONDS_A_SLOT in turn, each followed by a slot of the lean server
# (P1 L P2 L … ROUNDS times), so that every proxy ages through the same number of
# variants and the machine's drift falls on a proxy and the lean server alike. A round's
# ratio is a proxy's slot against the lean server's slot after it; the figures are the
# medians over the rounds, and the medians of the second half (the processes aged).
#
# The allocator settings (glibc, arenaN, jemalloc, mimalloc, mimalloc-delayN) are in
# allocator-settings.sh; arena4 is webimage's own setting (OWN_SETTING), run without a variable.
#
# Reported per setting: variants/s and CPU an image (user + system, /proc/<pid>/stat, over
# the variants made) against the lean server's, and the peak RSS. CPU an image moves less
# with the machine than variants/s. The lean server runs glibc's defaults. Figures go to
# Benchmarks/results/proxy-allocators-<setting>.json (write_figure in lib.sh).
#
# Needs wrk, nginx, curl, a C compiler, libvips-dev, pkg-config, the allocators' packages
# and the photos of mate-backgrounds and plasma-workspace-wallpapers (photos.sh, the
# corpus of pipeline.sh); as root it installs what is missing with apt-get. Everything runs on
# 127.0.0.1; the script stops what it started and removes its work directory on exit
# (KEEP=1 keeps it).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

. "$HERE/allocator-settings.sh"   # OWN_SETTING, allocator_env, allocator_description, missing_for_allocators

WEBIMAGE=${WEBIMAGE:-$ROOT/.build/release/webimage}
ALLOCATORS=${ALLOCATORS:-$OWN_SETTING arena2 mimalloc}
ROUNDS=${ROUNDS:-12}
SECONDS_A_SLOT=${SECONDS_A_SLOT:-6}
CONNECTIONS=${CONNECTIONS:-$(( 2 * $(nproc) ))}  # wrk connections = lean threads = the proxy's workers
WIDTH=${WIDTH:-300}
HEIGHT=${HEIGHT:-300}
QUALITY=${QUALITY:-80}
ORIGIN_PORT=${ORIGIN_PORT:-18490}
LEAN_PORT=${LEAN_PORT:-18495}
FIRST_PROXY_PORT=${FIRST_PROXY_PORT:-18500}
INSTALL=${INSTALL:-1}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-allocators.XXXXXX")}
KEEP=${KEEP:-0}

. "$HERE/photos.sh"   # the photo corpus: CORPUS, missing_for_photo_benchmarks, copy_photos

missing=()
missing_for_photo_benchmarks
missing_for_allocators $ALLOCATORS
"$ROOT/scripts/install-missing" allocators.sh "$INSTALL" ${missing[@]+"${missing[@]}"}
[ -x "$WEBIMAGE" ] || { echo "allocators.sh: no webimage binary at $WEBIMAGE; build one with 'swift build -c release --product webimage' and set WEBIMAGE" >&2; exit 1; }

. "$HERE/lib.sh"   # cleanup on exit, start_origin, wait_for, write_figure
PROXY_PIDS=()
lib_cleanup() { :; }
eval "$(declare -f cleanup | sed '1s/cleanup/lib_cleanup/')"
cleanup() {
    for pid in ${PROXY_PIDS[@]+"${PROXY_PIDS[@]}"}; do kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
    lib_cleanup
}

mkdir -p "$WORK/www/photos" "$WORK/lean-cache" "$WORK/results"
chmod 755 "$WORK"   # nginx's workers (www-data) read the photos
copy_photos "$WORK/www/photos" "$WORK/names.txt"
ORIGIN="http://127.0.0.1:$ORIGIN_PORT"
start_origin "$ORIGIN_PORT"
wait_for "$ORIGIN/photos/$(head -1 "$WORK/names.txt")"

ORC_LOCK=("$ROOT/Sources/COrcCodeLock/orc_code_lock.c" -I "$ROOT/Sources/COrcCodeLock/include")
cc -O2 -o "$WORK/lean_server" "$HERE/lean_server.c" "${ORC_LOCK[@]}" $(pkg-config --cflags --libs vips) -pthread
"$WORK/lean_server" "$LEAN_PORT" "$CONNECTIONS" "$WIDTH" "$HEIGHT" "$QUALITY" "$WORK/www/photos" "$WORK/lean-cache" \
    >> "$WORK/lean-server.log" 2>&1 &
REFERENCE_PID=$!
wait_for "http://127.0.0.1:$LEAN_PORT/count"

# One proxy per setting, each with its own cache directory, the originals put in it by one
# pass over the corpus at another size.
SETTINGS=($ALLOCATORS)
PORTS=()
for index in "${!SETTINGS[@]}"; do
    setting=${SETTINGS[$index]}
    allocator_env "$setting" || exit 1
    port=$(( FIRST_PROXY_PORT + index ))
    env ${ALLOCATOR_ENV[@]+"${ALLOCATOR_ENV[@]}"} "$WEBIMAGE" serve --bind 127.0.0.1 --port "$port" --allow-loopback \
        --allowed-source "$ORIGIN/" --cache-dir "$WORK/cache-$setting" --cache-max-disk 0 --log-level warning \
        >> "$WORK/proxy-$setting.log" 2>&1 &
    PROXY_PIDS+=($!)
    PORTS+=("$port")
    wait_for "http://127.0.0.1:$port/health"
    while read -r name; do
        curl -fsS -o /dev/null "http://127.0.0.1:$port/insecure/rs:fit:200:200/cb:warm/plain/$ORIGIN/photos/$name@jpg"
    done < "$WORK/names.txt"
done
while read -r name; do curl -fsS -o /dev/null "http://127.0.0.1:$LEAN_PORT/warm/photos/$name"; done < "$WORK/names.txt"

# One slot: wrk on URL template $3 against port $2 for SECONDS_A_SLOT; prints
# "<label> <variants/s> <CPU ms an image>" of process $4 (the 200 answers are the variants).
slot() {
    local label=$1 port=$2 template=$3 pid=$4
    local before after made
    before=$(cpu_ms "$pid")
    timeout $(( SECONDS_A_SLOT + 60 )) wrk --timeout 30s -t1 -c"$CONNECTIONS" -d"${SECONDS_A_SLOT}s" -s "$HERE/corpus.lua" \
        "http://127.0.0.1:$port" -- "$template" "$WORK/names.txt" "r$RANDOM$RANDOM" > "$WORK/wrk.txt"
    after=$(cpu_ms "$pid")
    made=$(awk '$1 == "status" && $2 == 200 { print $3 }' "$WORK/wrk.txt")
    awk -v l="$label" -v n="${made:-0}" -v s="$SECONDS_A_SLOT" -v ms=$(( after - before )) \
        'BEGIN { printf "%s %.2f %.2f\n", l, n / s, (n > 0 ? ms / n : 0) }'
}

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds of ${SECONDS_A_SLOT} s slots: ${SETTINGS[*]}, each followed by the lean server"
SLOTS="$WORK/results/slots.txt"
: > "$SLOTS"
for round in $(seq 1 "$ROUNDS"); do
    for index in "${!SETTINGS[@]}"; do
        setting=${SETTINGS[$index]}
        proxy=$(slot "$setting" "${PORTS[$index]}" "/insecure/rs:fit:$WIDTH:$HEIGHT/cb:{id}/plain/$ORIGIN/photos/{name}@jpg" "${PROXY_PIDS[$index]}")
        lean=$(slot lean "$LEAN_PORT" "/lean/cb:{id}/photos/{name}" "$REFERENCE_PID")
        echo "$round $proxy $lean" | tee -a "$SLOTS"
    done
done

# round_ratios SETTING FROM: from round FROM on, each round's variants/s ÷ the lean
# server's and CPU an image ÷ the lean server's, one round a line.
round_ratios() {
    awk -v setting="$1" -v from="$2" '$2 == setting && $1 >= from && $7 > 0 && $3 > 0 { print $3 / $6, $4 / $7 }' "$SLOTS"
}
# summary SETTING FROM: "<median rate ratio> <median CPU ratio> <rounds>" from round FROM on.
summary() {
    echo "$(round_ratios "$1" "$2" | cut -d' ' -f1 | median) $(round_ratios "$1" "$2" | cut -d' ' -f2 | median) $(round_ratios "$1" "$2" | wc -l)"
}
echo
printf '| %-9s | %-26s | %-26s | %-27s | %-9s |\n' setting "variants/s ÷ lean, all" "CPU an image ÷ lean, all" "second half (rate / CPU)" "peak RSS"
echo "| --- | --- | --- | --- | --- |"
half=$(( ROUNDS / 2 + 1 ))
COMMAND="${TMPDIR:+TMPDIR=$TMPDIR }ROUNDS=$ROUNDS SECONDS_A_SLOT=$SECONDS_A_SLOT ALLOCATORS=\"$ALLOCATORS\" Benchmarks/proxy/allocators.sh"   # the figures' command
for index in "${!SETTINGS[@]}"; do
    setting=${SETTINGS[$index]}
    read -r rate cpu rounds <<< "$(summary "$setting" 1)"
    read -r late_rate late_cpu late_rounds <<< "$(summary "$setting" "$half")"
    peak=$(( $(hwm_kb "${PROXY_PIDS[$index]}") / 1024 ))
    printf '| %-9s | %-26s | %-26s | %-27s | %-9s |\n' "$setting" "${rate}× ($rounds rounds)" "${cpu}×" "${late_rate}× / ${late_cpu}× ($late_rounds)" "$peak MB"
    write_figure "proxy-allocators-$setting" "proxy, cold variants of ${#CORPUS[@]} photos beside lean_server.c, allocator $(allocator_description "$setting")" \
        "${rate}× the lean server's variants/s and ${cpu}× its CPU an image (medians of $rounds alternated rounds); aged, ${late_rate}× and ${late_cpu}×; peak RSS $peak MB" \
        "$rate" "lean_server.c"
done
