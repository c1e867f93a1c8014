import Logging

/// A log handler that keeps metadata set on it aside and hands it to the handler it wraps
/// only when a message is logged.
///
/// Hummingbird gives every request a logger with a request ID (`hb.request.id`); with
/// swift-log's `StreamLogHandler`, setting metadata renders all of it to text at once, so
/// every request paid for a string that nothing printed at the `warning` level. Wrapped,
/// that work happens only for messages that are logged, and the wrapped handler receives
/// exactly the metadata it would have had (set on a copy of it, key by key).
struct DeferredMetadataLogHandler: LogHandler {
    /// The handler that formats and writes messages.
    private var wrapped: any LogHandler
    /// Metadata set since wrapping, not yet given to ``wrapped``: a `nil` value removes the key.
    private var pending: [String: Logger.Metadata.Value?] = [:]

    /// Wraps `handler`.
    init(wrapping handler: any LogHandler) {
        wrapped = handler
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    var metadata: Logger.Metadata {
        get { applied().metadata }
        set {
            wrapped.metadata = newValue
            pending.removeAll()
        }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get {
            if let value = pending[key] { return value }
            return wrapped[metadataKey: key]
        }
        set { pending.updateValue(newValue, forKey: key) }
    }

    func log(event: LogEvent) {
        applied().log(event: event)
    }

    /// ``wrapped`` with the pending metadata set on it.
    private func applied() -> any LogHandler {
        guard !pending.isEmpty else { return wrapped }
        var handler = wrapped
        for (key, value) in pending { handler[metadataKey: key] = value }
        return handler
    }
}
