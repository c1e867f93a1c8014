/* The thread sanitizer's default suppressions for every binary that links WebImageLocking
 * (so every one that links WebImage).
 *
 * The sanitizer runtime calls __tsan_default_suppressions when it starts, so that
 * `swift test --sanitize=thread` (and the `webimage` tool the tests run, built the same
 * way) needs no TSAN_OPTIONS. Outside the sanitizer nothing calls it.
 *
 * Each entry is a report in code this package does not own, where the order between the
 * two accesses is kept by the Swift runtime, which is not instrumented, so the sanitizer
 * cannot see it. Each names a type or function of that code, which a report must have
 * in one of its two stacks, so that a race between two of WebImage's own accesses is
 * still reported. (WebImage's own locks announce their critical sections to the
 * sanitizer instead: thread_sanitizer.h, used by WebImageLocking.) */

const char *__tsan_default_suppressions(void);

const char *__tsan_default_suppressions(void) {
    return
        /* SwiftNIO reuses a pooled receive buffer once isKnownUniquelyReferenced says its
         * reader (here, a download's body loop on a task thread) has released it; the
         * release and the check are the runtime's reference count. */
        "race:NIOPooledRecvBufferAllocator\n"
        /* A task resumed by CheckedContinuation.resume from an event loop reads its
         * result in the continuation's frame; the hand-over is the runtime's atomic task
         * status. The name is the resumption part of withUnsafeThrowingContinuation only,
         * not the closure a caller passes to it. */
        "race:withUnsafeThrowingContinuation9isolation_xScA_pSgYi_ySccyxs5Error_pGXEtYaKlFTY0_\n";
}
