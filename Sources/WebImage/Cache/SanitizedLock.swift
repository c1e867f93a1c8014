import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, with the critical section announced to the thread sanitizer as ordered
    /// by `token` (any address that stands for this lock, such as its owner's).
    @inlinable
    borrowing func withSanitizedLock<Result>(
        _ token: UnsafeRawPointer,
        _ body: (inout sending Value) -> sending Result
    ) -> sending Result {
        withLock { value in
            ThreadSanitizerHooks.acquire?(token)
            defer { ThreadSanitizerHooks.release?(token) }
            return body(&value)
        }
    }
}
