import Foundation
import HTTPTypes
import WebImage

/// How image responses are validated and cached downstream: the `ETag` and
/// `Last-Modified` answered (from the served bytes or passed through from the source, with
/// imgproxy's busters), whether a conditional request matches, which conditions go on to
/// the source, and the `Cache-Control` a source passes through.
struct CachingHeaders: Sendable {
    /// Whether images carry an `ETag` and `If-None-Match` is answered.
    var useETag = true
    /// Put in every ETag (`"<buster>/<base64url of the tag>"`); `nil`: none.
    var etagBuster: String?
    /// Whether images carry `Last-Modified` and `If-Modified-Since` is answered.
    var useLastModified = true
    /// The earliest `Last-Modified` answered; `nil`: none.
    var lastModifiedBuster: Date?
    /// Where the validators come from.
    var validators = ResponseValidators.variant
    /// Whether the source's `Cache-Control` (or `Expires`) stands in for the TTL's.
    var cacheControlPassthrough = false

    /// The `ETag` answered for `variant`; `nil`: none (turned off, or a source without one).
    func etag(of variant: EncodedVariant) -> String? {
        guard useETag else { return nil }
        switch validators {
        case .variant: return served(variant.etag)
        case .source: return variant.sourceETag.map(served)
        }
    }

    /// `etag` as answered: wrapped with the buster when there is one, as imgproxy wraps it,
    /// so that ``forwardedConditions(ifNoneMatch:ifModifiedSince:)`` can unwrap it again.
    func served(_ etag: String) -> String {
        guard let etagBuster else { return etag }
        return "\"" + etagBuster + "/" + Base64URL.encode(etag.utf8) + "\""
    }

    /// The `Last-Modified` answered for `variant`: when it was made (to the second) or the
    /// source's, raised to the buster when earlier; `nil`: none.
    func lastModified(of variant: EncodedVariant) -> Date? {
        guard useLastModified else { return nil }
        let date: Date
        switch validators {
        case .variant: date = Date(timeIntervalSince1970: variant.createdAt.timeIntervalSince1970.rounded(.down))
        case .source:
            // A value that is not an HTTP date is not passed on.
            guard let text = variant.sourceLastModified, let parsed = HTTPDate.date(from: text) else { return nil }
            date = parsed
        }
        guard let lastModifiedBuster, lastModifiedBuster > date else { return date }
        return lastModifiedBuster
    }

    /// The conditions a request sends on to the source, as imgproxy sends them: none
    /// unless validators come from the source. With a buster, `If-None-Match` must carry
    /// it and is unwrapped (if it does not, no condition goes at all), and an
    /// `If-Modified-Since` that is not after the buster is left out.
    func forwardedConditions(ifNoneMatch: String?, ifModifiedSince: String?) -> SourceConditions? {
        guard validators == .source else { return nil }
        var conditions = SourceConditions()
        if useETag, let ifNoneMatch {
            if let etagBuster {
                guard let unwrapped = Self.unwrap(ifNoneMatch, buster: etagBuster) else { return nil }
                conditions.ifNoneMatch = unwrapped
            } else {
                conditions.ifNoneMatch = ifNoneMatch
            }
        }
        if useLastModified, let ifModifiedSince {
            if let lastModifiedBuster {
                if let since = HTTPDate.date(from: ifModifiedSince), lastModifiedBuster < since { conditions.ifModifiedSince = ifModifiedSince }
            } else {
                conditions.ifModifiedSince = ifModifiedSince
            }
        }
        return conditions.isEmpty ? nil : conditions
    }

    /// The `Cache-Control` the source passes through for `variant`, when passthrough is on:
    /// its own, else `max-age` until its `Expires`; `nil`: the TTL's.
    func passedThroughCacheControl(of variant: EncodedVariant, now: Date = Date()) -> String? {
        guard cacheControlPassthrough else { return nil }
        if let cacheControl = variant.sourceCacheControl, !cacheControl.isEmpty { return cacheControl }
        guard let expires = variant.sourceExpires.flatMap(HTTPDate.date(from:)) else { return nil }
        let seconds = Int(expires.timeIntervalSince(now).rounded(.down))
        // imgproxy sends no max-age of 0 from Expires: the TTL's then.
        return seconds > 0 ? ProxyResponder.cacheControl(maxAge: seconds) : nil
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, as RFC 9110 asks for GET).
    static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        let strip: (Substring) -> Substring = { $0.hasPrefix("W/") ? $0.dropFirst(2) : $0 }
        return ifNoneMatch.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || strip(Substring(tag)) == strip(Substring(etag))
        }
    }

    /// The source's entity tag in `ifNoneMatch` (`"<buster>/<base64url>"`, quotes and `W/`
    /// optional), or `nil` when it does not carry `buster` or the rest is not base64url.
    static func unwrap(_ ifNoneMatch: String, buster: String) -> String? {
        var tag = Substring(ifNoneMatch.trimmingCharacters(in: .whitespaces))
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        while tag.first == "\"" { tag = tag.dropFirst() }
        while tag.last == "\"" { tag = tag.dropLast() }
        guard tag.hasPrefix(buster + "/") else { return nil }
        guard let bytes = Base64URL.decode(tag.dropFirst(buster.count + 1)) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension CachingHeaders {
    /// The caching headers of a server with these response settings.
    init(responses: ServerConfig.Responses) {
        self.init(
            useETag: responses.useETag, etagBuster: responses.etagBuster, useLastModified: responses.useLastModified,
            lastModifiedBuster: responses.lastModifiedBuster, validators: responses.validators,
            cacheControlPassthrough: responses.cacheControlPassthrough
        )
    }
}
