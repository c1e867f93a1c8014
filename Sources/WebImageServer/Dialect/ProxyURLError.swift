/// Why a proxy URL was refused: the HTTP status to answer with and a message that names
/// the offending part of the URL and says how to fix it.
///
/// Statuses: 400 for a malformed URL (bad base64, unknown option, wrong argument count,
/// out-of-range value, unsupported extension…), 403 for a missing or wrong signature,
/// 404 for a URL past its `expires` time (as imgproxy answers), 500 for a server
/// configuration error such as a signing key that is not hex.
public struct ProxyURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code the server answers with.
    public var status: Int
    /// A human-readable explanation, safe to show to the client.
    public var message: String

    /// Creates an error with an HTTP status and a message.
    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    /// `"<status>: <message>"`.
    public var description: String { "\(status): \(message)" }

    /// A malformed URL (400).
    static func badRequest(_ message: String) -> ProxyURLError {
        ProxyURLError(status: 400, message: message)
    }

    /// A missing or wrong signature (403).
    static func forbidden(_ message: String) -> ProxyURLError {
        ProxyURLError(status: 403, message: message)
    }
}
