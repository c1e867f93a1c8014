import Foundation

/// An endpoint the server's own settings name (the S3 endpoint of `s3://` sources, the GCS
/// endpoint of `gs://` sources and its key's token endpoint), which the source guard lets
/// the server reach on any address: a MinIO or fake-gcs-server on 127.0.0.1 or 10.x beside
/// the proxy works without allowing loopback or private sources.
struct TrustedEndpoint: Sendable, Equatable {
    /// `http` or `https`.
    let scheme: String
    /// The host, lower-cased.
    let host: String
    /// The port, the scheme's default when the URL gives none.
    let port: Int

    /// The endpoint of `url`; `nil` when it has no http(s) scheme or no host.
    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Whether `url` goes to this endpoint: the same scheme and port, and its host or a
    /// subdomain of it (a bucket addressed in the host name).
    func covers(_ url: URL) -> Bool {
        guard let other = TrustedEndpoint(url), other.scheme == scheme, other.port == port else { return false }
        return other.host == host || (IPAddress(parsing: host) == nil && other.host.hasSuffix("." + host))
    }
}
