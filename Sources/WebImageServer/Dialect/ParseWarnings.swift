import WebImageLocking

/// What one parse of a proxy path read leniently, as imgproxy reads it (a boolean spelled
/// `yes`, read as false): said to the log with the request, not refused.
final class ParseWarnings: Sendable {
    private let texts = InlineLocked<[String]>([])

    /// Records `text`.
    func add(_ text: String) { texts.withLock { $0.append(text) } }

    /// What was recorded, in order.
    var all: [String] { texts.withLock { $0 } }
}
