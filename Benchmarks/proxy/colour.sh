#!/usr/bin/env bash
# What colour management and the JPEG shrink rule cost a cold variant, against another
# build of webimage measured in the same run (BEFORE, say the last release):
#
#   1. the photo corpus (photos.sh), WebImage's defaults: sRGB photos must cost what they
#      cost before (the profile check is all they pay);
#   2. the same photos stored in Display P3, with the profile embedded, as a phone writes
#      them: what converting to sRGB costs (BEFORE drops the profile and the colours);
#   3. the photo corpus under imgproxy's profile (IMGPROXY_* set), where JPEGs shrink in
#      libjpeg as far as the target.
#
# Every request is a cold variant (a new cachebuster) of a photo already in the proxy's
# cache: decode, resize, encode. CPU an image is the proxy process's CPU time over a batch
# of requests, PARALLEL at a time; BEFORE and AFTER run in alternated rounds. Case 3 also
# reports the fidelity of each rule's output to a full-size decode resized the same way
# (PSNR over the corpus, from the variants each proxy served).
#
#   BEFORE=/path/to/old/webimage AFTER=.build/release/webimage Benchmarks/proxy/colour.sh
#
# Needs what photos.sh names, and libvips-tools (the P3 corpus, the PSNR); run as root, it
# installs what is missing with apt-get. The figures go to Benchmarks/results/colour-*.json.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

BEFORE=${BEFORE:?set BEFORE to the webimage binary to compare against}
AFTER=${AFTER:-$ROOT/.build/release/webimage}
ROUNDS=${ROUNDS:-5}                  # alternated rounds of each case
PASSES=${PASSES:-4}                  # passes over the corpus a side and round
PARALLEL=${PARALLEL:-$(( 2 * $(nproc) ))}
WIDTH=${WIDTH:-300}
ORIGIN_PORT=${ORIGIN_PORT:-18190}
BEFORE_PORT=${BEFORE_PORT:-18191}
AFTER_PORT=${AFTER_PORT:-18192}
INSTALL=${INSTALL:-1}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/webimage-colour-bench.XXXXXX")}
KEEP=${KEEP:-0}
COMMAND="ROUNDS=$ROUNDS PASSES=$PASSES BEFORE=<the build before> Benchmarks/proxy/colour.sh"

. "$HERE/photos.sh"
missing=()
missing_for_photo_benchmarks
command -v vips >/dev/null || missing+=(libvips-tools)
"$ROOT/scripts/install-missing" colour.sh "$INSTALL" ${missing[@]+"${missing[@]}"}
for binary in "$BEFORE" "$AFTER"; do
    [ -x "$binary" ] || { echo "colour.sh: no webimage binary at $binary" >&2; exit 1; }
done

mkdir -p "$WORK/www/photos" "$WORK/www/p3"
chmod 755 "$WORK"
. "$HERE/lib.sh"
before_PID=""
after_PID=""
# Both sides stop with the rest, however the script ends.
trap 'kill -TERM $before_PID $after_PID 2>/dev/null || true; cleanup' EXIT
copy_photos "$WORK/www/photos" "$WORK/names.txt"
# The P3 corpus: each photo's sRGB colours (a grey photo's as RGB) stored in Display P3
# numbers, the profile embedded.
while read -r name; do
    vips colourspace "$WORK/www/photos/$name" "$WORK/rgb.v" srgb 2>/dev/null
    vips icc_transform "$WORK/rgb.v" "$WORK/www/p3/$name[Q=90]" p3 --input-profile srgb 2>/dev/null
done < "$WORK/names.txt"
COUNT=$(wc -l < "$WORK/names.txt")
start_origin "$ORIGIN_PORT"
ORIGIN="http://127.0.0.1:$ORIGIN_PORT"
wait_for "$ORIGIN/photos/$(head -1 "$WORK/names.txt")"

# start_side NAME BINARY PORT PROFILE: a proxy on PORT with its own cache; PROFILE imgproxy
# sets an IMGPROXY_* variable, which puts the proxy under imgproxy's profile. Sets the
# variable NAME_PID.
start_side() {
    local name=$1 binary=$2 port=$3 profile=$4
    local environment=()
    [ "$profile" = imgproxy ] && environment=(IMGPROXY_MAX_SRC_RESOLUTION=50)
    env ${environment[@]+"${environment[@]}"} "$binary" serve --bind 127.0.0.1 --port "$port" --allow-loopback \
        --allowed-source "$ORIGIN/" --cache-dir "$WORK/cache-$name-$profile" --cache-max-disk 0 --log-level warning \
        >> "$WORK/$name.log" 2>&1 &
    printf -v "${name}_PID" '%s' "$!"
    wait_for "http://127.0.0.1:$port/health"
}

# batch PORT FOLDER ROUND: one cold variant of every photo of FOLDER, PASSES times, PARALLEL
# at a time; the variants of the last pass are kept under $WORK/out/PORT-FOLDER.
batch() {
    local port=$1 folder=$2 round=$3 pass name
    mkdir -p "$WORK/out/$port-$folder"
    for pass in $(seq "$PASSES"); do
        while read -r name; do
            echo "http://127.0.0.1:$port/insecure/rs:fit:$WIDTH:$WIDTH/q:80/cb:r$round-p$pass/plain/$ORIGIN/$folder/$name -o $WORK/out/$port-$folder/$name"
        done < "$WORK/names.txt"
    done | xargs -P "$PARALLEL" -L 1 curl -sf
}

# measure CASE FOLDER PROFILE: ROUNDS alternated rounds, BEFORE then AFTER then AFTER then
# BEFORE…, each a batch; prints the median CPU ms an image of each side and their ratio.
measure() {
    local case=$1 folder=$2 profile=$3 round start
    start_side before "$BEFORE" "$BEFORE_PORT" "$profile"
    start_side after "$AFTER" "$AFTER_PORT" "$profile"
    # The originals into each proxy's cache, and the code paths warm.
    batch "$BEFORE_PORT" "$folder" warm
    batch "$AFTER_PORT" "$folder" warm
    : > "$WORK/$case-before.txt"
    : > "$WORK/$case-after.txt"
    for round in $(seq "$ROUNDS"); do
        for side in $([ $((round % 2)) = 1 ] && echo "before after" || echo "after before"); do
            local pid_var="${side}_PID" port_var="${side^^}_PORT"
            start=$(cpu_ms "${!pid_var}")
            batch "${!port_var}" "$folder" "$round"
            echo "$(( $(cpu_ms "${!pid_var}") - start ))" | awk -v n=$(( COUNT * PASSES )) '{ printf "%.3f\n", $1 / n }' >> "$WORK/$case-$side.txt"
        done
    done
    kill -TERM "$before_PID" "$after_PID"
    wait "$before_PID" "$after_PID" 2>/dev/null || true
    local b a
    b=$(median < "$WORK/$case-before.txt")
    a=$(median < "$WORK/$case-after.txt")
    echo "$case: CPU an image before $b ms ($(paste -sd/ "$WORK/$case-before.txt")), after $a ms ($(paste -sd/ "$WORK/$case-after.txt"))"
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", a / b }' > "$WORK/$case-ratio.txt"
}

# psnr FOLDER: the mean PSNR in dB of FOLDER's variants against each photo decoded whole
# and resized by libvips to the variant's size.
psnr() {
    local folder=$1 name total=0 value
    while read -r name; do
        local size width height
        size=$(vipsheader -f width "$folder/$name")x$(vipsheader -f height "$folder/$name")
        width=${size%x*}; height=${size#*x}
        vips copy "$WORK/www/photos/$name" "$WORK/full.v"
        vips thumbnail_image "$WORK/full.v" "$WORK/reference.v" "$width" --height "$height" --size force
        vips subtract "$folder/$name" "$WORK/reference.v" "$WORK/difference.v"
        vips multiply "$WORK/difference.v" "$WORK/difference.v" "$WORK/square.v"
        value=$(vips avg "$WORK/square.v" | awk '{ printf "%.4f", 10 * log(255 * 255 / $1) / log(10) }')
        total=$(awk -v t="$total" -v v="$value" 'BEGIN { print t + v }')
    done < "$WORK/names.txt"
    awk -v t="$total" -v n="$COUNT" 'BEGIN { printf "%.2f", t / n }'
}

measure photos photos webimage
photos_ratio=$(cat "$WORK/photos-ratio.txt")
measure p3 p3 webimage
p3_ratio=$(cat "$WORK/p3-ratio.txt")
measure imgproxy photos imgproxy
imgproxy_ratio=$(cat "$WORK/imgproxy-ratio.txt")
before_psnr=$(psnr "$WORK/out/$BEFORE_PORT-photos")
after_psnr=$(psnr "$WORK/out/$AFTER_PORT-photos")
echo "imgproxy's profile: PSNR against a full-size decode, before $before_psnr dB, after $after_psnr dB"

cpu() { echo "before $(median < "$WORK/$1-before.txt") ms, after $(median < "$WORK/$1-after.txt") ms an image (medians of $ROUNDS rounds of $((COUNT * PASSES)) cold variants)"; }
write_figure colour-srgb-photos "cold variants of $COUNT sRGB photos, WebImage's profile: CPU an image after ÷ before" \
    "$photos_ratio× ($(cpu photos))" "$photos_ratio" "the build before" "≤ 1.02×" "$(figure_met "$photos_ratio" "<=" 1.02)"
write_figure colour-p3-photos "cold variants of the same photos stored in Display P3: CPU an image after (converted to sRGB) ÷ before (profile dropped)" \
    "$p3_ratio× ($(cpu p3))" "$p3_ratio" "the build before" "" ""
write_figure colour-imgproxy-jpeg "cold JPEG variants under imgproxy's profile (JPEGs shrunk to the target): CPU an image after ÷ before" \
    "$imgproxy_ratio× ($(cpu imgproxy)); PSNR against a full-size decode $after_psnr dB after, $before_psnr dB before" \
    "$imgproxy_ratio" "the build before" "< 1×" "$(figure_met "$imgproxy_ratio" "<" 1)"
