import Foundation
import NIOCore
import WebImage

/// Every setting of `webimage serve`. Each is read through its ``ServerSetting``: a flag, a
/// `WEBIMAGE_*` environment variable and maybe `IMGPROXY_*` ones; flags win over the
/// environment. The defaults below are WebImage's; ``ServerProfile/imgproxy`` starts from
/// imgproxy's instead (each setting's ``ServerSetting/imgproxyDefault``).
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

    /// The least important messages logged: `trace`, `debug`, `info`, `notice`, `warning`,
    /// `error` or `critical`. Default `info`.
    public var logLevel = "info"
    /// How log lines are written: `pretty`, `structured` (logfmt), `json` or `gcp`. Default `pretty`.
    public var logFormat = "pretty"

    /// The defaults.
    public init() {}
}
