import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// ``S3ImageLoader`` against moto's S3 server on 127.0.0.1, which checks every signature.
@Suite("S3 image loader against moto's S3 server")
struct S3ImageLoaderTests {
    /// A private bucket of the test's own holding `objects`; its name and version IDs.
    private func bucket(
        _ server: MotoS3Server, objects: [(key: String, data: Data)]
    ) async throws -> (name: String, versions: [String: [String]]) {
        let name = "webimage-\(UUID().uuidString.prefix(8).lowercased())"
        return (name, try await server.makeBucket(name, objects: objects))
    }

    private func png(_ width: Int, _ height: Int) throws -> Data {
        try TestImages.encode(try TestImages.quadrants(width: width, height: height), as: .png)
    }

    /// A downloader of the test's own; `address` pins every request to that address.
    private func downloader(address: String? = nil, configure: (inout DownloaderConfig) -> Void = { _ in }) -> ImageDownloader {
        var config = DownloaderConfig()
        if let address { config.hopAddress = { _ in address } }
        configure(&config)
        return ImageDownloader(config: config)
    }

    @Test("a private object loads, path style, signed with the IAM user's key; the manager decodes it")
    func privateObjectPathStyle() async throws {
        let server = try await MotoS3Server.shared()
        let image = try png(12, 8)
        let bucket = try await bucket(server, objects: [("photos/a b+c.png", image)])
        let downloader = downloader()
        defer { Task { await downloader.shutdown() } }
        let loader = S3ImageLoader(
            configuration: S3Configuration(endpoint: server.endpoint, credentials: server.credentials), downloader: downloader
        )
        let url = URL(string: "s3://\(bucket.name)/photos/a%20b+c.png")!
        #expect(loader.canLoad(url))
        let response = try await loader.load(url, options: DownloadOptions(), progress: nil)
        #expect(response.data == image)
        #expect(response.head.url == url)
        #expect(response.head.statusCode == 200)

        let manager = ImageManager(cache: TestCaches.make(), loader: ImageLoaders([loader, downloader]))
        let result = try await manager.loadImage(from: url)
        #expect(result.image?.pixelSize == PixelSize(width: 12, height: 8))
    }

    @Test("virtual-host style: the bucket is the host's first label (bucket.localhost, pinned to 127.0.0.1)")
    func virtualHostStyle() async throws {
        let server = try await MotoS3Server.shared()
        let image = try png(6, 6)
        let bucket = try await bucket(server, objects: [("v.png", image)])
        // `*.localhost` does not resolve here (no nss-myhostname): the downloader's hop
        // address connects to 127.0.0.1 while the request names the bucket's host.
        let hosts = Recorder<String>()
        let downloader = downloader { config in
            config.hopAddress = { url in
                hosts.append(url.host ?? "")
                return "127.0.0.1"
            }
        }
        defer { Task { await downloader.shutdown() } }
        let loader = S3ImageLoader(
            configuration: S3Configuration(endpoint: "http://localhost:\(server.port)", usesPathStyle: false, credentials: server.credentials),
            downloader: downloader
        )
        let response = try await loader.load(URL(string: "s3://\(bucket.name)/v.png")!, options: DownloadOptions(), progress: nil)
        #expect(response.data == image)
        #expect(hosts.values == ["\(bucket.name).localhost"])
    }

    @Test("a version ID in the URL reads that version; without one, the current version")
    func versions() async throws {
        let server = try await MotoS3Server.shared()
        let first = try png(4, 4)
        let second = try png(9, 3)
        let bucket = try await bucket(server, objects: [("k.png", first), ("k.png", second)])
        let versions = try #require(bucket.versions["k.png"])
        #expect(versions.count == 2)
        let downloader = downloader()
        defer { Task { await downloader.shutdown() } }
        let loader = S3ImageLoader(
            configuration: S3Configuration(endpoint: server.endpoint, credentials: server.credentials), downloader: downloader
        )
        let old = try await loader.load(URL(string: "s3://\(bucket.name)/k.png?\(versions[0])")!, options: DownloadOptions(), progress: nil)
        #expect(old.data == first)
        let current = try await loader.load(URL(string: "s3://\(bucket.name)/k.png")!, options: DownloadOptions(), progress: nil)
        #expect(current.data == second)
    }

    @Test("a missing object or bucket is notFound, naming it and S3's code")
    func missing() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server, objects: [("here.png", try png(2, 2))])
        let downloader = downloader()
        defer { Task { await downloader.shutdown() } }
        let loader = S3ImageLoader(
            configuration: S3Configuration(endpoint: server.endpoint, credentials: server.credentials), downloader: downloader
        )
        await #expect {
            try await loader.load(URL(string: "s3://\(bucket.name)/gone.png")!, options: DownloadOptions(), progress: nil)
        } throws: { error in
            guard case .notFound(let message) = error as? ImageError else { return false }
            return message.contains("no object 'gone.png'") && message.contains("NoSuchKey")
        }
        await #expect {
            try await loader.load(URL(string: "s3://no-such-bucket-\(bucket.name)/a.png")!, options: DownloadOptions(), progress: nil)
        } throws: { error in
            guard case .notFound(let message) = error as? ImageError else { return false }
            return message.contains("NoSuchBucket")
        }
    }

    @Test("wrong credentials are accessDenied, with S3's code and what to check")
    func wrongCredentials() async throws {
        let server = try await MotoS3Server.shared()
        let bucket = try await bucket(server, objects: [("p.png", try png(2, 2))])
        let downloader = downloader()
        defer { Task { await downloader.shutdown() } }
        let url = URL(string: "s3://\(bucket.name)/p.png")!
        func load(_ credentials: AWSCredentials?) async -> ImageError? {
            let loader = S3ImageLoader(configuration: S3Configuration(endpoint: server.endpoint, credentials: credentials), downloader: downloader)
            do {
                _ = try await loader.load(url, options: DownloadOptions(), progress: nil)
                return nil
            } catch {
                return error
            }
        }
        let wrongSecret = await load(AWSCredentials(accessKeyID: server.credentials.accessKeyID, secretAccessKey: "not-the-secret"))
        guard case .accessDenied(let message) = wrongSecret else {
            Issue.record("a wrong secret gave \(String(describing: wrongSecret))")
            return
        }
        #expect(message.contains("SignatureDoesNotMatch"))
        #expect(message.contains("AWS_SECRET_ACCESS_KEY"))

        let unknownKey = await load(AWSCredentials(accessKeyID: "AKIAUNKNOWNKEY000000", secretAccessKey: "x"))
        guard case .accessDenied(let unknownMessage) = unknownKey else {
            Issue.record("an unknown key gave \(String(describing: unknownKey))")
            return
        }
        #expect(unknownMessage.contains("InvalidAccessKeyId"))
        #expect(unknownMessage.contains("AWS_ACCESS_KEY_ID"))

        let unsigned = await load(nil)
        guard case .accessDenied(let unsignedMessage) = unsigned else {
            Issue.record("an unsigned request gave \(String(describing: unsigned))")
            return
        }
        #expect(unsignedMessage.contains("unsigned"))
        #expect(ImageError.accessDenied("x").blocksURL == false)
    }

    @Test("the downloader's body limit and hop address apply to S3 requests")
    func transferLimits() async throws {
        let server = try await MotoS3Server.shared()
        let image = try png(64, 64)
        let bucket = try await bucket(server, objects: [("big.png", image)])
        let url = URL(string: "s3://\(bucket.name)/big.png")!

        let limited = downloader { $0.maxBodySize = image.count - 1 }
        defer { Task { await limited.shutdown() } }
        let loader = S3ImageLoader(configuration: S3Configuration(endpoint: server.endpoint, credentials: server.credentials), downloader: limited)
        await #expect(throws: ImageError.bodyTooLarge(limit: image.count - 1)) {
            try await loader.load(url, options: DownloadOptions(), progress: nil)
        }

        let guarded = downloader { config in
            config.hopAddress = { url in throw ImageError.forbiddenSource("\(url.host ?? "") is loopback") }
        }
        defer { Task { await guarded.shutdown() } }
        let refused = S3ImageLoader(configuration: S3Configuration(endpoint: server.endpoint, credentials: server.credentials), downloader: guarded)
        await #expect(throws: ImageError.forbiddenSource("127.0.0.1 is loopback")) {
            try await refused.load(url, options: DownloadOptions(), progress: nil)
        }
    }
}
