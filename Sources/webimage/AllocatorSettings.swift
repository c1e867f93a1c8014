import CAllocatorDefaults

/// What the allocator was set to before `main` ran (`CAllocatorDefaults`): glibc malloc
/// with ``defaultArenas`` arenas, unless the environment names its own setting.
enum AllocatorSettings {
    /// The arenas `webimage` runs with when the environment sets none.
    static let defaultArenas = Int(WI_DEFAULT_MALLOC_ARENA_MAX)

    /// One line for the log, saying what was set and how to change it.
    static var summary: String {
        switch wi_allocator_arenas() {
        case WIAllocatorArenasSetByProcess:
            "glibc malloc with \(defaultArenas) arenas (set by webimage; MALLOC_ARENA_MAX in the environment overrides it)"
        case WIAllocatorArenasFromEnvironment:
            "glibc malloc with the arenas the environment sets (MALLOC_ARENA_MAX, MALLOC_ARENA_TEST or GLIBC_TUNABLES)"
        case WIAllocatorArenasRefused:
            "glibc malloc with its default arenas (mallopt refused \(defaultArenas) arenas)"
        default:
            "the C library's allocator, unchanged (not glibc)"
        }
    }
}
