import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `DownloadOptions.returnsErrorResponses`: a response outside the acceptable statuses comes
/// back with its body for the caller to read.
@Suite("Downloads returning error responses")
struct ErrorResponsesTests {
    @Test("an error status comes back with its body, past the content-type and empty-body checks")
    func errorResponseReturned() async throws {
        try await withOriginAndDownloader(configure: { $0.acceptableContentTypes = ["image/*"] }) { origin, downloader in
            origin.register("/missing.png", .text("<Error><Code>NoSuchKey</Code></Error>", status: 404, contentType: "application/xml"))
            origin.register("/empty.png", .status(403))
            var options = DownloadOptions()
            options.returnsErrorResponses = true
            let response = try await downloader.load(origin.url("/missing.png"), options: options)
            #expect(response.head.statusCode == 404)
            #expect(String(decoding: response.data, as: UTF8.self) == "<Error><Code>NoSuchKey</Code></Error>")
            let empty = try await downloader.load(origin.url("/empty.png"), options: options)
            #expect(empty.head.statusCode == 403)
            #expect(empty.data.isEmpty)

            await #expect(throws: ImageError.invalidStatusCode(404)) {
                try await downloader.load(origin.url("/missing.png"))
            }
        }
    }

    @Test("an error body larger than the body limit still fails with bodyTooLarge")
    func errorBodyLimited() async throws {
        try await withOriginAndDownloader(configure: { $0.maxBodySize = 10 }) { origin, downloader in
            origin.register("/big", .text(String(repeating: "x", count: 100), status: 500))
            var options = DownloadOptions()
            options.returnsErrorResponses = true
            await #expect(throws: ImageError.bodyTooLarge(limit: 10)) {
                try await downloader.load(origin.url("/big"), options: options)
            }
        }
    }
}
