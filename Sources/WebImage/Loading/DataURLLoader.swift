import Foundation
import NIOHTTP1

/// Decodes `data:` URLs (RFC 2397), base64 or percent-encoded, without any I/O.
public struct DataURLLoader: ImageLoader {
    /// Creates a data URL loader.
    public init() {}

    /// Whether `url` is a `data:` URL.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == "data" }

    /// Returns the bytes and media type `url` carries, without any I/O; a URL without bytes
    /// fails with ``ImageError/badImageData(_:)``.
    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        let (mediaType, data) = try Self.parse(url.absoluteString)
        guard !data.isEmpty else { throw .badImageData("the data URL carries no bytes") }
        return .whole(data, from: url, mediaType: mediaType, options: options, progress: progress)
    }

    /// Splits `data:[<media type>][;base64],<data>` into its media type and bytes.
    static func parse(_ string: String) throws(ImageError) -> (mediaType: String, data: Data) {
        guard string.count > 5, string.prefix(5).lowercased() == "data:", let comma = string.firstIndex(of: ",") else {
            throw .invalidURL("\(string.prefix(64)): a data URL needs the form data:[type][;base64],<data>")
        }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma]
        let payload = String(string[string.index(after: comma)...])
        let parameters = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let isBase64 = parameters.last?.lowercased() == "base64"
        let mediaType = parameters.first.flatMap { $0.contains("/") ? $0.lowercased() : nil } ?? "text/plain"
        if isBase64 {
            let cleaned = (payload.removingPercentEncoding ?? payload).filter { !$0.isWhitespace }
            let padded = cleaned + String(repeating: "=", count: (4 - cleaned.count % 4) % 4)
            guard let data = Data(base64Encoded: padded) else {
                throw .badImageData("the data URL's base64 payload is not valid base64")
            }
            return (mediaType, data)
        }
        return (mediaType, try percentDecoded(payload))
    }

    /// Percent-decodes to bytes (not to a string: the payload may be binary).
    private static func percentDecoded(_ text: String) throws(ImageError) -> Data {
        guard let bytes = PercentDecoding.bytes(text.utf8) else {
            throw .badImageData("the data URL's payload has invalid percent-encoding")
        }
        return Data(bytes)
    }
}
