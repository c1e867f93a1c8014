import Synchronization

/// A value behind a `Mutex`, with its critical sections announced to the thread sanitizer.
///
/// `Mutex` alone is correct, but on Linux the sanitizer cannot see the ordering a
/// contended `Mutex` provides (see `ThreadSanitizerHooks`) and reports races that
/// cannot happen; this wrapper marks each critical section as an acquire and release of
/// the lock's own address. Outside the sanitizer it costs one predictable branch. It is a
/// shared object around an ``InlineLocked``, for state that many owners reach.
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
