/// The validators of a copy the caller already holds, sent with a URL source's download
/// as `If-None-Match` and `If-Modified-Since` (RFC 9110, section 13), so that a source
/// answers 304 Not Modified instead of sending bytes the caller has.
///
/// A load whose source answers 304 fails with ``ImageError/cacheNotModified``: nothing
/// is made, nothing is cached and the URL is not blocked. A load answered from a cache
/// never asks the source, so it succeeds as usual; the caller compares the result's own
/// validators (``EncodedVariant/sourceETag``, ``EncodedVariant/sourceLastModified``).
///
///     var request = ImageRequest(url: url, output: .encoded(encoding))
///     request.sourceConditions = SourceConditions(ifNoneMatch: #""5d8c72a""#)
///     do {
///         let variant = try await manager.loadVariant(request)
///     } catch .cacheNotModified {
///         // The caller's copy is current.
///     }
public struct SourceConditions: Sendable, Hashable {
    /// The `If-None-Match` value: one entity tag or a comma-separated list, as sent.
    public var ifNoneMatch: String?
    /// The `If-Modified-Since` value: an HTTP date, as sent.
    public var ifModifiedSince: String?

    /// Creates conditions; a `nil` field is not sent.
    public init(ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) {
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }

    /// Whether no condition is set.
    public var isEmpty: Bool { ifNoneMatch == nil && ifModifiedSince == nil }
}
