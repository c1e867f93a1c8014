import Foundation
import WebImage
import WebImageLocking

/// Collects values from concurrent callbacks, for assertions.
package final class Recorder<Value: Sendable>: Sendable {
    private let storage = Locked<[Value]>([])

    package init() {}

    package func append(_ value: Value) { storage.withLock { $0.append(value) } }
    package var values: [Value] { storage.withLock { $0 } }
    package var count: Int { storage.withLock { $0.count } }

    /// Polls until `count` values arrived; false on timeout (a bound for a hang only:
    /// under the thread sanitizer on 2 cores, events come minutes late).
    package func wait(for count: Int, timeout: Duration = .seconds(300)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while self.count < count {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

/// Polls `condition` until it holds; false on timeout (a bound for a hang only).
package func eventually(timeout: Duration = .seconds(300), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
