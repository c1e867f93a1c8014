import Crypto
import Foundation
import WebImage

/// Where the server's watermark image comes from: the first configured of
/// `--watermark-data` (base64), `--watermark-path` and `--watermark-url`.
enum WatermarkSource: Sendable {
    case data(String)
    case path(String)
    case url(URL)

    /// The configured source, if any.
    static func configured(_ config: ServerConfig) -> WatermarkSource? {
        if let data = config.watermarkData { return .data(data) }
        if let path = config.watermarkPath { return .path(path) }
        if let text = config.watermarkURL, let url = URL(string: text) { return .url(url) }
        return nil
    }

    /// Whether the image is read without the network (and so while the server is created).
    var isLocal: Bool {
        if case .url = self { return false }
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
        guard case .url(let url) = self else { return try localBytes() }
        do {
            return try await downloader.load(url, options: DownloadOptions(), progress: nil).data
        } catch {
            throw ServerConfigError("the watermark could not be downloaded from \(url.absoluteString): \(error) (--watermark-url, WEBIMAGE_WATERMARK_URL)")
        }
    }

    /// The bytes of a `data` or `path` source.
    func localBytes() throws(ServerConfigError) -> Data {
        switch self {
        case .data(let text):
            guard let data = Self.decodeBase64(text) else {
                throw ServerConfigError("the watermark data is not base64 (--watermark-data, WEBIMAGE_WATERMARK_DATA)")
            }
            return data
        case .path(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ServerConfigError("the watermark file '\(path)' cannot be read (--watermark-path, WEBIMAGE_WATERMARK_PATH)")
            }
            return data
        case .url(let url):
            throw ServerConfigError("the watermark at \(url.absoluteString) must be downloaded (--watermark-url, WEBIMAGE_WATERMARK_URL)")
        }
    }

    /// Decodes `data` as the watermark, its first frame only.
    static func watermark(from data: Data, baseOpacity: Double, coder: any ImageCoder) throws(ServerConfigError) -> ProxyWatermark {
        let image: Image
        do {
            image = try coder.decode(data, options: ImageDecodeOptions(firstFrameOnly: true))
        } catch {
            throw ServerConfigError("the watermark is not a usable image: \(error) (--watermark-data, --watermark-path, --watermark-url)")
        }
        let digest = SHA256.hash(data: data).prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
        return ProxyWatermark(image: image, digest: digest, baseOpacity: baseOpacity)
    }
}
