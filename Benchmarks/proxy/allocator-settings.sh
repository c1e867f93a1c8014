# The allocator settings the proxy benchmarks run `webimage` with (soak.sh, allocators.sh).
# Source it after setting ROOT, before anything is installed: it only sets variables and
# defines functions.
#
#   glibc     glibc malloc with its defaults (8 × cores arenas), given as MALLOC_ARENA_MAX
#             since webimage otherwise sets its own number
#   arenaN    glibc malloc with N arenas (MALLOC_ARENA_MAX=N); OWN_SETTING, webimage's own
#             number, runs without a variable, as `make run` and the systemd unit run it
#   jemalloc  LD_PRELOAD of $JEMALLOC (Debian's libjemalloc2)
#   mimalloc  LD_PRELOAD of $MIMALLOC (Debian's libmimalloc2.0)
#   mimalloc-delayN
#             mimalloc keeping the pages it frees N ms before it hands them back to the
#             system (its own default is 25 ms in 2.0, 10 ms in 2.1 and later), given
#             under the option's names in both: MIMALLOC_DECOMMIT_DELAY, MIMALLOC_PURGE_DELAY

JEMALLOC=${JEMALLOC:-/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2}
MIMALLOC=${MIMALLOC:-/usr/lib/$(uname -m)-linux-gnu/libmimalloc.so.2}
# The arenas webimage sets itself, read from the header that defines them.
OWN_ARENAS=$(awk '$1 == "#define" && $2 == "WI_DEFAULT_MALLOC_ARENA_MAX" { print $3 }' \
    "$ROOT/Sources/CAllocatorDefaults/include/CAllocatorDefaults.h")
OWN_SETTING=arena$OWN_ARENAS

# allocator_env SETTING: sets the array ALLOCATOR_ENV to the environment that runs
# `webimage` with allocator SETTING; fails on an unknown setting.
allocator_env() {
    ALLOCATOR_ENV=()
    case "$1" in
        glibc) ALLOCATOR_ENV=(MALLOC_ARENA_MAX=$(( 8 * $(nproc) ))) ;;
        arena[0-9]*) [ "$1" = "$OWN_SETTING" ] || ALLOCATOR_ENV=(MALLOC_ARENA_MAX="${1#arena}") ;;
        jemalloc) ALLOCATOR_ENV=(LD_PRELOAD="$JEMALLOC") ;;
        mimalloc) ALLOCATOR_ENV=(LD_PRELOAD="$MIMALLOC") ;;
        mimalloc-delay[0-9]*)
            local delay=${1#mimalloc-delay}
            ALLOCATOR_ENV=(LD_PRELOAD="$MIMALLOC" MIMALLOC_DECOMMIT_DELAY="$delay" MIMALLOC_PURGE_DELAY="$delay") ;;
        *) echo "$(basename "$0"): unknown allocator $1 (glibc, arenaN, jemalloc, mimalloc, mimalloc-delayN)" >&2; return 1 ;;
    esac
}

# allocator_description SETTING: the setting in words, for a figure.
allocator_description() {
    case "$1" in
        glibc) echo "glibc malloc with its defaults" ;;
        "$OWN_SETTING") echo "\`MALLOC_ARENA_MAX=$OWN_ARENAS\` (what \`webimage\` sets)" ;;
        arena[0-9]*) echo "\`MALLOC_ARENA_MAX=${1#arena}\`" ;;
        jemalloc | mimalloc) echo "$1 (\`LD_PRELOAD\`)" ;;
        mimalloc-delay[0-9]*) echo "mimalloc (\`LD_PRELOAD\`) keeping freed pages ${1#mimalloc-delay} ms" ;;
        *) echo "$1" ;;
    esac
}

# missing_for_allocators SETTING…: appends to the caller's `missing` array the packages
# the settings need and this machine lacks.
missing_for_allocators() {
    local setting
    for setting in "$@"; do
        case "$setting" in
            jemalloc) [ -f "$JEMALLOC" ] || missing+=(libjemalloc2) ;;
            mimalloc | mimalloc-delay[0-9]*) [ -f "$MIMALLOC" ] || missing+=(libmimalloc2.0) ;;
        esac
    done
}
