import Foundation
import NIOHTTP1

/// Loads `file:` URLs from the local file system, without touching the network.
public struct FileLoader: ImageLoader {
    /// The largest file it reads, in bytes. Default 100 MB.
    public var maxFileSize: Int

    /// Creates a file loader.
    public init(maxFileSize: Int = 100 * 1024 * 1024) {
        self.maxFileSize = maxFileSize
    }

    public func canLoad(_ url: URL) -> Bool { url.isFileURL }

    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        guard url.isFileURL else { throw .invalidURL(url.absoluteString) }
        if Task.isCancelled { throw .cancelled }
        let path = url.path
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        } catch {
            throw .invalidURL("\(url.absoluteString): no readable file at \(path)")
        }
        guard size <= maxFileSize else { throw .bodyTooLarge(limit: maxFileSize) }
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw .invalidURL("\(url.absoluteString): cannot read \(path): \(error.localizedDescription)")
        }
        guard !data.isEmpty else { throw .badImageData("the file \(path) is empty") }
        progress?(DownloadProgress(receivedBytes: data.count, expectedBytes: data.count, partialData: options.wantsPartialData ? data : nil))
        let headers: HTTPHeaders = ["Content-Length": String(data.count)]
        return DownloadResponse(data: data, head: DownloadResponseHead(url: url, statusCode: 200, headers: headers))
    }
}
