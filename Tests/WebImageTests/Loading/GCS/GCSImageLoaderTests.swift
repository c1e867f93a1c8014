import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// ``GCSImageLoader`` against fake-gcs-server on 127.0.0.1, unauthenticated (the server takes
/// any request).
@Suite("GCS image loader against fake-gcs-server")
struct GCSImageLoaderTests {
    /// A bucket of the test's own holding `objects`; its name and the objects' generations.
    private func bucket(
        _ server: FakeGCSServer, versioned: Bool = false, objects: [(name: String, data: Data)]
    ) async throws -> (name: String, generations: [String: [Int64]]) {
        let name = "webimage-\(UUID().uuidString.prefix(8).lowercased())"
        return (name, try await server.makeBucket(name, versioned: versioned, objects: objects))
    }

    private func png(_ width: Int, _ height: Int) throws -> Data {
        try TestImages.encode(try TestImages.quadrants(width: width, height: height), as: .png)
    }

    private func loader(_ server: FakeGCSServer, downloader: ImageDownloader) -> GCSImageLoader {
        GCSImageLoader(configuration: GCSConfiguration(endpoint: server.endpoint), downloader: downloader)
    }

    @Test("gs://bucket/photo.png loads through the loader and the manager, which decodes it")
    func objectLoads() async throws {
        let server = try await FakeGCSServer.shared()
        let image = try png(12, 8)
        let bucket = try await bucket(server, objects: [("photo.png", image)])
        let downloader = ImageDownloader()
        defer { Task { await downloader.shutdown() } }
        let loader = loader(server, downloader: downloader)
        let url = URL(string: "gs://\(bucket.name)/photo.png")!
        #expect(loader.canLoad(url))
        #expect(!loader.canLoad(URL(string: "s3://\(bucket.name)/photo.png")!))
        let response = try await loader.load(url, options: DownloadOptions(), progress: nil)
        #expect(response.data == image)
        #expect(response.head.url == url)
        #expect(response.head.statusCode == 200)

        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([loader, downloader]))
        let result = try await manager.loadImage(from: url)
        #expect(result.image?.pixelSize == PixelSize(width: 12, height: 8))
    }

    @Test("names with spaces, slashes, a plus, a percent and non-ASCII letters are one encoded path segment")
    func namesEncoded() async throws {
        let server = try await FakeGCSServer.shared()
        let names = ["my photos/a b+c.png", "Fotos/Zürich café/%41 ü.png", "写真/猫.png"]
        let images = try names.indices.map { try png(4 + $0, 4) }
        let bucket = try await bucket(server, objects: Array(zip(names, images)).map { (name: $0.0, data: $0.1) })
        let downloader = ImageDownloader()
        defer { Task { await downloader.shutdown() } }
        let loader = loader(server, downloader: downloader)
        for (name, image) in zip(names, images) {
            let location = GCSObjectLocation(bucket: bucket.name, name: name)
            let url = URL(string: "gs://\(bucket.name)/\(AWSURIEncoding.encode(name, keepingSlashes: true))")!
            #expect(try GCSObjectLocation(url: url) == location)
            let response = try await loader.load(url, options: DownloadOptions(), progress: nil)
            #expect(response.data == image, "\(name)")
        }
        let request = try GCSConfiguration(endpoint: server.endpoint).mediaURL(for: GCSObjectLocation(bucket: bucket.name, name: "my photos/a b+c.png"))
        #expect(request.absoluteString == "\(server.endpoint)/storage/v1/b/\(bucket.name)/o/my%20photos%2Fa%20b%2Bc.png?alt=media")
    }

    @Test("a missing object, bucket or generation is notFound naming it")
    func missingIsNotFound() async throws {
        let server = try await FakeGCSServer.shared()
        let bucket = try await bucket(server, objects: [("here.png", try png(4, 4))])
        let downloader = ImageDownloader()
        defer { Task { await downloader.shutdown() } }
        let loader = loader(server, downloader: downloader)
        for (source, named) in [
            ("gs://\(bucket.name)/gone.png", "no object 'gone.png' in the bucket '\(bucket.name)'"),
            ("gs://no-such-bucket-\(bucket.name)/here.png", "no object 'here.png' in the bucket 'no-such-bucket-\(bucket.name)'"),
            ("gs://\(bucket.name)/here.png?12345", "no generation 12345 of 'here.png'"),
        ] {
            let error = await #expect(throws: ImageError.self) {
                _ = try await loader.load(URL(string: source)!, options: DownloadOptions(), progress: nil)
            }
            guard case .notFound(let reason) = error else {
                Issue.record("\(source): expected notFound, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains(named), "\(reason)")
        }
    }

    @Test("a generation in the URL reads that generation; without one, the live object")
    func generationInURL() async throws {
        let server = try await FakeGCSServer.shared()
        let old = try png(30, 10)
        let live = try png(20, 10)
        let bucket = try await bucket(server, versioned: true, objects: [("v.png", old), ("v.png", live)])
        let generations = try #require(bucket.generations["v.png"])
        let downloader = ImageDownloader()
        defer { Task { await downloader.shutdown() } }
        let loader = loader(server, downloader: downloader)
        let first = try await loader.load(URL(string: "gs://\(bucket.name)/v.png?\(generations[0])")!, options: DownloadOptions(), progress: nil)
        #expect(first.data == old)
        let current = try await loader.load(URL(string: "gs://\(bucket.name)/v.png")!, options: DownloadOptions(), progress: nil)
        #expect(current.data == live)
    }

    @Test("the endpoint's /storage/v1 path, as Google's client libraries take it, names the same server")
    func endpointWithAPIPath() async throws {
        let server = try await FakeGCSServer.shared()
        let image = try png(5, 5)
        let bucket = try await bucket(server, objects: [("p.png", image)])
        let downloader = ImageDownloader()
        defer { Task { await downloader.shutdown() } }
        let loader = GCSImageLoader(configuration: GCSConfiguration(endpoint: server.endpoint + "/storage/v1/"), downloader: downloader)
        let response = try await loader.load(URL(string: "gs://\(bucket.name)/p.png")!, options: DownloadOptions(), progress: nil)
        #expect(response.data == image)
    }
}
