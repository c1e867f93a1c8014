import Foundation
import WebImage

/// The proxy's protection against server-side request forgery.
///
/// - ``checkPolicy(_:)`` runs once per request on the source URL (normalised,
///   ``SourceURLNormalization``): only `http` and `https`
///   (and `local` when a local file-system root is configured, `s3` when S3 sources are
///   on, `gs` when GCS sources are), no credentials in the URL, `s3://` and `gs://` buckets
///   held to their allowed and denied lists,
///   and (when configured) one of the allowed prefixes, which ``checkRedirect(to:from:)``
///   holds on every redirect too. A `local://` path with `.`, `..`
///   (also percent-encoded) or a host is refused here, before any file is touched; the
///   ``RootedFileLoader`` refuses symbolic links out of the root when it opens the file.
///   A refusal answers 404, as if the image did not exist.
/// - ``address(for:)`` runs on every hop the downloader makes, redirects included: the
///   host is resolved here and refused (403) if ANY of its addresses is loopback, private,
///   link-local, carrier-grade NAT, unspecified, multicast or reserved (IPv4-mapped and
///   IPv4-compatible IPv6 addresses count as the IPv4 address they carry), unless the
///   configuration allows that kind. The downloader then connects to the address checked
///   here (``DownloaderConfig/hopAddress``), so a second DNS answer cannot redirect it.
///   The S3 and GCS endpoints the server's settings name (and GCS's token endpoint) are
///   trusted by them: the requests of `s3://` and `gs://` sources reach them on any address
///   (``address(for:trusting:)``), while a source URL naming the same host is checked like
///   any other.
///
/// Connections stay pooled: the downloader keeps keep-alive connections per host and
/// approved address, and a hop uses only those of the address approved for that hop. As
/// the host's answer is checked again on every hop (``HostResolver`` looks it up again
/// after a few seconds), a host whose answer turns to a refused address is refused before
/// any request, and one whose answer turns to another allowed address is fetched over a
/// new connection to that address.
struct SourceGuard: Sendable {
    /// Allowed source patterns (prefixes, `*` within one path segment); empty allows every source.
    let allowedPrefixes: [SourcePattern]
    /// The loader of `local://` sources; `nil`: such sources are refused.
    let localFiles: RootedFileLoader?
    /// Kinds of address allowed besides ``IPCategory/global``.
    let allowedCategories: Set<IPCategory>
    /// Whether `s3://` sources are loaded (their requests go to the S3 endpoint, whose
    /// address ``address(for:)`` checks like any other).
    let allowsS3: Bool
    /// The only buckets `s3://` sources may name; empty: any.
    let allowedBuckets: Set<String>
    /// Buckets `s3://` sources may not name.
    let deniedBuckets: Set<String>
    /// Whether `gs://` sources are loaded (their requests go to the GCS endpoint, whose
    /// address ``address(for:)`` checks like any other).
    let allowsGCS: Bool
    /// The only buckets `gs://` sources may name; empty: any.
    let gcsAllowedBuckets: Set<String>
    /// Buckets `gs://` sources may not name.
    let gcsDeniedBuckets: Set<String>
    /// Resolves a host name; the server's ``HostResolver`` unless a test replaces it.
    let resolve: @Sendable (String) async throws(ImageError) -> [IPAddress]

    /// The guard of a server with these source settings.
    /// - Parameters:
    ///   - sources: the allowed sources, the kinds of address allowed, and the `s3://` and `gs://` buckets.
    ///   - localFiles: the loader of `local://` sources; `nil`: such sources are refused.
    ///   - resolve: resolves a host name; the system's resolver by default.
    init(
        sources: ServerConfig.Sources,
        localFiles: RootedFileLoader? = nil,
        resolve: @escaping @Sendable (String) async throws(ImageError) -> [IPAddress] = { host throws(ImageError) in
            try await HostResolver.system.resolve(host)
        }
    ) {
        self.allowedPrefixes = sources.allowedSources.map(SourcePattern.init)
        self.localFiles = localFiles
        self.allowsS3 = sources.useS3
        self.allowedBuckets = Set(sources.s3AllowedBuckets)
        self.deniedBuckets = Set(sources.s3DeniedBuckets)
        self.allowsGCS = sources.useGCS
        self.gcsAllowedBuckets = Set(sources.gcsAllowedBuckets)
        self.gcsDeniedBuckets = Set(sources.gcsDeniedBuckets)
        var categories: Set<IPCategory> = [.global]
        if sources.allowLoopback { categories.insert(.loopback) }
        if sources.allowPrivate { categories.formUnion([.privateNetwork, .sharedCGNAT]) }
        if sources.allowLinkLocal { categories.insert(.linkLocal) }
        self.allowedCategories = categories
        self.resolve = resolve
    }

    /// Scheme, credentials and allowlist checks on the requested source.
    func checkPolicy(_ url: URL) throws(ProxyError) {
        let scheme = url.scheme?.lowercased() ?? ""
        if let localFiles, scheme == localFiles.scheme {
            do {
                _ = try localFiles.relativePath(of: url)
            } catch {
                throw ProxyError(error)
            }
        } else if scheme == "local" {
            throw ProxyError(status: 404, message: "local:// sources are off: start the server with \(ServerSetting.localFilesystemRoot.names) to serve files from a directory", kind: .invalidSourceURL)
        } else if scheme == "s3" {
            guard allowsS3 else {
                throw ProxyError(status: 404, message: "s3:// sources are off: start the server with \(ServerSetting.useS3.names) on to load them", kind: .invalidSourceURL)
            }
            let location: S3ObjectLocation
            do throws(ImageError) {
                location = try S3ObjectLocation(url: url)
            } catch {
                throw ProxyError(status: 404, message: error.description, kind: .invalidSourceURL)
            }
            if (!allowedBuckets.isEmpty && !allowedBuckets.contains(location.bucket)) || deniedBuckets.contains(location.bucket) {
                throw ProxyError(status: 404, message: "the S3 bucket '\(location.bucket)' is not allowed (\(ServerSetting.s3AllowedBucket.names), \(ServerSetting.s3DeniedBucket.names))", kind: .invalidSourceURL)
            }
            guard url.user == nil, url.password == nil else {
                throw ProxyError(status: 404, message: "source URLs with credentials (user:password@) are not allowed", kind: .invalidSourceURL)
            }
        } else if scheme == "gs" {
            try checkGCSPolicy(url)
        } else {
            guard scheme == "http" || scheme == "https" else {
                let others = (localFiles == nil ? "" : ", local:// files") + (allowsS3 ? ", s3:// objects" : "") + (allowsGCS ? ", gs:// objects" : "")
                throw ProxyError(status: 404, message: "source scheme '\(scheme)' is not allowed: only http and https sources are fetched\(others)", kind: .invalidSourceURL)
            }
            guard url.user == nil, url.password == nil else {
                throw ProxyError(status: 404, message: "source URLs with credentials (user:password@) are not allowed", kind: .invalidSourceURL)
            }
        }
        guard isAllowedSource(url.absoluteString) else {
            throw ProxyError(status: 404, message: "source \(url.absoluteString.prefix(200)) is not under an allowed source prefix", kind: .invalidSourceURL)
        }
    }

    /// The checks of a `gs://` source: GCS sources on, a bucket and an object, the bucket
    /// allowed, no credentials in the URL.
    private func checkGCSPolicy(_ url: URL) throws(ProxyError) {
        guard allowsGCS else {
            throw ProxyError(status: 404, message: "gs:// sources are off: start the server with \(ServerSetting.useGCS.names) on to load them", kind: .invalidSourceURL)
        }
        let location: GCSObjectLocation
        do throws(ImageError) {
            location = try GCSObjectLocation(url: url)
        } catch {
            throw ProxyError(status: 404, message: error.description, kind: .invalidSourceURL)
        }
        if (!gcsAllowedBuckets.isEmpty && !gcsAllowedBuckets.contains(location.bucket)) || gcsDeniedBuckets.contains(location.bucket) {
            throw ProxyError(
                status: 404, message: "the GCS bucket '\(location.bucket)' is not allowed (\(ServerSetting.gcsAllowedBucket.names), \(ServerSetting.gcsDeniedBucket.names))",
                kind: .invalidSourceURL
            )
        }
        guard url.user == nil, url.password == nil else {
            throw ProxyError(status: 404, message: "source URLs with credentials (user:password@) are not allowed", kind: .invalidSourceURL)
        }
    }

    /// Whether `text` is under an allowed prefix, however an origin reads its path
    /// (``SourceURLNormalization/checkedForms(of:)``); `true` when every source is allowed.
    func isAllowedSource(_ text: String) -> Bool {
        guard !allowedPrefixes.isEmpty else { return true }
        return SourceURLNormalization.checkedForms(of: text).allSatisfy { form in
            let source = Self.normalized(form)  // once, not once per prefix
            return allowedPrefixes.contains { $0.matches(source) }
        }
    }

    /// Refuses a redirect of a source's download out of the allowed sources. A download
    /// that did not start under an allowed prefix is not a source's (the S3 endpoint's,
    /// the watermark's): its redirects are not the allowed sources' business.
    func checkRedirect(to target: URL, from original: URL) throws(ImageError) {
        guard !allowedPrefixes.isEmpty, isAllowedSource(original.absoluteString), !isAllowedSource(target.absoluteString) else { return }
        throw .forbiddenSource("the source \(original.absoluteString.prefix(200)) redirects to \(target.absoluteString.prefix(200)), which is not under an allowed source prefix")
    }

    /// The address a hop to `url` connects to, after checking every address of its host
    /// (checked afresh on each call). Throws ``ImageError/forbiddenSource(_:)`` for a
    /// refused address or scheme.
    func address(for url: URL) async throws(ImageError) -> String {
        try await address(for: url, trusting: [])
    }

    /// The address a hop to `url` connects to: for a hop to one of `endpoints` (the S3 and
    /// GCS endpoints the server's settings name, GCS's token endpoint), any address of its
    /// host, loopback and private ones too; for any other, one after checking every address
    /// of its host as ``address(for:)`` does.
    func address(for url: URL, trusting endpoints: [TrustedEndpoint]) async throws(ImageError) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw .forbiddenSource("\(url.absoluteString.prefix(200)): only http and https sources are fetched")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .forbiddenSource("\(url.absoluteString.prefix(200)) has no host")
        }
        let addresses: [IPAddress]
        if let literal = IPAddress(parsing: host) {
            addresses = [literal]
        } else {
            addresses = try await resolve(host)
        }
        guard !addresses.isEmpty else { throw .network("\(host) has no address") }
        if !endpoints.contains(where: { $0.covers(url) }) {
            for address in addresses {
                let category = address.category
                guard allowedCategories.contains(category) else {
                    throw .forbiddenSource(
                        "\(host) resolves to \(address), a \(category.rawValue) address; such sources are refused unless the server allows them"
                    )
                }
            }
        }
        // Prefer IPv4: the address every host on the way can reach.
        let chosen = addresses.first(where: \.isIPv4) ?? addresses[0]
        return chosen.description
    }

    /// Scheme and host lower-cased, the rest as given, so that a prefix compares with
    /// `HTTPS://Example.com/…` as with `https://example.com/…`.
    static func normalized(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = text[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? text.endIndex
        return text[..<authorityEnd].lowercased() + text[authorityEnd...]
    }

    /// Why an allowed-source prefix cannot be used, or `nil` when it is fine: it must be an
    /// http(s) URL with a host, and end with `/` after the host, or `https://example.com`
    /// would also allow `https://example.com.evil.org`; or an `s3://` or `gs://` URL with a
    /// bucket and the `/` after it (`s3://photos/`); or a `local:///` prefix. A `*` stands for any
    /// characters but `/` (``SourcePattern``).
    static func problem(withPrefix prefix: String) -> String? {
        if prefix.lowercased().hasPrefix("local:///") { return nil }
        // `*` is not a host character: check the pattern with a letter in its place.
        let sample = prefix.replacing("*", with: "x")
        guard let url = URL(string: sample), let scheme = url.scheme?.lowercased(), ["http", "https", "s3", "gs"].contains(scheme),
              let host = url.host, !host.isEmpty
        else {
            return "allowed source '\(prefix)' is not an http(s) URL with a host, e.g. https://images.example.com/ (or an s3://<bucket>/, gs://<bucket>/ or local:/// prefix)"
        }
        if url.path.isEmpty, !prefix.hasSuffix("/") {
            let isBucket = scheme == "s3" || scheme == "gs"
            return "allowed source '\(prefix)' must end with '/' after the \(isBucket ? "bucket" : "host") (\(prefix)/), or it would also allow \(prefix)\(isBucket ? "-other" : ".evil.example")"
        }
        return nil
    }
}
