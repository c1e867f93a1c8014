import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer
import WebImageTestSupport

@Suite("The library request a proxy path makes")
struct ProxyLibraryRequestTests {
    static let source = "http://127.0.0.1:9/a.jpg"

    static func request(_ path: String, configure: (inout ServerConfig) -> Void = { _ in }) async throws -> ImageRequest {
        let proxy = try await TestProxy.start(configure: configure)
        let resolved = proxy.server.pipeline.resolve(path: path, accept: nil)
        await proxy.stop()
        return try resolved.get().variant.request
    }

    @Test("a resize is the transformer, decoded for its box, encoded as the URL says, retrying blocked sources")
    func resize() async throws {
        let request = try await Self.request("/insecure/rs:fit:300:200/q:70/f:webp/plain/" + Self.source)
        #expect(request.processing.transformer is ProxyTransformer)
        #expect(request.processing.thumbnailPixelSize == PixelSize(width: 300, height: 200))
        guard case .encoded(let encoding, .never) = request.output else { Issue.record("\(request.output)"); return }
        #expect(encoding.format == .fixed(.webp) && encoding.options.quality == 70)
        #expect(request.options.contains(.retryFailed) && request.caching.originals?.cache != nil)
    }

    @Test("raw is the source as it is; its ThumbHash is made from it unprocessed; /info asks for the details")
    func rawThumbHashAndInfo() async throws {
        let raw = try await Self.request("/insecure/raw:1/plain/" + Self.source)
        #expect(raw.processing.isIdentity)
        guard case .encoded(_, .always) = raw.output else { Issue.record("\(raw.output)"); return }
        let hash = try await Self.request("/insecure/raw:1/f:thumbhash/plain/" + Self.source)
        #expect(hash.output == .thumbHash && hash.processing.isIdentity)
        let info = try await Self.request("/info/insecure/plain/" + Self.source)
        #expect(info.output == .details(includeGPS: false))
    }

    @Test("a URL's own limits are the request's fields in place of the server's")
    func urlLimits() async throws {
        let configure: (inout ServerConfig) -> Void = { $0.signing.allowSecurityOptions = true }
        let plain = try await Self.request("/insecure/w:100/plain/" + Self.source, configure: configure)
        let limited = try await Self.request("/insecure/w:100/msr:2/msfs:1000/maf:3/plain/" + Self.source, configure: configure)
        #expect(plain.maxSourceBytes == nil && plain.limits != limited.limits)
        #expect(limited.limits.maxPixels == 2_000_000 && limited.limits.maxFrames == 3 && limited.maxSourceBytes == 1000)
    }
}
