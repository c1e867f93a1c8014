import Foundation
import HTTPTypes
import WebImage
import WebImageLocking

/// The header fields of image responses, made once for each variant and the way a path
/// asks for it (its `Vary`, `Content-Disposition` and kind), so that answering a cached
/// variant again builds no header: the date, the file name and the length are formatted
/// once, not per request.
final class ImageHeadersCache: Sendable {
    /// The fields of a `200` (with `Content-Length`) and of a `304` (without it).
    struct Headers: Sendable {
        var ok: HTTPFields
        var notModified: HTTPFields
    }

    private struct Key: Hashable {
        let etag: String
        let createdAt: Date
        let variesWithAccept: Bool
        let disposition: ContentDisposition
        let kind: ProxyResponseKind
        /// The `Link` to the source, when it is sent.
        let canonical: String?
    }

    /// Entries kept; the cache starts afresh when it is full (a variant's headers cost a
    /// few microseconds to make again).
    let capacity: Int
    private let entries = InlineLocked<[Key: Headers]>([:])

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The headers of `outcome`, made by `make` when they are not kept.
    /// - Parameter canonical: the `Link` to the source the headers name, if any.
    func headers(for outcome: ProxyPipeline.Outcome, canonical: String? = nil, make: () -> Headers) -> Headers {
        let key = Key(
            etag: outcome.variant.etag, createdAt: outcome.variant.createdAt, variesWithAccept: outcome.variesWithAccept,
            disposition: outcome.disposition, kind: outcome.kind, canonical: canonical
        )
        if let kept = entries.withLock({ $0[key] }) { return kept }
        let made = make()
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = made
        }
        return made
    }
}
