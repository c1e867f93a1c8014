import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

@Suite("file: and data: loaders")
struct LocalLoadersTests {
    @Test("D19 file URLs load from disk without the network")
    func D19_fileURLs() async throws {
        let png = try TestImages.encode(try TestImages.quadrants(width: 20, height: 10), as: .png)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("q.png")
        try png.write(to: file)

        let response = try await FileLoader().load(file, options: DownloadOptions(), progress: nil)
        #expect(response.data == png)
        await #expect(throws: ImageError.self) {
            try await FileLoader().load(directory.appendingPathComponent("missing.png"), options: DownloadOptions(), progress: nil)
        }

        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([FileLoader(), DataURLLoader()]))
        let result = try await manager.loadImage(from: file)
        #expect(result.image?.pixelSize == PixelSize(width: 20, height: 10))
        #expect(result.cacheType == CacheType.none)
    }

    @Test("D19 data URLs decode inline, base64 or percent-encoded")
    func D19_dataURLs() async throws {
        let png = try TestImages.encode(try TestImages.quadrants(width: 8, height: 8), as: .png)
        let url = URL(string: "data:image/png;base64,\(png.base64EncodedString())")!
        let response = try await DataURLLoader().load(url, options: DownloadOptions(), progress: nil)
        #expect(response.data == png)
        #expect(response.head.mediaType == "image/png")

        let percent = try DataURLLoader.parse("data:,%89PNG%0D%0A")
        #expect(percent.data == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A]))
        #expect(percent.mediaType == "text/plain")
        #expect(throws: ImageError.self) { try DataURLLoader.parse("data:image/png;base64") }
        #expect(throws: ImageError.self) { try DataURLLoader.parse("data:image/png;base64,@@@@") }

        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([FileLoader(), DataURLLoader()]))
        let result = try await manager.loadImage(from: url)
        #expect(result.image?.pixelSize == PixelSize(width: 8, height: 8))
    }
}
