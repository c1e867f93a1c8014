import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// A bucket in another region: S3 answers 301 `PermanentRedirect` with the bucket's region
/// in `x-amz-bucket-region` and no `Location`; the loader asks again, signed for that region.
@Suite("S3 image loader and buckets in another region")
struct S3RegionRedirectTests {
    @Test("a 301 naming the bucket's region is asked again in that region, which is remembered")
    func regionRedirect() async throws {
        let png = try TestImages.encode(try TestImages.quadrants(width: 4, height: 4), as: .png)
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/far/a.png") { request in
                let authorization = request.headers.first { $0.0.lowercased() == "authorization" }?.1 ?? ""
                guard authorization.contains("/eu-west-1/s3/aws4_request") else {
                    return .text(
                        "<Error><Code>PermanentRedirect</Code><Message>Use the bucket's endpoint.</Message></Error>",
                        status: 301, contentType: "application/xml", headers: [("x-amz-bucket-region", "eu-west-1")]
                    )
                }
                return .image(png)
            }
            let loader = S3ImageLoader(
                configuration: S3Configuration(
                    endpoint: "http://127.0.0.1:\(origin.port)", region: "us-east-1",
                    credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret")
                ),
                downloader: downloader
            )
            let response = try await loader.load(URL(string: "s3://far/a.png")!, options: DownloadOptions(), progress: nil)
            #expect(response.data == png)
            #expect(origin.requestCount("/far/a.png") == 2)
            _ = try await loader.load(URL(string: "s3://far/a.png")!, options: DownloadOptions(), progress: nil)
            #expect(origin.requestCount("/far/a.png") == 3)
        }
    }

    @Test("a 301 without a region is an invalid response naming S3's code and the region to set")
    func redirectWithoutRegion() async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.register("/b/a.png", .text("<Error><Code>PermanentRedirect</Code></Error>", status: 301, contentType: "application/xml"))
            let loader = S3ImageLoader(configuration: S3Configuration(endpoint: "127.0.0.1:\(origin.port)"), downloader: downloader)
            await #expect {
                try await loader.load(URL(string: "s3://b/a.png")!, options: DownloadOptions(), progress: nil)
            } throws: { error in
                guard case .invalidResponse(let message) = error as? ImageError else { return false }
                return message.contains("PermanentRedirect") && message.contains("region")
            }
        }
    }
}
