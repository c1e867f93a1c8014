#include "CAllocatorDefaults.h"

#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static WIAllocatorArenas decision = WIAllocatorArenasNotGlibc;

WIAllocatorArenas wi_allocator_arenas(void) {
    return decision;
}

#if defined(__GLIBC__)
/// Runs before `main`, while the process has one thread: glibc makes an arena for each
/// thread that finds the others busy, up to 8 per core, and keeps every one it made.
__attribute__((constructor)) static void wi_allocator_defaults(void) {
    const char *tunables = getenv("GLIBC_TUNABLES");
    if (getenv("MALLOC_ARENA_MAX") != NULL || getenv("MALLOC_ARENA_TEST") != NULL
        || (tunables != NULL && strstr(tunables, "glibc.malloc.arena_") != NULL)) {
        decision = WIAllocatorArenasFromEnvironment;
        return;
    }
    decision = mallopt(M_ARENA_MAX, WI_DEFAULT_MALLOC_ARENA_MAX) == 1 ? WIAllocatorArenasSetByProcess : WIAllocatorArenasRefused;
}
#endif
