import Foundation
import WebImage

/// The settings of ``SettingSection/responses``.
extension ServerSetting {
    /// The settings of ``SettingSection/responses``, in the order the help lists them.
    static let responseSettings: [ServerSetting] = [
        useETag, etagBuster, useLastModified, lastModifiedBuster, validators, cacheControlPassthrough, enableClientHints,
        setCanonicalHeader, enableDebugHeaders, returnAttachment, developmentErrors,
    ]

    /// `--use-etag`: `ETag` on images and 304 for a matching `If-None-Match`.
    public static let useETag = bool(
        "useETag", .responses, \.responses.useETag,
        flag: "use-etag",
        imgproxy: [same("IMGPROXY_USE_ETAG")],
        help: "`ETag` on images and 304 for a matching `If-None-Match`"
    )

    /// `--etag-buster`: put in every `ETag` (`"TEXT/<base64url of the tag>"`, as imgproxy writes it): changing it makes clients and CDNs fetch again.
    public static let etagBuster = optionalText(
        "etagBuster", .responses, \.responses.etagBuster, placeholder: "TEXT",
        imgproxy: [same("IMGPROXY_ETAG_BUSTER")],
        help: "put in every `ETag` (`\"TEXT/<base64url of the tag>\"`, as imgproxy writes it): changing it makes clients and CDNs fetch again",
        check: { setting, buster throws(ServerConfigError) in
            if buster.contains(where: { $0 == "\"" || $0.isWhitespace || !$0.isASCII }) {
                throw setting.error("the ETag buster '\(buster)' may hold no quote, blank or non-ASCII character")
            }
        }
    )

    /// `--use-last-modified`: `Last-Modified` and 304 for an `If-Modified-Since` not before it (an `If-None-Match` decides alone when present).
    public static let useLastModified = bool(
        "useLastModified", .responses, \.responses.useLastModified,
        imgproxy: [same("IMGPROXY_USE_LAST_MODIFIED")],
        help: "`Last-Modified` and 304 for an `If-Modified-Since` not before it (an `If-None-Match` decides alone when present)"
    )

    /// `--last-modified-buster`: RFC 3339 time: an earlier `Last-Modified` is sent as this.
    public static let lastModifiedBuster = ServerSetting(
        "lastModifiedBuster", .responses, kind: .custom, placeholder: "TIME",
        imgproxy: [same("IMGPROXY_LAST_MODIFIED_BUSTER")],
        default: "none",
        help: "RFC 3339 time: an earlier `Last-Modified` is sent as this"
    ) { setting, values, config throws(ServerConfigError) in
        // RFC 3339, as imgproxy reads IMGPROXY_LAST_MODIFIED_BUSTER.
        let value = values.last ?? ""
        guard !value.isEmpty else {
            config.responses.lastModifiedBuster = nil
            return
        }
        guard let date = try? Date(value.trimmingCharacters(in: .whitespaces), strategy: .iso8601) else {
            throw setting.invalid(value, "an RFC 3339 time, e.g. 2026-01-31T12:00:00Z")
        }
        config.responses.lastModifiedBuster = date
    }

    /// `--validators`: where `ETag` and `Last-Modified` come from: the served bytes, or the source's passed through, with conditional requests for images not held sent on to the source and its 304 answered as 304 (imgproxy.md).
    public static let validators = choice(
        "validators", .responses, \.responses.validators, placeholder: "WHICH",
        default: "`variant`",
        imgproxyDefault: .source,
        help: "where `ETag` and `Last-Modified` come from: the served bytes, or the source's passed through, with conditional requests for images not held sent on to the source and its 304 answered as 304 ([imgproxy.md](imgproxy.md#caching-headers-and-conditional-requests))"
    )

    /// `--cache-control-passthrough`: the source's `Cache-Control` (else a `max-age` until its `Expires`) instead of the TTL's, unless the URL's `expires` sets the age.
    public static let cacheControlPassthrough = bool(
        "cacheControlPassthrough", .responses, \.responses.cacheControlPassthrough,
        imgproxy: [same("IMGPROXY_CACHE_CONTROL_PASSTHROUGH")],
        help: "the source's `Cache-Control` (else a `max-age` until its `Expires`) instead of the TTL's, unless the URL's `expires` sets the age"
    )

    /// `--enable-client-hints`: `Sec-CH-DPR`/`DPR` and `Sec-CH-Width`/`Width` set the `dpr` and width a URL starts from (its own options win), and images name them in `Vary`; a DPR is rounded up to the next half and a width to its four highest bits, so that clients make a bounded number of variants.
    public static let enableClientHints = bool(
        "enableClientHints", .responses, \.responses.enableClientHints,
        imgproxy: [same("IMGPROXY_ENABLE_CLIENT_HINTS")],
        help: "`Sec-CH-DPR`/`DPR` and `Sec-CH-Width`/`Width` set the `dpr` and width a URL starts from (its own options win), and images name them in `Vary`; a DPR is rounded up to the next half and a width to its four highest bits, so that clients make a bounded number of variants"
    )

    /// `--set-canonical-header`: images of http(s) sources carry `Link: <source>; rel="canonical"`.
    public static let setCanonicalHeader = bool(
        "setCanonicalHeader", .responses, \.responses.setCanonicalHeader,
        imgproxy: [same("IMGPROXY_SET_CANONICAL_HEADER")],
        help: "images of http(s) sources carry `Link: <source>; rel=\"canonical\"`"
    )

    /// `--enable-debug-headers`: images carry `X-Origin-Width`, `X-Origin-Height` (one frame of the source, as stored), `X-Origin-Content-Length` and `X-Result-Width`, `X-Result-Height`.
    public static let enableDebugHeaders = bool(
        "enableDebugHeaders", .responses, \.responses.enableDebugHeaders,
        imgproxy: [same("IMGPROXY_ENABLE_DEBUG_HEADERS")],
        help: "images carry `X-Origin-Width`, `X-Origin-Height` (one frame of the source, as stored), `X-Origin-Content-Length` and `X-Result-Width`, `X-Result-Height`"
    )

    /// `--return-attachment`: images carry `Content-Disposition: attachment` (browsers save them rather than show them) unless the URL's `return_attachment:0` asks for `inline`.
    public static let returnAttachment = bool(
        "returnAttachment", .responses, \.responses.returnAttachment,
        imgproxy: [same("IMGPROXY_RETURN_ATTACHMENT", isImgproxys: false)],
        help: "images carry `Content-Disposition: attachment` (browsers save them rather than show them) unless the URL's `return_attachment:0` asks for `inline`"
    )

    /// `--development-errors`: errors answered with their full diagnostic (the source's addresses and answers, the files under the local root, S3's refusals) instead of a short text per kind; never on a server the public reaches.
    public static let developmentErrors = bool(
        "developmentErrors", .responses, \.responses.developmentErrors,
        imgproxy: [same("IMGPROXY_DEVELOPMENT_ERRORS_MODE", note: "(the diagnostic as plain text)")],
        help: "errors answered with their full diagnostic (the source's addresses and answers, the files under the local root, S3's refusals) instead of a short text per kind; never on a server the public reaches"
    )
}
