import CThreadSanitizer
import Synchronization

/// A value behind a `Mutex`, stored inside its owner, with its critical sections announced
/// to the thread sanitizer (see ``Locked``).
///
/// ``Locked`` is an object of its own: one more allocation, and, being generic, a deinit
/// that looks its field's type up in the runtime's metadata cache. For state made once per
/// download or load that is a measurable share of the work, so such objects keep their
/// lock here instead, in a `let` of their own class. It cannot be copied.
public struct InlineLocked<Value>: ~Copyable, Sendable {
    @usableFromInline
    let mutex: Mutex<Value>

    /// Creates a lock around `value`.
    @inlinable
    public init(_ value: sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public borrowing func withLock<Result>(_ body: (inout sending Value) -> sending Result) -> sending Result {
        // The mutex's own address names this lock for the sanitizer: a `Mutex` is never
        // moved (it is borrowed in place), so the address is stable for the lock's life.
        let token = withUnsafePointer(to: mutex) { UnsafeRawPointer($0) }
        return mutex.withLock { value in
            webimage_tsan_acquire(token)
            defer { webimage_tsan_release(token) }
            return body(&value)
        }
    }
}
