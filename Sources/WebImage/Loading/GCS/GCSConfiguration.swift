import Foundation

/// Where and how ``GCSImageLoader`` reaches Cloud Storage: the endpoint and the credentials.
public struct GCSConfiguration: Sendable {
    /// The server, e.g. `https://storage.googleapis.com` or `http://127.0.0.1:4443`; a value
    /// without a scheme is taken as `https://`. A path ending in `/storage/v1` (the form
    /// Google's client libraries take, e.g. imgproxy's `IMGPROXY_GCS_ENDPOINT`) names the same
    /// server: objects are read from `<endpoint>/storage/v1/b/<bucket>/o/<object>?alt=media`.
    public var endpoint: String
    /// How requests are authenticated; `nil`: they are not, which only public objects answer.
    public var credentials: GCSCredentials?

    /// GCS's own endpoint.
    public static let defaultEndpoint = "https://storage.googleapis.com"

    /// Creates a configuration.
    public init(endpoint: String = GCSConfiguration.defaultEndpoint, credentials: GCSCredentials? = nil) {
        self.endpoint = endpoint
        self.credentials = credentials
    }

    /// The endpoint's scheme, host, port and base path, without a `/storage/v1` suffix or a
    /// trailing `/`, e.g. `http://127.0.0.1:4443`.
    /// - Throws: ``ImageError/invalidURL(_:)`` when the endpoint is not an http(s) URL with a host.
    public func serverURL() throws(ImageError) -> URL {
        let trimmed = endpoint.trimmingCharacters(in: .whitespaces)
        let lowered = trimmed.lowercased()
        let text = lowered.hasPrefix("http://") || lowered.hasPrefix("https://") ? trimmed : "https://" + trimmed
        guard var components = URLComponents(string: text), let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil
        else {
            throw .invalidURL("the GCS endpoint '\(endpoint.prefix(200))' is not a URL with a host, e.g. https://storage.googleapis.com or http://127.0.0.1:4443")
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        if path.lowercased().hasSuffix("/storage/v1") { path.removeLast("/storage/v1".count) }
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path
        guard let url = components.url else {
            throw .invalidURL("the GCS endpoint '\(endpoint.prefix(200))' is not a URL with a host, e.g. https://storage.googleapis.com")
        }
        return url
    }

    /// The JSON API's media download URL of `location`:
    /// `<server>/storage/v1/b/<bucket>/o/<object>?alt=media[&generation=<n>]`, the bucket and
    /// the object's name each one percent-encoded path segment (a `/` in the name is `%2F`).
    func mediaURL(for location: GCSObjectLocation) throws(ImageError) -> URL {
        let server = try serverURL()
        let path = "/storage/v1/b/\(AWSURIEncoding.encode(location.bucket))/o/\(AWSURIEncoding.encode(location.name))"
        let query = "alt=media" + (location.generation.map { "&generation=\($0)" } ?? "")
        guard let url = URL(string: server.absoluteString + path + "?" + query) else {
            throw .invalidURL("\(location): cannot make a GCS request URL of it")
        }
        return url
    }

    /// The configuration of the S3 loader that reads GCS's XML API with `hmacKey`, at this
    /// endpoint's server.
    func interoperability(hmacKey: AWSCredentials) throws(ImageError) -> S3Configuration {
        .googleCloudStorage(hmacKey: hmacKey, endpoint: try serverURL().absoluteString)
    }
}
