/// The OTLP receiver answered an export with an error status.
public struct OTLPExportError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status it answered.
    public let status: Int

    /// What happened.
    public var description: String { "the OTLP receiver answered \(status)" }
}
