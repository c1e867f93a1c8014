import Foundation

/// Fetches the bytes behind a URL (SDImageLoader's counterpart).
///
/// ``ImageDownloader`` handles `http` and `https`, ``FileLoader`` `file`, ``DataURLLoader``
/// `data`; ``ImageLoaders`` tries several in a fixed order, and ``ImageLoadersManager`` is
/// a list of loaders that can gain one at run time.
public protocol ImageLoader: Sendable {
    /// Whether this loader handles `url`.
    func canLoad(_ url: URL) -> Bool
    /// Loads `url`. Cancelling the calling task cancels the load with ``ImageError/cancelled``.
    func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse
}

/// Several loaders, asked in order: a fixed chain. ``ImageLoadersManager`` is the list
/// that can change at run time (SDImageLoadersManager's counterpart).
public struct ImageLoaders: ImageLoader {
    /// The loaders, first match wins.
    public var loaders: [any ImageLoader]

    /// Creates a chain of loaders.
    public init(_ loaders: [any ImageLoader]) {
        self.loaders = loaders
    }

    /// Whether any of the ``loaders`` handles `url`.
    public func canLoad(_ url: URL) -> Bool { loaders.contains { $0.canLoad(url) } }

    /// Loads `url` with the first of the ``loaders`` that handles it; without one,
    /// fails with ``ImageError/invalidURL(_:)``.
    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        guard let loader = loaders.first(where: { $0.canLoad(url) }) else {
            throw .invalidURL(url.absoluteString)
        }
        return try await loader.load(url, options: options, progress: progress)
    }
}
