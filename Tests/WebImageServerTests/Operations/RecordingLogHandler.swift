import Logging
import WebImageLocking

/// Log lines kept by ``RecordingLogHandler``: each line's message and metadata.
final class LogLines: Sendable {
    let lines = InlineLocked<[(message: String, metadata: Logger.Metadata)]>([])
}

/// A log handler that keeps every line in a ``LogLines``.
struct RecordingLogHandler: LogHandler {
    let store: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.lines.withLock { $0.append((event.message.description, metadata.merging(event.metadata ?? [:]) { $1 })) }
    }
}

extension LogLines {
    /// The metadata of the lines with `message`, once `count` have been logged.
    func waitForLines(_ message: String, count: Int) async -> [Logger.Metadata] {
        var found: [Logger.Metadata] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            found = lines.withLock { $0.filter { $0.message == message }.map(\.metadata) }
            if found.count >= count { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return found
    }
}
