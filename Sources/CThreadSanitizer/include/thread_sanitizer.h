#ifndef WEBIMAGE_THREAD_SANITIZER_H
#define WEBIMAGE_THREAD_SANITIZER_H

/* The thread sanitizer's annotations of an acquire and a release on an address, declared
 * weak: they are defined only when the process is built with the sanitizer (Swift links
 * its runtime into the binary), and null otherwise. The inline wrappers below are what
 * Swift calls; outside the sanitizer each is one predictable branch on a constant
 * address, inlined into the caller even across modules. */
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));

/// Whether the annotations reach a sanitizer: true exactly when the process runs under one.
static inline int webimage_tsan_is_active(void) {
    return __tsan_acquire != 0 && __tsan_release != 0;
}

/// Tells the thread sanitizer that the calling thread acquires the lock named by `addr`.
static inline void webimage_tsan_acquire(const void *addr) {
    if (__tsan_acquire) __tsan_acquire((void *)addr);
}

/// Tells the thread sanitizer that the calling thread releases the lock named by `addr`.
static inline void webimage_tsan_release(const void *addr) {
    if (__tsan_release) __tsan_release((void *)addr);
}

#endif
