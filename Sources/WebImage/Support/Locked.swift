import Synchronization

/// A value behind a `Mutex`, with its critical sections announced to the thread sanitizer.
///
/// `Mutex` alone is correct, but on Linux the sanitizer cannot see the ordering a
/// contended `Mutex` provides (see ``ThreadSanitizerHooks``) and reports races that
/// cannot happen; this wrapper marks each critical section as an acquire and release of
/// the lock's own address. Outside the sanitizer it costs one predictable branch.
@usableFromInline
final class Locked<Value>: Sendable {
    @usableFromInline
    let mutex: Mutex<Value>

    @usableFromInline
    init(_ value: sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    func withLock<Result>(_ body: (inout sending Value) -> sending Result) -> sending Result {
        let token = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        return mutex.withLock { value in
            ThreadSanitizerHooks.acquire?(token)
            defer { ThreadSanitizerHooks.release?(token) }
            return body(&value)
        }
    }
}
