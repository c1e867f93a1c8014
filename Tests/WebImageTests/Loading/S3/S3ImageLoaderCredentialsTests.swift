import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTestSupport

/// How ``S3ImageLoader`` uses its credentials provider, against the test origin.
@Suite("S3 image loader and its credentials provider")
struct S3ImageLoaderCredentialsTests {
    /// Temporary credentials, counting how often they are asked for.
    private final class Counted: AWSCredentialsProvider {
        let calls = Mutex(0)

        func credentials() async throws(ImageError) -> AWSCredentials? {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            return AWSCredentials(accessKeyID: "ASIAKEY\(call)", secretAccessKey: "secret", sessionToken: "session-\(call)")
        }
    }

    @Test("the provider is asked before each load; its key signs the request and its session token goes as X-Amz-Security-Token")
    func askedPerLoad() async throws {
        let png = try TestImages.encode(try TestImages.quadrants(width: 2, height: 2), as: .png)
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/b/a.png", .image(png))
            let provider = Counted()
            let loader = S3ImageLoader(configuration: S3Configuration(endpoint: "127.0.0.1:\(origin.port)", credentialsProvider: provider), downloader: downloader)
            for _ in 0..<2 {
                _ = try await loader.load(URL(string: "s3://b/a.png")!, options: DownloadOptions(), progress: nil)
            }
            #expect(provider.calls.withLock { $0 } == 2)
            let requests = origin.requests("/b/a.png")
            #expect(requests.map { $0.header("X-Amz-Security-Token") } == ["session-1", "session-2"])
            #expect(requests.map { $0.header("Authorization")?.contains("Credential=ASIAKEY\($0.ordinal)/") } == [true, true])
        }
    }

    @Test("a provider that fails fails the load with its credentialsUnavailable, before any request to S3")
    func failingProvider() async throws {
        struct Unavailable: AWSCredentialsProvider {
            func credentials() async throws(ImageError) -> AWSCredentials? {
                throw .credentialsUnavailable("web identity: the token file /var/run/token does not exist")
            }
        }
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/b/a.png", .status(200))
            let loader = S3ImageLoader(configuration: S3Configuration(endpoint: "127.0.0.1:\(origin.port)", credentialsProvider: Unavailable()), downloader: downloader)
            await #expect(throws: ImageError.credentialsUnavailable("web identity: the token file /var/run/token does not exist")) {
                try await loader.load(URL(string: "s3://b/a.png")!, options: DownloadOptions(), progress: nil)
            }
            #expect(origin.totalRequestCount == 0)
            #expect(ImageError.credentialsUnavailable("x").blocksURL == false)
        }
    }
}
