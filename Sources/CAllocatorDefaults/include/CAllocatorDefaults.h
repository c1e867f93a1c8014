#ifndef C_ALLOCATOR_DEFAULTS_H
#define C_ALLOCATOR_DEFAULTS_H

/// The number of glibc malloc arenas `webimage` runs with unless the environment says
/// otherwise. Fewer arenas hold less memory, but with two, each of libvips' thousands of
/// allocations an image costs more as the process ages (an aged proxy's cold variant
/// 4–20 % more CPU than with four); four stay flat in the proxy's soak test
/// (Benchmarks/proxy/soak.sh) at about 20 MB more than two.
#define WI_DEFAULT_MALLOC_ARENA_MAX 4

/// How the allocator's arena count was chosen when the process started.
typedef enum {
    /// Not glibc's malloc: nothing was set.
    WIAllocatorArenasNotGlibc = 0,
    /// `mallopt(M_ARENA_MAX, WI_DEFAULT_MALLOC_ARENA_MAX)`, before `main` and any thread.
    WIAllocatorArenasSetByProcess = 1,
    /// The environment sets it (`MALLOC_ARENA_MAX`, `MALLOC_ARENA_TEST` or a
    /// `glibc.malloc.arena_*` tunable in `GLIBC_TUNABLES`): glibc's reading of it stands.
    WIAllocatorArenasFromEnvironment = 2,
    /// `mallopt` refused the setting: glibc's defaults stand.
    WIAllocatorArenasRefused = 3,
} WIAllocatorArenas;

/// What was decided at start-up.
WIAllocatorArenas wi_allocator_arenas(void);

#endif
