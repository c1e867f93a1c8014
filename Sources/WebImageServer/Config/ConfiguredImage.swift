import Foundation
import WebImage

/// An image the server is configured with, the watermark or the fallback image: the first
/// given of its base64 data, its file path and its URL.
struct ConfiguredImage: Sendable {
    /// Where the bytes come from.
    enum Source: Sendable {
        case data(String)
        case path(String)
        case url(URL)
    }

    /// What the image is for, with the settings that give it: for messages.
    enum Purpose: String, Sendable {
        case watermark
        case fallback = "fallback image"

        /// The flags and variables of the three sources.
        var settings: String {
            switch self {
            case .watermark: "--watermark-data, --watermark-path, --watermark-url"
            case .fallback: "--fallback-image-data, --fallback-image-path, --fallback-image-url"
            }
        }
    }

    let source: Source
    let purpose: Purpose

    /// The configured image for `purpose`, if any.
    static func configured(_ purpose: Purpose, in config: ServerConfig) -> ConfiguredImage? {
        let (data, path, url) = switch purpose {
        case .watermark: (config.encoding.watermarkData, config.encoding.watermarkPath, config.encoding.watermarkURL)
        case .fallback: (config.sources.fallbackImageData, config.sources.fallbackImagePath, config.sources.fallbackImageURL)
        }
        if let data { return ConfiguredImage(source: .data(data), purpose: purpose) }
        if let path { return ConfiguredImage(source: .path(path), purpose: purpose) }
        if let url, let parsed = URL(string: url) { return ConfiguredImage(source: .url(parsed), purpose: purpose) }
        return nil
    }

    /// Whether the image is read without the network (and so while the server is created).
    var isLocal: Bool {
        if case .url = source { return false }
        return true
    }

    /// Standard or URL-safe base64, padding optional, line breaks and spaces ignored.
    static func decodeBase64(_ text: String) -> Data? {
        var normalised = String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalised.hasSuffix("=") { normalised.removeLast() }
        normalised += String(repeating: "=", count: (4 - normalised.count % 4) % 4)
        guard !normalised.isEmpty, let data = Data(base64Encoded: normalised) else { return nil }
        return data
    }

    /// The image's bytes: decoded, read from the file, or downloaded with `downloader`.
    func bytes(downloader: ImageDownloader) async throws(ServerConfigError) -> Data {
        guard case .url(let url) = source else { return try localBytes() }
        do {
            return try await downloader.load(url, options: DownloadOptions(), progress: nil).data
        } catch {
            throw ServerConfigError("the \(purpose.rawValue) could not be downloaded from \(url.absoluteString): \(error) (\(purpose.settings))")
        }
    }

    /// The bytes of a `data` or `path` source.
    func localBytes() throws(ServerConfigError) -> Data {
        switch source {
        case .data(let text):
            guard let data = Self.decodeBase64(text) else {
                throw ServerConfigError("the \(purpose.rawValue) data is not base64 (\(purpose.settings))")
            }
            return data
        case .path(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ServerConfigError("the \(purpose.rawValue) file '\(path)' cannot be read (\(purpose.settings))")
            }
            return data
        case .url(let url):
            throw ServerConfigError("the \(purpose.rawValue) at \(url.absoluteString) must be downloaded (\(purpose.settings))")
        }
    }
}
