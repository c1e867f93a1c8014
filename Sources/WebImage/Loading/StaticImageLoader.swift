import Foundation
import NIOHTTP1
import WebImageLocking

/// Serves bytes held in memory for the URLs it was given, without any I/O: an image a
/// program ships or loads once (a placeholder, a fallback image) that should still go
/// through the manager, and so be decoded, transformed and cached like any other.
///
/// URLs are compared whole. Bytes may be set or replaced at any time; a load of a URL
/// without bytes fails with ``ImageError/notFound(_:)``.
public final class StaticImageLoader: ImageLoader {
    private let images: InlineLocked<[URL: Data]>
    private let scheme: String

    /// A loader for URLs of `scheme` (a scheme of the program's own, such as
    /// `app-image`), holding `images`.
    public init(scheme: String, images: [URL: Data] = [:]) {
        self.scheme = scheme.lowercased()
        self.images = InlineLocked(images)
    }

    /// Sets (or with `nil` removes) the bytes served for `url`.
    public func setData(_ data: Data?, for url: URL) {
        images.withLock { $0[url] = data }
    }

    /// Whether bytes are held for `url`.
    public func hasData(for url: URL) -> Bool {
        images.withLock { $0[url] != nil }
    }

    /// Whether `url` has the scheme this loader was created for, whether or not bytes are held for it.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == scheme }

    /// Returns the bytes held for `url`; fails with ``ImageError/notFound(_:)`` when none are.
    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        guard let data = images.withLock({ $0[url] }) else {
            throw .notFound("no image is held for \(url.absoluteString)")
        }
        return .whole(data, from: url, options: options, progress: progress)
    }
}
