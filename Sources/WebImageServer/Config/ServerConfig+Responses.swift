import Foundation
import WebImage

extension ServerConfig {
    /// The header fields of responses, conditional requests and error bodies.
    public struct Responses: Sendable {
        /// Send an `ETag` with every image and answer a matching `If-None-Match` with 304. Default on.
        public var useETag = true
        /// Read client hints (`Sec-CH-DPR`/`DPR`, `Sec-CH-Width`/`Width`) as a URL's starting
        /// `dpr` and width, and send `Vary` with them (imgproxy's `IMGPROXY_ENABLE_CLIENT_HINTS`).
        /// Default off.
        public var enableClientHints = false
        /// Put in every `ETag` (`"<buster>/<base64url of the tag>"`, as imgproxy writes it), so
        /// that changing it changes every ETag and clients and CDNs fetch again (imgproxy's
        /// `IMGPROXY_ETAG_BUSTER`). `nil`: none.
        public var etagBuster: String?
        /// Where `ETag` and `Last-Modified` come from: the served bytes (default) or, as
        /// imgproxy does, the source (the default under ``ServerProfile/imgproxy``).
        public var validators = ResponseValidators.variant
        /// Send the source's `Cache-Control` (else a `max-age` from its `Expires`) instead of
        /// the TTL's, unless the URL's `expires` sets the age (imgproxy's
        /// `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`). Default off.
        public var cacheControlPassthrough = false
        /// Send `Link: <source>; rel="canonical"` with images of http(s) sources (imgproxy's
        /// `IMGPROXY_SET_CANONICAL_HEADER`). Default off.
        public var setCanonicalHeader = false
        /// Send `X-Origin-Width`, `X-Origin-Height`, `X-Origin-Content-Length`, `X-Result-Width`
        /// and `X-Result-Height` with images (imgproxy's `IMGPROXY_ENABLE_DEBUG_HEADERS`).
        /// Default off.
        public var enableDebugHeaders = false
        /// Send `Last-Modified` and answer a matching `If-Modified-Since` with 304 (imgproxy's
        /// `IMGPROXY_USE_LAST_MODIFIED`). Default on.
        public var useLastModified = true
        /// A `Last-Modified` earlier than this is sent as this, and an `If-Modified-Since`
        /// before it is not matched (imgproxy's `IMGPROXY_LAST_MODIFIED_BUSTER`). `nil`: none.
        public var lastModifiedBuster: Date?
        /// Answer errors with their full diagnostic (what failed and why, the source's
        /// addresses and answers included) instead of a short fixed text per kind, as
        /// imgproxy's `IMGPROXY_DEVELOPMENT_ERRORS_MODE`: for development, never for a server
        /// the public reaches. Either way the diagnostic is logged under the request's ID.
        /// Default off.
        public var developmentErrors = false
        /// Send `Content-Disposition: attachment`, so that browsers save images rather than
        /// show them, unless a URL's `return_attachment:0` asks for `inline` (imgproxy's
        /// `IMGPROXY_RETURN_ATTACHMENT`). Default off.
        public var returnAttachment = false

        /// The defaults.
        public init() {}
    }
}
