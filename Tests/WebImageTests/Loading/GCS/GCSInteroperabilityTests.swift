import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// ``GCSImageLoader`` with an HMAC key: GCS's S3-compatible XML API, signed by the S3 machinery.
@Suite("GCS image loader with an HMAC key")
struct GCSInteroperabilityTests {
    static let png: Data = try! TestImages.encode(try! TestImages.quadrants(width: 6, height: 4), as: .png)
    static let hmacKey = AWSCredentials(accessKeyID: "GOOG1EXAMPLEACCESSID", secretAccessKey: "bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ")

    @Test("the object is a path-style GET of <endpoint>/<bucket>/<object>, signed with SigV4 for the region auto")
    func signedPathStyleRequest() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/photos/cats/tom%20cat.png", .image(Self.png))
            let loader = GCSImageLoader(
                configuration: GCSConfiguration(endpoint: origin.baseURL.absoluteString, credentials: .hmac(Self.hmacKey)), downloader: downloader
            )
            let url = URL(string: "gs://photos/cats/tom%20cat.png")!
            let response = try await loader.load(url, options: DownloadOptions(), progress: nil)
            #expect(response.data == Self.png)
            #expect(response.head.url == url)
            let request = try #require(origin.lastRequest("/photos/cats/tom%20cat.png"))
            let authorization = try #require(request.header("authorization"))
            #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=GOOG1EXAMPLEACCESSID/"))
            #expect(authorization.contains("/auto/s3/aws4_request"))
            #expect(request.header("x-amz-content-sha256") != nil)
            #expect(S3Configuration.googleCloudStorage(hmacKey: Self.hmacKey).endpoint == "https://storage.googleapis.com")
        }
    }

    @Test("a refused key is accessDenied naming the gs:// object and the key's access ID; a generation is invalidURL")
    func refusalsNamed() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let refusal = "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error>"
            origin.register("/photos/a.png", TestOriginResponse(status: 403, body: Data(refusal.utf8), contentType: "application/xml"))
            let loader = GCSImageLoader(
                configuration: GCSConfiguration(endpoint: origin.baseURL.absoluteString, credentials: .hmac(Self.hmacKey)), downloader: downloader
            )
            let error = await #expect(throws: ImageError.self) {
                _ = try await loader.load(URL(string: "gs://photos/a.png")!, options: DownloadOptions(), progress: nil)
            }
            guard case .accessDenied(let reason) = error else {
                Issue.record("expected accessDenied, got \(String(describing: error))")
                return
            }
            #expect(reason.hasPrefix("gs://photos/a.png"))
            #expect(reason.contains("HMAC key GOOG1EXAMPLEACCESSID"))
            #expect(reason.contains("SignatureDoesNotMatch"))
            await #expect(throws: ImageError.self) {
                _ = try await loader.load(URL(string: "gs://photos/a.png?42")!, options: DownloadOptions(), progress: nil)
            }
        }
    }
}
