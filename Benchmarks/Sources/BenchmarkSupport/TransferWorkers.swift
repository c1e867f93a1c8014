import Synchronization

/// Runs `transfers` calls of `body(i)` (i = 0, 1, …) on `concurrency` worker tasks, each
/// taking the next index when it is free, and returns the sum of what the calls returned
/// (the bytes transferred): the loop both download pairs time on each side.
public func runTransferWorkers(
    transfers: Int,
    concurrency: Int,
    _ body: @escaping @Sendable (Int) async throws -> Int
) async throws -> Int {
    let next = NextTransferIndex()
    return try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var bytes = 0
                while true {
                    let i = next.value.add(1, ordering: .relaxed).oldValue
                    if i >= transfers { return bytes }
                    bytes += try await body(i)
                }
            }
        }
        var total = 0
        for try await bytes in group { total += bytes }
        return total
    }
}

/// The next index a worker of ``runTransferWorkers(transfers:concurrency:_:)`` takes.
private final class NextTransferIndex: Sendable {
    let value = Atomic<Int>(0)
}
