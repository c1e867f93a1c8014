/// A load bounded by ``ImageRequest/timeout``: past it the load's task is cancelled and
/// the load fails with ``ImageError/timedOut(_:)`` instead of ``ImageError/cancelled``.
enum LoadTimeout {
    /// The value of `body`, or ``ImageError/timedOut(_:)`` naming `url` when it takes
    /// longer than `timeout`; without a timeout, `body` runs as it is.
    static func run<T: Sendable>(
        within timeout: Duration?, loadOf url: String, _ body: @escaping @Sendable () async throws(ImageError) -> T
    ) async throws(ImageError) -> T {
        guard let timeout else { return try await body() }
        let outcome = await withTaskGroup(of: Result<T, ImageError>?.self) { group -> Result<T, ImageError> in
            group.addTask {
                do throws(ImageError) {
                    return .success(try await body())
                } catch {
                    return .failure(error)
                }
            }
            // The timer's child answers nil; it is cancelled as soon as the load ends.
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            var timedOut = false
            while let next = await group.next() {
                guard let result = next else {
                    // The caller's own cancel also ends the timer: that is no timeout.
                    if !Task.isCancelled {
                        timedOut = true
                        group.cancelAll()
                    }
                    continue
                }
                group.cancelAll()
                if timedOut, case .failure(.cancelled) = result {
                    return .failure(.timedOut("the load of \(url) took longer than \(timeout)"))
                }
                return result
            }
            return .failure(.cancelled)
        }
        return try outcome.get()
    }
}
