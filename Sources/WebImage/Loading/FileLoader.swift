#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOHTTP1

/// Loads `file:` URLs from the local file system, without touching the network.
///
/// A file that does not exist, is not a regular file or cannot be read fails with
/// ``ImageError/notFound(_:)`` naming its path.
public struct FileLoader: ImageLoader {
    /// The largest file it reads, in bytes. Default 100 MB.
    public var maxFileSize: Int

    /// Creates a file loader.
    public init(maxFileSize: Int = 100 * 1024 * 1024) {
        self.maxFileSize = maxFileSize
    }

    /// Whether `url` is a `file:` URL.
    public func canLoad(_ url: URL) -> Bool { url.isFileURL }

    /// Reads the regular file at `url`'s path, up to ``maxFileSize`` bytes; a missing,
    /// unreadable or empty file fails with an ``ImageError`` naming its path.
    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        guard url.isFileURL else { throw .invalidURL(url.absoluteString) }
        if Task.isCancelled { throw .cancelled }
        let path = url.path
        var status = stat()
        guard stat(path, &status) == 0 else {
            let reason = errno == ENOENT || errno == ENOTDIR ? "does not exist" : "cannot be reached (\(String(cString: strerror(errno))))"
            throw .notFound("the file \(path) \(reason); check the path")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw .notFound("\(path) is not a regular file (a directory?); name an image file")
        }
        guard Int(status.st_size) <= maxFileSize else { throw .bodyTooLarge(limit: maxFileSize) }
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            let reason = access(path, R_OK) == 0 ? error.localizedDescription : String(cString: strerror(errno))
            throw .notFound("the file \(path) is not readable (\(reason)); check its permissions")
        }
        guard !data.isEmpty else { throw .badImageData("the file \(path) is empty") }
        return .whole(data, from: url, options: options, progress: progress)
    }
}
