import Foundation
import WebImageLocking

extension TestOrigin {
    /// Serves `failure` to the first `failures` requests for `path` (matched without the
    /// query string), then `success` to every later one. ``requestCount(_:)`` counts them all.
    package func registerFailing(_ path: String, times failures: Int, with failure: TestOriginResponse, then success: TestOriginResponse) {
        let served = Locked(0)
        register(path) { _ in
            let count = served.withLock { count -> Int in
                count += 1
                return count
            }
            return count <= failures ? failure : success
        }
    }
}
