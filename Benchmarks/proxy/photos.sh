# The photo corpus of pipeline.sh: 23 real photographs, 1.3–4.9 MP JPEGs, from two Debian
# packages (the renders, paintings and drawings of those packages are left out). Source
# it: it sets MATE, PLASMA and CORPUS (the photos' paths) and defines
# missing_for_photo_benchmarks and copy_photos.

MATE=/usr/share/backgrounds/mate/nature
PLASMA=/usr/share/wallpapers
CORPUS=(
    "$MATE/Aqua.jpg" "$MATE/Blinds.jpg" "$MATE/Dune.jpg" "$MATE/FreshFlower.jpg" "$MATE/Garden.jpg"
    "$MATE/GreenMeadow.jpg" "$MATE/LadyBird.jpg" "$MATE/RainDrops.jpg" "$MATE/Storm.jpg"
    "$MATE/TwoWings.jpg" "$MATE/Wood.jpg" "$MATE/YellowFlower.jpg"
)
for name in BytheWater ColdRipple ColorfulCups DarkestHour EveningGlow FallenLeaf Grey Kite OneStandsOut Path summer_1am; do
    CORPUS+=("$PLASMA/$name/contents/images/2560x1600.jpg")
done

# Appends to the caller's `missing` array what pipeline.sh needs and this machine lacks:
# wrk, nginx, curl, a C compiler, pkg-config and libvips-dev (for vips_baseline.c), and
# the corpus's packages.
missing_for_photo_benchmarks() {
    local pair
    for pair in wrk:wrk nginx:nginx curl:curl cc:gcc pkg-config:pkg-config; do
        command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
    done
    pkg-config --exists vips 2>/dev/null || missing+=(libvips-dev)
    [ -f "$MATE/Aqua.jpg" ] || missing+=(mate-backgrounds)
    [ -f "$PLASMA/Path/contents/images/2560x1600.jpg" ] || missing+=(plasma-workspace-wallpapers)
}

# Copies the corpus into folder $1 and writes the copies' names to file $2, one a line.
# plasma's files are all called 2560x1600.jpg: each copy is named after its folder.
copy_photos() {
    local file name
    : > "$2"
    for file in "${CORPUS[@]}"; do
        case "$file" in
            "$PLASMA"/*) name=$(basename "$(dirname "$(dirname "$(dirname "$file")")")").jpg ;;
            *) name=$(basename "$file") ;;
        esac
        cp "$file" "$1/$name"
        echo "$name" >> "$2"
    done
}
