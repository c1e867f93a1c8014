#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOHTTP1

/// Loads files from one directory tree, the root, for URLs of a scheme of its own
/// (`local:///photos/cat.jpg` → `<root>/photos/cat.jpg`), and nothing outside it.
///
/// Unlike ``FileLoader``, which reads any `file:` URL, this loader is safe to put behind
/// URLs that strangers write (an image proxy's `local://` sources):
///
/// - the URL names a path relative to the root: its host must be empty (`local:///…`),
///   and after percent-decoding no path component may be `.` or `..` and no byte may be
///   NUL, so `..`, `%2e%2e` and `%252e%252e` (decoded once by the caller) are all refused
///   with ``ImageError/notFound(_:)``;
/// - the file is opened at its canonical path (every symbolic link resolved), which must
///   lie under the canonical root: a link leading out of the root is refused with
///   ``ImageError/forbiddenSource(_:)``;
/// - a missing file or a directory is ``ImageError/notFound(_:)``;
/// - only a regular file is read: the file is opened without blocking (`O_NONBLOCK`) and
///   checked with `fstat` before a byte is read, so a FIFO, a device or a socket put under
///   the root is refused (``ImageError/notFound(_:)``) instead of hanging the load, and a
///   file another process holds a lease on answers ``ImageError/accessDenied(_:)`` at once.
///
/// Files are opened and read on threads of their own, never on the caller's: a slow disk
/// under the root delays only the loads of its files.
///
/// Loads through an ``ImageManager`` are cached and coalesced like downloads: give the
/// manager `ImageLoaders([rootedLoader, downloader])`.
public struct RootedFileLoader: ImageLoader {
    /// The URL scheme this loader answers, lower-cased (`local`).
    public let scheme: String
    /// The root directory, canonical: absolute, symbolic links resolved, no trailing `/`
    /// (except for `/` itself).
    public let rootPath: String
    /// The largest file it reads, in bytes.
    public var maxFileSize: Int

    /// Creates a loader for the directory at `root`.
    /// - Parameters:
    ///   - root: an existing directory; relative paths are taken from the working directory.
    ///   - scheme: the URL scheme to answer, `local` by default.
    ///   - maxFileSize: the largest file read, in bytes (default 100 MB).
    /// - Throws: ``ImageError/notFound(_:)`` when `root` is not an existing directory.
    public init(root: String, scheme: String = "local", maxFileSize: Int = 100 * 1024 * 1024) throws(ImageError) {
        guard let canonical = Self.canonicalPath(root) else {
            throw .notFound("the root directory '\(root)' does not exist; create it or name an existing directory")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: canonical, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .notFound("the root '\(root)' is not a directory; name a directory")
        }
        self.scheme = scheme.lowercased()
        self.rootPath = canonical
        self.maxFileSize = maxFileSize
    }

    /// Whether `url` has this loader's ``scheme``.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == scheme }

    /// The path `url` names under the root, checked without touching the file system:
    /// percent-decoded, without a leading `/`, e.g. `photos/cat.jpg`.
    /// - Throws: ``ImageError/notFound(_:)`` for a host, an empty path, or a `.`, `..` or
    ///   NUL anywhere in it.
    public func relativePath(of url: URL) throws(ImageError) -> String {
        let shown = url.absoluteString.prefix(200)
        guard url.scheme?.lowercased() == scheme else {
            throw .notFound("\(shown) is not a \(scheme):// URL")
        }
        if let host = url.host(percentEncoded: true), !host.isEmpty {
            throw .notFound("\(shown) names a host ('\(host.prefix(64))'); write \(scheme):///path/under/the/root with three slashes")
        }
        guard let bytes = PercentDecoding.bytes(url.path(percentEncoded: true).utf8),
              let decoded = String(validating: bytes, as: UTF8.self)
        else {
            throw .notFound("\(shown) has a malformed percent escape or is not UTF-8")
        }
        guard !decoded.utf8.contains(0) else { throw .notFound("\(shown) contains a NUL byte") }
        let components = decoded.split(separator: "/", omittingEmptySubsequences: true)
        if components.contains(where: { $0 == ".." || $0 == "." }) {
            throw .notFound("\(shown): '.' and '..' are not allowed in a \(scheme):// path; name the file from the root down")
        }
        guard !components.isEmpty, !decoded.hasSuffix("/") else {
            throw .notFound("\(shown) names a directory, not a file")
        }
        return components.joined(separator: "/")
    }

    /// Reads the file `url` names under ``rootPath``, checked as the type's description says:
    /// a path or a symbolic link leading out of the root is refused.
    public func load(
        _ url: URL,
        options: DownloadOptions,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(ImageError) -> DownloadResponse {
        let relative = try relativePath(of: url)
        if Task.isCancelled { throw .cancelled }
        let data = try await BlockingPools.run(on: BlockingPools.files) { () throws(ImageError) -> Data in
            try self.readFile(relative, of: url)
        }
        return .whole(data, from: url, options: options, progress: progress)
    }

    /// On a file thread: resolves `relative` under the root and reads it.
    private func readFile(_ relative: String, of url: URL) throws(ImageError) -> Data {
        let joined = rootPath == "/" ? "/" + relative : rootPath + "/" + relative
        guard let canonical = Self.canonicalPath(joined) else {
            throw .notFound("no file \(relative) under the root")
        }
        let inside = rootPath == "/" ? canonical.hasPrefix("/") : canonical.hasPrefix(rootPath + "/")
        guard inside else {
            throw .forbiddenSource("\(url.absoluteString.prefix(200)) leads out of the root directory through a symbolic link")
        }
        return try read(canonical, relative: relative)
    }

    /// Reads the regular file at the canonical `path`, refusing a symbolic link put there
    /// since it was resolved (`O_NOFOLLOW`) and anything but a regular file (`O_NONBLOCK`:
    /// opening a FIFO does not wait for a writer).
    private func read(_ path: String, relative: String) throws(ImageError) -> Data {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == EWOULDBLOCK {
                throw .accessDenied("\(relative) under the root is held by another process (a file lease); try again later")
            }
            throw .notFound("cannot open \(relative) under the root: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw .notFound("\(relative) under the root is not a regular file")
        }
        guard Int(status.st_size) <= maxFileSize else { throw .bodyTooLarge(limit: maxFileSize) }
        // The size read above, and one byte more to see a file that grew past it.
        var data = Data(count: Int(status.st_size) + 1)
        var count = 0
        while true {
            if count == data.count {
                guard data.count <= maxFileSize else { throw .bodyTooLarge(limit: maxFileSize) }
                data.count = min(maxFileSize + 1, max(data.count * 2, 64 << 10))
            }
            let read = data.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if read == 0 { break }
            guard read > 0 else {
                if errno == EINTR { continue }
                throw .notFound("cannot read \(relative) under the root: \(String(cString: strerror(errno)))")
            }
            count += read
        }
        guard count <= maxFileSize else { throw .bodyTooLarge(limit: maxFileSize) }
        guard count > 0 else { throw .badImageData("the file \(relative) is empty") }
        data.count = count
        return data
    }

    /// `path` absolute with every symbolic link resolved, or `nil` when it does not exist.
    static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
