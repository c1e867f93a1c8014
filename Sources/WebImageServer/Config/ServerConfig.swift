import Foundation
import NIOCore
import WebImage

/// Every setting of `webimage serve`. Each has a flag and a `WEBIMAGE_*` environment
/// variable (see ``ServerSetting``); flags win over the environment. The defaults below are
/// WebImage's; ``ServerProfile/imgproxy`` starts from imgproxy's instead.
public struct ServerConfig: Sendable {
    /// The defaults this configuration started from, and whose status codes are answered.
    public var profile = ServerProfile.webimage
    /// The address to listen on. Default `127.0.0.1`.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one. Default 8080.
    public var port = 8080
    /// Hex signing keys, paired in order with ``salts``. Empty: URLs are not signed.
    public var keys: [String] = []
    /// Hex salts, one per key.
    public var salts: [String] = []
    /// Bytes of the HMAC kept in a signature (1…32). Default 32.
    public var signatureSize = 32
    /// Source URL prefixes allowed; empty allows any http(s) source. A prefix naming only a
    /// host must end with `/`.
    public var allowedSources: [String] = []
    /// Allow sources on loopback addresses (127/8, ::1). Default off.
    public var allowLoopback = false
    /// Allow sources on private addresses (10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10). Default off.
    public var allowPrivate = false
    /// Allow sources on link-local addresses (169.254/16, fe80::/10). Default off.
    public var allowLinkLocal = false
    /// The largest source download in bytes. Default 64 MiB.
    public var maxSourceBytes = 64 << 20
    /// The most pixels a source may have, all frames counted. Default 50 megapixels.
    public var maxSourceResolution = 50_000_000
    /// How far a JPEG source shrinks in libjpeg (its DCT scaling) on its way to a smaller
    /// variant: leaving a factor of two or more for the resample, as libvips' own thumbnail
    /// does (the default), or as far as the target, as imgproxy does (its profile's
    /// default), which takes about 10 % less CPU an image at 0.6 dB less PSNR.
    public var jpegShrinkOnLoad = ImageDecodeOptions.JPEGShrink.leavingResample
    /// Whether resizes work in linear light instead of on sRGB's gamma-encoded values
    /// (imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`): fine light detail keeps its
    /// brightness, at the cost of resampling float pixels. Default off.
    public var useLinearColorspace = false
    /// How many frames of an animation are processed: its first `maxAnimationFrames`; at 1
    /// the output is a still of the first frame. Default 100.
    public var maxAnimationFrames = 100
    /// The largest width or height a URL may ask for (after dpr), and the largest side of a
    /// result: a larger one (from dpr, zoom or min sizes) is scaled down to it. Default 8192.
    public var maxResultDimension = 8192
    /// The longest a source download may take, redirects included. Default 10 s.
    public var downloadTimeout: Duration = .seconds(10)
    /// The longest a request may take from arrival to response. Default 30 s.
    public var requestTimeout: Duration = .seconds(30)
    /// How long a connection to a source stays open, idle, for the next download from it;
    /// zero closes each after its download (imgproxy's `IMGPROXY_CLIENT_KEEP_ALIVE_TIMEOUT`).
    /// Default 60 s; 90 s under ``ServerProfile/imgproxy``.
    public var sourceKeepAliveTimeout: Duration = .seconds(60)
    /// How long a stop (SIGTERM, SIGINT) waits for the requests in flight before it cuts
    /// them off and closes every connection (imgproxy's `IMGPROXY_GRACEFUL_STOP_TIMEOUT`);
    /// zero: at once. `nil`: as long as they take. Default 20 s, as imgproxy's, within the
    /// 30 s a container orchestrator commonly waits before it kills the process.
    public var gracefulStopTimeout: Duration? = .seconds(20)
    /// Requests processed at once (decode, transform, encode), once their source is in. Default 2 × cores.
    public var workers = 2 * System.coreCount
    /// Requests that may wait for a worker; more are answered 429. Default 256.
    public var queueSize = 256
    /// Source downloads running at once; more wait, holding no worker. Default 32.
    public var maxDownloads = 32
    /// Source downloads from one host running at once, within ``maxDownloads``. Default 8.
    public var maxDownloadsPerHost = 8
    /// The most encodes one image may take (`format:best` × `quality:auto` × `max_bytes`);
    /// past it, the best result so far is served. Default 24.
    public var maxEncodes = ImageManager.defaultMaxEncodesPerOutput
    /// Bytes the workers may reserve at once for the images they make (the decode, the
    /// largest image on the way, the encodes, see `MemoryBudget`): a worker whose image does
    /// not fit waits, holding its slot, until others finish; one that could never fit is
    /// refused (422). Default a quarter of the machine's memory, or of the container's limit
    /// when lower.
    public var memoryBudget = MemoryBudget.defaultBytes
    /// `Cache-Control: max-age` of a served image, in seconds. Default one year.
    public var ttl = 31_536_000
    /// Serve WebP to clients whose `Accept` lists it when the URL names no format. Default on.
    public var autoWebP = true
    /// Serve AVIF to clients whose `Accept` lists it when the URL names no format (before WebP). Default on.
    public var autoAVIF = true
    /// Formats a source may keep when no format is asked for or negotiated; a source in
    /// another format is converted to the first of these that suits it (alpha, animation).
    public var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif, .webp, .avif]
    /// Quality when the URL gives none. Default 80.
    public var defaultQuality = 80
    /// Auto quality for URLs that name no quality (`--quality auto`). Default off.
    public var defaultAutoQuality = false
    /// The SSIM target of auto quality when a URL gives none. Default 0.985.
    public var autoQualityTarget = AutoQuality.defaultTarget
    /// The candidates of `format:best`, in order. Default jpeg, png, webp, avif.
    public var bestFormats: [ImageFormat] = VariantFormat.defaultBestCandidates
    /// The directory holding the cache (namespaces `proxy-originals` and `proxy-variants`).
    public var cacheDirectory = CacheConfig.defaultRootDirectory
    /// Disk cache limit in bytes, split evenly between originals and variants; 0: no limit. Default 2 GiB.
    public var cacheMaxDiskSize = 2 << 30
    /// Bytes of encoded variants kept in memory. Default 256 MiB.
    public var cacheMaxMemory = 256 << 20
    /// Age after which disk entries are removed, in seconds (by last access). Default 30 days.
    public var cacheMaxAge: TimeInterval = 30 * 24 * 3600
    /// Named option strings for `preset:<name>` (`thumb` → `rs:fill:300:300/q:70`); `default` applies to every URL.
    public var presets: [String: String] = [:]
    /// imgproxy's only-presets mode: the options segment of a URL is a `:`-separated list of
    /// preset names and nothing else. Default off.
    public var onlyPresets = false
    /// The directory `local:///path` sources are read from; `nil`: `local://` sources are refused.
    public var localFilesystemRoot: String?
    /// Hex AES key (16, 24 or 32 bytes) of `enc/` sources; `nil`: encrypted sources are refused.
    public var sourceURLEncryptionKey: String?
    /// Per-format qualities used when the URL gives no quality (imgproxy's `IMGPROXY_FORMAT_QUALITY`).
    public var formatQuality: [ImageFormat: Int] = [:]
    /// Serve WebP to clients whose `Accept` lists it even when the URL names another format. Default off.
    public var enforceWebP = false
    /// Serve AVIF to clients whose `Accept` lists it even when the URL names another format. Default off.
    public var enforceAVIF = false
    /// Serve JPEG XL to clients whose `Accept` lists it when the URL names no format, before
    /// AVIF and WebP (imgproxy's `IMGPROXY_AUTO_JXL`). Default off.
    public var autoJXL = false
    /// Serve JPEG XL to clients whose `Accept` lists it even when the URL names another
    /// format, before AVIF and WebP (imgproxy's `IMGPROXY_ENFORCE_JXL`). Default off.
    public var enforceJXL = false
    /// Write progressive JPEGs (imgproxy's `IMGPROXY_JPEG_PROGRESSIVE`). Default off.
    public var jpegProgressive = false
    /// Write interlaced PNGs (imgproxy's `IMGPROXY_PNG_INTERLACED`). Default off.
    public var pngInterlaced = false
    /// Write PNGs with a palette of at most ``pngQuantizationColors`` colours (imgproxy's
    /// `IMGPROXY_PNG_QUANTIZE`). Default off.
    public var pngQuantize = false
    /// The colours of a quantised PNG's palette, 2…256; stored in 1, 2, 4 or 8 bits an entry,
    /// it holds at most 2, 4, 16 or 256 (`ImageEncodeOptions.pngPaletteColors`), as
    /// imgproxy's `IMGPROXY_PNG_QUANTIZATION_COLORS`. Default 256.
    public var pngQuantizationColors = 256
    /// libwebp's effort, 1 (fastest) to 6 (smallest), as imgproxy's `IMGPROXY_WEBP_EFFORT`. Default 4.
    public var webpEffort = 4
    /// The kind of picture lossy WebP is tuned for (imgproxy's `IMGPROXY_WEBP_PRESET`). Default `WebPPreset.default`.
    public var webpPreset = WebPPreset.default
    /// AVIF's encoding speed, 0 (slowest, smallest) to 9 (fastest): the AV1 encoder's effort
    /// is 9 minus it, as imgproxy's `IMGPROXY_AVIF_SPEED`. Default 5 (libvips' effort 4);
    /// imgproxy's 8.
    public var avifSpeed = 5
    /// libjxl's effort for JPEG XL, 1 (fastest) to 9 (smallest), as imgproxy's
    /// `IMGPROXY_JXL_EFFORT`. Default 4.
    public var jxlEffort = 4
    /// The `Access-Control-Allow-Origin` of the proxy paths' responses, with
    /// `Access-Control-Allow-Methods: GET, OPTIONS`, and `OPTIONS` preflights answered
    /// (imgproxy's `IMGPROXY_ALLOW_ORIGIN`), e.g. `*` or `https://example.com`. `nil`: no CORS.
    public var allowOrigin: String?
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
    /// `host:port` of a listener of its own for `/metrics` (imgproxy's
    /// `IMGPROXY_PROMETHEUS_BIND`; a port alone, `:9464`, listens on every address). `nil`:
    /// `/metrics` is on the proxy's port.
    public var prometheusBind: String?
    /// The prefix of the metrics' names in place of `webimage` (imgproxy's
    /// `IMGPROXY_PROMETHEUS_NAMESPACE`). `nil`: `webimage`.
    public var prometheusNamespace: String?
    /// ``prometheusBind`` read; `nil` when there is none, or it is not `host:port`.
    var prometheusListenAddress: ListenAddress? { prometheusBind.flatMap(ListenAddress.init) }
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
    /// Leave metadata (EXIF, XMP, IPTC) out of served images unless the URL says otherwise. Default on.
    public var stripMetadata = true
    /// The `User-Agent` sent to sources; `nil`: WebImage's own.
    public var userAgent: String?
    /// Redirects followed per source download. Default 10.
    public var maxRedirects = 10
    /// The HTTP proxy `http://` sources are fetched through, as a URL (`http://user:pass@proxy:3128`);
    /// `nil` or empty: direct. ``readStandardProxyVariables(_:)`` takes it from `HTTP_PROXY`.
    public var httpProxy: String?
    /// The HTTP proxy `https://` sources are fetched through (a `CONNECT` tunnel, TLS end to
    /// end); `nil` or empty: direct. ``readStandardProxyVariables(_:)`` takes it from `HTTPS_PROXY`.
    public var httpsProxy: String?
    /// Source hosts fetched direct whatever the proxies, as curl reads `NO_PROXY` (WebImage's `NoProxyList`).
    public var noProxy: String?
    /// Whether the proxies' own addresses are exempt from the source guard. Default off: a
    /// proxy on a loopback or private address is refused like such a source unless those
    /// addresses are allowed. Turn it on for a proxy you run on such an address: sources
    /// there stay refused, while allowing private addresses would let any source URL reach them.
    public var trustProxyAddress = false
    /// A PEM file of certificate authorities trusted for sources' certificates, besides the system's.
    public var caFile: String?
    /// A PEM client certificate presented to sources that require one (mutual TLS).
    public var clientCertificateFile: String?
    /// The PEM private key of ``clientCertificateFile`` (unencrypted); `nil`: it is in that file.
    public var clientKeyFile: String?
    /// Whether URLs may carry the security options (`max_src_resolution`, `max_src_file_size`,
    /// `max_animation_frames`, `max_animation_frame_resolution`, `max_result_dimension`). Default off.
    public var allowSecurityOptions = false
    /// A watermark image file for the `watermark` option.
    public var watermarkPath: String?
    /// A watermark image URL for the `watermark` option, fetched like a source.
    public var watermarkURL: String?
    /// A watermark image as base64 for the `watermark` option.
    public var watermarkData: String?
    /// The watermark's base opacity, 0…1, multiplied by the URL's. Default 1.
    public var watermarkOpacity = 1.0
    /// A bearer token every image request must carry (`Authorization: Bearer <secret>`), as
    /// imgproxy's `IMGPROXY_SECRET`: for a proxy only a CDN or an application may reach.
    /// A request without it answers 403. `nil`: no token is asked for.
    public var secret: String?
    /// A prefix every path of the server starts with (imgproxy's `IMGPROXY_PATH_PREFIX`), e.g.
    /// `/images`: `/images/<signature>/…`, `/images/health`. A path without it answers 404.
    public var pathPrefix: String?
    /// What separates an option's name and arguments in URLs and presets (imgproxy's
    /// `IMGPROXY_ARGUMENTS_SEPARATOR`): one ASCII character. Default `:`.
    public var argumentsSeparator: Unicode.Scalar = ":"
    /// Put in front of source URLs that do not start with it (imgproxy's `IMGPROXY_BASE_URL`),
    /// so that URLs may name sources relative to it.
    public var baseURL: String?
    /// Rewrites of source URLs' starts, applied in order before the base URL (imgproxy's
    /// `IMGPROXY_URL_REPLACEMENTS`).
    public var urlReplacements: [SourceURLRewrite.Replacement] = []
    /// Whether a base64 source split over several segments ends with a file name segment
    /// that is not part of it (imgproxy's `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`). Default off.
    public var base64URLIncludesFilename = false
    /// A path answered like `/health`, besides it (imgproxy's `IMGPROXY_HEALTH_CHECK_PATH`).
    public var healthCheckPath: String?
    /// The only processing options URLs may use, by the name written in the URL (`w`, `h`,
    /// `rs`…; the long and the short name are different names), as imgproxy's
    /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`. Presets may use any option. Empty: every option.
    public var allowedProcessingOptions: [String] = []
    /// Keep copyright metadata when metadata is stripped, unless the URL says otherwise
    /// (`keep_copyright`). Default off; imgproxy's on.
    public var keepCopyright = false
    /// Strip the colour profile (converting to sRGB) unless the URL says otherwise
    /// (`strip_color_profile`). Default on.
    public var stripColorProfile = true
    /// Turn images upright by their EXIF orientation unless the URL says otherwise
    /// (`auto_rotate`). Default on.
    public var autoRotate = true
    /// Use a source's embedded thumbnail when it has one, unless the URL says otherwise
    /// (`enforce_thumbnail`). Default off.
    public var enforceThumbnail = false
    /// Source formats served as they are, unprocessed, besides those a URL names
    /// (`skip_processing`). Default none.
    public var skipProcessingFormats: [ImageFormat] = []
    /// The most pixels one frame of an animated source may have; when set, an animation is
    /// checked frame by frame against it instead of against ``maxSourceResolution``. `nil`:
    /// no such limit.
    public var maxAnimationFrameResolution: Int?
    /// The fallback image, as base64, served in place of a source that cannot be downloaded
    /// (unreachable, an error status, too large, timed out), processed as the URL asks.
    public var fallbackImageData: String?
    /// The fallback image read from a file.
    public var fallbackImagePath: String?
    /// The fallback image downloaded at start-up.
    public var fallbackImageURL: String?
    /// The status a fallback image is answered with; 0: the status of the error it stands
    /// in for. Default 200, as imgproxy's `IMGPROXY_FALLBACK_IMAGE_HTTP_CODE`.
    public var fallbackImageHTTPCode = 200
    /// `Cache-Control: max-age` of a fallback image, in seconds, when shorter than the TTL;
    /// `nil`: the TTL.
    public var fallbackImageTTL: Int?
    /// Signature segments accepted without an HMAC check, as imgproxy's
    /// `IMGPROXY_TRUSTED_SIGNATURES`: for URLs signed elsewhere that must keep working.
    public var trustedSignatures: [String] = []
    /// Answer `GET /` with the playground page (options as form controls, the URL they
    /// make, the result and its `/info`). Default off.
    public var playground = false
    /// The longest a client may take to send a request, head and body: from the moment its
    /// connection opens, or the first byte of its next request arrives, until the request's
    /// last byte. A client slower than that is disconnected. Default 10 s, as imgproxy's
    /// `IMGPROXY_READ_REQUEST_TIMEOUT`.
    public var readRequestTimeout: Duration = .seconds(10)
    /// How long a kept-alive connection may wait for its next request before it is closed;
    /// zero turns keep-alive off (every response closes its connection). Default 10 s, as
    /// imgproxy's `IMGPROXY_KEEP_ALIVE_TIMEOUT`.
    public var keepAliveTimeout: Duration = .seconds(10)
    /// The longest a response may take to be written, from its first byte until its last
    /// has left for the client: a client that does not read it in time is disconnected.
    /// Default 10 s, as imgproxy's `IMGPROXY_WRITE_RESPONSE_TIMEOUT`.
    public var writeResponseTimeout: Duration = .seconds(10)
    /// Client connections open at once, at most. Past it the server stops accepting: a new
    /// connection waits, unread, in the listening socket's backlog until one closes, as with
    /// imgproxy's `IMGPROXY_MAX_CLIENTS`. Default 2048, as imgproxy's.
    public var maxClients = 2048
    /// Client connections one address may have open at once (an IPv6 client is counted by
    /// its /64 prefix); one more is closed as soon as it is accepted. Zero: no cap per
    /// address. Default 512, a quarter of ``maxClients``' default, more than a reverse proxy
    /// in front of the server needs; 0 under ``ServerProfile/imgproxy``, which has no such cap.
    public var maxClientsPerAddress = 512
    /// The kernel's send buffer of each client connection, in bytes: what a client that does
    /// not read holds of the server's memory besides the response, and past which the write
    /// timeout counts. Zero: the system's, which grows with the connection (up to
    /// `net.ipv4.tcp_wmem`'s maximum, 4 MiB on Linux). Default 0.
    public var clientSendBufferSize = 0
    /// Answer errors with their full diagnostic (what failed and why, the source's
    /// addresses and answers included) instead of a short fixed text per kind, as
    /// imgproxy's `IMGPROXY_DEVELOPMENT_ERRORS_MODE`: for development, never for a server
    /// the public reaches. Either way the diagnostic is logged under the request's ID.
    /// Default off.
    public var developmentErrors = false
    /// Load `s3://<bucket>/<key>[?<version ID>]` sources from S3 (imgproxy's
    /// `IMGPROXY_USE_S3`). Default off: such sources answer 404.
    public var useS3 = false
    /// The S3-compatible server `s3://` sources come from, e.g. `http://127.0.0.1:9000`;
    /// without a scheme, `http://`. `nil`: AWS itself.
    public var s3Endpoint: String?
    /// The region S3 requests are signed for; `nil`: `AWS_REGION`, else `AWS_DEFAULT_REGION`
    /// of ``s3Environment``, else `us-east-1` (imgproxy's `us-west-1` under its profile).
    public var s3Region: String?
    /// With ``s3Endpoint``: buckets in the path (`<endpoint>/<bucket>/<key>`, default) or as
    /// a subdomain of the endpoint's host (false).
    public var s3EndpointUsePathStyle = true
    /// The standard AWS variables S3 requests are configured from (`AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_DEFAULT_REGION`):
    /// `webimage serve` passes its process's `AWS_*` variables. Empty: unsigned requests.
    public var s3Environment: [String: String] = [:]
    /// The only buckets `s3://` sources may name (imgproxy's `IMGPROXY_S3_ALLOWED_BUCKETS`);
    /// empty: any. A source in another bucket answers 404.
    public var s3AllowedBuckets: [String] = []
    /// Buckets `s3://` sources may not name (imgproxy's `IMGPROXY_S3_DENIED_BUCKETS`); a
    /// source in one answers 404.
    public var s3DeniedBuckets: [String] = []

    /// The defaults.
    public init() {}

    /// The signing key pairs, checked: as many salts as keys, all hex.
    public func signingKeys() throws(ServerConfigError) -> [SigningKey] {
        guard keys.count == salts.count else {
            throw ServerConfigError("\(keys.count) signing key(s) but \(salts.count) salt(s): give one salt per key (WEBIMAGE_KEYS / WEBIMAGE_SALTS, --key / --salt)")
        }
        var pairs: [SigningKey] = []
        for (index, (key, salt)) in zip(keys, salts).enumerated() {
            do {
                pairs.append(try SigningKey(hexKey: key, hexSalt: salt))
            } catch {
                throw ServerConfigError("key/salt pair \(index + 1): \(error.message)")
            }
        }
        return pairs
    }

    /// Checks every setting; the message names the setting and what to change.
    public func validate() throws(ServerConfigError) {
        guard (0...65535).contains(port) else { throw ServerConfigError("port \(port) is not in 0…65535 (--port, WEBIMAGE_PORT)") }
        guard !host.isEmpty else { throw ServerConfigError("the bind address is empty (--bind, WEBIMAGE_BIND)") }
        _ = try signingKeys()
        guard (1...32).contains(signatureSize) else {
            throw ServerConfigError("signature size \(signatureSize) is not in 1…32 bytes (--signature-size, WEBIMAGE_SIGNATURE_SIZE)")
        }
        for prefix in allowedSources {
            if let problem = SourceGuard.problem(withPrefix: prefix) {
                throw ServerConfigError("\(problem) (--allowed-source, WEBIMAGE_ALLOWED_SOURCES)")
            }
        }
        let positives: [(String, Int, String)] = [
            ("max source bytes", maxSourceBytes, "--max-source-bytes, WEBIMAGE_MAX_SOURCE_BYTES"),
            ("max source resolution", maxSourceResolution, "--max-source-resolution, WEBIMAGE_MAX_SOURCE_RESOLUTION"),
            ("max animation frames", maxAnimationFrames, "--max-animation-frames, WEBIMAGE_MAX_ANIMATION_FRAMES"),
            ("max result dimension", maxResultDimension, "--max-result-dimension, WEBIMAGE_MAX_RESULT_DIMENSION"),
            ("workers", workers, "--workers, WEBIMAGE_WORKERS"),
            ("memory budget", memoryBudget, "--memory-budget, WEBIMAGE_MEMORY_BUDGET"),
            ("max clients", maxClients, "--max-clients, WEBIMAGE_MAX_CLIENTS"),
            ("max downloads", maxDownloads, "--max-downloads, WEBIMAGE_MAX_DOWNLOADS"),
            ("max downloads per host", maxDownloadsPerHost, "--max-downloads-per-host, WEBIMAGE_MAX_DOWNLOADS_PER_HOST"),
            ("max encodes", maxEncodes, "--max-encodes, WEBIMAGE_MAX_ENCODES"),
        ]
        for (name, value, where_) in positives where value < 1 {
            throw ServerConfigError("\(name) must be at least 1, not \(value) (\(where_))")
        }
        guard queueSize >= 0 else { throw ServerConfigError("queue size must be 0 or more, not \(queueSize) (--queue-size, WEBIMAGE_QUEUE_SIZE)") }
        guard ttl >= 0 else { throw ServerConfigError("TTL must be 0 or more seconds, not \(ttl) (--ttl, WEBIMAGE_TTL)") }
        guard (1...100).contains(defaultQuality) else {
            throw ServerConfigError("quality \(defaultQuality) is not in 1…100 (--quality, WEBIMAGE_QUALITY)")
        }
        guard downloadTimeout > .zero, requestTimeout > .zero, readRequestTimeout > .zero, writeResponseTimeout > .zero else {
            throw ServerConfigError("timeouts must be positive (--download-timeout, --request-timeout, --read-request-timeout, --write-response-timeout)")
        }
        guard clientSendBufferSize >= 0, clientSendBufferSize <= Int(Int32.max) else {
            throw ServerConfigError("the client send buffer must be 0 (the system's) or a byte count up to 2G (--client-send-buffer, WEBIMAGE_CLIENT_SEND_BUFFER)")
        }
        guard maxClientsPerAddress >= 0 else {
            throw ServerConfigError("max clients per address must be 0 (no cap) or more, not \(maxClientsPerAddress) (--max-clients-per-address, WEBIMAGE_MAX_CLIENTS_PER_ADDRESS)")
        }
        guard keepAliveTimeout >= .zero else {
            throw ServerConfigError("the keep-alive timeout must be 0 (keep-alive off) or more (--keep-alive-timeout, WEBIMAGE_KEEP_ALIVE_TIMEOUT)")
        }
        if let prometheusBind, prometheusListenAddress == nil {
            throw ServerConfigError("the metrics listener '\(prometheusBind)' is not host:port or :port, e.g. :9464 (--prometheus-bind, WEBIMAGE_PROMETHEUS_BIND, IMGPROXY_PROMETHEUS_BIND)")
        }
        if let prometheusNamespace, !PrometheusNames.isPrefix(prometheusNamespace) {
            throw ServerConfigError("the metrics namespace '\(prometheusNamespace)' is not letters, digits and _, starting with a letter (--prometheus-namespace, WEBIMAGE_PROMETHEUS_NAMESPACE, IMGPROXY_PROMETHEUS_NAMESPACE)")
        }
        if let etagBuster, etagBuster.contains(where: { $0 == "\"" || $0.isWhitespace || !$0.isASCII }) {
            throw ServerConfigError("the ETag buster '\(etagBuster)' may hold no quote, blank or non-ASCII character (--etag-buster, WEBIMAGE_ETAG_BUSTER, IMGPROXY_ETAG_BUSTER)")
        }
        // A header value of visible ASCII: nothing that could end the header or start another.
        if let allowOrigin, allowOrigin.isEmpty || allowOrigin.unicodeScalars.contains(where: { !(0x21...0x7E).contains($0.value) }) {
            throw ServerConfigError("the allowed origin '\(allowOrigin)' is not an origin such as https://example.com or * (--allow-origin, WEBIMAGE_ALLOW_ORIGIN, IMGPROXY_ALLOW_ORIGIN)")
        }
        if let secret, secret.isEmpty || secret.contains(where: { $0.isWhitespace || $0.isNewline }) {
            throw ServerConfigError("the secret must be a token without blanks (--secret, WEBIMAGE_SECRET, IMGPROXY_SECRET)")
        }
        for name in allowedProcessingOptions where ProcessingOptionName.byName[Substring(name)] == nil {
            throw ServerConfigError("allowed processing option '\(name)' is not a processing option, e.g. w, h, rs, q, f (--allowed-processing-option, WEBIMAGE_ALLOWED_PROCESSING_OPTIONS, IMGPROXY_ALLOWED_PROCESSING_OPTIONS)")
        }
        if let healthCheckPath, healthCheckPath == "/" || !healthCheckPath.hasPrefix("/") || healthCheckPath.contains(where: { $0.isWhitespace || $0 == "*" || $0 == "?" }) {
            throw ServerConfigError("the health check path '\(healthCheckPath)' is not a plain path such as /healthz (--health-check-path, WEBIMAGE_HEALTH_CHECK_PATH, IMGPROXY_HEALTH_CHECK_PATH)")
        }
        if let pathPrefix, !pathPrefix.isEmpty, !pathPrefix.hasPrefix("/") || pathPrefix.hasSuffix("/") || pathPrefix.contains(where: { $0.isWhitespace || $0 == "*" || $0 == "?" }) {
            throw ServerConfigError("the path prefix '\(pathPrefix)' is not a path such as /images, without a '/' at the end (--path-prefix, WEBIMAGE_PATH_PREFIX, IMGPROXY_PATH_PREFIX)")
        }
        guard argumentsSeparator.isASCII, !argumentsSeparator.properties.isWhitespace, !"/%.@=".unicodeScalars.contains(argumentsSeparator) else {
            throw ServerConfigError("the arguments separator '\(argumentsSeparator)' must be one ASCII character other than / % . @ = or a blank, e.g. : or , (--arguments-separator, WEBIMAGE_ARGUMENTS_SEPARATOR, IMGPROXY_ARGUMENTS_SEPARATOR)")
        }
        if let maxAnimationFrameResolution, maxAnimationFrameResolution < 1 {
            throw ServerConfigError("max animation frame resolution must be positive (--max-animation-frame-resolution, WEBIMAGE_MAX_ANIMATION_FRAME_RESOLUTION)")
        }
        guard (0.5...0.9999).contains(autoQualityTarget) else {
            throw ServerConfigError("auto quality target \(autoQualityTarget) is not an SSIM in 0.5…0.9999 (--auto-quality-target, WEBIMAGE_AUTO_QUALITY_TARGET)")
        }
        guard !bestFormats.isEmpty else {
            throw ServerConfigError("best formats must name at least one format (--best-formats, WEBIMAGE_BEST_FORMATS)")
        }
        for format in bestFormats where !format.isWritable {
            throw ServerConfigError("best format '\(format.rawValue)' cannot be written; use jpeg, png, gif, webp, avif, heic, tiff or jxl")
        }
        guard !preferredFormats.isEmpty else {
            throw ServerConfigError("preferred formats must name at least one format (--preferred-formats, WEBIMAGE_PREFERRED_FORMATS)")
        }
        for format in preferredFormats where !format.isWritable {
            throw ServerConfigError("preferred format '\(format.rawValue)' cannot be written; use jpeg, png, gif, webp, avif, heic, tiff or jxl")
        }
        guard cacheMaxDiskSize >= 0, cacheMaxMemory >= 0 else {
            throw ServerConfigError("cache limits must be 0 or more bytes (--cache-max-disk, --cache-max-memory)")
        }
        guard !cacheDirectory.isEmpty else { throw ServerConfigError("the cache directory is empty (--cache-dir, WEBIMAGE_CACHE_DIR)") }
        guard (0...1).contains(watermarkOpacity) else {
            throw ServerConfigError("watermark opacity \(watermarkOpacity) is not in 0…1 (--watermark-opacity, WEBIMAGE_WATERMARK_OPACITY)")
        }
        if let watermarkData, ConfiguredImage.decodeBase64(watermarkData) == nil {
            throw ServerConfigError("the watermark data is not base64 (--watermark-data, WEBIMAGE_WATERMARK_DATA)")
        }
        if let fallbackImageData, ConfiguredImage.decodeBase64(fallbackImageData) == nil {
            throw ServerConfigError("the fallback image data is not base64 (--fallback-image-data, WEBIMAGE_FALLBACK_IMAGE_DATA)")
        }
        if fallbackImageHTTPCode != 0, !(100...599).contains(fallbackImageHTTPCode) {
            throw ServerConfigError("fallback image status \(fallbackImageHTTPCode) is not 0 or an HTTP status 100…599 (--fallback-image-http-code, WEBIMAGE_FALLBACK_IMAGE_HTTP_CODE)")
        }
        for (text, settings) in [(watermarkURL, "--watermark-url, WEBIMAGE_WATERMARK_URL"), (fallbackImageURL, "--fallback-image-url, WEBIMAGE_FALLBACK_IMAGE_URL")] {
            guard let text else { continue }
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw ServerConfigError("the URL '\(text)' is not an http(s) URL (\(settings))")
            }
        }
        let parser = ProxyURLParser(
            keys: [], signatureSize: signatureSize, presets: presets, maxDimension: maxResultDimension,
            allowSecurityOptions: allowSecurityOptions, argumentsSeparator: argumentsSeparator
        )
        do {
            try parser.validatePresets()
        } catch {
            throw ServerConfigError("preset: \(error.message) (--preset, WEBIMAGE_PRESETS)")
        }
        if onlyPresets, presets.isEmpty {
            throw ServerConfigError("only-presets mode needs at least one preset (--preset, WEBIMAGE_PRESETS, IMGPROXY_PRESETS)")
        }
        _ = try localFiles()
        _ = try sourceCipher()
        if useS3, let s3Endpoint, !s3Endpoint.isEmpty {
            let lowered = s3Endpoint.lowercased()
            let text = lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? s3Endpoint : "http://" + s3Endpoint
            guard let url = URL(string: text), url.host?.isEmpty == false else {
                throw ServerConfigError("the S3 endpoint '\(s3Endpoint)' is not a URL with a host, e.g. http://127.0.0.1:9000 (--s3-endpoint, WEBIMAGE_S3_ENDPOINT, IMGPROXY_S3_ENDPOINT)")
            }
        }
        try validateEncoderSettings()
        for (format, quality) in formatQuality.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where !(1...100).contains(quality) {
            throw ServerConfigError("format quality \(format.rawValue)=\(quality) is not in 1…100 (--format-quality, WEBIMAGE_FORMAT_QUALITY)")
        }
        guard maxRedirects >= 0 else { throw ServerConfigError("max redirects must be 0 or more, not \(maxRedirects) (--max-redirects, WEBIMAGE_MAX_REDIRECTS)") }
        _ = try sourceProxy()
        _ = try sourceTLS()
        if let watermarkPath {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: watermarkPath, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw ServerConfigError("watermark file '\(watermarkPath)' does not exist or is a directory (--watermark-path, WEBIMAGE_WATERMARK_PATH)")
            }
        }
    }

    /// The loader of `local://` sources, or `nil` when no root is configured.
    /// - Throws: ``ServerConfigError`` when the root is not an existing directory.
    public func localFiles() throws(ServerConfigError) -> RootedFileLoader? {
        guard let localFilesystemRoot, !localFilesystemRoot.isEmpty else { return nil }
        do {
            return try RootedFileLoader(root: localFilesystemRoot, scheme: "local", maxFileSize: maxSourceBytes)
        } catch {
            throw ServerConfigError("local file-system root: \(error.description) (--local-filesystem-root, WEBIMAGE_LOCAL_FILESYSTEM_ROOT)")
        }
    }

    /// The S3 settings of `s3://` sources, or `nil` when they are off (``useS3``).
    public func s3Configuration() -> S3Configuration? {
        guard useS3 else { return nil }
        var configuration = S3Configuration.fromEnvironment(s3Environment)
        let regionFromEnvironment = ["AWS_REGION", "AWS_DEFAULT_REGION"].contains { !(s3Environment[$0] ?? "").isEmpty }
        if let s3Region, !s3Region.isEmpty {
            configuration.region = s3Region
        } else if profile == .imgproxy, !regionFromEnvironment {
            configuration.region = ServerProfile.imgproxyS3Region
        }
        configuration.endpoint = s3Endpoint
        configuration.usesPathStyle = s3EndpointUsePathStyle
        return configuration
    }

    /// How source URLs are rewritten: ``urlReplacements``, then ``baseURL``.
    public var sourceRewrite: SourceURLRewrite {
        SourceURLRewrite(replacements: urlReplacements, baseURL: baseURL)
    }

    /// The processing options every URL starts from: the server-wide ``keepCopyright``,
    /// ``stripColorProfile``, ``autoRotate``, ``enforceThumbnail`` and
    /// ``skipProcessingFormats``, set only where they differ from a URL's own default, so
    /// that the cache keys of URLs that do not depend on them stay the same.
    public var processingDefaults: ProcessingOptions {
        var options = ProcessingOptions()
        if keepCopyright { options.keepCopyright = true }
        if !stripColorProfile { options.stripColorProfile = false }
        if !autoRotate { options.autoRotate = false }
        if enforceThumbnail { options.enforceThumbnail = true }
        options.skipProcessing.formUnion(skipProcessingFormats)
        return options
    }

    /// The key of `enc/` sources, or `nil` when none is configured.
    /// - Throws: ``ServerConfigError`` when the key is not 16, 24 or 32 bytes of hex.
    public func sourceCipher() throws(ServerConfigError) -> SourceURLCipher? {
        guard let sourceURLEncryptionKey, !sourceURLEncryptionKey.isEmpty else { return nil }
        return try SourceURLCipher(hexKey: sourceURLEncryptionKey)
    }
}

/// A setting that cannot be used, with a message naming it and what to change.
public struct ServerConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) { self.message = message }

    /// The ``message``.
    public var description: String { message }
}
