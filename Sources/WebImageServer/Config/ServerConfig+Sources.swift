import Foundation
import WebImage

extension ServerConfig {
    /// Which sources are fetched, and how: allowed addresses, downloads, proxies, TLS, `local://`, `s3://`, `gs://` and the fallback image.
    public struct Sources: Sendable {
        /// Source URL prefixes allowed; empty allows any http(s) source. A prefix naming only a
        /// host must end with `/`.
        public var allowedSources: [String] = []
        /// Allow sources on loopback addresses (127/8, ::1). Default off.
        public var allowLoopback = false
        /// Allow sources on private addresses (10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10). Default off.
        public var allowPrivate = false
        /// Allow sources on link-local addresses (169.254/16, fe80::/10). Default off.
        public var allowLinkLocal = false
        /// The longest a source download may take, redirects included. Default 10 s.
        public var downloadTimeout: Duration = .seconds(10)
        /// How long a connection to a source stays open, idle, for the next download from it;
        /// zero closes each after its download (imgproxy's `IMGPROXY_CLIENT_KEEP_ALIVE_TIMEOUT`).
        /// Default 60 s; 90 s under ``ServerProfile/imgproxy``.
        public var sourceKeepAliveTimeout: Duration = .seconds(60)
        /// Source downloads running at once; more wait, holding no worker. Default 32.
        public var maxDownloads = 32
        /// Source downloads from one host running at once, within ``maxDownloads``. Default 8.
        public var maxDownloadsPerHost = 8
        /// Source downloads started each second at most, in bursts of as many
        /// (``DownloadRateLimit``); 0 (the default): no limit.
        public var maxDownloadStartsPerSecond = 0
        /// The directory `local:///path` sources are read from; `nil`: `local://` sources are refused.
        public var localFilesystemRoot: String?
        /// The `User-Agent` sent to sources; `nil`: WebImage's own.
        public var userAgent: String?
        /// Redirects followed per source download. Default 10.
        public var maxRedirects = 10
        /// Retries of a source download that failed in a way another try may mend (a
        /// connection refused, reset or timed out; 408, 429, 500, 502, 503, 504), with
        /// backoff and the source's `Retry-After` (up to 10 s) honoured, as
        /// ``RetryPolicy`` retries. Default 0: none, as imgproxy, since retries multiply
        /// the load on a failing source.
        public var downloadRetries = 0
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
        /// Put in front of source URLs that do not start with it (imgproxy's `IMGPROXY_BASE_URL`),
        /// so that URLs may name sources relative to it.
        public var baseURL: String?
        /// Rewrites of source URLs' starts, applied in order before the base URL (imgproxy's
        /// `IMGPROXY_URL_REPLACEMENTS`).
        public var urlReplacements: [SourceURLRewrite.Replacement] = []
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
        /// Load `s3://<bucket>/<key>[?<version ID>]` sources from S3 (imgproxy's
        /// `IMGPROXY_USE_S3`). Default off: such sources answer 404.
        public var useS3 = false
        /// The S3-compatible server `s3://` sources come from, e.g. `http://127.0.0.1:9000`;
        /// without a scheme, `http://`. `nil`: AWS itself.
        public var s3Endpoint: String?
        /// The region S3 requests are signed for; `nil`: `AWS_REGION`, else `AWS_DEFAULT_REGION`
        /// of ``s3Environment``, else the profile's `region` in the AWS config file, else
        /// `us-east-1` (imgproxy's `us-west-1` under its profile).
        public var s3Region: String?
        /// With ``s3Endpoint``: buckets in the path (`<endpoint>/<bucket>/<key>`, default) or as
        /// a subdomain of the endpoint's host (false).
        public var s3EndpointUsePathStyle = true
        /// The IAM role S3 requests are signed as (imgproxy's `IMGPROXY_S3_ASSUME_ROLE_ARN`):
        /// STS `AssumeRole`, signed with the credentials the AWS variables and files give.
        /// `nil`: those credentials sign S3 requests themselves.
        public var s3AssumeRoleARN: String?
        /// The external ID the role of ``s3AssumeRoleARN`` asks for (imgproxy's
        /// `IMGPROXY_S3_ASSUME_ROLE_EXTERNAL_ID`).
        public var s3AssumeRoleExternalID: String?
        /// The standard AWS variables S3 requests are configured from, as the AWS SDKs read
        /// them (``AWSCredentialsChain``: `AWS_ACCESS_KEY_ID`, `AWS_PROFILE`,
        /// `AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_CONTAINER_CREDENTIALS_*`, `AWS_REGION`,
        /// `AWS_ENDPOINT_URL_S3`, …): `webimage serve` passes its process's `AWS_*` variables.
        /// Empty, with no shared files and no instance metadata service: unsigned requests.
        public var s3Environment: [String: String] = [:]
        /// The directory whose `.aws/credentials` and `.aws/config` are the shared files
        /// (unless ``s3Environment`` names others): `webimage serve` passes `HOME`. `nil`: none.
        public var s3HomeDirectory: String?
        /// The only buckets `s3://` sources may name (imgproxy's `IMGPROXY_S3_ALLOWED_BUCKETS`);
        /// empty: any. A source in another bucket answers 404.
        public var s3AllowedBuckets: [String] = []
        /// Buckets `s3://` sources may not name (imgproxy's `IMGPROXY_S3_DENIED_BUCKETS`); a
        /// source in one answers 404.
        public var s3DeniedBuckets: [String] = []
        /// Load `gs://<bucket>/<object>[?<generation>]` sources from Google Cloud Storage
        /// (imgproxy's `IMGPROXY_USE_GCS`). Default off: such sources answer 404.
        public var useGCS = false
        /// A service account's JSON key, its content (imgproxy's `IMGPROXY_GCS_KEY`): `gs://`
        /// requests carry access tokens of that account. `nil`, and no HMAC key: they go
        /// unauthenticated, which only public objects answer.
        public var gcsKey: String?
        /// The GCS server, e.g. `http://127.0.0.1:4443` (a `/storage/v1` path is taken as the
        /// same server); `nil`: `https://storage.googleapis.com`.
        public var gcsEndpoint: String?
        /// The access ID of an HMAC key (`GOOG1…`): with ``gcsHMACSecret``, `gs://` requests go
        /// to GCS's S3-compatible XML API, signed with AWS Signature Version 4.
        public var gcsHMACAccessID: String?
        /// The secret of the HMAC key of ``gcsHMACAccessID``.
        public var gcsHMACSecret: String?
        /// The only buckets `gs://` sources may name (imgproxy's `IMGPROXY_GCS_ALLOWED_BUCKETS`);
        /// empty: any. A source in another bucket answers 404.
        public var gcsAllowedBuckets: [String] = []
        /// Buckets `gs://` sources may not name (imgproxy's `IMGPROXY_GCS_DENIED_BUCKETS`); a
        /// source in one answers 404.
        public var gcsDeniedBuckets: [String] = []

        /// The defaults.
        public init() {}
    }
}
