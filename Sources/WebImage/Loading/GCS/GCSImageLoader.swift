import Foundation
import NIOHTTP1

/// Loads `gs://<bucket>/<object>[?<generation>]` URLs from Google Cloud Storage.
///
/// With a service account's key (``GCSCredentials/serviceAccount(_:)``) or no credentials,
/// objects are read through GCS's JSON API
/// (`GET <endpoint>/storage/v1/b/<bucket>/o/<object>?alt=media`); with the key, each request
/// carries an access token of the account (asked for once, kept until a minute before it
/// expires, asked again once when GCS refuses it). With an HMAC key
/// (``GCSCredentials/hmac(_:)``), objects are read through GCS's S3-compatible XML API by an
/// ``S3ImageLoader`` signing with AWS Signature Version 4.
///
/// Every request, the token requests included, goes through an ``ImageDownloader`` like any
/// download: its connection pool, timeouts, body size limit, request modifier, hop guard and
/// ``DownloaderConfig/hopAddress`` apply to them. (A downloader that accepts only some
/// content types, ``DownloaderConfig/acceptableContentTypes``, must accept the token
/// endpoint's `application/json` too.)
///
///     let key = try GCSServiceAccountKey(json: Data(contentsOf: keyFile))
///     let gcs = GCSImageLoader(configuration: GCSConfiguration(credentials: .serviceAccount(key)))
///     let manager = ImageManager(loader: ImageLoaders([gcs, ImageDownloader.shared]))
///     let result = try await manager.loadImage(from: URL(string: "gs://photos/cats/tom.jpg")!)
///
/// Failures say what to fix: a missing bucket, object or generation is
/// ``ImageError/notFound(_:)``; a refused token, account or request is
/// ``ImageError/accessDenied(_:)`` naming the account and GCS's (or the token endpoint's)
/// answer.
public struct GCSImageLoader: ImageLoader {
    /// The endpoint and credentials.
    public let configuration: GCSConfiguration
    /// The downloader the requests go through.
    public let downloader: ImageDownloader
    /// The service account's tokens, shared by copies of the loader.
    let tokens: GCSAccessTokens?

    /// Creates a loader.
    /// - Parameters:
    ///   - configuration: where GCS is and how to authenticate.
    ///   - downloader: the downloader the requests go through (its limits and hooks apply).
    public init(configuration: GCSConfiguration, downloader: ImageDownloader = .shared) {
        self.init(configuration: configuration, downloader: downloader, now: { Date() })
    }

    /// Creates a loader whose token lifetimes are measured by `now` (a test's clock).
    init(configuration: GCSConfiguration, downloader: ImageDownloader, now: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.downloader = downloader
        if case .serviceAccount(let key) = configuration.credentials {
            tokens = GCSAccessTokens(key: key, downloader: downloader, now: now)
        } else {
            tokens = nil
        }
    }

    /// Whether `url` is a `gs:` URL.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == "gs" }

    /// Fetches the object `url` names through ``downloader``.
    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        let location = try GCSObjectLocation(url: url)
        if case .hmac(let key) = configuration.credentials {
            return try await loadThroughXMLAPI(location, url: url, hmacKey: key, options: options, progress: progress)
        }
        let mediaURL = try configuration.mediaURL(for: location)
        var retried = false
        while true {
            let token = try await tokens?.token(for: location)
            let response = try await fetch(mediaURL, token: token, options: options, progress: progress)
            let status = response.head.statusCode
            if (200..<300).contains(status) {
                return DownloadResponse(data: response.data, head: DownloadResponseHead(url: url, statusCode: status, headers: response.head.headers))
            }
            // A kept token GCS no longer takes (revoked, or this machine's clock is off): one
            // new token, one more try.
            if status == 401, let token, let tokens, !retried {
                retried = true
                await tokens.discard(token)
                continue
            }
            throw error(status: status, document: GCSErrorDocument(response.data), location: location)
        }
    }

    /// One `GET` of `mediaURL`, with the bearer token when there is one; error responses come
    /// back with their body.
    private func fetch(
        _ mediaURL: URL, token: String?, options: DownloadOptions, progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        var options = options
        options.returnsErrorResponses = true
        let modifier = options.requestModifier ?? downloader.config.requestModifier
        let host = mediaURL.host?.lowercased()
        options.requestModifier = { described in
            var described = described
            if let modifier {
                guard let modified = await modifier(described) else { return nil }
                described = modified
            }
            described.headers.remove(name: "Authorization")
            // The token goes to GCS's host only, not to a host a redirect names.
            if let token, described.url.host?.lowercased() == host {
                described.headers.add(name: "Authorization", value: "Bearer \(token)")
            }
            return described
        }
        return try await downloader.load(mediaURL, options: options, progress: progress)
    }

    /// The object read through the XML API by an S3 loader signing with `hmacKey`.
    private func loadThroughXMLAPI(
        _ location: GCSObjectLocation, url: URL, hmacKey: AWSCredentials, options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        guard location.generation == nil else {
            throw .invalidURL("\(location): a generation is read through GCS's JSON API; give a service-account key, or no credentials for a public object, instead of an HMAC key")
        }
        let s3 = S3ImageLoader(configuration: try configuration.interoperability(hmacKey: hmacKey), downloader: downloader)
        let object = S3ObjectLocation(bucket: location.bucket, key: location.name)
        guard let s3URL = URL(string: "s3://\(object.bucket)/\(AWSURIEncoding.encode(object.key, keepingSlashes: true))") else {
            throw .invalidURL("\(location): cannot make a request URL of it")
        }
        let response: DownloadResponse
        do throws(ImageError) {
            response = try await s3.load(s3URL, options: options, progress: progress)
        } catch {
            throw Self.xmlAPIError(error, location: location, hmacKey: hmacKey)
        }
        return DownloadResponse(data: response.data, head: DownloadResponseHead(url: url, statusCode: response.head.statusCode, headers: response.head.headers))
    }

    /// The S3 loader's error said of the `gs://` object and the HMAC key.
    private static func xmlAPIError(_ error: ImageError, location: GCSObjectLocation, hmacKey: AWSCredentials) -> ImageError {
        let context = "\(location), read through GCS's XML API with the HMAC key \(hmacKey.accessKeyID)"
        switch error {
        case .notFound(let reason): return .notFound("\(context): \(reason)")
        case .accessDenied(let reason):
            return .accessDenied("\(context): GCS refused the key; check its secret, that it is active, and that its service account may read the object (\(reason))")
        case .invalidResponse(let reason): return .invalidResponse("\(context): \(reason)")
        default: return error
        }
    }

    /// The error for a JSON API error response.
    private func error(status: Int, document: GCSErrorDocument, location: GCSObjectLocation) -> ImageError {
        let reason = document.summary.map { " (\($0))" } ?? ""
        switch status {
        case 404:
            let what = location.generation.map { "GCS has no generation \($0) of '\(location.name)' in the bucket '\(location.bucket)'" }
                ?? "GCS has no object '\(location.name)' in the bucket '\(location.bucket)', or no such bucket"
            return .notFound("\(location): \(what)\(reason)")
        case 401, 403:
            guard let credentials = configuration.credentials else {
                return .accessDenied("\(location): GCS refused an unauthenticated request\(reason); give a service account's key unless the object is public")
            }
            return .accessDenied(
                "\(location): GCS refused the \(credentials) for this object (HTTP \(status))\(reason); "
                    + "check that the account may read it (storage.objects.get, e.g. the role Storage Object Viewer on the bucket)"
            )
        case 500..<600:
            return .invalidResponse("\(location): GCS answered HTTP \(status)\(reason)")
        default:
            return .invalidStatusCode(status)
        }
    }
}
