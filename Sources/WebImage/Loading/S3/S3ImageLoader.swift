import Foundation
import NIOHTTP1

/// Loads `s3://<bucket>/<key>[?<version ID>]` URLs from S3 or an S3-compatible server,
/// signing each request with AWS Signature Version 4 (``SigV4Signer``) and the credentials
/// of the configuration's provider (``AWSCredentialsProvider``), asked before each load.
///
/// The requests go through an ``ImageDownloader`` like any download: its connection pool,
/// timeouts, body size limit, request modifier, hop guard and ``DownloaderConfig/hopAddress``
/// (so a source guard approves the address each request connects to) apply to them.
///
///     let s3 = S3ImageLoader(configuration: try .fromEnvironment())
///     let manager = ImageManager(loader: ImageLoaders([s3, ImageDownloader.shared]))
///     let result = try await manager.loadImage(from: URL(string: "s3://photos/cats/tom.jpg")!)
///
/// Failures say what to fix: a missing bucket, object or version is
/// ``ImageError/notFound(_:)``; refused credentials or signature (S3's `403`) is
/// ``ImageError/accessDenied(_:)`` with S3's error code (`InvalidAccessKeyId`,
/// `SignatureDoesNotMatch`, `AccessDenied`, …). A bucket that S3 says is in another region
/// is asked again, once, signed for that region, which is then remembered.
public struct S3ImageLoader: ImageLoader {
    /// The endpoint, region, addressing style and credentials provider.
    public let configuration: S3Configuration
    /// The downloader the requests go through.
    public let downloader: ImageDownloader
    /// The signing time; the clock unless a test fixes it.
    let now: @Sendable () -> Date
    private let bucketRegions = S3BucketRegions()

    /// Creates a loader.
    /// - Parameters:
    ///   - configuration: where S3 is and the credentials to sign with.
    ///   - downloader: the downloader the requests go through (its limits and hooks apply).
    public init(configuration: S3Configuration, downloader: ImageDownloader = .shared) {
        self.init(configuration: configuration, downloader: downloader, now: { Date() })
    }

    init(configuration: S3Configuration, downloader: ImageDownloader, now: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.downloader = downloader
        self.now = now
    }

    /// Whether `url` is an `s3:` URL.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == "s3" }

    /// Fetches the object `url` names with a signed `GET` through ``downloader``; a bucket S3
    /// places in another region is asked once more, signed for that region.
    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        let location = try S3ObjectLocation(url: url)
        var region = bucketRegions.region(of: location.bucket) ?? configuration.region
        let credentials = try await configuration.credentialsProvider?.credentials()
        var askedAgain = false
        while true {
            let response = try await fetch(location, region: region, credentials: credentials, options: options, progress: progress)
            let status = response.head.statusCode
            if (200..<300).contains(status) {
                return DownloadResponse(data: response.data, head: DownloadResponseHead(url: url, statusCode: status, headers: response.head.headers))
            }
            let document = S3ErrorDocument(response.data)
            if !askedAgain, let other = Self.bucketRegion(response.head, document), other != region {
                askedAgain = true
                region = other
                bucketRegions.remember(other, for: location.bucket)
                continue
            }
            throw error(status: status, document: document, location: location, region: region, credentials: credentials)
        }
    }

    /// One `GET` of `location` in `region`, signed with `credentials` (unsigned without);
    /// error responses come back with their body.
    private func fetch(
        _ location: S3ObjectLocation, region: String, credentials: AWSCredentials?, options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        let request = try configuration.request(for: location, region: region)
        var options = options
        options.returnsErrorResponses = true
        let modifier = options.requestModifier ?? downloader.config.requestModifier
        let signer = credentials.map { SigV4Signer(credentials: $0, region: region, service: "s3") }
        let now = self.now
        options.requestModifier = { described in
            var described = described
            if let modifier {
                guard let modified = await modifier(described) else { return nil }
                described = modified
            }
            // Every hop is signed for the URL it goes to (a redirect's included).
            let signable = described.url == request.url ? request.signable : Self.signable(for: described.url)
            for (name, value) in signable.headers { described.headers.replaceOrAdd(name: name, value: value) }
            if let signer {
                described.headers.remove(name: "Authorization")
                for (name, value) in signer.signedHeaders(for: signable, date: now()) {
                    described.headers.replaceOrAdd(name: name, value: value)
                }
            }
            return described
        }
        return try await downloader.load(request.url, options: options, progress: progress)
    }

    /// What SigV4 signs of a `GET` of `url`: its path and query as text, its `Host`.
    static func signable(for url: URL) -> SigV4Request {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let query = (components?.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        var host = components?.host ?? ""
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let scheme = components?.scheme?.lowercased()
        if let port = components?.port, port != (scheme == "https" ? 443 : 80) { host += ":\(port)" }
        return SigV4Request(method: "GET", path: components?.path ?? "/", query: query, headers: [("host", host)])
    }

    /// The region S3 says the bucket is in, on a wrong-region answer (301, 400).
    private static func bucketRegion(_ head: DownloadResponseHead, _ document: S3ErrorDocument) -> String? {
        guard head.statusCode == 301 || head.statusCode == 400 else { return nil }
        let region = head.headers.first(name: "x-amz-bucket-region") ?? document.region
        return region.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The error for an S3 error response.
    private func error(
        status: Int, document: S3ErrorDocument, location: S3ObjectLocation, region: String, credentials: AWSCredentials?
    ) -> ImageError {
        let reason = document.summary.map { " (\($0))" } ?? ""
        switch status {
        case 404:
            let what: String
            switch document.code {
            case "NoSuchBucket": what = "S3 has no bucket '\(location.bucket)'"
            case "NoSuchVersion": what = "S3 has no version '\(location.versionID ?? "")' of '\(location.key)' in the bucket '\(location.bucket)'"
            default: what = "S3 has no object '\(location.key)' in the bucket '\(location.bucket)'"
            }
            return .notFound("\(location): \(what)\(reason)")
        case 401, 403:
            guard let credentials else {
                return .accessDenied("\(location): S3 refused an unsigned request\(reason); give credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, a role) unless the object is public")
            }
            let advice: String
            switch document.code {
            case "InvalidAccessKeyId":
                advice = "S3 does not know the access key ID \(credentials.accessKeyID); check AWS_ACCESS_KEY_ID or the source the credentials come from"
            case "SignatureDoesNotMatch":
                advice = "S3 refused the signature made with the access key ID \(credentials.accessKeyID); check AWS_SECRET_ACCESS_KEY (or the secret of the credentials' source) and the endpoint"
            case "InvalidToken", "ExpiredToken", "TokenRefreshRequired":
                advice = "S3 refused the session token; renew the temporary credentials (AWS_SESSION_TOKEN)"
            case "RequestTimeTooSkewed":
                advice = "the clock of this machine is too far from S3's; set it right"
            default:
                advice = "S3 refused the credentials of the access key ID \(credentials.accessKeyID) for this object; check that they grant s3:GetObject on it and that the region (\(region)) is the bucket's"
            }
            return .accessDenied("\(location): \(advice)\(reason)")
        case 301, 307:
            return .invalidResponse("\(location): S3 answered HTTP \(status)\(reason): the bucket is in another region or behind another endpoint than region \(region); set the bucket's region")
        case 500..<600:
            return .invalidResponse("\(location): S3 answered HTTP \(status)\(reason)")
        default:
            return .invalidStatusCode(status)
        }
    }
}
