import Foundation
import NIOHTTP1

/// Settings of an ``ImageDownloader``, SDWebImageDownloaderConfig's counterpart.
public struct DownloaderConfig: Sendable {
    /// The order in which queued downloads start.
    public enum ExecutionOrder: Sendable {
        /// Oldest first.
        case fifo
        /// Newest first (what a scrolling list wants).
        case lifo
    }

    /// A user name and password sent as HTTP basic authentication.
    public struct Credentials: Sendable, Hashable {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String
        /// Creates credentials.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// Downloads running at once; more wait in the queue. Default 6.
    public var maxConcurrentDownloads: Int = 6
    /// Downloads from one host (the URL's host name, whatever its port) running at once,
    /// within ``maxConcurrentDownloads``; more from that host wait in the queue while
    /// downloads from other hosts start, so that one slow host cannot hold every download.
    /// `nil` (the default): only ``maxConcurrentDownloads`` bounds them.
    public var maxConcurrentDownloadsPerHost: Int?
    /// How fast downloads may start (``DownloadRateLimit``), next to how many may run;
    /// `nil` (the default): as fast as slots free up. Read when the downloader is made.
    public var rateLimit: DownloadRateLimit?
    /// FIFO (default) or LIFO.
    public var executionOrder: ExecutionOrder = .fifo
    /// A transfer that receives nothing for this long fails with ``ImageError/timedOut(_:)``. Default 15 s.
    public var idleTimeout: Duration = .seconds(15)
    /// The longest a whole transfer may take, from its first request to the last byte of
    /// its body, all redirects included: past it the transfer is stopped, however steadily
    /// its body still arrives, and fails with ``ImageError/timedOut(_:)``. Default 2 minutes.
    public var totalTimeout: Duration = .seconds(120)
    /// How long a connection to a source stays open, idle, for the next download from it;
    /// zero closes each connection after its download (`Connection: close`). Default 60 s.
    public var keepAliveTimeout: Duration = .seconds(60)
    /// The longest connecting may take. Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// Redirects followed before giving up. Default 10.
    public var maxRedirects: Int = 10
    /// When a failed download is tried again (``RetryPolicy``): by default ``RetryPolicy/default``,
    /// two retries of transient failures with backoff; ``RetryPolicy/never`` turns retries
    /// off. ``DownloadOptions/retryPolicy`` replaces it for one download.
    public var retryPolicy: RetryPolicy = .default
    /// When a retry of a body cut short continues from the byte where it stopped instead of
    /// fetching it all again (``ResumePolicy``): by default ``ResumePolicy/default``, bodies
    /// of 256 KiB or more from sources that accept byte ranges; ``ResumePolicy/never``
    /// turns resuming off. ``DownloadOptions/resumePolicy`` replaces it for one download.
    public var resumePolicy: ResumePolicy = .default
    /// The clock the waits between attempts are measured on. Default `ContinuousClock()`;
    /// a test gives a clock it moves itself, so that no test waits for real seconds.
    public var retryClock: any Clock<Duration> = ContinuousClock()
    /// The largest body accepted, in bytes. Default 100 MB.
    public var maxBodySize: Int = 100 * 1024 * 1024
    /// Status codes that count as success. Default 200–299.
    public var acceptableStatusCodes: Set<Int> = Set(200..<300)
    /// Media types accepted (`image/png`, or `image/*` for a family); `nil` accepts any,
    /// leaving the decoder to reject what is not an image.
    public var acceptableContentTypes: Set<String>?
    /// Headers sent with every request: by default an image-preferring `Accept` and a
    /// `User-Agent` naming WebImage and its version.
    public var headers: HTTPHeaders = DownloaderConfig.defaultHeaders
    /// Basic-auth credentials sent to the URL's own host (never across a redirect to another host).
    public var credentials: Credentials?
    /// The HTTP proxies requests go through, and the hosts that go direct; `nil` (the
    /// default): every request goes direct. ``DownloaderProxy/fromEnvironment(_:)`` reads
    /// `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`.
    public var proxy: DownloaderProxy?
    /// Extra certificate authorities for origins' certificates and a client certificate for
    /// origins that require one; `nil` (the default): the system's authorities, no client
    /// certificate. Read when the downloader is made.
    public var tls: DownloaderTLS?
    /// Progress callbacks come at most this often, except the last one. Default 0.1 s.
    public var minimumProgressInterval: Duration = .milliseconds(100)
    /// Changes every request before it is sent.
    public var requestModifier: RequestModifier?
    /// Changes every response head before it is checked.
    public var responseModifier: ResponseModifier?
    /// Transforms every downloaded body.
    public var decryptor: Decryptor?
    /// Vetoes a URL before each hop (the first request and every redirect) by throwing.
    /// The image proxy's source guard plugs in here.
    public var hopGuard: (@Sendable (URL) async throws -> Void)?
    /// Vetoes a redirect before it is followed, by throwing: called with the URL the
    /// redirect leads to and the URL the download started from, so that a guard can hold a
    /// download to where its first URL was allowed to go. ``hopGuard`` is asked about the
    /// redirect's URL after it.
    public var redirectGuard: (@Sendable (_ target: URL, _ original: URL) async throws -> Void)?
    /// Chooses the IP address each hop connects to, after ``hopGuard`` approved it: an
    /// IPv4 or IPv6 address connects there instead of resolving the URL's host; `nil`
    /// resolves the host as usual; throwing refuses the hop like ``hopGuard``. It is asked
    /// on every hop (the first request and every redirect) with the URL the request goes
    /// to, after the request modifier.
    ///
    /// The request still names the URL's host (the `Host` header, the TLS server name and
    /// the certificate check), so a caller that resolved and checked the host itself can
    /// pin the connection to the address it checked: a second DNS answer (DNS rebinding)
    /// cannot send the request elsewhere.
    ///
    /// Pinned hops share keep-alive connections by host and address: the downloader keeps
    /// one client (its own settings, connecting to that address for that host) per host
    /// and address chosen, and a hop only uses the one for the address chosen for that
    /// hop. A host whose address changes is fetched over new connections to the new
    /// address. See ``pinnedClientIdleLifetime`` and ``maxPinnedClients``. An address equal
    /// to the URL's own IP literal uses the downloader's usual client.
    public var hopAddress: (@Sendable (URL) async throws -> String?)?
    /// How long the client of a host and address chosen by ``hopAddress``, with its
    /// keep-alive connections, stays after its last request: the lifetime of a DNS answer's
    /// connections. A hop after that connects anew, even to the same address, and
    /// connections to an address no longer chosen close that long after their last use.
    /// Default 60 s. Read when the downloader is made.
    public var pinnedClientIdleLifetime: Duration = .seconds(60)
    /// The most clients of hosts and addresses chosen by ``hopAddress`` kept at once
    /// (at least 1); a new one pushes out the least recently used, which shuts down once its
    /// requests end. Default 64. Read when the downloader is made.
    public var maxPinnedClients: Int = 64

    /// Creates the default configuration.
    public init() {}

    /// `Accept` preferring images, and `User-Agent: WebImage/<version>`.
    public static let defaultHeaders: HTTPHeaders = [
        "Accept": "image/avif,image/webp,image/apng,image/*,*/*;q=0.8",
        "User-Agent": "WebImage/\(WebImageVersion.current) (Swift; Linux)",
    ]
}
