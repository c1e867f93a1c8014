/// Runs one piece of work per key at a time: callers that ask for a key whose work is
/// already running wait for that work's result instead of starting it again (the
/// manager shares one transform between identical transformed requests this way).
///
/// The work runs in its own task and always runs to its end, so a result that other
/// callers wait for is never lost; a caller whose task is cancelled stops waiting at once
/// with ``ImageError/cancelled``.
package final class SingleFlight<Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Result<Value, ImageError>, Never>

    private struct Flight {
        var waiters: [Int: Waiter] = [:]
    }

    private struct State {
        var flights: [String: Flight] = [:]
        var nextWaiterID = 0
    }

    private let state = Locked(State())

    /// Creates an empty set of flights.
    package init() {}

    /// Keys whose work is running now.
    package var runningCount: Int { state.withLock { $0.flights.count } }

    /// The result of `work` for `key`: started by this call, or joined if it is running.
    package func run(
        key: String,
        work: @escaping @Sendable () async throws(ImageError) -> Value
    ) async throws(ImageError) -> Value {
        try await join(key: key, work: work).value
    }

    /// The result of `work` for `key`, and whether this call joined work another call had
    /// started (`true`) rather than starting it.
    package func join(
        key: String,
        work: @escaping @Sendable () async throws(ImageError) -> Value
    ) async throws(ImageError) -> (value: Value, joined: Bool) {
        var joined = false
        let id = state.withLock { state -> Int in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let isFirst = state.withLock { state -> Bool in
                    let isFirst = state.flights[key] == nil
                    state.flights[key, default: Flight()].waiters[id] = continuation
                    return isFirst
                }
                joined = !isFirst
                if Task.isCancelled {
                    // Cancelled before the handler below could see this waiter.
                    let waiter = state.withLock { $0.flights[key]?.waiters.removeValue(forKey: id) }
                    waiter?.resume(returning: .failure(.cancelled))
                }
                guard isFirst else { return }
                Task {
                    let result: Result<Value, ImageError>
                    do throws(ImageError) {
                        result = .success(try await work())
                    } catch {
                        result = .failure(error)
                    }
                    let waiters = self.state.withLock { $0.flights.removeValue(forKey: key)?.waiters ?? [:] }
                    for waiter in waiters.values { waiter.resume(returning: result) }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.flights[key]?.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: .failure(.cancelled))
        }
        return (try result.get(), joined)
    }
}
