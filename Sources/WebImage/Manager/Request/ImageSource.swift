import Foundation

/// Where the bytes of an ``ImageRequest`` come from.
public enum ImageSource: Sendable {
    /// A URL, fetched by the request's loader: `http(s)`, `file`, `data`, or any scheme a
    /// loader of yours handles (``ImageLoaders``).
    case url(URL)
    /// Bytes your own closure produces, cached and coalesced under `key` like a URL's
    /// (Nuke's `ImageRequest(id:data:)`): requests with the same key share one call of
    /// `load`, and its bytes are kept under `key` in the caches. The download settings of
    /// the request (modifiers, cookies, certificates, its loader) do not apply to it.
    case custom(key: String, load: @Sendable () async throws(ImageError) -> Data)

    /// The URL results and failures are reported under: the URL itself, or for a custom
    /// source `webimage-custom:` followed by its key, percent-encoded.
    public var url: URL {
        switch self {
        case .url(let url):
            return url
        case .custom(let key, _):
            let escaped = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
            return URL(string: "webimage-custom:" + escaped) ?? URL(string: "webimage-custom:")!
        }
    }

    /// Whether the source is a URL (and the request's download settings apply to it).
    public var isURL: Bool {
        if case .url = self { return true }
        return false
    }
}
