#!/usr/bin/env bash
# Cold variants by corpus and source format: the proxy against libvips with its defaults,
# measured in the same run, one request at a time and at full load.
#
#   WEBIMAGE=/path/to/release/webimage Benchmarks/proxy/formats.sh
#
# Every set of photos is served by nginx (the origin); the proxy first reads each photo once
# (its original goes to the proxy's disk cache), then makes a new variant of a cached photo
# every request (`rs:fit:WIDTH:HEIGHT/cb:<id>/…@jpg`, a JPEG at the proxy's default quality),
# wrk keeping LOAD connections busy: 1 (one request at a time) and FULL (the proxy's
# workers, 2 × cores). Beside each run, the baselines make the same thumbnails from the
# same bytes in memory on as many threads (pyvips_baseline.py: pyvips with libvips'
# defaults; vips_baseline.c: the same calls from C). Rounds are interleaved: proxy, pyvips,
# C, then the next load.
#
# Every run makes the same whole number of passes over its set's photos, in the same order
# (corpus.lua's count; the baselines' --images), so that every side makes the same mix of
# large and small photos: about RUN_SECONDS of work, judged from the time the set's first
# pass took (one request at a time) and the cores the load can use.
#
# Reported per set and load: images/s, CPU per image (the process's user + system time
# over the images it made: the proxy's from /proc, serving included; the baselines' from
# getrusage), and peak RSS (VmHWM; the proxy is a fresh process for every set and round,
# its VmHWM reset before each run), with the proxy's ratios to pyvips'. The targets: CPU per image ≤ 1.10× pyvips', images/s at full load
# ≥ 0.90× pyvips'. Each set's figures go to Benchmarks/results/proxy-formats-<set>.json.
#
# The sets (SETS, in this order by default):
#   gnome-plasma  the photos of gnome-backgrounds (WebP, 4096 × 4096) and of
#                 plasma-workspace-wallpapers (JPEG, each wallpaper's largest size)
#   mate-jpeg     the JPEGs of mate-backgrounds
#   mate-png      the PNGs of mate-backgrounds (grey, RGB and RGBA)
#   alpha         the PNGs with an alpha channel of mate-backgrounds and of plasma
#   gif webp avif heic tiff
#                 mate-backgrounds' nature photos (JPEG) made into each format with the
#                 `vips` command line (GIF: 256 colours; WebP Q 85; AVIF and HEIC Q 60;
#                 TIFF with LZW), kept in $ROOT/.build-bench/formats/ for later runs
#
# Needs wrk, nginx, curl, a C compiler, pkg-config, libvips-dev, the vips command line,
# python3-venv and the three wallpaper packages; run as root it installs the missing ones
# with apt-get (INSTALL=0: only names them), and pyvips with pip into a virtual environment
# ($ROOT/.build-bench/pyvips). Everything runs on 127.0.0.1, every load run is bounded
# (wrk -d, timeout); the script stops what it started and deletes its work directory on
# exit (KEEP=1 keeps it: photos, cache, logs, results/runs.txt with one line per run).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

WEBIMAGE=${WEBIMAGE:-$ROOT/.build/release/webimage}  # the release build of `webimage`
SETS=${SETS:-gnome-plasma mate-jpeg mate-png alpha gif webp avif heic tiff}
ROUNDS=${ROUNDS:-2}                        # interleaved rounds of every set and load
RUN_SECONDS=${RUN_SECONDS:-15}             # about how long each run lasts, each side
FULL=${FULL:-$(( 2 * $(nproc) ))}          # full load: connections = threads = the proxy's workers
LOADS=${LOADS:-1 $FULL}
BASELINES=${BASELINES:-pyvips vips}        # pyvips: pyvips_baseline.py; vips: vips_baseline.c
WIDTH=${WIDTH:-500}                        # every variant: rs:fit:WIDTH:HEIGHT, JPEG
HEIGHT=${HEIGHT:-500}
QUALITY=${QUALITY:-80}                     # the proxy's default JPEG quality; the baselines' Q
ORIGIN_PORT=${ORIGIN_PORT:-18190}
PROXY_PORT=${PROXY_PORT:-18191}
PROXY_ENV=${PROXY_ENV:-}                   # extra environment for the proxy, e.g. MALLOC_ARENA_MAX=2 (none: its own allocator setting, as in `make run` and the systemd unit)
LOG_LEVEL=${LOG_LEVEL:-warning}
INSTALL=${INSTALL:-1}
FORMATS_DIR=${FORMATS_DIR:-$ROOT/.build-bench/formats}
PYVIPS_VENV=${PYVIPS_VENV:-$ROOT/.build-bench/pyvips}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-formats-bench.XXXXXX")}
KEEP=${KEEP:-0}

MATE=/usr/share/backgrounds/mate
GNOME=/usr/share/backgrounds/gnome
PLASMA=/usr/share/wallpapers

# --- What the benchmark needs (the project itself needs none of it) ---------------------
missing=()
for pair in wrk:wrk nginx:nginx curl:curl cc:gcc pkg-config:pkg-config vips:libvips-tools; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
pkg-config --exists vips 2>/dev/null || missing+=(libvips-dev)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
[ -f "$MATE/nature/Aqua.jpg" ] || missing+=(mate-backgrounds)
[ -d "$PLASMA/Path/contents/images" ] || missing+=(plasma-workspace-wallpapers)
[ -f "$GNOME/adwaita-l.webp" ] || missing+=(gnome-backgrounds)
"$ROOT/scripts/install-missing" formats.sh "$INSTALL" ${missing[@]+"${missing[@]}"}
[ -x "$WEBIMAGE" ] || { echo "formats.sh: no webimage binary at $WEBIMAGE; build one with 'swift build -c release --product webimage' and set WEBIMAGE" >&2; exit 1; }
if [[ " $BASELINES " == *" pyvips "* ]] && ! "$PYVIPS_VENV/bin/python" -c 'import pyvips' 2>/dev/null; then
    echo "formats.sh: installing pyvips into $PYVIPS_VENV"
    python3 -m venv "$PYVIPS_VENV"
    "$PYVIPS_VENV/bin/pip" install -q pyvips
fi

export VIPS_WARNING=0  # vipsheader: no warnings about oddities in the wallpapers
mkdir -p "$WORK/www" "$WORK/cache" "$WORK/results" "$WORK/names" "$FORMATS_DIR"
chmod 755 "$WORK"  # nginx's workers (www-data) read $WORK/www
. "$HERE/lib.sh"   # cleanup on exit, start_origin, wait_for

# --- The sets --------------------------------------------------------------------------------
# The largest JPEG of a plasma wallpaper (its images are named WIDTHxHEIGHT.jpg).
largest_jpeg() {
    local best="" area=0 file size
    for file in "$1"/contents/images/*.jpg; do
        [ -f "$file" ] || continue
        size=$(basename "$file" .jpg)
        if (( ${size%x*} * ${size#*x} > area )); then area=$(( ${size%x*} * ${size#*x} )); best=$file; fi
    done
    [ -n "$best" ] && echo "$best"
    return 0
}
# The largest PNG of a plasma wallpaper.
largest_png() {
    local best="" area=0 file size
    for file in "$1"/contents/images/*.png; do
        [ -f "$file" ] || continue
        size=$(basename "$file" .png)
        if (( ${size%x*} * ${size#*x} > area )); then area=$(( ${size%x*} * ${size#*x} )); best=$file; fi
    done
    [ -n "$best" ] && echo "$best"
    return 0
}
# derived FORMAT SOURCE: the photo SOURCE made into FORMAT once, in FORMATS_DIR; prints its path.
derived() {
    local format=$1 source=$2 target
    target="$FORMATS_DIR/$format/$(basename "$source" .jpg).$format"
    [ "$format" = tiff ] && target="${target%.tiff}.tif"
    if [ ! -s "$target" ]; then
        mkdir -p "$FORMATS_DIR/$format"
        case $format in
            gif) vips gifsave "$source" "$target.part.gif" ;;
            webp) vips webpsave "$source" "$target.part.webp" --Q 85 ;;
            avif) vips heifsave "$source" "$target.part.avif" --compression av1 --Q 60 --effort 2 ;;
            heic) vips heifsave "$source" "$target.part.heic" --compression hevc --Q 60 ;;
            tiff) vips tiffsave "$source" "$target.part.tif" --compression lzw ;;
        esac 2>/dev/null
        mv "$target.part.${target##*.}" "$target"
    fi
    echo "$target"
}
# set_files SET: the files of SET, one a line.
set_files() {
    local file dir
    case $1 in
        gnome-plasma)
            for file in "$GNOME"/*.webp; do
                case $(basename "$file") in vnc-*) ;; *) echo "$file" ;; esac  # vnc-*: 256 × 256 placeholders
            done
            for dir in "$PLASMA"/*/; do largest_jpeg "${dir%/}"; done ;;
        mate-jpeg) ls "$MATE"/*/*.jpg ;;
        mate-png) ls "$MATE"/*/*.png ;;
        alpha)
            for file in "$MATE"/*/*.png $(for dir in "$PLASMA"/*/; do largest_png "${dir%/}"; done); do
                [ "$(vipsheader -f bands "$file" 2>/dev/null)" = 4 ] && echo "$file"
            done ;;
        gif | webp | avif | heic | tiff)
            for file in "$MATE"/nature/*.jpg; do derived "$1" "$file"; done ;;
        *) echo "formats.sh: unknown set $1" >&2; exit 1 ;;
    esac
}
# A copy of every file of each set under www/SET/, named after its file (a plasma
# wallpaper after its folder), and the names (SET/NAME) in names/SET.txt.
declare -A SET_FILES SET_DESCRIPTION
for set in $SETS; do
    mkdir -p "$WORK/www/$set"
    : > "$WORK/names/$set.txt"
    files=()
    while IFS= read -r file; do files+=("$file"); done < <(set_files "$set")
    bytes=0 pixels=0
    for file in "${files[@]}"; do
        case "$file" in
            "$PLASMA"/*) name="$(basename "$(dirname "$(dirname "$(dirname "$file")")")").${file##*.}" ;;
            *) name=$(basename "$file") ;;
        esac
        cp "$file" "$WORK/www/$set/$name"
        echo "$set/$name" >> "$WORK/names/$set.txt"
        bytes=$(( bytes + $(stat -c %s "$file") ))
        pixels=$(( pixels + $(vipsheader -f width "$file") * $(vipsheader -f height "$file") ))
    done
    SET_FILES[$set]=${#files[@]}
    SET_DESCRIPTION[$set]="${#files[@]} files ($(cd "$WORK/www/$set" && ls | sed 's/.*\.//' | sort | uniq -c | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')), $(awk -v b="$bytes" -v p="$pixels" -v n="${#files[@]}" 'BEGIN { printf "%.1f MB, %.1f MP an image on average", b / 1048576, p / n / 1e6 }')"
    echo "set $set: ${SET_DESCRIPTION[$set]}"
done

# --- The baselines, nginx and the proxy ---------------------------------------------------------
ORC_LOCK=("$ROOT/Sources/COrcCodeLock/orc_code_lock.c" -I "$ROOT/Sources/COrcCodeLock/include")
cc -O2 -o "$WORK/vips_baseline" "$HERE/vips_baseline.c" "${ORC_LOCK[@]}" $(pkg-config --cflags --libs vips) -pthread

start_origin "$ORIGIN_PORT"
ORIGIN="http://127.0.0.1:$ORIGIN_PORT"
PROXY="http://127.0.0.1:$PROXY_PORT"
wait_for "$ORIGIN/$(head -1 "$WORK/names/$(echo "$SETS" | awk '{ print $1 }').txt")"

# The proxy: loopback sources allowed, no disk limit (no eviction pass in one run and not
# another), defaults otherwise (workers = 2 × cores). A fresh process for every set and
# round (the same cache directory), so that its peak memory is that set's.
start_proxy() {
    env $PROXY_ENV "$WEBIMAGE" serve --bind 127.0.0.1 --port "$PROXY_PORT" --allow-loopback --allowed-source "$ORIGIN/" \
        --cache-dir "$WORK/cache" --cache-max-disk 0 --log-level "$LOG_LEVEL" >> "$WORK/proxy.log" 2>&1 &
    PROXY_PID=$!
    wait_for "$PROXY/health"
}
stop_proxy() {
    kill -TERM "$PROXY_PID" 2>/dev/null || true
    wait "$PROXY_PID" 2>/dev/null || true
    PROXY_PID=""
}

# --- Measuring helpers ---------------------------------------------------------------------
made() { curl -fsS --max-time 5 "$PROXY/metrics" | awk 'index($0, "webimage_processed_total") == 1 { sum += $NF } END { print sum + 0 }'; }
reset_hwm() { echo 5 > "/proc/$PROXY_PID/clear_refs" 2>/dev/null || true; }
RESULTS="$WORK/results/runs.txt"
: > "$RESULTS"
RUN_ID=$(date +%s)
machine() {
    echo "$(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/MemTotal/ { printf "%d GB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
echo "machine: $(machine)"
echo "versions: libvips $(pkg-config --modversion vips), liborc $(pkg-config --modversion orc-0.4 2>/dev/null || echo '?'), pyvips $("$PYVIPS_VENV/bin/python" -c 'import pyvips; print(pyvips.__version__)' 2>/dev/null || echo '-'), $(nginx -v 2>&1 | sed 's/.*: //'), $(wrk -v 2>&1 | head -1 | awk '{ print $1, $2 }')"

# proxy_run SET LOAD ROUND COUNT: COUNT cold variants of SET's cached photos, LOAD at a time.
proxy_run() {
    local set=$1 load=$2 round=$3 count=$4 out="$WORK/results/proxy-$1-$2-$3.txt" done="$WORK/results/done-$1-$2-$3"
    local cpu_before made_before hwm started ended wrk_pid
    reset_hwm
    cpu_before=$(cpu_ms "$PROXY_PID")
    made_before=$(made)
    started=$(date +%s.%N)
    wrk --timeout 60s -t1 -c"$load" -d"$(( 10 * RUN_SECONDS + 60 ))s" -s "$HERE/corpus.lua" "$PROXY" \
        -- "/insecure/rs:fit:$WIDTH:$HEIGHT/cb:{id}/plain/$ORIGIN/{name}@jpg" "$WORK/names/$set.txt" "$RUN_ID-$set-$load-$round" \
        "$count" "$done" > "$out" &
    wrk_pid=$!
    # corpus.lua makes the file once COUNT answers are in; wrk would wait for its -d.
    while [ ! -e "$done.1" ] && kill -0 "$wrk_pid" 2>/dev/null; do sleep 0.05; done
    ended=$(date +%s.%N)
    kill -INT "$wrk_pid" 2>/dev/null || true
    wait "$wrk_pid" || true
    sleep 1  # requests wrk left in flight finish
    local images=$(( $(made) - made_before )) cpu=$(( $(cpu_ms "$PROXY_PID") - cpu_before ))
    hwm=$(hwm_kb)
    local rate bad
    rate=$(awk -v n="$count" -v a="$started" -v b="$ended" 'BEGIN { printf "%.2f", n / (b - a) }')
    bad=$(awk '/Non-2xx or 3xx responses:/ { bad += $5 } /Socket errors:/ { gsub(",", ""); bad += $4 + $6 + $8 + $10 } END { print bad + 0 }' "$out")
    [ -e "$done.1" ] || bad=$(( bad + 1 ))  # wrk ran out of time before COUNT answers
    echo "$set $load proxy $round $rate images=$images cpu_ms=$cpu hwm_kb=$hwm bad=$bad" >> "$RESULTS"
    printf '   %-12s load %-2s proxy   %7.2f images/s  %6.2f ms CPU an image  VmHWM %4d MB%s\n' "$set" "$load" "$rate" \
        "$(awk -v c="$cpu" -v n="$images" 'BEGIN { print (n ? c / n : 0) }')" $(( hwm / 1024 )) "$([ "$bad" = 0 ] || echo "  $bad failed")"
}
# baseline_run SIDE SET LOAD ROUND COUNT: COUNT thumbnails of SET's photos by a baseline, LOAD threads.
baseline_run() {
    local side=$1 set=$2 load=$3 round=$4 count=$5 line
    local files=() bound=$(( 10 * RUN_SECONDS + 60 ))
    while IFS= read -r name; do files+=("$WORK/www/$name"); done < "$WORK/names/$set.txt"
    case $side in
        pyvips) line=$(VIPS_CONCURRENCY=1 timeout $(( bound + 60 )) "$PYVIPS_VENV/bin/python" "$HERE/pyvips_baseline.py" \
                    --images "$count" "$load" "$bound" "$WIDTH" "$HEIGHT" "$QUALITY" "${files[@]}") ;;
        vips) line=$(timeout $(( bound + 60 )) "$WORK/vips_baseline" --images "$count" "$load" "$bound" "$WIDTH" "$HEIGHT" "$QUALITY" "${files[@]}") ;;
    esac
    local rate images cpu hwm
    rate=$(echo "$line" | sed 's/.*images_per_s=\([0-9.]*\).*/\1/')
    images=$(echo "$line" | sed 's/^images=\([0-9]*\).*/\1/')
    cpu=$(echo "$line" | sed 's/.*cpu_ms_per_image=\([0-9.]*\).*/\1/')
    hwm=$(echo "$line" | sed 's/.*vmhwm_kb=\([0-9]*\).*/\1/')
    echo "$set $load $side $round $rate images=$images cpu_ms=$(awk -v c="$cpu" -v n="$images" 'BEGIN { printf "%d", c * n }') hwm_kb=$hwm bad=0" >> "$RESULTS"
    echo "$set $load $side $round $line" >> "$WORK/results/baselines.txt"
    printf '   %-12s load %-2s %-7s %7.2f images/s  %6.2f ms CPU an image  VmHWM %4d MB\n' "$set" "$load" "$side" "$rate" "$cpu" $(( hwm / 1024 ))
}

# --- The runs ------------------------------------------------------------------------------------
# warm_pass SET ROUND: every photo of SET once at another size, one at a time, in a new
# process: the originals into the proxy's disk cache (first round), libvips and the
# process warmed up; prints how long the pass took.
warm_pass() {
    local started name
    started=$(date +%s.%N)
    while IFS= read -r name; do
        curl -fsS --max-time 120 -o /dev/null "$PROXY/insecure/rs:fit:200:200/cb:warm-$RUN_ID-$2/plain/$ORIGIN/$name@jpg" ||
            echo "formats.sh: the proxy cannot make $name" >&2
    done < "$WORK/names/$1.txt"
    awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}
# count SET LOAD: whole passes over SET, about RUN_SECONDS of work at LOAD (at most a core
# each), judged from the set's first warm pass.
declare -A PASS_SECONDS
count() {
    local cores=$(( $2 < $(nproc) ? $2 : $(nproc) ))
    awk -v t="$RUN_SECONDS" -v c="$cores" -v p="${PASS_SECONDS[$1]}" -v n="${SET_FILES[$1]}" \
        'BEGIN { passes = int(t * c / p + 0.5); if (passes < 1) passes = 1; print passes * n }'
}
for round in $(seq 1 "$ROUNDS"); do
    echo "== round $round: $(machine)"
    for set in $SETS; do
        start_proxy
        seconds=$(warm_pass "$set" "$round")
        [ "$round" = 1 ] && PASS_SECONDS[$set]=$seconds
        for load in $LOADS; do
            images=$(count "$set" "$load")
            proxy_run "$set" "$load" "$round" "$images"
            for side in $BASELINES; do baseline_run "$side" "$set" "$load" "$round" "$images"; done
        done
        stop_proxy
    done
done

# --- Summary -----------------------------------------------------------------------------------
# mean_rate SET LOAD SIDE; cpu_per_image SET LOAD SIDE (all rounds); peak_mb SET LOAD SIDE.
mean_rate() { awk -v s="$1" -v l="$2" -v d="$3" '$1 == s && $2 == l && $3 == d { sum += $5; n++ } END { printf "%.1f", (n ? sum / n : 0) }' "$RESULTS"; }
field_sum() { awk -v s="$1" -v l="$2" -v d="$3" -v f="$4" '$1 == s && $2 == l && $3 == d { for (i = 6; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) sum += kv[2] } } END { print sum + 0 }' "$RESULTS"; }
field_max() { awk -v s="$1" -v l="$2" -v d="$3" -v f="$4" '$1 == s && $2 == l && $3 == d { for (i = 6; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f && kv[2] > m) m = kv[2] } } END { print m + 0 }' "$RESULTS"; }
cpu_per_image() { awk -v c="$(field_sum "$1" "$2" "$3" cpu_ms)" -v n="$(field_sum "$1" "$2" "$3" images)" 'BEGIN { printf "%.1f", (n ? c / n : 0) }'; }
peak_mb() { echo $(( $(field_max "$1" "$2" "$3" hwm_kb) / 1024 )); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
REFERENCE=$(echo "$BASELINES" | awk '{ print $1 }')  # the ratios' baseline: pyvips unless left out
{
echo
echo "== summary: $(machine)"
echo "   $ROUNDS interleaved rounds of about ${RUN_SECONDS}s; rs:fit:$WIDTH:$HEIGHT as JPEG q$QUALITY; ratios: the proxy ÷ $REFERENCE"
for set in $SETS; do
    echo "   $set: ${SET_DESCRIPTION[$set]}; a first pass in ${PASS_SECONDS[$set]}s; images a run: $(sep=""; for load in $LOADS; do printf '%s%s at load %s' "$sep" "$(count "$set" "$load")" "$load"; sep=", "; done)"
done
echo
header="| set | load | proxy images/s | $(for b in $BASELINES; do printf '%s images/s | ' "$b"; done)÷ $REFERENCE | proxy CPU ms/image | $(for b in $BASELINES; do printf '%s CPU | ' "$b"; done)÷ $REFERENCE | proxy peak RSS MB | $(for b in $BASELINES; do printf '%s RSS | ' "$b"; done)"
echo "$header"
echo "$header" | sed 's/[^|]*|/ --- |/g; s/^ --- |/|/'
for set in $SETS; do
    for load in $LOADS; do
        row="| $set | $load | $(mean_rate "$set" "$load" proxy) | "
        for b in $BASELINES; do row+="$(mean_rate "$set" "$load" "$b") | "; done
        row+="$(ratio "$(mean_rate "$set" "$load" proxy)" "$(mean_rate "$set" "$load" "$REFERENCE")") | $(cpu_per_image "$set" "$load" proxy) | "
        for b in $BASELINES; do row+="$(cpu_per_image "$set" "$load" "$b") | "; done
        row+="$(ratio "$(cpu_per_image "$set" "$load" proxy)" "$(cpu_per_image "$set" "$load" "$REFERENCE")") | $(peak_mb "$set" "$load" proxy) | "
        for b in $BASELINES; do row+="$(peak_mb "$set" "$load" "$b") | "; done
        echo "$row"
    done
done
echo
echo "failed requests (non-2xx or socket errors), all runs: $(awk '{ for (i = 6; i <= NF; i++) if ($i ~ /^bad=/) { split($i, kv, "="); n += kv[2] } } END { print n + 0 }' "$RESULTS")"
} | tee "$WORK/results/summary.txt"

# The figures, one a set: Benchmarks/results/proxy-formats-<set>.json, the proxy against
# the first baseline (pyvips) at each load; the targets those of the header.
for set in $SETS; do
    value="" met=yes
    for load in $LOADS; do
        rate=$(ratio "$(mean_rate "$set" "$load" proxy)" "$(mean_rate "$set" "$load" "$REFERENCE")")
        cpu=$(ratio "$(cpu_per_image "$set" "$load" proxy)" "$(cpu_per_image "$set" "$load" "$REFERENCE")")
        value+="${value:+; }load $load: ${rate}× the images/s, ${cpu}× the CPU an image, peak RSS $(peak_mb "$set" "$load" proxy) vs $(peak_mb "$set" "$load" "$REFERENCE") MB"
        [ "$(figure_met "$cpu" "<=" 1.10)" = yes ] || met=no
        [ "$load" != "$FULL" ] || [ "$(figure_met "$rate" ">=" 0.90)" = yes ] || met=no
    done
    write_figure "proxy-formats-$set" "proxy, cold variants of $set (${SET_DESCRIPTION[$set]}) → rs:fit:$WIDTH:$HEIGHT JPEG" \
        "$value" "$(ratio "$(mean_rate "$set" "$FULL" proxy)" "$(mean_rate "$set" "$FULL" "$REFERENCE")")" \
        "$REFERENCE with libvips' defaults, same bytes in memory, as many threads" \
        "CPU an image ≤ 1.10×, images/s at full load ≥ 0.90×" "$met"
done
