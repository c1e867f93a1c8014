import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("FileLoader: a file that cannot be read")
struct FileLoaderMissingFileTests {
    /// A fresh directory, removed after `body`.
    func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-missing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    @Test("a missing file fails as a missing file naming its path, through the loader and through a manager")
    func missingFile() async throws {
        try await withDirectory { directory in
            let missing = directory.appendingPathComponent("missing.jpg")
            let expected = ImageError.notFound("the file \(missing.path) does not exist; check the path")
            await #expect(throws: expected) {
                try await FileLoader().load(missing, options: DownloadOptions(), progress: nil)
            }
            let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoadersManager())
            await #expect(throws: expected) { try await manager.loadImage(from: missing) }
            #expect(expected.description == "not found: the file \(missing.path) does not exist; check the path")
            #expect(!expected.description.contains("invalid URL"))
        }
    }

    @Test("a file under a missing directory, and a directory, fail naming the path")
    func missingDirectoryAndDirectory() async throws {
        try await withDirectory { directory in
            let nested = directory.appendingPathComponent("gone/a.png")
            await #expect(throws: ImageError.notFound("the file \(nested.path) does not exist; check the path")) {
                try await FileLoader().load(nested, options: DownloadOptions(), progress: nil)
            }
            await #expect(throws: ImageError.notFound("\(directory.path) is not a regular file (a directory?); name an image file")) {
                try await FileLoader().load(directory, options: DownloadOptions(), progress: nil)
            }
        }
    }

    @Test("a file without read permission fails naming its path and the permissions", .enabled(if: getuid() != 0, "root reads any file"))
    func unreadableFile() async throws {
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("locked.png")
            try TestImages.encode(try TestImages.quadrants(width: 4, height: 4), as: .png).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.path)
            do throws(ImageError) {
                _ = try await FileLoader().load(file, options: DownloadOptions(), progress: nil)
                Issue.record("read a file without permission")
            } catch {
                guard case .notFound(let reason) = error else { Issue.record("expected notFound, got \(error)"); return }
                #expect(reason.hasPrefix("the file \(file.path) is not readable"))
                #expect(reason.hasSuffix("; check its permissions"))
            }
        }
    }
}
