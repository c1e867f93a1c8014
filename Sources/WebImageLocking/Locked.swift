import Synchronization

/// A value behind a `Mutex`, with its critical sections announced to the thread sanitizer.
///
/// `Mutex` alone is correct, but on Linux a contended `Mutex` hands the lock over inside
/// the kernel (a priority-inheritance futex), from code in the standard library that is
/// not instrumented; the sanitizer then sees two critical sections with no order between
/// them and reports a race that cannot happen. This wrapper marks the start of each
/// critical section as an acquire and its end as a release of the lock's own address
/// (`thread_sanitizer.h`). Outside the sanitizer that costs two predictable branches,
/// inlined. It is a shared object around an ``InlineLocked``, for state that many owners
/// reach.
public final class Locked<Value>: Sendable {
    @usableFromInline
    let value: InlineLocked<Value>

    /// Creates a lock around `value`.
    @inlinable
    public init(_ value: sending Value) {
        self.value = InlineLocked(value)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<Result>(_ body: (inout sending Value) -> sending Result) -> sending Result {
        value.withLock(body)
    }
}
